"""The lecture's closed forms (`balance.py`) on a chip and a model small enough to work by
hand: the small Llama of tests/conftest.py (counts worked in tests/engine/test_hand_checked.py)
on the round chip of `make_chip` (1e15 FLOP/s bf16, 2e15 fp8, 1e12 B/s). The lecture's own
inputs are checked in tests/engine/test_reference_cases.py."""

from __future__ import annotations

import pytest

import llm_roofline as lr
from llm_roofline._core.errors import InputError
from llm_roofline.engine.balance import (
    as_system,
    balance_batch,
    balance_batch_formula,
    balanced_context,
    balanced_context_formula,
    latency_floor,
)
from llm_roofline.hardware.chip import System

from ..conftest import make_chip

# the small Llama: N_active = 61,841,408 multiplied per token; N_total (read at full expert
# coverage) = stored 62,874,624 − untied input embedding 1,024,000 = 61,850,624
N_ACTIVE, N_TOTAL = 61_841_408, 61_850_624


def test_balance_batch_by_hand(small_model: lr.ModelSpec) -> None:
    # B* = (1e15 / 1e12) · (2 bytes / 2) · (61,850,624 / 61,841,408) = 1,000.149...
    want = 1000.0 * N_TOTAL / N_ACTIVE
    assert balance_batch(small_model, make_chip()) == pytest.approx(want, rel=1e-12)
    assert balance_batch_formula(1000.0, 2.0, N_TOTAL, N_ACTIVE) == pytest.approx(want)


def test_fp8_halves_the_bytes_and_doubles_the_flops_so_b_star_stays() -> None:
    # fp8: (2e15 / 1e12) · (1 / 2) = 1,000, as bf16's (1e15 / 1e12) · (2 / 2); a MoE's
    # N_total / N_active = 8 raises it eightfold
    assert balance_batch_formula(2000.0, 1.0, 1, 1) == pytest.approx(1000.0)
    assert balance_batch_formula(1000.0, 2.0, 8, 1) == pytest.approx(8000.0)
    spec = lr.get_model("llama-3.1-8b")
    chip = make_chip()
    bf16 = balance_batch(spec, chip)
    assert balance_batch(spec, chip, weight_dtype="fp8") == pytest.approx(bf16, rel=1e-12)


def test_latency_floor_reads_the_weights_one_token_needs(small_model: lr.ModelSpec) -> None:
    # one token: N_total plus its one gathered embedding row (1,024): 61,851,648 parameters,
    # 2 bytes each, at 1e12 B/s = 1.23703296e-4 s; four chips read four times as fast
    assert latency_floor(small_model, make_chip()) == pytest.approx(1.23703296e-4)
    assert latency_floor(small_model, make_chip(), 4) == pytest.approx(1.23703296e-4 / 4)


def test_balanced_context_by_hand(small_model: lr.ModelSpec) -> None:
    # S = 2 · N_active · BW / (FLOP/s · KV bytes a token) = 2 · 61,841,408 · 1e12 / (1e15 ·
    # 2,048 elements · 2 bytes) = 123,682,816 / 4,096 / 1,000 = 30.196 tokens
    assert balanced_context(small_model, make_chip()) == pytest.approx(30.196)
    # there, one sequence's KV fetch equals its matmul time:
    # 30.196 · 4,096 B / 1e12 = 1.23682816e-7 s = 2 · 61,841,408 / 1e15
    step = lr.decode_step(small_model, make_chip(), batch=1, context_len=30.196)
    assert float(step.t_kv) == pytest.approx(float(step.t_matmul))
    assert balanced_context_formula(1e15, 1e12, N_ACTIVE, 4096) == pytest.approx(30.196)


def test_refusals_name_the_field() -> None:
    with pytest.raises(InputError, match=r"^kv_bytes_per_token must be positive, got -1$") as e:
        balanced_context_formula(1e15, 1e12, 1e9, -1)
    assert e.value.field == "kv_bytes_per_token"
    with pytest.raises(InputError, match=r"^n_active must be positive, got 0$"):
        balance_batch_formula(1000.0, 2.0, 1e9, 0)


def test_as_system() -> None:
    chip = make_chip()
    system = System(chip, 4)
    assert as_system(system) is system  # a System is taken as is (the count argument unused)
    assert as_system(chip, 2) == System(chip, 2)
    assert as_system("h100-sxm").chip.id == "h100-sxm"
