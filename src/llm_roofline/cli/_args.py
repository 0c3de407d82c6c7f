"""Argument types of the command line: counts and sizes as people write them (16k = 16,384,
through `units.parse_count`), prices, lists and ranges; each refuses bad text with one line
naming what to write."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from llm_roofline._core import units
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import COUNT_HELP, parse_count
from llm_roofline.cli._format import fmt_sig

SIZES = f"sizes like 16k or 1M ({COUNT_HELP})"
_BIG = 10**18  # larger counts are refused while parsing; the library names its own limits


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


def port(text: str) -> int:
    """A TCP port: a whole number from 1 to 65,535 (16 bits, RFC 793)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a port number from 1 to 65535, got {text!r}"
        ) from None
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 1 to 65535, got {n}")
    return n


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
