"""Serving engines' scheduling policies (`serving_engines.py` says which engine runs which):
"decode-first" and "prefill-first", each with chunked prefill on or off, multi-step
scheduling and prefix caching at a hit rate, read from the pool (`EnginePool`).

- decode-first (vLLM V1, TensorRT-LLM's in-flight batching, LMDeploy's TurboMind): every
  running sequence decodes a token, then prompts fill the rest of the step's token budget,
  first those part-way through, then waiting ones in arrival order (`policy.ContinuousBatching`
  with the options below).
- prefill-first (SGLang, vLLM V0 without chunked prefill): while a prompt can run, a step runs
  prompts alone, up to the budget, and the decoding sequences wait for it (they neither
  decode nor finish in that step); otherwise a step decodes.
- chunked prefill off: a prompt runs whole in one step, with the prompts and decodes that fit
  the budget beside it; one longer than the budget runs whole as the step's only prompt (the
  engines raise their budget to the longest prompt when chunking is off: vLLM sets
  max_num_batched_tokens to max_model_len).
- multi-step scheduling (`scheduler_steps` n > 1, vLLM V0's --num-scheduler-steps): the
  scheduler runs every n steps; in between, steps decode the running sequences only (no
  admissions, no prompt chunks), and the per-step CPU cost is paid once per n steps
  (`engine_pool` divides it).
- reserving the output (`reserve_output`, TensorRT-LLM's default GUARANTEED_NO_EVICT
  capacity scheduler): a waiting request is admitted only when the KV its admitted requests
  will hold at their last tokens, and its own prompt and output, fit the memory, so that no
  request is ever preempted.
- prefix caching at hit rate h: a prompt of p tokens finds ⌊h·p⌋ of them (at most p - 1: the
  last token is always computed) in the cache; they take KV memory but no step time of their
  own (the computed tokens still attend to them: `Instance.admit_prompt`'s `cached`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llm_roofline.sim.entities import DECODE, DONE, Instance, Pool, Requests
from llm_roofline.sim.policy import Batch, ContinuousBatching, register_policy
from llm_roofline.sim.serving_engines import ServingEngine
from llm_roofline.sim.step_predictor import StepTable

__all__ = ["DecodeFirst", "EnginePool", "PrefillFirst", "engine_pool"]


@dataclass
class EnginePool(Pool):
    """A pool whose instances schedule as a serving engine does: `Pool`'s fields, and the
    engine's chunked prefill, scheduler steps and prefix-cache hit rate."""

    chunked_prefill: bool = True
    scheduler_steps: int = 1
    prefix_hit_rate: float = 0.0
    reserve_output: bool = False


# size: a pool's fields as `Pool` takes them, with the engine that sets the rest
def engine_pool(
    engine: ServingEngine,
    table: StepTable,
    kv_cap: int,
    replicas: int,
    role: str = "mixed",
    transfer: Callable[[int], float] | None = None,
) -> EnginePool:
    """A pool of `replicas` instances run by `engine`: its sequence cap, token budget, policy,
    options and fixed costs (the per-step cost divided over a multi-step schedule's steps)."""
    return EnginePool(
        table,
        kv_cap,
        engine.max_seqs,
        engine.max_batched_tokens,
        replicas,
        role,
        transfer,
        engine.policy,
        step_overhead_s=engine.step_overhead_s / engine.scheduler_steps,
        request_overhead_s=engine.request_overhead_s,
        frontend_s=engine.frontend_s,
        chunked_prefill=engine.chunked_prefill,
        scheduler_steps=engine.scheduler_steps,
        prefix_hit_rate=engine.hit_rate,
        reserve_output=engine.reserve_output,
    )


