"""Verbs `validate`, `calibrate` and `measure`: predictions against measurements."""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_roofline._core import units
from llm_roofline.cli._common import (
    ENGINE_FAMILIES,
    RANGE_HELP,
    SIZES,
    Parser,
    dump_json,
    examples,
    fmt_num,
    fmt_time,
    int_list,
    json_flag,
    positive_int,
    print_table,
    progress_bar,
    time_cells,
)
from llm_roofline.cli.cmd_validate_serving import add_serving_flags, cmd_validate_serving

if TYPE_CHECKING:
    from llm_roofline.validation.validate import RowResult, ValidationRow


def cmd_validate(args: argparse.Namespace) -> int:
    from llm_roofline.validation.validate import summarise, validate

    if args.serving or args.source or args.save_costs:  # published serving runs, simulated
        return cmd_validate_serving(args)
    results, failed = validate(args.engine)
    summary = summarise(results)
    cv = _cross_validate() if args.cv else None
    if args.json:
        dump_json(_validation_json(args.engine, results, failed, summary, cv))
    else:
        _print_validation_table(args.engine, results)
        _print_validation_summary(summary, cv)
        for r, why in failed:
            print(f"llm-roofline: warning: row {r.row} not predicted: {why}", file=sys.stderr)
    if args.out:
        _write_validation_figures(Path(args.out), args.engine, results, cv)
    return 0


def _cross_validate() -> dict[str, dict[str, Any]]:
    """--cv: leave one source out, then one kind (with its ranges by distance), one bar."""
    from llm_roofline.validation.validate import cross_validate, group_counts, range_check

    counts = group_counts()  # one bar over both: the sources' folds, then the kinds'
    total = sum(counts.values())
    with progress_bar("cross-validating") as progress:

        def shifted(offset: int) -> Callable[[int, int], None]:
            return lambda i, _n: progress(offset + i, total)

        cv = {
            by: cross_validate(by, shifted(offset))
            for by, offset in (("source", 0), ("kind", counts["source"]))
        }
    return {**cv, "kind": {**cv["kind"], "by_distance": range_check(cv["source"], cv["kind"])}}


