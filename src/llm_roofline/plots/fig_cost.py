"""The cost figures of a deployment: cost per token against batch (the weight hyperbola over
the compute and KV floors), against tokens per pass (decode = 1 ... prefill = thousands), and
latency against cost over chips × batch with the frontier drawn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.units import hour
from llm_roofline.deploy.curves import (
    CostCurve,
    LatencyCostGrid,
    cost_vs_batch,
    cost_vs_tokens_per_pass,
    latency_cost_grid,
)
from llm_roofline.engine.cost import pareto_frontier
from llm_roofline.plots.canvas import MS, PER_M, new_figure, plain_log_labels, set_title
from llm_roofline.plots.figure_spec import PlotSpec
from llm_roofline.plots.layout import Spot, label, legend

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["fig_cost_vs_batch", "fig_cost_vs_tokens_per_pass", "fig_latency_vs_cost"]


def _cost_lines(ax: Any, x: FloatArray, c: CostCurve, *labels: str) -> None:
    """The three cost terms (dashed) and their total (thick), in $ per million tokens."""
    w, f, k, total = labels
    ax.plot(x, c.terms["weights"] * PER_M, label=w, color="tab:orange", ls="--")
    ax.plot(x, c.terms["compute"] * PER_M, label=f, color="tab:blue", ls="--")
    ax.plot(x, c.terms["kv"] * PER_M, label=k, color="tab:green", ls="--")
    ax.plot(x, c.terms["step"] * PER_M, label=total, color="black", lw=3, alpha=0.6)


def fig_cost_vs_batch(p: PlotSpec) -> Figure:
    fit = int(p.dep.max_batch(p.context_len))
    B = np.unique(np.geomspace(1, max(fit, 2), 300).round())
    c = cost_vs_batch(p.dep, p.context_len, B)
    fig, ax = new_figure(8, 5)
    _cost_lines(
        ax,
        B,
        c,
        "weight fetch / B" + ("" if p.model.is_moe else " (a hyperbola)"),
        "compute / B (floor)",
        "KV fetch / B (floor)",
        "cost of the step, ideal",
    )
    if p.dep.profile is not None:
        engine = f"cost, {p.dep.engine} engine"
        ax.plot(B, c.terms["engine"] * PER_M, label=engine, color="tab:purple")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch B (sequences, up to the largest that fits)")
    if fit < 1:
        label(
            ax,
            "the weights alone do not fit:\nshown for batch 1-2 anyway",
            [Spot(0.5, y, "center", "center") for y in (0.5, 0.7, 0.3, 0.85, 0.15)],
            coords="axes fraction",
            color="dimgrey",
            fontsize=11,
        )
    ax.set_ylabel("$ per million output tokens")
    price = p.system.chip.price_usd_per_s * hour
    set_title(
        ax,
        f"Cost per token vs batch at context {p.context_len:,}, ${price:.2f} per chip-hour\n"
        f"{p.title}",
    )
    legend(ax, "upper right", fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return fig


def fig_cost_vs_tokens_per_pass(p: PlotSpec) -> Figure:
    T = np.unique(np.geomspace(1, 32768, 200).round())
    c = cost_vs_tokens_per_pass(p.dep, T)
    fig, ax = new_figure(8, 5)
    _cost_lines(
        ax,
        T,
        c,
        "weight fetch per token" + ("" if p.model.is_moe else " (∝ 1/T)"),
        "compute per token",
        "KV write per token",
        "cost of the pass",
    )
    decode = ax.axvline(1, color="grey", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    label(
        ax,
        "decode (1 token per pass)",
        [Spot(1, y, "left", "top") for y in (0.98, 0.85, 0.7, 0.55, 0.4, 0.25, 0.1)],
        coords=("data", "axes fraction"),
        line=decode,
        fontsize=8,
        color="grey",
    )
    ratio = float(c.terms["step"][0] / np.min(c.terms["step"]))
    label(
        ax,
        f"one sequence's decode (T = 1) costs {ratio:,.0f}× the cheapest pass per token\n"
        "(batching shrinks that); API prices put output at about 5× input\n"
        "(llm-roofline pricing, docs/economics.md)",
        [
            Spot(x, y, ha, "bottom")
            for y in (0.3, 0.05, 0.45, 0.15, 0.6)
            for x, ha in ((0.06, "left"), (0.97, "right"), (0.3, "left"))
        ],
        coords="axes fraction",
        fontsize=8,
        color="dimgrey",
    )
    ax.set_xlabel("tokens per pass T (one sequence: decode = 1, prefill = prompt length)")
    ax.set_ylabel("$ per million tokens processed")
    set_title(
        ax, f"Cost per token vs tokens per pass (one sequence per group, empty cache)\n{p.title}"
    )
    legend(ax, "upper right", fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return fig


def fig_latency_vs_cost(p: PlotSpec) -> Figure:
    from matplotlib import colormaps

    g = latency_cost_grid(p.dep, p.context_len)
    fig, ax = new_figure(8, 5)
    title = (
        f"Latency vs cost over chips × batch (powers of two and the largest that fits), "
        f"context {p.context_len:,}\n{p.model.name} on {p.dep.chip.id} "
        f"({p.weight_dtype} weights, {p.kv_dtype} KV)\neach chip count split by the deployment "
        f"rule; engine {p.dep.engine}"
    )
    set_title(ax, title)
    ax.set_xlabel("$ per million output tokens")
    ax.set_ylabel("time per output token (ms)")
    if g.chips.size == 0:
        ax.plot([], [], " ", label="nothing to draw: the model fits on no chip count tried")
        ax.set_xticks([])
        ax.set_yticks([])
        legend(ax, "center")
        return fig
    counts = sorted(set(g.chips.astype(int)))
    index = np.searchsorted(counts, g.chips.astype(int))
    cmap = colormaps["viridis"].resampled(len(counts))
    sc = ax.scatter(
        g.usd_per_token * PER_M,
        g.latency_s * MS,
        c=index,
        cmap=cmap,
        vmin=-0.5,
        vmax=len(counts) - 0.5,
        s=18,
        label="one chips × batch (colour: chips)",
    )
    front = pareto_frontier(g.latency_s, g.usd_per_token)
    ax.plot(
        g.usd_per_token[front] * PER_M,
        g.latency_s[front] * MS,
        color="black",
        lw=1.2,
        label="frontier: cheapest at each latency (labels: chips × batch)",
    )
    _frontier_labels(ax, g, front)
    cb = fig.colorbar(sc, ax=ax, ticks=range(len(counts)))
    cb.set_ticklabels([str(c) for c in counts])
    cb.set_label("chips")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_labels(ax)
    legend(ax, "upper right", fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return fig


def _frontier_labels(ax: Any, g: LatencyCostGrid, front: Any) -> None:
    """Label about eight points of the frontier with their chips × batch."""
    for k in front[:: max(1, len(front) // 8)]:
        x, y = g.usd_per_token[k] * PER_M, g.latency_s[k] * MS
        label(
            ax,
            f"{int(g.chips[k])}×{int(g.batch[k])}",
            [
                *(Spot(x, y, ha, va) for va in ("bottom", "top") for ha in ("left", "right")),
                *(Spot(x, y, ha, "center") for ha in ("left", "right")),
            ],
            drop=True,
            fontsize=7,
        )
