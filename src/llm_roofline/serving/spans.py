"""The decode steps of many requests at once: each row's run of contexts, as spans of shared points.

A request decodes its tokens at a run of contexts (a static batch: `input_len + 1` ..
`input_len + output_len − 1`; continuous batching's memory: `input_len` .. `input_len +
output_len − 1`), and its figures are means over that run. To time many rows of one
deployment in one engine call, `Spans.of` lays out the (batch, context) points every row
needs, each point once (rows with the same batch whose runs overlap or touch share their
points), and `Spans.mean` takes each row's mean over its own run. A run longer than
MAX_STEPS_SAMPLED contexts is sampled evenly (`contexts`), as one request alone is.

`size` checks one batch or length.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.errors import InputError
from llm_roofline.engine.roofline import MAX_SIZE

__all__ = ["MAX_STEPS_SAMPLED", "Spans", "contexts", "size"]

MAX_STEPS_SAMPLED = 4096  # longer generations are integrated from this many sampled contexts
_SHIFT = np.int64(1) << 41  # above any context (≤ 1e12 < 2^40): keys one batch's runs apart

IntArray = NDArray[np.intp]
Int64s = NDArray[np.int64]


def size(value: int, name: str, *, zero: bool = False) -> int:
    """A batch or a length: an integer, at least 1 (0 with `zero`), at most MAX_SIZE."""
    least, what = (0, "zero or a positive integer") if zero else (1, "a positive integer")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise InputError(f"{name} must be {what}, got {value!r}", field=name)
    if value > MAX_SIZE:
        raise InputError(f"{name} must be at most {MAX_SIZE:.0e}, got {value!r}", field=name)
    return int(value)


def contexts(first: float, count: int) -> FloatArray:
    """The contexts first, first+1, ..., first+count−1; for very long generations an even
    sample of them (the mean over the sample stands for the mean over all)."""
    if count <= MAX_STEPS_SAMPLED:
        return first + np.arange(count, dtype=np.float64)
    return np.linspace(first, first + count - 1, MAX_STEPS_SAMPLED)


@dataclass(frozen=True)
class Spans:
    """Points (`batch`, `context`) and, for each row, the `size` points from `start` that are
    its run, in context order."""

    batch: FloatArray
    context: FloatArray
    start: IntArray
    size: IntArray

    @property
    def rows(self) -> int:
        return int(self.start.size)

    @classmethod
    def single(cls, batch: FloatArray, context: FloatArray, point: ArrayLike) -> Spans:
        """Rows of one point each: row i is point `point[i]`."""
        start = np.asarray(point, dtype=np.intp)
        return cls(batch, context, start, np.ones_like(start))

    @classmethod
    def of(cls, batch: ArrayLike, first: ArrayLike, count: ArrayLike) -> Spans:
        """Row i decodes `count[i]` steps of batch `batch[i]` at contexts from `first[i]`
        (integers: the contexts are whole token counts)."""
        b = np.asarray(batch, dtype=np.float64).ravel()
        f = np.asarray(first, dtype=np.int64).ravel()
        n = np.asarray(count, dtype=np.int64).ravel()
        start = np.zeros(b.size, dtype=np.intp)
        size = np.minimum(n, MAX_STEPS_SAMPLED).astype(np.intp)
        short = np.flatnonzero(n <= MAX_STEPS_SAMPLED)
        pb, pc = _union(b[short], f[short], f[short] + n[short] - 1, start, short)
        sampled = np.flatnonzero(n > MAX_STEPS_SAMPLED)
        if sampled.size:  # each its own evenly spaced sample, after the shared points
            start[sampled] = pb.size + MAX_STEPS_SAMPLED * np.arange(sampled.size)
            runs = [contexts(float(f[i]), int(n[i])) for i in sampled]
            pc = np.concatenate([pc, *runs])
            pb = np.concatenate([pb, np.repeat(b[sampled], MAX_STEPS_SAMPLED)])
        return cls(pb, pc, start, size)

    @functools.cached_property
    def _sums(self) -> tuple[IntArray, IntArray, IntArray] | None:
        """How `mean` sums (None: every row is one point): the rows in order of their first
        point, and reduceat's indices, whose even slots are the rows' runs (in that order the
        odd slots between them are short)."""
        if np.all(self.size == 1):
            return None
        order = np.argsort(self.start, kind="stable")
        idx = np.empty(2 * order.size, dtype=np.intp)
        idx[0::2] = self.start[order]
        idx[1::2] = self.start[order] + self.size[order]
        return order, idx, self.size[order]

    def mean(self, values: ArrayLike) -> FloatArray:
        """Each row's mean of `values` (one per point) over its own run."""
        v = np.asarray(values, dtype=np.float64)
        if v.shape != self.batch.shape:
            v = np.broadcast_to(v, self.batch.shape)
        if self._sums is None:
            return np.asarray(v[self.start], dtype=np.float64)
        order, idx, size = self._sums
        sums = np.add.reduceat(np.concatenate((v, _END)), idx)[0::2]  # _END: the last index
        out = np.empty(order.size, dtype=np.float64)
        out[order] = sums / size
        return out


_END = np.zeros(1)  # appended to the values, so that reduceat's last index is in range


def _union(
    b: FloatArray,
    first: NDArray[np.int64],
    last: NDArray[np.int64],
    start: IntArray,
    rows: IntArray,
) -> tuple[FloatArray, FloatArray]:
    """The union of the runs [first, last] of each batch value, as points; sets each row's
    `start` (rows[k] is the row of run k)."""
    if b.size == 0:
        return np.zeros(0), np.zeros(0)
    order = np.lexsort((first, b))
    bs, fs, ls = b[order], first[order], last[order]
    new_batch = np.ones(bs.size, dtype=bool)
    new_batch[1:] = bs[1:] != bs[:-1]
    rank = np.cumsum(new_batch) - 1
    # the furthest context reached so far by this batch's runs (keys keep batches apart)
    reach = np.maximum.accumulate(rank * _SHIFT + ls) - rank * _SHIFT
    new_run = new_batch.copy()
    new_run[1:] |= fs[1:] > reach[:-1] + 1
    run = np.cumsum(new_run) - 1
    run_first = fs[new_run]
    run_last = reach[np.append(new_run[1:], True)]  # a run's last row holds its furthest reach
    length = run_last - run_first + 1
    offset = np.concatenate([[0], np.cumsum(length)[:-1]])
    start[rows[order]] = offset[run] + (fs - run_first[run])
    total = int(length.sum())
    context = np.repeat(run_first - offset, length) + np.arange(total)
    return np.repeat(bs[new_run], length), context.astype(np.float64)
