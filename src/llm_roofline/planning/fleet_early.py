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

from dataclasses import dataclass

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
    # the times as the simulator defines them (`metrics.request_times`), each event not yet
    # reached taken as now: a request not arrived waits 0, one without a first token has
    # waited until now and decoded nothing, one still decoding has run until now
    a, f, z = (np.asarray(x) for x in (reqs.arrival, reqs.first, reqs.finish))
    a = np.where(np.isnan(a), now, a)
    f = np.where(np.isnan(f), now, f)
    z = np.where(np.isnan(z), now, z)
    o = np.asarray(reqs.out, dtype=np.float64)
    ttft, tpot = request_times(a, f, z, o)
    ttft = np.maximum(ttft, 0.0)
    two = o > 1  # the requests that have a time per output token
    if not two.any():
        return float(np.percentile(ttft, 90)), None
    tpot = np.maximum(tpot[two], 0.0)
    return float(np.percentile(ttft, 90)), float(np.percentile(tpot, 99))


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

    def missed(self, t90: float, t99: float | None) -> bool:
        """The bounds (or a finished run's figures) decide the run: failed on TTFT, or,
        without `prompts_first`, on TPOT."""
        if t90 > self.ttft_s:
            return True
        return not self.prompts_first and t99 is not None and t99 > self.tpot_s

    def __call__(self, reqs: Requests, now: float) -> None:
        """The watcher: raises TargetMissedError when the run is decided."""
        t90, t99 = lower_percentiles(reqs, now)
        if self.missed(t90, t99):
            raise TargetMissedError(t90, t99)
