"""`validate --serving` (validation/serving.py, serving_figures.py, serving_fit.py and
cli/cmd_validate_serving.py): rows mapped to simulations, figures and statistics worked by
hand, the fixed costs' fit on rows made from known costs, and the whole file (slow)."""

from __future__ import annotations

import csv
import math
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from llm_roofline.cli.cmd_validate_serving import FAMILY_WORDS
from llm_roofline.sim.simulate import SimResult
from llm_roofline.sim.workload import Workload
from llm_roofline.validation.serving import (
    CAP,
    DATA,
    MIN_REQUESTS,
    STEP_BUDGET,
    Setting,
    Simulations,
    load_serving_rows,
    map_row,
    request_count,
    serving_knobs,
)
from llm_roofline.validation.serving_figures import (
    FAMILIES,
    error_stats,
    grouped_stats,
    metric_family,
    simulated_value,
)
from llm_roofline.validation.serving_fit import SHARED, Linear, costs_toml, fit_costs

from ..conftest import run_cli

ROW = {
    "source_address": "https://example.org/a",
    "model": "llama-3.1-8b",
    "hardware": "h100-sxm",
    "chips": "1",
    "tp": "1",
    "engine": "vllm",
    "engine_version": "0.6.0",
    "weight_dtype": "bf16",
    "kv_dtype": "",
    "load_kind": "rate",
    "load": "4",
    "requests": "1200",
    "input_len": "512",
    "output_len": "128",
    "length_note": "fixed",
    "metric": "ttft_p50_s",
    "value": "0.05",
    "unit_note": "",
    "notes": "",
}


def _row(**over: str) -> dict[str, str]:
    return {**ROW, **over}


def test_metric_families() -> None:
    assert [metric_family(m) for m in ("ttft_p99_s", "itl_mean_s", "tpot_p50_s")] == [
        "ttft",
        "tpot",  # inter-token latency counts as TPOT
        "tpot",
    ]
    assert metric_family("e2e_mean_s") == "e2e"
    assert metric_family("output_tokens_per_s") == "throughput"
    assert metric_family("request_throughput_rps") == "throughput"
    assert metric_family("goodput_percent") is None
    assert [f for f, _ in FAMILY_WORDS] == [*FAMILIES, "all"]


def test_request_counts_by_hand() -> None:
    # an open loop at 4 req/s: STEP_BUDGET / 100 x 4 = 8000 / 100 x 4 = 320 of the 1,200 stated
    assert (STEP_BUDGET, MIN_REQUESTS, CAP) == (8000, 100, 1000)
    assert request_count("rate", 4.0, 1200, 128) == 320
    assert request_count("rate", 0.5, None, 128) == MIN_REQUESTS  # 40 would be too few
    assert request_count("rate", 0.5, 60, 128) == 60  # never more than were sent
    assert request_count("rate", math.inf, 5000, 128) == CAP
    # 64 clients of 2,048 output tokens: 8000 x 64 / 2048 = 250 requests (>= 2 x 64)
    assert request_count("concurrency", 64, None, 2048) == 250
    # one client of 2,048 tokens: 8000 x 1 / 2048 = 3.9, so 3 requests (6,144 steps)
    assert request_count("concurrency", 1, None, 2048) == 3
    assert request_count("concurrency", 1, None, 8000) == 2  # 1 by the steps; 2 a client
    assert request_count("concurrency", 256, 3000, 128) == CAP  # 16,000 by the steps
    assert request_count("concurrency", 600, 3000, 2048) == 1200  # two a client beat the cap


def test_a_rate_row_becomes_a_poisson_setting() -> None:
    r = map_row(_row(), 7)
    s = r.setting
    assert s is not None and not r.reason
    assert (r.line, r.family, r.value) == (7, "ttft", 0.05)
    assert (s.loop, s.load, s.requests, s.stated_requests) == ("rate", 4.0, 320, 1200)
    assert (s.input_len, s.output_len, s.dataset) == (512.0, 128.0, None)
    assert (s.kv_dtype, s.replicas) == ("bf16", 1)
    names, _ = serving_knobs()
    assert s.engine == ("vllm" if names else None)


