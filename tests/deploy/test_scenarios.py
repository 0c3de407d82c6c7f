"""`predict_rows` times the rows of one deployment and mode together (by column,
`scenario_columns`; `Deployment.serve_many`, `spans.Spans`); these tests check that it gives
what `predict_one` gives row by row. The expected values come from the per-row path on purpose:
what is checked is that the two paths agree, for every output and range column, error and
warning."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from llm_roofline.deploy.deployment import deployment
from llm_roofline.deploy.scenarios.columns import predict_rows
from llm_roofline.deploy.scenarios.rows import (
    INPUT_COLUMNS,
    OUTPUT_COLUMNS,
    RANGE_COLUMNS,
    ScenarioResult,
    predict_one,
    read_scenarios,
    write_results,
)
from llm_roofline.serving.modes import MODES
from llm_roofline.serving.spans import MAX_STEPS_SAMPLED, Spans, contexts

# model, hardware, chips, tp, pp, ep, replicas, weight_dtype, kv_dtype, engine: every engine,
# replicas with uneven batches, a pipeline, MoE with MLA, a sliding window, one that cannot fit
DEPLOYMENTS = [
    ("llama-3.1-8b", "h100-sxm", 1, "", "", "", "", "bf16", "", "calibrated"),
    ("llama-3.1-70b", "h100-sxm", 8, "", "", "", "", "fp8", "fp8", "vllm"),
    ("deepseek-v3", "gb200", 72, "", "", "", "", "fp8", "", "tensorrt-llm"),
    ("mixtral-8x7b", "rtx-pro-6000", 8, "", "", "", "", "bf16", "", "ideal"),
    ("llama-3.1-70b", "l40s", 8, "", "2", "", "", "fp8", "", "lmdeploy"),
    ("gpt-oss-20b", "rtx-4090", 2, "", "", "", "2", "fp4", "", "llama.cpp"),
    ("qwen3-8b", "apple-m4-max", 1, "", "", "", "", "q4_k_m", "", "llamacpp"),
    ("llama-3.1-405b", "h100-sxm", 1, "", "", "", "", "bf16", "", ""),  # does not fit
]

# rows with something wrong: (column, value) set on an otherwise good row
BAD = [
    ("batch", "0"),
    ("batch", "2.5"),
    ("input_len", "-3"),
    ("output_len", "999999999999"),  # input_len + output_len beyond 1e12
    ("engine", "turbo"),
    ("mode", "burst"),
    ("tp", "3"),  # cannot split the heads: every row of that deployment says so
    ("chips", "0"),
    ("weight_dtype", "fp5"),
    ("model", ""),
]


def _rows(n: int, seed: int) -> list[tuple[int, dict[str, str]]]:
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n):
        m, hw, chips, tp, pp, ep, rep, w, kv, eng = DEPLOYMENTS[k % len(DEPLOYMENTS)]
        mode = MODES[int(rng.integers(len(MODES)))]
        out = int(np.exp(rng.uniform(0, np.log(3000))))
        if k % 37 == 5:
            out = 9000  # beyond MAX_STEPS_SAMPLED: sampled contexts
        row = {
            "model": m,
            "hardware": hw,
            "chips": str(chips),
            "tp": tp,
            "pp": pp,
            "ep": ep,
            "replicas": rep,
            "pad_heads": "",
            "weight_dtype": w,
            "kv_dtype": kv,
            # a few batch values, so rows share their points; 3 and 7 split unevenly
            "batch": str(int(rng.choice([1, 3, 7, 16, 64, 256]))),
            "input_len": str(int(np.exp(rng.uniform(np.log(8), np.log(200_000))))),
            "output_len": "" if mode == "decode" and k % 11 == 0 else str(out),
            "mode": mode,
            "engine": eng,
        }
        if k % 23 == 0:  # the same scenario again
            row.update(batch="16", input_len="1000", output_len="100")
        if k % 29 == 3:
            col, value = BAD[(k // 29) % len(BAD)]
            row[col] = value
        rows.append((k + 2, row))
    return rows


def _assert_same(grouped: list[ScenarioResult], alone: list[ScenarioResult]) -> None:
    assert len(grouped) == len(alone)
    for g, a in zip(grouped, alone, strict=True):
        assert g.line == a.line
        assert g.inputs == a.inputs
        assert str(g.error) == str(a.error)
        assert g.warning == a.warning
        assert list(g.outputs) == list(a.outputs) and list(g.extra) == list(a.extra)
        for got, want in ((g.outputs, a.outputs), (g.extra, a.extra)):
            for k, v in want.items():
                if isinstance(v, float):
                    assert got[k] == pytest.approx(v, rel=1e-9, abs=0), (g.line, k)
                else:
                    assert got[k] == v, (g.line, k)


@pytest.mark.slow
def test_grouped_path_equals_the_per_row_path_on_mixed_rows() -> None:
    rows = _rows(320, seed=13)
    grouped = predict_rows(rows)
    alone = [predict_one(r, line) for line, r in rows]
    _assert_same(grouped, alone)
    # the mix covers what it should: every mode and engine predicted, bad rows reported with
    # their line and column, both warnings
    done = [r for r in grouped if not r.error]
    assert {r.inputs["mode"] for r in done} == set(MODES)
    assert {r.inputs["engine"] for r in done} == {d[-1] or "calibrated" for d in DEPLOYMENTS}
    errors = {r.error.column for r in grouped if r.error}
    assert {"batch", "input_len", "output_len", "engine", "mode", "chips"} <= errors
    assert any("beyond the model's trained maximum" in r.warning for r in done)
    assert any("does not fit" in r.warning for r in done)
    assert any(r.extra["tpot_s_low"] is None for r in done)  # the ideal engine: no range
    assert sum(r.error is None for r in grouped) > 250


def test_grouped_path_equals_the_per_row_path_across_several_engine_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A large group is cut into engine calls of about POINTS_PER_CALL decode contexts."""
    import llm_roofline.serving.modes as serving

    monkeypatch.setattr(serving, "POINTS_PER_CALL", 2000)
    rows = _rows(160, seed=21)
    _assert_same(predict_rows(rows), [predict_one(r, line) for line, r in rows])


