"""The command line. One table of commands run in this process through `llm_roofline.cli.main`
(the function the installed `llm-roofline` calls): each row is the argv, the exit code, words
stdout and stderr must hold, and where needed a check of what the command printed or wrote.
Bad input that must end in exit code 2 and one line is the corpus in
tests/errors/test_command_line_errors.py.

Below the table, a handful of real processes: the installed entry point, `python -m
llm_roofline.cli`, and a reader that stops reading (a broken pipe)."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from llm_roofline.deploy.scenarios.rows import INPUT_COLUMNS, OUTPUT_COLUMNS, RANGE_COLUMNS

from ..conftest import TINY_CONFIG, CliRun, run_cli

# ---- the table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One command: `{tmp}` in argv is the test's temporary folder, where `files` are written
    first. `check(run, tmp)` asserts what the words alone cannot."""

    id: str
    argv: str
    code: int = 0
    out: tuple[str, ...] = ()
    err: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)
    check: Callable[[CliRun, Path], None] | None = None
    marks: tuple[pytest.MarkDecorator, ...] = ()
    needs: str | None = None  # a module the command needs (an optional extra)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _csv_text(rows: list[dict[str, str]]) -> str:
    fields = [c for c in INPUT_COLUMNS if any(c in r for r in rows)]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


FIGURES = ("step_vs_batch", "step_vs_context", "cost_vs_batch", "cost_vs_tokens_per_pass",
           "latency_vs_cost")  # fmt: skip


# -- demo, report ---------------------------------------------------------------------------------


def _demo(r: CliRun, tmp: Path) -> None:
    assert "nan" not in r.out.lower()
    # the lecture's rack and the single node, each with the five figures
    assert len(list((tmp / "out").glob("deepseek-v3_gb200_x72_*.png"))) == 5
    assert len(list((tmp / "out").glob("llama-3.1-70b_h100-sxm_x8_*.svg"))) == 5


def _report_json(r: CliRun, tmp: Path) -> None:
    out = r.json()
    assert out["hardware"] == "h100-sxm" and out["max_batch"] >= 1
    # powers of two from 1, then the largest batch that fits as the last row
    batches = [row["batch"] for row in out["rows"]]
    assert batches[:4] == [1, 2, 4, 8] and batches[-1] == out["max_batch"]
    assert all(b == 2**i for i, b in enumerate(batches[:-1])) and batches == sorted(batches)
    for row in out["rows"]:
        assert row["fits"]
        # the estimate is never below the ideal step's compute or memory time
        assert row["t_step_s"] >= max(row["t_compute_s"], row["t_weights_s"] + row["t_kv_s"])


def _same_as_the_catalog_id(r: CliRun, tmp: Path) -> None:
    # the catalog's own config.json, given as a file, is the same model: the same numbers
    by_id = run_cli("report", "--model", "qwen3-8b", "--hardware", "l40s", "--json")
    assert by_id.code == 0, by_id.err
    mine, theirs = r.json(), by_id.json()
    assert mine["max_batch"] == theirs["max_batch"]
    assert [row["t_step_s"] for row in mine["rows"]] == [row["t_step_s"] for row in theirs["rows"]]


def _every_figure(r: CliRun, tmp: Path) -> None:
    for name in FIGURES:
        png = tmp / f"mixtral-8x7b_h100-sxm_x2_{name}.png"
        svg = tmp / f"mixtral-8x7b_h100-sxm_x2_{name}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert "<svg" in svg.read_text()[:2000] and svg.stat().st_size > 10_000


def _pngs(n: int) -> Callable[[CliRun, Path], None]:
    def check(r: CliRun, tmp: Path) -> None:
        assert len(list(tmp.glob("*.png"))) == n

    return check


# -- catalogs --------------------------------------------------------------------------------------


def _has_deepseek(r: CliRun, tmp: Path) -> None:
    assert any(m["id"] == "deepseek-v3" for m in r.json())


def _mla_models(r: CliRun, tmp: Path) -> None:
    assert {m["id"] for m in r.json()} == {"deepseek-v3", "deepseek-r1", "kimi-k2"}


def _tpus(r: CliRun, tmp: Path) -> None:
    hw = r.json()
    assert {h["id"] for h in hw} == {"tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7"}
    assert all(src.startswith("http") for h in hw for src in h["sources"].values())


