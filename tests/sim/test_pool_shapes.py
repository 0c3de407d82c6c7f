"""sim/pool_shapes: a disaggregated fleet's pools, the prefill instance of its own shape (the
one rule `simulate --prefill-...` and /api/simulate share); a bad shape names the prefill
field that set it."""

from __future__ import annotations

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import deployment
from llm_roofline.sim.pool_shapes import prefill_instance, shaped_pools


def test_each_pool_its_own_instance() -> None:
    dec = deployment("llama-3.1-70b", "h100-sxm", 4, tp=4)
    pf, d = shaped_pools(dec, "1:2", chips=2, tp=2)
    # 1 prefill instance of 2 chips (tp 2), 2 decode instances of 4 chips (tp 4): 2 + 8 chips
    assert (pf.chips, pf.replicas, pf.tp, pf.pp) == (2, 1, 2, 1)
    assert (d.chips, d.replicas, d.tp, d.pp) == (8, 2, 4, 1)
    # the decode deployment's model, chip, data types and engine
    for what in ("spec", "chip", "weight_dtype", "kv_dtype", "engine", "overlap", "model_id"):
        assert getattr(pf, what) == getattr(d, what), what
    # no shape given: a prefill instance is a decode instance
    pf, _ = shaped_pools(dec, "3:1")
    assert (pf.chips, pf.replicas, pf.tp) == (12, 3, 4)
    # a chip count alone: the split chosen for it as the deployment rule chooses
    assert prefill_instance(dec, chips=8).tp == deployment("llama-3.1-70b", "h100-sxm", 8).tp


@pytest.mark.parametrize(
    ("shape", "field"),
    [
        ({"chips": 0}, "prefill_chips"),
        ({"chips": 3, "tp": 2}, "prefill_tp"),  # tp 2 × pp 1 cannot split 3 chips
        ({"chips": 2, "pp": 4}, "prefill_pp"),  # 4 stages of 2 chips
        ({"ep": 2}, "prefill_ep"),  # a dense model: no experts
    ],
)
def test_a_bad_shape_names_its_prefill_field(shape: dict[str, int], field: str) -> None:
    dec = deployment("llama-3.1-8b", "h100-sxm", 1)
    with pytest.raises(InputError) as info:
        shaped_pools(dec, "1:1", **shape)
    assert info.value.field == field
    assert str(info.value).startswith("the prefill instance") or field == "prefill_chips"


def test_a_bad_count_names_disagg() -> None:
    with pytest.raises(InputError) as info:
        shaped_pools(deployment("llama-3.1-8b", "h100-sxm", 1), "1:0", chips=1)
    assert info.value.field == "disagg"


def test_a_prefill_instance_too_small_for_the_weights_names_prefill_chips() -> None:
    """Llama 3.1 70B in bf16 is 70.55e9 parameters x 2 bytes = 141.1 GB of weights: one
    80 GB H100 (85.52 GB as the catalog counts it) cannot hold them, two (70.6 GB a chip)
    can. The refusal names the prefill field, not the request's length."""
    dec = deployment("llama-3.1-70b", "h100-sxm", 4, tp=4)
    with pytest.raises(InputError, match=r"141\.1 GB of weights a chip") as e:
        shaped_pools(dec, "1:1", chips=1)
    assert e.value.field == "prefill_chips"
    pf, _ = shaped_pools(dec, "1:1", chips=2)
    assert (pf.chips, pf.tp) == (2, 2)


def test_pools_of_refuses_a_prefill_field_without_disagg_in_the_callers_words() -> None:
    from llm_roofline.sim.pool_shapes import pools_of

    dep = deployment("llama-3.1-8b", "h100-sxm", 1)
    assert pools_of(dep, None, {}) == (None, dep)
    with pytest.raises(InputError, match=r"^--prefill-pp shapes .* give --disagg P:D too") as e:
        pools_of(dep, None, {"prefill_pp": 2}, say=lambda f: "--" + f.replace("_", "-"))
    assert e.value.field == "prefill_pp"
