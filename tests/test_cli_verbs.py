"""Every verb of the command line, run as a user runs it."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from llm_roofline.scenarios import INPUT_COLUMNS, OUTPUT_COLUMNS, RANGE_COLUMNS

CLI = [sys.executable, "-m", "llm_roofline.cli"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_help_lists_every_verb() -> None:
    r = run("--help")
    assert r.returncode == 0
    for verb in ("models", "hardware", "report", "predict", "sweep", "demo"):
        assert verb in r.stdout


def test_report_writes_every_figure_as_png_and_svg(tmp_path: Path) -> None:
    r = run(
        "report",
        "--model",
        "mixtral-8x7b",
        "--hardware",
        "h100-sxm",
        "--chips",
        "2",
        "--context",
        "8192",
        "--out",
        str(tmp_path),
    )
    assert r.returncode == 0, r.stderr
    names = (
        "step_vs_batch",
        "step_vs_context",
        "cost_vs_batch",
        "cost_vs_tokens_per_pass",
        "latency_vs_cost",
    )
    for name in names:
        png = tmp_path / f"mixtral-8x7b_h100-sxm_x2_{name}.png"
        svg = tmp_path / f"mixtral-8x7b_h100-sxm_x2_{name}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert "<svg" in svg.read_text()[:2000] and svg.stat().st_size > 10_000


def test_report_without_price_skips_cost_figures(tmp_path: Path) -> None:
    r = run("report", "--model", "llama-3.1-8b", "--hardware", "tpu-v7", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "no price" in r.stderr
    assert len(list(tmp_path.glob("*.png"))) == 2
    assert "n/a" in r.stdout
    r = run(
        "report",
        "--model",
        "llama-3.1-8b",
        "--hardware",
        "tpu-v7",
        "--price",
        "4.5",
        "--out",
        str(tmp_path / "priced"),
    )
    assert len(list((tmp_path / "priced").glob("*.png"))) == 5


def test_report_json_rows_and_headline() -> None:
    r = run(
        "report", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--chips", "8", "--json"
    )
    out = json.loads(r.stdout)
    assert out["max_batch"] >= 1
    batches = [row["batch"] for row in out["rows"]]
    # powers of two from 1, then the largest batch that fits
    assert batches[:4] == [1, 2, 4, 8] and batches[-1] == out["max_batch"]
    assert all(row["fits"] for row in out["rows"])


def test_predict_one_scenario_json_has_the_contract_columns() -> None:
    for mode in ("decode", "static", "continuous"):
        r = run(
            "predict",
            "--model",
            "qwen3-8b",
            "--hardware",
            "l40s",
            "--batch",
            "8",
            "--input-len",
            "1024",
            "--output-len",
            "128",
            "--mode",
            mode,
            "--json",
        )
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        # the calibrated engine by default: each time and throughput with its range
        assert list(out) == [*INPUT_COLUMNS, *OUTPUT_COLUMNS, *RANGE_COLUMNS]
        assert out["tp"] == 1 and out["engine"] == "calibrated" and out["kv_dtype"] == "bf16"
        assert out["tpot_s_low"] <= out["tpot_s"] <= out["tpot_s_high"]
        for c in OUTPUT_COLUMNS:
            if isinstance(out[c], float):
                assert math.isfinite(out[c]) and out[c] >= 0, c


def test_predict_missing_flags() -> None:
    r = run("predict", "--model", "qwen3-8b", "--hardware", "l40s")
    assert r.returncode == 2 and "--batch" in r.stderr and "Traceback" not in r.stderr


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    fields = [c for c in INPUT_COLUMNS if any(c in r for r in rows)]
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def test_predict_scenarios_round_trip_every_mode(tmp_path: Path) -> None:
    base = {
        "model": "llama-3.1-70b",
        "hardware": "h100-sxm",
        "chips": "8",
        "tp": "8",
        "pp": "1",
        "ep": "1",
        "weight_dtype": "fp8",
        "kv_dtype": "fp8",
        "batch": "32",
        "input_len": "2048",
        "output_len": "256",
        "mode": "decode",
        "engine": "ideal",
    }
    rows = [dict(base, mode=m) for m in ("decode", "static", "continuous")]
    rows.append(
        dict(
            base,
            model="deepseek-v3",
            hardware="gb200",
            chips="72",
            tp="8",
            ep="72",
            mode="continuous",
        )
    )
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_csv(src, rows)
    r = run("predict", "--scenarios", str(src), "--out", str(dst))
    assert r.returncode == 0, r.stderr
    got = list(csv.DictReader(dst.open()))
    assert len(got) == len(rows)
    assert list(got[0]) == [*INPUT_COLUMNS, *OUTPUT_COLUMNS, *RANGE_COLUMNS, "error", "warning"]
    for i, row in enumerate(got):
        for c in INPUT_COLUMNS:
            given = rows[i].get(c)
            if given is not None:
                assert row[c] == given, c  # inputs echoed unchanged
        # columns the file leaves out come back filled: no padding, one replica
        assert (row["pad_heads"], row["replicas"]) == ("false", "1")
        assert row["tpot_s_low"] == ""  # the ideal engine has no range
        assert row["error"] == ""
        for c in OUTPUT_COLUMNS:
            if c not in ("fits", "bound"):
                v = float(row[c])
                assert math.isfinite(v) and v >= 0, c
        assert row["fits"] in ("true", "false") and row["bound"] in (
            "compute",
            "memory",
            "communication",
        )
    # static latency = TTFT + the decode steps, so longer than the TTFT alone
    static = got[1]
    assert float(static["request_latency_s"]) > float(static["ttft_s"])


def test_predict_bad_rows_are_named_and_the_rest_written(tmp_path: Path) -> None:
    good = {
        "model": "qwen3-8b",
        "hardware": "l40s",
        "chips": "1",
        "weight_dtype": "bf16",
        "batch": "4",
        "input_len": "512",
        "output_len": "64",
        "mode": "decode",
    }
    rows = [
        good,
        dict(good, batch="-3"),
        dict(good, hardware="l40"),
        dict(good, mode="speculative"),
        dict(good, chips="2", ep="2"),
        dict(good, input_len=""),
        dict(good, weight_dtype="fp7"),
        dict(good, mode="static"),
    ]
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_csv(src, rows)
    r = run("predict", "--scenarios", str(src), "--out", str(dst))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    expect = {3: "batch", 4: "hardware", 5: "mode", 6: "ep", 7: "input_len", 8: "weight_dtype"}
    for line, column in expect.items():
        assert f"line {line}, column {column}:" in r.stderr, (line, column, r.stderr)
    got = list(csv.DictReader(dst.open()))
    assert len(got) == len(rows)
    assert got[0]["error"] == "" and float(got[0]["tpot_s"]) > 0
    assert got[-1]["error"] == "" and float(got[-1]["tpot_s"]) > 0
    assert got[1]["tpot_s"] == "" and "column batch" in got[1]["error"]


def test_predict_csv_missing_required_column(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text("model,hardware,chips\nqwen3-8b,l40s,1\n")
    r = run("predict", "--scenarios", str(src), "--out", str(tmp_path / "o.csv"))
    assert r.returncode == 2 and "missing column(s)" in r.stderr and "weight_dtype" in r.stderr


def test_sweep_grid_csv(tmp_path: Path) -> None:
    out = tmp_path / "sweep.csv"
    r = run(
        "sweep",
        "--model",
        "qwen3-30b-a3b",
        "--hardware",
        "mi300x",
        "--chips",
        "1,2",
        "--batch",
        "1..8",
        "--context",
        "1024,32768",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 2 * 4 * 2  # chips × batch (1, 2, 4, 8) × context
    assert {r["chips"] for r in rows} == {"1", "2"}
    for row in rows:
        assert float(row["t_step_s"]) >= float(row["t_weights_s"])


def test_sweep_bad_list() -> None:
    r = run("sweep", "--model", "qwen3-8b", "--hardware", "l40s", "--batch", "8..2")
    assert r.returncode == 2 and "--batch" in r.stderr


def test_listing_filters_and_sources() -> None:
    r = run("models", "--attention", "mla", "--json")
    ids = {m["id"] for m in json.loads(r.stdout)}
    assert ids == {"deepseek-v3", "deepseek-r1", "kimi-k2"}
    r = run("hardware", "--filter", "tpu", "--json")
    hw = json.loads(r.stdout)
    assert {h["id"] for h in hw} == {"tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7"}
    assert all(src.startswith("http") for h in hw for src in h["sources"].values())
    r = run("hardware", "--filter", "h100-sxm", "--sources")
    assert r.returncode == 0 and "http" in r.stdout


def test_demo_writes_figures(tmp_path: Path) -> None:
    r = run("demo", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "DeepSeek-V3 on 72 × gb200" in r.stdout and "on 8 × h100-sxm" in r.stdout
    assert len(list((tmp_path / "out").glob("deepseek-v3_gb200_x72_*.png"))) == 5
    assert len(list((tmp_path / "out").glob("llama-3.1-70b_h100-sxm_x8_*.svg"))) == 5


@pytest.mark.parametrize("flag", ["--chips", "--context", "--price"])
def test_report_rejects_non_positive(flag: str) -> None:
    r = run("report", "--model", "qwen3-8b", "--hardware", "l40s", flag, "0")
    assert r.returncode == 2 and flag in r.stderr and "Traceback" not in r.stderr


BAD_CELLS = [
    ("model", "llama-9", "model"),
    ("hardware", "h1000", "hardware"),
    ("chips", "0", "chips"),
    ("chips", "two", "chips"),
    ("tp", "3", "tp"),
    ("pp", "-1", "pp"),
    ("ep", "1.5", "ep"),
    ("weight_dtype", "fp9", "weight_dtype"),
    ("kv_dtype", "int3", "kv_dtype"),
    ("batch", "nan", "batch"),
    ("input_len", "0", "input_len"),
    ("output_len", "1e99", "output_len"),
    ("mode", "burst", "mode"),
    ("engine", "calibratd", "engine"),
]


@pytest.mark.parametrize(("column", "value", "named"), BAD_CELLS)
def test_every_csv_column_is_checked(tmp_path: Path, column: str, value: str, named: str) -> None:
    good = {c: "" for c in INPUT_COLUMNS}
    good.update(
        model="qwen3-8b",
        hardware="l40s",
        chips="1",
        weight_dtype="bf16",
        batch="4",
        input_len="512",
        output_len="64",
        mode="decode",
    )
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_csv(src, [good, dict(good, **{column: value})])
    r = run("predict", "--scenarios", str(src), "--out", str(dst))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"line 3, column {named}:" in r.stderr, r.stderr
    got = list(csv.DictReader(dst.open()))
    assert got[0]["error"] == "" and float(got[0]["tpot_s"]) > 0


BAD_FLAGS = [
    ("report", "--model", "nope"),
    ("report", "--hardware", "nope"),
    ("report", "--chips", "-1"),
    ("report", "--context", "x"),
    ("report", "--weight-dtype", "fp9"),
    ("report", "--kv-dtype", "fp9"),
    ("report", "--overlap", "some"),
    ("report", "--price", "free"),
    ("predict", "--mode", "burst"),
    ("predict", "--engine", "calibratd"),
    ("predict", "--batch", "0"),
    ("predict", "--input-len", "-3"),
    ("predict", "--output-len", "1.5"),
    ("predict", "--tp", "0"),
    ("predict", "--pp", "x"),
    ("predict", "--ep", "-2"),
    ("sweep", "--chips", "0,1"),
    ("sweep", "--context", "a..b"),
]


@pytest.mark.parametrize(("verb", "flag", "value"), BAD_FLAGS)
def test_every_flag_is_checked(verb: str, flag: str, value: str) -> None:
    base = {
        "report": ["--model", "qwen3-8b", "--hardware", "l40s"],
        "sweep": ["--model", "qwen3-8b", "--hardware", "l40s"],
        "predict": [
            "--model",
            "qwen3-8b",
            "--hardware",
            "l40s",
            "--batch",
            "1",
            "--input-len",
            "8",
            "--output-len",
            "8",
        ],
    }[verb]
    args = [*base]
    if flag in args:
        args[args.index(flag) + 1] = value
    else:
        args += [flag, value]
    r = run(verb, *args)
    assert r.returncode == 2, r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("llm-roofline: error:"), r.stderr
    assert "Traceback" not in r.stderr


def _predict_text(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "in.csv"
    src.write_bytes(text.encode("utf-8"))
    return run("predict", "--scenarios", str(src), "--out", str(tmp_path / "out.csv"))


HEADER = "model,hardware,chips,weight_dtype,batch,input_len,output_len,mode"
ROW = "qwen3-8b,l40s,1,bf16,4,512,64,decode"


def test_csv_with_bom_crlf_blank_lines_and_quotes(tmp_path: Path) -> None:
    text = "\ufeff" + HEADER + "\r\n\r\n" + ROW + '\r\n"qwen3-8b", l40s ,1,bf16,4,512,64,static\r\n'
    r = _predict_text(tmp_path, text)
    assert r.returncode == 0, r.stderr
    got = list(csv.DictReader((tmp_path / "out.csv").open()))
    assert [g["mode"] for g in got] == ["decode", "static"]


def test_csv_header_only_and_empty(tmp_path: Path) -> None:
    r = _predict_text(tmp_path, HEADER + "\n")
    assert r.returncode == 0 and "wrote 0 rows" in r.stderr
    r = _predict_text(tmp_path, "")
    assert r.returncode == 2 and "is empty" in r.stderr


def test_csv_duplicate_column(tmp_path: Path) -> None:
    r = _predict_text(tmp_path, HEADER + ",batch\n" + ROW + ",999\n")
    assert r.returncode == 2 and "named twice: batch" in r.stderr


def test_csv_trailing_comma_header_is_fine(tmp_path: Path) -> None:
    r = _predict_text(tmp_path, HEADER + ",\n" + ROW + ",\n")
    assert r.returncode == 0, r.stderr


def test_csv_row_with_extra_cells(tmp_path: Path) -> None:
    r = _predict_text(tmp_path, HEADER + "\n" + ROW + "\n" + ROW + ",oops\n")
    assert r.returncode == 2 and "line 3, column row: 1 more cell(s)" in r.stderr


def test_csv_semicolons(tmp_path: Path) -> None:
    r = _predict_text(tmp_path, HEADER.replace(",", ";") + "\n")
    assert r.returncode == 2 and "comma-separated" in r.stderr


def test_csv_line_numbers_count_from_a_records_first_line(tmp_path: Path) -> None:
    # a quoted cell spanning two lines; the bad row after it starts on line 4
    text = HEADER + '\n"qwen3-8b",l40s,1,bf16,4,512,64,"dec\node"\n' + ROW.replace(",4,", ",-4,")
    r = _predict_text(tmp_path, text + "\n")
    assert "line 2, column mode" in r.stderr and "line 4, column batch" in r.stderr


def test_sweep_into_a_closed_pipe_is_quiet() -> None:
    p = subprocess.run(
        " ".join(
            [
                *CLI,
                "sweep",
                "--model",
                "qwen3-8b",
                "--hardware",
                "l40s",
                "--batch",
                "1..1024",
                "--context",
                "1..131072",
                "--chips",
                "1,2,4",
            ]
        )
        + " | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "error" not in p.stderr


def test_context_figure_marks_where_the_step_turns_memory_bound() -> None:
    import numpy as np

    import llm_roofline as lr
    from llm_roofline.plots import PlotSpec, context_crossover

    p = PlotSpec(lr.deployment("llama-3.1-8b", "rtx-4090", 1))
    S = np.geomspace(64, 131072, 400)
    cross = context_crossover(p, 351, S)
    assert cross is not None
    before = lr.decode_step("llama-3.1-8b", "rtx-4090", batch=351, context_len=cross * 0.97)
    after = lr.decode_step("llama-3.1-8b", "rtx-4090", batch=351, context_len=cross)
    assert list(np.atleast_1d(before.bound_names)) == ["compute"]
    assert list(np.atleast_1d(after.bound_names)) == ["memory"]
