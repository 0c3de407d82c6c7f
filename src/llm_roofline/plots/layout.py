"""Where a figure's words go, decided when the figure is finished (`canvas.finish`), once the
margins, and so every position on the page, are final:

- labels inside the axes (`label`): each lists the spots it may take, best first, and takes the
  first that no drawn line crosses, that no other word overlaps and that stays inside the axes.
  Where no spot is clear, a label that names a line (B*, a marked context) becomes that line's
  entry in the legend instead, and one that names a point (a frontier's chips × batch) is left
  out rather than printed over a line;
- legends (`legend`): at the corner or side of the axes where they hide the least of the lines
  and points and none of the labels, or (`below=True`, for a figure whose lines leave no
  corner free) under the axes, in room the margins keep for it (`room_below`);
- tick labels of log axes: `log_ticks.py`, which asks `wants_plain` whether an axes' numbers
  are written plainly.

Everything is measured with the renderer the PNG is drawn with (text extents, no draw), so it
adds little to the cost of writing a figure (issue #13).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from llm_roofline.plots.obstacles import TICKS, Obstacles, box_within

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import RendererBase
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.text import Annotation
    from matplotlib.transforms import Bbox

__all__ = [
    "TICKS",
    "Spot",
    "arrange",
    "forget",
    "label",
    "legend",
    "plain_numbers",
    "room_below",
    "wants_plain",
]

PAD = 3.0  # points between a label and the point or line it names
_CROSSED = 1e3  # the badness of one line through a label, or of two words overlapping
_OUTSIDE = 1e6  # the badness of a label (partly) outside its axes


@dataclass(frozen=True)
class Spot:
    """A place a label may take: its anchor, in the label's coordinates, and the side of the
    anchor the text lies on (`ha="left"`: the text starts just right of the anchor; `va="bottom"`:
    it sits just above it)."""

    x: float
    y: float
    ha: str = "left"
    va: str = "center"

    def offset(self) -> tuple[float, float]:
        """The text's offset from the anchor, in points: `PAD` away on the sides it lies on."""
        dx = {"left": PAD, "right": -PAD}.get(self.ha, 0.0)
        dy = {"bottom": PAD, "top": -PAD}.get(self.va, 0.0)
        return dx, dy


@dataclass
class _Label:
    text: Annotation
    spots: tuple[Spot, ...]
    line: Line2D | None  # where no spot is clear, the label becomes this line's legend entry
    drop: bool  # where no spot is clear (and no line), the label is left out
    placed: bool = True  # False once it has left the axes


@dataclass
class _Legend:
    ax: Axes
    loc: str | None  # preferred among equals
    kw: dict[str, Any]  # matplotlib's keywords
    below: bool  # under the axes rather than in them


@dataclass
class _Plan:
    """What a figure asked for: labels to place, legends to make, axes to write plainly."""

    labels: list[_Label] = field(default_factory=list)
    legends: list[_Legend] = field(default_factory=list)
    plain: list[Axes] = field(default_factory=list)
    room: float = 0.0  # inches kept under the axes for legends drawn there


_PLANS: weakref.WeakKeyDictionary[Figure, _Plan] = weakref.WeakKeyDictionary()


def _plan(ax: Axes) -> _Plan:
    return _PLANS.setdefault(ax.figure, _Plan())  # type: ignore[arg-type]


def forget(fig: Figure) -> None:
    """Drop what a figure asked for (once it is finished)."""
    _PLANS.pop(fig, None)


def label(
    ax: Axes,
    text: str,
    spots: Sequence[Spot],
    *,
    coords: str | tuple[str, str] = "data",
    line: Line2D | None = None,
    drop: bool = False,
    **style: Any,
) -> Annotation:
    """A label inside `ax` at the first of `spots` that is clear when the figure is finished
    (`coords`: matplotlib's coordinates of the spots, e.g. ("data", "axes fraction") for a spot
    on a vertical line). `line`: the line it names, whose legend entry it becomes where no spot
    is clear; `drop`: otherwise, leave it out there rather than print it over a line."""
    first = spots[0]
    ann = ax.annotate(
        text,
        (first.x, first.y),
        xycoords=coords,
        xytext=first.offset(),
        textcoords="offset points",
        ha=first.ha,
        va=first.va,
        annotation_clip=False,
        **style,
    )
    _plan(ax).labels.append(_Label(ann, tuple(spots), line, drop))
    return ann


