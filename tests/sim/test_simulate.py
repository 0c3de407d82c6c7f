"""The serving simulator against theory: one request alone, M/D/1, Little's law, saturation,
closed loops, replicas, preemption; its step-time table against direct engine calls; the
`simulate` verb's output and errors. Small runs with fixed seeds."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import main
from llm_roofline.deploy.deployment import deployment
from llm_roofline.sim.serving_engines import fixed_costs
from llm_roofline.sim.simulate import LATENCY_KEYS, capacity_rps, disagg_pools, simulate
from llm_roofline.sim.step_predictor import StepTable, errors_against_engine
from llm_roofline.sim.workload import Workload, make_workload

I, O = 512, 64  # prompt and output tokens of the fixed-length workloads below


@pytest.fixture(scope="module")
def dep8b():
    return deployment("llama-3.1-8b", "h100-sxm", 1, engine="calibrated")


# The engine's fixed costs off (vLLM's shipped ones are fitted to published runs,
# data/serving_costs.toml): checks of the simulator's steps against the engine's passes.
BARE = {"request_overhead_s": 0.0, "step_overhead_s": 0.0, "frontend_s": 0.0}


def _spaced(n: int, gap: float) -> Workload:
    """n requests `gap` seconds apart: each finds the server empty."""
    return Workload(
        input_len=np.full(n, I),
        output_len=np.full(n, O),
        arrival_s=np.arange(n) * gap,
        concurrency=None,
        description="spaced",
    )


def test_one_request_alone_matches_predict(dep8b):
    """At near-zero load every request is served alone: its TTFT is a prefill of its prompt,
    its TPOT the mean decode step of one sequence, as `predict --mode static --batch 1`, plus
    the serving engine's fixed costs (vLLM's as shipped in data/serving_costs.toml: a cost a
    request and its time in the front end, alone there, on its TTFT and end to end, a cost a
    step on each of its O steps)."""
    res = simulate(dep8b, _spaced(5, 100.0))
    one = dep8b.serve(batch=1, input_len=I, output_len=O, mode="static")
    per_request, per_step, front, _ = fixed_costs("vllm")
    s = res.summary
    for key, want in (
        ("ttft", one.ttft_s + per_request + front + per_step),
        ("tpot", one.tpot_s + per_step),
        ("e2e", one.request_latency_s + per_request + front + O * per_step),
    ):
        for q in ("p50", "p99"):
            got = s.get(f"{key}_{q}_s")
            assert got == pytest.approx(want, rel=0.01), (key, q)


@pytest.mark.slow
def test_md1_mean_wait(dep8b):
    """One sequence at a time (max_seqs 1) and fixed lengths make every service the same
    time D: an M/D/1 queue, whose mean wait is λD² / (2(1 − ρ)) with ρ = λD
    (Pollaczek–Khinchine with zero service variance). The engine's fixed cost a request is
    off: it delays each arrival, but is no server's time."""
    D = float(simulate(dep8b, _spaced(2, 100.0), max_seqs=1, **BARE).e2e_s[0])
    lam = 0.6 / D  # ρ = 0.6
    w = make_workload(requests=30000, rate=lam, input_len=I, output_len=O, seed=3)
    res = simulate(dep8b, w, max_seqs=1, with_capacity=False, **BARE)
    wait = float(np.mean(res.e2e_s)) - D
    theory = lam * D * D / (2 * (1 - 0.6))  # = 0.75 D
    assert wait == pytest.approx(theory, rel=0.06)


def test_littles_law(dep8b):
    """L = λW: the number in the system averaged over the run (counted by the scheduler from
    its queues, step by step) against throughput × mean time in the system."""
    w = make_workload(
        requests=3000, rate=25, input_len=I, output_len=O, length_dist="lognormal", seed=1
    )
    st = simulate(dep8b, w).stats
    assert st["little_l"] == pytest.approx(st["little_lambda_w"], rel=0.03)