def test_split_dtypes_and_engines_from_the_row() -> None:
    s = map_row(_row(chips="8", tp="2", weight_dtype="fp16"), 1).setting
    assert s is not None and (s.tp, s.pp, s.replicas, s.kv_dtype) == (2, 1, 4, "fp16")
    s = map_row(_row(chips="8", tp="2", notes="launched with pp 2"), 1).setting
    assert s is not None and (s.pp, s.replicas) == (2, 2)
    s = map_row(_row(weight_dtype="fp8", kv_dtype="fp8_e5m2"), 1).setting
    assert s is not None and s.kv_dtype == "fp8"
    names, _ = serving_knobs()
    if names:  # NIM serves with TensorRT-LLM; TurboMind is LMDeploy's
        assert map_row(_row(engine="nvidia-nim"), 1).setting.engine == "tensorrt-llm"  # type: ignore[union-attr]
        lmd = map_row(_row(engine="lmdeploy-turbomind"), 1).setting
        assert lmd is not None and lmd.engine == "lmdeploy"
    assert map_row(_row(engine="some-engine"), 1).setting.engine is None  # type: ignore[union-attr]


def test_closed_loops_and_datasets() -> None:
    s = map_row(_row(load_kind="concurrency", load="64", requests="", output_len="2048"), 1)
    assert s.setting is not None and (s.setting.loop, s.setting.requests) == ("concurrency", 250)
    note = (
        "ShareGPT (sglang.bench_serving); the output states total_input_tokens 269081 and "
        "total_output_tokens 226901 over 1200 requests"
    )
    s = map_row(_row(input_len="", output_len="", length_note=note), 1).setting
    assert s is not None and s.dataset == "sharegpt"
    assert s.input_len == pytest.approx(269081 / 1200) and s.output_len == pytest.approx(
        226901 / 1200
    )
    note = (
        "vllm bench serve --dataset-name random --random-input-len 32000 (range ratio not "
        "given: default 0, fixed lengths requested); published totals 3200000 input / 9350 "
        "generated tokens"
    )
    s = map_row(_row(input_len="", output_len="", requests="100", length_note=note), 1).setting
    assert s is not None and (s.dataset, s.range_ratio) == ("random", 0.0)
    assert (s.input_len, s.output_len) == (32000.0, 93.5)
    # sglang.bench_serving's ratio q draws from q x top to top: about the same mean that is
    # vLLM's ratio r = (1 - q) / (1 + q); its default q = 0 is r = 1 (uniform from 0 to 2 means)
    note = "sglang.bench_serving --dataset-name random --random-range-ratio 0.5; {}"
    totals = "the output states total_input_tokens 3000 and total_output_tokens 1500"
    s = map_row(
        _row(input_len="", output_len="", requests="10", length_note=note.format(totals)), 1
    ).setting
    assert s is not None and (s.input_len, s.output_len) == (300.0, 150.0)
    assert s.range_ratio == pytest.approx(1 / 3)
    w = Simulations().workload(replace(s, requests=200))  # 300 ± 100: 200 to 400
    assert w.input_len.min() >= 200 and w.input_len.max() <= 400
    assert abs(w.input_len.mean() - 300) <= 1 and abs(w.output_len.mean() - 150) <= 1
    note = "sglang.bench_serving --dataset-name random; " + totals
    s = map_row(_row(input_len="", output_len="", requests="10", length_note=note), 1).setting
    assert s is not None and s.range_ratio == 1.0
    s = map_row(_row(input_len="", output_len="", length_note="ShareGPT, means not stated"), 1)
    assert s.setting is not None and (s.setting.input_len, s.setting.output_len) == (
        229.711,  # the vLLM run cited in serving.py: 229,711 tokens over 1,000 prompts
        203.068,
    )


