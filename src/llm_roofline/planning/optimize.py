"""Search chips × parallel split × batch for the cheapest way to serve a model at a latency.

For every chip count (powers of two up to `max_chips`, and `max_chips` itself), every split
that can hold the model (tp, pp, ep over powers of two; each split checked by
`Parallelism.check`) and every batch that fits (powers of two and the largest), it evaluates one
decode step at the context (vectorised over batch) and one prefill of a request's prompt (its
TTFT), each timed under the deployment's engine (the ideal lower bound or a calibrated
profile). Each point gives tokens/s per user (1 / time per output token), tokens/s per
chip and $ per million output tokens; the frontier is the set no other point beats on both
speed per user and cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core import units
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.engine.cost import pareto_frontier
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.model.spec import ModelSpec

__all__ = ["COLUMNS", "SearchResult", "powers", "search", "splits"]

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


def powers(limit: int) -> list[int]:
    out, v = [], 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


def splits(spec: ModelSpec, chips: int) -> list[Parallelism]:
    """Every split of `chips` chips the model takes: pp and tp over powers of two (tp also
    the whole stage up to 16), ep over the divisors of a stage up to the experts."""
    experts = max((g.ffn.n_experts for g in spec.groups), default=0)
    found = []
    for pp in powers(min(chips, 8)):
        if chips % pp:
            continue
        stage = chips // pp
        for tp in sorted(set(powers(stage)) | ({stage} if stage <= 16 else set())):
            if stage % tp:
                continue
            eps = [1]
            if experts:
                eps = sorted(
                    {e for e in [*powers(stage), stage] if stage % e == 0 and e <= experts}
                )
            for ep in eps:
                par = Parallelism.of(chips, tp, pp, ep)
                try:
                    par.check(spec)
                except InputError:
                    continue
                found.append(par)
    return found


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
    if isinstance(max_chips, bool) or not isinstance(max_chips, int) or max_chips < 1:
        raise InputError(
            f"max_chips must be a positive integer, got {max_chips!r}", field="max_chips"
        )
    for name, v in (("tpot_s", tpot_s), ("ttft_s", ttft_s)):
        if v is not None and not v > 0:
            raise InputError(f"{name} must be positive, got {v!r}", field=name)
    if not chip.price_usd_per_s > 0:
        raise InputError(
            f"{chip.id} has no price (none in the catalog, or 0: hardware you own); the "
            "search ranks by $ per token: give one (USD per chip-hour)",
            field="price_usd_per_hour",
        )
    cols: dict[str, list[float]] = {c: [] for c in COLUMNS}
    tried = 0
    chip_counts = sorted(set(powers(max_chips)) | {max_chips})
    todo = [(n, par) for n in chip_counts for par in splits(spec, n)]
    for k, (n, par) in enumerate(todo):
        if progress is not None:
            progress(k, len(todo))
        tried += 1
        d = replace(dep, chips=n, tp=par.tp, pp=par.pp, ep=par.ep, replicas=1, split_rule="given")
        fit = int(d.max_batch(context_len))
        if fit < 1:
            continue
        B = np.asarray(sorted({b for b in powers(fit)} | {fit}), dtype=np.float64)
        t, _, _ = d.time(d.decode(B, context_len))
        first, _, _ = d.time(d.prefill(1, context_len), is_prefill=True)
        usd = d.system.price_usd_per_s * t / B * units.mega
        m = B.size
        for c, v in (
            ("chips", n),
            ("tp", par.tp),
            ("pp", par.pp),
            ("ep", par.ep),
            ("dp", par.dp),
        ):
            cols[c] += [float(v)] * m
        cols["batch"] += list(B)
        cols["tpot_s"] += list(t)
        cols["ttft_s"] += [float(np.asarray(first).flat[0])] * m
        cols["tokens_per_s_per_user"] += list(1.0 / t)
        cols["tokens_per_s"] += list(B / t)
        cols["tokens_per_s_per_chip"] += list(B / t / n)
        cols["usd_per_million_tokens"] += list(usd)
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
        configs_tried=tried,
        engine=dep.engine,
    )
