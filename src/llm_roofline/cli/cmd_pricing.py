"""Verb `pricing`: an API's prices read backwards (the output/input ratio, a long-context price
step, a cache hit's price), and with --model what the deployment's tokens cost beside them.
"""

from __future__ import annotations

import argparse
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


def _price_step(args: argparse.Namespace, out: dict[str, Any], lines: list[str]) -> list[list[str]]:
    """The price step read (--long-context-threshold, `economics.read_price_step`): its figures
    into `out`, its line into `lines`; the catalog's models against it, as table rows."""
    from llm_roofline._core.errors import InputError
    from llm_roofline.economics.pricing import read_price_step
    from llm_roofline.hardware.catalog import get_hardware

    if args.active_params is None and args.model is None:
        raise InputError(
            "a price step needs --active-params (the model's active parameters) or --model",
            field="active_params",
        )
    st = read_price_step(
        args.long_context_threshold,
        ratio=args.ratio,
        chip=get_hardware(args.hardware) if args.ratio is None else None,
        active_params=args.active_params,
        model=args.model,
        long_input_price=args.long_input_price,
        long_output_price=args.long_output_price,
    )
    n_active, kv = st.active_params, st.implied_kv_bytes_per_token
    out.update(
        long_context_threshold=st.long_context_threshold,
        flops_per_byte=st.flops_per_byte,
        active_params=n_active,
        active_params_source=st.active_params_source,
        implied_kv_bytes_per_token=kv,
    )
    whose = f" ({args.model}'s, multiplied per token)" if st.active_params_source == "model" else ""
    lines.append(
        f"a price step at {st.long_context_threshold:,.0f} tokens, {fmt_count(n_active)} active "
        f"parameters{whose}, {st.flops_per_byte:,.0f} FLOP/B ({st.flops_per_byte_source}): "
        f"KV ≈ {kv:,.0f} bytes per token"
    )
    if st.active_params_note is not None:  # given and the model's disagree
        note = (
            f"--active-params ({fmt_count(n_active)}) differs from {args.model}'s "
            f"{fmt_count(st.model_active_params or 0.0)} parameters multiplied per token: "
            "using --active-params"
        )
        out["active_params_note"] = note
        lines.append(f"note: {note}")
    if st.long_output_to_input is not None:
        out["long_output_to_input"] = st.long_output_to_input
    # beside it, each catalog model's real KV bytes per token (bf16 cache) against the
    # figure the same step implies for that model's own active parameters
    table = st.catalog_vs_price_step
    out["catalog_kv_bytes_per_token_bf16"] = {r["model"]: r["kv_bytes_per_token"] for r in table}
    out["catalog_vs_price_step"] = table
    return _catalog_rows(table)


def _catalog_rows(table: list[dict[str, Any]]) -> list[list[str]]:
    """The catalog's models against the price step, as table rows."""
    return [
        [
            r["model"],
            f"{r['active_params'] / units.giga:.1f}B",
            f"{r['kv_bytes_per_token']:,.0f}",
            f"{r['implied_kv_bytes_per_token']:,.0f}",
            f"{r['ratio']:,.0f}×",
        ]
        for r in table
    ]


def _cost_floor(args: argparse.Namespace, dep: Any, out: dict[str, Any], lines: list[str]) -> None:
    """The deployment's cost floor at --context (into `out` and `lines`) and, with --out, the
    cost-vs-context figure."""
    import numpy as np

    from llm_roofline.economics.pricing import cost_floor, cost_vs_context
    from llm_roofline.model.checkpoints import get_model

    floor = cost_floor(dep, context_len=args.context)
    out["cost_floor"] = floor.as_dict()
    out["deployment"] = dep.as_dict()
    lines.append(
        f"{args.model} on {args.chips} × {dep.chip.id} ({dep.split_text()}) at context "
        f"{args.context:,} (engine {dep.engine}, batch {floor.batch:.0f}): "
        f"{fmt_money(floor.usd_per_million_input_tokens)} per M input, "
        f"{fmt_money(floor.usd_per_million_output_tokens)} per M output "
        f"(priced ${fmt_sig(args.input_price, 6)} and ${fmt_sig(args.output_price, 6)})"
    )
    if args.out:
        contexts = np.unique(np.geomspace(256, 1_048_576, 60).round())
        curve = cost_vs_context(dep, contexts)
        step = args.long_context_threshold
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


