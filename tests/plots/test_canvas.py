"""plots/canvas.py: a figure drawn off-screen at a fixed size, written once as PNG and once as
SVG; counts written short; the units the figures convert with."""

from __future__ import annotations

import struct
from pathlib import Path

from llm_roofline.plots.canvas import (
    DPI,
    MS,
    PER_M,
    count_labels,
    new_figure,
    save,
    set_title,
)


def test_save_writes_one_png_and_one_svg(tmp_path: Path) -> None:
    fig, ax = new_figure(8, 5)
    ax.plot([1, 2, 3], [3, 1, 2], label="a line")
    set_title(ax, "a title")
    paths = save(fig, tmp_path / "sub" / "fig")
    assert paths == [tmp_path / "sub" / "fig.png", tmp_path / "sub" / "fig.svg"]
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["fig.png", "fig.svg"]
    png = paths[0].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # no tight bounding box: 8 × 5 inches at 120 dots per inch is 960 × 600 pixels (the
    # width and height are the IHDR chunk's first two big-endian words, bytes 16 to 24)
    assert DPI == 120
    assert struct.unpack(">II", png[16:24]) == (960, 600)
    svg = paths[1].read_text()
    assert "<svg" in svg and 'width="576pt"' in svg  # 8 in × 72 pt
    assert "a title" in svg


def test_new_figure_puts_axes_side_by_side() -> None:
    fig, axes = new_figure(12, 5, ncols=2)
    assert len(axes) == 2 and len(fig.axes) == 2
    assert tuple(fig.get_size_inches()) == (12, 5)
    left, right = axes[0].get_position(), axes[1].get_position()
    assert left.x1 < right.x0


def test_counts_are_written_short() -> None:
    _fig, ax = new_figure(4, 3)
    count_labels(ax.xaxis)
    fmt = ax.xaxis.get_major_formatter()
    # 2,000 plain; 40,000 as 40k; 1,200,000 as 1.2M (no 1e6 offset)
    assert [fmt(v) for v in (2000, 40_000, 1_200_000)] == ["2,000", "40k", "1.2M"]


def test_units() -> None:
    assert MS * 0.02 == 20.0  # 0.02 s = 20 ms
    assert PER_M * 3e-6 == 3.0  # $3e-6 per token = $3 per million tokens