# -- predict: one scenario, a scenario CSV ---------------------------------------------------------


def _one_scenario(r: CliRun, tmp: Path) -> None:
    out = r.json()
    # the calibrated engine by default: each time and throughput with its range
    assert list(out) == [*INPUT_COLUMNS, *OUTPUT_COLUMNS, *RANGE_COLUMNS, "engine_profile"]
    assert out["tp"] == 1 and out["engine"] == "calibrated" and out["kv_dtype"] == "bf16"
    # which measured constants the calibrated engine took for this chip
    assert "vendor nvidia" in out["engine_profile"] and "memory gddr" in out["engine_profile"]
    assert out["tpot_s_low"] <= out["tpot_s"] <= out["tpot_s_high"]
    for c in OUTPUT_COLUMNS:
        if isinstance(out[c], float):
            assert math.isfinite(out[c]) and out[c] >= 0, c


def _calibrated_against_ideal(r: CliRun, tmp: Path) -> None:
    cal = r.json()
    ideal_run = run_cli(
        "predict", "--model", "qwen3-8b", "--hardware", "l40s", "--batch", "4", "--input-len",
        "512", "--output-len", "64", "--json", "--engine", "ideal",
    )  # fmt: skip
    assert ideal_run.code == 0, ideal_run.err
    ideal = ideal_run.json()
    assert cal["engine"] == "calibrated" and ideal["engine"] == "ideal"
    assert cal["tpot_s"] > ideal["tpot_s"]  # efficiencies below 1 and an overhead per pass
    # a calibrated prediction carries its range: times scale by (low, high) of the profile,
    # throughputs by its inverse; the ideal engine has none
    assert cal["tpot_s_low"] <= cal["tpot_s"] <= cal["tpot_s_high"]
    assert cal["output_tokens_per_s_low"] <= cal["output_tokens_per_s"]
    assert cal["output_tokens_per_s"] <= cal["output_tokens_per_s_high"]
    assert "tpot_s_low" not in ideal


ROUND_TRIP_BASE = {
    "model": "llama-3.1-70b", "hardware": "h100-sxm", "chips": "8", "tp": "8", "pp": "1",
    "ep": "1", "weight_dtype": "fp8", "kv_dtype": "fp8", "batch": "32", "input_len": "2048",
    "output_len": "256", "mode": "decode", "engine": "ideal",
}  # fmt: skip
ROUND_TRIP = [dict(ROUND_TRIP_BASE, mode=m) for m in ("decode", "static", "continuous")] + [
    dict(ROUND_TRIP_BASE, model="deepseek-v3", hardware="gb200", chips="72", tp="8", ep="72",
         mode="continuous")
]  # fmt: skip


def _round_trip(r: CliRun, tmp: Path) -> None:
    got = _rows(tmp / "out.csv")
    assert len(got) == len(ROUND_TRIP)
    assert list(got[0]) == [*INPUT_COLUMNS, *OUTPUT_COLUMNS, *RANGE_COLUMNS, "error", "warning"]
    for given, row in zip(ROUND_TRIP, got, strict=True):
        for c, v in given.items():
            assert row[c] == v, c  # inputs echoed unchanged
        # columns the file leaves out come back filled: no padding, one replica
        assert (row["pad_heads"], row["replicas"]) == ("false", "1")
        assert row["tpot_s_low"] == ""  # the ideal engine has no range
        assert row["error"] == ""
        for c in OUTPUT_COLUMNS:
            if c not in ("fits", "bound"):
                v = float(row[c])
                assert math.isfinite(v) and v >= 0, c
        assert row["fits"] in ("true", "false")
        assert row["bound"] in ("compute", "memory", "communication")
    # static latency = TTFT + the decode steps, so longer than the TTFT alone
    static = got[1]
    assert float(static["request_latency_s"]) > float(static["ttft_s"])


