"""Search chips × parallel split × batch for the cheapest way to serve a model at a latency.

For every chip count (powers of two up to `max_chips`, and `max_chips` itself), every split
that can hold the model (tp, pp, ep over powers of two; each split checked by
`Parallelism.check`) and that the chip's links can carry (`engine.candidates`), and every batch
that fits (powers of two and the largest), it evaluates one decode step at the context
(vectorised over batch) and one prefill of a request's prompt (its TTFT), each timed under the
deployment's engine (the ideal lower bound or a calibrated profile). Each point gives tokens/s
per user (1 / time per output token), tokens/s per chip and $ per million output tokens; the
frontier is the set no other point beats on both speed per user and cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core import checks, units
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.engine.candidates import candidates, powers
from llm_roofline.engine.cost import pareto_frontier, require_price, usd_per_token_from
from llm_roofline.engine.parallel import Parallelism

__all__ = ["COLUMNS", "SearchResult", "search"]

COLUMNS = (
    "chips",
    "tp",
    "pp",
    "ep",
    "dp",
    "batch",
    "tpot_s",
    "ttft_s",
    "tokens_per_s_per_user",
    "tokens_per_s",
    "tokens_per_s_per_chip",
    "usd_per_million_tokens",
)


@dataclass(frozen=True)
class SearchResult:
    """Every evaluated point (columns of COLUMNS), the frontier, and the best that meets the
    targets (None when none does)."""

    points: dict[str, NDArray[np.float64]]
    frontier: NDArray[np.int64]
    best: int | None
    targets: dict[str, float | None] = field(default_factory=dict)
    configs_tried: int = 0
    engine: str = "ideal"

    def row(self, i: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for c in COLUMNS:
            v = float(self.points[c][i])
            out[c] = int(v) if c in ("chips", "tp", "pp", "ep", "dp", "batch") else v
        return out


def _split_points(d: Deployment, par: Parallelism, context_len: int) -> dict[str, list[float]]:
    """The columns of COLUMNS for one split (`d` on it): every batch that fits (powers of two
    and the largest); none when not one sequence fits."""
    fit = int(d.max_batch(context_len))
    if fit < 1:
        return {}
    B = np.asarray(sorted({b for b in powers(fit)} | {fit}), dtype=np.float64)
    t, _, _ = d.time(d.decode(B, context_len))
    first, _, _ = d.time(d.prefill(1, context_len), is_prefill=True)
    usd = usd_per_token_from(d.system.price_usd_per_s, t, B, units.mega)
    m = B.size
    n = d.chips
    split = (n, par.tp, par.pp, par.ep, par.dp)
    cols = {c: [float(v)] * m for c, v in zip(COLUMNS[:5], split, strict=True)}
    cols["batch"] = list(B)
    cols["tpot_s"] = list(t)
    cols["ttft_s"] = [float(np.asarray(first).flat[0])] * m
    cols["tokens_per_s_per_user"] = list(1.0 / t)
    cols["tokens_per_s"] = list(B / t)
    cols["tokens_per_s_per_chip"] = list(B / t / n)
    cols["usd_per_million_tokens"] = list(usd)
    return cols


def search(
    dep: Deployment,
    max_chips: int,
    *,
    context_len: int = 4096,
    tpot_s: float | None = None,
    ttft_s: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SearchResult:
    """The search described in the module docstring for the deployment's model, chip, data
    types, communication model and engine (its own chip count and split are not used: the
    search tries them all); targets are upper limits in seconds. `progress(done, total)`, when
    given, is told after each split is evaluated."""
    spec, chip = dep.model, dep.chip
    checks.positive_int(max_chips, "max_chips")
    for name, target in (("tpot_s", tpot_s), ("ttft_s", ttft_s)):
        if target is not None:
            checks.positive(target, name)
    require_price(chip, ", and the search ranks by $ per token")
    cols: dict[str, list[float]] = {c: [] for c in COLUMNS}
    chip_counts = sorted(set(powers(max_chips)) | {max_chips})
    todo = list(candidates(spec, chip, dep.comm, chip_counts))
    for k, (n, par) in enumerate(todo):
        if progress is not None:
            progress(k, len(todo))
        d = replace(dep, chips=n, tp=par.tp, pp=par.pp, ep=par.ep, replicas=1, split_rule="given")
        for c, values in _split_points(d, par, context_len).items():
            cols[c] += values
    if progress is not None:
        progress(len(todo), len(todo))
    points = {c: np.asarray(v, dtype=np.float64) for c, v in cols.items()}
    if points["batch"].size == 0:
        raise InputError(
            f"{spec.name} fits on no split of up to {max_chips} × {chip.id} at context "
            f"{context_len:,}; allow more chips or a smaller weight type",
            field="max_chips",
        )
    cost = points["usd_per_million_tokens"]
    frontier = pareto_frontier(points["tpot_s"], cost)
    ok = np.ones(cost.shape, dtype=bool)
    if tpot_s is not None:
        ok &= points["tpot_s"] <= tpot_s
    if ttft_s is not None:
        ok &= points["ttft_s"] <= ttft_s
    best = int(np.flatnonzero(ok)[np.argmin(cost[ok])]) if np.any(ok) else None
    return SearchResult(
        points=points,
        frontier=frontier,
        best=best,
        targets={"tpot_s": tpot_s, "ttft_s": ttft_s},
        configs_tried=len(todo),
        engine=dep.engine,
    )