def test_rows_that_cannot_be_rebuilt_say_why() -> None:
    orca = "MLPerf llama2-70b dataset (OpenOrca); per-sample lengths, means not stated"
    r = map_row(_row(input_len="", output_len="", length_note=orca), 3)
    assert r.setting is None and "lengths not stated" in r.reason
    r = map_row(_row(metric="goodput_percent"), 3)
    assert r.setting is None and "no simulated counterpart" in r.reason
    r = map_row(_row(load_kind="concurrency", load="2.5"), 3)
    assert r.setting is None and "whole number" in r.reason


def test_every_row_of_the_file_is_mapped_or_has_a_reason() -> None:
    rows = load_serving_rows(DATA)
    assert len(rows) >= 400
    assert all((r.setting is None) == bool(r.reason) for r in rows)
    assert sum(r.setting is not None for r in rows) >= 0.75 * len(rows)
    assert {r.family for r in rows if r.setting} >= set(FAMILIES)


def _setting(loop: str, load: float, requests: int, stated: int | None) -> Setting:
    return Setting("m", "h", 1, 1, 1, None, "bf16", "bf16", None, loop, load, requests,
                   stated, 10.0, 5.0, None)  # fmt: skip


def _result(ttft: list[float], tpot: list[float], e2e: list[float], span: float) -> SimResult:
    a = (np.asarray(ttft), np.asarray(tpot), np.asarray(e2e))
    return SimResult({}, *a, stats={"span_s": span})


def test_latency_figures_by_hand() -> None:
    work = Workload(np.full(4, 10), np.array([5, 5, 3, 1]), None, 2, "")
    res = _result([0.1, 0.2, 0.3, 0.4], [0.01, 0.02, 0.03, math.nan], [0.14, 0.28, 0.36, 0.4], 1)
    s = _setting("concurrency", 2, 4, 4)
    assert simulated_value("ttft_mean_s", res, work, s) == pytest.approx(0.25)
    assert simulated_value("ttft_p50_s", res, work, s) == pytest.approx(0.25)
    # the request of one token has no TPOT: the median of 0.01, 0.02, 0.03
    assert simulated_value("tpot_p50_s", res, work, s) == pytest.approx(0.02)
    # mean ITL: every gap after the first token, (0.04 + 0.08 + 0.06 + 0) / (4 + 4 + 2 + 0)
    assert simulated_value("itl_mean_s", res, work, s) == pytest.approx(0.018)
    assert simulated_value("e2e_p90_s", res, work, s) == pytest.approx(0.388)


def test_throughput_as_benchmark_tools_count_it() -> None:
    work = Workload(np.full(4, 10), np.full(4, 5), None, 2, "")
    res = _result([0.1] * 4, [0.01] * 4, [1.0] * 4, 2.0)
    # all 4 sent requests simulated: 4 requests over the 2 s span
    assert (
        simulated_value("request_throughput_rps", res, work, _setting("concurrency", 2, 4, 4))
        == 2.0
    )
    # 8 sent, 4 simulated: 2 clients over a 1 s latency sustain 2 req/s (Little's law), so
    # the 4 not simulated add 2 s: 8 / (2 + 2) = 2 req/s, x 5 output tokens = 10 tok/s
    s = _setting("concurrency", 2, 4, 8)
    assert simulated_value("output_tokens_per_s", res, work, s) == pytest.approx(10.0)
    assert simulated_value("total_tokens_per_s", res, work, s) == pytest.approx(30.0)
    # an open loop at 1 req/s arriving at 0..3 s, each 1 s: below the offered rate nothing
    # queues, so with no count stated the run's rate is the offered 1 req/s
    work = Workload(np.full(4, 10), np.full(4, 5), np.arange(4.0), None, "")
    res = _result([0.1] * 4, [0.01] * 4, [1.0] * 4, 4.0)
    assert (
        simulated_value("request_throughput_rps", res, work, _setting("rate", 1.0, 4, None)) == 1.0
    )


