"""The step-time figures of a deployment: the decode step against batch (with the latency
floor, B* and the memory limit marked) and against context at a fixed batch (with the
compute- to memory-bound crossover and the balanced context marked)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.units import sig
from llm_roofline.deploy.curves import batch_axis
from llm_roofline.deploy.report_table import split_latency_floor
from llm_roofline.engine.roofline import StepTime, balanced_context
from llm_roofline.plots.canvas import MS, count_labels, new_figure, set_title
from llm_roofline.plots.figure_spec import PlotSpec
from llm_roofline.plots.layout import Spot, label, legend

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["context_crossover", "fig_step_vs_batch", "fig_step_vs_context"]


def _comm_line(ax: Any, x: FloatArray, step: StepTime) -> None:
    """Communication between chips, when the split has any. With two micro-batches (where they
    win) it hides under the other micro-batch's work, and the weights are read twice."""
    if float(np.max(step.t_comm)) > 0:
        label = "communication (serial; hidden where two micro-batches win)"
        ax.plot(x, step.t_comm * MS, label=label, color="tab:gray", ls="-.")


def _engine_step(ax: Any, p: PlotSpec, x: FloatArray, timed: tuple[Any, Any, Any]) -> None:
    """The step under the deployment's engine (a calibrated profile), with its range."""
    if p.dep.profile is None:
        return
    t, lo, hi = timed
    ax.plot(x, t * MS, label=f"step, {p.dep.engine} engine", color="tab:purple", lw=1.8)
    ax.fill_between(
        x,
        lo * MS,
        hi * MS,
        color="tab:purple",
        alpha=0.12,
        lw=0,
        label="its range (10th to 90th percentile)",
    )


def _terms(ax: Any, x: FloatArray, s: StepTime, *labels: str) -> None:
    """The ideal terms of the step: compute, weight and KV fetch, memory (their sum)."""
    compute, weights, memory = labels
    ax.plot(x, s.t_compute * MS, label=compute, color="tab:blue")
    if np.any(s.t_compute - s.t_matmul > 0.05 * s.t_compute):  # attention is a visible share
        ax.plot(x, s.t_matmul * MS, label="matmul alone (what B* weighs)", color="tab:blue", ls=":")
    ax.plot(x, s.t_weights * MS, label=weights, color="tab:orange", ls="--")
    ax.plot(x, s.t_kv * MS, label="KV-cache fetch", color="tab:green", ls="--")
    ax.plot(x, s.t_memory * MS, label=memory, color="tab:red")


