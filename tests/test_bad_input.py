"""Bad arguments to the library raise typed errors naming the argument, never a NaN."""

from __future__ import annotations

import pytest

import llm_roofline as lr
from llm_roofline import InputError, System


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


def test_prefill_arguments() -> None:
    with pytest.raises(InputError, match="prompt_len"):
        lr.prefill("llama-3.1-8b", "h100-sxm", prompt_len=0)
    with pytest.raises(InputError, match="cached_len"):
        lr.prefill("llama-3.1-8b", "h100-sxm", prompt_len=10, cached_len=-1)


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
