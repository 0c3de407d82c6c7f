"""Capacity is what the simulator sustains (issue 27, section 1): the highest Poisson rate whose
queue stays bounded, `stable` agreeing with it; the stationarity test on hand-made runs; the
run's figures as a benchmark reports them (section 3: percentiles of an unstable run, few
requests, one request, a finite trace)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from llm_roofline.cli import main
from llm_roofline.deploy.deployment import deployment
from llm_roofline.sim.capacity import DRIFT_LIMIT, stationary, waiting_drift
from llm_roofline.sim.metrics import FEW_REQUESTS
from llm_roofline.sim.serving_engines import serving_engine
from llm_roofline.sim.simulate import LATENCY_KEYS, capacity_rps, simulate
from llm_roofline.sim.workload import make_workload

I, O = 512, 128  # the case: Llama 3.1 8B on one H100, 512 → 128 tokens
# the server: vLLM's, at 256 sequences and 8,192 tokens a step, with none of the fitted
# fixed costs (the case predates them; a closed loop's capacity moves with them, since a
# client waits its request's cost between requests)
SERVER = {
    "serving_engine": serving_engine(
        "vllm",
        max_seqs=256,
        max_batched_tokens=8192,
        request_overhead_s=0.0,
        step_overhead_s=0.0,
        frontend_s=0.0,
    )
}


@pytest.fixture(scope="module")
def ideal8b():
    return deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal")


def _decile_medians(ttft: np.ndarray) -> list[float]:
    """Median time to first token of each tenth of the requests, in arrival order."""
    return [float(np.median(part)) for part in np.array_split(ttft, 10)]


def test_stationary_runs_are_stable_and_the_capacity_lies_above_them(ideal8b):
    """The issue: capacity_rps said 78.8 requests/s (a saturating closed loop), yet 85-90
    requests/s stayed stationary and were printed UNSTABLE. Here each run's stationarity is
    judged by this test from its own per-request times, not by the simulator's flag: TTFT flat
    across deciles (the last tenth's median within 1.5× of the second tenth's). A stationary
    run must be `stable: true` under a capacity above its rate; a run whose waits grow decile
    by decile (200 requests/s: the backlog grows by 200 − μ requests a second) must not."""
    cap = None
    for rate in (85.0, 90.0, 200.0):
        w = make_workload(requests=8000, rate=rate, input_len=I, output_len=O, seed=0)
        res = simulate(ideal8b, w, rate=rate, **SERVER)
        dec = _decile_medians(res.ttft_s)
        flat = dec[-1] <= 1.5 * dec[1]
        growing = all(b > a for a, b in itertools.pairwise(dec[1:]))
        assert flat != growing, (rate, dec)  # each run is plainly one or the other
        s = res.summary
        assert s["stable"] is flat, (rate, dec, s["capacity_rps"])
        cap = s["capacity_rps"]
        if flat:
            assert cap >= rate
        else:
            assert cap < rate
    # the saturating closed loop's 78.8 was below what the open loop sustains
    assert cap is not None and cap > 90.0
    w0 = make_workload(requests=200, rate=1.0, input_len=I, output_len=O, seed=0)
    closed = capacity_rps(ideal8b, w0, closed_loop=True, **SERVER)
    assert closed < 85.0 < cap


@pytest.mark.slow
def test_capacity_is_the_same_measure_as_stable(ideal8b):
    """`stable` is offered ≤ capacity: a run just below the capacity is stable, one a tenth
    above it is not (and the stationarity test sees its waits drift)."""
    w0 = make_workload(requests=200, rate=1.0, input_len=I, output_len=O, seed=0)
    cap = capacity_rps(ideal8b, w0, **SERVER)
    for f, want in ((0.97, True), (1.1, False)):
        w = make_workload(requests=6000, rate=f * cap, input_len=I, output_len=O, seed=3)
        s = simulate(ideal8b, w, rate=f * cap, **SERVER)
        assert s.summary["stable"] is want
    arrival = w.arrival_s
    assert arrival is not None and stationary(arrival, s.ttft_s) is False


def test_waiting_drift_by_hand():
    """Waits that grow as 0.05 s per second of arrivals drift by 0.05 (every quantile of a
    third moves with it); constant waits by 0; a burst that delays a fifth of the late
    third's requests by 5 s leaves the lower quartile, and so the drift, where it was."""
    t = np.linspace(0.0, 100.0, 3000)
    assert waiting_drift(t, 0.02 + 0.05 * t) == pytest.approx(0.05, rel=1e-3)
    flat = np.full(t.size, 0.02)
    assert waiting_drift(t, flat) == pytest.approx(0.0, abs=1e-12)
    burst = flat.copy()
    burst[2500:2700] += 5.0  # 200 of the late third's 967 requests
    assert waiting_drift(t, burst) == pytest.approx(0.0, abs=1e-12)
    assert stationary(t, burst) is True and stationary(t, 0.02 + 0.05 * t) is False
    assert 0 < DRIFT_LIMIT < 0.05
    # fewer than 100 requests, or arrivals all at one time: nothing to judge
    assert waiting_drift(t[:50], flat[:50]) is None
    assert waiting_drift(np.zeros(200), np.ones(200)) is None


def test_an_unstable_run_reports_its_percentiles_and_why(ideal8b):
    """Above capacity the percentiles are those of the requests simulated (as vllm bench
    serve reports a finite run), `stable` is false and a warning says they grow."""
    w = make_workload(requests=3000, rate=300.0, input_len=I, output_len=O, seed=1)
    s = simulate(ideal8b, w, rate=300.0, **SERVER).summary
    assert s["stable"] is False
    assert all(isinstance(s[k], float) and s[k] > 0 for k in LATENCY_KEYS)
    assert any("grow with the run's length" in x for x in s["warnings"])


def test_few_requests_warn_and_one_request_is_not_a_rate(ideal8b, capsys):
    """Percentiles from fewer than 100 requests carry a warning; one request's throughput is
    not printed as a rate (it is one request over its own latency)."""
    assert FEW_REQUESTS == 100
    w = make_workload(requests=20, rate=1.0, input_len=I, output_len=O, seed=0)
    s = simulate(ideal8b, w, rate=1.0, with_capacity=False, **SERVER).summary
    assert any("only 20 requests" in x for x in s["warnings"])
    many = make_workload(requests=FEW_REQUESTS, rate=1.0, input_len=I, output_len=O, seed=0)
    assert simulate(ideal8b, many, with_capacity=False, **SERVER).summary["warnings"] == []
    args = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--engine", "ideal"]
    one = ["--rate", "1", "--requests", "1", "--input-len", "512", "--output-len", "128"]
    assert main([*args, *one]) == 0
    out = capsys.readouterr().out
    assert "one request, 128 output tokens in" in out and "not a rate" in out
    assert "requests/s (completed" not in out and "warning: one request" in out


def test_a_finite_trace_shows_its_latencies(ideal8b, tmp_path, capsys):
    """Issue 27: a 300-request trace was printed UNSTABLE with no percentiles. A trace is a
    finite run: its percentiles are shown whatever its rate (here 300 requests in 0.3 s, far
    above the capacity: flagged, with the table)."""
    rows = ["arrival_s,input_len,output_len"]
    rows += [f"{i / 1000:.3f},512,128" for i in range(300)]
    trace = tmp_path / "burst.csv"
    trace.write_text("\n".join(rows) + "\n")
    args = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--engine", "ideal"]
    assert main([*args, "--trace", str(trace), "--max-seqs", "256"]) == 0
    out = capsys.readouterr().out
    assert "time to first token" in out and "UNSTABLE" in out
