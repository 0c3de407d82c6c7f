"""`deploy.split`: the split rule of docs/deployment.md ("How the split is chosen"), case by
case on the small Llama-style model of tests/conftest.py (8 query heads, 2 KV heads, 4 layers,
62,874,624 parameters: 125,749,248 bytes in bf16) and round chips whose scale-up domain and
memory are set per case."""

from __future__ import annotations

import dataclasses

import pytest

from llm_roofline import spec_from_config
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.split import auto_split, max_experts, pad_heads
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec
from tests.conftest import llama_like, make_chip


def _spec() -> ModelSpec:
    return spec_from_config(llama_like(), name="small")


def _chip(domain: int = 1, mem: float = 80e9) -> Chip:
    return dataclasses.replace(make_chip(mem=mem), scale_up_domain=domain)


@pytest.mark.parametrize(
    ("domain", "chips", "split"),
    [
        # tp as wide as the domain and the 8 heads allow; one instance
        (8, 8, (8, 1, 1, 1)),
        # instances inside one domain, replicas beyond it
        (8, 16, (8, 1, 1, 2)),
        # a domain of one chip: a tensor group would leave it, so four single-chip replicas
        (1, 4, (1, 1, 1, 4)),
        # 6 chips in a domain of 8: tp 6 does not divide 8 heads; tp 2 × 3 replicas beats
        # tp 1 and its 6 replicas (larger instance), and tp 4 or 8 do not divide 6
        (8, 6, (2, 1, 1, 3)),
    ],
)
def test_weights_that_fit_one_chip(domain: int, chips: int, split: tuple[int, ...]) -> None:
    assert auto_split(_spec(), _chip(domain), chips) == split


def test_pipeline_stages_cross_domains_only_when_the_weights_need_it() -> None:
    # 125.7 MB of weights on 100 MB chips: one chip cannot hold them, two can (62.9 MB each)
    small = 0.1e9
    # a domain of one chip: pp 2 (a stage stays in its domain) rather than tp 2
    assert auto_split(_spec(), _chip(1, small), 2) == (1, 2, 1, 1)
    # a domain of two chips: tp 2 inside it, no pipeline stage
    assert auto_split(_spec(), _chip(2, small), 2) == (2, 1, 1, 1)
    # 4 chips in domains of 2: tp 2 and two replicas (not one instance of pp 2)
    assert auto_split(_spec(), _chip(2, small), 4) == (2, 1, 1, 2)


def test_given_degrees_are_kept() -> None:
    # tp 2 given on 8 chips in a domain of 8: no pipeline stage, so 4 replicas of 2 chips
    assert auto_split(_spec(), _chip(8), 8, tp=2) == (2, 1, 1, 4)
    # replicas 2 given: instances of 4 chips, tp 4
    assert auto_split(_spec(), _chip(8), 8, replicas=2) == (4, 1, 1, 2)
    # pp 2 given: stages of 4 chips, tp 4
    assert auto_split(_spec(), _chip(8), 8, pp=2) == (4, 2, 1, 1)


def test_pad_heads_pads_to_a_multiple_of_tp_and_the_kv_heads() -> None:
    spec = _spec()
    assert pad_heads(spec, 4) is spec  # 8 heads already divide over 4
    # lcm(3, 2 KV heads) = 6: 8 heads padded to 12; the KV heads of GQA stay 2
    three = pad_heads(spec, 3)
    assert three.attention.n_heads == 12 and three.attention.n_kv_heads == 2
    assert three.name == "small (12 heads)"
    # multi-head attention pads its KV heads alike: lcm(16, 8) = 16, so 8 -> 16 both
    mha = pad_heads(spec_from_config(llama_like(num_key_value_heads=8), name="mha"), 16)
    assert (mha.attention.n_heads, mha.attention.n_kv_heads) == (16, 16)
    # tp 16 on 16 chips: refused without padding, 16 heads with it (ESTI's PaLM padding)
    assert auto_split(spec, _chip(16), 16, tp=16, padded=True) == (16, 1, 1, 1)
    # padding only when needed: the rule itself prefers tp 8 and two replicas
    assert auto_split(spec, _chip(16), 16, padded=True) == (8, 1, 1, 2)


def test_refusals_name_the_degree() -> None:
    cases = [
        ({"replicas": 3}, 8, "replicas", "replicas = 3 does not divide chips = 8"),
        ({"pp": 3}, 8, "pp", "pp = 3 does not divide the 8 chips of an instance"),
        (
            {"tp": 16},
            16,
            "tp",
            "tp = 16 does not divide the 8 query heads of small; tp that divide both the "
            "heads and the 16 chips of a stage: 1, 2, 4, 8",
        ),
        ({}, 2_000_000, "chips", "chips must be at most 1,000,000, got 2,000,000"),
    ]
    for given, chips, field, message in cases:
        with pytest.raises(InputError) as exc:
            auto_split(_spec(), _chip(16), chips, **given)
        assert (exc.value.field, str(exc.value)) == (field, message)


def test_max_experts() -> None:
    assert max_experts(_spec()) == 0  # dense
    # DeepSeek-V3's config.json: n_routed_experts = 256
    assert max_experts(get_model("deepseek-v3")) == 256
