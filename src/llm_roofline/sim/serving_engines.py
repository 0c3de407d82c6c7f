"""Serving engines as they run: each engine's documented defaults, one named setting each, in
one place (`ENGINES`), resolved for a deployment's chip (`serving_engine`).

A published benchmark measures an engine, not a roofline: how many sequences it runs at once,
how many tokens a step takes, how much memory it gives the KV cache, what it costs on the CPU
per request and per step, and how it orders prompts against decodes. Each setting below is the
engine's default as its own source code sets it (the address of each is in `SOURCES`, pinned by
tests/sim/test_serving_engines.py), and each can be overridden (`serving_engine(...,
**overrides)`, the command line's flags, the API's fields).

Admission: `max_seqs` (vLLM `max_num_seqs`, SGLang `max_running_requests`, TensorRT-LLM and
LMDeploy `max_batch_size`) caps the sequences in flight; `max_batched_tokens` (vLLM
`max_num_batched_tokens`, SGLang `chunked_prefill_size`, TensorRT-LLM `max_num_tokens`,
LMDeploy `max_prefill_token_num`) is the tokens one step takes, decode tokens and prompt chunks.

KV memory (`kv_budget_bytes`, on the fullest chip): the engine claims `memory_share` of the
chip's memory (`memory_of="total"`: vLLM `gpu_memory_utilization`, SGLang
`mem_fraction_static`) or of the memory left free once the weights (and, for TensorRT-LLM, its
activations) are in place (`memory_of="free"`: TensorRT-LLM `free_gpu_memory_fraction`,
LMDeploy `cache_max_entry_count`); the KV cache gets what that share leaves beside the weights
and, where the engine measures them inside its share (vLLM's and TensorRT-LLM's profiling run
at the token budget), the activations of a step of `max_batched_tokens` tokens and the logits
of `max_seqs` sequences. "roofline" keeps the simulator as it was before issue 27: the whole
memory, each sequence's own activations, 256 sequences and 8,192 tokens a step.

Fixed costs (`request_overhead_s`, `step_overhead_s`, `frontend_s`): read from
data/serving_costs.toml, where `validate --serving` writes its fit with its provenance; 0
until fitted. A request's overhead delays it alone; its front-end time (the API server's CPU
work for it: HTTP, tokenising, detokenising and streaming) is spent in one process per
instance that serves one request at a time, so a burst of requests queues for it.

Scheduling (`policy`, `engine_policies.py`): "decode-first" (vLLM V1, TensorRT-LLM's in-flight
batching, LMDeploy's TurboMind: a step decodes every running sequence, then prompts fill the
rest of its budget) or "prefill-first" (SGLang: a step runs prompts alone while any can be
admitted; decodes wait); `chunked_prefill` (a prompt split over steps, or run whole);
`scheduler_steps` (vLLM V0's `--num-scheduler-steps`: admissions every n steps, the per-step
CPU cost spread over them); `prefix_caching` with `prefix_hit_rate` (the share of each
prompt's tokens found in the cache, not recomputed; 0 for benchmark tools' random prompts).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from importlib import resources
from typing import TYPE_CHECKING, Any, TypedDict

from llm_roofline._core.errors import InputError

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "ENGINE_NAMES",
    "OVERRIDES",
    "SCHEDULES",
    "SOURCES",
    "ServingEngine",
    "fixed_costs",
    "kv_budget_bytes",
    "serving_engine",
]

GiB = 2**30
MiB = 2**20
DEFAULT_ENGINE = "vllm"
SCHEDULES = ("decode-first", "prefill-first")  # engine_policies' names

# Where each default is set (repository, commit where the stored copy has one, path, name).
_VLLM = "github.com/vllm-project/vllm@99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b"
_SGL = "github.com/sgl-project/sglang (main, 2025-26)"
_TRT = "github.com/NVIDIA/TensorRT-LLM (main, 2025-26)"
_LMD = "github.com/InternLM/lmdeploy@1263d5cd889b7ad500e85b8eb20401327a4516ab"
SOURCES: dict[str, dict[str, str]] = {
    "vllm": {
        "max_seqs": f"{_VLLM} vllm/engine/arg_utils.py EngineArgs._set_default_args: "
        "max_num_seqs 1024 (OPENAI_API_SERVER) on a GPU of >= 70 GiB that is not an A100, "
        "else 256",
        "max_batched_tokens": f"{_VLLM} vllm/engine/arg_utils.py EngineArgs._set_default_args: "
        "max_num_batched_tokens 8192 (OPENAI_API_SERVER) on >= 70 GiB not A100, else 2048",
        "memory_share": f"{_VLLM} vllm/engine/arg_utils.py EngineArgs.gpu_memory_utilization "
        "= 0.90, of the GPU's total memory; weights, the profiling run's peak activations "
        "(max_num_batched_tokens tokens, max_num_seqs logits) come out of it",
        "policy": f"{_VLLM} vllm/v1/core/sched/scheduler.py: running requests first, then "
        "waiting ones with the budget left (decode-first)",
        "chunked_prefill": f"{_VLLM} vllm/engine/arg_utils.py _set_default_args: "
        "enable_chunked_prefill = True (V1, generative models)",
        "scheduler_steps": f"{_VLLM} EngineArgs.num_scheduler_steps = 1 (V0 only)",
        "prefix_caching": f"{_VLLM} vllm/engine/arg_utils.py _set_default_args: "
        "enable_prefix_caching = True (V1, non-hybrid models)",
    },
    "sglang": {
        "max_seqs": f"{_SGL} python/sglang/srt/model_executor/model_runner.py: "
        "max_running_requests = min(max(KV tokens / context_len x 512, 2048), 4096)",
        "max_batched_tokens": f"{_SGL} python/sglang/srt/server_args.py "
        "_handle_gpu_memory_settings: chunked_prefill_size 2048 (< 35 GiB), 4096 (< 60 GiB), "
        "8192 (< 160 GiB), 16384 above",
        "memory_share": f"{_SGL} python/sglang/srt/server_args.py _handle_gpu_memory_settings: "
        "mem_fraction_static = (GPU MiB - reserved) / GPU MiB, reserved = 512 + 1.5 x "
        "max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs + tp x pp / 8 x 1024 MiB, at "
        "least 10,240 MiB above 60 GiB; weights and KV pool share it",
        "policy": f"{_SGL} python/sglang/srt/managers/scheduler.py get_next_batch_to_run: "
        "a new prefill batch runs before the running decode batch (prefill-first)",
        "chunked_prefill": f"{_SGL} server_args.py: chunked_prefill_size > 0 by default",
        "scheduler_steps": "SGLang schedules every step (1)",
        "prefix_caching": f"{_SGL} server_args.py: disable_radix_cache = False",
    },
    "tensorrt-llm": {
        "max_seqs": f"{_TRT} tensorrt_llm/llmapi/llm_args.py BaseLlmArgs.max_batch_size = 2048",
        "max_batched_tokens": f"{_TRT} tensorrt_llm/builder.py BuildConfig.max_num_tokens = 8192",
        "memory_share": f"{_TRT} tensorrt_llm/llmapi/llm_args.py KvCacheConfig."
        "free_gpu_memory_fraction = 0.9, of the memory free after weights and activations",
        "policy": f"{_TRT} in-flight batching: context and generation requests in one step "
        "(decode-first)",
        "chunked_prefill": f"{_TRT} tensorrt_llm/llmapi/llm_args.py enable_chunked_prefill = False",
        "scheduler_steps": "TensorRT-LLM schedules every step (1)",
        "prefix_caching": f"{_TRT} KvCacheConfig.enable_block_reuse = True",
        "reserve_output": f"{_TRT} tensorrt_llm/llmapi/llm_args.py SchedulerConfig."
        "capacity_scheduler_policy = GUARANTEED_NO_EVICT (a request's whole output KV "
        "reserved at admission)",
    },
    "lmdeploy": {
        "max_seqs": f"{_LMD} lmdeploy/utils.py get_max_batch_size: 1024 on H100, H800, H200 "
        "(and L20Y), 384 on A100 and A800, 128 on other CUDA GPUs",
        "max_batched_tokens": f"{_LMD} lmdeploy/messages.py TurbomindEngineConfig."
        "max_prefill_token_num = 8192",
        "memory_share": f"{_LMD} lmdeploy/messages.py TurbomindEngineConfig."
        "cache_max_entry_count = 0.8, of the GPU memory free after the weights (> v0.2.1)",
        "policy": "LMDeploy TurboMind: prompts split and fused with decodes in one step "
        "(decode-first)",
        "chunked_prefill": f"{_LMD} lmdeploy/messages.py: prompts taken max_prefill_token_num "
        "tokens a step",
        "scheduler_steps": "LMDeploy schedules every step (1)",
        "prefix_caching": f"{_LMD} lmdeploy/messages.py enable_prefix_caching = False",
    },
}


@dataclass(frozen=True)
class ServingEngine:
    """One engine's settings, resolved for a chip (module docstring): admission, KV memory,
    fixed costs and scheduling. `prefix_hit_rate` counts only with `prefix_caching`."""

    name: str
    max_seqs: int
    max_batched_tokens: int
    memory_share: float
    memory_of: str  # "total", "free" (after weights), or "model" (the simulator before)
    profile_activations: bool  # the step's activations come out of the share
    request_overhead_s: float
    step_overhead_s: float
    policy: str
    chunked_prefill: bool
    scheduler_steps: int
    prefix_caching: bool
    prefix_hit_rate: float = 0.0
    reserve_output: bool = False  # admit only when the whole output's KV is sure to fit
    frontend_s: float = 0.0  # a request's time in the instance's one front-end process

    @property
    def hit_rate(self) -> float:
        """The share of each prompt found in the prefix cache (0 with caching off)."""
        return self.prefix_hit_rate if self.prefix_caching else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The settings used, as the output shows them (`summary["serving_engine"]`)."""
        return asdict(self)


