"""How a pass's terms combine into a time (`step_time.py`), on numbers small enough to add in
one's head, and the checks of the per-point inputs. (The three overlap modes on a real decode
step are checked in tests/engine/test_hand_checked.py.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline._core.errors import InputError
from llm_roofline.engine.step_time import (
    BOUND_NAMES,
    StepTime,
    bound_index,
    check_overlap,
    combine,
    combine_terms,
    new_step_time,
    nonneg_array,
    positive_array,
)
from llm_roofline.hardware.chip import System

from ..conftest import make_chip

# matmul 4, attention 1, weights 2, KV 3, communication 0.5 (any unit of time)
TERMS = (4.0, 1.0, 2.0, 3.0, 0.5)


def test_the_three_overlap_modes_by_hand() -> None:
    # full:   max(4 + 1, 2 + 3) + 0.5 = 5.5
    # per-op: max(4, 2) + max(1, 3) + 0.5 = 7.5
    # none:   4 + 1 + 2 + 3 + 0.5 = 10.5
    for xp in (SCALAR, ARRAY):
        assert float(combine(xp, *TERMS, "full")[0]) == 5.5
        assert float(combine(xp, *TERMS, "per-op")[0]) == 7.5
        assert float(combine(xp, *TERMS, "none")[0]) == 10.5
    # full <= per-op <= none for any terms: the ideal engine's default is the lowest
    rng = np.random.default_rng(0)
    t = rng.uniform(0, 1, (5, 200))
    full, _ = combine_terms(*t, "full")
    per_op, _ = combine_terms(*t, "per-op")
    none, _ = combine_terms(*t, "none")
    assert np.all(full <= per_op) and np.all(per_op <= none)


def test_two_micro_batches_hide_communication_under_the_work() -> None:
    # hidden: max(max(5, 5), 0.5) = 5 in full overlap; with communication 6: max(5, 6) = 6
    assert combine(SCALAR, *TERMS, "full", comm_hidden=True)[0] == 5.0
    assert combine(SCALAR, *TERMS[:4], 6.0, "full", comm_hidden=True)[0] == 6.0
    # element by element on arrays: hidden in the first, added in the second
    t, _ = combine_terms(*(np.full(2, x) for x in TERMS), "none", comm_hidden=np.array([1, 0]))
    assert list(t) == [10.0, 10.5]


def test_which_term_bounds_the_step() -> None:
    # compute wins a tie with memory; communication only when above both
    assert BOUND_NAMES[bound_index(SCALAR, 5.0, 5.0, 0.5)] == "compute"
    assert BOUND_NAMES[bound_index(SCALAR, 4.0, 5.0, 5.0)] == "memory"
    assert BOUND_NAMES[bound_index(SCALAR, 4.0, 5.0, 5.5)] == "communication"
    got = bound_index(ARRAY, np.array([5.0, 4.0, 4.0]), 5.0, np.array([0.5, 5.0, 5.5]))
    assert list(got) == [0, 1, 2]


def test_refusals_name_the_field() -> None:
    with pytest.raises(InputError, match=r"^overlap must be one of full, per-op, none, got 'max'$"):
        check_overlap("max")
    assert check_overlap("per-op") == "per-op"
    with pytest.raises(InputError, match=r"^batch must be positive and finite, got ") as e:
        positive_array([1, 0], "batch")
    assert e.value.field == "batch"
    # 1e12 is the largest batch or context of any real deployment
    with pytest.raises(InputError, match=r"^context_len must be at most 1e\+12, got 2e\+12$"):
        positive_array(2e12, "context_len")
    with pytest.raises(InputError, match=r"^batch is empty$"):
        positive_array([], "batch")
    assert float(nonneg_array(0, "cached_len")) == 0.0
    with pytest.raises(InputError, match=r"^cached_len must be zero or positive and finite"):
        nonneg_array(-1, "cached_len")
    with pytest.raises(InputError, match=r"^the inputs are too large: a step time overflows"):
        combine(SCALAR, float("inf"), 0.0, 0.0, 0.0, 0.0, "full")


def test_a_step_time_and_what_it_derives() -> None:
    values = {
        "t_matmul": np.asarray(4.0),
        "t_attn": np.asarray(1.0),
        "t_weights": np.asarray(2.0),
        "t_kv": np.asarray(3.0),
        "t_comm": np.asarray(0.0),
        "t_step": np.asarray(5.0),
        "bound": np.asarray(0, dtype=np.int8),
        "batch": np.asarray(10.0),
        "tokens_per_pass": np.asarray(100.0),
        "overlap": "full",
        "system": System(make_chip()),
    }
    fast = new_step_time(
        {
            **{f.name: f.default for f in dataclasses.fields(StepTime) if f.name not in values},
            "micro_batches": np.ones(()),
            "t_comm_latency": np.zeros(()),
            "t_matmul_prefill": np.zeros(()),
            "t_attn_prefill": np.zeros(()),
            **values,
        }
    )
    slow = StepTime(**values)  # type: ignore[arg-type]
    for f in dataclasses.fields(StepTime):
        assert np.array_equal(getattr(fast, f.name), getattr(slow, f.name)), f.name
    # 10 sequences · 100 tokens = 1,000 tokens in 5 s: 200 tokens/s; compute 5, memory 5
    assert float(fast.tokens) == 1000 and float(fast.tokens_per_s) == 200
    assert float(fast.t_compute) == 5 and float(fast.t_memory) == 5
    assert str(fast.bound_names) == "compute"
    assert fast.one_batch is fast
