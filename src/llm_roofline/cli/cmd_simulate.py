"""Verb `simulate`: serve a traffic on a deployment, step by step (`llm_roofline.sim.simulate`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_roofline._core import units
from llm_roofline.cli._common import (
    SIZES,
    Parser,
    deployment_from_args,
    dump_json,
    examples,
    json_flag,
    positive_float,
    positive_int,
    print_table,
    system_flags,
    time_cells,
)
from llm_roofline.cli.disagg_args import add_prefill_flags
from llm_roofline.cli.serving_flags import engine_args, engine_flags, engine_line

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment
    from llm_roofline.sim.simulate import SimResult
    from llm_roofline.sim.workload import Workload


def _workload(args: argparse.Namespace, max_context: int | None) -> Any:
    from llm_roofline._core.errors import InputError
    from llm_roofline.sim.workload import make_workload, read_trace

    if args.trace:
        if args.rate or args.concurrency:
            raise InputError("give --trace or --rate/--concurrency, not both", field="trace")
        return read_trace(args.trace, max_context=max_context)
    if args.input_len is None or args.output_len is None:
        raise InputError(
            "give --input-len and --output-len (mean tokens per request), or --trace FILE.csv",
            field="input_len",
        )
    return make_workload(
        requests=args.requests,
        rate=args.rate,
        concurrency=args.concurrency,
        input_len=args.input_len,
        output_len=args.output_len,
        arrival=args.arrival,
        burstiness=args.burstiness,
        length_dist=args.length_dist,
        input_spread=args.input_spread,
        output_spread=args.output_spread,
        max_context=max_context,
        seed=args.seed,
        range_ratio=args.range_ratio,
    )


def _traffic(description: str, max_context: int | None) -> str:
    """The workload's description with its bare ', context N' (the model's maximum, to which
    the drawn lengths are clipped) said in words."""
    if max_context is None:
        return description
    return description.replace(
        f", context {max_context}",
        f", lengths clipped to the model's maximum context of {max_context:,} tokens",
    )


def cmd_simulate(args: argparse.Namespace) -> int:
    from llm_roofline.cli.disagg_args import pools_from_args
    from llm_roofline.sim.simulate import simulate

    dep = deployment_from_args(args)
    pf, dep = pools_from_args(args, dep)
    work = _workload(args, dep.model.max_context)
    ms = units.ms
    res = simulate(
        dep,
        work,
        router=args.router,
        slo_ttft_s=args.slo_ttft_ms * ms if args.slo_ttft_ms else None,
        slo_tpot_s=args.slo_tpot_ms * ms if args.slo_tpot_ms else None,
        rate=args.rate,
        prefill_pool=pf,
        **engine_args(args),
    )
    written = _write_figures(args, dep, work, res, pf) if args.out else []
    if args.json:
        dump_json(
            {
                "deployment": dep.as_dict(),
                "prefill_deployment": pf.as_dict() if pf is not None else None,
                "workload": work.description,
                **res.summary,
                "preemptions": int(res.stats["preemptions"]),
                "kv_tokens_per_instance": int(res.stats["kv_tokens_per_instance"]),
                "figures": [str(p) for p in written],
            }
        )
        return 0
    print(_served_on(dep, pf))
    print(f"traffic: {_traffic(work.description, dep.model.max_context)}")
    print(engine_line(res.summary["serving_engine"]))
    _print_latency(res.summary)
    _print_rates(args, res)
    for p in written:
        print(f"wrote {p}")
    return 0


def _write_figures(
    args: argparse.Namespace,
    dep: Deployment,
    work: Workload,
    res: SimResult,
    pf: Deployment | None,
) -> list[Path]:
    """The figures of --out: latency against load, and the run's queue and KV."""
    from llm_roofline.plots.fig_simulation import write_simulation_figures

    server = {**engine_args(args), "prefill_pool": pf}
    return write_simulation_figures(dep, work, res, Path(args.out), server)


