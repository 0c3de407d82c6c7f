"""Verbs `pricing`, `cache-tiers` and `balance`: prices read backwards (`cmd_pricing.py`),
cache tiers, the training balance.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from llm_roofline._core import units
from llm_roofline.cli._common import (
    Parser,
    context_flag,
    deployment_from_args,
    dump_json,
    examples,
    float_list,
    fmt_bytes,
    fmt_count,
    fmt_money,
    fmt_sig,
    fmt_time,
    json_flag,
    positive_float,
    print_table,
    system_flags,
    written_out,
)
from llm_roofline.cli.cmd_pricing import add_pricing_parser


def cmd_cache_tiers(args: argparse.Namespace) -> int:
    import numpy as np

    from llm_roofline.economics.pricing import cache_costs

    hold = args.hold or [float(x) for x in np.geomspace(1, 30 * units.day, 60)]
    dep = deployment_from_args(args)
    res = cache_costs(dep, context_len=args.context, hold_s=hold)
    if res["warning"]:
        print(f"llm-roofline: warning: {res['warning']}", file=sys.stderr)
    if args.out:
        from llm_roofline.plots import write_cache_tiers_figure

        stem = Path(args.out) / f"{args.model}_{args.hardware}_cache_tiers"
        title = f"{args.model}, {args.context:,}-token context, on {args.chips} × {args.hardware}"
        for p in write_cache_tiers_figure(res.as_dict(), title, stem):
            print(f"wrote {p}", file=sys.stderr)
    if args.json:
        d = res.as_dict()
        d["hold_s"] = [float(h) for h in res.hold_s]
        d["tiers"] = {k: {**v, "usd": [float(x) for x in v["usd"]]} for k, v in d["tiers"].items()}
        dump_json(d)
        return 0
    print(
        f"KV cache of one {args.context:,}-token sequence: {fmt_bytes(res['kv_bytes'])}; "
        f"recomputing it (prefill, engine {res['engine']}) takes {fmt_time(res['recompute_s'])}, "
        f"{fmt_money(res['recompute_usd'])}"
    )
    # each cell in its own unit: the tiers' times span ten orders of magnitude
    print_table(
        "",
        ["tier", "drain time", "read at", "bring back"],
        [
            [
                k,
                fmt_time(v["drain_time_s"]),
                f"{v['bandwidth'] / units.GB:,.6g} GB/s"
                + (f" ({v['devices']} chips)" if v["devices"] > 1 else ""),
                fmt_time(v["fetch_s"]),
            ]
            for k, v in res["tiers"].items()
        ],
    )
    picks = res.cheapest_from()
    print("cheapest: " + "; ".join(f"from {fmt_time(h)}: {c}" for h, c in picks))
    return 0


def cmd_balance(args: argparse.Namespace) -> int:
    from llm_roofline.economics.pricing import balance

    r = balance(
        args.tokens_per_s,
        args.days,
        args.active_params,
        pretrain_mfu=args.pretrain_mfu,
        inference_mfu=args.inference_mfu,
        rl_flops_per_token=args.rl_flops_per_token,
        rl_mfu=args.rl_mfu,
    )
    if args.json:
        dump_json(dict(r.__dict__))
        return 0
    print(f"inference tokens: {fmt_count(r.inference_tokens)}")
    print(f"pre-training tokens at equal cost: {fmt_count(r.pretrain_tokens)}")
    print(f"RL tokens at equal cost: {fmt_count(r.rl_tokens)}")
    print(
        f"Chinchilla (20 per parameter): {fmt_count(r.chinchilla_tokens)} tokens; "
        f"over-training factor {fmt_sig(r.overtraining)}"
    )
    return 0


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    add_pricing_parser(sub)
    _cache_tiers_parser(sub)
    _balance_parser(sub)


def _cache_tiers_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    ct = sub.add_parser(
        "cache-tiers",
        help="where to keep a KV cache, by hold time",
        description="Where to keep one sequence's KV cache while its user is away: in HBM, "
        "DRAM, flash or on disk, against recomputing it (one prefill) when they return. Each "
        "tier's drain time, read bandwidth and time to bring the cache back, and the cheapest "
        "tier for each hold time. docs/economics.md.",
        epilog=examples(
            "llm-roofline cache-tiers --model llama-3.1-70b --hardware h100-sxm --chips 8 "
            "--context 32k --hold 60,3600"
        ),
    )
    system_flags(ct)
    context_flag(ct, default=None, what="tokens of the sequence whose KV cache is kept")
    ct.add_argument(
        "--hold",
        type=float_list,
        metavar="SECONDS",
        help="how long the cache is kept, seconds, e.g. 1,60,3600 (default: 60 times from 1 s "
        "to 30 days)",
    )
    ct.add_argument("--out", metavar="DIR", help="folder for the figure (default: none)")
    json_flag(ct)
    ct.set_defaults(func=cmd_cache_tiers)


def _balance_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    bl = sub.add_parser(
        "balance",
        help="token budgets where pre-training, RL and inference cost alike",
        description="How many tokens of pre-training, and of RL, cost as much compute as "
        "serving --tokens-per-s for --days (each at its own share of peak FLOP/s), and how far "
        "that pre-training budget over-trains the model against Chinchilla's 20 tokens per "
        "parameter. docs/economics.md.",
        epilog=examples(
            "llm-roofline balance --tokens-per-s 1e6 --days 365 --active-params 3.7e10"
        ),
    )
    bl.add_argument(
        "--tokens-per-s",
        type=written_out("tokens/s"),
        required=True,
        help="inference tokens served per second (required)",
    )
    bl.add_argument(
        "--days", type=positive_float, required=True, help="days of serving at that rate (required)"
    )
    bl.add_argument(
        "--active-params",
        type=positive_float,
        required=True,
        help="the model's active parameters, e.g. 3.7e10 (required)",
    )
    bl.add_argument(
        "--pretrain-mfu",
        type=positive_float,
        default=0.4,
        help="pre-training's share of peak FLOP/s (default 0.4)",
    )
    bl.add_argument(
        "--inference-mfu",
        type=positive_float,
        help="inference's share of peak FLOP/s (default: a third of pre-training's)",
    )
    bl.add_argument(
        "--rl-flops-per-token",
        type=positive_float,
        default=3.0,
        help="RL FLOPs per token, × the active parameters, 2 to 6 (default 3.0)",
    )
    bl.add_argument(
        "--rl-mfu", type=positive_float, help="RL's share of peak FLOP/s (default: inference's)"
    )
    json_flag(bl)
    bl.set_defaults(func=cmd_balance)
