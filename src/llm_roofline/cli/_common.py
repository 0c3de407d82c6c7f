"""Shared pieces of the command line: the one-line-error parser, argument types, output helpers."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from .. import units
from ..roofline import OVERLAP_MODES  # the package (numpy) is loaded already: costs nothing


class Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit code 2, and takes no abbreviated
    flags (`--tp` must never be read as `--tpot-ms`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"llm-roofline: error: {message}\n")


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def nonneg_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 0 or a positive integer, got {text!r}"
        ) from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or a positive integer, got {text!r}")
    return v


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def int_list(text: str) -> list[int]:
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


def float_list(text: str) -> list[float]:
    out = [positive_float(x) for x in text.split(",") if x.strip()]
    if not out:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")
    return out


def fmt_time(t: float) -> str:
    if t >= 1.0:
        return f"{t:.3g} s"
    if t >= units.ms:
        return f"{t / units.ms:.3g} ms"
    return f"{t / units.us:.3g} µs"


def fmt_range(t: float, low: float, high: float) -> str:
    """A time and its range in one unit, e.g. '7.07 ms (5.91–8.68)'."""
    scale, unit = (
        (1.0, "s") if t >= 1.0 else (1 / units.ms, "ms") if t >= units.ms else (1 / units.us, "µs")
    )
    return f"{t * scale:.3g} {unit} ({low * scale:.3g}–{high * scale:.3g})"


def fmt_money(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"${x:,.3g}" if x < 1000 else f"${x:,.0f}"


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
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


def dump_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, allow_nan=False))


def chip_from_args(args: argparse.Namespace) -> Any:
    """The chip of --hardware (a catalog id or a FILE.toml record) at --price when given."""
    from ..catalog import get_hardware

    chip = get_hardware(args.hardware)
    return chip.with_price(args.price) if getattr(args, "price", None) else chip


def system_flags(
    p: argparse.ArgumentParser,
    chips_list: bool = False,
    *,
    split: bool = True,
    required: bool = True,
    chips: bool = True,
) -> None:
    """The flags of a deployment (`llm_roofline.deployment`), the same on every verb."""
    p.add_argument("--model", required=required, help="catalog id or path to a config.json")
    p.add_argument(
        "--hardware",
        required=required,
        help="catalog id (see `llm-roofline hardware`) or a chip record FILE.toml "
        "(`llm-roofline hardware ID --toml` prints one to edit)",
    )
    if not chips:
        pass  # the verb chooses the chip counts itself (optimize)
    elif chips_list:
        p.add_argument("--chips", type=int_list, default=[1], help="e.g. 1,8,72 or 1..64")
    else:
        p.add_argument("--chips", type=positive_int, default=1, help="chips in all (default 1)")
    if split:
        p.add_argument("--tp", type=positive_int, help="tensor parallel degree (default: the rule)")
        p.add_argument("--pp", type=positive_int, help="pipeline stages (default: the rule)")
        p.add_argument("--ep", type=positive_int, help="expert parallel degree (default: the rule)")
        p.add_argument(
            "--replicas",
            type=positive_int,
            help="independent instances, each holding the whole model (default: the rule)",
        )
        p.add_argument(
            "--pad-heads",
            action="store_true",
            help="pad query heads up to a multiple of tp (as ESTI did for PaLM)",
        )
    p.add_argument("--weight-dtype", default="bf16", help="bf16, fp8, int4, q4_k_m, ...")
    p.add_argument("--kv-dtype", default="bf16", help="KV cache data type (default bf16)")
    p.add_argument(
        "--overlap",
        default="full",
        choices=OVERLAP_MODES,
        help="how compute and memory traffic overlap (default full: the lecture's max)",
    )
    p.add_argument(
        "--engine",
        default="calibrated",
        help="calibrated (default: the realistic estimate with a range, constants for this "
        "chip's kind), ideal (the lower bound), or an engine family: vllm, trtllm, sglang, "
        "llamacpp, lmdeploy, mlx, habana (adds what was measured of it)",
    )
    p.add_argument("--price", type=positive_float, help="USD per chip-hour (default: catalog)")


def deployment_from_args(args: argparse.Namespace, chips: int | None = None) -> Any:
    """The Deployment the flags describe (one rule for every verb)."""
    from ..deployment import deployment

    return deployment(
        args.model,
        args.hardware,
        chips if chips is not None else args.chips,
        tp=getattr(args, "tp", None),
        pp=getattr(args, "pp", None),
        ep=getattr(args, "ep", None),
        replicas=getattr(args, "replicas", None),
        pad_heads=bool(getattr(args, "pad_heads", False)),
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        overlap=getattr(args, "overlap", "full"),
        engine=getattr(args, "engine", None),
        price_usd_per_hour=getattr(args, "price", None),
    )


@contextlib.contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on standard error (rich's, when it is installed and standard error is a
    terminal; nothing otherwise): yields `progress(done, total)`."""
    try:
        from rich.progress import Progress
    except ImportError:  # the `cli` extra is not installed
        Progress = None  # type: ignore[assignment,misc]
    if Progress is None or not sys.stderr.isatty():
        yield lambda _done, _total: None
        return
    from rich.console import Console

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield progress
