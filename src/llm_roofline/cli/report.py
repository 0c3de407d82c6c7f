"""Verbs `report`, `sweep` and `demo`: the lecture's numbers for one deployment, a grid."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import (
    Parser,
    deployment_from_args,
    dump_json,
    fmt_money,
    fmt_range,
    fmt_time,
    int_list,
    positive_int,
    print_table,
    system_flags,
)

if TYPE_CHECKING:
    from ..deployment import Deployment


def _print_report(rep: Any) -> None:
    print(
        f"{rep.model} on {rep.chips} × {rep.hardware}, context {rep.context_len:,} tokens, "
        f"weights {rep.weight_dtype}, KV {rep.kv_dtype}, overlap {rep.overlap}"
    )
    print(f"  split: {rep.split}")
    print(f"  engine: {rep.engine}" + ("" if rep.engine == "ideal" else " (ideal bound beside it)"))
    if rep.beyond_max_context:
        print(
            f"  WARNING: context {rep.context_len:,} is beyond the model's trained maximum "
            f"({rep.max_context:,}); the numbers below extrapolate"
        )
    print(f"  latency floor (weights one token needs, read once)  {fmt_time(rep.latency_floor_s)}")
    if rep.all_weights_time_s > rep.latency_floor_s * 1.05:
        print(
            f"  all weights read once (MoE: every expert)           "
            f"{fmt_time(rep.all_weights_time_s)}"
        )
    print(f"  balance batch B*                                    {rep.balance_batch:,.0f}")
    print(f"  HBM drain time (capacity / bandwidth)               {fmt_time(rep.drain_time_s)}")
    print(f"  largest batch that fits                             {rep.max_batch:,}")
    if rep.fit_message:
        print(f"  DOES NOT FIT at batch 1: {rep.fit_message}. Times below are computed anyway.")
    ranged = rep.engine != "ideal"
    headers = [
        "batch",
        "t_compute",
        "t_weights",
        "t_kv",
        "t_comm",
        "ideal step",
        *([f"{rep.engine} (range)"] if ranged else []),
        "bound",
        "tokens/s",
        "$/M tokens",
        "fits",
    ]
    rows = []
    for r in rep.rows:
        est = [fmt_range(r["t_step_s"], r["t_step_low_s"], r["t_step_high_s"])] if ranged else []
        rows.append(
            (
                f"{r['batch']:,}",
                fmt_time(r["t_compute_s"]),
                fmt_time(r["t_weights_s"]),
                fmt_time(r["t_kv_s"]),
                fmt_time(r["t_comm_s"]) if r["t_comm_s"] else "-",
                fmt_time(r["t_ideal_s"]),
                *est,
                r["bound"],
                f"{r['tokens_per_s']:,.0f}",
                fmt_money(r["usd_per_million_tokens"]),
                "yes" if r["fits"] else "NO",
            )
        )
    print_table("", headers, rows)
    if ranged:
        print(f"  tokens/s and $/M tokens: {rep.engine} engine; t_* columns: the ideal terms")


def _report(args: argparse.Namespace, out: Path | None) -> int:
    dep = _print_deployment(args)
    if out is not None:
        _write_figures([(args, dep)], out)
    return 0


def _print_deployment(args: argparse.Namespace) -> Deployment:
    """Build the deployment the flags describe and print its report (table or JSON)."""
    from ..report import decode_report

    dep: Deployment = deployment_from_args(args)
    rep = decode_report(dep, context_len=args.context)
    if args.json:
        dump_json(rep.as_dict())
    else:
        _print_report(rep)
    return dep


def _write_figures(cases: list[tuple[argparse.Namespace, Deployment]], out: Path) -> None:
    """The five figures of each deployment, drawn together on every core this process may use
    (matplotlib takes 0.1 to 0.2 s of one core a figure; two cores halve the wait)."""
    from ..plots import figure_jobs, import_matplotlib, run_split
    from ..plots.workers import available_cores

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
    run_split(jobs, available_cores())
    for name, dep, paths in written:
        priced = dep.chip.price_usd_per_s > 0
        note = "" if priced else " (no price: cost figures skipped, use --price)"
        what = f"{name} on {dep.chips} × {dep.chip.id}"
        print(f"wrote {len(paths)} figure files of {what} to {out}/{note}", file=sys.stderr)


def cmd_report(args: argparse.Namespace) -> int:
    return _report(args, Path(args.out) if args.out else None)


def cmd_demo(args: argparse.Namespace) -> int:
    # The lecture's example (DeepSeek-V3 on one GB200 NVL72 rack, FP8 weights as DeepSeek ships
    # them) and a common single-node deployment, with their figures under out/: both reports
    # first, then the ten figures drawn together.
    parser = argparse.ArgumentParser()
    system_flags(parser)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--json", action="store_true")
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
    from ..report import SWEEP_COLUMNS, sweep

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
    r = sub.add_parser("report", help="the lecture's numbers and figures for one deployment")
    system_flags(r)
    r.add_argument(
        "--context", type=positive_int, default=4096, help="tokens of KV per sequence (4096)"
    )
    r.add_argument("--out", help="write the five figures (PNG and SVG) into this folder")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_report)


def add_sweep_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    sw = sub.add_parser("sweep", help="a grid over batch × context × chips, as CSV")
    system_flags(sw, chips_list=True)
    sw.add_argument("--batch", type=int_list, default=int_list("1..1024"))
    sw.add_argument("--context", type=int_list, default=int_list("1024..131072"))
    sw.add_argument("--out", help="CSV file (default: standard output)")
    sw.set_defaults(func=cmd_sweep)


def add_demo_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    d = sub.add_parser("demo", help="report the lecture's example and a common deployment")
    d.add_argument("--out", default="out", help="folder for the figures (default: out)")
    d.set_defaults(func=cmd_demo)
