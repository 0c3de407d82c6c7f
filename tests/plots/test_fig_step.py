"""plots/fig_step.py: the step-time figures of a deployment, on the small chip and model of
tests/conftest.py (1 PFLOP/s, 1 TB/s, 80 GB; a 4-layer Llama-like model, worked by hand in
tests/plots/test_fig_cost.py: 123,701,248 bytes of weights read per step, plus 2,048 bytes of
embedding row per sequence; 123,682,816 matmul FLOP per token: 2 × (60,817,408 + 1,024,000);
KV cache 4 layers × (K, V) × 2 heads × 128 × 2 bytes = 4,096 bytes per token)."""

from __future__ import annotations

from typing import Any

import numpy as np

from llm_roofline import spec_from_config
from llm_roofline.deploy.deployment import deployment
from llm_roofline.plots.fig_step import context_crossover, fig_step_vs_batch, fig_step_vs_context
from llm_roofline.plots.figure_spec import PlotSpec
from tests.conftest import llama_like, make_chip


def _spec() -> PlotSpec:
    model = spec_from_config(llama_like(), name="small")
    return PlotSpec(deployment(model, make_chip(), 1, engine="ideal"), 2048)


def _line(ax: Any, name: str) -> Any:
    return next(ln for ln in ax.lines if ln.get_label().startswith(name))


def test_step_vs_batch_marks_the_floor_and_b_star() -> None:
    p = _spec()
    fig = fig_step_vs_batch(p)
    (ax,) = fig.axes
    assert ax.get_title().startswith("Step time vs batch at context 2,048\nsmall on 1 × test-chip")
    assert ax.get_xlabel() == "batch B (sequences per decode step)"
    assert ax.get_ylabel() == "time per decode step (ms)"
    # the floor: the weights read once at batch 1, (123,701,248 + 2,048) B / 1 TB/s = 0.1237 ms
    assert [ln.get_label() for ln in ax.lines if "floor" in str(ln.get_label())] == [
        "latency floor 0.124 ms (the weights read once, batch 1)"
    ]
    # memory = weights + KV at every batch
    w, kv, mem = (np.asarray(_line(ax, n).get_ydata()) for n in ("weight", "KV", "memory ="))
    assert np.allclose(mem, w + kv, rtol=1e-12)
    # B*: where the matmuls take as long as the weights' read; past 1,000 sequences the
    # embedding rows are the whole table: 125,749,248 B / 1e12 B/s = B × 123,682,816 / 1e15 s
    # at B = 1016.7
    (b_label,) = [t.get_text() for t in ax.texts]
    b_star = float(b_label.removeprefix("B* = ").replace(",", ""))
    assert abs(b_star - 1016.7) / 1016.7 < 0.01


def _regimes(ax: Any) -> list[str]:
    return [c.get_label() for c in ax.collections]


def test_step_vs_context_shades_the_regimes_and_marks_the_contexts() -> None:
    p = _spec()
    fig = fig_step_vs_context(p, batch=64)
    (ax,) = fig.axes
    assert ax.get_title().startswith("Step time vs context at batch 64\n")  # no "× B*"
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert _regimes(ax) == ["compute-bound", "memory-bound"]  # batch 64 fits at every context
    texts = [" ".join(t.get_text().split()) for t in ax.texts]
    # the balanced context: one sequence's KV fetch, S × 4,096 B / 1e12 B/s, equals its
    # matmuls, 123,682,816 FLOP / 1e15 FLOP/s, at S = 123,682,816 / 4,096 / 1000 = 30.2
    assert "balanced context 30: one sequence's KV fetch = its matmuls" in texts
    assert "trained max context 8,192" in texts  # llama_like's max_position_embeddings


def test_a_batch_that_outgrows_memory_is_shaded() -> None:
    # 9,491 sequences fill 80 GB at about 2,000 tokens each: (80e9 - 0.126e9) / (9,491 × 4,096)
    fig = fig_step_vs_context(_spec(), batch=9491)
    assert _regimes(fig.axes[0])[-1] == "batch 9,491 does not fit in memory"


def test_context_crossover_is_the_first_memory_bound_context() -> None:
    p = _spec()
    # at batch 1 the step is memory-bound from the shortest context on: no crossover
    assert context_crossover(p, 1, np.geomspace(64, 131072, 50)) is None
    # at batch 64,000 on contexts 1 to 10: compute 64,000 × 123,682,816 / 1e15 = 7.9 ms
    # against weights 0.126 ms + KV 64,000 × S × 4,096 / 1e12 s = 0.26 S ms: the KV catches
    # up between S = 10 and S = 100
    S = np.array([1.0, 10.0, 100.0, 1000.0])
    assert context_crossover(p, 64_000, S) == 100.0
