"""Shared pieces of the command line: the one-line-error parser, argument types, output helpers
(times in the unit a person reads them in, tables with units in their headers), the deployment
flags and the progress bar."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from .. import units
from ..errors import InputError
from ..roofline import OVERLAP_MODES  # the package (numpy) is loaded already: costs nothing
from ..units import COUNT_HELP, parse_count

# where a help text names the fitted engine families: `HelpFormatter` puts `engine_families()`
# in its place when help is printed (reading profiles.toml at every start would slow them all)
ENGINE_FAMILIES = "<ENGINE FAMILIES>"
ENGINE_HELP = (
    "how a pass is timed: calibrated (default: the realistic estimate with a range, constants "
    "fitted to measurements of this chip's vendor and memory kind), ideal (datasheet peaks, no "
    f"overheads: the lower bound), or a fitted engine family, {ENGINE_FAMILIES} (calibrated, "
    "plus what was measured of that engine)"
)
SIZES = f"sizes like 16k or 1M ({COUNT_HELP})"
RANGE_HELP = "A..B = powers of two from A to B (1..256 = 1,2,4,...,256)"
_BIG = 10**18  # larger counts are refused while parsing; the library names its own limits


def engine_families() -> str:
    """The engine families `--engine` takes besides calibrated and ideal, as the library lists
    them (`calibrate.list_profiles`: the families fitted in data/profiles.toml), each with the
    other names it answers to: 'llama.cpp (llamacpp, llama-cpp), lmdeploy, ...'."""
    from .. import calibrate

    names = calibrate.list_profiles()
    aliases: dict[str, list[str]] = {}
    for name in names:
        family = calibrate.ENGINE_ALIASES.get(name)
        if family is not None:
            aliases.setdefault(family, []).append(name)
    families = [n for n in names if n not in ("calibrated", "ideal", *calibrate.ENGINE_ALIASES)]
    return (
        ", ".join(f + (f" ({', '.join(aliases[f])})" if f in aliases else "") for f in families)
        or "none fitted"
    )


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a description or epilog keeps its paragraphs (blank lines
    between them), and a paragraph with an indented line is printed as written (examples,
    lists); the others are wrapped to the terminal as usual. `ENGINE_FAMILIES` in a flag's
    help becomes the engine families the library has, read as help is printed."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        # a flag's help wrapped between words only: never 'llama-' / 'cpp' or '--max-' / 'chips'
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if text and ENGINE_FAMILIES in text:
            text = text.replace(ENGINE_FAMILIES, engine_families())
        return text

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for para in text.strip("\n").split("\n\n"):
            if any(line.startswith(" ") for line in para.splitlines()):
                out.append("\n".join(indent + line for line in para.splitlines()))
            else:
                out.append(super()._fill_text(para, width, indent))
        return "\n\n".join(out)


class Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit code 2, and takes no abbreviated
    flags (`--tp` must never be read as `--tpot-ms`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"llm-roofline: error: {message}\n")


def examples(*commands: str, width: int = 88) -> str:
    """A verb's epilog: its example command lines, printed below its flags, a long one
    continued on the next line (`\\`) between a flag and the one before it."""
    head = "example:" if len(commands) == 1 else "examples:"
    out = []
    for command in commands:
        units: list[str] = []  # each flag with its value
        for word in command.split(" "):
            if (
                units
                and not word.startswith("-")
                and units[-1].startswith("-")
                and " " not in units[-1]
            ):
                units[-1] += " " + word
            else:
                units.append(word)
        lines = [""]
        for unit in units:
            if lines[-1] and len(lines[-1]) + 1 + len(unit) > width - 8:
                lines.append(unit)
            else:
                lines[-1] = f"{lines[-1]} {unit}" if lines[-1] else unit
        out.append("  " + " \\\n      ".join(lines))
    return head + "\n" + "\n".join(out)


# ---- argument types --------------------------------------------------------------------------


def _count(text: str, allow_zero: bool) -> int:
    """A count as `units.parse_count` reads it (16k = 16,384), or argparse's one-line error."""
    try:
        return parse_count(text, allow_zero=allow_zero, maximum=_BIG)
    except InputError:
        what = "0 or a positive integer" if allow_zero else "a positive integer"
        hint = f" ({SIZES})" if any(c.isalpha() for c in text) else ""
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}{hint}") from None


def positive_int(text: str) -> int:
    """A count of 1 or more: `4096`, `16k` (16,384), `1M` (1,048,576)."""
    return _count(text, False)


