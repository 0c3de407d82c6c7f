"""The `llm-roofline` command line: a thin front end over the library (no formulas here).

Verbs: models, hardware, report, predict, sweep, optimize, validate, calibrate, measure, serve,
demo.
Tables use `rich` when it is installed (extra `cli`) and plain aligned text otherwise;
`--json` prints what a program reads. Bad input exits with code 2 and one line on stderr,
never a traceback. matplotlib, rich and torch are imported only inside the verbs that need
them, so `--help` pays for Python, numpy and the package alone (`benchmarks/startup.py`).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"llm-roofline: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def _int_list(text: str) -> list[int]:
    """'1,8,64' or 'A..B' (powers of two from A to B)."""
    try:
        if ".." in text:
            lo, hi = (int(x) for x in text.split("..", 1))
            if lo < 1 or hi < lo:
                raise ValueError
            out, v = [], lo
            while v <= hi:
                out.append(v)
                v *= 2
            return out
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected positive integers like 1,8,64 or 1..4096, got {text!r}"
        ) from None
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return vals


# ---- output helpers ------------------------------------------------------------------------


def _fmt_time(t: float) -> str:
    if t >= 1.0:
        return f"{t:.3g} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} µs"


def _fmt_money(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"${x:,.3g}" if x < 1000 else f"${x:,.0f}"


def _table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A table in the terminal: rich when installed, aligned plain text otherwise."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        if title:
            print(title)
        print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
        for r in rows:
            print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
        return
    table = Table(title=title or None, title_justify="left")
    for i, h in enumerate(headers):
        table.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    Console(width=max(120, 12 * len(headers))).print(table)


def _dump_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, allow_nan=False))


# ---- verbs ---------------------------------------------------------------------------------


def _chip(args: argparse.Namespace) -> Any:
    from .catalog import get_hardware

    chip = get_hardware(args.hardware)
    return chip.with_price(args.price) if getattr(args, "price", None) else chip


def _print_report(rep: Any) -> None:
    print(
        f"{rep.model} on {rep.chips} × {rep.hardware}, context {rep.context_len:,} tokens, "
        f"weights {rep.weight_dtype}, KV {rep.kv_dtype}, overlap {rep.overlap}"
    )
    if rep.beyond_max_context:
        print(
            f"  WARNING: context {rep.context_len:,} is beyond the model's trained maximum "
            f"({rep.max_context:,}); the numbers below extrapolate"
        )
    print(f"  latency floor (weights one token needs, read once)  {_fmt_time(rep.latency_floor_s)}")
    if rep.all_weights_time_s > rep.latency_floor_s * 1.05:
        print(
            f"  all weights read once (MoE: every expert)           "
            f"{_fmt_time(rep.all_weights_time_s)}"
        )
    print(f"  balance batch B*                                    {rep.balance_batch:,.0f}")
    print(f"  HBM drain time (capacity / bandwidth)               {_fmt_time(rep.drain_time_s)}")
    print(f"  largest batch that fits                             {rep.max_batch:,}")
    if rep.max_batch < 1:
        print(
            f"  DOES NOT FIT: weights need {rep.weights_per_chip_bytes / 1e9:,.1f} GB per chip, "
            f"a chip holds {rep.capacity_per_chip_bytes / 1e9:,.1f} GB; more chips or a "
            f"smaller weight type. Times below are computed anyway."
        )
    headers = (
        "batch",
        "t_compute",
        "t_weights",
        "t_kv",
        "t_comm",
        "t_step",
        "bound",
        "tokens/s",
        "$/M tokens",
        "fits",
    )
    rows = [
        (
            f"{r['batch']:,}",
            _fmt_time(r["t_compute_s"]),
            _fmt_time(r["t_weights_s"]),
            _fmt_time(r["t_kv_s"]),
            _fmt_time(r["t_comm_s"]) if r["t_comm_s"] else "-",
            _fmt_time(r["t_step_s"]),
            r["bound"],
            f"{r['tokens_per_s']:,.0f}",
            _fmt_money(r["usd_per_million_tokens"]),
            "yes" if r["fits"] else "NO",
        )
        for r in rep.rows
    ]
    _table("", headers, rows)


def _report(args: argparse.Namespace, out: Path | None) -> int:
    from .parallel import Parallelism
    from .report import decode_report

    chip = _chip(args)
    split = [getattr(args, k, None) for k in ("tp", "pp", "ep")]
    par = None
    if any(v is not None for v in split):
        par = Parallelism.of(args.chips, *split)
    rep = decode_report(
        args.model,
        chip,
        args.chips,
        context_len=args.context,
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        overlap=args.overlap,
        parallel=par,
    )
    if args.json:
        _dump_json(rep.as_dict())
    else:
        _print_report(rep)
    if out is not None:
        from .plots import write_figures

        name = str(args.model)
        if name.endswith(".json") or "/" in name:
            name = Path(name).stem
        prefix = f"{name}_{chip.id}_x{args.chips}_"
        paths = write_figures(
            args.model,
            chip,
            args.chips,
            out,
            context_len=args.context,
            weight_dtype=args.weight_dtype,
            kv_dtype=args.kv_dtype,
            overlap=args.overlap,
            prefix=prefix,
        )
        note = "" if chip.price_usd_per_s > 0 else " (no price: cost figures skipped, use --price)"
        print(f"wrote {len(paths)} figure files to {out}/{note}", file=sys.stderr)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    return _report(args, Path(args.out) if args.out else None)


def _cmd_demo(args: argparse.Namespace) -> int:
    # The lecture's example (DeepSeek-V3 on one GB200 NVL72 rack, FP8 weights as DeepSeek ships
    # them) and a common single-node deployment, with their figures under out/.
    cases = [("deepseek-v3", "gb200", 72, "fp8"), ("llama-3.1-70b", "h100-sxm", 8, "bf16")]
    for i, (m, h, n, wd) in enumerate(cases):
        if i:
            print()
        ns = argparse.Namespace(
            model=m,
            hardware=h,
            chips=n,
            context=4096,
            weight_dtype=wd,
            kv_dtype="bf16",
            overlap="full",
            json=False,
            price=None,
        )
        _report(ns, Path(args.out))
    return 0


def _cmd_predict(args: argparse.Namespace) -> int:
    from .errors import InputError
    from .scenarios import (
        INPUT_COLUMNS,
        OUTPUT_COLUMNS,
        predict_one,
        predict_rows,
        read_scenarios,
        write_results,
    )

    if args.scenarios:
        if not args.out:
            raise InputError("--scenarios needs --out OUT.csv", field="out")
        results = predict_rows(read_scenarios(args.scenarios))
        n = write_results(results, args.out)
        bad = [r for r in results if r.error]
        for r in bad:
            print(f"llm-roofline: error: {args.scenarios}: {r.error}", file=sys.stderr)
        print(
            f"wrote {n} rows ({n - len(bad)} predicted, {len(bad)} with errors) to {args.out}",
            file=sys.stderr,
        )
        return 2 if bad else 0
    missing = [
        f"--{k.replace('_', '-')}"
        for k in ("model", "hardware", "batch", "input_len", "output_len")
        if getattr(args, k) is None
    ]
    if missing:
        raise InputError(
            f"one scenario needs {', '.join(missing)} (or --scenarios IN.csv)", field=missing[0]
        )
    row = {c: getattr(args, c, None) for c in INPUT_COLUMNS}
    res = predict_one(row)
    if res.error:
        raise InputError(f"{res.error.column}: {res.error.message}", field=res.error.column)
    record = {**res.inputs, **res.outputs, **res.extra}
    if res.warning:
        print(f"llm-roofline: warning: {res.warning}", file=sys.stderr)
    if args.json:
        _dump_json(record)
        return 0
    rows = [(c, str(record[c])) for c in INPUT_COLUMNS]
    for c in OUTPUT_COLUMNS:
        v = record[c]
        if c in ("tpot_s", "ttft_s", "request_latency_s") or c.startswith("t_"):
            rows.append((c, _fmt_time(v)))
        elif c.startswith("usd"):
            rows.append((c, _fmt_money(v)))
        elif isinstance(v, float):
            rows.append((c, f"{v:,.1f}"))
        else:
            rows.append((c, str(v)))
    _table("scenario", ("column", "value"), rows)
    return 0


def _cmd_optimize(args: argparse.Namespace) -> int:
    from .optimize import search

    chip = _chip(args)
    res = search(
        args.model,
        chip,
        args.max_chips,
        context_len=args.context,
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        tpot_s=args.tpot_ms / 1e3 if args.tpot_ms else None,
        ttft_s=args.ttft_ms / 1e3 if args.ttft_ms else None,
    )
    front = [res.row(int(i)) for i in res.frontier]
    best = res.row(res.best) if res.best is not None else None
    if args.json:
        _dump_json(
            {
                "configs_tried": res.configs_tried,
                "points": int(res.points["batch"].size),
                "targets": res.targets,
                "best": best,
                "frontier": front,
            }
        )
    else:
        headers = (
            "chips",
            "tp",
            "pp",
            "ep",
            "dp",
            "batch",
            "ms/token",
            "TTFT",
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
                f"{r['tpot_s'] * 1e3:.3g}",
                _fmt_time(r["ttft_s"]),
                f"{r['tokens_per_s_per_user']:,.1f}",
                f"{r['tokens_per_s_per_chip']:,.0f}",
                _fmt_money(r["usd_per_million_tokens"]),
            )
            for r in front
        ]
        _table(
            f"frontier: {len(front)} of {res.points['batch'].size:,} configurations "
            f"({res.configs_tried} splits) of {args.model} on up to {args.max_chips} × "
            f"{chip.id}, context {args.context:,}",
            headers,
            rows,
        )
        if best is None:
            print("no configuration meets the targets")
        else:
            print(
                f"cheapest meeting the targets: {best['chips']} chips, tp {best['tp']}, pp "
                f"{best['pp']}, ep {best['ep']}, dp {best['dp']}, batch {best['batch']:,}: "
                f"{best['tpot_s'] * 1e3:.3g} ms/token, TTFT {_fmt_time(best['ttft_s'])}, "
                f"{_fmt_money(best['usd_per_million_tokens'])} per million tokens"
            )
    if args.out:
        from .plots import write_frontier_figure

        stem = Path(args.out) / f"{Path(str(args.model)).name}_{chip.id}_frontier"
        write_frontier_figure(
            res,
            f"{args.model} on up to {args.max_chips} × {chip.name}, context {args.context:,}",
            stem,
        )
        print(f"wrote the frontier figure to {stem}.png and .svg", file=sys.stderr)
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from .validate import cross_validate, summarise, validate

    results, failed = validate(args.engine)
    summary = summarise(results)
    cv = cross_validate() if args.cv else None
    if args.json:
        _dump_json(
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
        _table(
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
            h = cv["held_out"]
            print(
                f"leave-one-source-out (default profile refitted without each source): "
                f"median {h['median']:.3f}, 90th percentile {h['p90']:.3f} over "
                f"{int(h['rows'])} held-out rows"
            )
        for r, why in failed:
            print(f"llm-roofline: warning: row {r.row} not predicted: {why}", file=sys.stderr)
    if args.out:
        from .plots import write_validation_figure

        stem = Path(args.out) / f"validation_{args.engine}"
        write_validation_figure(results, f"predicted vs measured, engine {args.engine}", stem)
        print(f"wrote {stem}.png and .svg", file=sys.stderr)
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    import tomllib  # noqa: F401  (the output is read back by the package with tomllib)

    from .calibrate import profile_record
    from .validate import fit_profiles

    profiles = fit_profiles(min_rows=args.min_rows)
    lines = [
        "# Calibration profiles fitted by `llm-roofline calibrate` on data/validation.csv.",
        "# Each lists the validation rows (`row`) it was fitted on. Do not edit by hand.",
        "",
    ]
    for p in profiles:
        rec = profile_record(p)
        lines.append(f"[{json.dumps(p.name)}]")
        for k in ("flops_eff", "prefill_eff", "bw_eff", "comm_eff", "overhead_s", "low", "high"):
            lines.append(f"{k} = {rec[k]}")
        lines.append(f"note = {json.dumps(rec['note'])}")
        lines.append(f"fitted_on = {json.dumps(rec['fitted_on'])}")
        lines.append("stats = { " + ", ".join(f"{k} = {v}" for k, v in rec["stats"].items()) + " }")
        lines.append("")
    text = "\n".join(lines)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {len(profiles)} profiles to {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def _cmd_measure(args: argparse.Namespace) -> int:
    from .measure import measure_machine

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
        _dump_json(
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
            f"{rep.bandwidth_bytes_per_s / 1e9:,.1f} GB/s, {rep.dtype} matmul "
            f"{rep.flops / 1e12:,.3f} TFLOP/s (measured)"
        )
        _table(
            f"decode of {rep.model} ({rep.layers} layers, random weights) against the "
            f"engine with the measured peaks",
            ("batch", "context", "measured", "predicted", "pred/meas"),
            [
                (
                    str(p.batch),
                    f"{p.context_len:,}",
                    _fmt_time(p.measured_s),
                    _fmt_time(p.predicted_s),
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


def _cmd_serve(args: argparse.Namespace) -> int:
    from .errors import InputError

    try:
        import uvicorn
    except ImportError:
        raise InputError(
            "the web page needs: pip install 'llm-roofline[web]'", field="serve"
        ) from None
    from .web import create_app

    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"llm-roofline: warning: serving on {args.host}, reachable beyond this machine",
            file=sys.stderr,
        )
    print(f"llm-roofline: http://{args.host}:{args.port}/ (API docs at /docs)", file=sys.stderr)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .report import SWEEP_COLUMNS, sweep

    rows = sweep(
        args.model,
        _chip(args),
        args.batch,
        args.context,
        args.chips,
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        overlap=args.overlap,
    )
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


# ---- economics: prices read backwards, cache tiers, the training balance ------------------


def _float_list(text: str) -> list[float]:
    out = [_positive_float(x) for x in text.split(",") if x.strip()]
    if not out:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")
    return out


def _cmd_pricing(args: argparse.Namespace) -> int:
    import numpy as np

    from .catalog import get_hardware, get_model, list_models
    from .economics import (
        cost_floor,
        cost_vs_context,
        decode_to_prefill_mfu,
        kv_bytes_from_price_step,
    )
    from .errors import InputError

    out: dict[str, Any] = {
        "input_price": args.input_price,
        "output_price": args.output_price,
        "decode_to_prefill_mfu": decode_to_prefill_mfu(args.input_price, args.output_price),
    }
    lines = [
        f"output/input price ratio {args.output_price / args.input_price:.3g}: if prices track "
        f"cost, decode runs at {out['decode_to_prefill_mfu']:.3g} of prefill's utilisation"
    ]
    step = args.long_context_threshold
    if step is not None:
        if args.active_params is None:
            raise InputError(
                "a price step needs --active-params (the model's active parameters)",
                field="active_params",
            )
        if args.ratio is not None:
            ratio, why = args.ratio, "given"
        else:
            chip = get_hardware(args.hardware)
            ratio, why = chip.ops_per_byte, f"{chip.id} bf16 FLOP/s ÷ bytes/s"
        kv = kv_bytes_from_price_step(step, args.active_params, ratio)
        out.update(
            long_context_threshold=step,
            flops_per_byte=ratio,
            implied_kv_bytes_per_token=kv,
        )
        lines.append(
            f"a price step at {step:,.0f} tokens, {args.active_params:.3g} active parameters, "
            f"{ratio:.0f} FLOP/B ({why}): KV ≈ {kv:,.0f} bytes per token"
        )
        if args.long_output_price and args.long_input_price:
            out["long_output_to_input"] = args.long_output_price / args.long_input_price
        # beside it, the real KV bytes per token (bf16 cache) of the catalog's models
        real = []
        for mid in list_models():
            spec = get_model(mid)
            real.append((mid, spec.params_multiplied, spec.kv_bytes_per_token(2)))
        out["catalog_kv_bytes_per_token_bf16"] = {m: b for m, _, b in real}
        rows = [[m, f"{n / 1e9:.1f}B", f"{b:,.0f}", f"{b / kv:.2g}×"] for m, n, b in real]
    if args.model is not None:
        floor = cost_floor(
            args.model,
            _chip(args),
            args.chips,
            context_len=args.context,
            weight_dtype=args.weight_dtype,
            kv_dtype=args.kv_dtype,
        )
        out["cost_floor"] = floor
        lines.append(
            f"{args.model} on {args.chips} × {args.hardware} at context "
            f"{args.context:,} (ideal, batch {floor['batch']:.0f}): "
            f"${floor['usd_per_million_input_tokens']:.3g} per M input, "
            f"${floor['usd_per_million_output_tokens']:.3g} per M output "
            f"(priced ${args.input_price:g} and ${args.output_price:g})"
        )
        if args.out:
            contexts = np.unique(np.geomspace(256, 1_048_576, 60).round())
            curve = cost_vs_context(
                args.model,
                _chip(args),
                contexts,
                args.chips,
                weight_dtype=args.weight_dtype,
                kv_dtype=args.kv_dtype,
            )
            price = None
            if step is not None and args.long_output_price:
                price = (step, args.output_price, args.long_output_price)
            stem = Path(args.out) / f"{args.model}_cost_vs_context"
            from .plots import write_cost_vs_context_figure

            paths = write_cost_vs_context_figure(
                curve,
                f"{args.model} on {args.chips} × {_chip(args).id}",
                stem,
                price,
                max_context=get_model(args.model).max_context,
            )
            lines.append("wrote " + ", ".join(str(p) for p in paths))
    if args.json:
        _dump_json(out)
        return 0
    for line in lines:
        print(line)
    if step is not None:
        _table(
            "catalog models' real KV cache (bf16) against the implied figure",
            ["model", "active", "KV B/token", "÷ implied"],
            rows,
        )
    return 0


def _cmd_cache_tiers(args: argparse.Namespace) -> int:
    import numpy as np

    from .economics import cache_costs

    hold = args.hold or [float(x) for x in np.geomspace(1, 30 * 86400, 60)]
    res = cache_costs(
        args.model,
        _chip(args),
        args.chips,
        context_len=args.context,
        hold_s=hold,
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
    )
    if args.out:
        from .plots import write_cache_tiers_figure

        stem = Path(args.out) / f"{args.model}_{args.hardware}_cache_tiers"
        title = f"{args.model}, {args.context:,}-token context, on {args.chips} × {args.hardware}"
        for p in write_cache_tiers_figure(res, title, stem):
            print(f"wrote {p}", file=sys.stderr)
    if args.json:
        res = {
            **res,
            "hold_s": [float(h) for h in res["hold_s"]],
            "tiers": {
                k: {**v, "usd": [float(x) for x in v["usd"]]} for k, v in res["tiers"].items()
            },
        }
        _dump_json(res)
        return 0
    print(
        f"KV cache of one {args.context:,}-token sequence: {res['kv_bytes'] / 1e9:.3g} GB; "
        f"recomputing it (prefill) takes {res['recompute_s']:.3g} s, "
        f"${res['recompute_usd']:.3g}"
    )
    _table(
        "",
        ["tier", "drain time", "bring back"],
        [
            [k, f"{v['drain_time_s']:.3g} s", f"{v['fetch_s']:.3g} s"]
            for k, v in res["tiers"].items()
        ],
    )
    picks = [
        (h, c)
        for i, (h, c) in enumerate(zip(res["hold_s"], res["cheapest"], strict=True))
        if i == 0 or c != res["cheapest"][i - 1]
    ]
    print("cheapest: " + "; ".join(f"from {h:.3g} s: {c}" for h, c in picks))
    return 0


def _cmd_balance(args: argparse.Namespace) -> int:
    from .economics import balance

    r = balance(
        args.tokens_per_s,
        args.days,
        args.active_params,
        pretrain_mfu=args.pretrain_mfu,
        inference_mfu=args.inference_mfu,
        rl_flops_per_token=args.rl_flops_per_token,
        rl_mfu=args.rl_mfu,
    )
    if args.json:
        _dump_json(dict(r.__dict__))
        return 0
    print(f"inference tokens:  {r.inference_tokens:.3g}")
    print(f"pre-training tokens at equal cost: {r.pretrain_tokens:.3g}")
    print(f"RL tokens at equal cost: {r.rl_tokens:.3g}")
    print(
        f"Chinchilla (20 per parameter): {r.chinchilla_tokens:.3g}; "
        f"over-training factor {r.overtraining:.3g}"
    )
    return 0


def _cmd_models(args: argparse.Namespace) -> int:
    from .catalog import list_models, model_entry

    rows = []
    for mid in list_models():
        e = model_entry(mid)
        s = e.spec
        if args.filter and args.filter.lower() not in f"{mid} {e.name}".lower():
            continue
        if (args.moe and not s.is_moe) or (args.dense and s.is_moe):
            continue
        if args.attention and s.attention.kind != args.attention:
            continue
        rows.append(
            {
                "id": mid,
                "name": e.name,
                "attention": s.attention.kind,
                "moe": s.is_moe,
                "layers": s.n_layers,
                "params_stored": s.params_stored,
                "params_multiplied": s.params_multiplied,
                "kv_bytes_per_token_bf16": s.kv_bytes_per_token(2.0),
                "max_context": s.max_context,
                "config_provenance": e.meta.get("config_provenance", ""),
                "config_source": e.meta.get("config_source", ""),
                "published_params_source": e.meta.get("published_params_source", ""),
            }
        )
    if args.json:
        _dump_json(rows)
        return 0
    headers = ["id", "attn", "MoE", "layers", "stored", "per token", "KV/token (bf16)", "config"]
    if args.sources:
        headers.append("config source")
    table = []
    for r in rows:
        cells = [
            r["id"],
            r["attention"],
            "yes" if r["moe"] else "no",
            str(r["layers"]),
            f"{r['params_stored'] / 1e9:.1f}B",
            f"{r['params_multiplied'] / 1e9:.1f}B",
            f"{r['kv_bytes_per_token_bf16'] / 1e3:.1f} kB",
            r["config_provenance"],
        ]
        if args.sources:
            cells.append(r["config_source"])
        table.append(cells)
    _table(f"{len(rows)} models", headers, table)
    return 0


def _cmd_hardware(args: argparse.Namespace) -> int:
    from .catalog import get_hardware, list_hardware

    rows: list[dict[str, Any]] = []
    for hid in list_hardware():
        c = get_hardware(hid)
        if args.filter and args.filter.lower() not in f"{hid} {c.name} {c.vendor}".lower():
            continue
        if args.status and c.status != args.status:
            continue
        rows.append(
            {
                "id": hid,
                "name": c.name,
                "vendor": c.vendor,
                "status": c.status,
                "peak_flops": {k: v for k, v in c.peak_flops.items()},
                "memory_bytes": c.memory_bytes,
                "memory_bandwidth_bytes_per_s": c.memory_bw,
                "ops_per_byte": c.ops_per_byte,
                "drain_time_s": c.drain_time_s,
                "scale_up_domain": c.scale_up_domain,
                "price_usd_per_hour": c.price_usd_per_s * 3600 or None,
                "price_date": c.price_date or None,
                "estimated": list(c.estimated),
                "sources": dict(c.sources),
            }
        )
    if args.json:
        _dump_json(rows)
        return 0
    headers = [
        "id",
        "16-bit TFLOP/s",
        "memory GB",
        "TB/s",
        "ops:byte",
        "drain",
        "domain",
        "$/chip-h",
        "notes",
    ]
    table = []
    for r in rows:
        c = get_hardware(r["id"])
        note = "announced" if r["status"] == "announced" else ""
        if r["estimated"]:
            note = (note + "; " if note else "") + "est: " + ", ".join(r["estimated"])
        table.append(
            [
                r["id"],
                f"{c.flops(c.compute_dtype_for('bf16')) / 1e12:,.0f}",
                f"{r['memory_bytes'] / 1e9:.0f}",
                f"{r['memory_bandwidth_bytes_per_s'] / 1e12:.2f}",
                f"{r['ops_per_byte']:.0f}",
                _fmt_time(r["drain_time_s"]),
                str(r["scale_up_domain"]),
                f"{r['price_usd_per_hour']:.2f}" if r["price_usd_per_hour"] else "n/a",
                note,
            ]
        )
        if args.sources:
            for key, src in sorted(r["sources"].items()):
                table.append(["", "", "", "", "", "", "", key, src])
    _table(f"{len(rows)} chips", headers, table)
    return 0


# ---- parser --------------------------------------------------------------------------------


def _system_flags(p: argparse.ArgumentParser, chips_list: bool = False) -> None:
    p.add_argument("--model", required=True, help="catalog id or path to a config.json")
    p.add_argument("--hardware", required=True, help="catalog id (see `llm-roofline hardware`)")
    if chips_list:
        p.add_argument("--chips", type=_int_list, default=[1], help="e.g. 1,8,72 or 1..64")
    else:
        p.add_argument("--chips", type=_positive_int, default=1)
    p.add_argument("--weight-dtype", default="bf16", help="bf16, fp8, int4, q4_k_m, ...")
    p.add_argument("--kv-dtype", default="bf16")
    p.add_argument("--overlap", default="full", choices=["full", "per-op", "none"])
    p.add_argument("--price", type=_positive_float, help="USD per chip-hour (default: catalog)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="llm-roofline",
        description="How fast can this model run on that hardware, and what does a token cost?",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    m = sub.add_parser("models", help="list the model catalog")
    m.add_argument("--filter", help="substring of the id or name")
    m.add_argument("--moe", action="store_true", help="mixtures of experts only")
    m.add_argument("--dense", action="store_true", help="dense models only")
    m.add_argument("--attention", choices=["mha", "gqa", "mqa", "mla"])
    m.add_argument("--sources", action="store_true", help="show where each config was read")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=_cmd_models)

    h = sub.add_parser("hardware", help="list the hardware catalog")
    h.add_argument("--filter", help="substring of the id, name or vendor")
    h.add_argument("--status", choices=["shipping", "announced"])
    h.add_argument("--sources", action="store_true", help="show the source of every figure")
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=_cmd_hardware)

    r = sub.add_parser("report", help="the lecture's numbers and figures for one deployment")
    _system_flags(r)
    r.add_argument("--context", type=_positive_int, default=4096, help="tokens of KV per sequence")
    r.add_argument("--tp", type=_positive_int, help="tensor parallel (adds communication)")
    r.add_argument("--pp", type=_positive_int, help="pipeline stages")
    r.add_argument("--ep", type=_positive_int, help="expert parallel")
    r.add_argument("--out", help="write the five figures (PNG and SVG) into this folder")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_cmd_report)

    pr = sub.add_parser("predict", help="one scenario from flags, or a CSV of them")
    pr.add_argument("--scenarios", help="input CSV (the scenario contract)")
    pr.add_argument("--out", help="output CSV for --scenarios")
    pr.add_argument("--model")
    pr.add_argument("--hardware")
    pr.add_argument("--chips", type=_positive_int, default=1)
    pr.add_argument("--tp", type=_positive_int)
    pr.add_argument("--pp", type=_positive_int)
    pr.add_argument("--ep", type=_positive_int)
    pr.add_argument("--weight-dtype", default="bf16")
    pr.add_argument("--kv-dtype", default="bf16")
    pr.add_argument("--batch", type=_positive_int)
    pr.add_argument("--input-len", type=_positive_int)
    pr.add_argument("--output-len", type=_positive_int)
    pr.add_argument("--mode", default="decode", choices=["decode", "static", "continuous"])
    pr.add_argument(
        "--engine",
        default="ideal",
        help="ideal (a lower bound), calibrated, or a profile of data/profiles.toml",
    )
    pr.add_argument("--json", action="store_true")
    pr.set_defaults(func=_cmd_predict)

    sw = sub.add_parser("sweep", help="a grid over batch × context × chips, as CSV")
    _system_flags(sw, chips_list=True)
    sw.add_argument("--batch", type=_int_list, default=_int_list("1..1024"))
    sw.add_argument("--context", type=_int_list, default=_int_list("1024..131072"))
    sw.add_argument("--out", help="CSV file (default: standard output)")
    sw.set_defaults(func=_cmd_sweep)

    o = sub.add_parser("optimize", help="search chips × split × batch for the cheapest serving")
    o.add_argument("--model", required=True, help="catalog id or path to a config.json")
    o.add_argument("--hardware", required=True)
    o.add_argument("--max-chips", type=_positive_int, required=True)
    o.add_argument("--tpot-ms", type=_positive_float, help="target time per output token (ms)")
    o.add_argument("--ttft-ms", type=_positive_float, help="target time to first token (ms)")
    o.add_argument("--context", type=_positive_int, default=4096)
    o.add_argument("--weight-dtype", default="bf16")
    o.add_argument("--kv-dtype", default="bf16")
    o.add_argument("--price", type=_positive_float, help="USD per chip-hour (default: catalog)")
    o.add_argument("--out", help="write the frontier figure (PNG and SVG) into this folder")
    o.add_argument("--json", action="store_true")
    o.set_defaults(func=_cmd_optimize)

    v = sub.add_parser("validate", help="predicted against published measurements")
    v.add_argument("--engine", default="ideal", help="ideal, calibrated, or a profile name")
    v.add_argument("--cv", action="store_true", help="also leave-one-source-out validation")
    v.add_argument("--out", help="write the scatter plot (PNG and SVG) into this folder")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=_cmd_validate)

    c = sub.add_parser("calibrate", help="fit the calibration profiles to the validation set")
    c.add_argument(
        "--min-rows",
        type=_positive_int,
        default=12,
        help="fit a family or hardware-class profile only with this many rows",
    )
    c.add_argument("--out", help="write the profiles TOML here (default: standard output)")
    c.set_defaults(func=_cmd_calibrate)

    me = sub.add_parser("measure", help="measure this machine and a real decode (needs torch)")
    me.add_argument("--model", default="llama-3.1-8b", help="catalog id or config.json path")
    me.add_argument(
        "--layers",
        type=_positive_int,
        default=2,
        help="keep only the first N layers (default 2: fits a laptop)",
    )
    me.add_argument("--batch", type=_int_list, default=[1, 4, 16])
    me.add_argument("--context", type=_int_list, default=[128, 1024])
    me.add_argument("--dtype", default="fp32", choices=["fp32", "bf16", "fp16"])
    me.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    me.add_argument("--save-hardware", help="write the measured peaks as a hardware record")
    me.add_argument("--save-rows", help="write the decode grid as validation rows (CSV)")
    me.add_argument("--hardware-id", default="this-machine")
    me.add_argument("--json", action="store_true")
    me.set_defaults(func=_cmd_measure)

    sv = sub.add_parser("serve", help="the interactive page and its JSON API (extra `web`)")
    sv.add_argument("--host", default="127.0.0.1", help="default: loopback only")
    sv.add_argument("--port", type=_positive_int, default=8000)
    sv.set_defaults(func=_cmd_serve)

    pc = sub.add_parser("pricing", help="what API prices imply about the hardware and model")
    pc.add_argument("--input-price", type=_positive_float, required=True, help="$ per M tokens")
    pc.add_argument("--output-price", type=_positive_float, required=True, help="$ per M tokens")
    pc.add_argument("--long-context-threshold", type=_positive_float, help="tokens")
    pc.add_argument("--long-input-price", type=_positive_float)
    pc.add_argument("--long-output-price", type=_positive_float)
    pc.add_argument("--active-params", type=_positive_float, help="e.g. 1e11")
    pc.add_argument("--ratio", type=_positive_float, help="FLOP/s ÷ bytes/s (default: hardware)")
    pc.add_argument("--model", help="a catalog model for the cost floor and the figure")
    pc.add_argument("--hardware", default="h100-sxm", help="catalog id (default h100-sxm)")
    pc.add_argument("--chips", type=_positive_int, default=1)
    pc.add_argument("--context", type=_positive_int, default=4096)
    pc.add_argument("--weight-dtype", default="bf16")
    pc.add_argument("--kv-dtype", default="bf16")
    pc.add_argument("--price", type=_positive_float, help="USD per chip-hour (default: catalog)")
    pc.add_argument("--out", help="folder for the cost-vs-context figure (needs --model)")
    pc.add_argument("--json", action="store_true")
    pc.set_defaults(func=_cmd_pricing)

    ct = sub.add_parser("cache-tiers", help="where to keep a KV cache, by hold time")
    ct.add_argument("--model", required=True)
    ct.add_argument("--hardware", required=True)
    ct.add_argument("--chips", type=_positive_int, default=1)
    ct.add_argument("--context", type=_positive_int, required=True)
    ct.add_argument("--hold", type=_float_list, help="seconds, e.g. 1,60,3600 (default 1 s-30 d)")
    ct.add_argument("--weight-dtype", default="bf16")
    ct.add_argument("--kv-dtype", default="bf16")
    ct.add_argument("--price", type=_positive_float, help="USD per chip-hour (default: catalog)")
    ct.add_argument("--out", help="folder for the figure")
    ct.add_argument("--json", action="store_true")
    ct.set_defaults(func=_cmd_cache_tiers)

    bl = sub.add_parser(
        "balance", help="token budgets where pre-training, RL and inference cost alike"
    )
    bl.add_argument("--tokens-per-s", type=_positive_float, required=True)
    bl.add_argument("--days", type=_positive_float, required=True)
    bl.add_argument("--active-params", type=_positive_float, required=True)
    bl.add_argument("--pretrain-mfu", type=_positive_float, default=0.4)
    bl.add_argument(
        "--inference-mfu", type=_positive_float, help="default: a third of pre-training's"
    )
    bl.add_argument("--rl-flops-per-token", type=_positive_float, default=3.0, help="× N (2..6)")
    bl.add_argument("--rl-mfu", type=_positive_float, help="default: inference's")
    bl.add_argument("--json", action="store_true")
    bl.set_defaults(func=_cmd_balance)

    d = sub.add_parser("demo", help="report the lecture's example and a common deployment")
    d.add_argument("--out", default="out", help="folder for the figures (default: out)")
    d.set_defaults(func=_cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .errors import LlmRooflineError

    try:
        return int(args.func(args))
    except LlmRooflineError as exc:
        print(f"llm-roofline: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader (e.g. `head`) stopped reading: not an error
        sys.stderr.close()
        return 0
    except OSError as exc:  # an output file that cannot be written
        print(f"llm-roofline: error: {exc.strerror or exc}: {exc.filename}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
