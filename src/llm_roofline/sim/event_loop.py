"""The simulator's event loop: instances stepping, requests routed, steps built by each pool's
scheduling policy (`policy.py`) and timed by its step predictor (`step_predictor.py`);
`simulate.py` says what a step does. This module only runs the clock, fast.

Time moves instance by instance: the next thing to happen is either the next arrival (or KV
hand-off) or the start of the next step of the busy instance whose clock is earliest. An
arrival is routed (`router.py`) when no busy instance's next step starts before it, so an
instance's queue never holds a request from its future.

Instances come in pools (`entities.Pool`): one pool of `mixed` instances serves requests
whole; a disaggregated run has a `prefill` pool, whose instances only run prompts, and a
`decode` pool. A prompt that completes on a prefill instance emits the first token there and
frees its KV; its KV then crosses the link (`Pool.transfer`; each prefill instance sends one
prompt's KV at a time, in completion order) and the request joins a decode instance's queue,
where it is admitted straight into decoding when a slot and KV memory are free. A request
preempted on a decode instance recomputes its prompt there.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable

import numpy as np

from llm_roofline._core.errors import TimeLimitError
from llm_roofline.sim.entities import DECODE, DONE, WAITING, Instance, Pool, Requests
from llm_roofline.sim.metrics import RunResult, Timeline, run_result
from llm_roofline.sim.policy import SchedulingPolicy, make_policy
from llm_roofline.sim.router import make_router
from llm_roofline.sim.workload import Workload

__all__ = ["WATCH_EVERY", "EventLoop", "Watch", "run"]

# steps between two calls of a run's watcher (`run`'s `watch`). What watching costs, measured
# 2026-12-03 (median of 9, interleaved): plan's draw of 2,000 requests of Llama 3.1 8B on one
# H100 at 30 requests/s (4,379 steps) 39.5 ms unwatched, 45.1 ms watched by plan's early stop
# (each call takes percentiles over every request); 20,000 requests 0.39 and 0.57 s
WATCH_EVERY = 512
# a run's watcher: called with the requests' records and the clock (no later event starts
# before it); it may raise to stop the run
Watch = Callable[[Requests, float], None]


class EventLoop:
    """One run: the requests' records, the instances by pool with their policies and routers,
    the arrivals to come and the instances with a step to run."""

    def __init__(
        self,
        pools: list[Pool],
        work: Workload,
        reqs: Requests,
        router: str,
        timeline_points: int,
        stagger_s: float = 0.0,
        deadline: float | None = None,
        watch: Watch | None = None,
    ) -> None:
        self.reqs = reqs
        self.closed = work.closed_loop
        self.deadline = deadline
        self.watch = watch
        self.by_pool: list[list[Instance]] = []
        self.policy_of: list[SchedulingPolicy] = []  # each instance's policy, by its index
        for p in pools:
            first = len(self.policy_of)
            self.by_pool.append([Instance(p, reqs, first + i) for i in range(p.replicas)])
            self.policy_of += [make_policy(p.policy, reqs)] * p.replicas
        self.instances = [i for group in self.by_pool for i in group]
        self.routers = [make_router(router) for _ in pools]
        self.watched = self.by_pool[-1][0] if timeline_points else None
        self.timeline = Timeline()
        self.timeline_points = timeline_points
        self.handed: list[tuple[float, int]] = []  # (KV arrival at the decode pool, request)
        self.busy: list[tuple[float, int]] = []  # (next step's start, instance), one per busy
        self.moving = 0.0  # ∫ requests in transit between the pools dt
        self.done = 0
        entry = self.by_pool[0]
        # the engine's front end (`Pool.frontend_s`): one per instance, taken as one queue
        # served as many times faster (the same rate under load; a request alone spends
        # frontend_s / instances in it); `front` is when it is next free, `fronted` ∫ requests
        # in it dt, `sent[r]` when request r was sent; a closed loop's request joins it when
        # popped from `pending` (so in time order), `queued[r]` once it has left it
        self.front_s = entry[0].pool.frontend_s / len(entry)
        self.front = -math.inf
        self.fronted = 0.0
        self.sent = [math.nan] * reqs.n
        self.queued = [self.front_s <= 0.0] * reqs.n
        self.pending, self.next_new = self._first_arrivals(work, stagger_s)

    def _first_arrivals(
        self, work: Workload, stagger_s: float
    ) -> tuple[list[tuple[float, int]], int]:
        """The arrivals known at the start, (time, request), and the next request to send:
        a closed loop's first request of each client (a heap: later ones join as requests
        finish), or every arrival of an open loop, latest first (popped from the end)."""
        n = self.reqs.n
        overhead = self.by_pool[0][0].pool.request_overhead_s
        if self.closed:
            clients = min(int(work.concurrency or 1), n)
            self.sent[:clients] = [i * stagger_s - overhead for i in range(clients)]
            return [(i * stagger_s, i) for i in range(clients)], clients
        assert work.arrival_s is not None
        sent = work.arrival_s - work.arrival_s[0]  # from the first arrival
        self.sent = (sent - overhead).tolist()
        self.queued = [True] * n  # through the front end here, all at once
        out = sent
        if self.front_s > 0.0:  # request k leaves at c(k + 1) + max over j <= k of (t_j - cj)
            cj = self.front_s * np.arange(n)
            out = np.maximum.accumulate(sent - cj) + cj + self.front_s
            self.fronted = float(np.sum(out - sent))
        pending = list(zip(out.tolist(), range(n), strict=True))
        pending.reverse()
        return pending, n

    def _through_front(self, t: float) -> float:
        """When a request that reaches the front end at t leaves it (first come, first
        served, `front_s` each): t itself when the front end costs nothing."""
        if self.front_s <= 0.0:
            return t
        self.front = max(t, self.front) + self.front_s
        self.fronted += self.front - t
        return self.front

    def run(self) -> RunResult:
        """Serve every request; the per-request times and what the loop counted. One pass of
        the loop is an arrival routed (`_arrive`) or a step: its policy builds it, the step
        predictor times it, then its decoders that reached their length leave (`_leave`) and
        its completed prompts emit their first tokens (`_first_token`). The step is written
        out here, not called: it runs some 100,000 times a second."""
        n, closed = self.reqs.n, self.closed
        busy, pending, handed, inst = self.busy, self.pending, self.handed, self.instances
        policy_of, epoch, state = self.policy_of, self.reqs.epoch, self.reqs.state
        watched, tl = self.watched, self.timeline
        steps = 0
        while self.done < n:
            if not pending:
                t_arr = math.inf
            else:
                t_arr = pending[0][0] if closed else pending[-1][0]
            t_hand = handed[0][0] if handed else math.inf
            # the busy instance whose next step starts first, unless an arrival comes first
            if not busy or min(t_arr, t_hand) <= inst[busy[0][1]].t:
                self._arrive(t_hand < t_arr)
                continue
            ins = inst[heapq.heappop(busy)[1]]
            n_d, n_p, completing = policy_of[ins.index].schedule(ins)
            if n_d == 0 and n_p == 0:  # nothing fits (cannot happen: every request fits alone)
                raise RuntimeError("simulator stalled: no request fits the KV memory")
            table = ins.pool.table
            ctx = (ins.sum_prompt - ins.sum_base + n_d * ins.k) / n_d if n_d else 1.0
            tau = table.time(n_d, ctx, n_p, ins.chunks)
            if ins.chunks:
                ins.chunks = []
            tau += ins.pool.step_overhead_s  # the engine's CPU cost a step (0 by default)
            ins.occupancy += (ins.running + len(ins.waiting)) * tau
            ins.t = t = ins.t + tau
            ins.k = k = ins.k + 1
            ins.kv += n_d
            steps += 1
            if not steps & (WATCH_EVERY - 1):
                self._every(steps, t - tau)
            fin = ins.finish
            while fin and fin[0][0] <= k:  # decoders that reached their length
                _, r, e = heapq.heappop(fin)
                if e == epoch[r] and state[r] == DECODE:
                    self._leave(ins, r, t)
            if completing:  # then prompts that completed, out of the pipeline's last stage
                lag = table.drain * (tau - ins.pool.step_overhead_s)
                for r in completing:
                    self._first_token(ins, r, t, lag)
            if ins is watched:
                tl.t.append(t)
                tl.q.append(len(ins.waiting))
                tl.run.append(ins.running)
                tl.kv.append(ins.kv / ins.pool.kv_cap)
            if ins.running or ins.waiting:
                heapq.heappush(busy, (t, ins.index))
        return self._result(steps)

    def _every(self, steps: int, now: float) -> None:
        """Every WATCH_EVERY steps, the step just run having started at `now`: the deadline
        (every 4,096 steps), then the watcher."""
        late = (
            self.deadline is not None and not steps & 4095 and time.perf_counter() > self.deadline
        )
        if late:
            raise TimeLimitError("the simulation ran past the time allowed", field="requests")
        if self.watch is not None:
            self.watch(self.reqs, now)

    def _result(self, steps: int) -> RunResult:
        inst = self.instances
        return run_result(
            self.reqs,
            steps=steps,
            preempted=sum(i.preempted for i in inst),
            occupancy=sum(i.occupancy for i in inst) + self.moving + self.fronted,
            timeline=self.timeline.sampled(self.timeline_points),
        )

    def _arrive(self, handed: bool) -> None:
        """The next arrival (`handed`: the next KV hand-off) joins an instance's queue."""
        if handed:
            t_a, r = heapq.heappop(self.handed)
            k = len(self.by_pool) - 1
        else:
            t_a, r = heapq.heappop(self.pending) if self.closed else self.pending.pop()
            if not self.queued[r]:  # a closed loop's, at the front end: back when it leaves
                self.queued[r] = True
                heapq.heappush(self.pending, (self._through_front(t_a), r))
                return
            self.reqs.arrival[r] = self.sent[r]  # in the system from then
            k = 0
        ins = self.routers[k].route(self.by_pool[k], t_a)
        if not (ins.running or ins.waiting):
            ins.t = max(ins.t, t_a)
            heapq.heappush(self.busy, (ins.t, ins.index))
        elif ins.t > t_a:  # it waits for the step under way: in the system from t_a
            ins.occupancy += ins.t - t_a
        ins.waiting.append(r)

    def _first_token(self, ins: Instance, r: int, t: float, lag: float) -> None:
        """Request r's prompt completed in the step that ended at t, its first token `lag`
        later (the pipeline's drain; again, after a preemption: the first one's time stays);
        it leaves, is handed to the decode pool, or decodes here, each of its tokens `lag`
        after its step (it decodes in the micro-batch its first token left)."""
        reqs = self.reqs
        reqs.lag[r] = lag
        if math.isnan(reqs.first[r]):
            reqs.first[r] = t + lag
        g = reqs.gen[r] + 1
        if g >= reqs.out[r]:  # its last token was the prompt's
            self._leave(ins, r, t)
            return
        reqs.gen[r] = g
        transfer = ins.pool.transfer
        if transfer is None:
            ins.prefilling.remove(r)
            ins.start_decoding(r)
            return
        ins.release(r)  # to the decode pool, over the link
        reqs.state[r] = WAITING
        reqs.ready[r] = True
        start = max(t + lag, ins.link_free)
        ins.link_free = start + transfer(reqs.prompt[r])
        self.moving += ins.link_free - t
        heapq.heappush(self.handed, (ins.link_free, r))

    def _leave(self, ins: Instance, r: int, t: float) -> None:
        """Request r finished at t: off its instance; a closed loop's client sends its next."""
        ins.release(r)
        t += self.reqs.lag[r]
        self.reqs.state[r] = DONE
        self.reqs.finish[r] = t
        self.done += 1
        if self.closed and self.next_new < self.reqs.n:  # its client's next, sent now
            self.sent[self.next_new] = t
            at = t + self.by_pool[0][0].pool.request_overhead_s
            heapq.heappush(self.pending, (at, self.next_new))
            self.next_new += 1


# size: the run's pools, traffic and lengths, router and timeline, and its three stops
def run(
    pools: list[Pool],
    work: Workload,
    inp: list[int],
    out: list[int],
    router: str,
    timeline_points: int,
    stagger_s: float = 0.0,
    deadline: float | None = None,
    watch: Watch | None = None,
) -> RunResult:
    """Serve every request of `work` on `pools` (one `mixed` pool, or a `prefill` pool then a
    `decode` pool); per-request times and what the loop counted. A closed loop's clients send
    their first requests `stagger_s` apart. The timeline is the last pool's first instance,
    one point per step (`metrics.Timeline`), at most about `timeline_points` of them (none
    when 0). `deadline`: a `time.perf_counter()` value past which the run stops with
    TimeLimitError (checked every 4,096 steps). `watch(requests, now)`: called every
    WATCH_EVERY steps with the requests' records and the start of the step just run (every
    later event starts no earlier: a request yet to reach a first token or its last one
    reaches it after `now`); what it raises ends the run (`plan` stops a run whose target is
    certain to be missed)."""
    reqs = Requests(inp, out)
    loop = EventLoop(pools, work, reqs, router, timeline_points, stagger_s, deadline, watch)
    return loop.run()