def test_grouped_path_equals_the_per_row_path_with_settings_and_through_csv(
    tmp_path: Path,
) -> None:
    """Settings from the command line (`--overlap`, `--price`) apply to every group; a CSV
    with a short header row and one row of extra cells reads and writes the same."""
    rows = _rows(90, seed=5)
    settings = {"overlap": "per-op", "price_usd_per_hour": 3.5}
    grouped = predict_rows(rows, settings=settings)
    alone = [predict_one(r, line, settings=settings) for line, r in rows]
    _assert_same(grouped, alone)

    src = tmp_path / "in.csv"
    with src.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(INPUT_COLUMNS)
        for _, r in rows:
            w.writerow([r[c] for c in INPUT_COLUMNS])
        w.writerow(["llama-3.1-8b", "h100-sxm", "1", *[""] * 7, "1", "10", "", "decode", "", "x"])
    read = read_scenarios(src)
    out_g, out_a = tmp_path / "g.csv", tmp_path / "a.csv"
    write_results(predict_rows(read), out_g)
    write_results([predict_one(r, line) for line, r in read], out_a)
    got = list(csv.DictReader(out_g.open(encoding="utf-8")))
    want = list(csv.DictReader(out_a.open(encoding="utf-8")))
    assert len(got) == len(want) == len(rows) + 1
    assert "more cell(s) than the header" in got[-1]["error"]
    for g, a in zip(got, want, strict=True):
        for k, v in a.items():
            if k in OUTPUT_COLUMNS + RANGE_COLUMNS and v and v[0].isdigit():
                assert math.isclose(float(g[k]), float(v), rel_tol=1e-9), k
            else:
                assert g[k] == v, k


def test_rows_from_python_with_cells_that_are_not_text() -> None:
    """Rows given from Python may hold numbers, booleans, None, numpy scalars, a list or a str
    subclass: each such row is checked alone (`_normalise`, as `predict_one` does), so `True`
    is not taken for the chips of a row that gave 1, nor 8.0 for "8.0"."""

    class Text(str):
        pass

    good = {c: v for c, v in _rows(1, seed=3)[0][1].items() if v}
    cells = [
        {"chips": 1, "batch": 4, "input_len": 512},
        {"chips": True},  # the same cells as the row above but for the type: an error
        {"chips": 8.0, "batch": 4.0, "input_len": np.int64(100)},
        {"batch": 2.5},
        {"pad_heads": True},
        {"tp": None, "kv_dtype": None, "engine": None},
        {"batch": [4]},  # cannot be a key
        {"model": Text(good["model"]), "batch": Text("8")},
        {"batch": np.int32(0)},
        {"mode": "decode", "output_len": None},
        {"unknown_column": "ignored"},
    ]
    rows = [(k + 2, {**good, **c}) for k, c in enumerate(cells * 2)]
    got = predict_rows(iter(rows))
    _assert_same(got, [predict_one(r, line) for line, r in rows])
    assert [r.error.column if r.error else None for r in got[:4]] == [None, "chips", None, "batch"]


