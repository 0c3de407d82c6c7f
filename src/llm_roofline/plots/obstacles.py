"""What a label or legend must keep clear of: an axes' drawn lines as segments and its points,
in pixels, and how much of them a box covers (`layout` places words with it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.arrays import FloatArray

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.transforms import Bbox

__all__ = ["CLEAR", "TICKS", "Obstacles", "box_within", "points_inside"]

TICKS = "minor ticks"  # the gid of the lines `canvas` draws minor ticks with: no obstacle
CLEAR = 2.0  # pixels kept between a label and a line (about half a thick line)


@dataclass
class Obstacles:
    """An axes' drawn lines as segments, and its points (markers, scatter), in pixels."""

    lines: list[tuple[FloatArray, FloatArray]]  # each line: segment starts, segment ends
    points: FloatArray

    @classmethod
    def of(cls, ax: Axes) -> Obstacles:
        from matplotlib.collections import PathCollection

        lines, points = [], [np.empty((0, 2))]
        for ln in ax.lines:
            if not ln.get_visible() or ln.get_gid() == TICKS:
                continue
            xy = ln.get_transform().transform(ln.get_path().vertices)
            if ln.get_marker() not in ("None", "", " ", None):
                points.append(xy[np.all(np.isfinite(xy), axis=1)])
            if ln.get_linestyle() in ("None", "", " ") or ln.get_linewidth() == 0:
                continue
            ok = np.all(np.isfinite(xy[:-1]), axis=1) & np.all(np.isfinite(xy[1:]), axis=1)
            lines.append((xy[:-1][ok], xy[1:][ok]))
        for coll in ax.collections:
            if isinstance(coll, PathCollection) and coll.get_visible():
                xy = coll.get_offset_transform().transform(coll.get_offsets())
                points.append(xy[np.all(np.isfinite(xy), axis=1)])
        return cls(lines, np.concatenate(points))

    def crossings(self, box: Bbox) -> int:
        """How many lines pass through `box` (widened by `CLEAR`)."""
        wide = box.padded(CLEAR)
        return sum(_length_inside(a, b, wide) > 0 for a, b in self.lines)

    def ink(self, box: Bbox) -> float:
        """The length of line (pixels) and number of points inside `box`, a point counted as
        ten pixels of line."""
        inside = points_inside(self.points, box.padded(CLEAR))
        return sum(_length_inside(a, b, box) for a, b in self.lines) + 10.0 * inside

    def points_in(self, box: Bbox) -> int:
        return points_inside(self.points, box.padded(CLEAR))


def points_inside(points: FloatArray, box: Bbox) -> int:
    x, y = points[:, 0], points[:, 1]
    return int(np.count_nonzero((x >= box.x0) & (x <= box.x1) & (y >= box.y0) & (y <= box.y1)))


def _length_inside(p0: FloatArray, p1: FloatArray, box: Bbox) -> float:
    """The total length of the segments p0[i]-p1[i] inside `box` (Liang-Barsky clipping)."""
    if p0.size == 0:
        return 0.0
    d = p1 - p0
    t0 = np.zeros(len(d))
    t1 = np.ones(len(d))
    with np.errstate(divide="ignore", invalid="ignore"):
        for k, (lo, hi) in enumerate(((box.x0, box.x1), (box.y0, box.y1))):
            a = (lo - p0[:, k]) / d[:, k]
            b = (hi - p0[:, k]) / d[:, k]
            flat = d[:, k] == 0
            within = (p0[:, k] >= lo) & (p0[:, k] <= hi)
            enter = np.where(flat, np.where(within, -np.inf, np.inf), np.minimum(a, b))
            leave = np.where(flat, np.where(within, np.inf, -np.inf), np.maximum(a, b))
            t0 = np.maximum(t0, enter)
            t1 = np.minimum(t1, leave)
    return float(np.sum(np.hypot(d[:, 0], d[:, 1]) * np.clip(t1 - t0, 0.0, None)))


def box_within(box: Bbox, frame: Bbox) -> bool:
    return bool(
        box.x0 >= frame.x0 - 0.5
        and box.x1 <= frame.x1 + 0.5
        and box.y0 >= frame.y0 - 0.5
        and box.y1 <= frame.y1 + 0.5
    )
