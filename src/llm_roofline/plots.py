"""The lecture's graphs for any model and system (matplotlib; optional extra `plot`).

No formulas here: every curve is a call to the engine over a grid of batch, context, tokens per
pass or chips; this module only chooses the grids and draws.

1. step time vs batch: compute, weight fetch, KV fetch, memory (their sum), the step (thick),
   with the latency floor and B* marked;
2. step time vs context at a fixed batch, with the balanced context marked;
3. cost per token vs batch: the weight hyperbola over the compute and KV floors;
4. cost per token vs tokens per pass (decode = 1 ... prefill = thousands);
5. latency vs cost per token over chips × batch, with the frontier drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .cost import pareto_frontier
from .curves import batch_axis, cost_vs_batch, cost_vs_tokens_per_pass, latency_cost_grid
from .deployment import Deployment
from .errors import InputError
from .hardware import System
from .model import ModelSpec
from .roofline import balance_batch, balanced_context

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FIGURES",
    "PlotSpec",
    "write_figures",
    "write_frontier_figure",
    "write_validation_figure",
]

FIGURES = (
    "step_vs_batch",
    "step_vs_context",
    "cost_vs_batch",
    "cost_vs_tokens_per_pass",
    "latency_vs_cost",
)

MS = 1e3  # seconds -> milliseconds
PER_M = 1e6  # $ per token -> $ per million tokens


@dataclass(frozen=True)
class PlotSpec:
    """What to draw: a deployment at a context."""

    dep: Deployment
    context_len: int = 4096

    @property
    def model(self) -> ModelSpec:
        return self.dep.model

    @property
    def system(self) -> System:
        return self.dep.system

    @property
    def weight_dtype(self) -> str:
        return self.dep.weight_dtype

    @property
    def kv_dtype(self) -> str:
        return self.dep.kv_dtype

    @property
    def overlap(self) -> str:
        return self.dep.overlap

    @property
    def title(self) -> str:
        return (
            f"{self.model.name} on {self.dep.chips} × {self.dep.chip.id} "
            f"({self.weight_dtype} weights, {self.kv_dtype} KV)\n{self.dep.split_text()}"
        )

    def b_star(self) -> float:
        """B* of one group, times the independent groups (replicas × data-parallel groups:
        the batch counts them all)."""
        b = balance_batch(self.model, self.dep.chip, weight_dtype=self.weight_dtype)
        return b * self.dep.groups


def _use_agg() -> None:
    """Draw off-screen; a clear error when the `plot` extra is not installed."""
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the install
        raise InputError(
            "figures need matplotlib: pip install 'llm-roofline[plot]'", field="out"
        ) from None
    matplotlib.use("Agg")


def _batch_range(p: PlotSpec) -> tuple[np.ndarray, int, float]:
    B, fit = batch_axis(p.dep, p.context_len, 400)
    return B, fit, p.b_star()


def _comm_line(ax: Any, x: np.ndarray, step: Any) -> None:
    """Communication between chips, when the split has any. With two micro-batches (where they
    win) it hides under the other micro-batch's work, and the weights are read twice."""
    if float(np.max(step.t_comm)) > 0:
        label = "communication (serial; hidden where two micro-batches win)"
        ax.plot(x, step.t_comm * MS, label=label, color="tab:gray", ls="-.")


def _engine_step(ax: Any, p: PlotSpec, x: np.ndarray, step: Any) -> None:
    """The step under the deployment's engine (a calibrated profile), with its range."""
    if p.dep.profile is None:
        return
    t, lo, hi = p.dep.time(step)
    ax.plot(x, t * MS, label=f"step, {p.dep.engine} engine", color="tab:purple", lw=1.8)
    ax.fill_between(x, lo * MS, hi * MS, color="tab:purple", alpha=0.12, lw=0)


