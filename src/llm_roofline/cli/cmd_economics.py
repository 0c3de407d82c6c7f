"""Verbs `pricing`, `cache-tiers` and `balance`: prices read backwards, cache tiers,
the training balance.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from llm_roofline._core import units
from llm_roofline.cli._common import (
    Parser,
    chip_from_args,
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
    unpriced_note,
    written_out,
)


def cmd_pricing(args: argparse.Namespace) -> int:
    import numpy as np

    from llm_roofline._core.errors import InputError
    from llm_roofline.economics.pricing import (
        catalog_kv_vs_price_step,
        cost_floor,
        cost_vs_context,
        decode_to_prefill_mfu,
        kv_bytes_from_price_step,
        price_step_active_params,
    )
    from llm_roofline.hardware.catalog import get_hardware
    from llm_roofline.model.checkpoints import get_model

    out: dict[str, Any] = {
        "input_price": args.input_price,
        "output_price": args.output_price,
        "decode_to_prefill_mfu": decode_to_prefill_mfu(args.input_price, args.output_price),
    }
    lines = [
        f"output/input price ratio {fmt_sig(args.output_price / args.input_price)}: if prices "
        f"track cost, decode runs at {fmt_sig(out['decode_to_prefill_mfu'])} of prefill's "
        "utilisation"
    ]
    step = args.long_context_threshold
    if step is not None:
        if args.active_params is None and args.model is None:
            raise InputError(
                "a price step needs --active-params (the model's active parameters) or --model",
                field="active_params",
            )
        if args.ratio is not None:
            ratio, why = args.ratio, "given"
        else:
            chip = get_hardware(args.hardware)
            ratio, why = chip.ops_per_byte, f"{chip.id} bf16 FLOP/s ÷ bytes/s"
        act = price_step_active_params(args.active_params, args.model)
        n_active = act["active_params"]
        kv = kv_bytes_from_price_step(step, n_active, ratio)
        out.update(
            long_context_threshold=step,
            flops_per_byte=ratio,
            active_params=n_active,
            active_params_source=act["source"],
            implied_kv_bytes_per_token=kv,
        )
        whose = f" ({args.model}'s, multiplied per token)" if act["source"] == "model" else ""
        lines.append(
            f"a price step at {step:,.0f} tokens, {fmt_count(n_active)} active parameters"
            f"{whose}, {ratio:,.0f} FLOP/B ({why}): KV ≈ {kv:,.0f} bytes per token"
        )
        if act["agrees"] is False:
            note = (
                f"--active-params ({fmt_count(n_active)}) differs from {args.model}'s "
                f"{fmt_count(act['model_active_params'])} parameters multiplied per token: "
                "using --active-params"
            )
            out["active_params_note"] = note
            lines.append(f"note: {note}")
        if args.long_output_price and args.long_input_price:
            out["long_output_to_input"] = args.long_output_price / args.long_input_price
        # beside it, each catalog model's real KV bytes per token (bf16 cache) against the
        # figure the same step implies for that model's own active parameters
        table = catalog_kv_vs_price_step(step, ratio, kv_dtype="bf16")
        out["catalog_kv_bytes_per_token_bf16"] = {
            r["model"]: r["kv_bytes_per_token"] for r in table
        }
        out["catalog_vs_price_step"] = table
        rows = [
            [
                r["model"],
                f"{r['active_params'] / units.giga:.1f}B",
                f"{r['kv_bytes_per_token']:,.0f}",
                f"{r['implied_kv_bytes_per_token']:,.0f}",
                f"{r['ratio']:,.0f}×",
            ]
            for r in table
        ]
    if args.model is not None and not chip_from_args(args).price_usd_per_s > 0:
        out["cost_floor"] = None
        lines.append(f"{args.model} on {args.chips} × {args.hardware}: {unpriced_note(args)}")
    elif args.model is not None:
        dep = deployment_from_args(args)
        floor = cost_floor(dep, context_len=args.context)
        out["cost_floor"] = floor
        out["deployment"] = dep.as_dict()
        lines.append(
            f"{args.model} on {args.chips} × {dep.chip.id} ({dep.split_text()}) at context "
            f"{args.context:,} (engine {dep.engine}, batch {floor['batch']:.0f}): "
            f"{fmt_money(floor['usd_per_million_input_tokens'])} per M input, "
            f"{fmt_money(floor['usd_per_million_output_tokens'])} per M output "
            f"(priced ${fmt_sig(args.input_price, 6)} and ${fmt_sig(args.output_price, 6)})"
        )
        if args.out:
            contexts = np.unique(np.geomspace(256, 1_048_576, 60).round())
            curve = cost_vs_context(dep, contexts)
            price = None
            if step is not None and args.long_output_price:
                price = (step, args.output_price, args.long_output_price)
            stem = Path(args.out) / f"{args.model}_cost_vs_context"
            from llm_roofline.plots import write_cost_vs_context_figure

            paths = write_cost_vs_context_figure(
                curve,
                f"{args.model} on {args.chips} × {dep.chip.id}, engine {dep.engine}",
                stem,
                price,
                max_context=get_model(args.model).max_context,
            )
            lines.append("wrote " + ", ".join(str(p) for p in paths))
    if args.json:
        dump_json(out)
        return 0
    for line in lines:
        print(line)
    if step is not None:
        print(
            "catalog models' real KV cache (bf16) against the figure the step implies for "
            "each model's own active parameters:"
        )
        print_table(
            "", ["model", "active", "KV B/token", "implied B/token", "real ÷ implied"], rows
        )
    return 0


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
        for p in write_cache_tiers_figure(res, title, stem):
            print(f"wrote {p}", file=sys.stderr)
    if args.json:
        res = {
            **res,
            "hold_s": [float(h) for h in res["hold_s"]],
            "tiers": {
                k: {**v, "usd": [float(x) for x in v["usd"]]} for k, v in res["tiers"].items()
            },
        }
        dump_json(res)
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
    picks = [
        (h, c)
        for i, (h, c) in enumerate(zip(res["hold_s"], res["cheapest"], strict=True))
        if i == 0 or c != res["cheapest"][i - 1]
    ]
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
    usd = "USD per million tokens"
    pc = sub.add_parser(
        "pricing",
        help="what API prices imply about the hardware and model",
        description="Read an API's prices backwards. If prices track cost, output price ÷ "
        "input price says how far below prefill's utilisation decode runs; a long-context "
        "price step (--long-context-threshold) gives the KV cache bytes per token it implies, "
        "beside every catalog model's real figure. With --model (and the deployment flags) it "
        "adds what that model costs per million input and output tokens on the deployment, at "
        "the catalog's price per chip-hour (or --price). docs/economics.md.",
        epilog=examples(
            "llm-roofline pricing --input-price 3 --output-price 15",
            "llm-roofline pricing --input-price 3 --output-price 15 "
            "--long-context-threshold 200000 --active-params 1e11",
            "llm-roofline pricing --input-price 3 --output-price 15 --model llama-3.1-70b "
            "--hardware h100-sxm --chips 8",
        ),
    )
    pc.add_argument(
        "--input-price", type=positive_float, required=True, help=f"{usd} of input (required)"
    )
    pc.add_argument(
        "--output-price", type=positive_float, required=True, help=f"{usd} of output (required)"
    )
    pc.add_argument(
        "--long-context-threshold",
        type=written_out("tokens"),
        metavar="TOKENS",
        help="the context at which a price step starts, tokens, written out: a provider's "
        "'200k' is 200000, not a binary size (default: no step)",
    )
    pc.add_argument(
        "--long-input-price",
        type=positive_float,
        help=f"{usd} of input past the threshold (default: none)",
    )
    pc.add_argument(
        "--long-output-price",
        type=positive_float,
        help=f"{usd} of output past the threshold, drawn with --out (default: none)",
    )
    pc.add_argument(
        "--active-params",
        type=positive_float,
        help="the model's active parameters, e.g. 1e11 (default: --model's, multiplied per token)",
    )
    pc.add_argument(
        "--ratio",
        type=positive_float,
        help="the hardware's FLOP/s ÷ bytes/s (default: --hardware's own in bf16)",
    )
    system_flags(pc, required=False)  # --model: a deployment for the cost and the figure
    pc.set_defaults(hardware="h100-sxm")
    hw = next(a for a in pc._actions if a.dest == "hardware")
    hw.help = f"{hw.help} (default h100-sxm)"
    context_flag(pc)
    pc.add_argument(
        "--out",
        metavar="DIR",
        help="folder for the cost-vs-context figure (needs --model; default: none)",
    )
    json_flag(pc)
    pc.set_defaults(func=cmd_pricing)

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
