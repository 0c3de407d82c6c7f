"""The batch a what-if runs at: a deployment's time per output token against batch, and the
largest batch that fits (within a target time per output token, when one is given)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from llm_roofline.deploy.deployment import Deployment

__all__ = ["largest_batch", "largest_within", "tpot"]


def tpot(dep: Deployment, batch: int, context_len: int) -> float:
    """Seconds per output token (a decode step) of `batch` sequences under the engine."""
    t, _, _ = dep.time(dep.decode(batch, context_len))
    return float(np.asarray(t).flat[0])


def largest_within(fn: Callable[[int], float], lo: int, hi: int, limit: float) -> int:
    """The largest integer b in [lo, hi] with fn(b) <= limit, for fn non-decreasing (a step
    time against batch); lo − 1 when fn(lo) is over the limit. Bisection."""
    if fn(lo) > limit:
        return lo - 1
    if fn(hi) <= limit:
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fn(mid) <= limit:
            lo = mid
        else:
            hi = mid
    return lo


def largest_batch(dep: Deployment, context_len: int, tpot_s: float | None = None) -> int:
    """The largest batch that fits at `context_len` (with `tpot_s`: whose time per output
    token under the engine is within it); 0 when none does."""
    fit = int(dep.max_batch(context_len))
    if fit < 1 or tpot_s is None:
        return max(fit, 0)
    return max(largest_within(lambda b: tpot(dep, b, context_len), 1, fit, tpot_s), 0)