def fig_step_vs_batch(p: PlotSpec) -> Figure:
    _use_agg()
    import matplotlib.pyplot as plt

    B, fit, b_star = _batch_range(p)
    s = p.dep.decode(B, p.context_len)
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(B, s.t_compute * MS, label="compute (matmul + attention)", color="tab:blue")
    ax.plot(
        B,
        s.t_weights * MS,
        label="weight fetch (twice with two micro-batches)",
        color="tab:orange",
        ls="--",
    )
    ax.plot(B, s.t_kv * MS, label="KV-cache fetch", color="tab:green", ls="--")
    ax.plot(B, s.t_memory * MS, label="memory = weights + KV", color="tab:red")
    _comm_line(ax, B, s)
    ax.plot(
        B,
        s.t_step * MS,
        label=f"step time, ideal ({p.overlap} overlap)",
        color="black",
        lw=3.5,
        alpha=0.6,
    )
    _engine_step(ax, p, B, s)
    floor = float(p.dep.decode(1, 1).t_weights.flat[0])
    ax.axhline(floor * MS, color="grey", ls=":", lw=1)
    ax.annotate(
        f"latency floor {floor * MS:.3g} ms",
        (B[-1], floor * MS),
        ha="right",
        va="bottom",
        fontsize=9,
        color="grey",
    )
    ax.axvline(b_star, color="purple", ls=":", lw=1)
    ax.annotate(
        f" B* = {b_star:,.0f}",
        (b_star, ax.get_ylim()[1] * 0.5),
        ha="left",
        va="center",
        fontsize=9,
        color="purple",
    )
    if fit < B[-1]:
        ax.axvspan(max(fit, 1), B[-1], color="grey", alpha=0.12, lw=0)
        ax.annotate(
            "does not fit in memory",
            (B[-1], ax.get_ylim()[1] * 0.85),
            ha="right",
            fontsize=9,
            color="dimgrey",
        )
    ax.set_xlabel("batch B (sequences per decode step)")
    ax.set_ylabel("time per decode step (ms)")
    ax.set_title(f"Step time vs batch at context {p.context_len:,}\n{p.title}", fontsize=10)
    ax.set_xlim(0, B[-1])
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    return fig


def context_crossover(p: PlotSpec, batch: int, contexts: np.ndarray) -> float | None:
    """The first context of `contexts` at which the step at `batch` turns memory-bound after
    being compute-bound (None when it never does on the grid)."""
    s = p.dep.decode(batch, contexts)
    flips = np.nonzero((s.bound[:-1] == 0) & (s.bound[1:] != 0))[0]
    return float(contexts[flips[0] + 1]) if flips.size else None


