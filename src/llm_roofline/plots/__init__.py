"""The lecture's graphs for any model and system (matplotlib; optional extra `plot`).

No formulas here: every curve is a call to the engine over a grid of batch, context, tokens per
pass or chips (mostly through `curves`); this package only chooses the grids and draws. One
module per kind of figure:

- `step`: step time vs batch (compute, weight fetch, KV fetch, memory, the step; latency floor
  and B* marked) and vs context at a fixed batch (the balanced context marked);
- `cost`: cost per token vs batch (the weight hyperbola over the compute and KV floors), vs
  tokens per pass (decode = 1 ... prefill = thousands), and latency vs cost over chips × batch
  with the frontier drawn;
- `economics`, `optimize`, `validation`: the figures of the verbs of those names;
- `spec` (`PlotSpec`: a deployment at a context), `canvas` (making and writing a figure:
  fixed margins, PNG and SVG), `layout` (where the words go once the page is laid out: labels
  clear of the lines, legends where they hide least, log tick labels that do not collide) and
  `workers` (drawing figures on more than one core).

matplotlib is imported only when a figure is drawn, so importing this package needs none.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from llm_roofline.deploy.deployment import Deployment
from llm_roofline.engine.cost import is_priced
from llm_roofline.plots.canvas import import_matplotlib, save
from llm_roofline.plots.fig_cost import (
    fig_cost_vs_batch,
    fig_cost_vs_tokens_per_pass,
    fig_latency_vs_cost,
)
from llm_roofline.plots.fig_economics import write_cache_tiers_figure, write_cost_vs_context_figure
from llm_roofline.plots.fig_optimize import write_frontier_figure
from llm_roofline.plots.fig_step import context_crossover, fig_step_vs_batch, fig_step_vs_context
from llm_roofline.plots.fig_validation import write_residual_figure, write_validation_figure
from llm_roofline.plots.figure_spec import PlotSpec
from llm_roofline.plots.workers import run_split

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FIGURES",
    "NEEDS_PRICE",
    "PlotSpec",
    "context_crossover",
    "fig_cost_vs_batch",
    "fig_cost_vs_tokens_per_pass",
    "fig_latency_vs_cost",
    "fig_step_vs_batch",
    "fig_step_vs_context",
    "figure_jobs",
    "import_matplotlib",
    "run_split",
    "write_cache_tiers_figure",
    "write_cost_vs_context_figure",
    "write_figures",
    "write_frontier_figure",
    "write_residual_figure",
    "write_validation_figure",
]

FIGURES = (
    "step_vs_batch",
    "step_vs_context",
    "cost_vs_batch",
    "cost_vs_tokens_per_pass",
    "latency_vs_cost",
)

_DRAW: dict[str, Callable[[PlotSpec], Figure]] = {
    "step_vs_batch": fig_step_vs_batch,
    "step_vs_context": fig_step_vs_context,
    "cost_vs_batch": fig_cost_vs_batch,
    "cost_vs_tokens_per_pass": fig_cost_vs_tokens_per_pass,
    "latency_vs_cost": fig_latency_vs_cost,
}

NEEDS_PRICE = {"cost_vs_batch", "cost_vs_tokens_per_pass", "latency_vs_cost"}


def figure_jobs(
    dep: Deployment, out_dir: str | Path = "out", *, context_len: int = 4096, prefix: str = ""
) -> tuple[list[Callable[[], object]], list[Path]]:
    """The figures `write_figures` draws, as jobs (each draws one figure and writes its PNG and
    SVG into `out_dir`), and the paths they write. The three cost figures need a price: a chip
    without one gets only the first two."""
    p = PlotSpec(dep, context_len)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    priced = is_priced(dep.chip)
    names = [n for n in FIGURES if priced or n not in NEEDS_PRICE]

    def job(name: str) -> Callable[[], object]:
        return lambda: save(_DRAW[name](p), out / f"{prefix}{name}")

    paths = [out / f"{prefix}{n}.{ext}" for n in names for ext in ("png", "svg")]
    return [job(n) for n in names], paths


def write_figures(
    dep: Deployment,
    out_dir: str | Path = "out",
    *,
    context_len: int = 4096,
    prefix: str = "",
    workers: int = 1,
) -> list[Path]:
    """Draw the five figures for a deployment and write each as PNG and SVG into `out_dir`;
    returns the paths. The three cost figures need a price: a chip without one gets only the
    first two. `workers` > 1 draws them in that many processes (`workers.run_split`)."""
    jobs, paths = figure_jobs(dep, out_dir, context_len=context_len, prefix=prefix)
    import_matplotlib()  # once, here: forked workers start with it
    run_split(jobs, workers)
    return paths
