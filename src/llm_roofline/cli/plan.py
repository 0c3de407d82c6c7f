"""Verb `plan`: the cheapest fleet that serves a traffic within its latency targets
(`llm_roofline.plan`)."""

from __future__ import annotations

import argparse
from typing import Any

from .. import units
from ._common import (
    ENGINE_HELP,
    MODEL_HELP,
    SIZES,
    Parser,
    dump_json,
    fmt_money,
    fmt_time,
    json_flag,
    positive_float,
    positive_int,
    print_table,
    progress_bar,
    time_cells,
)


def _fleet(r: dict[str, Any]) -> str:
    """A fleet in words: '6 × h100-sxm, 6 instances of 1 chip' or its two pools."""
    if r["disaggregated"]:
        ps, ds = r["prefill_split"], r["decode_split"]
        return (
            f"{r['chips']} × {r['hardware']}: {r['prefill_instances']} prefill instance(s) of "
            f"{ps['chips']} (tp {ps['tp']} · pp {ps['pp']}) + {r['decode_instances']} decode "
            f"instance(s) of {ds['chips']} (tp {ds['tp']} · pp {ds['pp']})"
        )
    dp = f" · dp {r['dp']}" if r.get("dp", 1) > 1 else ""
    return (
        f"{r['chips']} × {r['hardware']}: {r['replicas']} instance(s) of "
        f"{r['instance_chips']} (tp {r['tp']} · pp {r['pp']} · ep {r['ep']}{dp})"
    )


def _shape(r: dict[str, Any]) -> str:
    """A fleet's instances in a table cell: '2 × tp 1' or 'P 1 × tp 2 + D 3 × tp 1'."""
    if r["disaggregated"]:
        ps, ds = r["prefill_split"], r["decode_split"]
        return (
            f"P {r['prefill_instances']} × tp {ps['tp']} pp {ps['pp']} + "
            f"D {r['decode_instances']} × tp {ds['tp']} pp {ds['pp']}"
        )
    return (
        f"{r['replicas']} × tp {r['tp']} pp {r['pp']}"
        + (f" ep {r['ep']}" if r["ep"] > 1 else "")
        + (f" dp {r['dp']}" if r.get("dp", 1) > 1 else "")
    )


