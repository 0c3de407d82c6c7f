"""plots/layout.py: a label takes the first of its spots that no line crosses; where none is
clear it becomes its line's legend entry, or is left out; a legend goes where it hides least."""

from __future__ import annotations

from typing import Any

from llm_roofline.plots.canvas import finish, new_figure
from llm_roofline.plots.layout import PAD, Spot, label, legend


def _axes() -> tuple[Any, Any]:
    fig, ax = new_figure(6, 4)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    return fig, ax


def test_spot_offsets_the_text_by_pad_on_its_side() -> None:
    # text right of and above its anchor: PAD points right and PAD points up
    assert Spot(0, 0, "left", "bottom").offset() == (PAD, PAD)
    assert Spot(0, 0, "right", "top").offset() == (-PAD, -PAD)
    assert Spot(0, 0, "center", "center").offset() == (0.0, 0.0)


def test_a_label_skips_the_spot_a_line_crosses() -> None:
    fig, ax = _axes()
    ax.plot([0, 1], [0.5, 0.5])  # a horizontal line across the middle
    spots = [Spot(0.5, 0.5, "center", "center"), Spot(0.5, 0.8, "center", "center")]
    ann = label(ax, "a word", spots, coords="axes fraction")
    assert ann.xy == (0.5, 0.5)  # the first spot until the figure is finished
    finish(fig)
    assert ann.xy == (0.5, 0.8)  # the line runs through the first: the second, clear, is taken
    assert ann in ax.texts


def test_with_no_clear_spot_a_label_becomes_its_lines_legend_entry() -> None:
    fig, ax = _axes()
    (line,) = ax.plot([0, 1], [0.5, 0.5])
    ann = label(ax, "the\nline", [Spot(0.5, 0.5, "center", "center")], line=line)
    finish(fig)
    assert ann not in ax.texts
    assert line.get_label() == "the line"  # its words on one line, in the legend


def test_a_dropped_label_is_left_out_and_an_unplaceable_one_kept() -> None:
    fig, ax = _axes()
    ax.plot([0, 1], [0.5, 0.5])
    on_line = [Spot(0.5, 0.5, "center", "center")]
    dropped = label(ax, "drop me", on_line, coords="axes fraction", drop=True)
    kept = label(ax, "keep me", [Spot(0.2, 0.5, "center", "center")], coords="axes fraction")
    finish(fig)
    assert dropped not in ax.texts  # rather than printed over the line
    assert kept in ax.texts  # neither a line to join nor drop: stays, crossed


def test_a_legend_goes_to_the_free_corner() -> None:
    fig, ax = _axes()
    # a line filling the top half, left to right: the upper corners are taken
    for y in (0.55, 0.65, 0.75, 0.85, 0.95):
        ax.plot([0, 1], [y, y], label=f"y = {y}")
    legend(ax, "upper left", fontsize=6)
    finish(fig)
    box = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    middle = (ax.bbox.y0 + ax.bbox.y1) / 2
    assert box.y1 <= middle + 1  # in the lower half, under every line
