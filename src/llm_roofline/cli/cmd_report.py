"""Verbs `report`, `sweep` and `demo`: the lecture's numbers for one deployment, a grid."""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_roofline.cli._common import (
    RANGE_HELP,
    SIZES,
    Parser,
    context_flag,
    deployment_from_args,
    dump_json,
    examples,
    fmt_money,
    fmt_num,
    fmt_time,
    int_list,
    json_flag,
    print_table,
    progress_bar,
    system_flags,
    time_unit,
    unpriced_note,
)

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment


def _print_report(rep: Any, dep: Deployment, args: argparse.Namespace) -> None:
    """The report as text: the deployment, the lecture's numbers, a table over batch."""
    _print_heading(rep, dep)
    lines = _lecture_lines(rep, dep)
    width = max(len(label) for label, _ in lines) + 3
    for label, value in lines:
        print(f"  {label:<{width}}{value}")
    if rep.fit_message or rep.max_batch < 1:
        from llm_roofline.deploy.fit_advice import no_fit_reason

        line = rep.fit_message.removeprefix("does not fit: ")
        why = no_fit_reason(line, rep.context_len, rep.max_batch)
        print(f"  DOES NOT FIT at batch 1: {why}.")
        print("  Times below are computed anyway.")
    # one unit for every time column (the one the engine's slowest step reads best in), so
    # the columns compare at a glance
    scale, unit = time_unit(max(r["t_step_s"] for r in rep.rows))
    _print_batch_table(rep, scale, unit)
    _print_table_notes(rep, dep, args, scale, unit)


def _print_heading(rep: Any, dep: Deployment) -> None:
    """What is reported: model, chips, context, types, split, engine, and warnings."""
    from llm_roofline.deploy.report_table import released_dtype_note

    print(
        f"{rep.model} on {rep.chips} × {rep.hardware}, context {rep.context_len:,} tokens, "
        f"weights {rep.weight_dtype}, KV {rep.kv_dtype}, overlap {rep.overlap}"
    )
    print(f"  split: {rep.split}")
    print(f"  engine: {rep.engine}" + ("" if rep.engine == "ideal" else " (ideal bound beside it)"))
    released = released_dtype_note(dep)
    if released:
        print(f"  NOTE: {released}")
    if rep.beyond_max_context:
        print(
            f"  WARNING: context {rep.context_len:,} is beyond the model's trained maximum "
            f"({rep.max_context:,}); the numbers below extrapolate"
        )


def _lecture_lines(rep: Any, dep: Deployment) -> list[tuple[str, str]]:
    """The lecture's numbers, each with what it is, for a reader who has not seen the lecture."""
    from llm_roofline._core.errors import InputError
    from llm_roofline.engine.balance import balanced_context

    try:
        s_bal: float | None = balanced_context(
            dep.model, dep.chip, kv_dtype=dep.kv_dtype, weight_dtype=dep.weight_dtype
        )
    except InputError:  # a model with no KV cache to fetch: no such context
        s_bal = None
    lines = [
        (
            "latency floor (read once each weight a token needs: the fastest a token can come)",
            fmt_time(rep.latency_floor_s),
        )
    ]
    if rep.all_weights_time_s > rep.latency_floor_s * 1.05:
        lines.append(
            (
                "all weights read once (the embedding table too; MoE: every expert)",
                fmt_time(rep.all_weights_time_s),
            )
        )
    lines.append(
        (
            "balance batch B* (matmul time = weight-fetch time on this split; memory-bound below)",
            f"{rep.balance_batch:,.0f}",
        )
    )
    if s_bal is not None:
        lines.append(
            (
                "balanced context (one sequence's KV fetch time = its compute time)",
                f"{s_bal:,.0f} tokens",
            )
        )
    return [
        *lines,
        (
            "memory drain time (capacity ÷ bandwidth: every byte read once)",
            fmt_time(rep.drain_time_s),
        ),
        ("largest batch that fits", f"{rep.max_batch:,}"),
    ]


def _print_batch_table(rep: Any, scale: float, unit: str) -> None:
    """The table over batch: ideal terms and step, the engine's step, tokens/s, $, fit."""
    ranged = rep.engine != "ideal"
    rows = rep.rows

    def col(key: str) -> list[str]:
        return [fmt_num(r[key] / scale) if r[key] else "-" for r in rows]

    est = (
        [
            f"{fmt_num(r['t_step_s'] / scale)} ({fmt_num(r['t_step_low_s'] / scale)}–"
            f"{fmt_num(r['t_step_high_s'] / scale)})"
            for r in rows
        ]
        if ranged  # the ideal engine has no range
        else []
    )
    headers = [
        "batch",
        f"compute ({unit})",
        f"weights ({unit})",
        f"KV ({unit})",
        f"comm ({unit})",
        f"ideal step ({unit})",
        *([f"{rep.engine} step ({unit}, range)"] if ranged else []),
        "bound",
        "tokens/s",
        "$/M tokens",
        "fits",
    ]
    cells = [col(k) for k in ("t_compute_s", "t_weights_s", "t_kv_s", "t_comm_s", "t_ideal_s")]
    table = [
        (
            f"{r['batch']:,}",
            *(c[i] for c in cells),
            *([est[i]] if ranged else []),
            r["bound"],
            f"{r['tokens_per_s']:,.0f}",
            fmt_money(r["usd_per_million_tokens"]),
            "yes" if r["fits"] else "NO",
        )
        for i, r in enumerate(rows)
    ]
    print_table("", headers, table)


