"""The search's figure (`llm-roofline optimize --out`): the frontier of tokens/s per user
against $ per million tokens and against tokens/s per chip, every evaluated point in grey."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llm_roofline.plots.canvas import new_figure, save
from llm_roofline.plots.layout import legend

__all__ = ["write_frontier_figure"]


def write_frontier_figure(result: Any, title: str, path_stem: str | Path) -> list[Path]:
    """The search's frontier (`optimize.search`): tokens/s per user against $ per million
    tokens, and against tokens/s per chip; every evaluated point in grey. PNG and SVG."""
    pts, front = result.points, result.frontier
    fig, (a, b) = new_figure(12, 5, ncols=2)
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
    b.scatter(pts["tokens_per_s_per_chip"], user, s=6, color="lightgrey", label="every config")
    b.plot(
        pts["tokens_per_s_per_chip"][front],
        user[front],
        color="black",
        lw=1.5,
        marker="o",
        ms=3,
        label="frontier",
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
    b.set_xlabel("throughput per chip (output tokens/s)")
    for ax in (a, b):
        legend(ax, "lower right", fontsize=8)
    fig.suptitle(title, fontsize=10)
    return save(fig, path_stem)
