"""B* of a deployment's own split: the batch where the busiest chip's matmul time equals its
weight-fetch time, solved on the engine's terms (the closed forms of `engine.balance` hold only
for one chip or tp alone)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.errors import InputError

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = ["deployment_balance_batch"]


def deployment_balance_batch(dep: Deployment) -> float:
    """B* of a deployment: the batch (all replicas and data-parallel groups together) at which
    the busiest chip's matmul time equals its weight-fetch time, one micro-batch, KV left out.

    On one chip, or a dense model split by tp alone, this is `balance_batch` (the chip count
    cancels). A split moves it: pp stages each read their weights once per micro-batch of
    B / pp, so B* grows pp-fold; replicas and data-parallel groups each need their own B*;
    expert parallelism leaves each chip a share of the experts but all of the attention, so
    a chip's weights are not N_total / chips. Rather than a closed form per split, the
    engine's own terms are solved: matmul time grows in proportion to B, weight fetch never
    falls as B grows (MoE: more experts touched) and is bounded by all the weights, so the
    terms cross once; a grid brackets the crossing and finer grids close in on it.
    """

    def gap(batch: np.ndarray) -> np.ndarray:
        s = dep.decode(batch, 1)
        one = s.single or s  # one micro-batch: weights read once per step
        return np.asarray(one.t_matmul - one.t_weights, dtype=np.float64)

    grid = np.geomspace(1.0, 1e12, 121)  # 10 points a decade
    g = gap(grid)
    if g[0] >= 0:
        return 1.0
    above = np.nonzero(g >= 0)[0]
    if not above.size:  # weights unbounded by the batch: cannot happen for a real model
        raise InputError("no batch balances compute and weight fetch on this deployment")
    lo, hi = float(grid[above[0] - 1]), float(grid[above[0]])
    for _ in range(4):  # each round narrows the bracket 64-fold: 26% -> 2e-8 of B*
        fine = np.linspace(lo, hi, 65)
        first = int(np.argmax(gap(fine) >= 0))  # fine[-1] = hi is always at or past it
        lo, hi = float(fine[max(first - 1, 0)]), float(fine[first])
    return hi
