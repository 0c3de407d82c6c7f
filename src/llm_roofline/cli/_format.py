"""Numbers, times, money and tables as people read them (the command line's output; `--json`
stays SI): never an exponent, a time in the unit that reads best, a table with its units in its
headers, fitted to the terminal."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from llm_roofline._core import units


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
    return units.sig(v, digits)


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
    # .3g only where it stays fixed point: 999.5 would round to 1e+03
    return f"${x:,.3g}" if abs(x) < 999.5 else f"${x:,.0f}"


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
