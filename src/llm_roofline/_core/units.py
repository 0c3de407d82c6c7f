"""Units as plain named floats (SI inside the engine; convert once, at the edge).

GB and GiB are different words: datasheets use both, and we keep whichever they state.
"""

from __future__ import annotations

import math

from llm_roofline._core.errors import InputError

kilo = 1e3
mega = 1e6
giga = 1e9
tera = 1e12
peta = 1e15

kibi = 2.0**10
mebi = 2.0**20
gibi = 2.0**30
tebi = 2.0**40

KB = kilo
MB = mega
GB = giga
TB = tera
PB = peta
GiB = gibi
TiB = tebi

ms = 1e-3
us = 1e-6
ns = 1e-9
minute = 60.0
hour = 3600.0
day = 86400.0
year = 365.0 * day


# ---- counts as people write them ----------------------------------------------------------

# A count of tokens (a context, a prompt, a batch) may end in a binary multiple, as context
# lengths are written: 16k = 16,384, 128k = 131,072 (Llama 3.1's max_position_embeddings), 1M =
# 1,048,576, 10M = 10,485,760 (Llama 4 Scout's). Case does not matter; no SI (1,000) reading.
COUNT_SUFFIXES = {"k": 2**10, "m": 2**20, "g": 2**30}
COUNT_HELP = "k = 1,024, M = 1,048,576: 16k = 16,384"


def parse_count(
    text: str | int,
    name: str = "value",
    *,
    allow_zero: bool = False,
    maximum: float | None = None,
) -> int:
    """A whole count from text as people write it: `4096`, `16_384`, `16k` (16,384), `1.5k`
    (1,536), `1M` (1,048,576), `1e3` (1,000). The suffixes are binary (COUNT_SUFFIXES). An int
    is checked as is. Anything else, a fraction, a count below 1 (below 0 with `allow_zero`)
    or above `maximum` (default 1e30) raises InputError with one line naming `name`.

    >>> parse_count("128k"), parse_count("1M"), parse_count("1.5k")
    (131072, 1048576, 1536)
    """
    from decimal import Decimal, InvalidOperation

    what = "zero or a positive integer" if allow_zero else "a positive integer"
    bad = InputError(
        f"{name} must be {what} (or a size like 16k or 1M; {COUNT_HELP}), got {text!r}",
        field=name,
    )
    if isinstance(text, bool):
        raise bad
    if isinstance(text, int):
        value = Decimal(text)
    elif isinstance(text, str):
        s = text.strip().replace("_", "")
        scale = COUNT_SUFFIXES.get(s[-1:].lower(), 1) if s else 1
        if scale != 1:
            s = s[:-1]
        try:
            value = Decimal(s) * scale
        except InvalidOperation:
            raise bad from None
        if not value.is_finite():
            raise bad
    else:
        raise bad
    if value != value.to_integral_value() or value < (0 if allow_zero else 1):
        raise bad
    if value > Decimal(maximum if maximum is not None else _MOST):
        most = maximum if maximum is not None else _MOST
        raise InputError(f"{name} must be at most {most:.0e}, got {text!r}", field=name)
    return int(value)


_MOST = 1e30  # no count is near this: a bound that keeps `int()` of '1e999999' from running away


# ---- numbers as people read them ----------------------------------------------------------


def sig(v: float, digits: int = 3) -> str:
    """`v` to `digits` significant digits in fixed point, however large or small, with
    thousands commas: 31,500,000,000,000, 1,650, 42.6, 0.0000166 (never 3.15e+13, 1.65e+03 or
    1.66e-05); 'n/a' when not finite. Messages and labels use it where `:.3g` would switch to
    exponent form."""
    if not math.isfinite(v):
        return "n/a"
    if v == 0:
        return "0"
    r = float(f"{v:.{digits}g}")  # rounded first: 999.96 to three digits is 1,000
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(r))))
    text = f"{r:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
