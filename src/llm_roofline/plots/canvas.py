"""How every figure is made and written: a bare matplotlib `Figure` (no pyplot, no GUI
backend), fixed margins, and one PNG and one SVG per figure.

Speed (`report --out` and `demo` draw five figures per deployment, issue #13): the engine's
curves take milliseconds; matplotlib drawing the figure takes the rest, mostly in laying out
and rendering text and ticks, and every layout pass is one more full draw. So:

- no `tight_layout` and no `bbox_inches="tight"` (each an extra draw): the margins are fixed in
  inches, the top one sized from the number of title lines;
- titles at a fixed height (`set_title`): matplotlib otherwise measures the tick labels to
  lift a title clear of them, and none of these figures has tick labels on top;
- the minor ticks of a log axis, which matplotlib draws as one artist (three lines, two texts)
  per tick, drawn as two lines per axis (`_merge_minor_ticks`): they were a third of the time;
- log tick labels as plain text with superscript digits (10³), which look as matplotlib's
  mathtext labels do without a parse per label (a sixth of the time).

The two draws (PNG, SVG) still lay out every text: together about 0.15 s of one core a figure.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..units import mega, ms

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.ticker import LogFormatterSciNotation

__all__ = [
    "MS",
    "PER_M",
    "import_matplotlib",
    "new_figure",
    "plain_log_labels",
    "save",
    "set_title",
]

MS = 1 / ms  # seconds -> milliseconds
PER_M = mega  # $ per token -> $ per million tokens
DPI = 120  # the PNG's resolution; SVG is resolution-free

# Margins around the axes, in inches (the figures are 8 to 13 inches wide): room for the
# y label and tick labels on the left, the x label and tick labels below, a title line above.
_LEFT, _RIGHT, _BOTTOM, _TOP = 0.8, 0.2, 0.6, 0.2
_COLORBAR = 0.4  # right margin when the figure has a colour bar (its ticks and label)
_LINE = 0.2  # one line of a 10-point title, with its spacing


def _figure_class() -> type[Figure]:
    """matplotlib's Figure; a clear error when the `plot` extra is not installed."""
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the install
        raise InputError(
            "figures need matplotlib: pip install 'llm-roofline[plot]'", field="out"
        ) from None
    return Figure


def import_matplotlib() -> None:
    """Import matplotlib's figure and the two backends `save` writes with."""
    _figure_class()
    import matplotlib.backends.backend_agg
    import matplotlib.backends.backend_svg  # noqa: F401


def new_figure(width: float, height: float, ncols: int = 1) -> tuple[Figure, Any]:
    """A figure of `width` × `height` inches drawn off-screen, with `ncols` axes side by side
    (one Axes, or an array of them)."""
    fig = _figure_class()(figsize=(width, height), dpi=DPI)
    return fig, fig.subplots(1, ncols)


def set_title(ax: Axes, text: str, fontsize: float = 10) -> None:
    """An axes title at a fixed height just above the axes (no tick labels sit on top)."""
    ax.set_title(text, fontsize=fontsize, y=1.0)


def plain_log_labels(ax: Axes, *, minor_y: bool = False) -> None:
    """Tick labels of log axes as plain numbers (1, 10, 100 rather than 10⁰, 10¹, 10²); the
    minor ticks of x unlabelled, of y labelled as plain numbers when `minor_y`."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(NullFormatter())  # dollars span decades: minor labels collide
    if minor_y:
        ax.yaxis.set_minor_formatter(plain)


def _title_lines(fig: Figure) -> int:
    """Lines of the tallest axes title plus those of the figure's title."""

    def lines(text: str) -> int:
        return text.count("\n") + 1 if text else 0

    axes = max((lines(ax.get_title()) for ax in fig.axes), default=0)
    return axes + lines(fig.get_suptitle())


def _fixed_margins(fig: Figure) -> None:
    """Margins in inches (the same on every figure of a size), the top one from the titles."""
    width, height = fig.get_size_inches()
    colorbars = sum(ax.get_label() == "<colorbar>" for ax in fig.axes)
    right = _COLORBAR if colorbars else _RIGHT
    top = _TOP + _LINE * _title_lines(fig)
    n = len(fig.axes) - colorbars  # axes side by side
    each = (width - _LEFT - right - (n - 1) * _LEFT) / n  # the gap holds the next y label
    fig.subplots_adjust(
        left=_LEFT / width,
        right=1 - right / width,
        bottom=_BOTTOM / height,
        top=1 - top / height,
        wspace=_LEFT / each,  # a fraction of one axes' width
    )