def fixed_costs(name: str) -> tuple[float, float, float, str]:
    """(request_overhead_s, step_overhead_s, frontend_s, their source) of engine `name`,
    from data/serving_costs.toml (0s for an engine it does not list)."""
    path = resources.files("llm_roofline").joinpath("data/serving_costs.toml")
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    row = table.get(name, {})
    return (
        float(row.get("request_overhead_s", 0.0)),
        float(row.get("step_overhead_s", 0.0)),
        float(row.get("frontend_s", 0.0)),
        str(row.get("source", "not fitted: 0")),
    )


class _Costs(TypedDict):
    request_overhead_s: float
    step_overhead_s: float
    frontend_s: float


def _costs(name: str) -> _Costs:
    req, step, front, _ = fixed_costs(name)
    return {"request_overhead_s": req, "step_overhead_s": step, "frontend_s": front}


def _vllm(mem: float, chip_id: str, tp: int, pp: int) -> ServingEngine:
    big = mem >= 70 * GiB and "a100" not in chip_id.lower()
    return ServingEngine(
        "vllm",
        max_seqs=1024 if big else 256,
        max_batched_tokens=8192 if big else 2048,
        memory_share=0.9,
        memory_of="total",
        profile_activations=True,
        policy="decode-first",
        chunked_prefill=True,
        scheduler_steps=1,
        prefix_caching=True,
        **_costs("vllm"),
    )