def _cache_hit(args: argparse.Namespace, dep: Any, out: dict[str, Any]) -> list[list[str]]:
    """A cache hit's price (--cache-hit-price) against bringing a prompt of --context tokens
    back from each tier and recomputing it (`economics.cache_hit`, the table of the web's
    pricing view): into `out["cache_hit"]`; its title and table rows, first the title."""
    from llm_roofline.economics.pricing import cache_hit

    hit = cache_hit(
        dep, context_len=args.context, price=args.cache_hit_price, input_price=args.input_price
    )
    out["cache_hit"] = hit.as_dict()
    yes = {True: "yes", False: "no"}
    rows = [
        [tid, fmt_time(t.fetch_s), fmt_money(t.usd_per_million_tokens), yes[t.covered]]
        for tid, t in hit.tiers.items()
    ]
    usd = fmt_money(hit.recompute_usd_per_million_tokens)
    title = (
        f"a cache hit priced {fmt_money(hit.price)} per M tokens ({fmt_sig(hit.to_input)}× "
        f"input): bringing a cached {hit.context_len:,}-token prompt back on this deployment, "
        "held for no time ($ per M tokens):"
    )
    return [[title], *rows, ["recompute (prefill)", "", usd, yes[hit.recompute_covered]]]


def cmd_pricing(args: argparse.Namespace) -> int:
    from llm_roofline._core.errors import InputError
    from llm_roofline.economics.pricing import decode_to_prefill_mfu

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
    hit = args.cache_hit_price
    if hit is not None and args.model is None:
        raise InputError(
            "--cache-hit-price is read against a deployment: give --model (and the deployment "
            "flags)",
            field="cache_hit_price",
        )
    step = args.long_context_threshold
    step_rows = _price_step(args, out, lines) if step is not None else None
    hit_rows = None
    from llm_roofline.engine.cost import is_priced

    if args.model is not None and not is_priced(chip_from_args(args)):
        out["cost_floor"] = None
        lines.append(f"{args.model} on {args.chips} × {args.hardware}: {unpriced_note(args)}")
    elif args.model is not None:
        dep = deployment_from_args(args)
        _cost_floor(args, dep, out, lines)
        hit_rows = _cache_hit(args, dep, out) if hit is not None else None
    if args.json:
        dump_json(out)
        return 0
    _print_pricing(args, lines, step_rows, hit_rows)
    return 0


def _print_pricing(
    args: argparse.Namespace,
    lines: list[str],
    step_rows: list[list[str]] | None,
    hit_rows: list[list[str]] | None,
) -> None:
    for line in lines:
        print(line)
    if step_rows is not None:
        print(
            "catalog models' real KV cache (bf16) against the figure the step implies for "
            "each model's own active parameters:"
        )
        print_table(
            "", ["model", "active", "KV B/token", "implied B/token", "real ÷ implied"], step_rows
        )
    if hit_rows is not None:
        (title,), *rows = hit_rows
        print(title)
        within = f"within the hit price {fmt_money(args.cache_hit_price)}"
        print_table("", ["from", "read time", "$ per M tokens", within], rows)


def add_pricing_parser(sub: argparse._SubParsersAction[Parser]) -> None:
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
    _price_step_flags(pc, usd)
    pc.add_argument(
        "--cache-hit-price",
        type=positive_float,
        help=f"{usd} of input read from the provider's prompt cache: set against what bringing "
        "a --context-token prompt back from each tier costs this deployment (needs --model; "
        "default: none)",
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


def _price_step_flags(pc: argparse.ArgumentParser, usd: str) -> None:
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