class _EngineSchedule(ContinuousBatching):
    """What both engine policies share: multi-step scheduling, and admitting waiting prompts
    with chunking on or off, prefix-cache hits and the output reserved (module docstring)."""

    def __init__(self, reqs: Requests) -> None:
        super().__init__(reqs)
        # by instance: its admitted requests' (request, epoch, KV at their last token), for
        # reserve_output; pruned of those that left when it is read (`_promised`)
        self.promised: dict[int, list[tuple[int, int, int]]] = {}

    def schedule(self, ins: Instance) -> Batch:
        pool = ins.pool
        steps = pool.scheduler_steps if isinstance(pool, EnginePool) else 1
        if steps > 1 and ins.k % steps and ins.n_dec:  # between scheduling points
            if ins.kv + ins.n_dec > pool.kv_cap:
                self._fit_decodes(ins, pool.kv_cap)
            if ins.n_dec:
                return ins.n_dec, 0, []
        if ins.kv + ins.n_dec > pool.kv_cap:
            self._fit_decodes(ins, pool.kv_cap)
        waiting = ins.waiting
        if not (waiting or ins.prefilling):  # the commonest step: decodes alone
            return ins.n_dec, 0, []
        if waiting and self.reqs.ready[waiting[0]]:
            self._join_ready(ins, pool.kv_cap, pool.max_seqs)
        return self._build(ins)

    def _build(self, ins: Instance) -> Batch:
        """The step, its preemptions and ready requests done."""
        raise NotImplementedError

    def _prompts(self, ins: Instance, left: int, n_d: int, done: list[int]) -> int:
        """Prompt tokens of the step within `left`: prompts part-way through, then waiting
        requests in order while a slot and the KV memory for the whole prompt are free."""
        pool = ins.pool
        kv_cap = pool.kv_cap
        taken = self._continue_prompts(ins, kv_cap, left, done) if ins.prefilling else 0
        left -= taken
        chunked, hit, reserve = True, 0.0, False
        if isinstance(pool, EnginePool):
            chunked, hit, reserve = pool.chunked_prefill, pool.prefix_hit_rate, pool.reserve_output
        reqs = self.reqs
        waiting, ready, prompt, rem = ins.waiting, reqs.ready, reqs.prompt, reqs.rem
        held = self._promised(ins) if reserve and waiting else 0
        while waiting and left > 0 and ins.running < pool.max_seqs:
            r = waiting[0]
            p = prompt[r]
            if ready[r] or ins.kv + ins.reserved + n_d + p > kv_cap:
                break
            final = p + reqs.out[r] - reqs.gen[r]  # its KV at its last token
            if reserve and held + final > kv_cap:
                break
            cached = min(int(hit * p), p - 1)
            need = p - cached
            if not chunked and need > left and taken:
                break
            c = need if not chunked else min(need, left)
            if cached:  # found in the prefix cache: held, not computed
                ins.admit_prompt(r, c, cached)
            else:
                ins.admit_prompt(r, c)
            if reserve:
                held += final
                self.promised.setdefault(ins.index, []).append((r, reqs.epoch[r], final))
            left -= c
            taken += c
            if rem[r] == 0:
                done.append(r)
        return taken

    def _promised(self, ins: Instance) -> int:
        """The KV tokens `ins`'s admitted requests will hold at their last tokens."""
        epoch, state = self.reqs.epoch, self.reqs.state
        live = [
            (r, e, f)
            for r, e, f in self.promised.get(ins.index, [])
            if e == epoch[r] and state[r] != DONE
        ]
        self.promised[ins.index] = live
        return sum(f for _, _, f in live)


@register_policy
class DecodeFirst(_EngineSchedule):
    """Every running sequence decodes, then prompts fill the rest of the budget."""

    name = "decode-first"

    def _build(self, ins: Instance) -> Batch:
        n_d = ins.n_dec
        completing: list[int] = []
        n_p = self._prompts(ins, ins.pool.budget - n_d, n_d, completing)
        return n_d, n_p, completing


@register_policy
class PrefillFirst(_EngineSchedule):
    """Prompts run alone while any can; the decoding sequences wait for such a step."""

    name = "prefill-first"

    def _build(self, ins: Instance) -> Batch:
        n_d = ins.n_dec
        completing: list[int] = []
        n_p = self._prompts(ins, ins.pool.budget, n_d, completing)
        if n_p == 0:
            return n_d, 0, []
        if n_d:
            self._hold_decoders(ins)
        return 0, n_p, completing

    def _hold_decoders(self, ins: Instance) -> None:
        """The decoding sequences skip the coming step: each one's start moves a step later,
        so that its tokens (steps since it began decoding) and finish step stay right. Every
        decoding sequence has one current entry in the instance's finish heap."""
        reqs = self.reqs
        epoch, state, base = reqs.epoch, reqs.state, reqs.base
        shifted = []
        for k, r, e in ins.finish:
            if e == epoch[r] and state[r] == DECODE:
                base[r] += 1
            shifted.append((k + 1, r, e))
        ins.sum_base += ins.n_dec
        ins.finish = shifted  # every entry a step later: still a heap