def _validation_json(
    engine: str,
    results: list[RowResult],
    failed: list[tuple[ValidationRow, str]],
    summary: dict[str, Any],
    cv: dict[str, dict[str, Any]] | None,
) -> dict[str, Any]:
    """What `validate --json` prints: the summary, the cross-validation and every row."""
    return {
        "engine": engine,
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


def _print_validation_table(engine: str, results: list[RowResult]) -> None:
    """One line a row: its system, measured, predicted and their ratio."""
    rows = [
        (
            str(r.row.row),
            r.row.model,
            f"{r.row.chips}×{r.row.hardware}",
            r.row.mode,
            _METRIC_WORDS.get(r.row.metric, r.row.metric),
            _metric_value(r.row.metric, r.row.measured),
            _metric_value(r.row.metric, r.predicted),
            f"{r.ratio:.2f}",
            "ceiling" if r.row.ceiling else ("" if r.faster_than_measured else "SLOWER"),
        )
        for r in results
    ]
    headers = ("row", "model", "system", "mode", "metric", "measured", "predicted")
    print_table(f"{len(results)} rows, engine {engine}", (*headers, "pred/meas", "note"), rows)


def _print_validation_summary(summary: dict[str, Any], cv: dict[str, Any] | None) -> None:
    """The error's median and 90th percentile: overall, by hardware, by family, held out."""
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
    for title, key in (("by hardware", "by_hardware"), ("by engine family", "by_engine_family")):
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


def _write_validation_figures(
    out: Path, engine: str, results: list[RowResult], cv: dict[str, Any] | None
) -> None:
    """--out: the scatter plot and, with --cv, the residuals by group held out."""
    from llm_roofline.plots import write_residual_figure, write_validation_figure

    stem = out / f"validation_{engine}"
    write_validation_figure(results, f"predicted vs measured, engine {engine}", stem)
    print(f"wrote {stem}.png and .svg", file=sys.stderr)
    if cv:
        for by in ("source", "kind"):
            stem = out / f"residuals_by_{by}"
            what = f"calibrated engine, each {'source' if by == 'source' else 'hardware kind'}"
            write_residual_figure(cv[by], f"{what} held out: error against", stem)
            print(f"wrote {stem}.png and .svg", file=sys.stderr)


# the validation set's metrics in words, for the table (--json keeps their names)
_METRIC_WORDS = {
    "tpot_s": "time per output token",
    "ttft_s": "time to first token",
    "request_latency_s": "request latency",
    "output_tokens_per_s": "output tokens/s",
    "output_tokens_per_s_per_chip": "output tokens/s per chip",
}


def _metric_value(metric: str, value: float) -> str:
    """A value in its unit: a time as a person reads it, a throughput to 4 figures."""
    if metric.endswith("_s") and "per_s" not in metric:
        return fmt_time(value)
    return fmt_num(value, 4)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from llm_roofline.calibration.profile import profiles_toml
    from llm_roofline.validation.validate import fit_shipped

    with progress_bar("fitting and cross-validating") as progress:
        text = profiles_toml(fit_shipped(progress))
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote the calibrated engine's constants to {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def cmd_measure(args: argparse.Namespace) -> int:
    from llm_roofline.validation.measure import measure_machine

    with progress_bar("measuring a decode grid") as progress:
        rep = measure_machine(
            args.model,
            layers=args.layers,
            batches=args.batch,
            contexts=args.context,
            dtype=args.dtype,
            device=args.device,
            progress=progress,
        )
    model_id = _model_label(str(args.model))
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
        unit, cells = time_cells([t for p in rep.points for t in (p.measured_s, p.predicted_s)])
        print_table(
            f"decode of {rep.model} ({rep.layers} layers, random weights) against the "
            f"engine with the measured peaks",
            ("batch", "context", f"measured ({unit})", f"predicted ({unit})", "pred/meas"),
            [
                (
                    str(p.batch),
                    f"{p.context_len:,}",
                    cells[2 * i],
                    cells[2 * i + 1],
                    f"{p.ratio:.2f}",
                )
                for i, p in enumerate(rep.points)
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


def _model_label(model: str) -> str:
    """A model's name in `measure`'s rows: an id as is, a config.json's stem, a folder's name."""
    path = Path(model)
    if model.endswith(".json"):
        return path.stem
    return path.name if "/" in model or path.is_dir() else model


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    v = sub.add_parser(
        "validate",
        help="predicted against published measurements",
        description="How far to trust the numbers: every row of the validation set (published "
        "measurements of real engines on real chips) predicted and set against its "
        "measurement, with the error's median and 90th percentile by hardware and engine "
        "family. --engine ideal (the default) is the lower bound, so each row should be "
        "measured slower than predicted; --engine calibrated is the realistic estimate, and "
        "--cv tests it on sources and hardware kinds it was not fitted to. docs/validation.md.",
        epilog=examples(
            "llm-roofline validate --engine calibrated", "llm-roofline validate --serving"
        ),
    )
    v.add_argument(
        "--engine",
        default="ideal",
        help="ideal (default: the lower bound, so every row should be slower than predicted), "
        f"calibrated (each row with its own engine family), or an engine family: "
        f"{ENGINE_FAMILIES}",
    )
    v.add_argument(
        "--cv",
        action="store_true",
        help="also cross-validate the calibrated engine: leave one source out, and leave one "
        "hardware kind out (about 6 s, a progress bar on a terminal)",
    )
    v.add_argument(
        "--out",
        metavar="DIR",
        help="write the scatter plot (PNG and SVG) into this folder (default: none)",
    )
    add_serving_flags(v)
    json_flag(v)
    v.set_defaults(func=cmd_validate)

    c = sub.add_parser(
        "calibrate",
        help="fit the calibrated engine to the validation set",
        description="Refit the calibrated engine's constants (the share of peak each term "
        "reaches, and fixed times per pass and per layer, for each chip vendor and memory kind) "
        "to the validation set, cross-validate them for their ranges, and print them as "
        "profiles.toml (about 6 s). For after adding measurements to the validation set.",
        epilog=examples("llm-roofline calibrate --out src/llm_roofline/data/profiles.toml"),
    )
    c.add_argument(
        "--out", metavar="FILE", help="write profiles.toml here (default: standard output)"
    )
    c.set_defaults(func=cmd_calibrate)
    _add_measure_parser(sub)  # many flags: its own function


def _add_measure_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    me = sub.add_parser(
        "measure",
        help="measure this machine and a real decode (needs torch)",
        description="Measure this machine's memory bandwidth and matmul FLOP/s, then time a "
        "real PyTorch decode (random weights) over batch × context and set it against the "
        f"engine with those peaks. {RANGE_HELP}; {SIZES}.",
        epilog=examples(
            "llm-roofline measure --device cpu --save-hardware this-machine.toml",
            "llm-roofline measure --device cuda --dtype bf16 --batch 1..64",
        ),
    )
    me.add_argument(
        "--model",
        default="llama-3.1-8b",
        help="a catalog id, a config.json or a folder holding one (default llama-3.1-8b)",
    )
    me.add_argument(
        "--layers",
        type=positive_int,
        default=2,
        help="keep only the first N layers (default 2: fits a laptop)",
    )
    me.add_argument(
        "--batch",
        type=int_list,
        default="1,4,16",
        help="sequences per decode step, e.g. 1,4,16 or 1..64 (default 1,4,16)",
    )
    me.add_argument(
        "--context",
        type=int_list,
        default="128,1024",
        metavar="TOKENS",
        help="tokens of context per sequence, e.g. 128,1024 or 1k..8k (default 128,1024)",
    )
    me.add_argument(
        "--dtype",
        default="fp32",
        choices=["fp32", "bf16", "fp16"],
        help="the weights' and matmuls' type (default fp32)",
    )
    me.add_argument(
        "--device",
        default="cpu",
        choices=["cpu", "cuda"],
        help="where to run: cpu, or cuda, the first GPU (default cpu)",
    )
    _measure_output_flags(me)


def _measure_output_flags(me: argparse.ArgumentParser) -> None:
    """What `measure` writes: a hardware record, validation rows, or JSON."""
    me.add_argument(
        "--save-hardware",
        metavar="FILE",
        help="write the measured peaks as a hardware record (TOML; default: none)",
    )
    me.add_argument(
        "--save-rows",
        metavar="FILE",
        help="write the decode grid as validation rows (CSV; default: none)",
    )
    me.add_argument(
        "--hardware-id",
        default="this-machine",
        help="the id of the record and rows written (default this-machine)",
    )
    json_flag(me)
    me.set_defaults(func=cmd_measure)
