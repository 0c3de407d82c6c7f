"""plots/fig_economics.py: cost per output token against context under a two-tier price, and a
KV cache's cost per tier against hold time; each written as PNG and SVG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from llm_roofline.economics.token_costs import ContextCosts
from llm_roofline.plots import fig_economics
from llm_roofline.plots.fig_economics import write_cache_tiers_figure, write_cost_vs_context_figure


@pytest.fixture
def saved(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the module saves, kept rather than written."""
    figures: list[Any] = []

    def keep(fig: Any, stem: str | Path) -> list[Path]:
        figures.append(fig)
        return [Path(f"{stem}.png"), Path(f"{stem}.svg")]

    monkeypatch.setattr(fig_economics, "save", keep)
    return figures


def _curve() -> ContextCosts:
    S = np.array([1e3, 1e4, 1e5, 1e6])
    return ContextCosts(
        context=S,
        batch=np.array([64.0, 8.0, 1.0, 0.0]),  # no sequence fits at 10⁶ tokens
        usd_per_million_output_tokens=np.array([0.5, 2.0, 10.0, np.inf]),
        usd_per_million_output_tokens_batch1=np.array([20.0, 21.0, 30.0, 60.0]),
        engine="ideal",
    )


def test_cost_vs_context_draws_the_price_step_and_what_fits(saved: list[Any]) -> None:
    paths = write_cost_vs_context_figure(
        _curve(), "a model", "out/cost", price=(200_000, 3.0, 6.0), max_context=131_072
    )
    assert paths == [Path("out/cost.png"), Path("out/cost.svg")]
    (ax,) = saved[0].axes
    assert ax.get_title() == "Cost per output token vs context\na model"
    assert ax.get_xlabel() == "context length (tokens)"
    assert ax.get_ylabel() == "$ per million output tokens"
    fits, one, price, first = ax.lines
    # the largest batch that fits: only the three contexts where one does
    assert list(fits.get_xdata()) == [1e3, 1e4, 1e5]
    assert (fits.get_label(), one.get_label()) == ("largest batch that fits", "batch 1")
    assert price.get_label() == "price: \\$3 to \\$6 per M above 200,000 tokens"
    assert list(price.get_ydata()) == [3.0, 6.0, 6.0]
    assert first.get_label() == "one sequence no longer fits (1,000,000)"
    bands = [a.get_label() for a in (*ax.patches, *ax.collections)]
    assert bands == ["beyond the trained max context (131,072 tokens)"]


def test_cost_vs_context_without_a_price(saved: list[Any]) -> None:
    curve = _curve()
    curve.batch[-1] = 1.0  # now one sequence fits everywhere
    write_cost_vs_context_figure(curve, "t", "x")
    (ax,) = saved[0].axes
    assert [ln.get_label() for ln in ax.lines] == ["largest batch that fits", "batch 1"]
    assert not ax.patches and not ax.collections  # no band: no max context given


def test_cache_tiers_draws_each_tier_and_recompute(saved: list[Any]) -> None:
    costs = {
        "hold_s": [1.0, 10.0, 100.0],
        "recompute_usd": 0.01,
        "tiers": {
            "hbm": {"name": "GPU memory", "drain_time_s": 0.5, "usd": [0.001, 0.01, 0.1]},
            "ssd": {"name": "local SSD", "drain_time_s": 12.345, "usd": [0.004, 0.0041, 0.005]},
        },
    }
    write_cache_tiers_figure(costs, "ctx 100k", "tiers")
    (ax,) = saved[0].axes
    assert ax.get_title() == "Where to keep a KV cache\nctx 100k"
    assert ax.get_xlabel() == "hold time (s)"
    assert [ln.get_label() for ln in ax.lines] == [
        "hbm: GPU memory (drain 0.5 s)",
        "ssd: local SSD (drain 12.3 s)",  # three significant digits
        "recompute (prefill)",
    ]
    assert list(ax.lines[-1].get_ydata()) == [0.01, 0.01]  # a flat line