def _print_table_notes(
    rep: Any, dep: Deployment, args: argparse.Namespace, scale: float, unit: str
) -> None:
    """Below the table: what its terms are, the engine's step as its parts, why no $/token."""
    from llm_roofline.deploy.report_table import engine_efficiencies, engine_parts, parts_note

    rows = rep.rows
    print(f"  {parts_note(dep)}")
    print("  tokens/s: the whole batch's, batch ÷ step (one user gets one token a step)")
    if rep.engine != "ideal":
        eff = ", ".join(f"{k} {v:.0%}" for k, v in engine_efficiencies(dep).items())
        ends = [rows[0], rows[-1]] if len(rows) > 1 else rows[:1]
        sums = "; ".join(
            f"batch {r['batch']:,}: {_adding(p, scale)} {unit}"
            for r in ends
            for p in [engine_parts(dep, r["t_ideal_s"], r["t_step_s"])]
        )
        print(
            f"  {rep.engine} step = ideal step + the terms' shortfall at measured efficiencies "
            f"({eff} of peak) + fixed times per pass and layer: {sums}"
        )
        print(f"  tokens/s and $/M tokens: {rep.engine} engine")
    if rows and all(r["usd_per_million_tokens"] is None for r in rows):
        print(f"  $/M tokens: {unpriced_note(args)}")


def _adding(p: dict[str, float], scale: float) -> str:
    """ "25.2 + 21.4 + 2.04 = 48.6": the engine's step as its parts, each shown to the
    decimals of the total (three significant digits), the shortfall term taking the rounding
    so that the shown parts add up to the shown total (it may differ from its own rounding by
    a unit in the last place)."""
    total = p["engine_s"] / scale
    d = max(0, 2 - math.floor(math.log10(abs(total)))) if total > 0 else 0
    ideal, fixed = round(p["ideal_s"] / scale, d), round(p["fixed_s"] / scale, d)
    shown = round(total, d)
    eff = round(shown - ideal - fixed, d) + 0.0  # + 0.0: never "-0.00"
    return " + ".join(f"{x:,.{d}f}" for x in (ideal, eff, fixed)) + f" = {shown:,.{d}f}"


def _report(args: argparse.Namespace, out: Path | None) -> int:
    dep = _print_deployment(args)
    if out is not None:
        _write_figures([(args, dep)], out)
    return 0


def _print_deployment(args: argparse.Namespace) -> Deployment:
    """Build the deployment the flags describe and print its report (table or JSON)."""
    from llm_roofline.deploy.report_table import decode_report

    dep: Deployment = deployment_from_args(args)
    rep = decode_report(dep, context_len=args.context)
    if args.json:
        dump_json(rep.as_dict())
    else:
        _print_report(rep, dep, args)
    return dep


def _write_figures(cases: list[tuple[argparse.Namespace, Deployment]], out: Path) -> None:
    """The five figures of each deployment, drawn together on every core this process may use
    (matplotlib takes 0.1 to 0.2 s of one core a figure; two cores halve the wait)."""
    from llm_roofline.plots import figure_jobs, import_matplotlib, run_split
    from llm_roofline.plots.workers import available_cores

    import_matplotlib()  # first: a clear error without the `plot` extra; forked workers share it
    jobs, written = [], []
    for args, dep in cases:
        name = str(args.model)
        if name.endswith(".json") or "/" in name:
            name = Path(name).stem
        prefix = f"{name}_{dep.chip.id}_x{dep.chips}_"
        todo, paths = figure_jobs(dep, out, context_len=args.context, prefix=prefix)
        jobs += todo
        written.append((name, dep, paths))
    cores = available_cores()
    with progress_bar("drawing figures") as progress:
        progress(0, len(jobs))
        run_split(_counted(jobs, progress, min(cores, len(jobs))), cores)
        progress(len(jobs), len(jobs))
    for name, dep, paths in written:
        priced = dep.chip.price_usd_per_s > 0
        note = "" if priced else " (no price: cost figures skipped, use --price)"
        what = f"{name} on {dep.chips} × {dep.chip.id}"
        print(f"wrote {len(paths)} figure files of {what} to {out}/{note}", file=sys.stderr)


