"""The simulator's event loop: instances stepping, requests routed and scheduled
(`simulate.py` says what a step does; this module only does it, fast).

Time moves instance by instance: the next thing to happen is either the next arrival or the
start of the next step of the busy instance whose clock is earliest. An arrival is routed when
no busy instance's next step starts before it, so an instance's queue never holds a request
from its future. A decoding sequence is not touched by a step: its generated tokens are the
steps run since it began decoding, and the step's KV reads need only the sum of its contexts.

Instances come in pools (`Pool`): one pool of `mixed` instances serves requests whole; a
disaggregated run has a `prefill` pool, whose instances only run prompts, and a `decode` pool.
A prompt that completes on a prefill instance emits the first token there and frees its KV;
its KV then crosses the link (`Pool.transfer`; each prefill instance sends one prompt's KV
at a time, in completion order) and the request joins a decode instance's queue, where it is
admitted straight into decoding when a slot and KV memory are free. A request preempted on a
decode instance recomputes its prompt there.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_roofline._core.errors import TimeLimitError
from llm_roofline.sim.step_predictor import StepTable
from llm_roofline.sim.workload import Workload

__all__ = ["ROLES", "Pool", "run"]

WAITING, PREFILL, DECODE, DONE = 0, 1, 2, 3
ROLES = ("mixed", "prefill", "decode")


@dataclass
class Pool:
    """`replicas` identical instances: their step times, KV tokens each, sequence cap, token
    budget per step, and role. A prefill pool's `transfer(tokens)` is the time its KV hand-off
    of a prompt of that many tokens takes."""

    table: StepTable
    kv_cap: int
    max_seqs: int
    budget: int
    replicas: int = 1
    role: str = "mixed"
    transfer: Callable[[int], float] | None = None


class Instance:
    """One replica's scheduler state (aggregates for its decoding sequences)."""

    __slots__ = (
        "admitted",
        "finish",
        "k",
        "kv",
        "link_free",
        "n_dec",
        "occupancy",
        "pool",
        "prefilling",
        "reserved",
        "running",
        "sum_base",
        "sum_prompt",
        "t",
        "waiting",
    )

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.link_free = 0.0  # a prefill instance's link: when its last KV hand-off ends
        self.t = 0.0
        self.k = 0  # steps run
        self.waiting: deque[int] = deque()
        self.prefilling: list[int] = []
        self.admitted: list[tuple[int, int]] = []  # (request, epoch), in admission order
        self.finish: list[tuple[int, int, int]] = []  # (finish step, request, epoch)
        self.n_dec = 0
        self.sum_prompt = 0
        self.sum_base = 0
        self.running = 0
        self.kv = 0
        self.reserved = 0  # KV the admitted prompts still need (their chunks to come)
        self.occupancy = 0.0  # ∫ (waiting + running) dt over its steps

    def load(self) -> int:
        return self.running + len(self.waiting)


