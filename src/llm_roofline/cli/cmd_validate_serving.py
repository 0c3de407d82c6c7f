"""`validate --serving`: the serving simulator against published serving runs (the library's
`validation.serving_fit.validate_serving`; this module only prints it)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from llm_roofline._core.errors import InputError
from llm_roofline.cli._common import dump_json, print_table, progress_bar

FAMILY_WORDS = (
    *(("ttft", "TTFT"), ("tpot", "TPOT/ITL"), ("throughput", "throughput")),
    *(("e2e", "e2e"), ("all", "all")),
)


def add_serving_flags(v: argparse.ArgumentParser) -> None:
    """`validate`'s serving flags."""
    v.add_argument(
        "--serving",
        action="store_true",
        help="simulate every row of tests/data/serving_measurements.csv (published serving "
        "benchmarks under load) and report |ln(simulated/measured)| by metric, source and "
        "engine, with the serving engines' fixed costs fitted leaving one source out "
        "(about 4 minutes; --engine, --cv and --out do not apply)",
    )
    v.add_argument(
        "--source",
        metavar="TEXT",
        help="with --serving: only the rows whose source address contains TEXT (the fixed "
        "costs are still fitted on the other sources)",
    )
    v.add_argument(
        "--save-costs",
        metavar="FILE",
        help="with --serving: write the fixed costs fitted on every source as "
        "serving_costs.toml (src/llm_roofline/data/serving_costs.toml is what simulate reads)",
    )


def cmd_validate_serving(args: argparse.Namespace) -> int:
    from llm_roofline.validation.serving_fit import validate_serving

    if not args.serving:
        raise InputError("--source and --save-costs go with --serving", field="source")
    if args.cv or args.out or args.engine != "ideal":
        raise InputError("--serving takes no --engine, --cv or --out", field="serving")
    with progress_bar("simulating the serving rows") as progress:
        rep = validate_serving(source=args.source, progress=progress)
    if args.save_costs:
        from llm_roofline.validation.serving import serving_knobs
        from llm_roofline.validation.serving_fit import costs_toml

        text = costs_toml(rep["fitted"], sorted(serving_knobs()[0]))
        Path(args.save_costs).write_text(text, encoding="utf-8")
        print(f"wrote the fitted fixed costs to {args.save_costs}", file=sys.stderr)
    if args.json:
        dump_json(rep)
        return 0
    _print(rep)
    reasons = Counter(n["reason"] for n in rep["not_simulated"])
    for why, n in reasons.most_common():
        print(f"llm-roofline: warning: {n} rows not simulated: {why}", file=sys.stderr)
    return 0


def _cell(s: dict[str, float] | None) -> str:
    """median/p90 (signed median) of one group's |ln| errors, with their count."""
    if not s or not s.get("n"):
        return ""
    return f"{s['median_abs']:.2f}/{s['p90_abs']:.2f} ({s['signed_median']:+.2f}) n={int(s['n'])}"


def _short(address: str) -> str:
    """A source address short enough for a table: its host and last two path parts."""
    parts = address.split("://")[-1].rstrip("/").split("/")
    return parts[0] if len(parts) < 3 else f"{parts[0]}/…/{'/'.join(parts[-2:])}"


def _table(title: str, groups: dict[str, dict[str, dict[str, float]]], short: bool) -> None:
    heads = [w for _, w in FAMILY_WORDS]
    rows = [
        (_short(k) if short else k, *(_cell(v.get(f)) for f, _ in FAMILY_WORDS))
        for k, v in sorted(groups.items())
    ]
    if rows:
        print_table(title, ("source" if short else "engine", *heads), rows)


def _print(rep: dict[str, Any]) -> None:
    """The tables: as shipped and held out, by metric, source, engine and load; the fitted
    costs."""
    print(
        f"{rep['rows']} published serving figures, {rep['simulated']} simulated in "
        f"{rep['settings']} settings; each cell: median/90th percentile of "
        f"|ln(simulated/measured)| (signed median) and the rows"
    )
    held = rep["held_out"]
    sections = [("as shipped", rep["shipped"])]
    if rep["fixed_costs"]:
        sections.append(("fixed costs held out by source", held))
    for name, sec in sections:
        _table(f"{name}: by metric", {"all rows": sec["by_family"]}, short=False)
        _table(f"{name}: by source", sec["by_source"], short=True)
        _table(f"{name}: by engine", sec["by_engine"], short=False)
        _table(f"{name}: by load", sec["by_load"], short=False)
    if not rep["fixed_costs"]:
        print("no fixed costs to fit: simulate takes no serving engine here")
        return
    costs = rep["fitted"]["costs"]
    print_table(
        f"fixed costs fitted on all {rep['fitted']['sources']} sources "
        f"({rep['fitted']['rows']} rows)",
        ("engines", "per request", "per step", "front end, per request"),
        [
            (
                g,
                f"{c['request_overhead_s'] * 1e3:.1f} ms",
                f"{c['step_overhead_s'] * 1e3:.2f} ms",
                f"{c['frontend_s'] * 1e3:.2f} ms",
            )
            for g, c in costs.items()
        ],
    )
