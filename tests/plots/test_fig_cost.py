"""plots/fig_cost.py: the cost figures of a deployment, on a chip and model small enough to
work by hand (tests/conftest.py: 1 PFLOP/s, 1 TB/s, $3.60 per hour; a 4-layer Llama-like model).

The model's weights read per step: 4 layers × (q, o: 2 × 1024² + k, v: 2 × 1024 × 256 + MLP:
3 × 1024 × 4096) = 4 × 15,204,352 = 60,817,408, plus the output head 1000 × 1024 = 1,024,000,
plus norms (9 × 1024 = 9,216): 61,850,624 parameters, 123,701,248 bytes at bf16, and each
sequence's row of the embedding table, 1024 × 2 = 2,048 bytes, up to the whole table's 1000
rows: at batch B, 123,701,248 + 2,048 min(B, 1000) bytes, read at 1e12 bytes/s, at $0.001 per
second."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from llm_roofline import spec_from_config
from llm_roofline.deploy.deployment import deployment
from llm_roofline.engine.cost import pareto_frontier
from llm_roofline.plots.fig_cost import (
    fig_cost_vs_batch,
    fig_cost_vs_tokens_per_pass,
    fig_latency_vs_cost,
)
from llm_roofline.plots.figure_spec import PlotSpec
from tests.conftest import llama_like, make_chip


def weights_usd_per_m(B: Any) -> Any:
    """The weights' cost per million tokens at batch B: bytes / 1 TB/s × $0.001/s × 1e6 / B."""
    return (123_701_248 + 2_048 * np.minimum(B, 1000)) / 1e12 * 0.001 * 1e6 / B


def _spec(**chip: Any) -> PlotSpec:
    model = spec_from_config(llama_like(), name="small")
    return PlotSpec(deployment(model, make_chip(**chip), 1, engine="ideal"), 2048)


def _line(ax: Any, name: str) -> Any:
    return next(ln for ln in ax.lines if ln.get_label().startswith(name))


def test_cost_vs_batch_draws_the_weight_hyperbola() -> None:
    fig = fig_cost_vs_batch(_spec())
    (ax,) = fig.axes
    assert ax.get_title().startswith(
        "Cost per token vs batch at context 2,048, $3.60 per chip-hour"
    )
    assert (
        ax.get_xlabel().startswith("batch B") and ax.get_ylabel() == "$ per million output tokens"
    )
    assert ax.get_xscale() == ax.get_yscale() == "log"
    w = _line(ax, "weight fetch / B (a hyperbola)")
    B, cost = np.asarray(w.get_xdata()), np.asarray(w.get_ydata())
    assert B[0] == 1 and cost[0] == pytest.approx(0.1237033, rel=1e-6)
    assert np.allclose(cost, weights_usd_per_m(B), rtol=1e-9, atol=0)  # a hyperbola
    total = np.asarray(_line(ax, "cost of the step, ideal").get_ydata())
    for name in ("weight fetch", "compute / B", "KV fetch / B"):
        assert np.all(total >= np.asarray(_line(ax, name).get_ydata()) * (1 - 1e-9))


def test_cost_vs_batch_says_when_the_weights_do_not_fit() -> None:
    # 100 MB of memory against 124 MB of weights
    fig = fig_cost_vs_batch(_spec(mem=100e6))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["the weights alone do not fit:\nshown for batch 1-2 anyway"]


def test_cost_vs_tokens_per_pass_names_decode_and_its_price() -> None:
    fig = fig_cost_vs_tokens_per_pass(_spec())
    (ax,) = fig.axes
    assert ax.get_title().startswith("Cost per token vs tokens per pass")
    assert ax.get_ylabel() == "$ per million tokens processed"
    weights = _line(ax, "weight fetch per token (∝ 1/T)")
    assert np.asarray(weights.get_ydata())[0] == pytest.approx(weights_usd_per_m(1), rel=1e-9)
    texts = [t.get_text() for t in ax.texts]
    assert texts[0] == "decode (1 token per pass)"
    # T = 1 against the cheapest pass: at most the chip's 1000 FLOP per byte (2 FLOP and 2
    # bytes per parameter), the weights read once per token against their matmul; attention
    # and the KV write make the cheapest pass a little dearer, so a bit under 1000
    ratio = float(texts[1].split("costs ")[1].split("×")[0].replace(",", ""))
    assert 900 <= ratio <= 1000


def test_latency_vs_cost_draws_a_frontier_nothing_beats() -> None:
    fig = fig_latency_vs_cost(_spec())
    ax, bar = fig.axes
    assert bar.get_ylabel() == "chips"
    assert ax.get_xlabel() == "$ per million output tokens"
    assert ax.get_ylabel() == "time per output token (ms)"
    (points,) = ax.collections
    cost, latency = np.asarray(points.get_offsets()).T
    front = _line(ax, "frontier")
    for x, y in zip(front.get_xdata(), front.get_ydata(), strict=True):
        # no point both cheaper and faster than a frontier point
        assert not np.any((cost < x * (1 - 1e-9)) & (latency < y * (1 - 1e-9)))
    assert len(front.get_xdata()) == len(pareto_frontier(latency, cost))
    # batch 1 on one chip is on it, labelled "1×1": its latency is the weights read and the
    # KV cache of 2,048 tokens × 4 layers × (K, V) × 256 × 2 bytes = 8,388,608 bytes:
    # (123,701,248 + 2,048 + 8,388,608) B / 1 TB/s = 0.132091904 ms
    assert "1×1" in [t.get_text() for t in ax.texts]
    assert math.isclose(float(np.min(latency)), 0.132091904, rel_tol=1e-9)
