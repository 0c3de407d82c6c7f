"""Verbs `sensitivity` (what matters most: each chip figure's effect on speed and cost, and the
cheapest chip of the catalog) and `fast-mode` (what tokens F times faster cost).
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from llm_roofline._core import units
from llm_roofline.cli._common import (
    Parser,
    context_flag,
    deployment_from_args,
    dump_json,
    examples,
    fmt_money,
    fmt_num,
    json_flag,
    positive_float,
    positive_int,
    print_table,
    system_flags,
    time_cells,
)
from llm_roofline.whatif.limits import MAX_CHIPS, MAX_STEP, MIN_STEP


def step_pct(text: str) -> float:
    """--step-pct: a percentage from 0.1 to 100 (below 0.1% a step time's change is lost in
    rounding)."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and MIN_STEP * 100 <= v <= MAX_STEP * 100):
        raise argparse.ArgumentTypeError(
            f"step_pct must be from {MIN_STEP * 100:g} to {MAX_STEP * 100:g} (percent), "
            f"got {text!r}"
        )
    return v


def max_chips(text: str) -> int:
    """--max-chips: a positive integer, at most MAX_CHIPS (a limit on the search)."""
    n = positive_int(text)
    if n > MAX_CHIPS:
        raise argparse.ArgumentTypeError(
            f"max_chips must be at most {MAX_CHIPS:,} (a limit on the search), got {text!r}"
        )
    return n


