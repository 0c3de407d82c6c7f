"""One serving instance's step times, tabulated from the engine for the simulator.

A continuous-batching step decodes one token for each of `n_d` sequences (their mean context
`c`) and carries `n_p` prompt tokens (a chunked prefill), or, with nothing to decode, is a
prefill pass alone. The simulator needs the time of hundreds of thousands of such steps, each a
different mix, faster than one engine call each allows; so the engine is asked once, in two
vectorised calls (`roofline.mixed_step` over a grid of (n_d, c, n_p) and `roofline.prefill`
over a grid of n_p), each point timed by the deployment's engine (`calibrate.pass_time`: the
ideal lower bound, or a calibrated profile), and a step's time is interpolated in that grid.

The grids are geometric (each point at most `RATIO` times the one before), and interpolation is
linear in each axis between grid points, which are exact engine figures. The engine's time is
piecewise linear in tokens and contexts (a max of compute and memory, plus communication), so
the interpolation is close: `benchmarks/simulate_speed.py` measures its error against direct
engine calls at random mixes, and `tests/sim/test_simulate.py` bounds it (`docs/planning.md`).

Approximations, as the simulator states them: a step's prompt tokens are timed as one prompt
of `n_p` tokens from position 0 (a chunk that continues a long prompt attends to its earlier
tokens too, which this leaves out, and several short prompts in one step attend only to
themselves, which this counts as more; attention is a small share of a prompt's FLOPs below
some thousands of tokens), and the decode sequences' terms are taken at their mean context (exact
for global attention, whose per-sequence terms are linear in the context).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline.calibration.profile import pass_time
from llm_roofline.engine.roofline import mixed_step, prefill

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = ["RATIO", "StepTable", "errors_against_engine", "geometric_grid"]

RATIO = 1.12  # neighbouring grid points differ by at most this factor


def geometric_grid(top: int, ratio: float = RATIO, start: int = 1) -> list[int]:
    """Integers from `start` to `top`: every integer up to 8, then each point at most `ratio`
    times the one before, and `top` itself."""
    pts = [start]
    while pts[-1] < top:
        nxt = max(pts[-1] + 1, int(pts[-1] * ratio))
        pts.append(min(nxt, top))
    return pts


def _locate(grid: list[int], x: float) -> tuple[int, float]:
    """(i, w): x lies between grid[i] and grid[i+1], at weight w of the way (clamped)."""
    if x <= grid[0]:
        return 0, 0.0
    if x >= grid[-1]:
        return max(len(grid) - 2, 0), 1.0 if len(grid) > 1 else 0.0
    i = bisect_right(grid, x) - 1
    lo, hi = grid[i], grid[i + 1]
    return i, (x - lo) / (hi - lo)


class StepTable:
    """Step times of one instance of `dep` (seconds), for decode batches up to `max_seqs`,
    mean contexts up to `max_context` and prompt tokens per step up to `max_tokens`."""

    def __init__(self, dep: Deployment, *, max_seqs: int, max_context: int, max_tokens: int):

        self.seqs = geometric_grid(max_seqs)
        self.ctx = geometric_grid(max_context)
        self.tok = [0, *geometric_grid(max_tokens)]
        kw = dep._kw()
        prof = dep.profile
        nd, cx, npf = np.meshgrid(
            np.asarray(self.seqs, float),
            np.asarray(self.ctx, float),
            np.asarray(self.tok, float),
            indexing="ij",
        )
        step = mixed_step(
            dep.model,
            dep.instance,
            decode_batch=nd.ravel(),
            decode_contexts=cx.ravel(),
            prefill_seqs=(npf.ravel() > 0).astype(float),
            prefill_len=np.maximum(npf.ravel(), 1.0),
            context_mean=lambda v: v,  # one context point per pass: its own
            **kw,
        )
        shape = nd.shape
        has_prompt = npf.ravel() > 0
        t_plain = np.asarray(pass_time(step, prof), dtype=np.float64)
        t_first = np.asarray(pass_time(step, prof, first_token=True), dtype=np.float64)
        mixed = np.where(has_prompt, t_first, t_plain).reshape(shape)
        self._mixed: list[list[list[float]]] = mixed.tolist()
        only = prefill(
            dep.model,
            dep.instance,
            batch=1,
            prompt_len=np.asarray(self.tok[1:], float),
            **kw,
        )
        t_pre: FloatArray = np.asarray(pass_time(only, prof, prefill=True), dtype=np.float64)
        self._prefill: list[float] = [0.0, *t_pre.ravel().tolist()]
        self.points = int(mixed.size + t_pre.size)

    def prefill_time(self, tokens: float) -> float:
        """A pass that only prefills `tokens` prompt tokens."""
        i, w = _locate(self.tok, tokens)
        row = self._prefill
        return row[i] + w * (row[i + 1] - row[i]) if w else row[i]

    def step_time(self, decode: int, mean_context: float, tokens: float) -> float:
        """A step decoding `decode` sequences at `mean_context` with `tokens` prompt tokens
        (a prefill pass alone when `decode` is 0)."""
        if decode <= 0:
            return self.prefill_time(tokens)
        i, wi = _locate(self.seqs, decode)
        j, wj = _locate(self.ctx, mean_context)
        k, wk = _locate(self.tok, tokens)
        m = self._mixed
        total = 0.0
        for di, fi in ((0, 1.0 - wi), (1, wi)):
            if fi == 0.0:
                continue
            plane = m[i + di]
            for dj, fj in ((0, 1.0 - wj), (1, wj)):
                if fj == 0.0:
                    continue
                line = plane[j + dj]
                v = line[k] if wk == 0.0 else line[k] + wk * (line[k + 1] - line[k])
                total += fi * fj * v
        return total


def errors_against_engine(
    table: StepTable, dep: Deployment, *, mixes: int = 300, seed: int = 0
) -> FloatArray:
    """The table's relative error (interpolated / direct − 1) at `mixes` random steps of up to
    its largest batch, context and prompt tokens, each timed by a direct engine call: half
    decode only, half with a prompt chunk filling up to the token budget."""

    rng = np.random.default_rng(seed)
    top_b, top_c, top_t = table.seqs[-1], table.ctx[-1], table.tok[-1]
    errs = []
    for _ in range(mixes):
        nd = int(rng.integers(1, top_b + 1))
        cx = float(rng.uniform(min(16, top_c), top_c))
        npf = int(rng.integers(1, max(top_t - nd, 2))) if rng.random() < 0.5 else 0
        step = mixed_step(
            dep.model,
            dep.instance,
            decode_batch=nd,
            decode_contexts=[cx],
            prefill_seqs=1 if npf else 0,
            prefill_len=max(npf, 1),
            **dep._kw(),
        )
        want = float(pass_time(step, dep.profile, first_token=npf > 0))
        errs.append(table.step_time(nd, cx, npf) / want - 1)
    return np.asarray(errs, dtype=np.float64)