def sglang_chunk_and_graphs(mem: float, tp: int) -> tuple[int, int]:
    """SGLang's default (chunked_prefill_size, cuda_graph_max_bs) for a GPU of `mem` bytes at
    tensor-parallel degree `tp` (server_args.py `_handle_gpu_memory_settings`, CUDA GPUs)."""
    mib = mem / MiB
    small_tp = tp < 4
    if mib < 20 * 1024:
        return 2048, 8
    if mib < 35 * 1024:
        return 2048, 24 if small_tp else 80
    if mib < 60 * 1024:
        return 4096, 32 if small_tp else 160
    if mib < 160 * 1024:
        return 8192, 256 if small_tp else 512
    return 16384, 512


def sglang_mem_fraction(mem: float, tp: int, pp: int) -> float:
    """SGLang's default mem_fraction_static (server_args.py, rounded to 3 places as there)."""
    mib = mem / MiB
    chunk, graphs = sglang_chunk_and_graphs(mem, tp)
    reserved = 512 + max(chunk, 2048) * 1.5 + graphs * 2 + tp * pp / 8 * 1024
    if mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((mib - reserved) / mib, 3)


def _sglang(mem: float, chip_id: str, tp: int, pp: int) -> ServingEngine:
    return ServingEngine(
        "sglang",
        max_seqs=2048,  # the floor of model_runner's rule; 4096 only past 8 x context tokens
        max_batched_tokens=sglang_chunk_and_graphs(mem, tp)[0],
        memory_share=sglang_mem_fraction(mem, tp, pp),
        memory_of="total",
        profile_activations=False,  # they and the CUDA graphs live in the 1 - share left
        policy="prefill-first",
        chunked_prefill=True,
        scheduler_steps=1,
        prefix_caching=True,
        **_costs("sglang"),
    )


def _trtllm(mem: float, chip_id: str, tp: int, pp: int) -> ServingEngine:
    return ServingEngine(
        "tensorrt-llm",
        max_seqs=2048,
        max_batched_tokens=8192,
        memory_share=0.9,
        memory_of="free",
        profile_activations=True,
        policy="decode-first",
        chunked_prefill=False,
        scheduler_steps=1,
        prefix_caching=True,
        reserve_output=True,
        **_costs("tensorrt-llm"),
    )