def _pct(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "0%" if abs(x) < 5e-4 else f"{x:+.1%}"


def _elasticity(x: float | None) -> str:
    return "n/a" if x is None else ("0" if abs(x) < 5e-4 else f"{x:+.2f}")


def _head(dep: Any, context: int) -> str:
    return (
        f"{dep.model_id or dep.spec.name} on {dep.chips} × {dep.chip.id} ({dep.split_text()}), "
        f"context {context:,}, {dep.engine} engine"
    )


def cmd_sensitivity(args: argparse.Namespace) -> int:
    from llm_roofline.whatif.chip_ranking import across_catalog
    from llm_roofline.whatif.sensitivity import METRICS, sensitivity

    dep = deployment_from_args(args)
    target = args.tpot_ms * units.ms if args.tpot_ms else None
    step = args.step_pct / 100.0
    res = sensitivity(dep, context_len=args.context, batch=args.batch, tpot_s=target, step=step)
    ranking = None
    if args.across_catalog:
        ranking = across_catalog(
            dep, context_len=args.context, max_chips=args.max_chips, tpot_s=target, step=step
        )
    if args.json:
        out: dict[str, Any] = {"sensitivity": res.as_dict()}
        if ranking is not None:
            out["catalog"] = ranking.as_dict()
        dump_json(out)
        return 0
    for p in res.policies:
        if p.base is None:
            print(f"at {p.description}: {p.note}")
            continue
        b = p.base
        usd = fmt_money(b.usd_per_million_tokens)
        title = (
            f"+{args.step_pct:g}% of each chip figure, at {p.description}: batch {b.batch:,} "
            f"({fmt_num(b.tokens_per_s_per_user)} tokens/s per user, "
            f"{fmt_num(b.tokens_per_s)} tokens/s, {usd} per million tokens, "
            f"ideal step {b.bound}-bound"
            f"{'' if b.fits else ', does not fit'}). {_head(dep, args.context)}"
        )
        headers = ["figure", "batch"]
        for label in METRICS.values():
            headers += [label, "elasticity"]
        rows = []
        for e in p.effects:
            row = [e.label, f"{e.point.batch:,}" if e.point is not None else "none"]
            for m in METRICS:
                row += [_pct(e.change[m]), _elasticity(e.elasticity[m])]
            rows.append(row)
        print_table(title, headers, rows)
        print()
    for line in res.sentences():
        print(line)
    if ranking is not None:
        print()
        _print_ranking(ranking, args.step_pct)
    return 0


def _print_ranking(r: Any, step: float) -> None:
    served = [c for c in r.rows if c.usd_per_million_tokens is not None]
    unit, cells = time_cells([c.tpot_s for c in served])
    within = (
        f" within {fmt_num(r.tpot_target_s / units.ms)} ms per output token"
        if r.tpot_target_s
        else ""
    )
    title = (
        f"the cheapest way each chip serves {r.model} (context {r.context_len:,}, up to "
        f"{r.max_chips} chips{within}, {r.engine} engine); bound = the figure whose "
        f"+{step:g}% cuts $ per token most"
    )
    headers = ["hardware", "$/chip-h", "chips", "tp·pp·ep", "batch", f"{unit}/token"]
    headers += ["tok/s/user", "$/M tokens", "bound", f"$/M at +{step:g}% of it"]
    rows = [
        [
            c.hardware,
            fmt_money(c.price_usd_per_hour),
            str(c.chips),
            f"{c.tp}·{c.pp}·{c.ep}",
            f"{c.batch:,}",
            cell,
            fmt_num(c.tokens_per_s_per_user or 0.0),
            fmt_money(c.usd_per_million_tokens),
            c.bound or "none",
            _pct(c.bound_cost_change),
        ]
        for c, cell in zip(served, cells, strict=True)
    ]
    if rows:
        print_table(title, headers, rows)
    else:
        print(title + ": no chip serves it")
    if r.cheapest is not None:
        top = served[0]
        print(f"cheapest: {top.hardware}: {top.reason}")
    for c in r.rows:
        if c.usd_per_million_tokens is None:
            print(f"{c.hardware}: {c.reason}")


def cmd_fast_mode(args: argparse.Namespace) -> int:
    from llm_roofline.whatif.fast_mode import OPTIONS, fast_mode

    dep = deployment_from_args(args)
    res = fast_mode(
        dep,
        context_len=args.context,
        batch=args.batch,
        speedup=args.speedup,
        gamma=args.gamma,
        acceptance=args.acceptance,
        draft=args.draft,
        max_chips=args.max_chips,
    )
    if args.json:
        dump_json(res.as_dict())
        return 0
    settings: list[tuple[str, Any, bool]] = [("base (no speculation)", res.base, True)]
    settings += [(o.label, o.setting, o.reaches) for o in res.options]
    unit, cells = time_cells([s.tpot_s if s is not None else None for _, s, _ in settings])
    headers = ["option", "setting", f"{unit}/token", "tok/s/user", "speed-up"]
    headers += ["$/M tokens", "price", f"reaches ×{args.speedup:g}"]
    rows = []
    for (label, s, reaches), cell in zip(settings, cells, strict=True):
        if s is None:
            rows.append([label, "none", cell, "—", "—", "—", "—", "no"])
            continue
        rows.append(
            [
                label,
                s.text(),
                cell,
                fmt_num(s.tokens_per_s_per_user),
                f"×{units.sig(s.speedup)}",
                fmt_money(s.usd_per_million_tokens),
                f"×{units.sig(s.price_multiple)}",
                "—" if s.option == "base" else ("yes" if reaches else "no"),
            ]
        )
    print_table(
        f"×{args.speedup:g} tokens/s per user: {_head(dep, args.context)}, base batch "
        f"{args.batch:,} decoding without speculation; more chips tried up to {res.max_chips}",
        headers,
        rows,
    )
    print(res.message)
    for o in res.options:
        if o.note:
            print(f"{o.label}: {o.note}")
    for name, why in res.not_tried.items():
        print(f"{OPTIONS[name]}: not tried: {why}")
    return 0


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    _add_sensitivity_parser(sub)
    _add_fast_mode_parser(sub)


def _add_sensitivity_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    s = sub.add_parser(
        "sensitivity",
        help="what matters most: how +10%% of each chip figure moves speed and cost",
        description="Raise each chip figure (dense FLOP/s, memory bandwidth, memory capacity, "
        "scale-up bandwidth, scale-out bandwidth, price) by --step-pct on a copy of the chip "
        "and rerun the engine: "
        "the change of tokens/s per user, throughput and $ per million tokens, at the batch "
        "given, at the largest batch that fits and (with --tpot-ms) at the largest within a "
        "target. docs/whatif.md.",
    )
    system_flags(s)
    s.add_argument(
        "--batch", type=positive_int, required=True, help="sequences decoding at once (required)"
    )
    context_flag(s)
    s.add_argument(
        "--tpot-ms",
        type=positive_float,
        help="a target time per output token, ms: adds the policy 'largest batch within it' "
        "and bounds --across-catalog (default: none)",
    )
    s.add_argument(
        "--step-pct",
        type=step_pct,
        default=10.0,
        help="how much each chip figure is raised, percent (default 10; from 0.1 to 100)",
    )
    s.add_argument(
        "--across-catalog",
        action="store_true",
        help="also rank every catalog chip by its cheapest $ per token for this model and "
        "name what bounds each (default: off)",
    )
    s.add_argument(
        "--max-chips",
        type=max_chips,
        default=8,
        help="with --across-catalog: the most chips each chip may use, chips (default 8; at "
        "most 1,024)",
    )
    json_flag(s)
    s.set_defaults(func=cmd_sensitivity)


def _add_fast_mode_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    f = sub.add_parser(
        "fast-mode",
        help="what tokens F× faster per user cost: a smaller batch, more chips or speculation",
        description="Fast modes sell tokens about 2.5× faster for about 6× the price: why? "
        "This verb answers it for a deployment (the base: --batch, decoding without "
        "speculation) and a speed-up factor F (--speedup): the cheapest way to raise tokens/s "
        "per user F-fold, of a smaller batch, more chips (every split up to --max-chips) and "
        "speculative decoding, with the price multiple each implies ($ per million tokens ÷ "
        "the base's); out of reach, what stops it (the latency floor, or batch 1's time). "
        "Needs a price: --price 0 is refused. docs/whatif.md.",
        epilog=examples(
            "llm-roofline fast-mode --model llama-3.1-8b --hardware h100-sxm --batch 64 "
            "--speedup 2.5"
        ),
    )
    system_flags(f)
    f.add_argument(
        "--batch",
        type=positive_int,
        required=True,
        help="the base batch: sequences decoding at once (required)",
    )
    context_flag(f)
    f.add_argument(
        "--speedup",
        type=positive_float,
        required=True,
        help="the factor F on tokens/s per user, at least 1, e.g. 2.5 (required)",
    )
    f.add_argument(
        "--gamma",
        type=positive_int,
        default=1,
        help="speculation: tokens drafted per verification (default 1, DeepSeek-V3's MTP depth)",
    )
    f.add_argument(
        "--acceptance",
        type=float,
        default=0.85,
        help="speculation: the probability each drafted token is accepted, 0 to 1 (default "
        "0.85, DeepSeek-V3's MTP figure)",
    )
    f.add_argument(
        "--draft",
        default="auto",
        help="speculation's draft: auto (the model's own multi-token-prediction layer when its "
        "config has one, as DeepSeek-V3's; else speculation is not tried), mtp (timed as if "
        "it had one), none (a free draft: the most speculation can give) or a draft model: a "
        "catalog id / config.json (default auto)",
    )
    f.add_argument(
        "--max-chips",
        type=max_chips,
        help="the most chips the 'more chips' option tries, chips (default: twice --chips, "
        "at least the chip's scale-up domain; at most 1,024)",
    )
    json_flag(f)
    f.set_defaults(func=cmd_fast_mode)