def test_saturation_and_stability(dep8b):
    """Offered twice the capacity: the served rate levels at what a saturated server
    completes (at most the capacity), the run is unstable, and its percentiles are those of
    the requests simulated, as a benchmark reports them (issue 27): they grow with the run's
    length (the last of 6,000 requests wait behind about twice the backlog of the last of
    3,000), and a warning says so."""
    w0 = make_workload(requests=200, rate=1.0, input_len=I, output_len=O, seed=0)
    cap = capacity_rps(dep8b, w0)
    w = make_workload(requests=6000, rate=2 * cap, input_len=I, output_len=O, seed=0)
    s = simulate(dep8b, w).summary
    assert s["stable"] is False
    assert s["request_throughput_rps"] <= 1.05 * cap
    assert s["request_throughput_rps"] == pytest.approx(s["steady_request_rps"], rel=0.1)
    assert all(s[k] is not None for k in LATENCY_KEYS)
    short = make_workload(requests=3000, rate=2 * cap, input_len=I, output_len=O, seed=0)
    s3 = simulate(dep8b, short, with_capacity=False).summary
    assert s["ttft_p99_s"] == pytest.approx(2 * s3["ttft_p99_s"], rel=0.15)
    assert any("grow with the run's length" in x for x in s["warnings"])
    half = simulate(
        dep8b, make_workload(requests=3000, rate=0.5 * cap, input_len=I, output_len=O, seed=0)
    ).summary
    assert half["stable"] is True
    assert half["request_throughput_rps"] == pytest.approx(0.5 * cap, rel=0.1)


def test_capacity_near_the_engines_steady_state(dep8b):
    """The simulated capacity against the engine's continuous-batching steady state at the
    same 256 sequences in flight (predict --mode continuous): output tokens/s over O."""
    w = make_workload(requests=200, rate=1.0, input_len=I, output_len=O, seed=0)
    cap = capacity_rps(dep8b, w, max_seqs=256)
    steady = dep8b.serve(batch=256, input_len=I, output_len=O, mode="continuous")
    assert cap == pytest.approx(steady.output_tokens_per_s / O, rel=0.2)


def test_closed_loop(dep8b):
    """One client: requests back to back, each alone, as predict's static batch 1. Two
    clients started together with equal lengths: their prompts share the first step and their
    decodes every step after, which is predict's static batch of 2 (the two prompts timed as
    one pass of 1,024 tokens: attention within 2%)."""
    one = make_workload(requests=4, concurrency=1, input_len=I, output_len=O)
    res = simulate(dep8b, one, **BARE)
    alone = dep8b.serve(batch=1, input_len=I, output_len=O, mode="static").request_latency_s
    assert np.allclose(res.e2e_s, alone, rtol=0.01)
    pair = simulate(
        dep8b, make_workload(requests=2, concurrency=2, input_len=I, output_len=O), **BARE
    )
    static2 = dep8b.serve(batch=2, input_len=I, output_len=O, mode="static")
    assert np.allclose(pair.ttft_s, static2.ttft_s, rtol=0.02)
    assert np.allclose(pair.e2e_s, static2.request_latency_s, rtol=0.02)


def test_replicas_double_capacity():
    """Two replicas serve twice the rate of one (they never talk)."""
    w = make_workload(requests=200, rate=1.0, input_len=I, output_len=O, seed=0)
    one = deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal")
    two = deployment("llama-3.1-8b", "h100-sxm", 2, replicas=2, tp=1, engine="ideal")
    assert capacity_rps(two, w) == pytest.approx(2 * capacity_rps(one, w), rel=0.03)
    for router in ("round-robin", "least-loaded"):
        w2 = make_workload(requests=2000, rate=10, input_len=I, output_len=O, seed=2)
        st = simulate(two, w2, router=router).stats
        assert st["little_l"] == pytest.approx(st["little_lambda_w"], rel=0.03)