GOOD_ROW = {
    "model": "qwen3-8b", "hardware": "l40s", "chips": "1", "weight_dtype": "bf16", "batch": "4",
    "input_len": "512", "output_len": "64", "mode": "decode",
}  # fmt: skip
BAD_ROWS = [
    GOOD_ROW,
    dict(GOOD_ROW, batch="-3"),
    dict(GOOD_ROW, hardware="l40"),
    dict(GOOD_ROW, mode="speculative"),
    dict(GOOD_ROW, chips="2", ep="2"),
    dict(GOOD_ROW, input_len=""),
    dict(GOOD_ROW, weight_dtype="fp7"),
    dict(GOOD_ROW, mode="static"),
]


def _bad_rows_named_and_the_rest_written(r: CliRun, tmp: Path) -> None:
    # the header is line 1, so row i of the file (from 0) is on line i + 2
    expect = {3: "batch", 4: "hardware", 5: "mode", 6: "ep", 7: "input_len", 8: "weight_dtype"}
    for line, column in expect.items():
        assert f"line {line}, column {column}:" in r.err, (line, column, r.err)
    got = _rows(tmp / "out.csv")
    assert len(got) == len(BAD_ROWS)
    assert got[0]["error"] == "" and float(got[0]["tpot_s"]) > 0
    assert got[-1]["error"] == "" and float(got[-1]["tpot_s"]) > 0
    assert got[1]["tpot_s"] == "" and "column batch" in got[1]["error"]


# every input column of the scenario CSV is checked: (column, bad value)
BAD_CELLS = [
    ("model", "llama-9"), ("hardware", "h1000"), ("chips", "0"), ("chips", "two"), ("tp", "3"),
    ("pp", "-1"), ("ep", "1.5"), ("weight_dtype", "fp9"), ("kv_dtype", "int3"), ("batch", "nan"),
    ("input_len", "0"), ("output_len", "1e99"), ("mode", "burst"), ("engine", "calibratd"),
]  # fmt: skip
FULL_ROW = {c: "" for c in INPUT_COLUMNS} | GOOD_ROW


def _first_row_still_predicted(r: CliRun, tmp: Path) -> None:
    got = _rows(tmp / "out.csv")
    assert got[0]["error"] == "" and float(got[0]["tpot_s"]) > 0


CSV_HEADER = "model,hardware,chips,weight_dtype,batch,input_len,output_len,mode"
CSV_ROW = "qwen3-8b,l40s,1,bf16,4,512,64,decode"
PREDICT_CSV = "predict --scenarios {tmp}/in.csv --out {tmp}/out.csv"


def _modes(*modes: str) -> Callable[[CliRun, Path], None]:
    def check(r: CliRun, tmp: Path) -> None:
        assert [g["mode"] for g in _rows(tmp / "out.csv")] == list(modes)

    return check


# -- sweep -----------------------------------------------------------------------------------------


def _sweep_grid(r: CliRun, tmp: Path) -> None:
    rows = _rows(tmp / "sweep.csv")
    assert len(rows) == 2 * 4 * 2  # chips × batch (1, 2, 4, 8) × context
    assert {row["chips"] for row in rows} == {"1", "2"}
    for row in rows:
        assert float(row["t_step_s"]) >= float(row["t_weights_s"])


# -- economics (docs/economics.md; hand arithmetic: tests/economics/test_lecture_economics.py)


def _pricing_json(r: CliRun, tmp: Path) -> None:
    out = r.json()
    # output priced 5x input: decode at a fifth of prefill's utilisation
    assert out["decode_to_prefill_mfu"] == pytest.approx(0.2)
    # 2 x 1e11 / (600 x 200,000) = 2e11 / 1.2e8 = 1,666.7 B/token
    assert out["implied_kv_bytes_per_token"] == pytest.approx(1666.67, rel=1e-4)
    # Llama 3.1 70B: 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 327,680 B/token
    assert out["catalog_kv_bytes_per_token_bf16"]["llama-3.1-70b"] == 327_680
    # --active-params 1e11 and --model llama-3.1-70b (69,501,714,432) disagree: said, and 1e11
    assert "using --active-params" in out["active_params_note"]
    # the table's row for Llama 3.1 70B divides by its own implied 1,158.36 B/token:
    # 327,680 / 1,158.36 = 282.88 (tests/economics/test_lecture_economics.py: the model's own
    # active parameters)
    row = {x["model"]: x for x in out["catalog_vs_price_step"]}["llama-3.1-70b"]
    assert row["ratio"] == pytest.approx(282.88, rel=1e-4)
    assert (tmp / "llama-3.1-70b_cost_vs_context.png").stat().st_size > 10_000


