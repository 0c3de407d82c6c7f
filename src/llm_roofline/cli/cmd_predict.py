"""Verb `predict`: one scenario from flags, or a CSV of them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from llm_roofline._core.units import COUNT_HELP
from llm_roofline.cli._common import (
    SIZES,
    Parser,
    chip_from_args,
    deployment_from_args,
    dump_json,
    examples,
    fmt_money,
    fmt_num,
    json_flag,
    nonneg_int,
    positive_int,
    print_table,
    range_cells,
    system_flags,
    time_cells,
    time_unit,
    unpriced_note,
)
from llm_roofline.serving.contract import MODES


def _settings(args: argparse.Namespace) -> dict[str, object]:
    """Deployment flags that are not CSV columns: they apply to the one scenario or to every
    row of --scenarios."""
    return {"overlap": args.overlap, "price_usd_per_hour": args.price}


def cmd_predict(args: argparse.Namespace) -> int:
    from llm_roofline._core.errors import InputError
    from llm_roofline.deploy.scenarios.rows import INPUT_COLUMNS, predict_one

    if args.scenarios:
        from llm_roofline.deploy.scenarios.columns import predict_file

        if not args.out:
            raise InputError("--scenarios needs --out OUT.csv", field="out")
        # by column (scenarios.columns): the file `write_results(predict_rows(...))` writes
        n, bad = predict_file(args.scenarios, args.out, settings=_settings(args))
        for err in bad:
            print(f"llm-roofline: error: {args.scenarios}: {err}", file=sys.stderr)
        print(
            f"wrote {n} rows ({n - len(bad)} predicted, {len(bad)} with errors) to {args.out}",
            file=sys.stderr,
        )
        return 2 if bad else 0
    needed: tuple[str, ...] = ("model", "hardware", "batch", "input_len")
    if args.mode != "decode":
        needed += ("output_len",)
    missing = [f"--{k.replace('_', '-')}" for k in needed if getattr(args, k) is None]
    if missing:
        raise InputError(
            f"one scenario needs {', '.join(missing)} (or --scenarios IN.csv)", field=missing[0]
        )
    row = {c: getattr(args, c, None) for c in INPUT_COLUMNS}
    res = predict_one(row, settings=_settings(args), search_fit=True)
    if res.error:
        raise InputError(f"{res.error.column}: {res.error.message}", field=res.error.column)
    ranges = {k: v for k, v in res.extra.items() if v is not None}
    record = {**res.inputs, **res.outputs, **ranges}
    record["engine_profile"] = _profile_note(str(record["engine"]), chip_from_args(args))
    if res.warning:
        print(f"llm-roofline: warning: {res.warning}", file=sys.stderr)
    if args.json:
        dump_json(record)
        return 0
    _print_scenario(args, record, ranges)
    return 0


# the output columns in words, for the table (the CSV and --json keep the contract's names)
_LABELS = {
    "tpot_s": "tpot: time per output token",
    "ttft_s": "ttft: time to first token",
    "request_latency_s": "request latency",
    "output_tokens_per_s": "output tokens/s",
    "output_tokens_per_s_per_chip": "output tokens/s per chip",
    "fits": "fits in memory",
    "bound": "bound",
    "t_compute_s": "compute, ideal",
    "t_weights_s": "weights, ideal",
    "t_kv_s": "KV, ideal",
    "t_comm_s": "comm, ideal",
    "usd_per_million_output_tokens": "$ per million output tokens",
}
_PARTS = ("t_compute_s", "t_weights_s", "t_kv_s", "t_comm_s")


def _print_scenario(
    args: argparse.Namespace, record: dict[str, Any], ranges: dict[str, Any]
) -> None:
    """The scenario as a table, each time with its unit in its label, and how the parts make
    the totals."""
    from llm_roofline.deploy.scenarios.rows import INPUT_COLUMNS, OUTPUT_COLUMNS

    rows = [(c, str(record[c])) for c in INPUT_COLUMNS]
    parts_unit, parts = time_cells([record[c] for c in _PARTS])
    for c in OUTPUT_COLUMNS:
        v, label = record[c], _LABELS.get(c, c)
        lo, hi = ranges.get(f"{c}_low"), ranges.get(f"{c}_high")
        if c in _PARTS:
            rows.append((f"{label} ({parts_unit})", parts[_PARTS.index(c)]))
        elif c.endswith("_s") and not c.endswith("per_s"):
            unit, (cell,) = range_cells([v], [lo], [hi])
            rows.append((f"{label} ({unit})", cell))
        elif c.startswith("usd"):
            rows.append((label, fmt_money(v) if v is not None else "none"))
        elif isinstance(v, bool):
            rows.append((label, "yes" if v else "NO"))
        elif isinstance(v, float):
            spread = "" if lo is None else f" ({lo:,.1f}–{hi:,.1f})"
            rows.append((label, f"{v:,.1f}{spread}"))
        else:
            rows.append((label, str(v)))
    engine = record["engine"]
    what = "the ideal lower bound" if engine == "ideal" else "calibrated estimate (range)"
    print_table(f"scenario, engine {engine}: {what}", ("quantity", "value"), rows)
    dep = deployment_from_args(args)
    from llm_roofline.deploy.report_table import parts_note, tpot_parts

    print(f"{parts_note(dep)}; here of one output token's step")
    if engine != "ideal":
        p = tpot_parts(
            dep,
            batch=args.batch,
            input_len=args.input_len,
            output_len=record["output_len"],
            mode=args.mode,
        )
        scale, unit = time_unit(p["engine_s"])
        print(
            f"tpot under {engine} = ideal tpot + the terms' shortfall at measured efficiencies "
            f"+ fixed times per pass and layer: {fmt_num(p['ideal_s'] / scale)} + "
            f"{fmt_num(p['efficiency_s'] / scale)} + {fmt_num(p['fixed_s'] / scale)} = "
            f"{fmt_num(p['engine_s'] / scale)} {unit}"
        )
        print(f"engine {engine}: {record['engine_profile']}")
    if record["usd_per_million_output_tokens"] is None:
        print(f"$ per million output tokens: {unpriced_note(args)}")


def _profile_note(engine: str, chip: Any) -> str:
    """Which constants the calibrated engine took for this chip ("ideal" for the ideal): the
    chip of --hardware, a catalog id or a chip file, as the prediction used it."""
    from llm_roofline.calibration.profile import get_profile

    prof = get_profile(engine, chip)
    return "ideal" if prof is None else prof.note


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    pr = sub.add_parser(
        "predict",
        help="one scenario from flags, or a CSV of them",
        description="One serving scenario from flags, or --scenarios IN.csv --out OUT.csv (the "
        "contract of docs/cli.md). Lengths and batches take sizes like 16k or 1M "
        f"({COUNT_HELP}), on the command line and in the CSV's cells.",
        epilog=examples(
            "llm-roofline predict --model qwen3-8b --hardware l40s --batch 8 --input-len 2k "
            "--output-len 256 --mode static",
            "llm-roofline predict --scenarios in.csv --out out.csv",
        ),
    )
    pr.add_argument(
        "--scenarios",
        metavar="IN.csv",
        help="input CSV, one scenario a row (the contract of docs/cli.md; default: one "
        "scenario from the flags)",
    )
    pr.add_argument("--out", metavar="OUT.csv", help="output CSV (required with --scenarios)")
    one = "required without --scenarios"
    system_flags(pr, required=False, needed=one)
    pr.add_argument("--batch", type=positive_int, help=f"sequences in flight, all replicas ({one})")
    pr.add_argument(
        "--input-len",
        type=positive_int,
        metavar="TOKENS",
        help=f"prompt tokens per request ({one}; {SIZES})",
    )
    pr.add_argument(
        "--output-len",
        type=nonneg_int,
        metavar="TOKENS",
        help=f"generated tokens per request ({one}, but not in decode mode, where it may be 0)",
    )
    pr.add_argument(
        "--mode",
        default="decode",
        choices=MODES,
        help="decode: one decode step of batch sequences at input_len tokens of context; "
        "static: a fixed batch from its prefill to its last token; continuous: steady state "
        "with batch requests in flight, new prompts prefilled in chunks (default decode)",
    )
    json_flag(pr)
    pr.set_defaults(func=cmd_predict)
