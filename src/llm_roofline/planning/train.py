"""The lecture's train, read off a simulated run: which step each request waited through and
which step carried its prompt.

Continuous batching is a train schedule: a step departs as soon as the one before it ends,
whether full or not, and a request that arrives while a step is running boards the next one.
If its prompt fits that step's token budget (and a sequence slot and KV memory are free), its
first token comes out at the end of that step: its time to first token is what was left of
the step it arrived in (at most one step of waiting) plus the step that carried it (one step
of running).

`rides` reconstructs this from a run of `simulate.simulate` on one instance whose timeline
kept every step (`timeline_points` at least the number of steps): the step end times are the
timeline's, each step starts where the one before ended (or, after the instance went idle, at
the arrival that woke it), and a request's carrying step is the first one starting at or after
its arrival. Nothing here times anything: every duration is the simulator's, which took it
from the engine. `ttft_s - (wait_s + ride_s)` is zero for every request whose prompt went in
the first step it could board, and positive for one that waited longer (a prompt chunked over
several steps, no free slot, no KV memory).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.errors import InputError
from llm_roofline.sim.simulate import SimResult
from llm_roofline.sim.workload import Workload

__all__ = ["Rides", "rides"]


@dataclass(frozen=True)
class Rides:
    """One instance's steps and each request's place on them (seconds from the first arrival).

    `step_start_s`, `step_end_s`: every step of the run; `idle_before`: whether the instance
    had nothing to do before the step (it started at an arrival, not at the previous step's
    end). Per request: `arrival_s`; `board` (index of the first step departing at or after
    its arrival); `wait_s` (from its arrival to that departure); `waited_step_s` (the step it
    arrived during, 0 when the instance was idle); `ride_s` (the step it boarded); `ttft_s`
    (the simulator's)."""

    step_start_s: FloatArray
    step_end_s: FloatArray
    idle_before: np.ndarray
    arrival_s: FloatArray
    board: np.ndarray
    wait_s: FloatArray
    waited_step_s: FloatArray
    ride_s: FloatArray
    ttft_s: FloatArray

    @property
    def step_s(self) -> FloatArray:
        """Every step's duration."""
        return np.asarray(self.step_end_s - self.step_start_s, dtype=np.float64)

    @property
    def extra_s(self) -> FloatArray:
        """Time to first token beyond the next departure plus its step (0 when the request
        boarded the first step it could: the train's promise kept)."""
        return np.asarray(self.ttft_s - (self.wait_s + self.ride_s), dtype=np.float64)


def rides(result: SimResult, work: Workload) -> Rides:
    """Each request's wait and ride on the run's steps (module docstring). `result` must be
    one instance's open-loop run whose timeline holds every step."""
    tl = result.timeline
    if work.arrival_s is None:
        raise InputError("the train is read off an open-loop run (arrival times)", "rate")
    if not tl or len(tl["t_s"]) != int(result.stats["steps"]):
        raise InputError(
            "the timeline must keep every step of one instance: simulate one replica with "
            "timeline_points at least the number of steps",
            field="timeline_points",
        )
    end = np.asarray(tl["t_s"], dtype=np.float64)
    arrival = np.asarray(work.arrival_s - work.arrival_s[0], dtype=np.float64)
    # A step starts where the one before ended, unless the instance then had nothing to do:
    # the timeline counts a step's queues when it ends, before the arrivals during it are
    # routed, so after an empty count the next step starts at the first arrival after the
    # previous step started, or at its end if that arrival came during it.
    start = np.empty_like(end)
    start[0] = arrival[0]
    start[1:] = end[:-1]
    empty = (np.asarray(tl["running"]) + np.asarray(tl["waiting"])) == 0
    for k in np.flatnonzero(empty[:-1]).tolist():
        nxt = int(np.searchsorted(arrival, start[k], side="right"))
        if nxt < arrival.size:
            start[k + 1] = max(end[k], float(arrival[nxt]))
    idle = np.concatenate([[True], start[1:] > end[:-1]])
    board = np.searchsorted(start, arrival, side="left")
    if np.any(board >= end.size):
        raise InputError("a request arrived after the last step: not one run", "timeline")
    dur = end - start
    waited = np.where(idle[board], 0.0, dur[np.maximum(board - 1, 0)])
    return Rides(
        step_start_s=start,
        step_end_s=end,
        idle_before=idle,
        arrival_s=arrival,
        board=board,
        wait_s=start[board] - arrival,
        waited_step_s=np.asarray(waited, dtype=np.float64),
        ride_s=dur[board],
        ttft_s=np.asarray(result.ttft_s, dtype=np.float64),
    )
