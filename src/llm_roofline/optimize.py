"""Search chips × parallel split × batch for the cheapest way to serve a model at a latency.

For every chip count (powers of two up to `max_chips`, and `max_chips` itself), every split
that can hold the model (tp, pp, ep over powers of two; each split checked by
`Parallelism.check`) and every batch that fits (powers of two and the largest), it evaluates one
decode step at the context (vectorised over batch) and one prefill of a request's prompt (its
TTFT lower bound). Each point gives tokens/s per user (1 / time per output token), tokens/s per
chip and $ per million output tokens; the frontier is the set no other point beats on both
speed per user and cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .catalog import get_hardware, get_model
from .cost import pareto_frontier
from .errors import InputError
from .hardware import Chip, System
from .memory import max_batch
from .model import ModelSpec
from .parallel import CommModel, Parallelism
from .roofline import decode_step, prefill

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

    def row(self, i: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for c in COLUMNS:
            v = float(self.points[c][i])
            out[c] = int(v) if c in ("chips", "tp", "pp", "ep", "dp", "batch") else v
        return out


def _powers(limit: int) -> list[int]:
    out, v = [], 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


def _splits(spec: ModelSpec, chips: int) -> list[Parallelism]:
    experts = max((g.ffn.n_experts for g in spec.groups), default=0)
    found = []
    for pp in _powers(min(chips, 8)):
        if chips % pp:
            continue
        stage = chips // pp
        for tp in sorted(set(_powers(stage)) | ({stage} if stage <= 16 else set())):
            if stage % tp:
                continue
            eps = [1]
            if experts:
                eps = sorted(
                    {e for e in [*_powers(stage), stage] if stage % e == 0 and e <= experts}
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
    model: str | ModelSpec,
    hardware: str | Chip,
    max_chips: int,
    *,
    context_len: int = 4096,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tpot_s: float | None = None,
    ttft_s: float | None = None,
    comm: CommModel | None = None,
) -> SearchResult:
    """The search described in the module docstring; targets are upper limits in seconds."""
    spec = get_model(model)
    chip = get_hardware(hardware)
    if isinstance(max_chips, bool) or not isinstance(max_chips, int) or max_chips < 1:
        raise InputError(
            f"max_chips must be a positive integer, got {max_chips!r}", field="max_chips"
        )
    for name, v in (("tpot_s", tpot_s), ("ttft_s", ttft_s)):
        if v is not None and not v > 0:
            raise InputError(f"{name} must be positive, got {v!r}", field=name)
    kw: dict[str, Any] = {"weight_dtype": weight_dtype, "kv_dtype": kv_dtype}
    cols: dict[str, list[float]] = {c: [] for c in COLUMNS}
    tried = 0
    chip_counts = sorted(set(_powers(max_chips)) | {max_chips})
    for n in chip_counts:
        system = System(chip, n)
        for par in _splits(spec, n):
            tried += 1
            fit = int(max_batch(spec, system, context_len=context_len, parallel=par, **kw))
            if fit < 1:
                continue
            B = np.asarray(sorted({b for b in _powers(fit)} | {fit}), dtype=np.float64)
            step = decode_step(
                spec, system, batch=B, context_len=context_len, parallel=par, comm=comm, **kw
            )
            first = prefill(
                spec, system, batch=1, prompt_len=context_len, parallel=par, comm=comm, **kw
            )
            t = step.t_step
            price = system.price_usd_per_s
            usd = price * t / B * 1e6 if price > 0 else np.full_like(t, np.nan)
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
            cols["ttft_s"] += [float(first.t_step)] * m
            cols["tokens_per_s_per_user"] += list(1.0 / t)
            cols["tokens_per_s"] += list(B / t)
            cols["tokens_per_s_per_chip"] += list(B / t / n)
            cols["usd_per_million_tokens"] += list(usd)
    points = {c: np.asarray(v, dtype=np.float64) for c, v in cols.items()}
    if points["batch"].size == 0:
        raise InputError(
            f"{spec.name} fits on no split of up to {max_chips} × {chip.id} at context "
            f"{context_len:,}; allow more chips or a smaller weight type",
            field="max_chips",
        )
    if not chip.price_usd_per_s > 0:
        raise InputError(
            f"{chip.id} has no price in the catalog; the search ranks by cost",
            field="price_usd_per_hour",
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
    )
