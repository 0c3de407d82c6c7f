"""Stopping a run of `plan`'s search once it is certain to miss (`EarlyStop`): the event loop's
watcher (`sim.event_loop.run`'s `watch`) reads the requests' records every few hundred steps
and, from what is already known of every request, bounds the run's TTFT p90 and TPOT p99 from
below (`lower_percentiles`); when a bound is past its limit, the full run could only be
further past it, and the run stops with the bounds (`TargetMissedError`).

The bounds: a request with a first token has its time to first token; one that arrived and
has none will have one after the clock, so at least the clock less its arrival; one yet to
arrive, at least 0. Likewise a request that finished has its time per output token; one past
its first token and not finished, at least (clock − first token) / (output − 1); the others at
least 0. The percentile (numpy's, interpolated, as `sim.metrics.latency_summary` takes it)
never decreases when a value grows, so the percentile of the bounds is a lower bound on the
run's; once every request has finished, the bounds are the run's own figures."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from llm_roofline.sim.entities import Requests
from llm_roofline.sim.metrics import request_times

__all__ = ["EarlyStop", "TargetMissedError", "lower_percentiles"]


class TargetMissedError(Exception):
    """A run stopped once a target was certain to be missed, with its lower bounds on TTFT
    p90 and TPOT p99 (None: no request has a second token)."""

    def __init__(self, ttft_p90_s: float, tpot_p99_s: float | None) -> None:
        super().__init__("a target is certain to be missed")
        self.ttft_p90_s = ttft_p90_s
        self.tpot_p99_s = tpot_p99_s


def lower_percentiles(reqs: Requests, now: float) -> tuple[float, float | None]:
    """Lower bounds on the run's TTFT p90 and TPOT p99 at clock `now` (module docstring)."""
    ttft, tpot = _bounds(reqs, now)
    return _percentiles(ttft, tpot)


def _bounds(
    reqs: Requests, now: float, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Each request's lower bound on TTFT, and on TPOT for those with a second token (None:
    none has); `out`: the requests' output tokens as floats, when the caller keeps them."""
    # the times as the simulator defines them (`metrics.request_times`), each event not yet
    # reached taken as now: a request not arrived waits 0, one without a first token has
    # waited until now and decoded nothing, one still decoding has run until now
    a, f, z = (_reached(x, now) for x in (reqs.arrival, reqs.first, reqs.finish))
    o = np.asarray(reqs.out, dtype=np.float64) if out is None else out
    ttft, tpot = request_times(a, f, z, o)
    ttft = np.maximum(ttft, 0.0)
    two = o > 1  # the requests that have a time per output token
    if not two.any():
        return ttft, None
    return ttft, np.maximum(tpot[two], 0.0)


def _reached(times: list[float], now: float) -> np.ndarray:
    """A record of times, each not yet reached (NaN) taken as `now`."""
    v = np.fromiter(times, dtype=np.float64, count=len(times))
    return np.where(np.isnan(v), now, v)


def _percentiles(ttft: np.ndarray, tpot: np.ndarray | None) -> tuple[float, float | None]:
    t90 = float(np.percentile(ttft, 90))
    return t90, None if tpot is None else float(np.percentile(tpot, 99))


def _may_pass(values: np.ndarray, q: int, limit: float) -> bool:
    """Whether the q-th percentile of `values` (numpy's, interpolated) may be above `limit`:
    it is at most the sorted values' one at ceil((n − 1)·q/100) + 1 (or the last), which is
    at or below `limit` when fewer than n less that index are above it (a cheap count that
    spares the percentiles of most watches, with the same outcome)."""
    n = values.size
    top = min(math.ceil((n - 1) * q / 100) + 1, n - 1)
    return int(np.count_nonzero(values > limit)) >= n - top


@dataclass(frozen=True)
class EarlyStop:
    """When a run may stop: once TTFT p90 is certain to pass `ttft_s` or TPOT p99 `tpot_s`
    (the run is then failed); with `prompts_first`, only once TTFT p90 is (a pair of pools
    grows its prefill pool while TTFT misses, and its decode pool by TPOT only once TTFT is
    met, `fleet_ladders._grow`: a run certain to miss TPOT must still show whether TTFT
    misses)."""

    ttft_s: float
    tpot_s: float
    prompts_first: bool = False
    outs: list[tuple[Requests, np.ndarray]] = field(default_factory=list, compare=False, repr=False)

    def missed(self, t90: float, t99: float | None) -> bool:
        """The bounds (or a finished run's figures) decide the run: failed on TTFT, or,
        without `prompts_first`, on TPOT."""
        if t90 > self.ttft_s:
            return True
        return not self.prompts_first and t99 is not None and t99 > self.tpot_s

    def __call__(self, reqs: Requests, now: float) -> None:
        """The watcher: raises TargetMissedError when the run is decided (the percentiles
        taken only when a count of the bounds past a limit allows it, `_may_pass`)."""
        if not (self.outs and self.outs[0][0] is reqs):  # a run's output tokens, kept
            self.outs[:] = [(reqs, np.asarray(reqs.out, dtype=np.float64))]
        ttft, tpot = _bounds(reqs, now, self.outs[0][1])
        tpot_decides = tpot is not None and not self.prompts_first
        if not _may_pass(ttft, 90, self.ttft_s) and not (
            tpot_decides and tpot is not None and _may_pass(tpot, 99, self.tpot_s)
        ):
            return
        t90, t99 = _percentiles(ttft, tpot)
        if self.missed(t90, t99):
            raise TargetMissedError(t90, t99)
