"""plots/log_ticks.py: the labels a log axis gets for its range (module docstring): powers of
ten as 10³, minor ticks labelled where fewer than three powers of ten show (2×10⁶ beyond a
million), plain numbers when asked for, round numbers on a narrow axis."""

from __future__ import annotations

from typing import Any

from llm_roofline.plots.canvas import new_figure
from llm_roofline.plots.layout import plain_numbers
from llm_roofline.plots.log_ticks import log_ticks


def _labels(lo: float, hi: float, plain: bool = False) -> list[tuple[float, str]]:
    """The labelled ticks of an 8-inch log x axis from `lo` to `hi`, in order."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, ax = new_figure(8, 5)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    if plain:
        plain_numbers(ax)
    log_ticks(ax, FigureCanvasAgg(fig).get_renderer())  # type: ignore[no-untyped-call]
    axis: Any = ax.xaxis
    fmt = axis.get_major_formatter()
    locs = sorted({*axis.get_majorticklocs(), *axis.get_minorticklocs()})
    return [(float(v), fmt(v)) for v in locs if lo <= v <= hi and fmt(v)]


def test_six_decades_are_labelled_at_the_powers_of_ten_only() -> None:
    # 1 to 10⁶: seven powers of ten, room for each on 8 inches; no minor tick is labelled
    got = _labels(1, 1e6)
    assert got == [(10.0**k, "10" + "⁰¹²³⁴⁵⁶"[k]) for k in range(7)]


def test_less_than_a_decade_labels_its_minor_ticks() -> None:
    # 10⁶ to 6×10⁶: one power of ten, so the 2, 3, 5 minor ticks are labelled; past 10⁶ no
    # number is written plainly: 2×10⁶, not 2,000,000
    got = _labels(1e6, 6e6)
    assert got == [(1e6, "10⁶"), (2e6, "2×10⁶"), (3e6, "3×10⁶"), (5e6, "5×10⁶")]
    # below a million the same ticks are short numbers, written plainly: 1,000, 2,000, ...
    assert [t for _, t in _labels(1e3, 6e3)] == ["1,000", "2,000", "3,000", "5,000"]


def test_plain_numbers_when_asked() -> None:
    # 0.1 to 1000 with plain_numbers: 0.1, 1, 10, 100, 1,000 rather than 10⁻¹ ... 10³
    assert [t for _, t in _labels(0.1, 1000, plain=True)] == ["0.1", "1", "10", "100", "1,000"]
    assert [t for _, t in _labels(0.1, 1000)] == ["10⁻¹", "10⁰", "10¹", "10²", "10³"]


def test_a_narrow_axis_gets_round_numbers() -> None:
    # 240 to 290 holds no power of ten and no 2, 3 or 5 × 10ᵏ (200 and 300 lie outside):
    # round numbers as a linear axis would have them, at least two, each a multiple of ten
    got = _labels(240, 290)
    assert len(got) >= 2
    for v, text in got:
        assert v % 10 == 0 and text == f"{v:.0f}"
