"""The serving engine's flags of `simulate` (`llm_roofline.sim.serving_engines`): the engine,
one flag per setting over its defaults, the settings as the library takes them, and the line
that shows the settings used."""

from __future__ import annotations

import argparse
from typing import Any

from llm_roofline._core import units
from llm_roofline.cli._args import positive_int

__all__ = ["engine_args", "engine_flags", "engine_line"]


def engine_flags(s: argparse._ArgumentGroup) -> None:
    """The serving engine and one flag per setting over its defaults (sim/serving_engines)."""
    from llm_roofline.sim.serving_engines import DEFAULT_ENGINE, ENGINE_NAMES

    s.add_argument(
        "--serving-engine",
        default=DEFAULT_ENGINE,
        choices=ENGINE_NAMES,
        help="the engine whose documented defaults serve: its sequence cap, token budget, KV "
        "memory share, fixed costs and scheduling (default vllm; roofline: the simulator "
        "before, the whole memory, 256 sequences, 8192 tokens); the flags below override "
        "one setting each",
    )
    s.add_argument(
        "--max-seqs",
        type=positive_int,
        help="sequences in flight per instance (default: the engine's: vLLM max_num_seqs, "
        "SGLang max_running_requests, TensorRT-LLM and LMDeploy max_batch_size)",
    )
    s.add_argument(
        "--max-batched-tokens",
        type=positive_int,
        help="tokens per step per instance, prompt chunks included (default: the engine's: "
        "vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TensorRT-LLM "
        "max_num_tokens, LMDeploy max_prefill_token_num)",
    )
    s.add_argument(
        "--memory-share",
        type=float,
        metavar="FRACTION",
        help="share of memory the engine claims (default: vLLM gpu_memory_utilization 0.9 "
        "and SGLang mem_fraction_static of the whole; TensorRT-LLM free_gpu_memory_fraction "
        "0.9 and LMDeploy cache_max_entry_count 0.8 of what the weights leave)",
    )
    _cost_flags(s)
    _schedule_flags(s)


def _cost_flags(s: argparse._ArgumentGroup) -> None:
    """The fixed costs over the engine's fitted ones."""
    s.add_argument(
        "--request-overhead-ms",
        type=float,
        metavar="MS",
        help="fixed cost a request (HTTP, tokenise, detokenise), ms (default: the engine's "
        "fitted value, data/serving_costs.toml)",
    )
    s.add_argument(
        "--step-overhead-ms",
        type=float,
        metavar="MS",
        help="fixed CPU cost a step (scheduler, sampling), ms (default: the engine's fitted value)",
    )
    s.add_argument(
        "--frontend-ms",
        type=float,
        metavar="MS",
        help="a request's time in the instance's front-end process, which serves one request "
        "at a time, ms (default: the engine's fitted value)",
    )


def _schedule_flags(s: argparse._ArgumentGroup) -> None:
    """The scheduling options over the engine's defaults."""
    from llm_roofline.sim.serving_engines import SCHEDULES

    s.add_argument(
        "--schedule",
        choices=SCHEDULES,
        help="decode-first (vLLM, TensorRT-LLM, LMDeploy) or prefill-first (SGLang)",
    )
    s.add_argument(
        "--chunked-prefill",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="split prompts over steps (default: the engine's; TensorRT-LLM: off)",
    )
    s.add_argument(
        "--scheduler-steps",
        type=positive_int,
        metavar="N",
        help="multi-step scheduling: admit every N steps (vLLM V0 --num-scheduler-steps; "
        "default 1)",
    )
    s.add_argument(
        "--prefix-caching",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="reuse cached prompt prefixes (default: the engine's; LMDeploy: off)",
    )
    s.add_argument(
        "--reserve-output",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="admit a request only when its whole output's KV is sure to fit, never "
        "preempting (default: the engine's; TensorRT-LLM's GUARANTEED_NO_EVICT: on)",
    )
    s.add_argument(
        "--prefix-hit-rate",
        type=float,
        metavar="FRACTION",
        help="share of each prompt found in the prefix cache (default 0: random prompts)",
    )


def engine_args(args: argparse.Namespace) -> dict[str, Any]:
    """The serving engine and the settings given over its defaults (None: its default)."""
    ms = units.ms
    return {
        "serving_engine": args.serving_engine,
        "max_seqs": args.max_seqs,
        "max_batched_tokens": args.max_batched_tokens,
        "memory_share": args.memory_share,
        "request_overhead_s": None
        if args.request_overhead_ms is None
        else args.request_overhead_ms * ms,
        "step_overhead_s": None if args.step_overhead_ms is None else args.step_overhead_ms * ms,
        "frontend_s": None if args.frontend_ms is None else args.frontend_ms * ms,
        "policy": args.schedule,
        "chunked_prefill": args.chunked_prefill,
        "scheduler_steps": args.scheduler_steps,
        "prefix_caching": args.prefix_caching,
        "prefix_hit_rate": args.prefix_hit_rate,
        "reserve_output": args.reserve_output,
    }


def engine_line(e: dict[str, Any]) -> str:
    """The serving engine's settings used, in one line."""
    memory = (
        "KV memory as memory.max_batch counts it"
        if e["memory_of"] == "model"
        else f"{e['memory_share']:g} of the {e['memory_of']} memory"
    )
    hits = f" ({e['prefix_hit_rate']:.0%} hits)" if e["prefix_caching"] else ""
    return (
        f"serving engine: {e['name']} ({e['max_seqs']:,} sequences, "
        f"{e['max_batched_tokens']:,} tokens a step, {memory}, "
        f"{e['request_overhead_s'] * 1e3:g} ms a request, "
        f"{e['step_overhead_s'] * 1e3:g} ms a step, "
        f"{e['frontend_s'] * 1e3:g} ms a request in the front end, one at a time, "
        f"{e['policy']}, chunked prefill "
        f"{'on' if e['chunked_prefill'] else 'off'}, "
        f"{e['scheduler_steps']} scheduler step{'s' if e['scheduler_steps'] > 1 else ''}, "
        f"prefix caching {'on' if e['prefix_caching'] else 'off'}{hits}"
        f"{', output KV reserved at admission' if e.get('reserve_output') else ''})"
    )
