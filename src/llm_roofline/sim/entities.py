"""The simulator's entities: the requests of a run (`Requests`), a pool of identical instances
(`Pool`) and one instance's state (`Instance`), with the KV bookkeeping every scheduling
policy shares: a request admitted, decoding, preempted or taken off.

A request's life on an instance: WAITING in its queue, PREFILL while its prompt runs (chunk by
chunk), DECODE from the step after its prompt completes, DONE when its last token is out. A
preempted request goes back to WAITING with its KV freed and recomputes its prompt and the
tokens it had generated. `epoch` counts a request's admissions, so that the entries an
instance keeps of an earlier admission (in `admitted`, `finish`) are recognised as stale.

An instance keeps aggregates, not per-sequence counters, of its decoding sequences: a decoding
request is not touched by a step (its generated tokens are the steps run since it began
decoding, `k - base`), and the step's KV reads need only the sum of their contexts.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from llm_roofline.sim.step_predictor import StepTable

__all__ = ["DECODE", "DONE", "PREFILL", "ROLES", "WAITING", "Instance", "Pool", "Requests"]

WAITING, PREFILL, DECODE, DONE = 0, 1, 2, 3
ROLES = ("mixed", "prefill", "decode")


class Requests:
    """The requests of one run, field by field (a struct of arrays: the loop reads one field
    of many requests far more often than every field of one), indexed by request."""

    __slots__ = (
        "arrival",
        "base",
        "epoch",
        "finish",
        "first",
        "gen",
        "inp",
        "lag",
        "n",
        "out",
        "prompt",
        "ready",
        "rem",
        "state",
    )

    def __init__(self, inp: list[int], out: list[int]) -> None:
        n = len(inp)
        self.n = n
        self.inp = inp  # prompt tokens as sent
        self.out = out  # output tokens
        self.state = [WAITING] * n
        self.epoch = [0] * n  # admissions so far
        self.prompt = list(inp)  # tokens to prefill: the input, plus those generated before
        self.gen = [0] * n  # tokens generated before the current admission
        self.rem = [0] * n  # prompt tokens still to prefill
        self.base = [0] * n  # the instance's step count when it began decoding
        self.ready = [False] * n  # its KV arrived from a prefill instance: decodes at admission
        self.arrival = [math.nan] * n
        self.first = [math.nan] * n  # its first token's time
        # how long after its steps end its tokens leave the pipeline's last stage: its
        # prompt's last chunk's drain (`StepTable.drain`), 0 without pipeline stages
        self.lag = [0.0] * n
        self.finish = [math.nan] * n  # its last token's time


@dataclass
class Pool:
    """`replicas` identical instances: their step times, KV tokens each, sequence cap, token
    budget per step, and role. A prefill pool's `transfer(tokens)` is the time its KV hand-off
    of a prompt of that many tokens takes. `policy`: the name its instances schedule by
    (`policy.POLICIES`); `step_overhead_s` is added to each step's time, `request_overhead_s`
    to each request's time to first token and end to end (and between a closed-loop client's
    answer and its next request); `frontend_s` is each request's time in the instance's front
    end, which takes one request at a time, first come first served, before the engine."""

    table: StepTable
    kv_cap: int
    max_seqs: int
    budget: int
    replicas: int = 1
    role: str = "mixed"
    transfer: Callable[[int], float] | None = None
    policy: str = "vllm"
    step_overhead_s: float = 0.0  # the engine's CPU cost a step (serving_engines.py)
    request_overhead_s: float = 0.0  # and a request's, outside the steps
    frontend_s: float = 0.0  # and a request's in its front end, one request at a time


class Instance:
    """One replica's state: its clock and step count, its queue, the requests it holds and the
    KV tokens they use (aggregates for its decoding sequences)."""

    __slots__ = (
        "admitted",
        "chunks",
        "finish",
        "index",
        "k",
        "kv",
        "link_free",
        "n_dec",
        "occupancy",
        "pool",
        "preempted",
        "prefilling",
        "reqs",
        "reserved",
        "running",
        "sum_base",
        "sum_prompt",
        "t",
        "waiting",
    )

    def __init__(self, pool: Pool, reqs: Requests, index: int) -> None:
        self.pool = pool
        self.reqs = reqs
        self.index = index  # its place among the run's instances
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
        self.preempted = 0  # preemptions so far
        # this step's prompt chunks, (tokens, the prompt's tokens before them), as the
        # admissions and `take_chunk` make them; the event loop times them and empties it
        self.chunks: list[tuple[int, int]] = []

    def load(self) -> int:
        """Requests on it: running and waiting."""
        return self.running + len(self.waiting)

    def admit_prompt(self, r: int, chunk: int, cached: int = 0) -> None:
        """Request r, first in the queue, starts its prompt with `chunk` tokens this step,
        after `cached` tokens found in a prefix cache (held, not computed); the rest of its
        prompt is reserved."""
        reqs = self.reqs
        self.waiting.popleft()
        reqs.state[r] = PREFILL
        reqs.rem[r] = rest = reqs.prompt[r] - cached - chunk
        self.reserved += rest
        self.prefilling.append(r)
        self.admitted.append((r, reqs.epoch[r]))
        self.running += 1
        self.kv += cached + chunk
        self.chunks.append((chunk, cached))

    def take_chunk(self, r: int, chunk: int) -> None:
        """Request r, part-way through its prompt, prefills `chunk` more tokens this step."""
        rem = self.reqs.rem
        self.chunks.append((chunk, self.reqs.prompt[r] - rem[r]))
        rem[r] -= chunk
        self.reserved -= chunk
        self.kv += chunk

    def admit_ready(self, r: int) -> None:
        """Request r, first in the queue, its KV arrived from a prefill instance, decodes."""
        reqs = self.reqs
        self.waiting.popleft()
        reqs.ready[r] = False
        self.admitted.append((r, reqs.epoch[r]))
        self.running += 1
        self.kv += reqs.prompt[r]
        self.start_decoding(r)

    def start_decoding(self, r: int) -> None:
        """Request r, its prompt's KV in place, decodes from the next step on."""
        reqs = self.reqs
        reqs.state[r] = DECODE
        reqs.base[r] = k = self.k
        self.n_dec += 1
        self.sum_prompt += reqs.prompt[r]
        self.sum_base += k
        heapq.heappush(self.finish, (k + reqs.out[r] - reqs.gen[r], r, reqs.epoch[r]))

    def release(self, r: int) -> None:
        """Take request r off (finished, preempted or handed on): free its KV."""
        reqs = self.reqs
        if reqs.state[r] == DECODE:
            base = reqs.base[r]
            self.kv -= reqs.prompt[r] + (self.k - base)
            self.n_dec -= 1
            self.sum_prompt -= reqs.prompt[r]
            self.sum_base -= base
        else:  # part-way through its prompt
            self.kv -= reqs.prompt[r] - reqs.rem[r]
            self.reserved -= reqs.rem[r]
            self.prefilling.remove(r)
        self.running -= 1
        reqs.epoch[r] += 1

    def preempt(self, r: int) -> None:
        """Request r loses its KV and goes back to the head of the queue, to recompute its
        prompt and the tokens it had generated here."""
        reqs = self.reqs
        if reqs.state[r] == DECODE:
            g = reqs.gen[r] + (self.k - reqs.base[r])  # tokens generated so far
            self.release(r)
            reqs.gen[r] = g
            reqs.prompt[r] = reqs.inp[r] + g
        else:
            self.release(r)
        reqs.state[r] = WAITING
        reqs.ready[r] = False  # its KV is gone: it recomputes here
        self.waiting.appendleft(r)
        self.preempted += 1
