"""Serving engines (`llm_roofline.sim.serving_engines`, `sim.engine_policies`): each engine's
defaults against the value its own source sets (named beside each check), the KV memory each
engine gives a 70B model in fp8 on one H100 worked by hand, the settings overridden and
refused, the fixed costs added where they belong, and the scheduling policies on cases whose
answer is known without the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import deployment
from llm_roofline.sim import engine_policies, serving_engines
from llm_roofline.sim.pools import kv_capacity
from llm_roofline.sim.serving_engines import (
    ENGINES,
    SOURCES,
    fixed_costs,
    kv_budget_bytes,
    serving_engine,
)
from llm_roofline.sim.simulate import simulate
from llm_roofline.sim.workload import Workload, make_workload

H100 = deployment("llama-3.1-8b", "h100-sxm")
A100 = deployment("llama-3.1-8b", "a100-80gb")
L40S = deployment("llama-3.1-8b", "l40s")
MIB = 2**20


def test_every_engine_names_a_source_for_each_setting() -> None:
    settings = {"max_seqs", "max_batched_tokens", "memory_share", "policy", "chunked_prefill"}
    for name in ("vllm", "sglang", "tensorrt-llm", "lmdeploy"):
        assert name in ENGINES
        assert settings <= set(SOURCES[name]), name


def test_vllm_defaults() -> None:
    """vllm-project/vllm@99d7eb5 vllm/engine/arg_utils.py `_set_default_args`: on a GPU of
    >= 70 GiB that is not an A100, max_num_seqs 1024 and max_num_batched_tokens 8192 for the
    OpenAI API server, else 256 and 2048; `gpu_memory_utilization: float = 0.90`; V1 turns
    chunked prefill and prefix caching on."""
    e = serving_engine("vllm", H100)
    assert (e.max_seqs, e.max_batched_tokens, e.memory_share) == (1024, 8192, 0.9)
    assert (e.memory_of, e.chunked_prefill, e.prefix_caching, e.policy) == (
        "total",
        True,
        True,
        "decode-first",
    )
    for small in (A100, L40S):  # an A100 of 80 GB is excluded by name; the L40S has 48 GB
        e = serving_engine("vllm", small)
        assert (e.max_seqs, e.max_batched_tokens) == (256, 2048)


def test_sglang_defaults() -> None:
    """sgl-project/sglang python/sglang/srt/server_args.py `_handle_gpu_memory_settings`:
    below 90 GiB (an H100) chunked_prefill_size 8192 and cuda_graph_max_bs 256 at tp < 4;
    reserved = 512 + 1.5 x max(8192, 2048) + 2 x 256 + tp x pp / 8 x 1024 = 512 + 12,288 +
    512 + 128 = 13,440 MiB (over the 10,240 floor above 60 GiB); the H100's 85.52e9 bytes
    are 81,558.23 MiB, so mem_fraction_static = (81,558.23 - 13,440) / 81,558.23 = 0.835.
    model_runner.py: max_running_requests at least 2048. Radix cache on, prefill first."""
    e = serving_engine("sglang", H100)
    assert H100.chip.memory_bytes / MIB == pytest.approx(81_558.23, abs=0.01)
    assert e.memory_share == round((81_558.23 - 13_440) / 81_558.23, 3) == 0.835
    assert (e.max_seqs, e.max_batched_tokens, e.policy) == (2048, 8192, "prefill-first")
    assert (e.chunked_prefill, e.prefix_caching) == (True, True)
    # a 48 GB L40S: chunked_prefill_size 4096 (the < 60 GiB bucket)
    assert serving_engine("sglang", L40S).max_batched_tokens == 4096
    assert serving_engines.sglang_chunk_and_graphs(192e9, 1) == (16384, 512)  # B200, MI300X


def test_tensorrt_llm_defaults() -> None:
    """NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py: max_batch_size 2048,
    KvCacheConfig.free_gpu_memory_fraction 0.9 (of the free memory), enable_chunked_prefill
    False, enable_block_reuse True; tensorrt_llm/builder.py BuildConfig.max_num_tokens 8192."""
    e = serving_engine("tensorrt-llm", H100)
    assert (e.max_seqs, e.max_batched_tokens, e.memory_share, e.memory_of) == (
        2048,
        8192,
        0.9,
        "free",
    )
    assert (e.chunked_prefill, e.prefix_caching, e.policy) == (False, True, "decode-first")
    # SchedulerConfig.capacity_scheduler_policy = GUARANTEED_NO_EVICT: the output reserved
    assert e.reserve_output is True
    assert not any(serving_engine(n, H100).reserve_output for n in ("vllm", "sglang", "lmdeploy"))


def test_lmdeploy_defaults() -> None:
    """InternLM/lmdeploy@1263d5c lmdeploy/messages.py TurbomindEngineConfig:
    cache_max_entry_count 0.8 (of the free memory), max_prefill_token_num 8192,
    enable_prefix_caching False; lmdeploy/utils.py get_max_batch_size: 1024 on an H100,
    384 on an A100, 128 on other CUDA GPUs."""
    e = serving_engine("lmdeploy", H100)
    assert (e.max_seqs, e.max_batched_tokens, e.memory_share, e.memory_of) == (
        1024,
        8192,
        0.8,
        "free",
    )
    assert e.prefix_caching is False
    assert serving_engine("lmdeploy", A100).max_seqs == 384
    assert serving_engine("lmdeploy", L40S).max_seqs == 128


def test_vllm_kv_memory_of_70b_fp8_on_one_h100_by_hand() -> None:
    """vLLM's KV cache: 0.9 of the H100's 85.52e9 bytes (81,559 MiB) = 76,968,000,000, less
    the weights (70,553,706,496 parameters, 1 byte each in fp8) and the profiling run's
    activations: 8,192 tokens x (3 x 8,192 + 2 x 28,672) x 2 bytes = 1,342,177,280 and the
    logits of 1,024 sequences x 128,256 x 4 bytes = 525,336,576. That leaves 4,546,779,648
    bytes. A token's KV is 80 layers x 8 KV heads x 128 x 2 (K and V) = 163,840 bytes in fp8
    (327,680 in bf16): 640-token requests fit 4,546,779,648 // (640 x 163,840) = 43 at once,
    27,520 tokens (21 and 13,440 in bf16), against 90,240 the whole memory held before."""
    dep = deployment("llama-3.1-70b", "h100-sxm", weight_dtype="fp8", kv_dtype="fp8")
    e = serving_engine("vllm", dep)
    budget = 0.9 * 85.52e9 - 70_553_706_496 - 8192 * 163_840 - 1024 * 128_256 * 4
    assert budget == pytest.approx(4_546_779_648, abs=1)
    assert kv_budget_bytes(e, dep) == pytest.approx(budget, abs=1)
    assert 4_546_779_648 // (640 * 163_840) == 43
    assert kv_capacity(dep, 640, e) == 43 * 640 == 27_520
    bf16 = deployment("llama-3.1-70b", "h100-sxm", weight_dtype="fp8", kv_dtype="bf16")
    assert kv_capacity(bf16, 640, serving_engine("vllm", bf16)) == 21 * 640 == 13_440
    assert kv_capacity(dep, 640) == 90_240  # the simulator before: memory.max_batch


def test_sglang_and_free_memory_engines_kv_by_hand() -> None:
    """SGLang: 0.835 x 85.52e9 - 70,553,706,496 = 855,493,504 bytes (activations and graphs
    live in the rest). TensorRT-LLM: 0.9 x (85.52e9 - weights - 1,342,177,280 activations -
    2,048 x 128,256 x 4 = 1,050,673,152 logits). LMDeploy: 0.8 x (85.52e9 - weights)."""
    dep = deployment("llama-3.1-70b", "h100-sxm", weight_dtype="fp8", kv_dtype="fp8")
    w = 70_553_706_496
    sgl = kv_budget_bytes(serving_engine("sglang", dep), dep)
    assert sgl == pytest.approx(0.835 * 85.52e9 - w, abs=1)
    trt = kv_budget_bytes(serving_engine("tensorrt-llm", dep), dep)
    assert trt == pytest.approx(0.9 * (85.52e9 - w - 1_342_177_280 - 1_050_673_152), abs=1)
    lmd = kv_budget_bytes(serving_engine("lmdeploy", dep), dep)
    assert lmd == pytest.approx(0.8 * (85.52e9 - w), abs=1)


def test_a_request_that_does_not_fit_the_engine_share_is_refused() -> None:
    dep = deployment("llama-3.1-70b", "h100-sxm", weight_dtype="fp8", kv_dtype="bf16")
    with pytest.raises(InputError, match="sglang gives the KV cache") as err:
        kv_capacity(dep, 8192, serving_engine("sglang", dep))
    assert err.value.field == "input_len"


def test_overrides_and_refusals() -> None:
    e = serving_engine("vllm", H100, max_seqs=64, memory_share=0.5, chunked_prefill=False)
    assert (e.max_seqs, e.memory_share, e.chunked_prefill, e.max_batched_tokens) == (
        64,
        0.5,
        False,
        8192,
    )
    assert serving_engine("vllm", H100, max_seqs=None).max_seqs == 1024  # None: the default
    assert serving_engine("vllm", H100, prefix_hit_rate=0.4).hit_rate == 0.4
    assert serving_engine("lmdeploy", H100, prefix_hit_rate=0.4).hit_rate == 0.0  # caching off
    for kw, field in (
        ({"memory_share": 1.5}, "memory_share"),
        ({"memory_share": float("nan")}, "memory_share"),
        ({"max_seqs": 0}, "max_seqs"),
        ({"prefix_hit_rate": 1.0}, "prefix_hit_rate"),
        ({"request_overhead_s": -1.0}, "request_overhead_s"),
        ({"policy": "random"}, "policy"),
        ({"chunked_prefill": "yes"}, "chunked_prefill"),
        ({"speed": 2}, "speed"),
    ):
        with pytest.raises(InputError) as err:
            serving_engine("vllm", H100, **kw)
        assert err.value.field == field
    with pytest.raises(InputError) as err:
        serving_engine("vllm-v2", H100)
    assert err.value.field == "serving_engine"


def test_fixed_costs_come_from_the_data_file() -> None:
    """Each engine's three fixed costs are data/serving_costs.toml's, with their source."""
    for name in ("vllm", "sglang", "tensorrt-llm", "lmdeploy"):
        req, step, front, source = fixed_costs(name)
        e = serving_engine(name, H100)
        assert (e.request_overhead_s, e.step_overhead_s, e.frontend_s) == (req, step, front)
        assert source


def _one(**kw: object) -> dict[str, float]:
    """Requests sent one at a time (a closed loop of one client): each runs alone."""
    w = make_workload(requests=3, concurrency=1, input_len=512, output_len=4, seed=0)
    res = simulate(H100, w, with_capacity=False, timeline_points=0, **kw)  # type: ignore[arg-type]
    return {**res.summary, "steps": res.stats["steps"]}


def test_request_and_step_costs_add_where_they_belong() -> None:
    """Alone, a request of 4 output tokens runs 1 prefill step and 3 decode steps: 40 ms a
    request adds 40 ms to its TTFT and its end to end; 2 ms a step adds 2 ms to its TTFT, 2 ms
    to its time per output token and 4 x 2 = 8 ms to its end to end (against the same engine
    with no fixed costs: vLLM's shipped ones are fitted, data/serving_costs.toml)."""
    base = _one(request_overhead_s=0.0, step_overhead_s=0.0)
    req = _one(request_overhead_s=0.040)
    assert req["ttft_p50_s"] - base["ttft_p50_s"] == pytest.approx(0.040, abs=1e-9)
    assert req["e2e_p50_s"] - base["e2e_p50_s"] == pytest.approx(0.040, abs=1e-9)
    assert req["tpot_p50_s"] == pytest.approx(base["tpot_p50_s"], abs=1e-12)
    step = _one(request_overhead_s=0.0, step_overhead_s=0.002)
    assert step["ttft_p50_s"] - base["ttft_p50_s"] == pytest.approx(0.002, abs=1e-9)
    assert step["tpot_p50_s"] - base["tpot_p50_s"] == pytest.approx(0.002, abs=1e-9)
    assert step["e2e_p50_s"] - base["e2e_p50_s"] == pytest.approx(0.008, abs=1e-9)
    # four scheduler steps: the step's CPU cost paid once over four, 0.5 ms a step
    multi = _one(request_overhead_s=0.0, step_overhead_s=0.002, scheduler_steps=4)
    assert multi["tpot_p50_s"] - base["tpot_p50_s"] == pytest.approx(0.0005, abs=1e-9)


def test_a_front_end_serves_one_request_at_a_time() -> None:
    """Four requests sent together (1e9 a second: within nanoseconds) to a front end of 100 ms
    a request: it lets them through at 0.1, 0.2, 0.3 and 0.4 s, one at a time, and each then
    runs alone (a request of 512 + 4 tokens takes under 0.1 s on the engine, checked below),
    so the k-th first token comes 0.1 * k s later than a request sent alone. One client
    sending one at a time never queues: each waits its own 100 ms. Little's law holds with
    the time spent in the front end counted."""
    alone = _one(request_overhead_s=0.0, step_overhead_s=0.0, frontend_s=0.0)
    assert alone["e2e_p50_s"] < 0.1
    w = make_workload(requests=4, rate=1e9, input_len=512, output_len=4, seed=0)
    costs = {"request_overhead_s": 0.0, "step_overhead_s": 0.0}
    res = simulate(H100, w, with_capacity=False, timeline_points=0, frontend_s=0.1, **costs)
    want = alone["ttft_p50_s"] + 0.1 * np.arange(1, 5)
    assert np.sort(res.ttft_s) == pytest.approx(want, abs=1e-6)
    assert res.stats["little_l"] == pytest.approx(res.stats["little_lambda_w"], rel=1e-6)
    one = _one(request_overhead_s=0.0, step_overhead_s=0.0, frontend_s=0.1)
    assert one["ttft_p50_s"] - alone["ttft_p50_s"] == pytest.approx(0.1, abs=1e-9)


def test_the_front_end_idles_between_arrivals_and_serves_clients_in_turn() -> None:
    """Arrivals at 0, 0.05 and 0.5 s, 100 ms each in the front end: they leave it at 0.1,
    0.2 (0.05 s behind the first) and 0.6 s (it was idle from 0.2 to 0.5), so their first
    tokens come 0.1, 0.15 and 0.1 s later than a request's alone (each runs alone after: one
    takes under 0.1 s). Two clients that send together: one waits its 100 ms, the other 200."""
    bare = {"request_overhead_s": 0.0, "step_overhead_s": 0.0}
    alone = _one(frontend_s=0.0, **bare)
    assert alone["e2e_p50_s"] < 0.1
    w = Workload(
        input_len=np.array([512, 512, 512]),
        output_len=np.array([4, 4, 4]),
        arrival_s=np.array([0.0, 0.05, 0.5]),
        concurrency=None,
        description="three",
    )
    res = simulate(H100, w, with_capacity=False, timeline_points=0, frontend_s=0.1, **bare)
    want = alone["ttft_p50_s"] + np.array([0.1, 0.15, 0.1])
    assert res.ttft_s == pytest.approx(want, abs=1e-9)
    two = make_workload(requests=2, concurrency=2, input_len=512, output_len=4, seed=0)
    res = simulate(H100, two, with_capacity=False, timeline_points=0, frontend_s=0.1, **bare)
    assert np.sort(res.ttft_s) == pytest.approx(alone["ttft_p50_s"] + np.array([0.1, 0.2]))


def test_prefix_hits_and_chunking_by_their_steps() -> None:
    """Half of a 512-token prompt cached: 256 tokens computed, attending to the 256 cached
    before them, so its first token comes no sooner than a fresh 256-token prompt's and
    before a fresh 512-token prompt's. A 10,000-token prompt with an 8,192-token budget: two prefill
    steps chunked, one whole without chunking."""
    half = _one(prefix_hit_rate=0.5)["ttft_p50_s"]
    full = _one()["ttft_p50_s"]
    w = make_workload(requests=3, concurrency=1, input_len=256, output_len=4, seed=0)
    short = simulate(H100, w, with_capacity=False, timeline_points=0).summary["ttft_p50_s"]
    assert short <= half < full
    w = make_workload(requests=1, concurrency=1, input_len=10_000, output_len=1, seed=0)
    chunked = simulate(H100, w, with_capacity=False, timeline_points=0)
    whole = simulate(H100, w, with_capacity=False, timeline_points=0, chunked_prefill=False)
    assert (chunked.stats["steps"], whole.stats["steps"]) == (2, 1)


def test_prefill_first_stalls_decodes_and_keeps_counts() -> None:
    """Under the same Poisson load, prefill-first runs prompts sooner and decodes later than
    decode-first; every request still emits its output length (the end to end of a lone
    request is the same under both)."""
    assert engine_policies.PrefillFirst.name == "prefill-first"
    alone = {p: _one(policy=p) for p in ("decode-first", "prefill-first")}
    assert alone["prefill-first"]["e2e_p50_s"] == pytest.approx(
        alone["decode-first"]["e2e_p50_s"], rel=1e-12
    )
    w = make_workload(requests=400, rate=20, input_len=1024, output_len=128, seed=1)
    kw = {"with_capacity": False, "timeline_points": 0}
    df = simulate(H100, w, policy="decode-first", **kw).summary  # type: ignore[arg-type]
    pf = simulate(H100, w, policy="prefill-first", **kw).summary  # type: ignore[arg-type]
    assert pf["ttft_p50_s"] <= df["ttft_p50_s"]
    assert pf["tpot_p99_s"] > df["tpot_p99_s"]
    assert pf["output_tokens_per_s"] > 0 and df["requests"] == pf["requests"] == 400


def test_summary_shows_the_settings_used() -> None:
    s = _one()
    assert s["serving_engine"]["name"] == "vllm"
    assert s["serving_engine"]["max_seqs"] == 1024
    legacy = _one(serving_engine="roofline")["serving_engine"]
    assert (legacy["max_seqs"], legacy["max_batched_tokens"], legacy["policy"]) == (
        256,
        8192,
        "vllm",
    )


def test_reserving_the_output_never_preempts() -> None:
    """Llama 3.1 70B in bf16 on two H100s holds 24,576 KV tokens under vLLM's share
    (tests/sim/test_simulate.py works it out): 16 clients of 1,024 + 3,072 tokens would need
    65,536, so admitting on the prompt alone preempts; reserving each request's whole output
    (TensorRT-LLM's GUARANTEED_NO_EVICT) admits at most 24,576 // 4,096 = 6 at once and
    never preempts, every request still ending with all its tokens."""
    dep = deployment("llama-3.1-70b", "h100-sxm", 2, tp=2, engine="ideal")
    w = make_workload(requests=32, concurrency=16, input_len=1024, output_len=3072)
    kw = {"with_capacity": False, "timeline_points": 0}
    loose = simulate(dep, w, **kw)  # type: ignore[arg-type]
    strict = simulate(dep, w, reserve_output=True, **kw)  # type: ignore[arg-type]
    assert loose.stats["kv_tokens_per_instance"] == strict.stats["kv_tokens_per_instance"]
    assert strict.stats["kv_tokens_per_instance"] == 24_576
    assert loose.stats["preemptions"] > 0 and strict.stats["preemptions"] == 0
    assert strict.summary["output_tokens_per_s"] > 0
    assert np.all(np.isfinite(strict.e2e_s)) and len(strict.e2e_s) == 32
