"""From deployments to the simulator's pools (`entities.Pool`): one instance's KV capacity and
step times, the disaggregated pools (`P:D`) and the KV hand-off between them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from llm_roofline._core.checks import positive_int
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import sig
from llm_roofline.deploy.fit_advice import fit_message, no_fit_reason
from llm_roofline.engine.collectives import kv_transfer_time
from llm_roofline.engine.memory import held_bytes
from llm_roofline.sim.engine_policies import engine_pool
from llm_roofline.sim.entities import Pool
from llm_roofline.sim.serving_engines import ServingEngine, kv_budget_bytes, serving_engine
from llm_roofline.sim.step_predictor import StepTable

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = ["build_pools", "disagg_pools", "kv_capacity", "parse_disagg"]

T = TypeVar("T")


def kv_capacity(dep: Deployment, longest: int, engine: ServingEngine | None = None) -> int:
    """KV tokens one instance holds, counted in sequences of the longest request and of
    shorter ones (up to 8,192 tokens: a whole number of long sequences would waste the
    remainder), the most of those; refused when the longest request does not fit alone.
    The memory they share: as the serving `engine` sizes it (`serving_engines.
    kv_budget_bytes`: its share of the memory less weights and activations), or, without one
    (or with "roofline"), what memory.max_batch leaves beside weights and each sequence's
    activations."""
    if engine is None or engine.memory_of == "model":
        per = int(dep.max_batch(longest)) // dep.replicas
        short = min(longest, 8192)
        fits = int(dep.max_batch(short)) // dep.replicas
    else:
        budget = kv_budget_bytes(engine, dep)
        per = _engine_seqs(dep, budget, longest)
        short = min(longest, 8192)
        fits = _engine_seqs(dep, budget, short)
    if per < 1:
        line = fit_message(dep.instance_deployment(), longest, 1)
        reason = no_fit_reason(line, longest, per)
        if engine is not None and engine.memory_of != "model":
            reason = _engine_reason(dep, engine, budget) + (
                f"; counting the whole memory, {reason}" if line else ""
            )
        raise InputError(
            f"a request of {longest} tokens does not fit one instance: " + reason,
            field="input_len",
        )
    return max(per * longest, fits * short)


def _engine_reason(dep: Deployment, engine: ServingEngine, budget: float) -> str:
    """Why a request does not fit what the engine gives the KV cache, with the longest
    context that would (a token's KV at a short context: exact for global attention)."""
    _, kv1 = held_bytes(
        dep.model,
        get_dtype(dep.weight_dtype).bytes,
        get_dtype(dep.kv_dtype).bytes,
        1.0,
        par=dep.parallel,
    )
    return (
        f"{engine.name} gives the KV cache {sig(budget / 1e9)} GB a chip "
        f"({engine.memory_share:g} of the {engine.memory_of} memory, less the weights and "
        f"activations): the largest context that fits at batch 1 is {int(budget // float(kv1)):,}"
    )


def _engine_seqs(dep: Deployment, budget: float, tokens: int) -> int:
    """Sequences of `tokens` tokens whose KV fits `budget` bytes on the fullest chip of each
    data-parallel group of one instance (memory.held_bytes: the split's KV shards)."""
    spec = dep.model
    _, kv = held_bytes(
        spec,
        get_dtype(dep.weight_dtype).bytes,
        get_dtype(dep.kv_dtype).bytes,
        float(tokens),
        par=dep.parallel,
    )
    return int(dep.parallel.dp * (budget // float(kv)))


def parse_disagg(text: str) -> tuple[int, int]:
    """`P:D` → (P prefill instances, D decode instances), each a positive integer."""
    parts = str(text).split(":")
    try:
        p, d = (int(x) for x in parts)
    except ValueError:
        p = d = 0
    if len(parts) != 2 or p < 1 or d < 1:
        raise InputError(
            f"disagg must be P:D, prefill and decode instance counts (e.g. 1:3), got {text!r}",
            field="disagg",
        )
    return p, d


def disagg_pools(dep: Deployment, prefill: int, decode: int) -> tuple[Deployment, Deployment]:
    """`prefill` and `decode` instances, each one instance of `dep` (its chips over its
    replicas, its split): the prefill pool's deployment and the decode pool's."""
    for name, v in (("prefill", prefill), ("decode", decode)):
        positive_int(v, f"{name} instances", field="disagg")
    one = dep.instance_chips
    return (
        replace(dep, chips=one * prefill, replicas=prefill),
        replace(dep, chips=one * decode, replicas=decode),
    )


class _Cache:
    """Each instance's KV capacity and step table, kept in the caller's dict (when given)
    between runs, by what they depend on."""

    def __init__(self, store: dict[Any, Any] | None, engine: ServingEngine) -> None:
        self.store = store
        self.engine = engine

    def key(self, d: Deployment) -> tuple[Any, ...]:
        """What one instance's capacity and step times depend on (any replica count)."""
        return (
            *(id(d.spec), id(d.chip), d.instance_chips, d.tp, d.pp, d.ep, d.pad_heads),
            *(d.weight_dtype, d.kv_dtype, d.overlap, d.engine, d.comm),
            # the fixed costs change no capacity or table (validate --serving varies them)
            replace(self.engine, request_overhead_s=0.0, step_overhead_s=0.0, frontend_s=0.0),
        )

    def once(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        if self.store is None:
            return make()
        if key not in self.store:
            self.store[key] = make()
        value: T = self.store[key]
        return value


# size: the two pools' deployments, the traffic's lengths, the server's limits, the cache
def build_pools(
    dep: Deployment,
    prefill_pool: Deployment | None,
    inp: list[int],
    longest: int,
    max_seqs: int,
    budget: int,
    cache: dict[Any, Any] | None = None,
    engine: ServingEngine | None = None,
    table_context: int = 0,
) -> list[Pool]:
    """The simulator's pools: `dep`'s instances serving whole requests, or, with a prefill
    pool, its instances running prompts and `dep`'s decoding them, each scheduling and
    sizing its KV memory as the serving `engine` does (`serving_engines`; without one, the
    simulator before issue 27, "roofline"), at most `max_seqs` sequences and `budget` tokens
    a step. `cache`: a dict kept between runs, holding each instance's KV capacity and step
    table by what they depend on. The step tables cover contexts up to the longest request,
    or `table_context` when longer (a caller running shorter traffic on tables it has built
    for longer)."""
    base = engine if engine is not None else serving_engine("roofline", dep)
    engine = replace(base, max_seqs=max_seqs, max_batched_tokens=budget)
    store = _Cache(cache, engine)
    key = store.key(dep)
    cap = store.once(("kv", *key, longest), lambda: kv_capacity(dep, longest, engine))
    # a step's prompt tokens: the budget, or a whole prompt where prompts are not chunked
    tokens = max(budget, 2, 0 if engine.chunked_prefill else max(inp))
    reach = max(longest, table_context)
    tab = store.once(
        ("table", *key, reach, tokens),
        lambda: StepTable(dep, max_seqs=max_seqs, max_context=reach, max_tokens=tokens),
    )
    if prefill_pool is None:
        return [engine_pool(engine, tab, cap, dep.replicas)]
    pf = prefill_pool
    transfer = _hand_off(pf, dep, inp)  # refuses pools of different chips, models, KV types
    pkey = store.key(pf)
    longest_prompt = max(inp)
    pre = engine_pool(
        engine,
        store.once(  # a chunk attends to its prompt's earlier tokens: contexts to the longest
            ("prefill table", *pkey, reach, tokens),
            lambda: StepTable(pf, max_seqs=1, max_context=reach, max_tokens=tokens),
        ),
        store.once(
            ("kv", *pkey, longest_prompt + 1),
            lambda: kv_capacity(pf, longest_prompt + 1, engine),
        ),
        pf.replicas,
        "prefill",
        transfer,
    )
    return [pre, engine_pool(engine, tab, cap, dep.replicas, "decode")]


def _hand_off(pf: Deployment, dep: Deployment, inp: list[int]) -> Callable[[int], float]:
    """The time a prompt's KV takes from a prefill instance of `pf` to a decode instance of
    `dep`, by its tokens (each request's own input: the prefill pool never preempts)."""
    for what, a, b in (
        ("hardware", pf.chip.id, dep.chip.id),
        ("model", pf.spec.name, dep.spec.name),
        ("kv_dtype", pf.kv_dtype, dep.kv_dtype),
    ):
        if a != b:
            raise InputError(
                f"the prefill and decode pools must share the {what} ({a} vs {b})", field=what
            )
    lens = np.unique(np.asarray(inp, dtype=np.int64))
    hand = kv_transfer_time(
        dep.model,
        get_dtype(dep.kv_dtype).bytes,
        dep.chip,
        senders=pf.parallel.sequence_kv_chips(pf.model),
        receivers=dep.parallel.sequence_kv_chips(dep.model),
        fleet=pf.chips + dep.chips,
        comm=dep.comm,
        tokens=lens.astype(np.float64),
    )
    times = dict(zip(lens.tolist(), hand.tolist(), strict=True))

    def transfer(tokens: int) -> float:
        return float(times[tokens])

    return transfer