def test_error_statistics_by_hand() -> None:
    e = [math.log(2), -math.log(2), math.log(1.1), 0.0, math.log(4)]
    s = error_stats(e)
    # sizes sorted: 0, 0.0953, 0.693, 0.693, 1.386; the 90th percentile sits 0.6 of the way
    # from the 4th to the 5th: 0.693 + 0.6 x 0.693 = 1.109
    assert s["n"] == 5
    assert s["median_abs"] == pytest.approx(math.log(2))
    assert s["p90_abs"] == pytest.approx(1.6 * math.log(2))
    assert s["signed_median"] == pytest.approx(math.log(1.1))  # of -0.693, 0, 0.095, 0.693, 1.386
    assert error_stats([]) == {"n": 0.0}
    rows = [map_row(_row(metric=m), 1) for m in ("ttft_p50_s", "tpot_p50_s", "ttft_mean_s")]
    g = grouped_stats(rows, [0.1, -0.2, 0.3], lambda r: r.source)["https://example.org/a"]
    assert g["ttft"]["median_abs"] == pytest.approx(0.2) and g["tpot"]["n"] == 1
    assert g["all"]["signed_median"] == pytest.approx(0.1)


def _linear(source: list[str], engine: list[str]) -> Linear:
    """Rows made from known costs, 30 ms a request and 2 ms a step: a TPOT (a step's cost
    adds to it once), a throughput's inverse (twice: two steps a token's time), and two
    TTFTs (the request's cost once, the step's for the 10 and 20 steps before the first
    token)."""
    at = np.array([0.01, 0.02, 0.05, 0.1])
    slope = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 10.0], [1.0, 20.0]])
    target = at + slope @ np.array([0.03, 0.002])
    fam = np.array(["tpot", "throughput", "ttft", "ttft"])
    return Linear(at, slope, np.zeros((4, 2)), target, np.array(source), np.array(engine), fam)


def test_the_fit_recovers_known_costs() -> None:
    names = ("request_overhead_s", "step_overhead_s")
    lin = _linear(["a", "a", "b", "b"], ["vllm", "vllm", "sglang", "sglang"])
    fit = fit_costs(lin, np.ones(4, dtype=bool), names)
    # each engine is measured by one source only: one set of costs for all
    assert set(fit.groups) == {SHARED} and (fit.sources, fit.rows) == (2, 4)
    r, s = fit.groups[SHARED]
    assert r == pytest.approx(0.03, abs=1e-4) and s == pytest.approx(0.002, abs=1e-5)
    assert fit.costs("vllm") == fit.groups[SHARED]
    # vllm measured by two sources gets its own costs (its rows show only the step's);
    # the row left out is not fitted on: the shared request cost comes from one TTFT
    lin = _linear(["a", "b", "c", "c"], ["vllm", "vllm", "sglang", "sglang"])
    fit = fit_costs(lin, np.array([True, True, True, False]), names)
    assert set(fit.groups) == {"vllm", SHARED} and fit.rows == 3
    assert fit.groups["vllm"] == pytest.approx((0.0, 0.002), abs=1e-5)
    # 0.1 measured, 0.05 simulated with no step cost: all 50 ms on the request
    assert fit.groups[SHARED] == pytest.approx((0.05, 0.0), abs=1e-4)
    assert fit.as_dict()["costs"]["vllm"]["step_overhead_s"] == fit.groups["vllm"][1]


def test_a_cost_past_the_grid_is_not_fitted() -> None:
    """Two TTFTs that a request cost of 0.4 s would explain (0.01 s simulated, 0.41 s
    measured, slope 1), beyond the grid's 0.25 s: the fit stops at the grid's reach, which
    says the rows miss something else, and ships 0 rather than the edge."""
    at = np.array([0.01, 0.01])
    slope = np.array([[1.0, 0.0], [1.0, 0.0]])
    fam = np.array(["ttft", "ttft"])
    lin = Linear(
        at, slope, np.zeros((2, 2)), at + 0.4, np.array(["a", "b"]), np.array(["x", "x"]), fam
    )
    fit = fit_costs(lin, np.ones(2, dtype=bool), ("request_overhead_s", "step_overhead_s"))
    assert fit.groups["x"] == (0.0, 0.0)