def _cache_tiers_json(r: CliRun, tmp: Path) -> None:
    out = r.json()
    # Llama 3.1 8B: 32 layers x 8 KV heads x 128 x 2 x 2 bytes = 131,072 B/token; x 10,000
    assert out["kv_bytes"] == 1_310_720_000 and len(out["cheapest"]) == 2
    assert (tmp / "llama-3.1-8b_h100-sxm_cache_tiers.png").exists()


def _fits_on_8(r: CliRun, tmp: Path) -> None:
    out = r.json()
    assert out["fits"] is True and out["warning"] is None
    # 327,680 x 100,000 = 3.2768e10 B over 8 x 3.35e12 B/s = 2.68e13 B/s: 1.22269e-3 s
    assert out["tiers"]["hbm"]["fetch_s"] == pytest.approx(1.22269e-3, rel=1e-4)


def _one_warning_line(r: CliRun, tmp: Path) -> None:
    assert r.err.count("\n") == 1 and r.err.startswith("llm-roofline: warning: ")


# -- validate, optimize, measure -------------------------------------------------------------------


def _validate_json(r: CliRun, tmp: Path) -> None:
    from llm_roofline.validation.validate import load_rows

    out = r.json()
    assert out["summary"]["rows"] == len(load_rows())
    assert all(row["predicted"] > 0 for row in out["rows"])
    assert (tmp / "validation_calibrated.png").stat().st_size > 10_000


def _shipped_profiles(r: CliRun, tmp: Path) -> None:
    from importlib import resources

    shipped = resources.files("llm_roofline").joinpath("data/profiles.toml").read_text("utf-8")
    assert (tmp / "profiles.toml").read_text(encoding="utf-8") == shipped


def _optimize_json(r: CliRun, tmp: Path) -> None:
    out = r.json()
    assert out["best"]["tpot_s"] <= 0.015 and len(out["frontier"]) >= 3
    assert (tmp / "mixtral-8x7b_h100-sxm_frontier.png").stat().st_size > 10_000


def _simulate_json(r: CliRun, tmp: Path) -> None:
    out = r.json()
    # 200 requests at 5/s: offered well under one H100's capacity for 256 + 32 tokens
    assert out["stable"] is True and out["capacity_rps"] > 5
    assert out["ttft_p50_s"] <= out["ttft_p90_s"] <= out["ttft_p99_s"]
    for stem in ("simulate_latency_vs_load", "simulate_timeline"):
        assert (tmp / f"{stem}.png").stat().st_size > 10_000


def _plan_json(r: CliRun, tmp: Path) -> None:
    out = r.json()
    b = out["best"]
    # the best meets both targets at the rate and holds more than it
    assert b["ttft_p90_s"] <= 0.3 and b["tpot_p99_s"] <= 0.04 and b["capacity_rps"] > 10
    assert b["chips"] <= 8 and out["reason"] is None and out["candidates"]


def _measured_rows(r: CliRun, tmp: Path) -> None:
    import llm_roofline as lr

    assert len(_rows(tmp / "rows.csv")) == 2  # batch 1 and 2 at context 64
    # the chip record it wrote loads back as a chip with the bandwidth it measured
    assert lr.get_hardware(str(tmp / "hw.toml")).memory_bw > 0


def _qwen3_config() -> str:
    from llm_roofline.model.checkpoints import model_entry

    return json.dumps(model_entry("qwen3-8b").config)


LLAMA = "--model llama-3.1-8b --hardware h100-sxm"
QWEN = "--model qwen3-8b --hardware l40s"
PRICES = "pricing --input-price 3 --output-price 15 --long-context-threshold 200000 --ratio 600"

