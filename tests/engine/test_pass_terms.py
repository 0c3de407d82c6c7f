"""The terms of one pass on the busiest chip (`pass_terms.py`), called directly: the plan's
constants and each term for the small Llama of tests/conftest.py on the round chip of
`make_chip` (1e15 FLOP/s, 1e12 B/s). Hand figures as in tests/engine/test_hand_checked.py,
which reaches the same terms through `lr.decode_step` and `lr.prefill`."""

from __future__ import annotations

import dataclasses

import pytest

import llm_roofline as lr
from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline._core.errors import InputError
from llm_roofline.engine.parallel import CommModel, Parallelism
from llm_roofline.engine.pass_terms import TERMS, Load, Plan, Resolved, make_plan, pass_terms
from llm_roofline.hardware.chip import Chip, System

from ..conftest import make_chip

# the small Llama: 61,841,408 parameters multiplied a token, of which the LM head 1,024,000;
# 61,850,624 read besides the gathered embedding rows (1,024 a token); 2,048 KV elements a token
N_MULT, HEAD, N_READ, KV = 61_841_408, 1_024_000, 61_850_624, 2_048
NVL = dataclasses.replace(make_chip(), scale_up_domain=8, scale_up_bw=100e9)


def _plan(spec: lr.ModelSpec, chip: Chip, n: int = 1, par: Parallelism | None = None) -> Plan:
    system = System(chip, n)
    r = Resolved(spec, system, 2.0, 2.0, system.flops("bf16"), system.flops("bf16"))
    return make_plan(r, par, None if par is None else CommModel(), "full")


def _decode(seqs: float, context: float, group: float | None = None) -> Load:
    g = seqs if group is None else group
    return Load(seqs, context, 0.0, 1.0, 0.0, g, 0.0, False)


def test_the_plan_holds_the_models_constants(small_model: lr.ModelSpec) -> None:
    p = _plan(small_model, make_chip())
    assert p.dense2 == 2 * N_MULT and p.head == HEAD and p.body == N_MULT - HEAD
    assert p.routed2 == 0.0 and p.kv_per_token == KV
    assert (p.ptp, p.dp, p.kv_shards, p.split) == (1, 1, 1, False)
    assert p.comm is None and p.collectives is None


def test_decode_terms_on_both_backends(small_model: lr.ModelSpec) -> None:
    p = _plan(small_model, make_chip())
    for xp in (SCALAR, ARRAY):
        one, two, possible = pass_terms(xp, p, _decode(10.0, 1000.0), whole=False, share_kv=False)
        assert two is None and not possible  # no split: no communication, one micro-batch
        assert set(one) == set(TERMS)
        # matmul 2 · 61,841,408 · 10 / 1e15; attention 10 · 4 layers · 4·8·128 · 1,000 / 1e15
        assert float(one["t_matmul"]) == pytest.approx(2 * N_MULT * 10 / 1e15)
        assert float(one["t_attn"]) == pytest.approx(10 * 4 * 4096 * 1000 / 1e15)
        # weights (61,850,624 + 10 gathered rows · 1,024) · 2 B; KV 10 · 1,000 · 2,048 · 2 B
        assert float(one["t_weights"]) == pytest.approx((N_READ + 10 * 1024) * 2 / 1e12)
        assert float(one["t_kv"]) == pytest.approx(10 * 1000 * KV * 2 / 1e12)
        assert one["t_comm"] == 0.0 and one["t_matmul_prefill"] == 0.0


def test_prefill_terms_and_the_lm_head(small_model: lr.ModelSpec) -> None:
    p = _plan(small_model, make_chip())
    # 2 prompts of 100 tokens after 50 cached: 200 tokens
    ld = Load(0.0, 1.0, 2.0, 100.0, 50.0, 0.0, 2.0, False)
    assert ld.tokens == 200.0
    one, _, _ = pass_terms(SCALAR, p, ld, whole=False, share_kv=False)
    # the layers for 200 tokens, the LM head for each prompt's last token only
    assert one["t_matmul"] == pytest.approx(2 * ((N_MULT - HEAD) * 200 + HEAD * 2) / 1e15)
    assert one["t_matmul_prefill"] == one["t_matmul"]
    # causal pairs after 50 cached: 100 · 50 + 100 · 101 / 2 = 10,050 a layer and sequence
    assert one["t_attn"] == pytest.approx(2 * 4 * 4096 * 10_050 / 1e15)
    # KV: each prompt reads its 50 cached tokens and writes its 100 new: 2 · 150 · 2,048 · 2 B
    assert one["t_kv"] == pytest.approx(2 * 150 * KV * 2 / 1e12)
    # every prompt token's logits: the LM head for all 200 tokens
    ld_all = Load(0.0, 1.0, 2.0, 100.0, 50.0, 0.0, 2.0, True)
    all_logits, _, _ = pass_terms(SCALAR, p, ld_all, whole=False, share_kv=False)
    assert all_logits["t_matmul"] == pytest.approx(2 * N_MULT * 200 / 1e15)


def test_two_micro_batches_read_the_weights_twice(small_model: lr.ModelSpec) -> None:
    # tp 2 over 2 chips of 1e15 FLOP/s and 1e12 B/s each: the dense weights split in two
    p = _plan(small_model, NVL, 2, Parallelism(2, tp=2).check(small_model))
    one, two, possible = pass_terms(SCALAR, p, _decode(10.0, 1000.0), whole=True, share_kv=True)
    assert two is not None and possible
    # one micro-batch of 10: (61,850,624 + 10 · 1,024) / 2 parameters · 2 B / 1e12
    assert one["t_weights"] == pytest.approx((N_READ + 10 * 1024) / 2 * 2 / 1e12)
    # two of 5: each reads the weights and its 5 rows: 2 · (61,850,624 + 5 · 1,024) / 2 · 2 B
    assert two["t_weights"] == pytest.approx(2 * (N_READ + 5 * 1024) / 2 * 2 / 1e12)
    # KV over min(tp 2, K 2) = 2 shards: 10 · 1,000 · 2,048 · 2 B / 2
    assert one["t_kv"] == pytest.approx(10 * 1000 * KV * 2 / 2 / 1e12)
    assert one["t_comm"] > 0 and two["t_comm"] > one["t_comm"]  # each pays the latency again


def test_refusals(small_model: lr.ModelSpec) -> None:
    with pytest.raises(InputError, match=r"^the parallel split is for 2 chips, the system has 4$"):
        _plan(small_model, NVL, 4, Parallelism(2, tp=2))
    # tp 2 on a chip with no scale-up link and no network: its all-reduce has no link
    with pytest.raises(InputError, match=r"leaves the 1-chip scale-up domain of test-chip") as e:
        _plan(small_model, make_chip(), 2, Parallelism(2, tp=2))
    assert e.value.field == "chips"