def test_the_fitted_costs_as_the_profile_reads_them() -> None:
    fitted = {
        "costs": {
            "vllm": {"request_overhead_s": 0.025, "step_overhead_s": 0.0012, "frontend_s": 0.007},
            SHARED: {"request_overhead_s": 0.01, "step_overhead_s": 0.003, "frontend_s": 0.0},
        },
        "sources": 12,
        "rows": 400,
    }
    table = tomllib.loads(costs_toml(fitted, ["lmdeploy", "vllm"]))
    assert table["vllm"]["request_overhead_s"] == 0.025
    assert table["vllm"]["step_overhead_s"] == 0.0012
    assert table["vllm"]["frontend_s"] == 0.007
    assert table["lmdeploy"]["step_overhead_s"] == 0.003  # one source: the shared costs
    assert "400 rows from 12 sources" in table["lmdeploy"]["source"]


def test_the_cli_refuses_what_serving_does_not_take() -> None:
    r = run_cli("validate", "--source", "sglang")
    assert r.code == 2 and r.err.count("\n") == 1 and "--serving" in r.err
    r = run_cli("validate", "--serving", "--source", "no-such-address-anywhere")
    assert r.code == 2 and "no-such-address-anywhere" in r.err and r.err.count("\n") == 1
    r = run_cli("validate", "--serving", "--cv")
    assert r.code == 2 and r.err.count("\n") == 1
    r = run_cli("validate", "--save-costs", "costs.toml")
    assert r.code == 2 and "--serving" in r.err


def test_the_tables_from_a_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """`validate --serving` prints the library's report: each cell median/p90 (signed) n."""
    from llm_roofline.validation import serving_fit

    stats = {"n": 4.0, "median_abs": 0.25, "p90_abs": 0.5, "signed_median": -0.125}
    sec = {
        "by_family": {"ttft": stats, "all": stats},
        "by_source": {"https://example.org/x/y/z.md": {"ttft": stats, "all": stats}},
        "by_engine": {"vllm": {"ttft": stats, "all": stats}},
        "by_load": {"burst": {"ttft": stats, "all": stats}},
    }
    costs = {SHARED: {"request_overhead_s": 0.025, "step_overhead_s": 0.0015, "frontend_s": 0.0075}}
    report = {
        "rows": 5,
        "simulated": 4,
        "settings": 2,
        "fixed_costs": ["request_overhead_s", "step_overhead_s", "frontend_s"],
        "not_simulated": [{"line": 5, "source": "s", "metric": "m", "reason": "why not"}],
        "shipped": sec,
        "held_out": {**sec, "fits": {}},
        "fitted": {"costs": costs, "sources": 1, "rows": 4},
        "row_figures": [],
    }
    monkeypatch.setattr(serving_fit, "validate_serving", lambda **_: report)
    r = run_cli("validate", "--serving")
    assert r.code == 0, r.err
    assert "0.25/0.50 (-0.12) n=4" in r.out and "example.org/…/y/z.md" in r.out
    assert "25.0 ms" in r.out and "1.50 ms" in r.out and "7.50 ms" in r.out
    assert "held out by source" in r.out
    assert "as shipped: by load" in r.out and "burst" in r.out
    assert r.err == "llm-roofline: warning: 1 rows not simulated: why not\n"


