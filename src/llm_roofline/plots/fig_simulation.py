"""The simulator's figures (`llm-roofline simulate --out`): latency percentiles against load,
and the first instance's queue and KV memory over the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llm_roofline._core import units
from llm_roofline.plots.canvas import new_figure, save, set_title
from llm_roofline.plots.layout import legend

__all__ = ["write_simulation_figures"]


def write_simulation_figures(
    dep: Any, work: Any, res: Any, out: Path, server: dict[str, Any]
) -> list[Path]:
    """Two figures in `out`: simulate_latency_vs_load (p50/p90/p99 of TTFT and TPOT at Poisson
    rates from 10% to 95% of the capacity) and simulate_timeline (queue, running sequences
    and KV share over the run just simulated)."""
    from llm_roofline.sim.simulate import latency_against_load

    rows = latency_against_load(dep, work, capacity=res.summary["capacity_rps"], **server)
    fig, axes = new_figure(12, 4.8, ncols=2)
    rates = [r["rate_rps"] for r in rows]
    for ax, metric, name in zip(
        axes, ("ttft", "tpot"), ("time to first token", "time per output token"), strict=True
    ):
        for q, style in (("p50", "-"), ("p90", "--"), ("p99", ":")):
            ys = [r[f"{metric}_{q}_s"] for r in rows]
            pts = [(x, y / units.ms) for x, y in zip(rates, ys, strict=True) if y is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, label=q)
        cap = rows[0]["capacity_rps"]
        ax.axvline(cap, color="grey", lw=1, label=f"capacity ({units.sig(cap)} requests/s)")
        ax.set_xlabel("request rate (requests/s, Poisson)")
        ax.set_ylabel(f"{name} (ms)")
        ax.set_yscale("log")
        legend(ax, "upper left", fontsize=8)
        set_title(ax, f"{name} against load")
    paths = save(fig, out / "simulate_latency_vs_load")
    tl = res.timeline
    fig, axes = new_figure(12, 4.8, ncols=2)
    if tl:
        axes[0].plot(tl["t_s"], tl["waiting"], label="waiting")
        axes[0].plot(tl["t_s"], tl["running"], label="running")
        axes[1].plot(tl["t_s"], tl["kv_share"] * 100, color="tab:green", label="KV memory used")
    axes[0].set_ylabel("requests in the first instance (count)")
    axes[1].set_ylabel("KV memory used (% of what the instance holds)")
    axes[1].set_ylim(0, 105)
    for ax in axes:
        ax.set_xlabel("time (s)")
        legend(ax, "upper left", fontsize=8)
    set_title(axes[0], "queue over the run")
    set_title(axes[1], "KV memory over the run")
    return paths + save(fig, out / "simulate_timeline")