def nonneg_int(text: str) -> int:
    """A count of 0 or more, written as `positive_int` reads it."""
    return _count(text, True)


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def written_out(unit: str) -> Callable[[str], float]:
    """A positive number written out, for a flag where a size suffix would mislead: a
    provider's '200k' price step is 200,000 tokens, and k = 1,024 reads it as 204,800. `200k`
    is refused with the number to write: 'write 200000 (200k reads as 204,800 tokens: k =
    1,024)'."""

    def parse(text: str) -> float:
        s = text.strip().replace("_", "")
        letter = s[-1:].lower()
        if letter in units.COUNT_SUFFIXES and s[:-1]:
            try:
                v = float(s[:-1])
            except ValueError:
                v = math.nan
            if math.isfinite(v) and v > 0:
                binary = units.COUNT_SUFFIXES[letter]
                name = "k" if letter == "k" else letter.upper()
                decimal = f"{v * 1000 ** (1 + 'kmg'.index(letter)):.15g}"
                raise argparse.ArgumentTypeError(
                    f"write {decimal} ({text.strip()} reads as {fmt_sig(v * binary, 15)} "
                    f"{unit}: {name} = {binary:,})"
                )
        return positive_float(text)

    return parse


def price(text: str) -> float:
    """USD per chip-hour: a positive number, or 0 for hardware you own (no $ per token)."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v >= 0):
        raise argparse.ArgumentTypeError(
            f"expected a positive number, got {text!r} (or 0: hardware you own)"
        )
    return v


def int_list(text: str) -> list[int]:
    """'1,8,64', 'A..B' (powers of two from A to B), counts as `positive_int` reads them:
    '1k..128k' is 1,024, 2,048, ..., 131,072."""
    try:
        if ".." in text:
            lo, hi = (parse_count(x, allow_zero=True, maximum=_BIG) for x in text.split("..", 1))
            if lo < 1 or hi < lo:
                raise ValueError
            out, v = [], lo
            while v <= hi:
                out.append(v)
                v *= 2
            return out
        vals = [parse_count(x, allow_zero=True, maximum=_BIG) for x in text.split(",") if x.strip()]
    except ValueError:  # InputError is one
        raise argparse.ArgumentTypeError(
            f"expected positive integers like 1,8,64 or 1..4096, got {text!r} "
            f"(A..B: powers of two; {SIZES})"
        ) from None
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return vals


def float_list(text: str) -> list[float]:
    out = [positive_float(x) for x in text.split(",") if x.strip()]
    if not out:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")
    return out


# ---- numbers and times as people read them ---------------------------------------------------


def fmt_num(v: float, digits: int = 3) -> str:
    """`v` to `digits` significant digits, never in exponent form: 0.0189, 5.19, 972, 1,130
    (at most four decimals: smaller is '<0.0001'); 'n/a' when not finite."""
    if not math.isfinite(v):
        return "n/a"
    if v == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    if decimals > 4:
        if abs(v) < 0.5e-4:
            return "<0.0001" if v > 0 else "-<0.0001"
        decimals = 4
    text = f"{v:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def fmt_sig(v: float, digits: int = 3) -> str:
    """`v` to `digits` significant digits in fixed point, however large or small, with
    thousands commas: 31,500,000,000,000, 42.6, 0.0000166 (never 3.15e+13 or 1.66e-05);
    'n/a' when not finite."""
    if not math.isfinite(v):
        return "n/a"
    if v == 0:
        return "0"
    r = float(f"{v:.{digits}g}")  # rounded first: 999.96 to three digits is 1,000
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(r))))
    text = f"{r:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# large counts in words: '31.5 trillion' (k and M would read as binary sizes, 1k = 1,024)
_COUNT_WORDS = ((units.tera, "trillion"), (units.giga, "billion"), (units.mega, "million"))


def fmt_count(v: float, digits: int = 3) -> str:
    """A count (tokens, parameters) to `digits` significant digits, a large one in words:
    '31.5 trillion', '740 billion', '2.5 million'; below a million with commas: '864,000'."""
    if not math.isfinite(v):
        return "n/a"
    r = float(f"{v:.{digits}g}")
    for scale, word in _COUNT_WORDS:
        if abs(r) >= scale:
            return f"{fmt_sig(r / scale, digits)} {word}"
    return fmt_sig(r, digits)


def fmt_bytes(v: float) -> str:
    """Bytes in the decimal unit they read best in, three significant digits: '10.7 GB',
    '1.47 MB', '512 B'."""
    for scale, unit in (
        (units.PB, "PB"),
        (units.TB, "TB"),
        (units.GB, "GB"),
        (units.MB, "MB"),
        (units.KB, "kB"),
    ):
        if abs(v) >= scale:
            return f"{fmt_sig(v / scale)} {unit}"
    return f"{fmt_sig(v)} B"


def time_unit(t: float) -> tuple[float, str]:
    """The unit a duration reads best in, as (seconds per unit, name): ns, µs, ms, s below a
    minute, min below an hour, h below two days, d below a year, then y."""
    a = abs(t)
    if not math.isfinite(a) or a == 0:
        return 1.0, "s"
    for scale, name in (
        (units.year, "y"),
        (2 * units.day, "d"),
        (units.hour, "h"),
        (units.minute, "min"),
        (1.0, "s"),
        (units.ms, "ms"),
        (units.us, "µs"),
    ):
        if a >= scale:
            return (units.day if name == "d" else scale), name
    return units.ns, "ns"


def fmt_time(t: float) -> str:
    """A duration in the unit a person reads it in: '24.1 ms', '19 min', '23 h'."""
    if not math.isfinite(t):
        return "n/a"
    scale, unit = time_unit(t)
    return f"{fmt_num(t / scale)} {unit}"


def fmt_range(t: float, low: float, high: float) -> str:
    """A time and its range in one unit, e.g. '7.07 ms (5.91–8.68)'."""
    scale, unit = time_unit(t)
    return f"{fmt_num(t / scale)} {unit} ({fmt_num(low / scale)}–{fmt_num(high / scale)})"


def time_cells(values: Sequence[float | None]) -> tuple[str, list[str]]:
    """A column of durations in one unit (the one its largest reads best in): the unit, for
    the header ('tpot (ms)'), and the cells, numbers only ('—' where there is none)."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    scale, unit = time_unit(max(finite, default=0.0))
    cells = ["—" if v is None or not math.isfinite(v) else fmt_num(v / scale) for v in values]
    return unit, cells


