"""How a model is split over chips when the user gives only the chip count (or some degrees).

`auto_split` keeps the degrees that are given and chooses the others by one rule, in this
order of preference:

1. the weights must fit on every chip (else the smallest instance that holds them);
2. a tensor/expert group stays inside one scale-up domain (NVLink, ICI); pipeline stages
   cross domains only when the weights do not fit in one;
3. as few pipeline stages as fit; query heads padded only when asked and needed; a dense
   model gets no data-parallel groups inside an instance (they are replicas by another
   name); then the largest instance inside one domain (more chips per instance: lower
   latency), and replicas beyond it;
4. tensor parallel as wide as the stage and the heads allow; for MLA (DeepSeek) attention
   runs data-parallel (tp 1), since its latent KV cache cannot be split by heads;
5. a mixture of experts spreads its experts over the whole stage (ep = the largest divisor
   of the stage's chips that does not exceed the experts).

A default is never an error; a split the user gives that cannot divide the model is (one line
naming the degree). `pad_heads` pads query heads up to a multiple of tp, as ESTI did.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import Any, NamedTuple

from llm_roofline._core.checks import positive_int
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError
from llm_roofline.engine.memory import weights_per_chip
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec

__all__ = ["Degrees", "auto_split", "max_experts", "pad_heads"]


MAX_CHIPS = 1_000_000  # far beyond any deployment; keeps the rule's search bounded


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted(set(small) | {n // d for d in small})


def pad_heads(spec: ModelSpec, tp: int) -> ModelSpec:
    """The model with its query heads padded up to a multiple of tp (and of the KV heads), as
    ESTI padded PaLM 540B's 48 heads to 64: the extra heads' weights and FLOPs are counted."""
    a = spec.attention
    unit = math.lcm(tp, a.n_kv_heads) if a.kind != "mla" else tp
    heads = -(-a.n_heads // unit) * unit
    if heads == a.n_heads:
        return spec
    padded = dataclasses.replace(a, n_heads=heads)
    if a.kind == "mha":  # every query head has its own KV head: pad them alike
        padded = dataclasses.replace(padded, n_kv_heads=heads)
    return dataclasses.replace(spec, attention=padded, name=f"{spec.name} ({heads} heads)")


def max_experts(spec: ModelSpec) -> int:
    return max((g.ffn.n_experts for g in spec.groups), default=0)


def _weights_fit(spec: ModelSpec, chip: Chip, par: Parallelism, weight_bytes: float) -> bool:

    return weights_per_chip(spec, par) * weight_bytes <= chip.memory_bytes


class Degrees(NamedTuple):
    """The split's degrees a user gave (None: the rule chooses)."""

    tp: int | None
    pp: int | None
    ep: int | None
    replicas: int | None


def _candidates(spec: ModelSpec, chips: int, given: Degrees) -> Iterator[tuple[int, int, int, int]]:
    """Every (tp, pp, ep, replicas) that divides `chips` and keeps the given degrees; ep the
    widest that divides a stage when not given (1 for a dense model)."""
    experts = max_experts(spec)
    for r in [given.replicas] if given.replicas else _divisors(chips):
        if chips % r:
            continue
        inst = chips // r
        for p in [given.pp] if given.pp else [d for d in _divisors(inst) if d <= spec.n_layers]:
            if inst % p:
                continue
            stage = inst // p
            for t in [given.tp] if given.tp else _divisors(stage):
                if stage % t:
                    continue
                if given.ep:
                    e = given.ep
                elif experts:
                    e = max(d for d in _divisors(stage) if d <= experts)
                else:
                    e = 1
                yield t, p, e, r


def _auto_split(
    spec: ModelSpec, chip: Chip, chips: int, weight_bytes: float, given: Degrees, padded: bool
) -> tuple[int, int, int, int]:
    domain = max(chip.scale_up_domain, 1)
    experts = max_experts(spec)
    mla = spec.attention.kind == "mla"
    best: tuple[tuple[Any, ...], tuple[int, int, int, int]] | None = None
    for t, p, e, r in _candidates(spec, chips, given):
        inst = chips // r
        stage = inst // p
        par = Parallelism(inst, t, p, e)
        model = pad_heads(spec, t) if padded else spec
        try:
            par.check(model)
        except InputError:
            continue
        fits = _weights_fit(model, chip, par, weight_bytes)
        key = (
            not fits,
            stage > domain,  # a tensor/expert group leaving the scale-up domain
            p,
            model.attention.n_heads - spec.attention.n_heads,  # pad only if needed
            # a dense model's data-parallel groups are replicas by another name: they
            # do nothing for latency, so widen tp first (MoE groups share experts)
            not experts and par.dp > 1,
            inst > domain,  # instances inside one domain, replicas beyond
            -inst,
            t if mla else -t,
            -e,
        )
        if best is None or key < best[0]:
            best = (key, (t, p, e, r))
    if best is None:
        raise InputError("no split", field="tp")  # replaced by the caller's precise error
    return best[1]


# size: the contract's four degrees (tp, pp, ep, replicas) as keywords, as `deployment` takes them
def auto_split(
    model: str | ModelSpec,
    hardware: str | Chip,
    chips: int,
    *,
    weight_dtype: str = "bf16",
    tp: int | None = None,
    pp: int | None = None,
    ep: int | None = None,
    replicas: int | None = None,
    padded: bool = False,
) -> tuple[int, int, int, int]:
    """(tp, pp, ep, replicas) for `chips` chips by the rule of the module docstring, keeping
    the degrees that are given. Raises InputError naming the degree when the given ones cannot
    split the model."""
    spec = get_model(model)
    chip = get_hardware(hardware)
    n = positive_int(chips, "chips")
    if n > MAX_CHIPS:
        raise InputError(f"chips must be at most {MAX_CHIPS:,}, got {n:,}", field="chips")
    given = {"tp": tp, "pp": pp, "ep": ep, "replicas": replicas}
    for k, v in given.items():
        if v is not None:
            positive_int(v, k)
    if replicas is not None and n % replicas:
        raise InputError(f"replicas = {replicas} does not divide chips = {n}", field="replicas")
    try:
        w_bytes = get_dtype(weight_dtype).bytes
        return _auto_split(spec, chip, n, w_bytes, Degrees(tp, pp, ep, replicas), padded)
    except InputError:
        pass
    # no split keeps the given degrees: say which, with the check's own words
    inst = n // (replicas or 1)
    where = f" (with replicas = {replicas}, an instance has {inst} chips)" if replicas else ""
    p = pp or 1
    if inst % p:
        raise InputError(f"pp = {p} does not divide the {inst} chips of an instance", field="pp")
    t = tp or 1
    par = Parallelism(inst, t, p, ep or 1)
    try:
        par.check(pad_heads(spec, t) if padded else spec)
    except InputError as exc:
        raise InputError(f"{exc}{where}", field=exc.field) from None
    raise InputError(
        f"no split of {n} chips keeps tp={tp}, pp={pp}, ep={ep}, replicas={replicas} "
        f"for {spec.name}",
        field="tp",
    )