def _served_on(dep: Deployment, pf: Deployment | None) -> str:
    """The first line: the model on its chips, split or disaggregated, and the engine."""
    if pf is None:
        return (
            f"{dep.model_id} on {dep.chips} × {dep.chip.id} ({dep.split_text()}), "
            f"engine {dep.engine}"
        )
    from llm_roofline.cli.disagg_args import pools_text

    return (
        f"{dep.model_id} on {pf.chips + dep.chips} × {dep.chip.id}, disaggregated: "
        f"{pools_text(dep, pf)}, engine {dep.engine}"
    )


def _print_latency(s: dict[str, Any]) -> None:
    """The latency percentiles' table, after the run's warnings (few requests, a queue that
    grew through the run: the percentiles are then those of the requests simulated)."""
    if s["stable"] is False:
        print(
            f"UNSTABLE: {units.sig(s['offered_rps'])} requests/s offered, more than the "
            f"{units.sig(s['capacity_rps'])} requests/s this deployment sustains: the queue "
            f"grew through the run, so these percentiles are those of its {s['requests']:,} "
            "requests and grow with --requests (a benchmark of this length would report them)"
        )
    for w in s.get("warnings", []):
        if not w.endswith("grow with the run's length"):  # said above, in the command's words
            print(f"warning: {w}")
    rows = []
    for name, key in (
        ("time to first token", "ttft"),
        ("time per output token", "tpot"),
        ("end to end", "e2e"),
    ):
        unit, cells = time_cells([s.get(f"{key}_{q}_s") for q in ("p50", "p90", "p99", "mean")])
        rows.append((f"{name} ({unit})", *cells))
    print_table("latency", ("", "p50", "p90", "p99", "mean"), rows)


def _print_rates(args: argparse.Namespace, res: SimResult) -> None:
    """Throughput (as benchmark tools compute it, and in the steady state) against capacity,
    goodput within the SLOs given, KV memory and preemptions. One request is no rate: its
    tokens and its time are said instead."""
    s = res.summary
    cap = f"capacity {units.sig(s['capacity_rps'])} requests/s"
    if s["requests"] == 1:
        e2e = s["e2e_p50_s"]
        tokens = round(s["output_tokens_per_s"] * e2e)  # its span is its own latency
        print(
            f"throughput: one request, {tokens:,} output tokens in {units.sig(e2e)} s "
            f"(not a rate); {cap}"
        )
    else:
        print(
            f"throughput: {s['output_tokens_per_s']:,.0f} output tokens/s, "
            f"{units.sig(s['request_throughput_rps'])} requests/s (completed over the span "
            f"from the first send to the last completion, as benchmark tools count); {cap}"
        )
    if s.get("steady_request_rps") is not None:
        print(
            f"steady state: {s['steady_output_tokens_per_s']:,.0f} output tokens/s, "
            f"{units.sig(s['steady_request_rps'])} requests/s (the middle 60% of completions)"
        )
    slo = [f"TTFT ≤ {args.slo_ttft_ms:g} ms"] if args.slo_ttft_ms else []
    slo += [f"TPOT ≤ {args.slo_tpot_ms:g} ms"] if args.slo_tpot_ms else []
    print(
        f"goodput: {units.sig(s['goodput_rps'])} requests/s "
        + (f"meeting {' and '.join(slo)}" if slo else "(no SLO given: every request counts)")
    )
    print(
        f"KV memory: {int(res.stats['kv_tokens_per_instance']):,} tokens per instance; "
        f"{int(res.stats['preemptions'])} preemptions (recomputed)"
    )


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "simulate",
        help="serve a traffic (rate, clients or a trace) step by step: latency percentiles",
        description="Serve a traffic on a deployment with continuous batching, step by step "
        "(each step's time from the engine), and report latency percentiles, throughput, "
        "goodput and the capacity. Open loop: --rate; closed loop: --concurrency; or --trace.",
        epilog=examples(
            "llm-roofline simulate --model llama-3.1-8b --hardware h100-sxm --rate 10 "
            "--input-len 1k --output-len 256",
            "llm-roofline simulate --model llama-3.1-70b --hardware h100-sxm --chips 8 "
            "--concurrency 32 --input-len 2k --output-len 512",
        ),
    )
    system_flags(p)
    traffic = p.add_argument_group("traffic")
    _load_flags(traffic)
    _length_flags(traffic)
    server = p.add_argument_group("server")
    _server_flags(server)
    add_prefill_flags(server)
    json_flag(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        help="folder for figures: latency against load, queue and KV (default: none)",
    )
    p.set_defaults(func=cmd_simulate)


