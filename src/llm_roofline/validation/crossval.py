"""Fitting and cross-validating the calibrated engine on the validation rows.

`Stack`: every row's passes in one set of arrays.

Fitting a profile evaluates it on every row hundreds of times, and a cross-validation refits it
once per held-out group. `Stack` computes each row's ideal passes once (`validate._terms`) and
concatenates them, so that timing all rows under a profile is a handful of numpy operations
(`calibrate.pass_time` on the stacked passes, then `serving.request_figures`). The stacked
prediction equals `validate.predict_row` row by row (a test checks it).

A calibrated profile keeps communication on the critical path, so the stack holds each pass's
one-micro-batch terms (`StepTime.one_batch`): it times profiles, not the ideal engine.

`fit_rows` fits the constants (`fitting.fit`) to rows; `cross_validate` holds out each source
(or each hardware kind) in turn, refits on the rest and predicts it, and reports the held-out
errors and how often the range a held-out row would have been given holds its measured value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline.calibration.fitting import Fitted, fit
from llm_roofline.calibration.profile import HARDWARE_KINDS, Profile, chip_kind, memory_kind
from llm_roofline.engine.step_time import StepTime, new_step_time
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.serving.modes import request_figures
from llm_roofline.serving.results import Timing

__all__ = ["HARDWARE_KINDS", "POINTS", "Stack", "cross_validate", "fit_rows", "hardware_kind"]

Progress = Callable[[int, int], None]


def hardware_kind(hw_id: str) -> str:
    """The kind a catalog chip is held out with (`calibrate.chip_kind`)."""
    return chip_kind(get_hardware(hw_id))


# contexts kept per row: a pass's time is smooth in the context (linear in the KV terms, one
# kink where memory and compute cross), so the trapezoid rule over 32 evenly spaced contexts
# is within 0.03% of the mean over all on the shipped rows, at a twentieth of the work
POINTS = 32

_FIELDS = (
    "t_matmul",
    "t_attn",
    "t_weights",
    "t_kv",
    "t_comm",
    "t_step",
    "batch",
    "tokens_per_pass",
    "micro_batches",
    "t_comm_latency",
    "t_matmul_prefill",
    "t_attn_prefill",
    "layers",
    "ep",
    "kv_group",
)


def _concat(steps: Sequence[tuple[StepTime, NDArray[np.intp]]]) -> StepTime:
    """One StepTime of the chosen points of each pass: each pass's schedule, with the
    one-micro-batch terms of every point as its `single` and, where any pass has them, the
    two-micro-batch terms as its `double` (a pass without: its one-micro-batch terms)."""
    overlaps = {s.overlap for s, _ in steps}
    if len(overlaps) != 1:
        raise ValueError(f"rows of one stack share an overlap mode, got {sorted(overlaps)}")
    single = _join([(s.one_batch, idx) for s, idx in steps], None)
    double = None
    if any(s.double is not None for s, _ in steps):
        double = _join([(s.double or s.one_batch, idx) for s, idx in steps], None)
    return _join(steps, single, double)


def _join(
    steps: Sequence[tuple[StepTime, NDArray[np.intp]]],
    single: StepTime | None,
    double: StepTime | None = None,
) -> StepTime:
    values: dict[str, Any] = {}
    for name in _FIELDS:
        values[name] = np.concatenate(
            [
                np.broadcast_to(np.asarray(getattr(s, name), dtype=np.float64), s.batch.shape)[idx]
                for s, idx in steps
            ]
        )
    first = steps[0][0]
    values.update(
        bound=np.zeros(values["batch"].shape, dtype=np.int8),
        overlap=first.overlap,
        system=first.system,
        comm_overlap=first.comm_overlap,
        single=single,
        double=double,
    )
    return new_step_time(values)


@dataclass(frozen=True)
class Stack:
    """Rows' passes in one set of arrays: `step` the decode (or mixed) passes, `point_row` the
    row of each and `point_weight` its weight in that row's mean over its contexts; `first`
    the pass that gives each row its first token (a prefill where `first_is_prefill`, else a
    mixed step carrying the prompt), one per row."""

    step: StepTime
    point_row: NDArray[np.intp]
    point_weight: FloatArray
    first: StepTime
    first_is_prefill: NDArray[np.bool_]
    static: NDArray[np.bool_]
    batch: FloatArray
    output_len: FloatArray
    chips: FloatArray
    metric: tuple[str, ...]

    @classmethod
    def of(
        cls,
        terms: Sequence[Any],
        metrics: Sequence[str],
        chips: Sequence[int],
        *,
        points: int | None = POINTS,
    ) -> Stack:
        """A stack of one-scenario `serving.ServingTerms` (one per row) and each row's metric.

        A row whose decode runs over more than `points` contexts keeps that many, evenly spaced
        (its mean over them is its time per output token; None keeps every context)."""
        steps, firsts, rows, weights, first_pre = [], [], [], [], []
        for i, t in enumerate(terms):
            sp = t.spans
            start, size = int(sp.start[0]), int(sp.size[0])
            idx = np.arange(start, start + size)
            w = np.full(size, 1.0 / size)
            if points is not None and size > points:
                idx = start + np.round(np.linspace(0, size - 1, points)).astype(np.intp)
                # the trapezoid rule over the run: the two ends count half
                w = np.full(points, 1.0 / (points - 1))
                w[[0, -1]] /= 2
                size = points
            steps.append((t.step, idx))
            rows.append(np.full(size, i, dtype=np.intp))
            weights.append(w)
            if t.first is not None:
                firsts.append((t.first, idx))
                first_pre.append(False)
                if size != 1:
                    raise ValueError("a continuous row's passes are one mixed step")
            else:
                firsts.append((t.prefill, np.zeros(1, dtype=np.intp)))
                first_pre.append(True)
        return cls(
            step=_concat(steps),
            point_row=np.concatenate(rows),
            point_weight=np.concatenate(weights),
            first=_concat(firsts),
            first_is_prefill=np.asarray(first_pre, dtype=bool),
            static=np.asarray([t.mode == "static" for t in terms], dtype=bool),
            batch=np.concatenate([t.batch for t in terms]),
            output_len=np.concatenate([t.output_len for t in terms]),
            chips=np.asarray(chips, dtype=np.float64),
            metric=tuple(metrics),
        )

    @property
    def rows(self) -> int:
        return int(self.batch.size)

    def predict(self, timing: Timing) -> FloatArray:
        """Each row's metric with every pass timed under `timing`."""
        t = timing.pass_time(self.step)
        tpot = np.asarray(
            np.bincount(self.point_row, weights=t * self.point_weight, minlength=self.rows),
            dtype=np.float64,
        )
        pre = self.first_is_prefill
        ttft = np.where(
            pre,
            timing.pass_time(self.first, prefill=True),
            timing.pass_time(self.first, first_token=True),
        )
        latency, period, tokens = request_figures(
            self.static, self.batch, self.output_len, ttft, tpot
        )
        rate = tokens / period
        out = np.empty(self.rows)
        values = (tpot, ttft, latency, rate, rate / self.chips)
        for m, value in zip(self._masks, values, strict=True):
            out[m] = value[m]
        return out

    @functools.cached_property
    def _masks(self) -> list[NDArray[np.bool_]]:
        names = ("tpot_s", "ttft_s", "request_latency_s", "output_tokens_per_s")
        return [np.asarray([x == n for x in self.metric]) for n in (*names, f"{names[3]}_per_chip")]

    def predict_constants(self, values: dict[str, FloatArray]) -> FloatArray:
        """Each row's metric with its own constants (`values[name][i]` for row i)."""
        return self.predict(_PerRow(values, self))