CASES: list[Case] = [
    # demo: the lecture's example and a single node, with figures
    Case("demo", "demo --out {tmp}/out",
         out=("DeepSeek-V3 on 72 × gb200", "on 8 × h100-sxm", "latency floor",
              "balance batch B*"), check=_demo, marks=(pytest.mark.slow,)),  # 4 s: five figures
    # report
    Case("report json", "report --model llama-3.1-70b --hardware h100-sxm --chips 8 --json",
         check=_report_json),
    Case("report of a config.json path", "report --model {tmp}/my-model.json --hardware l40s "
         "--json", files={"my-model.json": _qwen3_config()}, check=_same_as_the_catalog_id),
    Case("report writes every figure as png and svg",
         "report --model mixtral-8x7b --hardware h100-sxm --chips 2 --context 8192 --out {tmp}",
         check=_every_figure, marks=(pytest.mark.slow,)),
    # TPU v7 has no catalog price: the three cost figures are skipped, and said so
    Case("report without a price", "report --model llama-3.1-8b --hardware tpu-v7 --out {tmp}",
         out=("n/a",), err=("no price",), check=_pngs(2)),
    Case("report with --price", "report --model llama-3.1-8b --hardware tpu-v7 --price 4.5 "
         "--out {tmp}", check=_pngs(5), marks=(pytest.mark.slow,)),
    # catalogs
    Case("models json", "models --json", check=_has_deepseek),
    Case("hardware", "hardware", out=("rubin", "announced")),
    Case("models by attention", "models --attention mla --json", check=_mla_models),
    Case("hardware filter", "hardware --filter tpu --json", check=_tpus),
    Case("hardware sources", "hardware --filter h100-sxm --sources", out=("http",)),
    # predict: one scenario in each mode, the calibrated engine against the ideal
    *(Case(f"predict {mode}", f"predict {QWEN} --batch 8 --input-len 1024 --output-len 128 "
           f"--mode {mode} --json", check=_one_scenario)
      for mode in ("decode", "static", "continuous")),
    Case("predict calibrated and ideal", f"predict {QWEN} --batch 4 --input-len 512 "
         "--output-len 64 --json", check=_calibrated_against_ideal),
    # Llama 3.1 8B: max_position_embeddings 131,072; 200,000 + 8 tokens is past it. A number
    # is still given (the arithmetic holds), with a warning that names the maximum.
    Case("context past the trained maximum", f"predict {LLAMA} --batch 1 --input-len 200000 "
         "--output-len 8", err=("warning", "131,072")),
    # predict: scenario CSVs
    Case("scenario CSV round trip, every mode", PREDICT_CSV,
         files={"in.csv": _csv_text(ROUND_TRIP)}, check=_round_trip),
    Case("scenario CSV bad rows named, the rest written", PREDICT_CSV, code=2,
         files={"in.csv": _csv_text(BAD_ROWS)}, check=_bad_rows_named_and_the_rest_written),
    *(Case(f"scenario CSV bad {column} {value}", PREDICT_CSV, code=2,
           err=(f"line 3, column {column}:",),
           files={"in.csv": _csv_text([FULL_ROW, dict(FULL_ROW, **{column: value})])},
           check=_first_row_still_predicted)
      for column, value in BAD_CELLS),
    Case("scenario CSV with BOM, CRLF, blank lines, quotes", PREDICT_CSV,
         files={"in.csv": "\ufeff" + CSV_HEADER + "\r\n\r\n" + CSV_ROW
                + '\r\n"qwen3-8b", l40s ,1,bf16,4,512,64,static\r\n'},
         check=_modes("decode", "static")),
    Case("scenario CSV header only", PREDICT_CSV, files={"in.csv": CSV_HEADER + "\n"},
         err=("wrote 0 rows",), check=_modes()),
    Case("scenario CSV trailing comma header", PREDICT_CSV,
         files={"in.csv": CSV_HEADER + ",\n" + CSV_ROW + ",\n"}, check=_modes("decode")),
    Case("scenario CSV row with extra cells", PREDICT_CSV, code=2,
         files={"in.csv": CSV_HEADER + "\n" + CSV_ROW + "\n" + CSV_ROW + ",oops\n"},
         err=("line 3, column row: 1 more cell(s)",)),
    # a quoted cell spanning two lines; the bad row after it starts on line 4
    Case("scenario CSV line numbers count from a record's first line", PREDICT_CSV, code=2,
         files={"in.csv": CSV_HEADER + '\n"qwen3-8b",l40s,1,bf16,4,512,64,"dec\node"\n'
                + CSV_ROW.replace(",4,", ",-4,") + "\n"},
         err=("line 2, column mode", "line 4, column batch")),
    # sweep
    Case("sweep grid", "sweep --model qwen3-30b-a3b --hardware mi300x --chips 1,2 --batch 1..8 "
         "--context 1024,32768 --out {tmp}/sweep.csv", check=_sweep_grid),
    # economics
    Case("pricing json", "pricing --input-price 3 --output-price 15 --long-context-threshold "
         "200000 --long-input-price 6 --long-output-price 22.5 --active-params 1e11 --ratio 600 "
         "--model llama-3.1-70b --chips 8 --out {tmp} --json", check=_pricing_json),
    # no --active-params: the model's 69,501,714,432; 2 x that / (600 x 200,000) = 1,158.36
    Case("pricing takes active params from the model",
         f"{PRICES} --model llama-3.1-70b --chips 8",
         out=("69.5 billion active parameters (llama-3.1-70b's", "KV ≈ 1,158 bytes per token")),
    # the given 1e11: 2 x 1e11 / 1.2e8 = 1,666.7 -> "1,667", and a note that it differs
    Case("pricing notes a given active params that differs",
         f"{PRICES} --active-params 1e11 --model llama-3.1-70b --chips 8",
         out=("KV ≈ 1,667 bytes per token",
              "note: --active-params (100 billion) differs from llama-3.1-70b's 69.5 billion")),
    Case("cache-tiers json", f"cache-tiers {LLAMA} --context 10000 --hold 1,3600 --out {{tmp}} "
         "--json", check=_cache_tiers_json),
    # Llama 3.1 70B on one H100 at 100,000 tokens: 141.1 GB of weights + 32.8 GB of KV against
    # 85.5 GB (the arithmetic is in tests/economics/test_lecture_economics.py); one warning line,
    # the table still printed
    Case("cache-tiers warns when the model does not fit",
         "cache-tiers --model llama-3.1-70b --hardware h100-sxm --context 100000 --hold 1",
         out=("bring back",),
         err=("141.1 GB + KV cache 32.8 GB = 173.9 GB per chip, 85.5 GB",),
         check=_one_warning_line),
    Case("cache-tiers on 8 chips fits, no warning",
         "cache-tiers --model llama-3.1-70b --hardware h100-sxm --chips 8 --context 100000 "
         "--hold 1 --json", check=_fits_on_8),
    # 1e6 tokens/s x 10 days x 86,400 s = 8.64e11 tokens; at the default MFUs pre-training
    # buys as many tokens, RL (3 N FLOPs a token against inference's 2 N) 2/3 as many, 5.76e11;
    # Chinchilla for 1e9 active parameters: 20 x 1e9 = 2e10, so 8.64e11 / 2e10 = 43.2
    Case("balance", "balance --tokens-per-s 1e6 --days 10 --active-params 1e9",
         out=("inference tokens: 864 billion", "pre-training tokens at equal cost: 864 billion",
              "RL tokens at equal cost: 576 billion", "over-training factor 43.2")),
    # what-if verbs. Batch 1 on the ideal engine is memory-bound: the step is bytes over the
    # bandwidth, so +10% bandwidth is 1.1× the tokens/s (+10.0%) and FLOP/s buys nothing
    Case("sensitivity", "sensitivity --model llama-3.1-8b --hardware h100-sxm --batch 1 "
         "--engine ideal",
         out=("+10% memory bandwidth buys +10.0% tokens/s per user",
              "+10% dense FLOP/s, memory capacity, scale-up bandwidth, scale-out bandwidth "
              "or price buys 0%")),
    # ×2.5 from batch 64: a smaller batch (the lecture's fast mode) reaches it, at a price
    Case("fast-mode", "fast-mode --model llama-3.1-8b --hardware h100-sxm --batch 64 "
         "--speedup 2.5", out=("a smaller batch", "costs ×")),
    # validate, optimize, measure
    Case("validate calibrated", "validate --engine calibrated --json --out {tmp}",
         check=_validate_json, marks=(pytest.mark.slow,)),
    Case("optimize", "optimize --model mixtral-8x7b --hardware h100-sxm --max-chips 8 "
         "--tpot-ms 15 --json --out {tmp}", check=_optimize_json),
    Case("simulate", f"simulate {LLAMA} --rate 5 --requests 200 --input-len 256 "
         "--output-len 32 --json --out {tmp}", check=_simulate_json, marks=(pytest.mark.slow,)),
    Case("plan", "plan --model llama-3.1-8b --hardware h100-sxm,a100-80gb --rate 10 "
         "--input-len 512 --output-len 64 --ttft-p90-ms 300 --tpot-p99-ms 40 --requests 400 "
         "--max-chips 8 --json", check=_plan_json),
    # the shipped constants are what `calibrate` fits from the validation set (3 s)
    Case("calibrate reproduces the shipped profiles", "calibrate --out {tmp}/profiles.toml",
         err=("wrote the calibrated engine's constants",), check=_shipped_profiles,
         marks=(pytest.mark.slow,)),
    Case("measure a tiny model", "measure --model {tmp}/tiny.json --batch 1,2 --context 64 "
         "--save-rows {tmp}/rows.csv --save-hardware {tmp}/hw.toml",
         files={"tiny.json": json.dumps(TINY_CONFIG)}, out=("GB/s",),
         err=("wrote the hardware record", "wrote 2 validation rows"),
         check=_measured_rows, needs="torch"),
]  # fmt: skip


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
def test_command(case: Case, tmp_path: Path) -> None:
    if case.needs:
        pytest.importorskip(case.needs)
    for name, text in case.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in case.argv.split()]
    r = run_cli(*argv)
    assert r.code == case.code, (r.code, r.out[-500:], r.err[-500:])
    for words in case.out:
        assert words in r.out, (words, r.out[-1000:])
    for words in case.err:
        assert words in r.err, (words, r.err[-1000:])
    if case.check is not None:
        case.check(r, tmp_path)