def _counted(
    jobs: list[Callable[[], object]], progress: Callable[[int, int], None], workers: int
) -> list[Callable[[], object]]:
    """The jobs, each telling `progress` when it is done. `run_split` deals them out to
    `workers` processes in turn; this one sees only its own share, so each of its jobs stands
    for `workers` (the bar reaches the end as the last share does)."""
    done = [0]
    step = max(1, workers)

    def counted(job: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            out = job()
            done[0] += step
            progress(min(done[0], len(jobs)), len(jobs))
            return out

        return run

    return [counted(j) for j in jobs]


def cmd_report(args: argparse.Namespace) -> int:
    return _report(args, Path(args.out) if args.out else None)


def cmd_demo(args: argparse.Namespace) -> int:
    # The lecture's example (DeepSeek-V3 on one GB200 NVL72 rack, FP8 weights as DeepSeek ships
    # them) and a common single-node deployment, with their figures under out/: both reports
    # first, then the ten figures drawn together.
    parser = argparse.ArgumentParser()
    system_flags(parser)
    context_flag(parser)
    json_flag(parser)
    cases = [
        "--model deepseek-v3 --hardware gb200 --chips 72 --weight-dtype fp8",
        "--model llama-3.1-70b --hardware h100-sxm --chips 8",
    ]
    built = []
    for i, case in enumerate(cases):
        if i:
            print()
        case_args = parser.parse_args(case.split())
        built.append((case_args, _print_deployment(case_args)))
    _write_figures(built, Path(args.out))
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from llm_roofline.deploy.report_table import SWEEP_COLUMNS, sweep

    rows = sweep(deployment_from_args(args, args.chips[0]), args.batch, args.context, args.chips)
    fh = open(args.out, "w", newline="", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    try:
        w = csv.DictWriter(fh, fieldnames=list(SWEEP_COLUMNS))
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    finally:
        if fh is not sys.stdout:
            fh.close()
    if args.out:
        print(f"wrote {len(rows)} rows to {args.out}", file=sys.stderr)
    return 0


def add_report_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    r = sub.add_parser(
        "report",
        help="one deployment's speed, fit and cost: latency floor, B*, a table over batch",
        description="How fast, how cheap, and does it fit: one deployment (a model on --chips "
        "chips) decoding at --context tokens. The lecture's numbers: the latency floor (read "
        "once each weight a token needs: the fastest a token can come), the balance batch B* "
        "(where a step's compute time equals its weight-fetch time: below it a step is "
        "memory-bound and a bigger batch costs little time), the balanced context (where one "
        "sequence's KV fetch takes as long as its compute), the memory drain time (capacity ÷ "
        "bandwidth), the largest batch that fits; then a table over batch of each ideal term "
        "beside the engine's step, with tokens/s and $ per million tokens (at the catalog's "
        "price per chip-hour, or --price). The lecture's deployment is DeepSeek-V3 on one GB200 "
        "NVL72 rack: 72 chips, fp8 weights (`llm-roofline demo` reports it). Counts take "
        + SIZES
        + ".",
        epilog=examples(
            "llm-roofline report --model llama-3.1-8b --hardware rtx-4090",
            "llm-roofline report --model deepseek-v3 --hardware gb200 --chips 72 "
            "--weight-dtype fp8",
        ),
    )
    system_flags(r)
    context_flag(r)
    r.add_argument(
        "--out",
        metavar="DIR",
        help="write the five figures (PNG and SVG) into this folder (default: none)",
    )
    json_flag(r)
    r.set_defaults(func=cmd_report)


def add_sweep_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    sw = sub.add_parser(
        "sweep",
        help="a grid over batch × context × chips, as CSV",
        description="Decode steps over chips × batch × context as CSV, one row a point: the "
        f"ideal terms, the ideal step and the engine's, tokens/s, $ per million tokens and "
        f"whether it fits (columns: docs/cli.md). {RANGE_HELP}; {SIZES}.",
        epilog=examples(
            "llm-roofline sweep --model llama-3.1-8b --hardware h100-sxm --chips 1,2 "
            "--batch 1..64 --context 1k..32k --out sweep.csv"
        ),
    )
    system_flags(sw, chips_list=True)
    sw.add_argument(
        "--batch",
        type=int_list,
        default="1..1024",
        help=f"sequences per step, e.g. 1,8,64 or 1..256 ({RANGE_HELP}; default 1..1024)",
    )
    sw.add_argument(
        "--context",
        type=int_list,
        default="1k..128k",
        help=f"tokens of context per sequence, e.g. 1024,8192 or 1k..128k (powers of two; "
        f"{SIZES}; default 1k..128k: 1,024 to 131,072)",
    )
    sw.add_argument("--out", metavar="FILE", help="CSV file (default: standard output)")
    sw.set_defaults(func=cmd_sweep)


def add_demo_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    d = sub.add_parser(
        "demo",
        help="report the lecture's deployment (DeepSeek-V3 on a GB200 NVL72 rack) and "
        "Llama-3.1-70B on 8 H100s",
        description="`report` for the lecture's deployment, DeepSeek-V3 on one GB200 NVL72 "
        "rack (72 chips, fp8 weights as DeepSeek ships them), and for a common single node, "
        "Llama-3.1-70B on 8 H100 SXM (bf16), with each one's five figures (PNG and SVG) "
        "written to --out.",
        epilog=examples("llm-roofline demo --out figures"),
    )
    d.add_argument(
        "--out", default="out", metavar="DIR", help="folder for the figures (default: out)"
    )
    d.set_defaults(func=cmd_demo)