def legend(ax: Axes, loc: str | None = None, *, below: bool = False, **kw: Any) -> None:
    """A legend of `ax` (matplotlib's keywords), placed when the figure is finished: where it
    hides least inside the axes (`loc` preferred among equals), or under the axes."""
    axes: Any = ax  # matplotlib types `loc` as a literal
    axes.legend(loc=loc or ("upper center" if below else "upper left"), **kw)
    _plan(ax).legends.append(_Legend(ax, loc, kw, below))


def plain_numbers(ax: Axes) -> None:
    """Write the tick labels of `ax`'s log axes as plain numbers (0.1, 1, 10) where short."""
    _plan(ax).plain.append(ax)


def wants_plain(ax: Axes) -> bool:
    """Whether `plain_numbers` was asked for `ax`."""
    plan = _PLANS.get(ax.figure)  # type: ignore[arg-type]
    return plan is not None and any(a is ax for a in plan.plain)


# ---- placing ------------------------------------------------------------------------------------


def _move(ann: Any, spot: Spot) -> None:
    ann.xy = (spot.x, spot.y)
    ann.xyann = spot.offset()
    ann.set_horizontalalignment(spot.ha)
    ann.set_verticalalignment(spot.va)


class _Page:
    """What `arrange` measures once and keeps: each axes' obstacles, where each word is (until
    it moves) and where each legend inside the axes is."""

    def __init__(self, renderer: RendererBase) -> None:
        self.renderer = renderer
        self._obstacles: dict[int, Obstacles] = {}
        self._words: dict[int, Bbox] = {}
        self.legends: dict[int, Bbox] = {}

    def obstacles(self, ax: Any) -> Obstacles:
        if id(ax) not in self._obstacles:
            self._obstacles[id(ax)] = Obstacles.of(ax)
        return self._obstacles[id(ax)]

    def words(self, ax: Any, skip: Iterable[Any] = ()) -> list[Bbox]:
        """Where the axes' visible words are, but those in `skip`."""
        skipped = {id(a) for a in skip}
        out = []
        for t in ax.texts:
            if t.get_visible() and t.get_text() and id(t) not in skipped:
                if id(t) not in self._words:
                    self._words[id(t)] = t.get_window_extent(self.renderer)
                out.append(self._words[id(t)])
        return out

    def moved(self, text: Any) -> None:
        self._words.pop(id(text), None)


def _place_label(lab: _Label, page: _Page, pending: list[Any]) -> bool:
    """Put a label at its best spot; True when, no spot being clear, it left the axes for the
    legend."""
    ann = lab.text
    ax: Any = ann.axes
    obstacles = page.obstacles(ax)
    others = page.words(ax, skip=[ann, *pending])
    if id(ax) in page.legends:
        others.append(page.legends[id(ax)])
    best, best_score = lab.spots[0], (math.inf, math.inf)
    for spot in lab.spots:  # the first with nothing in the way, else the least in the way
        _move(ann, spot)
        box = ann.get_window_extent(page.renderer)
        hard = 0.0 if box_within(box, ax.bbox) else _OUTSIDE
        hard += _CROSSED * obstacles.crossings(box)
        hard += _CROSSED * sum(box.overlaps(o) for o in others)
        score = (hard, float(obstacles.points_in(box)))  # then as few points covered
        if score < best_score:
            best, best_score = spot, score
        if score == (0.0, 0.0):
            break
    _move(ann, best)
    page.moved(ann)
    if best_score[0] == 0 or (lab.line is None and not lab.drop):
        return False
    lab.placed = False
    ann.remove()
    if lab.line is None:
        return False
    lab.line.set_label(" ".join(ann.get_text().split()))
    return True


_LOCS = (
    "upper left",
    "upper right",
    "lower right",
    "lower left",
    "upper center",
    "lower center",
    "center left",
    "center right",
)


