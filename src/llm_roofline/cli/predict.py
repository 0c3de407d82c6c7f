"""Verb `predict`: one scenario from flags, or a CSV of them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..serving import MODES
from ._common import (
    Parser,
    chip_from_args,
    dump_json,
    fmt_money,
    fmt_range,
    fmt_time,
    nonneg_int,
    positive_int,
    print_table,
    system_flags,
)


def _settings(args: argparse.Namespace) -> dict[str, object]:
    """Deployment flags that are not CSV columns: they apply to the one scenario or to every
    row of --scenarios."""
    return {"overlap": args.overlap, "price_usd_per_hour": args.price}


def cmd_predict(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..scenarios import INPUT_COLUMNS, OUTPUT_COLUMNS, predict_one

    if args.scenarios:
        from ..scenario_columns import predict_file

        if not args.out:
            raise InputError("--scenarios needs --out OUT.csv", field="out")
        # by column (scenario_columns): the file `write_results(predict_rows(...))` writes
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
    res = predict_one(row, settings=_settings(args))
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
    rows = [(c, str(record[c])) for c in INPUT_COLUMNS]
    for c in OUTPUT_COLUMNS:
        v = record[c]
        if f"{c}_low" in ranges:
            lo, hi = ranges[f"{c}_low"], ranges[f"{c}_high"]
            if c in ("tpot_s", "ttft_s", "request_latency_s"):
                rows.append((c, fmt_range(v, lo, hi)))
            else:
                rows.append((c, f"{v:,.1f} ({lo:,.1f}–{hi:,.1f})"))
        elif c in ("tpot_s", "ttft_s", "request_latency_s") or c.startswith("t_"):
            rows.append((c, fmt_time(v)))
        elif c.startswith("usd"):
            rows.append((c, fmt_money(v)))
        elif isinstance(v, float):
            rows.append((c, f"{v:,.1f}"))
        else:
            rows.append((c, str(v)))
    engine = record["engine"]
    what = "the ideal lower bound" if engine == "ideal" else "calibrated estimate (range)"
    print_table(f"scenario, engine {engine}: {what}", ("column", "value"), rows)
    if engine != "ideal":
        print(f"engine {engine}: {record['engine_profile']}")
    return 0


def _profile_note(engine: str, chip: Any) -> str:
    """Which constants the calibrated engine took for this chip ("ideal" for the ideal): the
    chip of --hardware, a catalog id or a chip file, as the prediction used it."""
    from ..calibrate import get_profile

    prof = get_profile(engine, chip)
    return "ideal" if prof is None else prof.note


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    pr = sub.add_parser("predict", help="one scenario from flags, or a CSV of them")
    pr.add_argument("--scenarios", help="input CSV (the scenario contract)")
    pr.add_argument("--out", help="output CSV for --scenarios")
    system_flags(pr, required=False)
    pr.add_argument("--batch", type=positive_int, help="sequences in flight, all replicas")
    pr.add_argument("--input-len", type=positive_int, help="prompt tokens per request")
    pr.add_argument(
        "--output-len", type=nonneg_int, help="generated tokens per request (decode: may be 0)"
    )
    pr.add_argument(
        "--mode",
        default="decode",
        choices=MODES,
        help="decode: one step at input_len; static: a fixed batch from prefill to the last "
        "token; continuous: steady state with batch requests in flight (default decode)",
    )
    pr.add_argument("--json", action="store_true")
    pr.set_defaults(func=cmd_predict)
