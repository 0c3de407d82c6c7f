"""Tick labels of log axes, set when a figure is finished (`canvas.finish`), its limits and size
final: major ticks at powers of ten only; where fewer than three powers of ten show, minor ticks
labelled too (2, 3, 5 or fewer: as many as fit without running into each other); short numbers
written plainly (0.1, 20, 300), others as 10³ and 2×10³. A narrow axis (240 to 290) gets round
numbers, as a linear axis would. Text extents are measured with the renderer the PNG is drawn
with."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llm_roofline.plots.layout import wants_plain

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.backend_bases import RendererBase
    from matplotlib.font_manager import FontProperties

__all__ = ["log_ticks"]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_EVERY = (2, 3, 4, 5, 6, 7, 8, 9)
_SOME = ((2, 3, 5), (2, 5), (3,), ())


def _number(v: float, plain: bool) -> str:
    """A tick label: plainly (0.02, 300, 20,000) when `plain` and short, else 10³ or 2×10³."""
    if plain and 1e-4 <= v < 1e6:
        return f"{v:,.6g}"
    k = math.floor(math.log10(v) + 1e-9)
    m = v / 10.0**k
    power = "10" + str(k).translate(_SUPERSCRIPT)
    return power if abs(m - 1) < 1e-9 else f"{m:.3g}×{power}"


def _key(v: float) -> int:
    return round(math.log10(v) * 1e6)


def log_ticks(ax: Axes, renderer: RendererBase) -> None:
    """Major ticks of `ax`'s log axes at the powers of ten only, labelled as densely as fits
    (module docstring); the axes' limits and size final."""
    plain = wants_plain(ax)
    dpi = float(ax.figure.dpi)
    for along, axis, length in ((0, ax.xaxis, ax.bbox.width), (1, ax.yaxis, ax.bbox.height)):
        if axis.get_scale() == "log":
            _log_axis(_Ruler.of(axis, along, length, dpi, renderer), axis, plain)


@dataclass(frozen=True)
class _Ruler:
    """One log axis as the labels see it: its decades from `a` to `b` (log10 of its limits),
    `length` pixels long, and whether texts fit side by side along it."""

    lo: float
    hi: float
    along: int  # 0 for x, 1 for y
    length: float
    gap: float  # pixels kept between two labels
    font: FontProperties
    renderer: RendererBase

    @classmethod
    def of(
        cls, axis: Axis, along: int, length: float, dpi: float, renderer: RendererBase
    ) -> _Ruler:
        lo, hi = sorted(axis.get_view_interval())
        font = axis.get_major_ticks(1)[0].label1.get_fontproperties()
        gap = 0.4 * float(font.get_size_in_points()) * dpi / 72.0
        return cls(float(lo), float(hi), along, length, gap, font, renderer)

    @property
    def usable(self) -> bool:
        return self.lo > 0 and self.hi > self.lo and math.isfinite(self.hi)

    @property
    def a(self) -> float:
        return math.log10(self.lo)

    @property
    def b(self) -> float:
        return math.log10(self.hi)

    @property
    def decades(self) -> list[int]:
        eps = 1e-9 * (self.b - self.a)
        return list(range(math.ceil(self.a - eps), math.floor(self.b + eps) + 1))

    @property
    def inner(self) -> range:
        return range(math.floor(self.a), math.ceil(self.b) + 1)

    def within(self, v: float) -> bool:
        eps = 1e-9 * (self.b - self.a)
        return self.a - eps <= math.log10(v) <= self.b + eps

    def fits(self, values: list[float], texts: list[str]) -> bool:
        a, b = self.a, self.b
        where = [(math.log10(v) - a) / (b - a) * self.length for v in values]
        size = [
            float(
                self.renderer.get_text_width_height_descent(t, self.font, ismath=False)[self.along]
            )
            for t in texts
        ]
        return all(
            where[i + 1] - where[i] >= (size[i] + size[i + 1]) / 2 + self.gap
            for i in range(len(values) - 1)
        )


_Chosen = tuple[list[float], list[float], list[str]]  # majors, labelled values, their texts


def _densest(r: _Ruler, plain: bool) -> _Chosen:
    """The most labels that fit: every power of ten with minor ticks where few show, else every
    2nd, 3rd, ... power; none when not even one power in fifty fits."""
    subsets = ([_EVERY] if r.b - r.a < 0.6 else []) + list(_SOME if len(r.decades) < 3 else [()])
    for stride in (1, 2, 3, 4, 5, 10, 20, 50):
        majors = [10.0**k for k in r.decades if k % stride == 0]
        for subset in subsets if stride == 1 else [()]:
            minors = [m * 10.0**k for k in r.inner for m in subset if r.within(m * 10.0**k)]
            values = sorted(majors + minors)
            texts = [_number(v, plain or bool(minors)) for v in values]
            if r.fits(values, texts):
                return majors, values, texts
    return [], [], []


def _round_numbers(r: _Ruler, majors: list[float]) -> tuple[list[float], list[str], list[float]]:
    """A narrow axis (240 to 290): round numbers, as on a linear axis (values, texts, and the
    ticks added beside the powers of ten); nothing when none fit."""
    from matplotlib.ticker import MaxNLocator

    for bins in (6, 5, 4, 3, 2):
        locator = MaxNLocator(nbins=bins, steps=[1, 2, 2.5, 5, 10])
        ticks = [float(v) for v in locator.tick_values(r.lo, r.hi) if v > 0 and r.within(v)]
        both = sorted({*ticks, *majors})
        words = [_number(v, True) for v in both]
        if len(both) >= 2 and r.fits(both, words):
            return both, words, [v for v in ticks if v not in majors]
    return [], [], []


def _log_axis(r: _Ruler, axis: Axis, plain: bool) -> None:
    """Label one log axis: the densest labels that fit, round numbers on a narrow one."""
    from matplotlib.ticker import FixedLocator, FuncFormatter

    if not r.usable:
        return
    majors, values, texts = _densest(r, plain)
    extra: list[float] = []
    if len(values) < 2:
        both, words, added = _round_numbers(r, majors)
        if both:
            values, texts, extra = both, words, added
    names = {_key(v): t for v, t in zip(values, texts, strict=True)}
    marks = [10.0**k for k in r.decades if 10.0**k not in majors] + extra
    if len(r.decades) <= 10:  # matplotlib's own rule: no 2-9 marks past ten decades
        marks += [m * 10.0**k for k in r.inner for m in _EVERY if r.within(m * 10.0**k)]

    def name(v: float, _pos: Any = None) -> str:
        return names.get(_key(v), "") if v > 0 else ""

    formatter: Callable[[float, Any], str] = name
    axis.set_major_locator(FixedLocator(majors))
    taken = {_key(v) for v in majors}
    marks = list({_key(v): v for v in marks if _key(v) not in taken}.values())  # each once
    axis.set_minor_locator(FixedLocator(sorted(marks)))
    axis.set_major_formatter(FuncFormatter(formatter))
    axis.set_minor_formatter(FuncFormatter(formatter))
