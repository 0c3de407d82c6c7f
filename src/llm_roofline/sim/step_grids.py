"""The step predictor's grids (`step_predictor.StepTable`): where the engine is evaluated,
how a point between grid points is interpolated, and the engine's passes as the table keeps
them (one schedule at a time, with or without the memory terms, or one term alone).

The grids are geometric (each point at most `RATIO` times the one before) and interpolation is
linear in each axis between grid points, which are exact engine figures: above the engine's
time where it is convex between them (a max of compute and memory, plus communication).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline.calibration.profile import Profile, pass_time
from llm_roofline.engine.step_time import StepTime, new_step_time

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = [
    "IDEAL",
    "RATIO",
    "TERMS",
    "Table",
    "decode_grid",
    "geometric_grid",
    "interp_one",
    "interp_pair",
    "locate",
    "pairs",
    "schedules",
    "times",
    "with_rows",
    "with_terms",
]

RATIO = 1.12  # neighbouring grid points differ by at most this factor
DP_BLOCKS = 64  # the decode grid holds k·dp and k·dp + 1 up to this k (where ceil(n/dp) steps)
TERMS: tuple[str, ...] = ("t_matmul", "t_attn", "t_weights", "t_kv", "t_comm")
TERMS += ("t_comm_latency", "t_matmul_prefill", "t_attn_prefill")

# the ideal engine as a profile: the ideal's own schedule (for passes built here, whose t_step
# the ideal's `pass_time` would return as it stands)
IDEAL = Profile(name="ideal", comm_overlap="all")


class Table(dict[int, list[list[float]]]):
    """A table's planes (one a decode grid point) as nested lists, by index, each made from
    `array` (or `lower`'s array for that index) when first read: a run reads only the planes
    its decode counts reach."""

    def __init__(self, array: FloatArray, lower: dict[int, FloatArray] | None = None) -> None:
        super().__init__()
        self.array = array
        self.lower = lower or {}

    def __missing__(self, i: int) -> list[list[float]]:
        plane = self.lower.get(i)
        row: list[list[float]] = (self.array[i] if plane is None else plane).tolist()
        self[i] = row
        return row


def geometric_grid(top: int, ratio: float = RATIO, start: int = 1) -> list[int]:
    """Integers from `start` to `top`: every integer up to 8, then each point at most `ratio`
    times the one before, and `top` itself."""
    pts = [start]
    while pts[-1] < top:
        nxt = max(pts[-1] + 1, int(pts[-1] * ratio))
        pts.append(min(nxt, top))
    return pts


def decode_grid(top: int, dp: int) -> list[int]:
    """Decode sequences per micro-batch: 0 (a step of prompts alone), the geometric grid, and
    where the busiest of dp groups gains a sequence (k·dp, k·dp + 1) for the first few k."""
    pts = set(geometric_grid(top))
    if dp > 1:
        pts |= {v for k in range(1, DP_BLOCKS + 1) for v in (k * dp, k * dp + 1) if v <= top}
    return [0, *sorted(pts)]


def locate(grid: list[int], x: float) -> tuple[int, float]:
    """(i, w): x lies between grid[i] and grid[i+1], at weight w of the way (clamped)."""
    if x <= grid[0]:
        return 0, 0.0
    if x >= grid[-1]:
        return max(len(grid) - 2, 0), 1.0 if len(grid) > 1 else 0.0
    i = bisect_right(grid, x) - 1
    lo, hi = grid[i], grid[i + 1]
    return i, (x - lo) / (hi - lo)


def with_terms(step: StepTime, terms: dict[str, FloatArray], keep: bool) -> StepTime:
    """`step` with `terms` set and (unless `keep`) every other term zero and one schedule
    only; with `keep`, in its one- and two-micro-batch schedules alike."""
    values = dict(step.__dict__)
    if not keep:
        values.update({k: np.zeros(np.shape(step.t_step)) for k in TERMS})
        values.update(single=None, double=None, micro_batches=np.ones(np.shape(step.t_step)))
    values.update(terms)
    out = new_step_time(values)
    if keep:
        for k in ("single", "double"):
            v = values[k]
            if v is not None:
                out.__dict__[k] = out if v is step else with_terms(v, terms, True)
    return out


def schedules(step: StepTime) -> list[StepTime]:
    """`step` as one micro-batch only, and (where communication is costed) as two where two
    are possible: a chunk's attention can change which is faster, so each is kept."""
    one = step.one_batch.__dict__ | {"single": None, "double": None}
    out = [new_step_time(one)]
    if step.double is not None and np.any(step.t_comm > 0):  # else one is never slower
        two = new_step_time(step.double.__dict__ | {"single": None})
        two.__dict__["double"] = two  # a profile hides communication where it may (`pass_time`)
        out.append(two)
    return out


def pairs(t: FloatArray, tc: FloatArray) -> Table:
    """A schedule's table as nested lists: on the innermost axis T and Tc in turn."""
    return Table(np.stack([t, tc], axis=-1).reshape(*t.shape[:2], -1))


def times(dep: Deployment, step: StepTime, first: FloatArray) -> list[FloatArray]:
    """For each schedule (`schedules`), the engine's time of each pass of `step` (T) and the
    time a chunk's attention adds to (Tc): with communication added after the pass, the pass
    without its memory terms; hidden under it (two micro-batches, where the profile hides it
    and that is faster), the pass's compute alone. `first`: what a pass that gives a prompt
    its first token pays besides (the profile's fixed time), where it does. A step is then
    max(Tc + x, T + y) for a chunk's attention x and KV reads y (`StepTable`)."""
    prof = dep.profile or IDEAL
    zero = np.zeros(np.shape(step.t_step))
    memory = {"t_weights": zero, "t_kv": zero}

    def timed(v: StepTime) -> FloatArray:
        return np.asarray(pass_time(v, prof), dtype=np.float64) + first

    one, *two = schedules(step)
    out = [timed(one), timed(with_terms(one, memory, True))]
    for b in two:  # where hiding its communication does not pay, the one-batch pass
        exposed = new_step_time(b.__dict__ | {"double": None, "micro_batches": zero + 1.0})
        t_b = timed(b)
        hidden = t_b < timed(exposed)
        alone = timed(with_terms(b, memory | {"t_comm": zero, "t_comm_latency": zero}, True))
        out += [np.where(hidden, t_b, out[0]), np.where(hidden, alone, out[1])]
    return out


def with_rows(table: Table, rows: list[int], new: Table) -> Table:
    """`table` with its rows `rows` those of `new`, in turn."""
    return Table(table.array, {i: new.array[n] for n, i in enumerate(rows)})


# size: the hot path: the tables, the cell's three indices and weights, as numbers
def interp_one(
    lo: Table, tab: Table, i: int, wi: float, j: int, wj: float, k: int, wk: float
) -> float:
    """A table of one value per point interpolated at (i + wi, j + wj, k + wk) of its grid,
    from `lo` at i when wi > 0: the points of weight 0 left out, the others added up in turn
    (written out: the event loop's commonest call)."""
    total = 0.0
    fj0 = 1.0 - wj
    rows = ((lo[i], 1.0 - wi), (tab[i + 1], wi)) if wi else ((tab[i], 1.0),)
    for plane, fi in rows:
        if fj0 != 0.0:
            line = plane[j]
            v = line[k] if wk == 0.0 else line[k] + wk * (line[k + 1] - line[k])
            total += fi * fj0 * v
        if wj != 0.0:
            line = plane[j + 1]
            v = line[k] if wk == 0.0 else line[k] + wk * (line[k + 1] - line[k])
            total += fi * wj * v
    return total


# size: the hot path: the tables, the cell's three indices and weights, as numbers
def interp_pair(
    lo: Table, tab: Table, i: int, wi: float, j: int, wj: float, k2: int, wk: float
) -> tuple[float, float]:
    """A schedule's table interpolated at the point (i + wi, j + wj, k + wk) of its grid
    (k2 = 2k), from `lo` at i when wi > 0: the step's time and its time without the memory
    terms."""
    t = tc = 0.0
    rows = ((lo[i], 1.0 - wi), (tab[i + 1], wi)) if wi else ((tab[i], 1.0),)
    for row, fi in rows:
        lines = ((row[j], fi * (1.0 - wj)), (row[j + 1], fi * wj)) if wj else ((row[j], fi),)
        for line, f in lines:
            a, b = line[k2], line[k2 + 1]
            if wk:
                t += f * (a + wk * (line[k2 + 2] - a))
                tc += f * (b + wk * (line[k2 + 3] - b))
            else:
                t += f * a
                tc += f * b
    return t, tc