@dataclass(frozen=True)
class _PerRow:
    """A Timing whose constants differ by row: each pass takes its row's."""

    values: dict[str, FloatArray]
    stack: Stack
    low: float = 1.0
    high: float = 1.0

    def pass_time(
        self, step: StepTime, *, prefill: bool = False, first_token: bool = False
    ) -> FloatArray:
        rows = self.stack.point_row if step is self.stack.step else slice(None)
        per = {k: v[rows] for k, v in self.values.items()}
        prof = Profile("fit").with_values(per)
        return prof.pass_time(step, prefill=prefill, first_token=first_token)


# ---- fitting and cross-validation ------------------------------------------------------------


def labels(rows: Sequence[Any]) -> dict[str, list[str]]:
    """Each row's engine family, chip vendor and memory kind (`fitting.EFFECTS`)."""
    chips = [get_hardware(r.hardware) for r in rows]
    return {
        "family": [r.engine_family for r in rows],
        "vendor": [c.vendor.casefold() for c in chips],
        "memory": [memory_kind(c) for c in chips],
    }


def _stack(rows: Sequence[Any], terms: Callable[[Any], Any]) -> Stack:
    return Stack.of([terms(r) for r in rows], [r.metric for r in rows], [r.chips for r in rows])


def fit_rows(rows: Sequence[Any], terms: Callable[[Any], Any]) -> Fitted:
    """The constants fitted to `rows` (validation rows; `terms(row)` its ServingTerms)."""
    st = _stack(rows, terms)
    measured = np.asarray([r.measured for r in rows], dtype=np.float64)
    return fit(st.predict_constants, measured, labels(rows), sources=[r.publication for r in rows])