def test_preemption_when_kv_runs_out():
    """Llama 3.1 70B in bf16 on two H100s (85.52 GB each as the catalog has it, 80 GiB)
    under vLLM's defaults (tests/sim/test_serving_engines.py): each chip keeps 0.9 × 85.52e9
    = 76.968e9 bytes, less 70,553,706,496 bytes of weights (half of 2 bytes each) and the
    profiling run's activations, 8,192 tokens × 163,840 bytes + 1,024 × 128,256 × 4 bytes of
    logits = 1,867,513,856: 4,546,779,648 bytes of KV a chip, at 80 layers × 8 KV heads ×
    128 × 2 (K and V) × 2 bytes / 2 chips = 163,840 bytes a token a chip. Sequences of 4,096
    tokens: 4,546,779,648 // (4,096 × 163,840) = 6 of them, 24,576 tokens. 256 clients of
    4,096 tokens would need 1M: the scheduler must preempt, and every request still
    finishes with all its tokens."""
    dep = deployment("llama-3.1-70b", "h100-sxm", 2, tp=2, engine="ideal")
    w = make_workload(requests=600, concurrency=256, input_len=1024, output_len=3072)
    res = simulate(dep, w, with_capacity=False)
    kv = 0.9 * 85.52e9 - 70_553_706_496 - 8192 * 163_840 - 1024 * 128_256 * 4
    assert kv == pytest.approx(4_546_779_648, abs=1)
    assert res.stats["kv_tokens_per_instance"] == (kv // (4096 * 163_840)) * 4096 == 24_576
    assert res.stats["preemptions"] > 0
    # every request ran its whole decode: its latency covers at least 3,071 decode steps of
    # the smallest batch, one sequence (predict's static batch 1 TPOT)
    tpot1 = dep.serve(batch=1, input_len=1024, output_len=3072, mode="static").tpot_s
    assert np.all(res.e2e_s - res.ttft_s >= 3071 * tpot1 * 0.99)


def test_seeded_runs_repeat(dep8b):
    """The same seed rebuilds the same traffic and the same figures; another seed does not."""

    def run(seed: int) -> dict[str, object]:
        w = make_workload(
            requests=500,
            rate=20,
            input_len=I,
            output_len=O,
            length_dist="sharegpt-like",
            seed=seed,
            max_context=131072,
        )
        return simulate(dep8b, w, with_capacity=False).summary

    assert run(7) == run(7)
    assert run(7)["ttft_p99_s"] != run(8)["ttft_p99_s"]


def test_least_loaded_prefers_an_idle_replica():
    """A 32,000-token prompt occupies replica 0 for about 0.7 s; a short request arriving
    0.1 s later must go to the idle replica and be served as if alone (round-robin sends it
    there too), not wait behind the long prefill."""
    two = deployment("llama-3.1-8b", "h100-sxm", 2, replicas=2, tp=1, engine="ideal")
    w = Workload(
        input_len=np.array([32000, 100]),
        output_len=np.array([1, 10]),
        arrival_s=np.array([0.0, 0.1]),
        concurrency=None,
        description="two",
    )
    alone = two.serve(batch=1, input_len=100, output_len=10, mode="static").ttft_s
    for router in ("least-loaded", "round-robin"):
        res = simulate(two, w, router=router, max_batched_tokens=32768, with_capacity=False, **BARE)
        assert res.ttft_s[1] == pytest.approx(alone, rel=0.01), router


def test_a_few_requests_are_not_called_unstable(dep8b):
    """Two requests drawn at 1/s may land milliseconds apart; stability is judged on the
    rate asked for (1/s, far below the capacity), not on the gap between two draws."""
    w = make_workload(requests=2, rate=1, input_len=I, output_len=O, seed=25)
    s = simulate(dep8b, w, rate=1.0).summary
    assert s["stable"] is True and s["ttft_p50_s"] is not None


def test_budget_below_sequences_refused(dep8b):
    with pytest.raises(InputError) as e:
        simulate(dep8b, _spaced(2, 1.0), max_seqs=256, max_batched_tokens=128)
    assert e.value.field == "max_batched_tokens"


def test_a_request_too_long_for_an_instance_says_what_would_fit():
    """Llama 3.1 8B in bf16 on one RTX 4090 (24 GiB, 25.76e9 bytes as nvidia-smi counts them)
    under vLLM's defaults for a chip under 70 GiB (256 sequences, 2,048 tokens a step):
    0.9 × 25.76e9 = 23.184e9, less 8,030,261,248 parameters × 2 bytes = 16,060,522,496 of
    weights and the profiling run's activations, 2,048 tokens × (3 × 4,096 + 2 × 14,336) ×
    2 bytes = 167,772,160 and 256 × 128,256 × 4 bytes of logits = 131,334,144, leaves
    6,824,371,200 bytes; a token's KV cache is 2 (K, V) × 32 layers × 8 KV heads × 128 × 2
    bytes = 131,072 bytes, so a 120,000-token request (15.7 GB) cannot fit; the error names
    the field and says what would (a largest context of 6,824,371,200 // 131,072 = 52,065
    tokens, and another KV type)."""
    dep = deployment("llama-3.1-8b", "rtx-4090", 1)
    w = make_workload(requests=2, rate=1, input_len=120_000, output_len=100, seed=1)
    with pytest.raises(InputError) as e:
        simulate(dep, w, rate=1.0)
    msg = str(e.value)
    assert e.value.field == "input_len"
    assert "KV cache" in msg and "--kv-dtype" in msg, msg
    found = re.search(r"the largest context that fits at batch 1 is ([\d,]+)", msg)
    assert found, msg
    largest = int(found.group(1).replace(",", ""))
    kv = 0.9 * 25.76e9 - 16_060_522_496 - 167_772_160 - 131_334_144
    assert kv == pytest.approx(6_824_371_200, abs=1)
    assert largest == kv // 131_072 == 52_065, largest


def test_times_far_from_zero_keep_their_precision(dep8b):
    """A trace stamped in Unix milliseconds: latencies are the same as from time 0."""
    far = Workload(
        input_len=np.full(3, I),
        output_len=np.full(3, O),
        arrival_s=1.7e12 + np.arange(3) * 100.0,
        concurrency=None,
        description="far",
    )
    near = _spaced(3, 100.0)
    a = simulate(dep8b, far, with_capacity=False).ttft_s
    b = simulate(dep8b, near, with_capacity=False).ttft_s
    assert np.allclose(a, b, rtol=1e-9)


@pytest.mark.parametrize("model,chips", [("llama-3.1-70b", 4), ("mixtral-8x7b", 2)])
def test_step_table_against_the_engine(model, chips):
    """The table's interpolated step times against direct engine calls at 150 random mixes:
    mean |error| under 0.5%, every one under 8% (both engines)."""
    for engine in ("ideal", "calibrated"):
        dep = deployment(model, "h100-sxm", chips, engine=engine)
        tab = StepTable(dep, max_seqs=256, max_context=32768, max_tokens=8192)
        errs = errors_against_engine(tab, dep, mixes=150, seed=0)
        assert float(np.mean(np.abs(errs))) < 0.005 and float(np.max(np.abs(errs))) < 0.08


def test_request_longer_than_the_context_refused(dep8b):
    w = Workload(
        input_len=np.array([200000]),
        output_len=np.array([10]),
        arrival_s=np.array([0.0]),
        concurrency=None,
        description="long",
    )
    with pytest.raises(InputError) as e:
        simulate(dep8b, w)
    assert e.value.field == "input_len" and "131072" in str(e.value)


BASE = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm"]


def test_cli_json_has_the_contract(capsys):
    rc = main(
        [
            *BASE,
            "--rate",
            "10",
            "--requests",
            "300",
            "--input-len",
            "256",
            "--output-len",
            "32",
            "--slo-ttft-ms",
            "100",
            "--slo-tpot-ms",
            "50",
            "--json",
        ]
    )
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    keys = {
        "ttft_p50_s",
        "ttft_p90_s",
        "ttft_p99_s",
        "tpot_p50_s",
        "tpot_p90_s",
        "tpot_p99_s",
        "ttft_mean_s",
        "tpot_mean_s",
        "e2e_p50_s",
        "e2e_p99_s",
        "e2e_mean_s",
        "output_tokens_per_s",
        "request_throughput_rps",
        "goodput_rps",
        "capacity_rps",
        "stable",
    }
    assert keys <= d.keys() and d["stable"] is True
    # at 10 requests/s every request meets 100 ms / 50 ms (alone: 8 ms a token, a few ms to
    # the first), so goodput is the throughput
    assert d["goodput_rps"] == pytest.approx(d["request_throughput_rps"])
    # one H100 streams Llama 3.1 8B's 16 GB of weights at 3.35 TB/s in 4.8 ms at best: no
    # request meets a 1 ms TPOT
    assert (
        main(
            [
                *BASE,
                "--rate",
                "10",
                "--requests",
                "100",
                "--input-len",
                "256",
                "--output-len",
                "32",
                "--slo-tpot-ms",
                "1",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["goodput_rps"] == 0


def test_cli_unstable_says_so(capsys):
    """Above capacity the command says UNSTABLE and still prints the percentiles of the
    requests simulated (issue 27), saying they grow with --requests."""
    rc = main(
        [*BASE, "--rate", "500", "--requests", "2000", "--input-len", "512", "--output-len", "64"]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "UNSTABLE" in out and "grow with --requests" in out
    assert "time to first token" in out


@pytest.mark.parametrize(
    "extra,field",
    [
        (["--rate", "-1", "--input-len", "8", "--output-len", "8"], "--rate"),
        (["--rate", "1", "--concurrency", "2", "--input-len", "8", "--output-len", "8"], "rate"),
        (["--rate", "1"], "--input-len"),
        (["--rate", "1", "--input-len", "8", "--output-len", "8", "--router", "x"], "--router"),
        (["--trace", "/nonexistent.csv"], "nonexistent.csv"),
        (["--rate", "1", "--input-len", "8", "--output-len", "8", "--disagg", "2"], "disagg"),
        (["--rate", "1", "--input-len", "8", "--output-len", "8", "--disagg", "0:1"], "disagg"),
    ],
)
def test_cli_bad_input_one_line(capsys, extra, field):
    try:
        rc = main([*BASE, *extra])
    except SystemExit as exc:  # argparse's own refusals (a bad number, an unknown choice)
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and field in err and "Traceback" not in err


def test_cli_bad_trace_row_names_its_line(tmp_path, capsys):
    f = tmp_path / "trace.csv"
    f.write_text("arrival_s,input_len,output_len\n0.0,100,10\n0.5,abc,10\n")
    assert main([*BASE, "--trace", str(f)]) == 2
    err = capsys.readouterr().err
    assert "trace.csv line 3" in err and err.count("\n") == 1


# ---- disaggregated serving --------------------------------------------------------------------


def test_disaggregated_request_alone_pays_the_kv_hand_off(dep8b):
    """Alone, a disaggregated request takes the aggregated time plus the KV hand-off: Llama 3.1
    8B holds 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes = 131,072 B per token, so a
    2,048-token prompt is 268.4 MB; both pools (2 chips) sit in one 8-chip NVLink domain at
    450 GB/s per chip per direction (catalog, NVIDIA H100 page), one chip each side:
    268,435,456 / 450e9 = 596.5 µs, plus α = 1 µs. The first token comes from the prefill
    instance, so TTFT is unchanged."""
    w = Workload(
        input_len=np.array([2048]),
        output_len=np.array([128]),
        arrival_s=np.array([0.0]),
        concurrency=None,
        description="one",
    )
    agg = simulate(dep8b, w, with_capacity=False)
    pf, dec = disagg_pools(dep8b, 1, 1)
    dis = simulate(dec, w, prefill_pool=pf, with_capacity=False)
    hand = 2048 * 131_072 / 450e9 + 1e-6
    assert float(dis.ttft_s[0]) == pytest.approx(float(agg.ttft_s[0]), rel=1e-9)
    assert float(dis.e2e_s[0] - agg.e2e_s[0]) == pytest.approx(hand, rel=0.01)
    assert dis.summary["disaggregated"] and dis.summary["prefill_instances"] == 1


def test_disaggregated_hand_off_crosses_the_network_beyond_one_domain():
    """Two 8-chip H100 instances (prefill, decode) are 16 chips: beyond the 8-chip NVLink
    domain, so the KV of Llama 3.1 70B (80 layers × 8 × 128 × 2 × 2 = 327,680 B per token)
    goes over the scale-out network, 50 GB/s per chip (catalog: 8 × 400 Gb/s per node), eight
    chips sending in parallel, α = 5 µs: a 4,096-token prompt's 1.342 GB takes
    1,342,177,280 / (8 × 50e9) + 5e-6 = 3.361 ms."""
    d70 = deployment("llama-3.1-70b", "h100-sxm", 8, tp=8, engine="ideal")
    w = Workload(
        input_len=np.array([4096]),
        output_len=np.array([16]),
        arrival_s=np.array([0.0]),
        concurrency=None,
        description="one",
    )
    agg = simulate(d70, w, with_capacity=False)
    pf, dec = disagg_pools(d70, 1, 1)
    dis = simulate(dec, w, prefill_pool=pf, with_capacity=False)
    hand = 4096 * 327_680 / (8 * 50e9) + 5e-6
    assert float(dis.e2e_s[0] - agg.e2e_s[0]) == pytest.approx(hand, rel=0.01)


@pytest.mark.slow
def test_disaggregated_littles_law_and_prefill_bound_capacity(dep8b):
    """Little's law holds with requests in transit counted; and with one prefill instance for
    four decode instances, long prompts and short answers, the prefill pool bounds the rate:
    each of its steps carries the 8,192-token budget, four 2,048-token prompts, so it serves
    4 / t(prefill pass of four 2,048-token prompts) requests per second (the engine's time;
    the step table times a step's prompts apart, each attending to itself, step_predictor.py)."""
    pf, dec = disagg_pools(dep8b, 1, 4)
    w = make_workload(requests=3000, rate=5.0, input_len=2048, output_len=32, seed=2)
    res = simulate(dec, w, prefill_pool=pf, rate=5.0)
    assert res.stats["little_l"] == pytest.approx(res.stats["little_lambda_w"], rel=0.03)
    t_pass = float(np.asarray(dep8b.time(dep8b.prefill(4, 2048), is_prefill=True)[0]).flat[0])
    assert res.summary["capacity_rps"] == pytest.approx(4 / t_pass, rel=0.1)


def test_disaggregated_pools_must_match(dep8b):
    other = deployment("llama-3.1-8b", "a100-80gb", 1)
    w = _spaced(2, 10.0)
    with pytest.raises(InputError) as exc:
        simulate(dep8b, w, prefill_pool=other, with_capacity=False)
    assert exc.value.field == "hardware"


def test_cli_disagg_json(capsys):
    rc = main(
        [
            *BASE,
            "--rate",
            "2",
            "--requests",
            "200",
            "--input-len",
            "1024",
            "--output-len",
            "32",
            "--disagg",
            "1:2",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["disaggregated"] is True
    assert (out["prefill_instances"], out["decode_instances"]) == (1, 2)
    assert out["prefill_deployment"]["replicas"] == 1 and out["deployment"]["replicas"] == 2


def test_kv_hand_off_counts_the_chips_holding_a_sequence():
    """Llama 3.1 70B has 8 KV heads: on a tp-16 instance each head's KV sits on two chips (a
    copy each), so one sequence's KV is spread over min(16, 8) = 8 chips, not 16, and a hand-off
    between two such instances (32 chips, over the 50 GB/s network) moves 1.342 GB through 8
    chips a side: 1,342,177,280 / (8 × 50e9) + 5e-6 = 3.361 ms, as for tp 8."""
    from llm_roofline.engine.collectives import kv_transfer_time

    d16 = deployment("llama-3.1-70b", "h100-sxm", 16, tp=16, engine="ideal")
    holders = d16.parallel.sequence_kv_chips(d16.model)
    assert holders == 8
    t = kv_transfer_time(
        d16.model,
        2.0,
        d16.chip,
        senders=holders,
        receivers=holders,
        fleet=32,
        comm=d16.comm,
        tokens=4096.0,
    )
    assert float(t) == pytest.approx(4096 * 327_680 / (8 * 50e9) + 5e-6, rel=1e-6)


def test_disaggregated_closed_loop_littles_law(dep8b):
    """A closed loop through both pools: requests waiting for the step under way, in transit
    and in either queue are all counted, so L = λW holds within 3%."""
    pf, dec = disagg_pools(dep8b, 1, 2)
    w = make_workload(requests=2000, concurrency=64, input_len=1024, output_len=64, seed=4)
    res = simulate(dec, w, prefill_pool=pf, with_capacity=False)
    assert res.stats["little_l"] == pytest.approx(res.stats["little_lambda_w"], rel=0.03)