def test_serve_many_is_serve_scenario_by_scenario() -> None:
    dep = deployment("llama-3.1-70b", "h100-sxm", 12, weight_dtype="fp8", engine="vllm")
    B, I, O = [5, 12, 12, 1], [100, 4096, 100, 30_000], [7, 1, 9_000, 2]
    for mode in MODES:
        cols = dep.serve_many(B, I, O, mode)
        for k in range(len(B)):
            one = dep.serve(batch=B[k], input_len=I[k], output_len=O[k], mode=mode).as_dict()
            row = cols.row(k).as_dict()
            assert row.keys() == one.keys()
            for key, v in one.items():
                assert row[key] == (pytest.approx(v, rel=1e-12) if isinstance(v, float) else v)


def test_spans_take_each_rows_mean_over_its_own_contexts() -> None:
    batch = np.array([4.0, 4.0, 4.0, 8.0, 4.0, 2.0])
    first = np.array([10, 12, 30, 10, 1, 5])
    count = np.array([5, 5, 1, 3, MAX_STEPS_SAMPLED + 10, 1])
    spans = Spans.of(batch, first, count)
    # rows 0 and 1 of batch 4 overlap (contexts 10..16 held once), row 2 apart
    assert spans.batch.size < int(np.minimum(count, MAX_STEPS_SAMPLED).sum())
    values = spans.batch * 1000 + spans.context**1.5  # any function of the point
    for r in range(batch.size):
        ctx = contexts(float(first[r]), int(count[r]))
        want = np.mean(batch[r] * 1000 + ctx**1.5)
        assert spans.mean(values)[r] == pytest.approx(want, rel=1e-13)


def _write_csv(path: Path, header: list[str], rows: list[list[str]], tail: str = "") -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
        fh.write(tail)


@pytest.mark.parametrize("settings", [None, {"overlap": "per-op", "price_usd_per_hour": 3.5}])
def test_the_columnar_file_path_writes_the_per_row_paths_file(
    tmp_path: Path, settings: dict[str, object] | None
) -> None:
    """`predict --scenarios` reads, predicts and writes by column (`scenario_columns`). The
    expected file is the one the per-row path writes (`read_scenarios`, `predict_rows`,
    `write_results`): on purpose, since what is checked is that the two paths agree, byte for
    byte, with the same errors in the same order, on mixed rows with bad ones among them."""
    from llm_roofline.deploy.scenarios.columns import predict_file

    rows = [[r[c] for c in INPUT_COLUMNS] for _, r in _rows(400, seed=17)]
    good = rows[1]

    def bad(**cells: str) -> list[str]:
        return [cells.get(c, v) for c, v in zip(INPUT_COLUMNS, good, strict=True)]

    rows += [
        bad(batch=""),  # an empty required cell
        bad(output_len=""),  # empty: 0 in decode mode, an error in the others
        bad(input_len="many"),  # not a number
        bad(batch=" 12 ", input_len="0100", output_len="1e1"),  # unusual but valid lengths
        bad(batch="\u0663"),  # a digit, not ASCII
        bad(input_len="9" * 30),  # too many digits
        bad(model="llama-9"),  # unknown model
        bad(model='llama "3", 8b'),  # quotes and a comma: the error cell is quoted
        bad(tp="3", chips="8"),  # a split that cannot work
        bad(pad_heads="maybe"),
        bad(engine="IDEAL"),
        [""] * len(INPUT_COLUMNS),  # a row of empty cells: a blank line
        good[:9],  # a short row
        [*good, "surplus"],  # a cell beyond the header
        [*good, "  "],  # an empty one beyond it
    ]
    src, want, got = tmp_path / "in.csv", tmp_path / "want.csv", tmp_path / "got.csv"
    _write_csv(src, list(INPUT_COLUMNS), rows, tail="\r\n\n" + ",".join(good) + "\n")
    results = predict_rows(read_scenarios(src), settings=settings)
    write_results(results, want)
    n, errors = predict_file(src, got, settings)
    assert got.read_bytes() == want.read_bytes()
    assert n == len(results) == len(rows)  # less the blank row, plus the last line
    assert [str(e) for e in errors] == [str(r.error) for r in results if r.error]
    assert len(errors) > 20 and any("more cell(s) than the header" in str(e) for e in errors)

    # a header only; a short header with a trailing comma, columns in another order
    _write_csv(src, list(INPUT_COLUMNS), [])
    assert predict_file(src, got) == (0, [])
    write_results([], want)
    assert got.read_bytes() == want.read_bytes()
    header = ["mode", "model", "hardware", "chips", "weight_dtype", "batch", "input_len", ""]
    short = [["decode", "qwen3-8b", "l40s", "1", "bf16", "4", "512", ""]]
    short += [["static", "qwen3-8b", "l40s", "1", "bf16", "4", "512", "x"], ["decode", "qwen3-8b"]]
    _write_csv(src, header, short)
    write_results(predict_rows(read_scenarios(src)), want)
    assert predict_file(src, got)[0] == 3 and got.read_bytes() == want.read_bytes()