def _merge_minor_ticks(ax: Axes) -> None:
    """Draw the unlabelled minor ticks of each log axis (and their grid lines) as one line of
    tick marks and one of grid lines: the same marks in the same places and styles, as two
    artists instead of one per tick. An axis whose minor ticks carry labels (one spanning less
    than a decade) keeps matplotlib's own."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullLocator

    for axis, transform in (
        (ax.xaxis, ax.get_xaxis_transform),
        (ax.yaxis, ax.get_yaxis_transform),
    ):
        if axis.get_scale() != "log" or isinstance(axis.get_minor_locator(), NullLocator):
            continue
        lo, hi = sorted(axis.get_view_interval())  # final: the figure is drawn next
        locs = axis.get_minorticklocs()
        locs = locs[(locs >= lo) & (locs <= hi)]
        if any(axis.get_minor_formatter().format_ticks(locs.tolist())):
            continue
        tick = axis.get_minor_ticks(1)[0]  # what one tick would draw, as the template
        if tick.tick2line.get_visible() or tick.label2.get_visible():
            continue  # not drawn by these figures: leave such an axis as matplotlib has it
        n = locs.size
        across = np.tile([0.0, 1.0, np.nan], n)  # each grid line spans the axes, then a gap
        along = np.repeat(locs, 3)
        marks = (locs, np.zeros(n))
        grid = (along, across)
        if axis is ax.yaxis:
            marks, grid = marks[::-1], grid[::-1]
        for template, data, where in (
            (tick.gridline, grid, transform("grid")),
            (tick.tick1line, marks, transform("tick1")),
        ):
            if not template.get_visible():
                continue
            line = Line2D([], [])
            ax.add_artist(line)  # before copying the style: this would clip the marks away
            line.update_from(template)
            line.set(data=data, transform=where, zorder=axis.get_zorder())
        axis.set_minor_locator(NullLocator())


_MATHTEXT = re.compile(r"^\$\\mathdefault\{(.*)\}\$$")
_EXPONENT = re.compile(r"\^\{(-?\d+)\}")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _unmath(label: str) -> str:
    """matplotlib's log label in mathtext (`$\\mathdefault{2\\times10^{-3}}$`) as plain text
    (2×10⁻³); any other label unchanged."""
    m = _MATHTEXT.match(label)
    if m is None:
        return label
    text = m.group(1).replace("\\times", "×")
    return _EXPONENT.sub(lambda e: e.group(1).translate(_SUPERSCRIPT), text)


@functools.cache
def _superscripts() -> type[LogFormatterSciNotation]:
    """matplotlib's default log formatter, writing its labels through `_unmath`."""
    from matplotlib.ticker import LogFormatterSciNotation

    class Superscripts(LogFormatterSciNotation):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return _unmath(super().__call__(x, pos))

    return Superscripts


def _superscript_log_labels(ax: Axes) -> None:
    """Swap matplotlib's default log formatter (mathtext labels) for the same formatter
    writing plain text with superscript digits, on every axis that still has it."""
    from matplotlib.ticker import LogFormatterSciNotation

    for axis in (ax.xaxis, ax.yaxis):
        for minor in (False, True):
            fmt = axis.get_minor_formatter() if minor else axis.get_major_formatter()
            if type(fmt) is not LogFormatterSciNotation:
                continue
            plain = _superscripts()(
                base=getattr(fmt, "_base", 10.0),
                labelOnlyBase=fmt.labelOnlyBase,
                minor_thresholds=fmt.minor_thresholds,
            )
            if minor:
                axis.set_minor_formatter(plain)
            else:
                axis.set_major_formatter(plain)


def save(fig: Figure, path_stem: str | Path) -> list[Path]:
    """Write a figure as PNG and SVG next to each other; returns both paths."""
    _fixed_margins(fig)
    for ax in fig.axes:
        _superscript_log_labels(ax)
        _merge_minor_ticks(ax)
    paths = []
    for ext in ("png", "svg"):
        path = Path(f"{path_stem}.{ext}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if ext == "png":
            # zlib level 3 rather than Pillow's 6: a third less time compressing, 4% more bytes
            fig.savefig(path, dpi=DPI, pil_kwargs={"compress_level": 3})
        else:
            fig.savefig(path, dpi=DPI)
        paths.append(path)
    return paths
