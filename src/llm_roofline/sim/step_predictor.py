"""One serving instance's step times, tabulated from the engine for the simulator.

A continuous-batching step decodes one token for each of `n_d` sequences (their mean context
`c`) and carries prompt chunks, each `(tokens, cached)`: a chunk of a prompt whose first
`cached` tokens earlier steps prefilled. The simulator needs the time of hundreds of thousands
of such steps, each a different mix, faster than one engine call each allows; so the engine
is asked once, in vectorised calls, each point timed by the deployment's engine
(`calibrate.pass_time`: the ideal lower bound, or a calibrated profile), and a step's time is
interpolated from them:

- `roofline.mixed_step` over a grid of (decode sequences per micro-batch, mean context,
  prompt tokens), the step as an engine runs it (`whole_decode`): with pp stages, pp
  micro-batches each of ceil(n_d / pp) decode sequences and 1/pp of the prompt tokens (a
  chunk split into pp sub-chunks), each through every stage, so a step is pp stage times of
  its busiest micro-batch; with dp data-parallel attention groups, the busiest group holds
  ceil of those over dp. The prompt tokens here run without their attention (as prompts of
  `PSEUDO` tokens: their matmuls, weights, KV writes and communication). Each point is kept
  twice: the step's time, and its time with the memory terms left out (`Tc`).
- `roofline.prefill` over a grid of (chunk tokens, cached tokens): what a chunk adds besides,
  its attention to itself and to its prompt's cached tokens (`x`) and its reading of their KV
  (`y`), each timed alone by the engine.

A step's time is then max(Tc + Σx, T + Σy) (with the "full" overlap: compute and memory
overlap, and the attention adds to compute, the KV reads to memory; exactly the engine's
when either dominates, above it by at most a chunk's KV read otherwise), or T + Σx + Σy (other
overlaps, an upper bound), the least over the schedules (one micro-batch, or two where
communication is costed: a chunk's attention can change which is faster, so each schedule
keeps its tables). Several prompts in one step are so timed as separate prompts, and a
chunk sees its earlier chunks. With dp > 1 a chunk runs on one group: the busiest holds
max(largest chunk, tokens / dp) prompt tokens, interpolated between two tables (tokens spread
evenly; all on one group), linear in between where the time is convex. The commonest step,
decodes and at most one fresh chunk, reads one more table per schedule that holds it whole.
Where the busiest group's ceil(n / dp) sequences step between two grid points of n, the lower
point is tabulated with the upper's count for the interpolation (which then stays above).

Pipeline fill and drain: the pp sub-chunks of a prompt's last chunk leave the last stage one
stage time apart, the last (pp − 1) stage times after the step's pp (`drain`: (pp − 1)/pp of
the step), so a prompt of m steps' chunks takes (m·pp + pp − 1) sub-chunk stage times. The
event loop emits the first token that much after its step ends.

The grids are geometric (each point at most `RATIO` times the one before), and interpolation is
linear in each axis between grid points, which are exact engine figures. The engine's time is
piecewise linear in tokens and contexts (a max of compute and memory, plus communication), so
the interpolation is close and, where the time is convex, above it: `benchmarks/simulate_speed.py`
measures its error against direct engine calls at random mixes, and `tests/sim/test_simulate.py`
bounds it (`docs/planning.md`). The decode sequences' terms are taken at their mean context
(exact for global attention, whose per-sequence terms are linear in the context).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline.calibration.profile import pass_time
from llm_roofline.engine.roofline import mixed_step, prefill
from llm_roofline.sim.step_grids import (
    IDEAL,
    RATIO,
    Table,
    decode_grid,
    geometric_grid,
    interp_one,
    interp_pair,
    locate,
    pairs,
    times,
    with_rows,
    with_terms,
)

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = [
    "PSEUDO",
    "RATIO",
    "Chunk",
    "StepTable",
    "engine_step_time",
    "errors_against_engine",
    "geometric_grid",
]

# the table's prompt tokens run as prompts of this many tokens: their attention within such
# blocks is taken back out of a chunk's (`StepTable`); their LM head runs for one token in
# PSEUDO (0.1% of an 8B model's FLOPs per prompt token), at least the one per chunk a step runs
# unless its chunks average fewer tokens
PSEUDO = 64
Chunk = tuple[int, int]  # a step's chunk of one prompt: (its tokens, the prompt's tokens before)


class StepTable:
    """Step times of one instance of `dep` (seconds), for decode batches up to `max_seqs`,
    mean contexts up to `max_context` and prompt tokens per step up to `max_tokens`."""

    def __init__(self, dep: Deployment, *, max_seqs: int, max_context: int, max_tokens: int):
        par = dep.parallel
        self.pp, self.dp = par.pp, par.dp
        self.drain = (self.pp - 1) / self.pp  # a completed prompt's first token, after its step
        self.full = dep.overlap == "full"
        self.seqs = decode_grid(-(-max_seqs // self.pp), self.dp)
        self.ctx = geometric_grid(max_context)
        self.tok = [0, *geometric_grid(max_tokens)]
        self._extras(dep, max_context, max_tokens)
        every = list(range(len(self.seqs)))
        self._tabs, self._tabs1, self._fresh = self._build(dep, every, upper=False)
        # between two grid points where the busiest group's count steps (ceil(n / dp)), the
        # lower point taken with the upper's count: the interpolation then stays above
        rows = [i for i in every[:-1] if self._steps(i)]
        self._lo, self._lo1, self._fresh_lo = self._tabs, self._tabs1, self._fresh
        if rows:
            lo, lo1, fresh = self._build(dep, rows, upper=True)
            self._lo = [with_rows(a, rows, b) for a, b in zip(self._tabs, lo, strict=True)]
            self._lo1 = [with_rows(a, rows, b) for a, b in zip(self._tabs1, lo1, strict=True)]
            self._fresh_lo = [
                with_rows(a, rows, b) for a, b in zip(self._fresh, fresh, strict=True)
            ]
        self.points = (1 + (self.dp > 1)) * len(self.seqs) * len(self.ctx) * len(self.tok)
        # `locate` on the decode and prompt-token grids, kept by count as the steps ask them
        # (a few hundred counts recur through a run): the same cells and weights, looked up
        self._at_seqs: dict[float, tuple[int, float]] = {}
        self._at_tok: dict[float, tuple[int, float]] = {0: (0, 0.0)}
        self._j = 0  # the context cell the last step found, on a grid no context reaches past
        self._cg = [*self.ctx, -math.inf]

    def _steps(self, i: int) -> bool:
        """Whether the busiest of dp groups gains a sequence strictly between grid points i
        and i + 1."""
        a, b, dp = self.seqs[i], self.seqs[i + 1], self.dp
        return dp > 1 and b - a > 1 and -(-a // dp) != -(-b // dp)

    def _build(
        self, dep: Deployment, rows: list[int], upper: bool
    ) -> tuple[list[Table], list[Table], list[Table]]:
        """At the decode grid's `rows`: each schedule's table, prompts spread and on one
        group (the same without dp), and the common step's (decodes and at most one fresh
        chunk, on one group: its attention added)."""
        spread = self._mixed(dep, rows, False, upper)
        one = self._mixed(dep, rows, True, upper) if self.dp > 1 else spread
        x = np.interp(self.tok, self.ec, self._ex0)
        x[0] = 0.0  # no prompt
        fresh = [Table(np.maximum(tc + x, t)) for t, tc in one]
        tabs = [pairs(t, tc) for t, tc in spread]
        return tabs, [pairs(t, tc) for t, tc in one] if self.dp > 1 else tabs, fresh

    def _mixed(
        self, dep: Deployment, rows: list[int], concentrated: bool, upper: bool
    ) -> list[tuple[FloatArray, FloatArray]]:
        """The step over the (sequences per micro-batch, context, prompt tokens) grid, its
        prompt tokens spread evenly over the dp groups, or all on the busiest: for each
        schedule, its time and its time without the memory terms (`times`). `upper`: the
        busiest group's decode sequences those of the next grid point (where ceil(n / dp)
        steps between two points, the interpolation from below then stays above)."""
        nd, cx, npf = np.meshgrid(
            np.asarray([self.seqs[i] for i in rows], float),
            np.asarray(self.ctx, float),
            np.asarray(self.tok, float),
            indexing="ij",
        )
        prompts = npf.ravel() / PSEUDO
        nxt = np.asarray([self.seqs[min(i + 1, len(self.seqs) - 1)] for i in rows], float)
        nxt = nxt[:, None, None]
        step = mixed_step(
            dep.model,
            dep.instance,
            decode_batch=nd.ravel() * self.pp,  # ceil(· / pp): the grid's per micro-batch
            decode_contexts=cx.ravel(),
            prefill_seqs=prompts,
            prefill_len=float(PSEUDO),
            context_mean=lambda v: v,  # one context point per pass: its own
            whole_decode=True,
            prefill_busiest=prompts if concentrated else None,
            decode_busiest=np.ceil(np.broadcast_to(nxt, nd.shape).ravel() / self.dp)
            if upper
            else None,
            **dep._kw(),
        )
        first = np.where(npf.ravel() > 0, self._shift, 0.0)
        shaped = [np.reshape(t, nd.shape) for t in times(dep, step, first)]
        return [(shaped[n], shaped[n + 1]) for n in range(0, len(shaped), 2)]

    def _extras(self, dep: Deployment, max_context: int, max_tokens: int) -> None:
        """What a chunk adds to a step over the (chunk tokens, cached tokens) grid: its
        attention's time (less that of its tokens as the table's blocks of PSEUDO), and its
        reading of the cached KV, each timed alone by the engine (one stage's, over every
        sub-chunk: what the step's pp micro-batches add up to)."""
        self.ec = [*geometric_grid(max(max_tokens, PSEUDO))]
        self.es = [0, *geometric_grid(max_context)]
        c, s = np.meshgrid(np.asarray(self.ec, float), np.asarray(self.es, float), indexing="ij")
        c = np.append(c.ravel(), PSEUDO)
        s = np.append(s.ravel(), 0.0)
        kw = dep._kw()
        st = prefill(dep.model, dep.instance, batch=1, prompt_len=c, cached_len=s, **kw)
        fresh = prefill(dep.model, dep.instance, batch=1, prompt_len=c, cached_len=0, **kw)
        prof = dep.profile or IDEAL
        zero = with_terms(st, {}, False)
        base = pass_time(zero, prof, prefill=True)
        self._shift = float((pass_time(zero, prof, first_token=True) - pass_time(zero, prof))[0])
        attn = {"t_attn": st.t_attn, "t_attn_prefill": st.t_attn}
        x = pass_time(with_terms(st, attn, False), prof, prefill=True) - base
        kv = {"t_kv": np.maximum(st.t_kv - fresh.t_kv, 0.0)}
        y = pass_time(with_terms(st, kv, False), prof, prefill=True) - base
        x = np.maximum(x[:-1] - c[:-1] / PSEUDO * x[-1], 0.0)  # the blocks' own, taken back
        shape = (len(self.ec), len(self.es))
        self._ex: list[list[float]] = x.reshape(shape).tolist()
        self._ey: list[list[float]] = y[:-1].reshape(shape).tolist()
        self._ex0 = [row[0] for row in self._ex]  # fresh prompts: no cached KV to read
        # and by each whole number of tokens (the commonest chunk: a prompt from its start)
        self._x0: list[float] = np.interp(np.arange(max_tokens + 1), self.ec, self._ex0).tolist()

    def chunk_extra(self, tokens: float, cached: float) -> tuple[float, float]:
        """A chunk's attention time and its cached-KV read time, as the step adds them."""
        i, wi = locate(self.ec, tokens)
        if not cached:
            x = self._ex0
            return (x[i] + wi * (x[i + 1] - x[i]) if wi else x[i]), 0.0
        j, wj = locate(self.es, cached)
        ex, ey = self._ex, self._ey
        a0, a1, b0, b1 = ex[i], ex[i + 1], ey[i], ey[i + 1]
        x0 = a0[j] + wj * (a0[j + 1] - a0[j]) if wj else a0[j]
        y0 = b0[j] + wj * (b0[j + 1] - b0[j]) if wj else b0[j]
        if not wi:
            return x0, y0
        x1 = a1[j] + wj * (a1[j + 1] - a1[j]) if wj else a1[j]
        y1 = b1[j] + wj * (b1[j + 1] - b1[j]) if wj else b1[j]
        return x0 + wi * (x1 - x0), y0 + wi * (y1 - y0)

    def prefill_time(self, tokens: float, chunks: Sequence[Chunk] | None = None) -> float:
        """A step that only prefills `tokens` prompt tokens (`chunks`: its prompts' chunks;
        by default one fresh prompt)."""
        return self.time(0, 1.0, tokens, chunks)

    def step_time(
        self,
        decode: float,
        mean_context: float,
        tokens: float,
        chunks: Sequence[Chunk] | None = None,
    ) -> float:
        """A step decoding `decode` sequences at `mean_context` with `tokens` prompt tokens
        (`chunks`: its prompts' chunks; by default one fresh prompt of `tokens`)."""
        return self.time(decode, mean_context, tokens, chunks)

    def time(
        self, decode: float, ctx: float, tokens: float, chunks: Sequence[Chunk] | None
    ) -> float:
        """The step (`step_time`); the event loop's call."""
        if decode > 0:
            at = self._at_seqs
            cell = at.get(decode)
            if cell is None:
                cell = at[decode] = locate(self.seqs, -(-decode // self.pp))
            i, wi = cell
            # the context's cell: the last step's where it still holds (locate's own figures)
            g, j = self._cg, self._j
            if g[j] <= ctx < g[j + 1]:
                wj = (ctx - g[j]) / (g[j + 1] - g[j])
            else:
                j, wj = locate(self.ctx, ctx)
                self._j = j
        else:
            i = j = 0
            wi = wj = 0.0
        at = self._at_tok
        cell = at.get(tokens)
        if cell is None:
            cell = at[tokens] = locate(self.tok, tokens) if tokens > 0 else (0, 0.0)
        k, wk = cell
        if not chunks or (len(chunks) == 1 and not chunks[0][1]):  # decodes, a fresh chunk
            # the fastest of the schedules (`StepTime.double`: an engine keeps the cheaper)
            fastest = math.inf
            for lo, tab in zip(self._fresh_lo, self._fresh, strict=True):
                v = interp_one(lo, tab, i, wi, j, wj, k, wk)
                if v < fastest:
                    fastest = v
            return fastest
        tabs = self._tabs
        x = y = 0.0
        top = 0.0
        x0, n0 = self._x0, len(self._x0)
        for c, s in chunks:
            if s or c >= n0:
                a, b = self.chunk_extra(c, s)
                x += a
                y += b
            else:
                x += x0[c]
            if c > top:
                top = c
        w = 0.0
        if self.dp > 1 and top * self.dp > tokens:  # the busiest group holds the largest chunk
            share = tokens / self.dp
            w = (min(top, tokens) - share) / (tokens - share)
        best = float("inf")
        for n, tab in enumerate(tabs):
            t, tc = interp_pair(self._lo[n], tab, i, wi, j, wj, 2 * k, wk)
            if w:
                t1, tc1 = interp_pair(self._lo1[n], self._tabs1[n], i, wi, j, wj, 2 * k, wk)
                t, tc = t + w * (t1 - t), tc + w * (tc1 - tc)
            v = (tc + x if tc + x > t + y else t + y) if self.full else t + x + y
            if v < best:
                best = v
        return best


def engine_step_time(
    dep: Deployment, decode: int, context: float, chunk: int, cached: int
) -> float:
    """One step as an engine runs it, by a direct call of the deployment's engine (what the
    table stands for): `decode` whole sequences at mean `context` in the busiest micro-batch
    and group, and one prompt chunk of `chunk` tokens after `cached` of its own (none when 0)."""
    step = mixed_step(
        dep.model,
        dep.instance,
        decode_batch=decode,
        decode_contexts=[context],
        prefill_seqs=1 if chunk else 0,
        prefill_len=max(chunk, 1),
        prefill_cached=cached,
        whole_decode=True,
        prefill_busiest=1 if chunk else 0,
        **dep._kw(),
    )
    return float(pass_time(step, dep.profile, first_token=chunk > 0))


def errors_against_engine(
    table: StepTable, dep: Deployment, *, mixes: int = 300, seed: int = 0
) -> FloatArray:
    """The table's relative error (interpolated / direct − 1) at `mixes` random steps of up to
    its largest batch, context and prompt tokens, each timed by a direct engine call (the step
    as an engine runs it, `mixed_step(whole_decode=True)`): half decode only, half with one
    prompt chunk filling up to the token budget, half of those continuing a prompt."""

    rng = np.random.default_rng(seed)
    top_b, top_c, top_t = table.seqs[-1] * table.pp, table.ctx[-1], table.tok[-1]
    errs = []
    for _ in range(mixes):
        nd = int(rng.integers(1, top_b + 1))
        cx = float(rng.uniform(min(16, top_c), top_c))
        npf = int(rng.integers(1, max(top_t - nd, 2))) if rng.random() < 0.5 else 0
        cached = int(rng.integers(0, max(top_c - npf, 1))) if npf and rng.random() < 0.5 else 0
        want = engine_step_time(dep, nd, cx, npf, cached)
        errs.append(table.step_time(nd, cx, npf, [(npf, cached)]) / want - 1)
    return np.asarray(errs, dtype=np.float64)
