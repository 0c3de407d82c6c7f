"""One pass, scheduled (`microbatch.py`): `schedule` choosing one or two micro-batches on terms
small enough to add by hand, and `run_pass` sharing sequences over data-parallel groups."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline.engine.microbatch import run_pass, schedule
from llm_roofline.engine.parallel import CommModel, CommOverlap, Parallelism
from llm_roofline.engine.pass_terms import TERMS, Resolved, make_plan
from llm_roofline.hardware.chip import System

from ..conftest import make_chip

SYSTEM = System(make_chip())


def _terms(matmul: float, weights: float, kv: float, comm: float) -> dict[str, float]:
    t = dict.fromkeys(TERMS, 0.0)
    t.update(t_matmul=matmul, t_weights=weights, t_kv=kv, t_comm=comm)
    return t


def _schedule(
    two: dict[str, float], comm_mode: CommOverlap = "auto", stages: int = 1
) -> lr.StepTime:
    # one micro-batch: compute 1, memory 3 + 1 = 4, communication 5: full overlap 4 + 5 = 9
    one = _terms(1.0, 3.0, 1.0, 5.0)
    return schedule(
        SCALAR, one, two, True, "full", comm_mode,
        stages=stages, batch=10.0, tokens_per_pass=1.0, system=SYSTEM,
    )  # fmt: skip


def test_auto_takes_two_micro_batches_only_when_faster() -> None:
    # two: the weights read twice (6) and the latency paid twice (5.2), hidden under the work:
    # max(max(1, 6 + 1), 5.2) = 7 < 9: two micro-batches
    step = _schedule(_terms(1.0, 6.0, 1.0, 5.2))
    assert float(step.t_step) == 7.0 and float(step.micro_batches) == 2.0
    assert step.single is not None and float(step.single.t_step) == 9.0
    assert float(step.one_batch.t_step) == 9.0
    # were the weights 9 a read: max(10, 5.2) = 10 > 9: one micro-batch, no `single`
    slower = _schedule(_terms(1.0, 9.0, 1.0, 5.2))
    assert float(slower.t_step) == 9.0 and float(slower.micro_batches) == 1.0
    assert slower.single is None


def test_two_batch_is_forced_and_stages_multiply() -> None:
    # "two-batch" takes two wherever possible, even when slower: max(10, 5.2) = 10
    forced = _schedule(_terms(1.0, 9.0, 1.0, 5.2), comm_mode="two-batch")
    assert float(forced.t_step) == 10.0 and float(forced.micro_batches) == 2.0
    # 3 pipeline stages in turn: every term and the step three times one stage's
    staged = _schedule(_terms(1.0, 9.0, 1.0, 5.2), stages=3)
    assert float(staged.t_step) == 27.0 and float(staged.t_weights) == 9.0
    # communication (15) above compute (3) and memory (12): communication bounds the step
    assert str(staged.bound_names) == "communication"


def test_whole_sequences_on_the_busiest_data_parallel_group(small_model: lr.ModelSpec) -> None:
    # 2 chips, tp 1: two data-parallel groups, no collectives between them
    chip = dataclasses.replace(make_chip(), scale_up_domain=8, scale_up_bw=100e9)
    system = System(chip, 2)
    r = Resolved(small_model, system, 2.0, 2.0, system.flops("bf16"), system.flops("bf16"))
    p = make_plan(r, Parallelism(2, tp=1).check(small_model), CommModel(), "full")
    # 3 sequences at 1,000 tokens: the busiest group holds ceil(3 / 2) = 2 whole ones,
    # KV 2 · 1,000 · 2,048 elements · 2 B / 1e12 B/s = 8.192e-6 s
    whole = run_pass(SCALAR, p, decode_seqs=3.0, decode_context=1000.0)
    assert float(whole.t_kv) == pytest.approx(8.192e-6)
    # averaged (continuous batching): 1.5 sequences, 6.144e-6 s
    mean = run_pass(ARRAY, p, decode_seqs=np.asarray(3.0), decode_context=1000.0,
                    whole_sequences=False)  # fmt: skip
    assert float(mean.t_kv) == pytest.approx(6.144e-6)
    assert float(whole.tokens) == 3.0  # in flight: all 3 sequences, one token each
