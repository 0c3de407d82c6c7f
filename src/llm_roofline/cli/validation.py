"""Verbs `validate`, `calibrate` and `measure`: predictions against measurements."""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable
from pathlib import Path

from .. import units
from ._common import (
    Parser,
    dump_json,
    fmt_time,
    int_list,
    positive_int,
    print_table,
    progress_bar,
)


def cmd_validate(args: argparse.Namespace) -> int:
    from ..validate import cross_validate, summarise, validate

    results, failed = validate(args.engine)
    summary = summarise(results)
    cv = None
    if args.cv:
        from ..validate import group_counts

        counts = group_counts()  # one bar over both: the sources' folds, then the kinds'
        total = sum(counts.values())
        with progress_bar("cross-validating") as progress:

            def shifted(offset: int) -> Callable[[int, int], None]:
                return lambda i, _n: progress(offset + i, total)

            cv = {
                by: cross_validate(by, shifted(offset))
                for by, offset in (("source", 0), ("kind", counts["source"]))
            }
    if args.json:
        dump_json(
            {
                "engine": args.engine,
                "summary": summary,
                "cross_validation": cv,
                "rows": [
                    {
                        "row": r.row.row,
                        "model": r.row.model,
                        "hardware": r.row.hardware,
                        "chips": r.row.chips,
                        "mode": r.row.mode,
                        "metric": r.row.metric,
                        "measured": r.row.measured,
                        "predicted": r.predicted,
                        "low": r.low,
                        "high": r.high,
                        "ratio": r.ratio,
                        "ceiling": r.row.ceiling,
                        "engine_family": r.row.engine_family,
                        "source": r.row.source_address,
                    }
                    for r in results
                ],
                "not_predicted": [{"row": r.row, "reason": why} for r, why in failed],
            }
        )
    else:
        rows = [
            (
                str(r.row.row),
                r.row.model,
                f"{r.row.chips}×{r.row.hardware}",
                r.row.mode,
                r.row.metric,
                f"{r.row.measured:.4g}",
                f"{r.predicted:.4g}",
                f"{r.ratio:.2f}",
                "ceiling" if r.row.ceiling else ("" if r.faster_than_measured else "SLOWER"),
            )
            for r in results
        ]
        print_table(
            f"{len(results)} rows, engine {args.engine}",
            (
                "row",
                "model",
                "system",
                "mode",
                "metric",
                "measured",
                "predicted",
                "pred/meas",
                "note",
            ),
            rows,
        )
        o = summary["overall"]
        print(
            f"|ln(predicted/measured)|: median {o.get('median', float('nan')):.3f}, "
            f"90th percentile {o.get('p90', float('nan')):.3f} over {int(o['rows'])} rows "
            f"({summary['ceiling_rows']} ceiling rows not scored)"
        )
        print(
            f"predicted slower than measured: {summary['slower_than_measured']} of "
            f"{summary['rows']} ({summary['slower_than_measured_share']:.1%})"
        )
        for title, key in (
            ("by hardware", "by_hardware"),
            ("by engine family", "by_engine_family"),
        ):
            print(
                f"{title}: "
                + "; ".join(
                    f"{k} {v.get('median', 0):.2f}/{v.get('p90', 0):.2f} (n={int(v['rows'])})"
                    for k, v in summary[key].items()
                )
            )
        if cv:
            for by, title in (("source", "source"), ("kind", "hardware kind")):
                c, h = cv[by], cv[by]["held_out"]
                print(
                    f"leave-one-{title.replace(' ', '-')}-out (refitted without each of "
                    f"{len(c['groups'])}): median {h['median']:.3f}, 90th percentile "
                    f"{h['p90']:.3f} over {int(h['rows'])} rows; each {title}'s own median: "
                    f"typical {c['median_of_group_medians']:.3f}, "
                    f"{c['groups_within_0_15']} of {len(c['groups'])} at most 0.15; "
                    f"80% range holds {c['coverage_80']:.1%}"
                )
        for r, why in failed:
            print(f"llm-roofline: warning: row {r.row} not predicted: {why}", file=sys.stderr)
    if args.out:
        from ..plots import write_validation_figure

        stem = Path(args.out) / f"validation_{args.engine}"
        write_validation_figure(results, f"predicted vs measured, engine {args.engine}", stem)
        print(f"wrote {stem}.png and .svg", file=sys.stderr)
        if cv:
            from ..plots import write_residual_figure

            for by in ("source", "kind"):
                stem = Path(args.out) / f"residuals_by_{by}"
                what = "source" if by == "source" else "hardware kind"
                write_residual_figure(
                    cv[by], f"calibrated engine, each {what} held out: error against", stem
                )
                print(f"wrote {stem}.png and .svg", file=sys.stderr)
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from ..calibrate import profiles_toml
    from ..validate import fit_shipped

    with progress_bar("fitting and cross-validating") as progress:
        text = profiles_toml(fit_shipped(progress))
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote the calibrated engine's constants to {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def cmd_measure(args: argparse.Namespace) -> int:
    from ..measure import measure_machine

    def progress(i: int, n: int) -> None:
        if not args.json:
            print(
                f"\r  decode grid {i}/{n} [{'#' * (20 * i // n):<20}]",
                end="",
                file=sys.stderr,
                flush=True,
            )

    rep = measure_machine(
        args.model,
        layers=args.layers,
        batches=args.batch,
        contexts=args.context,
        dtype=args.dtype,
        device=args.device,
        progress=progress,
    )
    if not args.json:
        print(file=sys.stderr)
    model_id = Path(str(args.model)).stem if str(args.model).endswith(".json") else args.model
    if args.json:
        dump_json(
            {
                "device": rep.device_name,
                "torch": rep.torch_version,
                "dtype": rep.dtype,
                "bandwidth_bytes_per_s": rep.bandwidth_bytes_per_s,
                "flops": rep.flops,
                "model": rep.model,
                "layers": rep.layers,
                "points": [dict(p.__dict__, ratio=p.ratio) for p in rep.points],
            }
        )
    else:
        print(
            f"{rep.device_name} ({rep.device}, torch {rep.torch_version}): memory "
            f"{rep.bandwidth_bytes_per_s / units.GB:,.1f} GB/s, {rep.dtype} matmul "
            f"{rep.flops / units.tera:,.3f} TFLOP/s (measured)"
        )
        print_table(
            f"decode of {rep.model} ({rep.layers} layers, random weights) against the "
            f"engine with the measured peaks",
            ("batch", "context", "measured", "predicted", "pred/meas"),
            [
                (
                    str(p.batch),
                    f"{p.context_len:,}",
                    fmt_time(p.measured_s),
                    fmt_time(p.predicted_s),
                    f"{p.ratio:.2f}",
                )
                for p in rep.points
            ],
        )
    if args.save_hardware:
        Path(args.save_hardware).write_text(rep.hardware_record(args.hardware_id), "utf-8")
        print(f"wrote the hardware record to {args.save_hardware}", file=sys.stderr)
    if args.save_rows:
        rows = rep.validation_rows(args.hardware_id, model_id)
        with open(args.save_rows, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {len(rows)} validation rows to {args.save_rows}", file=sys.stderr)
    return 0


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    v = sub.add_parser("validate", help="predicted against published measurements")
    v.add_argument(
        "--engine",
        default="ideal",
        help="ideal (default), calibrated (each row with its own engine family), or an engine "
        "family: vllm, trtllm, sglang, llamacpp, lmdeploy, mlx, habana",
    )
    v.add_argument(
        "--cv",
        action="store_true",
        help="also cross-validate the calibrated engine: leave one source out, and leave one "
        "hardware kind out",
    )
    v.add_argument("--out", help="write the scatter plot (PNG and SVG) into this folder")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_validate)

    c = sub.add_parser("calibrate", help="fit the calibrated engine to the validation set")
    c.add_argument("--out", help="write profiles.toml here (default: standard output)")
    c.set_defaults(func=cmd_calibrate)

    me = sub.add_parser("measure", help="measure this machine and a real decode (needs torch)")
    me.add_argument("--model", default="llama-3.1-8b", help="catalog id or config.json path")
    me.add_argument(
        "--layers",
        type=positive_int,
        default=2,
        help="keep only the first N layers (default 2: fits a laptop)",
    )
    me.add_argument("--batch", type=int_list, default=[1, 4, 16])
    me.add_argument("--context", type=int_list, default=[128, 1024])
    me.add_argument("--dtype", default="fp32", choices=["fp32", "bf16", "fp16"])
    me.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    me.add_argument("--save-hardware", help="write the measured peaks as a hardware record")
    me.add_argument("--save-rows", help="write the decode grid as validation rows (CSV)")
    me.add_argument("--hardware-id", default="this-machine")
    me.add_argument("--json", action="store_true")
    me.set_defaults(func=cmd_measure)