def range_cells(
    values: Sequence[float], lows: Sequence[float | None], highs: Sequence[float | None]
) -> tuple[str, list[str]]:
    """`time_cells` with each value's range beside it: '14.6 (11.9–17.7)'."""
    unit, cells = time_cells(values)
    scale, _ = time_unit(max((abs(v) for v in values if math.isfinite(v)), default=0.0))
    out = []
    for c, lo, hi in zip(cells, lows, highs, strict=True):
        if lo is None or hi is None:
            out.append(c)
        else:
            out.append(f"{c} ({fmt_num(lo / scale)}–{fmt_num(hi / scale)})")
    return unit, out


def plural(n: int, word: str, words: str | None = None) -> str:
    """`n` and the word, in the plural unless n is 1: '1 chip', '8 chips', '2 replicas'."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def fmt_money(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    if 0 < abs(x) < 1e-4:  # where .3g would turn to exponents: $0.0000166, not $1.66e-05
        return f"${fmt_sig(x)}"
    return f"${x:,.3g}" if x < 1000 else f"${x:,.0f}"


def fit_widths(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int
) -> list[int] | None:
    """Column widths (text only, no padding) for a table `width` characters wide in all: None
    when its content fits as it is; else each column at least as wide as its longest word
    (cells and headers wrap between words, never inside one: a number cut short would be
    lost), the room left shared out in proportion to what each column lacks of its full
    width. None too when even the longest words do not fit."""

    def cells(i: int) -> list[str]:
        return [headers[i], *(r[i] for r in rows)]

    full = [max(len(c) for c in cells(i)) for i in range(len(headers))]
    room = width - (3 * len(headers) + 1)  # a space either side of each column, the rules
    if sum(full) <= room:
        return None
    least = [max(len(w) for c in cells(i) for w in c.split() or [""]) for i in range(len(full))]
    spare = room - sum(least)
    if spare < 0:
        return None
    lack = [f - m for f, m in zip(full, least, strict=True)]
    out = [m + spare * k // sum(lack) for m, k in zip(least, lack, strict=True)]
    for i in sorted(range(len(out)), key=lambda i: lack[i] - (out[i] - least[i]), reverse=True):
        if sum(out) < room and out[i] < full[i]:  # what integer shares left over
            out[i] += 1
    return out


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A table in the terminal: rich when installed, aligned plain text otherwise. On a
    terminal it folds to the terminal's width (`COLUMNS` when set), cells wrapping between
    words (`fit_widths`); written to a file or a pipe it takes the width its content needs,
    nothing wrapped."""
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
    full = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    if sys.stdout.isatty():
        console = Console()  # the terminal's width
        fitted = fit_widths(headers, rows, console.width)
    else:  # as wide as the content: a space either side of each column and the rules between
        console = Console(width=max(sum(full) + 3 * len(full) + 1, len(title)))
        fitted = None
    table = Table(title=title or None, title_justify="left")
    for i, h in enumerate(headers):
        table.add_column(
            h,
            justify="left" if i == 0 else "right",
            width=fitted[i] if fitted else None,
            overflow="fold",  # where even a word does not fit: wrapped, not cut to '…'
        )
    for r in rows:
        table.add_row(*r)
    console.print(table)