def _place_legend(entry: _Legend, page: _Page) -> None:
    """Make the legend (again: labels that moved into it are entries now) and put it where it
    covers no word and the least line, or under the axes."""
    ax: Any = entry.ax
    leg: Any = ax.legend(**entry.kw)
    if entry.below:
        fig = ax.figure
        box = ax.get_position()
        top = _plan(ax).room / fig.get_size_inches()[1]  # just under the x axis' title
        leg.set_bbox_to_anchor(((box.x0 + box.x1) / 2, top), transform=fig.transFigure)
        leg.set_loc("upper center")
        return
    from matplotlib.transforms import Bbox

    obstacles = page.obstacles(ax)
    words = page.words(ax)
    size = leg.get_window_extent(page.renderer)  # the same at every place: measured once
    w, h = size.width, size.height
    frame = ax.bbox
    pad = leg.borderaxespad * leg.prop.get_size_in_points() * ax.figure.dpi / 72.0
    best, best_score = None, math.inf
    for where in dict.fromkeys([entry.loc, *_LOCS] if entry.loc else _LOCS):
        x0 = {
            "left": frame.x0 + pad,
            "right": frame.x1 - pad - w,
            "center": frame.x0 + (frame.width - w) / 2,
        }[where.split()[-1]]
        y0 = {
            "upper": frame.y1 - pad - h,
            "lower": frame.y0 + pad,
            "center": frame.y0 + (frame.height - h) / 2,
        }[where.split()[0]]
        box = Bbox.from_bounds(x0, y0, w, h)
        score = obstacles.ink(box) + _OUTSIDE * sum(box.overlaps(word) for word in words)
        if score < best_score:
            best, best_score, page.legends[id(ax)] = where, score, box
    leg.set_loc(best)


_ROOM_PAD = 0.1  # inches under a legend under the axes


def _fit_columns(entry: _Legend, fig: Figure, renderer: RendererBase) -> Any:
    """The legend under the axes with as many of its columns as fit across the figure, centred
    under the axes (fewer columns, more rows: `entry.kw["ncol"]` is lowered to that)."""
    box = entry.ax.get_position()
    mid = (box.x0 + box.x1) / 2  # the legend is centred under the axes
    room = 2 * min(mid, 1 - mid) * fig.bbox.width * 0.98
    while True:
        leg: Any = entry.ax.legend(**entry.kw)
        ncol = int(entry.kw.get("ncol", 1))
        if ncol == 1 or leg.get_window_extent(renderer).width <= room:
            return leg
        entry.kw["ncol"] = ncol - 1


def room_below(fig: Figure, renderer: RendererBase) -> float:
    """Inches to keep under the axes (below their tick labels and titles) for the legends drawn
    there, with a row to spare for each label that may move into one."""
    plan = _PLANS.get(fig)
    if plan is None:
        return 0.0
    room = 0.0
    for entry in plan.legends:
        if not entry.below:
            continue
        leg = _fit_columns(entry, fig, renderer)
        height = leg.get_window_extent(renderer).height / fig.dpi
        n = len(leg.get_texts())
        spare = sum(lab.line is not None and lab.text.axes is entry.ax for lab in plan.labels)
        ncol = int(entry.kw.get("ncol", 1))
        rows, most = -(-n // ncol), -(-(n + spare) // ncol)
        room = max(room, height * most / max(rows, 1) + _ROOM_PAD)
    plan.room = room
    return room


def arrange(fig: Figure, renderer: RendererBase) -> None:
    """Place the legends and labels `fig` asked for (its margins and limits final): each legend
    where it hides least, then each label at its first clear spot; where a label moved into a
    legend, that legend is made and placed again, and the labels again, up to three times."""
    plan = _PLANS.get(fig)
    if plan is None:
        return
    page = _Page(renderer)
    redo = {id(entry.ax) for entry in plan.legends}
    for rounds in range(3):
        for entry in plan.legends:
            if id(entry.ax) in redo:
                _place_legend(entry, page)
        redo = set()
        labels = [lab for lab in plan.labels if lab.placed]
        pending = [lab.text for lab in labels] if rounds == 0 else []
        for lab in labels:
            if lab.text in pending:
                pending.remove(lab.text)
            ax = lab.text.axes
            if _place_label(lab, page, pending):
                redo.add(id(ax))
        if not redo:
            return
    for entry in plan.legends:  # the last labels that moved: their legends, once more
        if id(entry.ax) in redo:
            _place_legend(entry, page)
