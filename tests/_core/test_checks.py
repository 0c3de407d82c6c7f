"""The input-checking helper (`_core/checks.py`): the messages the project has always given,
each error naming its field; numpy integers count as integers, a bool never as a number."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llm_roofline._core import checks
from llm_roofline._core.errors import InputError


def test_positive_int_takes_python_and_numpy_integers() -> None:
    assert checks.positive_int(3, "batch") == 3
    assert checks.positive_int(np.int64(7), "batch") == 7
    assert type(checks.positive_int(np.int32(7), "batch")) is int


@pytest.mark.parametrize("bad", [0, -1, 1.0, True, "4", None])
def test_positive_int_refuses(bad: object) -> None:
    with pytest.raises(InputError) as e:
        checks.positive_int(bad, "batch")
    assert str(e.value) == f"batch must be a positive integer, got {bad!r}"
    assert e.value.field == "batch"


def test_the_field_can_differ_from_the_name() -> None:
    with pytest.raises(InputError) as e:
        checks.positive(-0.5, "the target", field="tpot_ms")
    assert str(e.value) == "the target must be positive, got -0.5"
    assert e.value.field == "tpot_ms"


@pytest.mark.parametrize("bad", [0, 0.0, -2.5, math.nan, math.inf, False, "1"])
def test_positive_and_positive_number_refuse(bad: object) -> None:
    with pytest.raises(InputError, match=r"^bw must be positive, got "):
        checks.positive(bad, "bw")
    with pytest.raises(InputError, match=r"^price must be a positive number, got "):
        checks.positive_number(bad, "price")


def test_positives_names_the_keyword_that_fails() -> None:
    checks.positives(flops=1e15, bw=3.35e12)
    with pytest.raises(InputError) as e:
        checks.positives(flops=1e15, bw=0.0)
    assert str(e.value) == "bw must be positive, got 0.0" and e.value.field == "bw"


def test_a_step_holds_every_sequence_in_flight() -> None:
    checks.batched_tokens(max_seqs=256, max_batched_tokens=256)  # one token each: enough
    with pytest.raises(InputError) as e:
        checks.batched_tokens(max_seqs=256, max_batched_tokens=255)
    assert str(e.value).startswith("max_batched_tokens (255) must be at least max_seqs (256)")
    assert e.value.field == "max_batched_tokens"