def fig_step_vs_batch(p: PlotSpec) -> Figure:
    B, fit = batch_axis(p.dep, p.context_len, 400)
    b_star = p.b_star()
    s = p.dep.decode(B, p.context_len)
    fig, ax = new_figure(8, 5)
    _terms(
        ax,
        B,
        s,
        "compute (matmul + attention)",
        "weight fetch (twice with two micro-batches)",
        "memory = weights + KV",
    )
    _comm_line(ax, B, s)
    ideal = f"step time, ideal ({p.overlap} overlap)"
    ax.plot(B, s.t_step * MS, label=ideal, color="black", lw=3.5, alpha=0.6)
    _engine_step(ax, p, B, p.dep.time(s))
    floor = split_latency_floor(p.dep)
    ax.axhline(
        floor * MS,
        color="grey",
        ls=":",
        lw=1,
        label=f"latency floor {sig(floor * MS)} ms (the weights read once, batch 1)",
    )
    if fit < B[-1]:
        ax.axvspan(
            max(fit, 1), B[-1], color="grey", alpha=0.12, lw=0, label="does not fit in memory"
        )
    b_line = ax.axvline(b_star, color="purple", ls=":", lw=1)
    heights = (0.5, 0.6, 0.4, 0.7, 0.3, 0.8, 0.2, 0.9, 0.1)
    label(
        ax,
        f"B* = {b_star:,.0f}",
        [Spot(b_star, y, ha) for y in heights for ha in ("left", "right")],
        coords=("data", "axes fraction"),
        line=b_line,
        fontsize=9,
        color="purple",
    )
    ax.set_xlabel("batch B (sequences per decode step)")
    ax.set_ylabel("time per decode step (ms)")
    set_title(ax, f"Step time vs batch at context {p.context_len:,}\n{p.title}")
    ax.set_xlim(0, B[-1])
    ax.set_ylim(bottom=0)
    count_labels(ax.xaxis)
    legend(ax, "upper left", fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def _crossover(contexts: FloatArray, bound: Any) -> float | None:
    flips = np.nonzero((bound[:-1] == 0) & (bound[1:] != 0))[0]
    return float(contexts[flips[0] + 1]) if flips.size else None


def context_crossover(p: PlotSpec, batch: int, contexts: FloatArray) -> float | None:
    """The first context of `contexts` at which the step at `batch` turns memory-bound after
    being compute-bound (None when it never does on the grid)."""
    return _crossover(contexts, p.dep.decode(batch, contexts).bound)


def _context_batch(p: PlotSpec, shortest: float) -> tuple[int, int]:
    """The batch the context figure draws when none is given: the first of 2, 3, 4, 6 and 8
    times B* at which the shortest context is compute-bound, so that the figure shows the
    step turning memory-bound as context grows (two micro-batches read the weights twice, so
    2 B* may still be memory-bound); 2 B* when none is."""
    for k in (2, 3, 4, 6, 8):
        b = max(1, round(k * p.b_star()))
        if int(p.dep.decode(b, shortest).bound.flat[0]) == 0:
            return k, b
    return 2, max(1, round(2 * p.b_star()))


def fig_step_vs_context(p: PlotSpec, batch: int | None = None) -> Figure:
    top = max(p.model.max_context or 0, 131072)
    S = np.geomspace(64, top, 400)
    k, b = _context_batch(p, float(S[0])) if batch is None else (0, batch)
    s = p.dep.decode(b, S)
    timed = p.dep.time(s)
    fits = p.dep.memory(b, S).fits
    fig, ax = new_figure(8, 5.8)  # the legend under the axes: the lines leave no corner free
    _terms(ax, S, s, "compute", "weight fetch", "memory")
    _comm_line(ax, S, s)
    ax.plot(S, s.t_step * MS, label="step time, ideal", color="black", lw=3.5, alpha=0.6)
    _engine_step(ax, p, S, timed)
    lo = float(np.min(np.minimum(s.t_weights, s.t_compute)) * MS) * 0.5
    hi = float(np.max(timed[2] * MS)) * 2.0
    _regimes(ax, S, s, (lo, hi), fits, b)
    _context_marks(ax, p, S, s)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    ax.set_xlabel("context length S (tokens in each sequence's KV cache)")
    ax.set_ylabel("time per decode step (ms)")
    times = f" ({k} × B*)" if k else ""
    set_title(ax, f"Step time vs context at batch {b:,}{times}\n{p.title}")
    legend(ax, below=True, fontsize=7, ncol=3)
    ax.grid(alpha=0.3, which="both")
    return fig


def _regimes(
    ax: Any, S: FloatArray, s: StepTime, span: tuple[float, float], fits: Any, b: int
) -> None:
    """Shade where the step is compute-bound, memory-bound, and where the batch does not fit."""
    lo, hi = span
    compute_bound = s.bound == 0
    ax.fill_between(
        S, lo, hi, where=compute_bound, color="tab:blue", alpha=0.07, lw=0, label="compute-bound"
    )
    ax.fill_between(
        S, lo, hi, where=~compute_bound, color="tab:red", alpha=0.05, lw=0, label="memory-bound"
    )
    if not np.all(fits):
        name = f"batch {b:,} does not fit in memory"
        ax.fill_between(S, lo, hi, where=~fits, color="grey", alpha=0.18, lw=0, label=name)


def _context_marks(ax: Any, p: PlotSpec, S: FloatArray, s: StepTime) -> None:
    """The contexts worth a line: where the step turns memory-bound, the balanced context, the
    model's trained maximum."""
    heights = (0.9, 0.75, 0.6, 0.45, 0.3, 0.15, 0.05)
    cross = _crossover(S, s.bound)
    if cross is not None:
        line = ax.axvline(cross, color="purple", lw=1.2)
        label(
            ax,
            f"compute- to\nmemory-bound\nat S ≈ {cross:,.0f}",
            [Spot(cross, y, ha) for y in heights for ha in ("left", "right")],
            coords=("data", "axes fraction"),
            line=line,
            fontsize=9,
            color="purple",
        )
    s_bal = balanced_context(p.model, p.dep.chip, kv_dtype=p.kv_dtype, weight_dtype=p.weight_dtype)
    line = ax.axvline(s_bal, color="purple", ls=":", lw=1)
    label(
        ax,
        f"balanced context {s_bal:,.0f}:\none sequence's KV fetch\n= its matmuls",
        [Spot(s_bal, y, ha) for y in heights[::-1] for ha in ("left", "right")],
        coords=("data", "axes fraction"),
        line=line,
        fontsize=8,
        color="purple",
    )
    if p.model.max_context:
        line = ax.axvline(p.model.max_context, color="grey", ls="--", lw=0.8)
        label(
            ax,
            f"trained max\ncontext {p.model.max_context:,}",
            [Spot(p.model.max_context, y, "right") for y in (0.94, *heights)],
            coords=("data", "axes fraction"),
            line=line,
            fontsize=8,
            color="grey",
        )
