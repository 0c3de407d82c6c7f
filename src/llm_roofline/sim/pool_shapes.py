"""A disaggregated fleet's two pools, each instance of its own shape: `P:D` prefill and decode
instances, the decode pool's instance the deployment's own (its chips over its replicas, its
split) and the prefill pool's of its own chips and split (`prefill_chips`, `prefill_tp`,
`prefill_pp`, `prefill_ep`; each not given: the decode instance's chips, a split chosen for
them as `deployment` chooses one). `llm-roofline simulate --disagg P:D --prefill-...`
(cli.disagg_args) and the web's `/api/simulate` build them here, one rule for both, so that a
fleet `plan` chose is simulated as it stands."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from llm_roofline._core import units
from llm_roofline._core.checks import positive_int
from llm_roofline._core.errors import ConfigError, InputError
from llm_roofline.sim.pools import disagg_pools, parse_disagg

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = ["PREFILL_FIELDS", "pools_of", "prefill_instance", "shaped_pools"]

PREFILL_FIELDS = ("prefill_chips", "prefill_tp", "prefill_pp", "prefill_ep")
# the deployment's fields a prefill instance's error names, as the prefill field that set it
# (its replicas are 1: a count that does not divide is one of its chips)
_AS_PREFILL = {
    "chips": "prefill_chips",
    "replicas": "prefill_chips",
    "tp": "prefill_tp",
    "pp": "prefill_pp",
    "ep": "prefill_ep",
}


def prefill_instance(
    dep: Deployment,
    chips: int | None = None,
    tp: int | None = None,
    pp: int | None = None,
    ep: int | None = None,
) -> Deployment:
    """One prefill instance beside `dep`'s decode instances: `chips` chips (default: one of
    `dep`'s instances' count) split tp × pp × ep (each not given: chosen as `deployment`
    chooses), of `dep`'s model, chip, data types, engine and links. A bad shape is an
    InputError naming the prefill field (`prefill_tp`, ...).

    >>> from llm_roofline.deploy.deployment import deployment
    >>> dec = deployment("llama-3.1-8b", "h100-sxm", 2, tp=2)
    >>> one = prefill_instance(dec, chips=1)
    >>> (one.chips, one.tp, one.replicas)
    (1, 1, 1)
    """
    for name, v in zip(PREFILL_FIELDS, (chips, tp, pp, ep), strict=True):
        if v is not None:
            positive_int(v, name)
    n = chips if chips is not None else dep.instance_chips
    try:
        one = dep.on(dep.chip, n, tp=tp, pp=pp, ep=ep, replicas=1)  # at the deployment's price
    except (InputError, ConfigError) as exc:
        field = _AS_PREFILL.get(exc.field or "")
        if field is None:
            raise
        raise InputError(f"the prefill instance: {exc}", field=field) from None
    if int(one.max_batch(1)) < 1:  # not one sequence beside the weights
        gb = units.GB
        raise InputError(
            f"the prefill instance of {n} chip{'s' if n > 1 else ''} does not hold the "
            f"weights and one sequence: {one.weights_per_chip_bytes() / gb:.1f} GB of weights "
            f"a chip against {one.chip.memory_bytes / gb:.1f} GB; give more prefill_chips",
            field="prefill_chips",
        )
    return one


def shaped_pools(
    dep: Deployment,
    disagg: str,
    chips: int | None = None,
    tp: int | None = None,
    pp: int | None = None,
    ep: int | None = None,
) -> tuple[Deployment, Deployment]:
    """(the prefill pool, the decode pool) of `disagg` "P:D": P prefill instances of
    `prefill_instance(dep, chips, tp, pp, ep)` (none of those given: `dep`'s instance) and D
    decode instances of `dep`'s instance.

    >>> from llm_roofline.deploy.deployment import deployment
    >>> pf, dec = shaped_pools(deployment("llama-3.1-8b", "h100-sxm", 2, tp=2), "3:2", chips=1)
    >>> (pf.chips, pf.replicas, pf.tp, dec.chips, dec.replicas, dec.tp)
    (3, 3, 1, 4, 2, 2)
    """
    p, d = parse_disagg(disagg)
    _, dec = disagg_pools(dep, 1, d)
    if chips is None and tp is None and pp is None and ep is None:
        pf, _ = disagg_pools(dep, p, 1)
        return pf, dec
    pf, _ = disagg_pools(prefill_instance(dep, chips, tp, pp, ep), p, 1)
    return pf, dec


def pools_of(
    dep: Deployment,
    disagg: str | None,
    shape: Mapping[str, int | None],
    say: Callable[[str], str] = str,
) -> tuple[Deployment | None, Deployment]:
    """(the prefill pool, the decode pool) of `disagg` with the prefill instance's `shape`
    (`PREFILL_FIELDS` to a value or None), as `shaped_pools`; without `disagg`, (None, `dep`),
    a prefill field given refused, named as its caller calls it (`say`: a flag, a field).

    >>> from llm_roofline.deploy.deployment import deployment
    >>> pools_of(deployment("llama-3.1-8b", "h100-sxm", 1), None, {"prefill_tp": 2})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llm_roofline._core.errors.InputError: prefill_tp shapes the prefill ...: give disagg P:D too
    """
    given = [f for f in PREFILL_FIELDS if shape.get(f) is not None]
    if not disagg:
        if given:
            raise InputError(
                f"{say(given[0])} shapes the prefill pool of a disaggregated fleet: "
                f"give {say('disagg')} P:D too",
                field=given[0],
            )
        return None, dep
    chips, tp, pp, ep = (shape.get(f) for f in PREFILL_FIELDS)
    return shaped_pools(dep, disagg, chips=chips, tp=tp, pp=pp, ep=ep)