def dump_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, allow_nan=False))


# ---- the deployment flags --------------------------------------------------------------------


def chip_from_args(args: argparse.Namespace) -> Any:
    """The chip of --hardware (a catalog id or a FILE.toml record) at --price when given (0:
    hardware you own)."""
    from ..catalog import get_hardware

    chip = get_hardware(args.hardware)
    given = getattr(args, "price", None)
    return chip if given is None else chip.with_price(given)


def unpriced_note(args: argparse.Namespace) -> str:
    """Why a table has no $ per token: a price of 0 given (hardware you own), or none."""
    if getattr(args, "price", None) == 0:
        return "price 0: hardware you own, so no $ per token (give --price USD per chip-hour)"
    return "no price for this chip in the catalog: no $ per token (give --price USD per chip-hour)"


MODEL_HELP = (
    "a catalog id (`llm-roofline models` lists them), a config.json, or a folder holding one "
    "(a Hugging Face repo's: `huggingface-cli download REPO config.json --local-dir DIR`)"
)


def context_flag(
    p: argparse.ArgumentParser,
    *,
    default: int | None = 4096,
    what: str = "tokens of context per sequence",
) -> None:
    """`--context`: tokens of KV each sequence holds (default 4,096), sizes like 16k."""
    p.add_argument(
        "--context",
        type=positive_int,
        default=default,
        required=default is None,
        metavar="TOKENS",
        help=what
        + (f" (default {default:,})" if default is not None else " (required)")
        + f"; {SIZES}",
    )


def system_flags(
    p: argparse.ArgumentParser,
    chips_list: bool = False,
    *,
    split: bool = True,
    required: bool = True,
    chips: bool = True,
    needed: str = "",
) -> None:
    """The flags of a deployment (`llm_roofline.deployment`), the same on every verb.
    `required=False`: --model and --hardware are optional to argparse; `needed` says when the
    verb wants them all the same (e.g. "required without --scenarios")."""
    need = " (required)" if required else (f" ({needed})" if needed else "")
    p.add_argument("--model", required=required, help=MODEL_HELP + need)
    p.add_argument(
        "--hardware",
        required=required,
        help="a catalog id (`llm-roofline hardware` lists them) or a chip record FILE.toml "
        "(`llm-roofline hardware ID --toml` prints one to edit)" + need,
    )
    if not chips:
        pass  # the verb chooses the chip counts itself (optimize)
    elif chips_list:
        p.add_argument(
            "--chips",
            type=int_list,
            default="1",
            help=f"chip counts, e.g. 1,8,72 or 1..64 ({RANGE_HELP}; default 1)",
        )
    else:
        p.add_argument(
            "--chips",
            type=positive_int,
            default=1,
            help="chips in all, every replica's (default 1)",
        )
    if split:
        rule = "(default: the split rule chooses, docs/deployment.md)"
        p.add_argument("--tp", type=positive_int, help=f"tensor parallel degree {rule}")
        p.add_argument("--pp", type=positive_int, help=f"pipeline stages {rule}")
        p.add_argument("--ep", type=positive_int, help=f"expert parallel degree {rule}")
        p.add_argument(
            "--replicas",
            type=positive_int,
            help=f"independent instances, each holding the whole model {rule}",
        )
        p.add_argument(
            "--pad-heads",
            action="store_true",
            help="pad query heads up to a multiple of tp (as ESTI did for PaLM; default: no)",
        )
    p.add_argument(
        "--weight-dtype",
        default="bf16",
        help="weights' data type: bf16, fp8, fp4, int8, int4, q4_k_m, ... (default bf16)",
    )
    p.add_argument(
        "--kv-dtype", default="bf16", help="KV cache data type: bf16, fp8, ... (default bf16)"
    )
    p.add_argument(
        "--overlap",
        default="full",
        choices=OVERLAP_MODES,
        help="how compute and memory traffic overlap in the ideal step: full = max(compute, "
        "memory), the lecture's and the lowest; per-op = each operation's max, summed; none = "
        "the sum (default full)",
    )
    p.add_argument("--engine", default="calibrated", help=ENGINE_HELP)
    p.add_argument(
        "--price",
        type=price,
        help="USD per chip-hour (default: the catalog's rental price; 0: hardware you own, "
        "no $ per token)",
    )


def json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json", action="store_true", help="print JSON for a program (SI units: seconds, bytes)"
    )


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
