"""Verb `optimize`: search chips × split × batch for the cheapest serving."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_roofline._core import units
from llm_roofline.cli._common import (
    Parser,
    context_flag,
    deployment_from_args,
    dump_json,
    examples,
    fmt_money,
    fmt_time,
    json_flag,
    plural,
    positive_float,
    positive_int,
    print_table,
    progress_bar,
    system_flags,
    time_cells,
)

if TYPE_CHECKING:
    from llm_roofline.hardware.chip import Chip
    from llm_roofline.planning.optimize import SearchResult


def cmd_optimize(args: argparse.Namespace) -> int:
    from llm_roofline.planning.optimize import search

    dep = deployment_from_args(args, 1)  # model, chip, types, engine; the search does the rest
    chip = dep.chip
    _require_price(chip, args.price)
    with progress_bar("searching chips × split × batch") as progress:
        res = search(
            dep,
            args.max_chips,
            context_len=args.context,
            tpot_s=args.tpot_ms * units.ms if args.tpot_ms else None,
            ttft_s=args.ttft_ms * units.ms if args.ttft_ms else None,
            progress=progress,
        )
    front = [res.row(int(i)) for i in res.frontier]
    best = res.row(res.best) if res.best is not None else None
    if args.json:
        dump_json(
            {
                "engine": res.engine,
                "configs_tried": res.configs_tried,
                "points": int(res.points["batch"].size),
                "targets": res.targets,
                "best": best,
                "frontier": front,
            }
        )
    else:
        _print_frontier(res, front, args, chip.id)
        _print_best(best)
    if args.out:
        _write_frontier(res, args, chip)
    return 0


def _require_price(chip: Chip, given: float | None) -> None:
    """Refuse a chip with no price (`given`: --price), naming the flag: the search ranks by $
    per token, and its own error cannot name the flag."""
    if not chip.price_usd_per_s > 0:
        from llm_roofline._core.errors import InputError

        why = "--price 0 is hardware you own" if given == 0 else "none in the catalog"
        raise InputError(
            f"{chip.id} has no price ({why}); optimize ranks by $ per token: give --price USD "
            "per chip-hour, e.g. --price 2",
            field="price",
        )


def _print_frontier(
    res: SearchResult, front: list[dict[str, Any]], args: argparse.Namespace, chip_id: str
) -> None:
    """The frontier's table: one line a configuration, tokens/s per user against $."""
    tpot_unit, tpots = time_cells([r["tpot_s"] for r in front])
    ttft_unit, ttfts = time_cells([r["ttft_s"] for r in front])
    headers = (
        "chips",
        "tp",
        "pp",
        "ep",
        "dp",
        "batch",
        f"TPOT ({tpot_unit})",
        f"TTFT ({ttft_unit})",
        "tok/s/user",
        "tok/s/chip",
        "$/M tokens",
    )
    rows = [
        (
            str(r["chips"]),
            str(r["tp"]),
            str(r["pp"]),
            str(r["ep"]),
            str(r["dp"]),
            f"{r['batch']:,}",
            tpot,
            ttft,
            f"{r['tokens_per_s_per_user']:,.1f}",
            f"{r['tokens_per_s_per_chip']:,.0f}",
            fmt_money(r["usd_per_million_tokens"]),
        )
        for r, tpot, ttft in zip(front, tpots, ttfts, strict=True)
    ]
    print_table(
        f"frontier ({res.engine} engine): {len(front)} of {res.points['batch'].size:,} "
        f"configurations "
        f"({res.configs_tried} splits) of {args.model} on up to {args.max_chips} × "
        f"{chip_id}, context {args.context:,}",
        headers,
        rows,
    )


def _print_best(best: dict[str, Any] | None) -> None:
    """The line below the frontier: its cheapest point meeting the targets, or that none does."""
    if best is None:
        print("no configuration meets the targets")
    else:
        print(
            f"cheapest meeting the targets: {plural(best['chips'], 'chip')}, "
            f"tp {best['tp']}, pp {best['pp']}, ep {best['ep']}, dp {best['dp']}, "
            f"batch {best['batch']:,}: "
            f"TPOT {fmt_time(best['tpot_s'])}, TTFT {fmt_time(best['ttft_s'])}, "
            f"{fmt_money(best['usd_per_million_tokens'])} per million tokens"
        )


def _write_frontier(res: SearchResult, args: argparse.Namespace, chip: Chip) -> None:
    """The frontier figure (PNG and SVG) into --out."""
    from llm_roofline.plots import write_frontier_figure

    stem = Path(args.out) / f"{Path(str(args.model)).name}_{chip.id}_frontier"
    write_frontier_figure(
        res,
        f"{args.model} on up to {args.max_chips} × {chip.name}, context {args.context:,}",
        stem,
    )
    print(f"wrote the frontier figure to {stem}.png and .svg", file=sys.stderr)


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    o = sub.add_parser(
        "optimize",
        help="search chips × split × batch for the cheapest serving",
        description="Search chip counts (powers of two up to --max-chips, and it), every split "
        "(tp, pp, ep) that holds the model and every batch that fits, under the engine; print "
        "the frontier of tokens/s per user against $ per million tokens and the cheapest point "
        "meeting the targets. Ranks by cost: the chip needs a price (the catalog's per "
        "chip-hour, or --price).",
        epilog=examples(
            "llm-roofline optimize --model llama-3.1-70b --hardware h100-sxm --max-chips 16 "
            "--tpot-ms 30"
        ),
    )
    system_flags(o, split=False, chips=False)  # the search tries every chip count and split
    o.add_argument(
        "--max-chips",
        type=positive_int,
        required=True,
        help="the largest chip count to try, chips (required)",
    )
    o.add_argument(
        "--tpot-ms",
        type=positive_float,
        help="target time per output token, ms (default: no target)",
    )
    o.add_argument(
        "--ttft-ms",
        type=positive_float,
        help="target time to first token (a prompt of --context tokens), ms (default: no target)",
    )
    context_flag(o)
    o.add_argument(
        "--out",
        metavar="DIR",
        help="write the frontier figure (PNG and SVG) into this folder (default: none)",
    )
    json_flag(o)
    o.set_defaults(func=cmd_optimize)