def test_measure_refuses_cuda_where_there_is_none() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device: the refusal is not reachable here")
    r = run_cli("measure", "--device", "cuda", "--model", "llama-3.1-8b")
    assert r.code == 2 and r.out == ""
    assert r.err_lines == [
        "llm-roofline: error: no CUDA device is available here; use --device cpu"
    ]


def test_the_table_runs_every_verb_that_computes() -> None:
    # `serve` is the browser test's (tests/web/test_page_e2e.py)
    from llm_roofline.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    verbs = set(sub.choices)  # type: ignore[arg-type]
    ran = {c.argv.split()[0] for c in CASES}
    assert verbs - ran == {"serve"}, verbs - ran


# ---- real processes --------------------------------------------------------------------------


def _entry_point() -> str:
    path = shutil.which("llm-roofline", path=str(Path(sys.executable).parent))
    assert path, "the llm-roofline command is installed beside this Python (pip install -e .)"
    return path


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_installed_command_help_lists_every_verb() -> None:
    r = _run([_entry_point(), "--help"])
    assert r.returncode == 0 and r.stderr == ""
    verbs = (
        "models hardware report predict sweep optimize simulate plan validate calibrate measure "
        "serve "
        "pricing cache-tiers balance sensitivity fast-mode demo"
    )
    for verb in verbs.split():
        assert verb in r.stdout, verb


def test_installed_command_bad_input_is_exit_2_and_one_line() -> None:
    r = _run([_entry_point(), "report", "--model", "llama-3.1-7b", "--hardware", "h100-sxm"])
    assert r.returncode == 2 and r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("llm-roofline: error: unknown model"), lines


def test_python_m_runs_the_command_line() -> None:
    r = _run([sys.executable, "-m", "llm_roofline.cli", "--help"])
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith("usage: llm-roofline ")


def test_python_m_argparse_error_is_exit_2_and_one_line() -> None:
    r = _run([sys.executable, "-m", "llm_roofline.cli", "report", *LLAMA.split(), "--modle", "x"])
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == "llm-roofline: error: unrecognized arguments: --modle x\n"


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    # `sweep ... | head -1`: the grid is 11 batches × 18 contexts × 3 chip counts = 594 rows of
    # about 250 bytes, more than a pipe holds (64 KiB), so the writer meets the closed pipe
    p = subprocess.Popen(
        [sys.executable, "-m", "llm_roofline.cli", "sweep", *QWEN.split(), "--batch", "1..1024",
         "--context", "1..131072", "--chips", "1,2,4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.readline().startswith("model,hardware,chips,")
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and err == "", err