def test_an_open_loops_request_cost_shifts_its_latencies() -> None:
    """What serving_fit's slopes assume: an open loop's request cost delays each arrival at
    the engine, so every TTFT grows by exactly that cost and TPOT not at all."""
    assert serving_knobs()[1] == ("request_overhead_s", "step_overhead_s", "frontend_s")
    s = map_row(_row(requests="100"), 1).setting
    assert s is not None
    sims = Simulations()
    base, later = sims.result(s, (0.0, 0.0, 0.0)), sims.result(s, (0.05, 0.0, 0.0))
    assert isinstance(base, SimResult) and isinstance(later, SimResult)
    assert np.allclose(later.ttft_s - base.ttft_s, 0.05)
    assert np.allclose(later.tpot_s, base.tpot_s, equal_nan=True)
    slower = sims.result(s, (0.0, 0.002, 0.0))  # a step cost slows every token
    assert isinstance(slower, SimResult) and np.nanmin(slower.tpot_s - base.tpot_s) > 0.0019


def test_a_benchmark_in_process_has_no_front_end() -> None:
    """A row measured by a harness that drives the engine itself (trtllm-bench: no API
    server) is simulated without the front end's queue, whatever its fitted cost: 100
    requests sent at once, with 50 ms a request in a front end they would wait 0.05 to 5 s
    for it. A server's row waits; a bad harness name is refused naming the field."""
    burst = {"load": "inf", "requests": "100", "metric": "ttft_mean_s"}
    s = map_row(_row(**burst, harness="in-process"), 1).setting
    served = map_row(_row(**burst), 1).setting
    assert s is not None and s.in_process and served is not None and not served.in_process
    sims = Simulations()
    base, front = sims.result(s, (0.0, 0.0, 0.0)), sims.result(s, (0.0, 0.0, 0.05))
    assert isinstance(base, SimResult) and isinstance(front, SimResult)
    assert np.array_equal(front.ttft_s, base.ttft_s)
    waited = sims.result(served, (0.0, 0.0, 0.05))
    assert isinstance(waited, SimResult)
    # the last of 100 leaves the front end at 100 x 0.05 = 5 s: its TTFT is at least that
    assert np.max(waited.ttft_s) >= 5.0 > np.max(base.ttft_s)
    bad = map_row(_row(harness="notebook"), 1)
    assert bad.setting is None and "harness" in (bad.reason or "")


@pytest.mark.slow
def test_validate_serving_on_the_whole_file() -> None:
    r = run_cli("validate", "--serving", "--json")
    assert r.code == 0, r.err
    rep = r.json()
    assert rep["rows"] >= 400
    assert rep["simulated"] + len(rep["not_simulated"]) == rep["rows"]
    assert rep["simulated"] >= 0.6 * rep["rows"]
    for sec in ("shipped", "held_out"):
        fam = rep[sec]["by_family"]
        for f in FAMILIES:
            assert fam[f]["n"] > 10 and 0 <= fam[f]["median_abs"] <= fam[f]["p90_abs"]
    held = rep["held_out"]
    assert set(held["by_source"]) == set(rep["shipped"]["by_source"])
    assert len(held["fits"]) == len(rep["shipped"]["by_source"])
    for costs in rep["fitted"]["costs"].values():  # within the grid, never negative
        assert 0 <= costs["request_overhead_s"] <= 0.25
        assert 0 <= costs["step_overhead_s"] <= 0.02
        assert 0 <= costs["frontend_s"] <= 0.02
    # docs/validation.md quotes the held-out figures by metric ("Serving under load")
    doc = " ".join((Path(__file__).parents[2] / "docs" / "validation.md").read_text().split())
    words = {"ttft": "TTFT", "tpot": "TPOT / ITL", "throughput": "throughput"}
    words["e2e"] = "end-to-end latency"
    for f, word in words.items():
        s = held["by_family"][f]
        line = f"| {word} | {int(s['n'])} | **{s['median_abs']:.3f}** | **{s['p90_abs']:.3f}** |"
        assert line in doc, line
    # and the held-out errors by how the load was applied, TTFT first
    for kind, v in held["by_load"].items():
        t = v["ttft"]
        cell = (
            f"{t['median_abs']:.2f} / {t['p90_abs']:.2f} ({t['signed_median']:+.2f}), {int(t['n'])}"
        )
        assert cell.replace("(-", "(−") in doc, (kind, cell)