def log_time_ratio(rows: Sequence[Any], predicted: FloatArray) -> FloatArray:
    """ln(measured time / predicted time) of each row (a throughput's ratio turned round)."""
    m = np.asarray([r.measured for r in rows], dtype=np.float64)
    r = np.log(m / predicted)
    rate = np.asarray([r_.metric.startswith("output_tokens_per_s") for r_ in rows])
    return np.asarray(np.where(rate, -r, r), dtype=np.float64)


def _stats(e: FloatArray) -> dict[str, float]:
    a = np.abs(e)
    if a.size == 0:
        return {"rows": 0.0}
    return {
        "rows": float(a.size),
        "median": float(np.median(a)),
        "p90": float(np.percentile(a, 90)),
    }


def cross_validate(
    rows: Sequence[Any],
    terms: Callable[[Any], Any],
    group: Callable[[Any], str],
    *,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Hold out each group of rows (`group(row)`: its source, its hardware kind) in turn: fit
    on the rest, predict it with the effects of its labels the rest measured.

    Returns the held-out |ln error| overall and per group, the median of the groups' own
    medians, and the coverage of the 80% range: a held-out row's range is the 10th and 90th
    percentiles of the held-out errors of the other groups (so no row's own error sets it).
    """
    st = _stack(rows, terms)
    lab = labels(rows)
    measured = np.asarray([r.measured for r in rows], dtype=np.float64)
    keys = np.asarray([group(r) for r in rows])
    names = sorted(set(keys.tolist()))
    err = np.zeros(len(rows))
    for k, name in enumerate(names):
        train, test = np.flatnonzero(keys != name), np.flatnonzero(keys == name)
        sub = {kind: [v[i] for i in train] for kind, v in lab.items()}
        fitted = fit(
            _select(st, train).predict_constants,
            measured[train],
            sub,
            sources=[rows[int(i)].publication for i in train],
        )
        z = [fitted.values_for({kind: v[i] for kind, v in lab.items()}) for i in test]
        values = {p: np.asarray([zi[p] for zi in z]) for p in z[0]}
        pred = _select(st, test).predict_constants(values)
        err[test] = log_time_ratio([rows[int(i)] for i in test], pred)
        if progress is not None:
            progress(k + 1, len(names))
    inside = np.zeros(len(rows), dtype=bool)
    for name in names:
        own = keys == name
        lo, hi = np.percentile(err[~own], [10, 90])
        inside[own] = (err[own] >= lo) & (err[own] <= hi)
    per = {
        name: {**_stats(err[keys == name]), "coverage_80": float(inside[keys == name].mean())}
        for name in names
    }
    medians = [v["median"] for v in per.values()]
    return {
        "held_out": _stats(err),
        "groups": per,
        "median_of_group_medians": float(np.median(medians)),
        "groups_within_0_15": int(sum(m <= 0.15 for m in medians)),
        "coverage_80": float(inside.mean()),
        "band": [float(np.exp(x)) for x in np.percentile(err, [10, 90])],
        "errors": err,
    }


def _select(st: Stack, idx: NDArray[np.intp]) -> Stack:
    """The rows `idx` of a stack (their passes, renumbered)."""
    keep = np.isin(st.point_row, idx)
    new_row = np.full(st.rows, -1, dtype=np.intp)
    new_row[idx] = np.arange(idx.size)
    return Stack(
        step=_take(st.step, keep),
        point_row=new_row[st.point_row[keep]],
        point_weight=st.point_weight[keep],
        first=_take(st.first, idx),
        first_is_prefill=st.first_is_prefill[idx],
        static=st.static[idx],
        batch=st.batch[idx],
        output_len=st.output_len[idx],
        chips=st.chips[idx],
        metric=tuple(st.metric[i] for i in idx),
    )


def _take(step: StepTime, which: Any) -> StepTime:
    values = dict(step.__dict__)
    for name in _FIELDS:
        values[name] = values[name][which]
    values["bound"] = step.bound[which]
    if step.single is not None:
        values["single"] = _take(step.single, which)
    if step.double is not None:
        values["double"] = _take(step.double, which)
    return new_step_time(values)