def cmd_plan(args: argparse.Namespace) -> int:
    from ..plan import plan

    ms = units.ms
    with progress_bar("planning") as progress:
        res = plan(
            args.model,
            [h for h in args.hardware.split(",") if h.strip()],
            rate=args.rate,
            input_len=args.input_len,
            output_len=args.output_len,
            ttft_p90_s=args.ttft_p90_ms * ms,
            tpot_p99_s=args.tpot_p99_ms * ms,
            max_chips=args.max_chips,
            disagg=args.disagg,
            engine=args.engine,
            weight_dtype=args.weight_dtype,
            kv_dtype=args.kv_dtype,
            length_dist=args.length_dist,
            requests=args.requests,
            seed=args.seed,
            max_seqs=args.max_seqs,
            max_batched_tokens=args.max_batched_tokens,
            progress=progress,
        )
    if args.json:
        dump_json(res.as_dict())
        return 0
    q = res.request
    print(
        f"{q['model']} at {q['rate_rps']:g} requests/s of {q['input_len']:,} → "
        f"{q['output_len']:,} tokens ({q['length_dist']}); targets TTFT p90 ≤ "
        f"{args.ttft_p90_ms:g} ms, TPOT p99 ≤ {args.tpot_p99_ms:g} ms; engine {q['engine']}"
    )
    b = res.best
    if b is None:
        n = args.max_chips
        print(f"no fleet of up to {n} chip{'s' if n > 1 else ''} meets both targets: {res.reason}")
    else:
        print(f"best: {_fleet(b)}")
        print(
            f"  {fmt_money(b['usd_per_hour'])}/hour, "
            f"{fmt_money(b['usd_per_million_output_tokens'])} per million output tokens; "
            f"TTFT p90 {fmt_time(b['ttft_p90_s'])}, TPOT p99 {fmt_time(b['tpot_p99_s'])}; "
            f"capacity {b['capacity_rps']:.3g} requests/s"
        )
    cands = res.candidates
    ttft_unit, ttfts = time_cells([r["ttft_p90_s"] for r in cands])
    tpot_unit, tpots = time_cells([r["tpot_p99_s"] for r in cands])
    rows = [
        (
            r["hardware"],
            str(r["chips"]),
            _shape(r),
            fmt_money(r["usd_per_hour"]),
            ttft,
            tpot,
            "yes" if r["meets_slo"] else "no",
        )
        for r, ttft, tpot in zip(cands, ttfts, tpots, strict=True)
    ]
    if rows:
        print_table(
            "fleets simulated: the frontier of cost against TTFT and TPOT",
            (
                "hardware",
                "chips",
                "instances",
                "$/hour",
                f"TTFT p90 ({ttft_unit})",
                f"TPOT p99 ({tpot_unit})",
                "meets",
            ),
            rows,
        )
    s = res.searched
    print(
        f"searched {s['instance_shapes']} instance shapes ({s['within_bounds']} within the "
        f"bounds), {s['pruned_by_bound']} pruned by their cost bound, "
        f"{s['simulations']} simulations, {fmt_time(s['seconds'])}"
    )
    return 0


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    from ..plan import DISAGG_CHOICES
    from ..workload import LENGTH_DISTS

    p = sub.add_parser(
        "plan",
        help="the cheapest fleet (chips, split, replicas, disaggregation) meeting TTFT/TPOT "
        "targets at a request rate",
        description="Search hardware × chips per instance × split × replicas, aggregated or "
        "with prefill and decode on separate pools, for the cheapest fleet whose simulated "
        "TTFT p90 and TPOT p99 meet the targets at the rate. Bounds from the ideal engine "
        "prune the search before anything is simulated.",
    )
    p.add_argument("--model", required=True, help=MODEL_HELP)
    p.add_argument(
        "--hardware", required=True, help="catalog ids, comma-separated (e.g. h100-sxm,mi300x)"
    )
    p.add_argument("--rate", type=positive_float, required=True, help="requests per second")
    p.add_argument(
        "--input-len",
        type=positive_int,
        required=True,
        metavar="TOKENS",
        help=f"prompt tokens per request, the mean ({SIZES})",
    )
    p.add_argument(
        "--output-len",
        type=positive_int,
        required=True,
        metavar="TOKENS",
        help="output tokens per request, the mean",
    )
    p.add_argument(
        "--ttft-p90-ms", type=positive_float, required=True, help="target TTFT, 90th pct, ms"
    )
    p.add_argument(
        "--tpot-p99-ms", type=positive_float, required=True, help="target TPOT, 99th pct, ms"
    )
    p.add_argument(
        "--max-chips",
        type=positive_int,
        default=64,
        help="most chips the whole fleet may use (default 64)",
    )
    p.add_argument(
        "--disagg",
        default="auto",
        choices=DISAGG_CHOICES,
        help="prefill and decode on separate pools: auto (try both, default), yes, no",
    )
    p.add_argument("--engine", default="calibrated", help=ENGINE_HELP)
    p.add_argument(
        "--weight-dtype",
        default="bf16",
        help="weights' data type: bf16, fp8, fp4, int8, int4, ... (default bf16)",
    )
    p.add_argument(
        "--kv-dtype", default="bf16", help="KV cache data type: bf16, fp8, ... (default bf16)"
    )
    p.add_argument(
        "--length-dist",
        default="fixed",
        choices=LENGTH_DISTS,
        help="request lengths: fixed (default), normal, lognormal or sharegpt-like",
    )
    p.add_argument(
        "--requests",
        type=positive_int,
        default=2000,
        help="requests each simulation serves, on each of three seeded draws (default 2000)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--max-seqs", type=positive_int, default=256, help="sequences per instance (default 256)"
    )
    p.add_argument(
        "--max-batched-tokens",
        type=positive_int,
        default=8192,
        help="tokens per step per instance (default 8192)",
    )
    json_flag(p)
    p.set_defaults(func=cmd_plan)
