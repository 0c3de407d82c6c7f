"""plots/fig_validation.py: predicted against measured, log-log, one colour per hardware, times
and throughputs side by side with the diagonal; and the held-out errors against the rows'
batch, context, chips, model size and hardware kind."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from llm_roofline.plots import fig_validation
from llm_roofline.plots.fig_validation import write_residual_figure, write_validation_figure
from llm_roofline.validation.validate import RowResult, load_rows


@pytest.fixture
def saved(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    figures: list[Any] = []

    def keep(fig: Any, stem: str | Path) -> list[Path]:
        figures.append(fig)
        return [Path(f"{stem}.png"), Path(f"{stem}.svg")]

    monkeypatch.setattr(fig_validation, "save", keep)
    return figures


def test_times_and_throughputs_side_by_side(saved: list[Any]) -> None:
    base = load_rows()[0]

    def result(hw: str, metric: str, measured: float, predicted: float) -> RowResult:
        row = replace(base, hardware=hw, metric=metric, measured=measured)
        return RowResult(row, predicted, predicted, predicted)

    results = [
        result("h100-sxm", "tpot_s", 0.02, 0.01),
        result("mi300x", "tpot_s", 0.05, 0.04),
        result("h100-sxm", "output_tokens_per_s", 1000.0, 1200.0),
    ]
    write_validation_figure(results, "validation", "v")
    fig = saved[0]
    assert fig.get_suptitle() == "validation"
    times, rates = fig.axes
    assert times.get_xlabel() == "measured time (s)" and times.get_ylabel() == "predicted time (s)"
    assert rates.get_xlabel() == "measured throughput (tokens/s)"
    assert times.get_title() == "times: below the line is faster than measured"
    # one colour per hardware: two in the times panel, one in the throughputs'
    assert [c.get_label() for c in times.collections] == ["h100-sxm", "mi300x"]
    assert [c.get_label() for c in rates.collections] == ["h100-sxm"]
    # limits: the smallest value / 1.5 to the largest × 1.5, the same on both axes
    lo, hi = times.get_xlim()
    assert math.isclose(lo, 0.01 / 1.5) and math.isclose(hi, 0.05 * 1.5)
    assert rates.get_ylim() == pytest.approx((1000 / 1.5, 1200 * 1.5))
    (diagonal,) = rates.lines
    assert list(diagonal.get_xdata()) == list(diagonal.get_ydata())  # predicted = measured


def test_residuals_against_each_feature(saved: list[Any]) -> None:
    rows = {r.row: r for r in load_rows()}
    # row 1: gpt-j-6b on an H100 (Hopper), batch 1024, 128 + 128 tokens, 1 chip;
    # row 1001: llama-3.1-70b on 8 MI300X (AMD Instinct), batch 1, 128 + 2048 tokens
    assert (rows[1].hardware, rows[1001].hardware) == ("h100-sxm", "mi300x")
    write_residual_figure({"rows": [1, 1001], "errors": [0.1, -0.2]}, "held out", "r")
    axes = saved[0].axes
    assert len(axes) == 5
    names = [ax.get_xlabel() for ax in axes[:4]]
    assert names == [
        "batch (sequences)",
        "context: input + output (tokens)",
        "chips (accelerators)",
        "model size (parameters)",
    ]
    xs = [[float(x) for x, _ in ax.collections[0].get_offsets()] for ax in axes[:3]]
    assert xs == [[1024.0, 1.0], [256.0, 2176.0], [1.0, 8.0]]
    assert [float(y) for _, y in axes[0].collections[0].get_offsets()] == [0.1, -0.2]
    kinds = [t.get_text() for t in axes[4].texts]
    assert kinds == ["AMD Instinct", "NVIDIA Hopper"]  # each kind named over its box
