"""The economics figures (`llm-roofline pricing --out`, `cache-tiers --out`): cost per output
token against context under a two-tier price, and what keeping a KV cache in each tier costs
against recomputing it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from llm_roofline.economics.token_costs import ContextCosts
from llm_roofline.plots.canvas import new_figure, save, set_title
from llm_roofline.plots.layout import legend

__all__ = ["write_cache_tiers_figure", "write_cost_vs_context_figure"]


def write_cost_vs_context_figure(
    curve: ContextCosts,
    title: str,
    path_stem: str | Path,
    price: tuple[float, float, float] | None = None,
    max_context: int | None = None,
) -> list[Path]:
    """Cost per output token against context (from `economics.cost_vs_context`), with a
    two-tier price on top: `price` = (threshold tokens, price below, price above), $/M."""
    S = curve.context
    ok = curve.batch >= 1
    fig, ax = new_figure(8, 5)
    ax.plot(
        S[ok],
        curve.usd_per_million_output_tokens[ok],
        color="black",
        lw=3,
        alpha=0.6,
        label="largest batch that fits",
    )
    ax.plot(
        S,
        curve.usd_per_million_output_tokens_batch1,
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
        ax.axvspan(
            max_context,
            S[-1],
            color="grey",
            alpha=0.12,
            lw=0,
            label=f"beyond the trained max context ({max_context:,} tokens)",
        )
    if not ok.all():
        first = S[~ok][0]
        ax.axvline(
            first, color="grey", ls=":", lw=1, label=f"one sequence no longer fits ({first:,.0f})"
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("context length (tokens)")
    ax.set_ylabel("$ per million output tokens")
    set_title(ax, f"Cost per output token vs context\n{title}")
    legend(ax, "upper left", fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return save(fig, path_stem)


def write_cache_tiers_figure(
    costs: dict[str, Any], title: str, path_stem: str | Path
) -> list[Path]:
    """Dollars to keep a KV cache and bring it back, per tier, against hold time (from
    `economics.cache_costs`), with the price of recomputing it as a flat line."""
    hold = np.asarray(costs["hold_s"], dtype=np.float64)
    fig, ax = new_figure(8, 5)
    for tid, t in costs["tiers"].items():
        ax.plot(hold, t["usd"], label=f"{tid}: {t['name']} (drain {t['drain_time_s']:.3g} s)")
    ax.axhline(costs["recompute_usd"], color="black", ls="--", label="recompute (prefill)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("hold time (s)")
    ax.set_ylabel("$ per sequence (keep + bring back)")
    set_title(ax, f"Where to keep a KV cache\n{title}")
    legend(ax, "upper left", fontsize=7)
    ax.grid(alpha=0.3, which="both")
    return save(fig, path_stem)
