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

`finish` lays a figure out as it is written: the margins, then (`layout`) the log axes' ticks
and labels, the labels inside the axes and the legends, placed where nothing runs into them,
measured with the PNG's renderer without drawing. The two draws (PNG, SVG) still lay out every
text: together about 0.15 s of one core a figure.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_roofline._core.errors import InputError
from llm_roofline._core.units import mega, ms
from llm_roofline.plots import layout
from llm_roofline.plots.log_ticks import log_ticks

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure

__all__ = [
    "MS",
    "PER_M",
    "count_labels",
    "finish",
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


def plain_log_labels(ax: Axes) -> None:
    """Tick labels of log axes as plain numbers (0.1, 1, 10 rather than 10⁻¹, 10⁰, 10¹) where
    they are short (`log_ticks.log_ticks` chooses which ticks carry one)."""
    layout.plain_numbers(ax)


def count_labels(axis: Axis) -> None:
    """Tick labels of a linear axis of counts written short: 2,000, 40k, 1.2M (no 1e6 offset)."""
    from matplotlib.ticker import FuncFormatter

    def short(v: float, _pos: object = None) -> str:
        if abs(v) >= 1e6:
            return f"{v / 1e6:g}M"
        if abs(v) >= 1e4:
            return f"{v / 1e3:g}k"
        return f"{v:,.0f}"

    axis.set_major_formatter(FuncFormatter(short))


def _title_lines(fig: Figure) -> int:
    """Lines of the tallest axes title plus those of the figure's title."""

    def lines(text: str) -> int:
        return text.count("\n") + 1 if text else 0

    axes = max((lines(ax.get_title()) for ax in fig.axes), default=0)
    return axes + lines(fig.get_suptitle())


def _fixed_margins(fig: Figure, below: float = 0.0) -> None:
    """Margins in inches (the same on every figure of a size), the top one from the titles;
    `below`: inches more at the bottom (for legends under the axes)."""
    width, height = fig.get_size_inches()
    colorbars = sum(ax.get_label() == "<colorbar>" for ax in fig.axes)
    right = _COLORBAR if colorbars else _RIGHT
    top = _TOP + _LINE * _title_lines(fig)
    n = len(fig.axes) - colorbars  # axes side by side
    each = (width - _LEFT - right - (n - 1) * _LEFT) / n  # the gap holds the next y label
    fig.subplots_adjust(
        left=_LEFT / width,
        right=1 - right / width,
        bottom=(_BOTTOM + below) / height,
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
            line.set(data=data, transform=where, zorder=axis.get_zorder(), gid=layout.TICKS)
        axis.set_minor_locator(NullLocator())


def finish(fig: Figure) -> None:
    """Lay a figure out as `save` writes it: fixed margins, then the log axes' ticks, the labels
    inside the axes and the legends (`layout`), then the minor ticks merged. Once only."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()  # type: ignore[no-untyped-call]
    _fixed_margins(fig, layout.room_below(fig, renderer))
    for ax in fig.axes:
        if ax.get_label() != "<colorbar>":
            log_ticks(ax, renderer)
    layout.arrange(fig, renderer)
    layout.forget(fig)
    for ax in fig.axes:
        _merge_minor_ticks(ax)


def save(fig: Figure, path_stem: str | Path) -> list[Path]:
    """Write a figure as PNG and SVG next to each other; returns both paths."""
    finish(fig)
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