def _load_flags(g: argparse._ArgumentGroup) -> None:
    """The traffic's load: --rate, --concurrency or --trace, --requests and the mean lengths."""
    one = "one of --rate, --concurrency, --trace is required"
    g.add_argument("--rate", type=positive_float, help=f"requests per second, open loop ({one})")
    g.add_argument(
        "--concurrency",
        type=positive_int,
        help="clients, each sending its next request when the last one finishes: closed "
        f"loop, as most serving benchmarks run ({one})",
    )
    g.add_argument(
        "--trace",
        help="CSV of arrival_s,input_len,output_len, one request a row; it replaces "
        f"--requests, the lengths, --arrival and --seed ({one})",
    )
    g.add_argument(
        "--requests", type=positive_int, default=1000, help="requests served (default 1000)"
    )
    g.add_argument(
        "--input-len",
        type=positive_int,
        metavar="TOKENS",
        help=f"prompt tokens per request, the mean (required without --trace; {SIZES})",
    )
    g.add_argument(
        "--output-len",
        type=positive_int,
        metavar="TOKENS",
        help="output tokens per request, the mean (required without --trace)",
    )


def _length_flags(g: argparse._ArgumentGroup) -> None:
    """How the drawn traffic varies: the lengths' distribution and spreads, the arrivals'
    gaps, the seed."""
    from llm_roofline.sim.workload import ARRIVALS, LENGTH_DISTS

    g.add_argument(
        "--length-dist",
        default="fixed",
        choices=LENGTH_DISTS,
        help="lengths: fixed (default), normal, lognormal (spreads below), sharegpt-like "
        "(lognormal with the spread of the ShareGPT conversations), random (uniform within "
        "--range-ratio of the means, as vllm bench serve's random dataset) or sharegpt "
        "(sharegpt-like, filtered as vllm bench serve samples ShareGPT: prompts 4 to 1,024 "
        "tokens, requests at most 2,048); all but fixed and normal average the means asked "
        "for over the requests drawn",
    )
    g.add_argument(
        "--range-ratio",
        type=float,
        metavar="R",
        help="random lengths: uniform in [mean·(1 − R), mean·(1 + R)], R in [0, 1] "
        "(vllm bench serve's --random-range-ratio; default 0, every length the mean)",
    )
    g.add_argument(
        "--input-spread",
        type=positive_float,
        help="prompt lengths' standard deviation, tokens (default: a quarter of the mean for "
        "normal, the mean for lognormal)",
    )
    g.add_argument(
        "--output-spread",
        type=positive_float,
        help="output lengths' standard deviation, tokens (default: a quarter of the mean for "
        "normal, the mean for lognormal)",
    )
    g.add_argument(
        "--arrival",
        default="poisson",
        choices=ARRIVALS,
        help="open-loop gaps: poisson (default) or gamma (see --burstiness)",
    )
    g.add_argument(
        "--burstiness",
        type=positive_float,
        default=1.0,
        help="gamma gaps' squared coefficient of variation: 1 = Poisson (default), >1 burstier",
    )
    g.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def _server_flags(s: argparse._ArgumentGroup) -> None:
    """The server: its limits per instance, the router, disaggregation and the SLOs."""
    from llm_roofline.sim.simulate import ROUTERS

    engine_flags(s)
    s.add_argument(
        "--router",
        default="round-robin",
        choices=ROUTERS,
        help="how requests reach replicas (default round-robin)",
    )
    s.add_argument(
        "--disagg",
        metavar="P:D",
        help="disaggregated serving: P prefill and D decode instances, each one instance of "
        "the deployment (its chips over its replicas); the KV cache crosses the scale-up link "
        "when both pools fit one domain, else the network (default: aggregated)",
    )
    s.add_argument(
        "--slo-ttft-ms",
        type=positive_float,
        help="goodput counts requests within this TTFT, ms (default: no target)",
    )
    s.add_argument(
        "--slo-tpot-ms",
        type=positive_float,
        help="goodput counts requests within this TPOT, ms (default: no target)",
    )