def fig_step_vs_context(p: PlotSpec, batch: int | None = None) -> Figure:
    _use_agg()
    import matplotlib.pyplot as plt

    # default: twice B*, so that short contexts are compute-bound and long ones memory-bound
    b = batch or max(1, round(2 * p.b_star()))
    top = max(p.model.max_context or 0, 131072)
    S = np.geomspace(64, top, 400)
    s = p.dep.decode(b, S)
    fits = p.dep.memory(b, S).fits
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(S, s.t_compute * MS, label="compute", color="tab:blue")
    ax.plot(S, s.t_weights * MS, label="weight fetch", color="tab:orange", ls="--")
    ax.plot(S, s.t_kv * MS, label="KV-cache fetch", color="tab:green", ls="--")
    ax.plot(S, s.t_memory * MS, label="memory", color="tab:red")
    _comm_line(ax, S, s)
    ax.plot(S, s.t_step * MS, label="step time, ideal", color="black", lw=3.5, alpha=0.6)
    _engine_step(ax, p, S, s)
    lo = float(np.min(np.minimum(s.t_weights, s.t_compute)) * MS) * 0.5
    hi = float(np.max(p.dep.time(s)[2] * MS)) * 2.0
    compute_bound = s.bound == 0
    ax.fill_between(
        S, lo, hi, where=compute_bound, color="tab:blue", alpha=0.07, lw=0, label="compute-bound"
    )
    ax.fill_between(
        S, lo, hi, where=~compute_bound, color="tab:red", alpha=0.05, lw=0, label="memory-bound"
    )
    if not np.all(fits):
        ax.fill_between(
            S,
            lo,
            hi,
            where=~fits,
            color="grey",
            alpha=0.18,
            lw=0,
            label=f"batch {b:,} does not fit in memory",
        )
    cross = context_crossover(p, b, S)
    if cross is not None:
        ax.axvline(cross, color="purple", lw=1.2)
        ax.annotate(
            f" compute- to memory-bound\n at S ≈ {cross:,.0f}",
            (cross, hi * 0.6),
            fontsize=9,
            color="purple",
            ha="left",
            va="top",
        )
    s_bal = balanced_context(p.model, p.dep.chip, kv_dtype=p.kv_dtype, weight_dtype=p.weight_dtype)
    ax.axvline(s_bal, color="purple", ls=":", lw=1)
    ax.annotate(
        f" balanced context {s_bal:,.0f}: one sequence's\n KV fetch = its matmuls",
        (s_bal, hi * 0.15),
        fontsize=8,
        color="purple",
        ha="left",
        va="top",
    )
    if p.model.max_context:
        ax.axvline(p.model.max_context, color="grey", ls="--", lw=0.8)
        ax.annotate(
            "trained max context ",
            (p.model.max_context, hi * 0.9),
            fontsize=8,
            color="grey",
            ha="right",
            va="top",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    ax.set_xlabel("context length S (tokens in each sequence's KV cache)")
    ax.set_ylabel("time per decode step (ms)")
    ax.set_title(f"Step time vs context at batch {b:,} (2 × B*)\n{p.title}", fontsize=10)
    ax.legend(fontsize=7, loc="lower right", framealpha=0.9)
    ax.grid(alpha=0.3, which="both")
    return fig


def _cost_lines(ax: Any, x: np.ndarray, c: dict[str, Any], *labels: str) -> None:
    """The three cost terms (dashed) and their total (thick), in $ per million tokens."""
    w, f, k, total = labels
    ax.plot(x, c["weights"] * PER_M, label=w, color="tab:orange", ls="--")
    ax.plot(x, c["compute"] * PER_M, label=f, color="tab:blue", ls="--")
    ax.plot(x, c["kv"] * PER_M, label=k, color="tab:green", ls="--")
    ax.plot(x, c["step"] * PER_M, label=total, color="black", lw=3, alpha=0.6)


def fig_cost_vs_batch(p: PlotSpec) -> Figure:
    _use_agg()
    import matplotlib.pyplot as plt

    fit = int(p.dep.max_batch(p.context_len))
    B = np.unique(np.geomspace(1, max(fit, 2), 300).round())
    c = cost_vs_batch(p.dep, p.context_len, B)
    fig, ax = plt.subplots(figsize=(8, 5))
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
        ax.plot(B, c["engine"] * PER_M, label=f"cost, {p.dep.engine} engine", color="tab:purple")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch B (up to the largest that fits)")
    if fit < 1:
        ax.text(
            0.5,
            0.5,
            "the weights alone do not fit:\nshown for batch 1-2 anyway",
            transform=ax.transAxes,
            ha="center",
            color="dimgrey",
            fontsize=11,
        )
    ax.set_ylabel("$ per million output tokens")
    price = p.system.chip.price_usd_per_s * 3600
    ax.set_title(
        f"Cost per token vs batch at context {p.context_len:,}, ${price:.2f} per chip-hour\n"
        f"{p.title}",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return fig


def fig_cost_vs_tokens_per_pass(p: PlotSpec) -> Figure:
    _use_agg()
    import matplotlib.pyplot as plt

    T = np.unique(np.geomspace(1, 32768, 200).round())
    c = cost_vs_tokens_per_pass(p.dep, T)
    fig, ax = plt.subplots(figsize=(8, 5))
    _cost_lines(
        ax,
        T,
        c,
        "weight fetch per token" + ("" if p.model.is_moe else " (∝ 1/T)"),
        "compute per token",
        "KV write per token",
        "cost of the pass",
    )
    ax.axvline(1, color="grey", ls=":", lw=1)
    ax.annotate(
        "decode (1 token per pass)", (1.1, ax.get_ylim()[1]), fontsize=8, va="top", color="grey"
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ratio = float(c["step"][0] / np.min(c["step"]))
    ax.text(
        0.03,
        0.3,
        f"one sequence's decode (T = 1) costs {ratio:,.0f}× the cheapest pass per token\n"
        "(batching shrinks that); API prices put output at about 5× input\n"
        "(llm-roofline pricing, docs/economics.md)",
        transform=ax.transAxes,
        ha="left",
        fontsize=8,
        color="dimgrey",
    )
    ax.set_xlabel("tokens per pass T (one sequence: decode = 1, prefill = prompt length)")
    ax.set_ylabel("$ per million tokens processed")
    ax.set_title(
        f"Cost per token vs tokens per pass (one sequence per group, empty cache)\n{p.title}",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return fig


def fig_latency_vs_cost(p: PlotSpec) -> Figure:
    _use_agg()
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    g = latency_cost_grid(p.dep, p.context_len)
    fig, ax = plt.subplots(figsize=(8, 5))
    title = (
        f"Latency vs cost over chips × batch (powers of two and the largest that fits), "
        f"context {p.context_len:,}\n{p.model.name} on {p.dep.chip.id} "
        f"({p.weight_dtype} weights, {p.kv_dtype} KV)\neach chip count split by the deployment "
        f"rule; engine {p.dep.engine}"
    )
    ax.set_title(title, fontsize=10)
    if g["chips"].size == 0:
        ax.text(
            0.5, 0.5, "the model fits on no chip count tried", ha="center", transform=ax.transAxes
        )
        return fig
    counts = sorted(set(g["chips"].astype(int)))
    index = np.searchsorted(counts, g["chips"].astype(int))
    cmap = plt.get_cmap("viridis", len(counts))
    sc = ax.scatter(
        g["usd_per_token"] * PER_M,
        g["latency_s"] * MS,
        c=index,
        cmap=cmap,
        vmin=-0.5,
        vmax=len(counts) - 0.5,
        s=18,
    )
    front = pareto_frontier(g["latency_s"], g["usd_per_token"])
    ax.plot(
        g["usd_per_token"][front] * PER_M,
        g["latency_s"][front] * MS,
        color="black",
        lw=1.2,
        label="frontier: cheapest at each latency (labels: chips × batch)",
    )
    for k in front[:: max(1, len(front) // 8)]:
        ax.annotate(
            f"{int(g['chips'][k])}×{int(g['batch'][k])}",
            (g["usd_per_token"][k] * PER_M, g["latency_s"][k] * MS),
            fontsize=7,
            xytext=(4, 2),
            textcoords="offset points",
        )
    cb = fig.colorbar(sc, ax=ax, ticks=range(len(counts)))
    cb.set_ticklabels([str(c) for c in counts])
    cb.set_label("chips")
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.xaxis.set_minor_formatter(NullFormatter())  # dollars span decades: minor labels collide
    ax.set_xlabel("$ per million output tokens")
    ax.set_ylabel("time per output token (ms)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return fig


def _save(fig: Any, path_stem: str | Path) -> list[Path]:
    """Write a figure as PNG and SVG next to each other, and close it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    paths = []
    for ext in ("png", "svg"):
        path = Path(f"{path_stem}.{ext}")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
        paths.append(path)
    plt.close(fig)
    return paths


def write_frontier_figure(result: Any, title: str, path_stem: str | Path) -> list[Path]:
    """The search's frontier (`optimize.search`): tokens/s per user against $ per million
    tokens, and against tokens/s per chip; every evaluated point in grey. PNG and SVG."""
    _use_agg()
    import matplotlib.pyplot as plt

    pts, front = result.points, result.frontier
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 5))
    user = pts["tokens_per_s_per_user"]
    a.scatter(pts["usd_per_million_tokens"], user, s=6, color="lightgrey", label="every config")
    a.plot(
        pts["usd_per_million_tokens"][front],
        user[front],
        color="black",
        lw=1.5,
        marker="o",
        ms=3,
        label="frontier",
    )
    b.scatter(pts["tokens_per_s_per_chip"], user, s=6, color="lightgrey")
    b.plot(
        pts["tokens_per_s_per_chip"][front], user[front], color="black", lw=1.5, marker="o", ms=3
    )
    if result.best is not None:
        k = result.best
        for ax, x in ((a, pts["usd_per_million_tokens"][k]), (b, pts["tokens_per_s_per_chip"][k])):
            ax.scatter(
                [x],
                [user[k]],
                s=80,
                facecolors="none",
                edgecolors="red",
                lw=2,
                label="cheapest meeting the targets",
                zorder=5,
            )
    for ax in (a, b):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
        ax.set_ylabel("output tokens/s per user (1 / time per token)")
    a.set_xlabel("$ per million output tokens")
    b.set_xlabel("output tokens/s per chip")
    a.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    return _save(fig, path_stem)


def write_validation_figure(results: Any, title: str, path_stem: str | Path) -> list[Path]:
    """Log-log scatter of predicted against measured, one colour per hardware, for each
    metric kind (times, throughputs); the diagonal is perfect agreement."""
    _use_agg()
    import matplotlib.pyplot as plt

    from .validate import METRICS

    fig, axes = plt.subplots(1, 2, figsize=(13, 6))
    hws = sorted({r.row.hardware for r in results})
    cmap = plt.get_cmap("tab20", max(len(hws), 1))
    for ax, throughput in zip(axes, (False, True), strict=True):
        rs = [r for r in results if METRICS[r.row.metric] is throughput]
        for i, hw in enumerate(hws):
            pts = [r for r in rs if r.row.hardware == hw]
            if not pts:
                continue
            ax.scatter(
                [r.row.measured for r in pts],
                [r.predicted for r in pts],
                s=14,
                color=cmap(i),
                label=hw,
            )
        if rs:
            lo = min(min(r.row.measured, r.predicted) for r in rs) / 1.5
            hi = max(max(r.row.measured, r.predicted) for r in rs) * 1.5
            ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="predicted = measured")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
        kind = "throughput (tokens/s)" if throughput else "time (s)"
        ax.set_xlabel(f"measured {kind}")
        ax.set_ylabel(f"predicted {kind}")
        ax.set_title(
            (
                "throughputs: above the line is faster than measured"
                if throughput
                else "times: below the line is faster than measured"
            ),
            fontsize=9,
        )
    axes[1].legend(fontsize=6, ncol=2, loc="upper left")
    fig.suptitle(title, fontsize=10)
    return _save(fig, path_stem)


_DRAW = {
    "step_vs_batch": fig_step_vs_batch,
    "step_vs_context": fig_step_vs_context,
    "cost_vs_batch": fig_cost_vs_batch,
    "cost_vs_tokens_per_pass": fig_cost_vs_tokens_per_pass,
    "latency_vs_cost": fig_latency_vs_cost,
}

NEEDS_PRICE = {"cost_vs_batch", "cost_vs_tokens_per_pass", "latency_vs_cost"}


def write_figures(
    dep: Deployment,
    out_dir: str | Path = "out",
    *,
    context_len: int = 4096,
    prefix: str = "",
) -> list[Path]:
    """Draw the five figures for a deployment and write each as PNG and SVG into `out_dir`;
    returns the paths. The three cost figures need a price: a chip without one gets only the
    first two."""
    _use_agg()

    p = PlotSpec(dep, context_len)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for name in FIGURES:
        if name in NEEDS_PRICE and not dep.chip.price_usd_per_s > 0:
            continue
        paths += _save(_DRAW[name](p), out / f"{prefix}{name}")
    return paths


def write_cost_vs_context_figure(
    curve: dict[str, np.ndarray],
    title: str,
    path_stem: str | Path,
    price: tuple[float, float, float] | None = None,
    max_context: int | None = None,
) -> list[Path]:
    """Cost per output token against context (from `economics.cost_vs_context`), with a
    two-tier price on top: `price` = (threshold tokens, price below, price above), $/M."""
    _use_agg()
    import matplotlib.pyplot as plt

    S = curve["context"]
    ok = curve["batch"] >= 1
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(
        S[ok],
        curve["usd_per_million_output_tokens"][ok],
        color="black",
        lw=3,
        alpha=0.6,
        label="largest batch that fits",
    )
    ax.plot(
        S,
        curve["usd_per_million_output_tokens_batch1"],
        color="tab:orange",
        ls="--",
        label="batch 1",
    )
    if price is not None:
        step, low, high = price
        ax.step(
            [S[0], step, S[-1]],
            [low, high, high],
            where="post",
            color="tab:red",
            label=f"price: \\${low:g} to \\${high:g} per M above {step:,.0f} tokens",
        )
    if max_context and max_context < S[-1]:
        ax.axvspan(max_context, S[-1], color="grey", alpha=0.12, lw=0)
        ax.annotate(
            " beyond the trained\n max context",
            (max_context, ax.get_ylim()[0]),
            fontsize=8,
            color="dimgrey",
            va="bottom",
        )
    if not ok.all():
        ax.axvline(S[~ok][0], color="grey", ls=":", lw=1)
        ax.annotate(
            "one sequence no longer fits",
            (S[~ok][0], ax.get_ylim()[0]),
            fontsize=8,
            color="grey",
            rotation=90,
            va="bottom",
            ha="right",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("context length (tokens)")
    ax.set_ylabel("$ per million output tokens (ideal)")
    ax.set_title(f"Cost per output token vs context\n{title}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return _save(fig, path_stem)


def write_cache_tiers_figure(
    costs: dict[str, Any], title: str, path_stem: str | Path
) -> list[Path]:
    """Dollars to keep a KV cache and bring it back, per tier, against hold time (from
    `economics.cache_costs`), with the price of recomputing it as a flat line."""
    _use_agg()
    import matplotlib.pyplot as plt

    hold = np.asarray(costs["hold_s"], dtype=np.float64)
    fig, ax = plt.subplots(figsize=(8, 5))
    for tid, t in costs["tiers"].items():
        ax.plot(hold, t["usd"], label=f"{tid}: {t['name']} (drain {t['drain_time_s']:.3g} s)")
    ax.axhline(costs["recompute_usd"], color="black", ls="--", label="recompute (prefill)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("hold time (s)")
    ax.set_ylabel("$ per sequence (keep + bring back)")
    ax.set_title(f"Where to keep a KV cache\n{title}", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, which="both")
    return _save(fig, path_stem)
