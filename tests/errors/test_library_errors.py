"""Bad arguments to the library raise typed errors naming the argument, never a NaN."""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline import InputError, System

from ..conftest import make_chip


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), [4, 0], "many", []])
def test_batch_must_be_positive(bad: object) -> None:
    with pytest.raises(InputError) as exc:
        lr.decode_step("llama-3.1-8b", "h100-sxm", batch=bad, context_len=100)
    assert exc.value.field == "batch"


@pytest.mark.parametrize("bad", [0, -5, float("nan"), [10, -1]])
def test_context_must_be_positive(bad: object) -> None:
    with pytest.raises(InputError) as exc:
        lr.decode_step("llama-3.1-8b", "h100-sxm", batch=1, context_len=bad)
    assert exc.value.field == "context_len"


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_chips_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(InputError) as exc:
        System(lr.get_hardware("h100-sxm"), bad)  # type: ignore[arg-type]
    assert exc.value.field == "chips"


def test_prompt_len_must_be_positive() -> None:
    with pytest.raises(InputError, match="prompt_len"):
        lr.prefill("llama-3.1-8b", "h100-sxm", prompt_len=0)


def test_unknown_overlap_and_dtype() -> None:
    with pytest.raises(InputError, match="overlap must be one of full, per-op, none"):
        lr.decode_step("llama-3.1-8b", "h100-sxm", overlap="partial")
    with pytest.raises(lr.UnknownIdError, match="data type"):
        lr.decode_step("llama-3.1-8b", "h100-sxm", weight_dtype="fp12")


def test_compute_dtype_the_chip_lacks() -> None:
    with pytest.raises(InputError, match="no fp4 peak"):
        lr.decode_step("llama-3.1-8b", "h100-sxm", compute_dtype="fp4")


def test_reserve_fraction_range() -> None:
    with pytest.raises(InputError, match="reserve_fraction"):
        lr.max_batch("llama-3.1-8b", "h100-sxm", context_len=100, reserve_fraction=1.0)


def test_a_model_that_does_not_fit_is_reported() -> None:
    # Llama 3.1 405B in bf16 is 812 GB of weights; one 80 GB H100 cannot hold it
    m = lr.memory_use("llama-3.1-405b", "h100-sxm", batch=1, context_len=1000)
    assert not bool(m.fits) and float(m.headroom) < -700e9
    assert int(lr.max_batch("llama-3.1-405b", "h100-sxm", context_len=1000)) == 0
    # its step time is still computed (the contract: times even when it does not fit)
    assert float(lr.decode_step("llama-3.1-405b", "h100-sxm").t_step) > 0


def test_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(InputError, match="do not broadcast"):
        lr.decode_step("llama-3.1-8b", "h100-sxm", batch=[1, 2, 3], context_len=[10, 20])


@pytest.mark.parametrize("bad", ["x", [], float("nan"), -1])
def test_cached_len_validated(bad: object) -> None:
    with pytest.raises(InputError, match="cached_len"):
        lr.prefill("llama-3.1-8b", "h100-sxm", prompt_len=10, cached_len=bad)


@pytest.mark.parametrize("bad", [-5, float("nan"), 0])
def test_tokens_per_seq_validated(bad: float) -> None:
    with pytest.raises(InputError, match="tokens_per_seq"):
        lr.memory_use("llama-3.1-8b", "h100-sxm", tokens_per_seq=bad)


def test_reserve_fraction_must_be_a_number() -> None:
    with pytest.raises(InputError, match="reserve_fraction"):
        lr.max_batch("llama-3.1-8b", "h100-sxm", reserve_fraction="0.1")  # type: ignore[arg-type]


# 0 is allowed: hardware you own (no $ per token)
@pytest.mark.parametrize("bad", [float("inf"), True, -2.0, float("nan")])
def test_with_price_validated(bad: float) -> None:
    with pytest.raises(InputError, match="price"):
        lr.get_hardware("h100-sxm").with_price(bad)


def test_numpy_integer_chip_counts_are_fine() -> None:
    assert System(lr.get_hardware("h100-sxm"), np.int64(8)).n_chips == 8  # type: ignore[arg-type]


def test_degenerate_formula_inputs() -> None:
    with pytest.raises(InputError):
        lr.experts_touched(0, 1, 4)
    with pytest.raises(InputError, match="n_active"):
        lr.balance_batch_formula(300, 2, 8, 0)
    with pytest.raises(InputError, match="kv_bytes_per_token"):
        lr.balanced_context_formula(1e15, 1e12, 1e9, 0)


def test_overflowing_inputs_are_refused_not_infinite() -> None:
    with pytest.raises(InputError, match="at most"):
        lr.decode_step("llama-3.1-8b", make_chip(), batch=1e300, context_len=1e300)
