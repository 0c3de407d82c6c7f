"""Scheduling policies: what an instance runs in its next step.

A policy sees one instance (`entities.Instance`) at the start of its step and decides who is
preempted, who is admitted and how many prompt tokens each prompt gets; it returns the step
(`Batch`). The event loop times the step and does what follows it (first tokens, finishes,
hand-offs), the same for every policy. A policy is a class registered by name
(`@register_policy`), and a pool names the one its instances use (`entities.Pool.policy`):
adding a policy is adding a class, the loop is not edited.

`ContinuousBatching` ("vllm") is vLLM's (v0) scheduler with chunked prefill, as
`simulate.py`'s docstring tells it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, TypeVar

from llm_roofline._core.errors import InputError
from llm_roofline.sim.entities import DECODE, PREFILL, Instance, Requests

__all__ = [
    "POLICIES",
    "Batch",
    "ContinuousBatching",
    "SchedulingPolicy",
    "make_policy",
    "register_policy",
]


# One step: (decode sequences, each decoding a token; prompt tokens; the requests whose
# prompts complete in it, in the order their first tokens are emitted). A plain tuple: one is
# built every step, and a named one costs the loop some percent.
Batch = tuple[int, int, list[int]]


class SchedulingPolicy(ABC):
    """How one pool's instances build their steps; `name` is the registry's key."""

    name: ClassVar[str]

    def __init__(self, reqs: Requests) -> None:
        self.reqs = reqs

    @abstractmethod
    def schedule(self, ins: Instance) -> Batch:
        """`ins`'s next step, its admissions and preemptions done (through `Instance`'s
        methods, which keep its KV counts)."""


POLICIES: dict[str, type[SchedulingPolicy]] = {}
P = TypeVar("P", bound=type[SchedulingPolicy])


def register_policy(cls: P) -> P:
    """Class decorator: make a policy available under its `name`."""
    POLICIES[cls.name] = cls
    return cls


def make_policy(name: str, reqs: Requests) -> SchedulingPolicy:
    """The policy registered as `name`, for the requests `reqs`."""
    if name not in POLICIES:
        raise InputError(
            f"policy must be one of {', '.join(POLICIES)}, got {name!r}", field="policy"
        )
    return POLICIES[name](reqs)


@register_policy
class ContinuousBatching(SchedulingPolicy):
    """vLLM's continuous batching with chunked prefill: decode tokens first, preempting the
    latest admitted request while they do not fit the KV memory; requests whose KV arrived
    from a prefill instance join the decoders; the rest of the token budget goes to prompts
    part-way through, then to waiting requests in order while a sequence slot is free and the
    KV memory holds the whole prompt beside what admitted prompts still need."""

    name = "vllm"

    def schedule(self, ins: Instance) -> Batch:
        # each part runs only when it has something to do: this runs every step
        pool = ins.pool
        kv_cap, max_seqs = pool.kv_cap, pool.max_seqs
        if ins.kv + ins.n_dec > kv_cap:
            self._fit_decodes(ins, kv_cap)
        waiting, ready, prompt = ins.waiting, self.reqs.ready, self.reqs.prompt
        if waiting and ready[waiting[0]]:
            self._join_ready(ins, kv_cap, max_seqs)
        n_d = ins.n_dec
        left = pool.budget - n_d
        completing: list[int] = []
        n_p = self._continue_prompts(ins, kv_cap, left, completing) if ins.prefilling else 0
        left -= n_p
        # 2b. waiting requests start their prompts, in order, while a slot is free
        while waiting and left > 0 and ins.running < max_seqs:
            r = waiting[0]
            # the whole prompt must fit beside what admitted prompts still need (vLLM v0
            # reserves it at admission): a prompt admitted chunk by chunk into the last free
            # blocks would be preempted by the next step's decode tokens and start over
            if ready[r] or ins.kv + ins.reserved + n_d + prompt[r] > kv_cap:
                break
            c = min(prompt[r], left)
            ins.admit_prompt(r, c)
            left -= c
            n_p += c
            if prompt[r] == c:
                completing.append(r)
        return n_d, n_p, completing

    def _fit_decodes(self, ins: Instance, kv_cap: int) -> None:
        """1. The step's decode tokens must fit: preempt the latest admitted until they do."""
        reqs = self.reqs
        while ins.kv + ins.n_dec > kv_cap and ins.admitted:
            r, e = ins.admitted.pop()
            if e != reqs.epoch[r] or reqs.state[r] not in (PREFILL, DECODE):
                continue
            ins.preempt(r)

    def _join_ready(self, ins: Instance, kv_cap: int, max_seqs: int) -> None:
        """1b. Requests whose KV arrived from a prefill instance join the decoders."""
        waiting, ready, prompt = ins.waiting, self.reqs.ready, self.reqs.prompt
        while waiting and ready[waiting[0]] and ins.running < max_seqs:
            r = waiting[0]
            if ins.kv + ins.reserved + ins.n_dec + 1 + prompt[r] > kv_cap:
                break
            ins.admit_ready(r)

    def _continue_prompts(self, ins: Instance, kv_cap: int, left: int, done: list[int]) -> int:
        """2a. Prompts part-way through take their next chunks; the prompt tokens taken."""
        rem = self.reqs.rem
        n_d = ins.n_dec
        taken = 0
        for r in ins.prefilling:
            if left <= 0:
                break
            c = min(rem[r], left, kv_cap - ins.kv - n_d)
            if c <= 0:
                break
            ins.take_chunk(r, c)
            left -= c
            taken += c
            if rem[r] == 0:
                done.append(r)
        return taken