def run(
    pools: list[Pool],
    work: Workload,
    inp: list[int],
    out: list[int],
    router: str,
    timeline_points: int,
    stagger_s: float = 0.0,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Serve every request of `work` on `pools` (one `mixed` pool, or a `prefill` pool then a
    `decode` pool); per-request times and what the loop counted. A closed loop's clients send
    their first requests `stagger_s` apart. The timeline is the last pool's first instance,
    one point per step: its end time, the requests waiting (as the step began: those arriving
    during the step are routed after it), those running and the share of KV memory in use.
    `deadline`: a `time.perf_counter()` value past which the run stops with TimeLimitError
    (checked every 4,096 steps)."""
    n = len(inp)
    state = [WAITING] * n
    epoch = [0] * n
    prompt = list(inp)  # tokens to prefill: the input, plus what was generated before a preemption
    gen = [0] * n  # tokens generated before the current admission
    rem = [0] * n  # prompt tokens still to prefill
    base = [0] * n
    ready = [False] * n  # its KV arrived from a prefill instance: it decodes at admission
    arrival = [math.nan] * n
    first = [math.nan] * n
    finish = [math.nan] * n
    by_pool = [[Instance(p) for _ in range(p.replicas)] for p in pools]
    inst = [i for group in by_pool for i in group]
    where = {id(i): k for k, i in enumerate(inst)}
    rr = [0] * len(pools)
    watched = by_pool[-1][0]
    handed: list[tuple[float, int]] = []  # (KV arrival at the decode pool, request)
    moving = 0.0  # ∫ requests in transit between the pools dt
    preempted = 0
    steps = 0
    tl_t: list[float] = []
    tl_q: list[int] = []
    tl_run: list[int] = []
    tl_kv: list[float] = []
    closed = work.closed_loop
    pending: list[tuple[float, int]] = []  # (arrival time, request) not yet routed
    if closed:
        clients = min(int(work.concurrency or 1), n)
        pending = [(i * stagger_s, i) for i in range(clients)]
        next_new = clients
    else:
        assert work.arrival_s is not None
        times = (work.arrival_s - work.arrival_s[0]).tolist()  # from the first arrival
        pending = list(zip(times, range(n), strict=True))
        pending.reverse()  # popped from the end, earliest first
        next_new = n
    done = 0

    def release(ins: Instance, r: int) -> None:
        """Take request r off instance `ins` (finished or preempted): free its KV."""
        if state[r] == DECODE:
            d = ins.k - base[r]
            ins.kv -= prompt[r] + d
            ins.n_dec -= 1
            ins.sum_prompt -= prompt[r]
            ins.sum_base -= base[r]
        else:  # part-way through its prompt
            ins.kv -= prompt[r] - rem[r]
            ins.reserved -= rem[r]
            ins.prefilling.remove(r)
        ins.running -= 1
        epoch[r] += 1

    def leave(ins: Instance, r: int, t: float) -> None:
        """Request r finished at t: off its instance; a closed loop's client sends its next."""
        nonlocal done, next_new
        release(ins, r)
        state[r] = DONE
        finish[r] = t
        done += 1
        if closed and next_new < n:
            heapq.heappush(pending, (t, next_new))
            next_new += 1

    def decode_from(ins: Instance, r: int) -> None:
        """Request r, its prompt's KV in place on `ins`, decodes from the next step on."""
        state[r] = DECODE
        base[r] = ins.k
        ins.n_dec += 1
        ins.sum_prompt += prompt[r]
        ins.sum_base += ins.k
        heapq.heappush(ins.finish, (ins.k + out[r] - gen[r], r, epoch[r]))

    busy: list[tuple[float, int]] = []  # (next step's start, instance): one per busy instance
    while done < n:
        # the busy instance whose next step starts first
        best = inst[busy[0][1]] if busy else None
        if not pending:
            t_arr = math.inf
        else:
            t_arr = pending[0][0] if closed else pending[-1][0]
        t_hand = handed[0][0] if handed else math.inf
        if best is None or min(t_arr, t_hand) <= best.t:
            if t_hand < t_arr:
                t_a, r = heapq.heappop(handed)
                k = len(pools) - 1
            else:
                if closed:
                    t_a, r = heapq.heappop(pending)
                else:
                    t_a, r = pending.pop()
                arrival[r] = t_a
                k = 0
            group = by_pool[k]
            if router == "round-robin":
                ins = group[rr[k] % len(group)]
                rr[k] += 1
            else:
                # fewest requests, and among equals one not in the middle of a step (a
                # step's finishes are booked when it starts: its load is the step's end's)
                ins = min(group, key=lambda i: (i.load(), i.t > t_a))
            if not (ins.running or ins.waiting):
                ins.t = max(ins.t, t_a)
                heapq.heappush(busy, (ins.t, where[id(ins)]))
            elif ins.t > t_a:  # it waits for the step under way: in the system from t_a
                ins.occupancy += ins.t - t_a
            ins.waiting.append(r)
            continue
        ins = best
        me = heapq.heappop(busy)[1]
        pool = ins.pool
        kv_cap, budget = pool.kv_cap, pool.budget
        # 1. decode tokens must fit: preempt the latest admitted until they do
        while ins.kv + ins.n_dec > kv_cap and ins.admitted:
            r, e = ins.admitted.pop()
            if e != epoch[r] or state[r] not in (PREFILL, DECODE):
                continue
            if state[r] == DECODE:
                g = gen[r] + (ins.k - base[r])  # tokens generated so far
                release(ins, r)
                gen[r] = g
                prompt[r] = inp[r] + g
            else:
                release(ins, r)
            state[r] = WAITING
            ready[r] = False  # its KV is gone: it recomputes here
            ins.waiting.appendleft(r)
            preempted += 1
        # 1b. requests whose KV arrived from a prefill instance join the decoders
        while ins.waiting and ready[ins.waiting[0]] and ins.running < pool.max_seqs:
            r = ins.waiting[0]
            if ins.kv + ins.reserved + ins.n_dec + 1 + prompt[r] > kv_cap:
                break
            ins.waiting.popleft()
            ready[r] = False
            ins.admitted.append((r, epoch[r]))
            ins.running += 1
            ins.kv += prompt[r]
            decode_from(ins, r)
        n_d = ins.n_dec
        left = budget - n_d
        n_p = 0
        completing: list[int] = []
        for r in ins.prefilling:  # 2a. prompts part-way through
            if left <= 0:
                break
            c = min(rem[r], left, kv_cap - ins.kv - n_d)
            if c <= 0:
                break
            rem[r] -= c
            ins.reserved -= c
            ins.kv += c
            left -= c
            n_p += c
            if rem[r] == 0:
                completing.append(r)
        while ins.waiting and left > 0 and ins.running < pool.max_seqs:  # 2b. new prompts
            r = ins.waiting[0]
            c = min(prompt[r], left)
            # the whole prompt must fit beside what admitted prompts still need (vLLM v0
            # reserves it at admission): a prompt admitted chunk by chunk into the last free
            # blocks would be preempted by the next step's decode tokens and start over
            if ready[r] or ins.kv + ins.reserved + n_d + prompt[r] > kv_cap:
                break
            ins.waiting.popleft()
            state[r] = PREFILL
            rem[r] = prompt[r] - c
            ins.reserved += rem[r]
            ins.prefilling.append(r)
            ins.admitted.append((r, epoch[r]))
            ins.running += 1
            ins.kv += c
            left -= c
            n_p += c
            if rem[r] == 0:
                completing.append(r)
        if n_d == 0 and n_p == 0:  # nothing fits (cannot happen: every request fits alone)
            raise RuntimeError("simulator stalled: no request fits the KV memory")
        # 3. the step's time
        table = pool.table
        if n_d:
            ctx = (ins.sum_prompt - ins.sum_base + n_d * ins.k) / n_d
            tau = table.step_time(n_d, ctx, n_p)
        else:
            tau = table.prefill_time(n_p)
        ins.occupancy += (ins.running + len(ins.waiting)) * tau
        ins.t += tau
        ins.k += 1
        ins.kv += n_d
        steps += 1
        if deadline is not None and not steps & 4095 and time.perf_counter() > deadline:
            raise TimeLimitError("the simulation ran past the time allowed", field="requests")
        t = ins.t
        # 4. decoders that reached their length, then prompts that completed
        fin = ins.finish
        while fin and fin[0][0] <= ins.k:
            _, r, e = heapq.heappop(fin)
            if e != epoch[r] or state[r] != DECODE:
                continue
            leave(ins, r, t)
        for r in completing:
            if math.isnan(first[r]):
                first[r] = t
            g = gen[r] + 1
            if g >= out[r]:  # its last token was the prompt's
                leave(ins, r, t)
                continue
            gen[r] = g
            if pool.transfer is not None:  # to the decode pool, over the link
                release(ins, r)
                state[r] = WAITING
                ready[r] = True
                start = max(t, ins.link_free)
                ins.link_free = start + pool.transfer(prompt[r])
                moving += ins.link_free - t
                heapq.heappush(handed, (ins.link_free, r))
                continue
            ins.prefilling.remove(r)
            decode_from(ins, r)
        if timeline_points and ins is watched:
            tl_t.append(t)
            tl_q.append(len(ins.waiting))
            tl_run.append(ins.running)
            tl_kv.append(ins.kv / kv_cap)
        if ins.running or ins.waiting:
            heapq.heappush(busy, (ins.t, me))
    a = np.asarray(arrival)
    f = np.asarray(first)
    z = np.asarray(finish)
    o = np.asarray(out, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        tpot = np.where(o > 1, (z - f) / (o - 1), np.nan)
    timeline: dict[str, np.ndarray] = {}
    if tl_t:
        step = max(1, len(tl_t) // max(timeline_points, 1))
        timeline = {
            "t_s": np.asarray(tl_t[::step]),
            "waiting": np.asarray(tl_q[::step]),
            "running": np.asarray(tl_run[::step]),
            "kv_share": np.asarray(tl_kv[::step]),
        }
    span = float(np.max(z) - np.min(a))  # > 0: every request takes at least one step
    return {
        "ttft": f - a,
        "tpot": tpot,
        "e2e": z - a,
        "finish": z,
        "span": span,
        "steps": steps,
        "preempted": preempted,
        "occupancy": sum(i.occupancy for i in inst) + moving,
        "timeline": timeline,
    }
