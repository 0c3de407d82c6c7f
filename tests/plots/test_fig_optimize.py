"""plots/fig_optimize.py: the search's frontier, tokens/s per user against $ per million tokens
and against tokens/s per chip, every point in grey, the cheapest meeting the targets ringed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from llm_roofline.plots import fig_optimize
from llm_roofline.plots.fig_optimize import write_frontier_figure


@pytest.fixture
def saved(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    figures: list[Any] = []

    def keep(fig: Any, stem: str | Path) -> list[Path]:
        figures.append(fig)
        return [Path(f"{stem}.png"), Path(f"{stem}.svg")]

    monkeypatch.setattr(fig_optimize, "save", keep)
    return figures


def _result(best: int | None) -> SimpleNamespace:
    # four configurations; 0, 2 and 3 on the frontier (1 is dearer and slower than 2)
    points = {
        "usd_per_million_tokens": np.array([0.1, 0.5, 0.3, 1.0]),
        "tokens_per_s_per_user": np.array([10.0, 20.0, 40.0, 100.0]),
        "tokens_per_s_per_chip": np.array([5000.0, 900.0, 2000.0, 400.0]),
    }
    return SimpleNamespace(points=points, frontier=np.array([0, 2, 3]), best=best)


def test_the_frontier_is_drawn_on_both_panels(saved: list[Any]) -> None:
    paths = write_frontier_figure(_result(best=2), "search", "out/frontier")
    assert paths == [Path("out/frontier.png"), Path("out/frontier.svg")]
    fig = saved[0]
    assert fig.get_suptitle() == "search"
    a, b = fig.axes
    assert a.get_xlabel() == "$ per million output tokens"
    assert b.get_xlabel() == "throughput per chip (output tokens/s)"
    for ax in (a, b):
        assert ax.get_ylabel() == "output tokens/s per user (1 / time per token)"
        assert ax.get_xscale() == ax.get_yscale() == "log"
        (front,) = ax.lines
        assert list(front.get_ydata()) == [10.0, 40.0, 100.0]  # points 0, 2, 3
        every, ring = ax.collections
        assert len(every.get_offsets()) == 4
        assert ring.get_label() == "cheapest meeting the targets"
    assert list(a.lines[0].get_xdata()) == [0.1, 0.3, 1.0]
    assert list(b.lines[0].get_xdata()) == [5000.0, 2000.0, 400.0]
    # the ring on point 2: $0.3 per million and 2,000 tokens/s per chip, at 40 tokens/s
    assert list(a.collections[1].get_offsets()[0]) == [0.3, 40.0]
    assert list(b.collections[1].get_offsets()[0]) == [2000.0, 40.0]


def test_no_ring_when_nothing_meets_the_targets(saved: list[Any]) -> None:
    write_frontier_figure(_result(best=None), "none", "x")
    for ax in saved[0].axes:
        assert [c.get_label() for c in ax.collections] == ["every config"]