def test_a_long_burst_is_simulated_past_the_sequences_held_at_once() -> None:
    """A burst of 30,000 requests (TensorRT-LLM's perf-overview, 128 in / 128 out) against an
    engine that runs 1,000 sequences at once: the CAP of 1,000 requests would all start and
    finish together, so the run is simulated as BURST_WAVES x 1,000 = 8,000 requests. The KV
    cache does not bind first: Llama 3.1 8B stores 32 layers x 8 KV heads x 128 x 2 (K and V)
    x 2 bytes = 131,072 B a token, and 1,000 sequences of 256 tokens are 33.6 GB, below the
    0.9 x (85.52 - 8.03 weights) = 69.7 GB TensorRT-LLM claims on an H100 (less activations)."""
    from llm_roofline.deploy.deployment import deployment
    from llm_roofline.sim.serving_engines import serving_engine
    from llm_roofline.validation.serving import BURST_WAVES, burst_requests

    row = _row(engine="tensorrt-llm", weight_dtype="fp8", load="inf", requests="30000",
               input_len="128", output_len="128")  # fmt: skip
    s = map_row(row, 1).setting
    assert s is not None and s.requests == 1000  # CAP
    dep = deployment("llama-3.1-8b", "h100-sxm", 1, weight_dtype="fp8")
    eng = serving_engine("tensorrt-llm", dep, max_seqs=1000)
    assert BURST_WAVES == 8 and burst_requests(s, dep, eng) == 8000
    # never more than stated; an open loop at a finite rate keeps its count
    assert burst_requests(replace(s, stated_requests=5000), dep, eng) == 5000
    assert burst_requests(replace(s, load=4.0, requests=320), dep, eng) == 320
    # Where the KV cache binds first: sequences of 2,048 tokens (1,856 in, 192 out) take
    # 2,048 x 131,072 B = 0.2684 GB each. With a 4,096-sequence cap TensorRT-LLM claims
    # 0.9 x (85.52 - 8.03 weights - 0.67 activations of 8,192 tokens x (3 x 4,096 + 2 x
    # 14,336) x 2 B - 2.10 logits of 4,096 x 128,256 x 4 B) = 67.25 GB, 250.5 sequences: 250
    # held at once, 8 x 250 = 2,000 requests, between the CAP kept and the 30,000 stated
    eng = serving_engine("tensorrt-llm", dep, max_seqs=4096)
    assert burst_requests(replace(s, input_len=1856.0, output_len=192.0), dep, eng) == 2000
    # and sequences of 32,000 tokens (4.2 GB each, 16 at most) give 8 x 16 = 128, fewer than
    # the CAP, which is kept
    assert burst_requests(replace(s, input_len=30000.0, output_len=2000.0), dep, eng) == 1000


def test_one_sources_rows_are_reported_when_asked_for(tmp_path: Path) -> None:
    """`validate --serving --source X` reports X's rows: they were read apart from the whole
    file, and were once matched by object identity, so none was ever reported."""
    from llm_roofline.validation.serving_fit import validate_serving

    rows = [_row(source_address="https://example.org/a", load="1", requests="100"),
            _row(source_address="https://example.org/b", load="1", requests="100",
                 metric="tpot_p50_s", value="0.008")]  # fmt: skip
    path = tmp_path / "rows.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ROW))
        w.writeheader()
        w.writerows(rows)
    rep = validate_serving(path, source="example.org/b")
    assert rep["rows"] == 1 and rep["simulated"] == 1
    assert [(f["line"], f["metric"]) for f in rep["row_figures"]] == [(2, "tpot_p50_s")]


def test_a_rows_load_kind() -> None:
    """A closed loop of clients, an open loop at a rate, everything at t = 0."""
    from llm_roofline.validation.serving_fit import load_kind

    kinds = [load_kind(map_row(_row(**over), 1)) for over in (
        {"load_kind": "concurrency", "load": "8"}, {"load": "4"}, {"load": "inf"})]  # fmt: skip
    assert kinds == ["closed loop", "open loop", "burst"]