def _lmdeploy(mem: float, chip_id: str, tp: int, pp: int) -> ServingEngine:
    cid = chip_id.lower()
    big = any(n in cid for n in ("h100", "h800", "h200", "l20y"))
    mid = any(n in cid for n in ("a100", "a800"))
    return ServingEngine(
        "lmdeploy",
        max_seqs=1024 if big else 384 if mid else 128,
        max_batched_tokens=8192,
        memory_share=0.8,
        memory_of="free",
        profile_activations=False,
        policy="decode-first",
        chunked_prefill=True,
        scheduler_steps=1,
        prefix_caching=False,
        **_costs("lmdeploy"),
    )


def _roofline(mem: float, chip_id: str, tp: int, pp: int) -> ServingEngine:
    return ServingEngine(
        "roofline",
        max_seqs=256,
        max_batched_tokens=8192,
        memory_share=1.0,
        memory_of="model",
        profile_activations=False,
        request_overhead_s=0.0,
        step_overhead_s=0.0,
        policy="vllm",  # policy.ContinuousBatching, as before
        chunked_prefill=True,
        scheduler_steps=1,
        prefix_caching=False,
    )


ENGINES: dict[str, Callable[[float, str, int, int], ServingEngine]] = {
    "vllm": _vllm,
    "sglang": _sglang,
    "tensorrt-llm": _trtllm,
    "lmdeploy": _lmdeploy,
    "roofline": _roofline,
}
ENGINE_NAMES = tuple(ENGINES)
OVERRIDES = tuple(
    f.name for f in fields(ServingEngine) if f.name not in ("name", "memory_of")
)  # the settings a caller may override


def _checked(name: str, value: Any) -> Any:
    """One override, checked: a positive count, a fraction, a time, a flag or a policy."""
    if value is None:
        return None
    if name in ("max_seqs", "max_batched_tokens", "scheduler_steps"):
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
        what = "a positive integer"
    elif name in ("memory_share",):
        ok = _number(value) and 0 < value <= 1
        what = "a fraction in (0, 1]"
    elif name == "prefix_hit_rate":
        ok = _number(value) and 0 <= value < 1
        what = "a fraction in [0, 1)"
    elif name in ("request_overhead_s", "step_overhead_s", "frontend_s"):
        ok = _number(value) and 0 <= value < 3600
        what = "a time in seconds, from 0 to under 3,600"
    elif name in ("chunked_prefill", "prefix_caching", "profile_activations", "reserve_output"):
        ok = isinstance(value, bool)
        what = "true or false"
    else:  # policy
        ok = value in (*SCHEDULES, "vllm")
        what = f"one of {', '.join(SCHEDULES)}"
    if not ok:
        raise InputError(f"{name} must be {what}, got {value!r}", field=name)
    return value


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def serving_engine(
    engine: str | ServingEngine, dep: Deployment | None = None, **overrides: Any
) -> ServingEngine:
    """Engine `engine` (a name of `ENGINES` or a resolved profile) with its chip-dependent
    defaults resolved for `dep`'s chip and split (an H100 of 80 GB at tp 1 without one), and
    `overrides` (settings of `OVERRIDES`; None keeps the default) applied, each checked."""
    if isinstance(engine, ServingEngine):
        base = engine
    elif engine in ENGINES:
        if dep is None:
            base = ENGINES[engine](85.52e9, "h100-sxm", 1, 1)
        else:
            base = ENGINES[engine](dep.chip.memory_bytes, dep.chip.id, dep.tp, dep.pp)
    else:
        raise InputError(
            f"serving_engine must be one of {', '.join(ENGINES)}, got {engine!r}",
            field="serving_engine",
        )
    unknown = sorted(set(overrides) - set(OVERRIDES))
    if unknown:
        raise InputError(
            f"unknown serving engine setting {unknown[0]!r}: one of {', '.join(OVERRIDES)}",
            field=unknown[0],
        )
    given = {k: _checked(k, v) for k, v in overrides.items()}
    return replace(base, **{k: v for k, v in given.items() if v is not None})


def kv_budget_bytes(eng: ServingEngine, dep: Deployment) -> float:
    """The bytes the engine gives the KV cache on the fullest chip of one instance of `dep`
    (module docstring); never below 0. Not for "roofline" (memory.max_batch counts that)."""
    from llm_roofline.engine.memory import activation_bytes, claimed_kv_bytes

    act = 0.0
    if eng.profile_activations:
        seqs = float(eng.max_seqs)
        act = float(activation_bytes(dep.model, seqs, eng.max_batched_tokens / seqs)) / dep.pp
    return claimed_kv_bytes(
        dep.chip.memory_bytes,
        dep.weights_per_chip_bytes(),
        act,
        eng.memory_share,
        of_free=eng.memory_of == "free",
    )
