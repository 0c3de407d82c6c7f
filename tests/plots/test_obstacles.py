"""plots/obstacles.py: an axes' lines as pixel segments and its points, and how much of them a
box covers (Liang-Barsky clipping of each segment to the box)."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.transforms import Bbox

from llm_roofline.plots.canvas import new_figure
from llm_roofline.plots.obstacles import CLEAR, TICKS, Obstacles, box_within, points_inside

NO_POINTS = np.empty((0, 2))


def _segments(*segs: tuple[tuple[float, float], tuple[float, float]]) -> Obstacles:
    """One line made of the segments given, no points."""
    starts = np.array([s[0] for s in segs], dtype=float)
    ends = np.array([s[1] for s in segs], dtype=float)
    return Obstacles([(starts, ends)], NO_POINTS)


def test_a_segment_across_a_box_counts_the_part_inside() -> None:
    box = Bbox.from_extents(20, 0, 50, 10)  # 30 px wide, 10 px tall
    # a horizontal segment from x=0 to x=100 at y=5 crosses the whole box: its width, 30 px
    assert math.isclose(_segments(((0, 5), (100, 5))).ink(box), 30.0)
    # the same segment drawn right to left: the same 30 px
    assert math.isclose(_segments(((100, 5), (0, 5))).ink(box), 30.0)
    # one ending inside the box, at x=35: 35 - 20 = 15 px inside
    assert math.isclose(_segments(((0, 5), (35, 5))).ink(box), 15.0)
    # the diagonal y = x - 20 enters at (20, 0) and leaves at (30, 10): 10 √2 px inside
    assert math.isclose(_segments(((0, -20), (100, 80))).ink(box), 10 * math.sqrt(2))
    # a vertical one at x = 60, right of the box: nothing inside
    assert _segments(((60, -50), (60, 50))).ink(box) == 0.0


def test_crossings_keep_a_margin_and_count_lines_not_segments() -> None:
    box = Bbox.from_extents(0, 0, 10, 10)
    # a line 1 px above the box is within CLEAR (2 px) of it: it counts as crossing
    assert CLEAR == 2.0
    assert _segments(((-5, 11), (15, 11))).crossings(box) == 1
    # 3 px above, it is clear
    assert _segments(((-5, 13), (15, 13))).crossings(box) == 0
    # one line of two segments both through the box is one crossing
    assert _segments(((-5, 2), (15, 2)), ((15, 2), (-5, 8))).crossings(box) == 1


def test_points_count_ten_pixels_of_line_each() -> None:
    pts = np.array([[5.0, 5.0], [6.0, 6.0], [50.0, 50.0]])
    box = Bbox.from_extents(0, 0, 10, 10)
    assert points_inside(pts, box) == 2
    # two points inside (the third 40 px away) and no line: 2 × 10 = 20
    assert Obstacles([], pts).ink(box) == 20.0
    assert Obstacles([], pts).points_in(box) == 2


def test_obstacles_of_an_axes_leave_out_minor_ticks_and_split_markers() -> None:
    _fig, ax = new_figure(4, 4)
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.plot([0, 5, 10], [5, 5, 5])  # a line of two segments
    ax.plot([2, 8], [2, 8], "o")  # markers only: two points, no segment
    ax.plot([0, 10], [1, 1], gid=TICKS)  # drawn minor ticks: no obstacle
    ax.scatter([3], [7])  # one more point
    obs = Obstacles.of(ax)
    assert len(obs.lines) == 1 and len(obs.lines[0][0]) == 2
    assert obs.points.shape == (3, 2)
    # the line's pixels: y = 5 is the middle of the axes' height
    starts = obs.lines[0][0]
    assert math.isclose(starts[0, 1], (ax.bbox.y0 + ax.bbox.y1) / 2)


def test_box_within_allows_half_a_pixel() -> None:
    frame = Bbox.from_extents(0, 0, 100, 100)
    assert box_within(Bbox.from_extents(-0.4, 0, 100.4, 100), frame)
    assert not box_within(Bbox.from_extents(-1, 0, 50, 50), frame)
