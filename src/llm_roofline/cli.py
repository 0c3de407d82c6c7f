"""The `llm-roofline` command line: a thin front end over the library (no formulas here).

Bad input exits with code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["main"]


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


def _print_report(rep: Any) -> None:
    print(
        f"{rep.model} on {rep.chips} × {rep.hardware}, context {rep.context_len:,} tokens, "
        f"weights {rep.weight_dtype}, KV {rep.kv_dtype}, overlap {rep.overlap}"
    )
    print(f"  latency floor (weights read once) {_fmt_time(rep.latency_floor_s)}")
    print(f"  balance batch B*                  {rep.balance_batch:,.0f}")
    print(f"  HBM drain time (capacity / BW)    {_fmt_time(rep.drain_time_s)}")
    print(f"  largest batch that fits           {rep.max_batch:,}")
    head = ("batch", "t_compute", "t_weights", "t_kv", "t_step", "bound", "tok/s", "$/Mtok")
    widths = (7, 10, 10, 10, 10, 8, 12, 9)
    print("  " + " ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)))
    for r in rep.rows:
        cells = (
            f"{r['batch']:,}",
            _fmt_time(r["t_compute_s"]),
            _fmt_time(r["t_weights_s"]),
            _fmt_time(r["t_kv_s"]),
            _fmt_time(r["t_step_s"]),
            r["bound"],
            f"{r['tokens_per_s']:,.0f}",
            _fmt_money(r["usd_per_million_tokens"]),
        )
        print("  " + " ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))


def _cmd_decode(args: argparse.Namespace) -> int:
    from .report import decode_report

    rep = decode_report(
        args.model,
        args.hardware,
        args.chips,
        context_len=args.context,
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        overlap=args.overlap,
    )
    if args.json:
        print(json.dumps(rep.as_dict(), indent=2))
    else:
        _print_report(rep)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .report import decode_report

    # The lecture's example: DeepSeek-V3 on one GB200 NVL72 rack (72 GPUs), FP8 weights as
    # DeepSeek ships them; then a common single-node deployment.
    cases = [
        ("deepseek-v3", "gb200", 72, "fp8", 4096),
        ("llama-3.1-70b", "h100-sxm", 8, "bf16", 4096),
    ]
    for i, (m, h, n, wd, ctx) in enumerate(cases):
        if i:
            print()
        _print_report(decode_report(m, h, n, context_len=ctx, weight_dtype=wd))
    return 0


def _cmd_models(args: argparse.Namespace) -> int:
    from .catalog import list_models, model_entry

    rows = []
    for mid in list_models():
        e = model_entry(mid)
        s = e.spec
        rows.append(
            {
                "id": mid,
                "name": e.name,
                "attention": s.attention.kind,
                "moe": s.is_moe,
                "params_stored": s.params_stored,
                "params_multiplied": s.params_multiplied,
                "kv_bytes_per_token_bf16": s.kv_bytes_per_token(2.0),
                "config_source": e.meta.get("config_source", ""),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'id':18} {'attn':4} {'moe':3} {'stored':>9} {'per token':>9} {'KV/token':>10}")
    for r in rows:
        print(
            f"{r['id']:18} {r['attention']:4} {'yes' if r['moe'] else 'no':3} "
            f"{r['params_stored'] / 1e9:8.1f}B {r['params_multiplied'] / 1e9:8.1f}B "
            f"{r['kv_bytes_per_token_bf16'] / 1e3:8.1f}kB"
        )
    return 0


def _cmd_hardware(args: argparse.Namespace) -> int:
    from .catalog import get_hardware, list_hardware

    rows: list[dict[str, Any]] = []
    for hid in list_hardware():
        c = get_hardware(hid)
        rows.append(
            {
                "id": hid,
                "name": c.name,
                "status": c.status,
                "bf16_tflops": c.flops(c.compute_dtype_for("bf16")) / 1e12,
                "memory_gb": c.memory_bytes / 1e9,
                "bandwidth_tb_per_s": c.memory_bw / 1e12,
                "ops_per_byte": c.ops_per_byte,
                "drain_time_ms": c.drain_time_s * 1e3,
                "price_usd_per_hour": c.price_usd_per_s * 3600 or None,
                "estimated": list(c.estimated),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    head = ("16-bit TFLOP/s", "GB", "TB/s", "ops:B", "drain", "$/h")
    widths = (14, 6, 6, 6, 8, 6)
    print(f"{'id':17} " + " ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)))
    for r in rows:
        price = f"{r['price_usd_per_hour']:.2f}" if r["price_usd_per_hour"] else "n/a"
        flag = " (announced)" if r["status"] == "announced" else ""
        if r["estimated"]:
            flag += " est: " + ", ".join(r["estimated"])
        print(
            f"{r['id']:17} {r['bf16_tflops']:14,.0f} {r['memory_gb']:6.0f} "
            f"{r['bandwidth_tb_per_s']:6.2f} {r['ops_per_byte']:6.0f} "
            f"{r['drain_time_ms']:6.1f}ms {price:>6}{flag}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="llm-roofline",
        description="How fast can this model run on that hardware, and what does a token cost?",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    d = sub.add_parser("demo", help="the lecture's example and a common deployment")
    d.set_defaults(func=_cmd_demo)

    dec = sub.add_parser("decode", help="latency floor, B*, and a decode table over batch")
    dec.add_argument("--model", required=True, help="catalog id or path to a config.json")
    dec.add_argument("--hardware", required=True, help="catalog id")
    dec.add_argument("--chips", type=_positive_int, default=1)
    dec.add_argument("--context", type=_positive_int, default=4096, help="tokens in KV cache")
    dec.add_argument("--weight-dtype", default="bf16")
    dec.add_argument("--kv-dtype", default="bf16")
    dec.add_argument("--overlap", default="full", choices=["full", "per-op", "none"])
    dec.add_argument("--json", action="store_true", help="machine-readable output")
    dec.set_defaults(func=_cmd_decode)

    m = sub.add_parser("models", help="list the model catalog")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=_cmd_models)

    h = sub.add_parser("hardware", help="list the hardware catalog")
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=_cmd_hardware)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import LlmRooflineError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except LlmRooflineError as exc:
        print(f"llm-roofline: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
