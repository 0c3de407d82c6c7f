"""EP's all-to-all is sized by the busiest chip's tokens, as attention's collectives are
(issue 27, section 1: a step is timed on its busiest chip)."""

from __future__ import annotations

import pytest

import llm_roofline as lr
from llm_roofline.engine.parallel import CommModel, Parallelism


def _comm(batch: float) -> float:
    s = lr.decode_step(
        "deepseek-v3",
        "gb200",
        72,
        batch=batch,
        context_len=1,
        weight_dtype="fp8",
        parallel=Parallelism.of(72, 1, 1, 72),
        comm=CommModel(overlap="none"),
    )
    return float(s.t_comm)


def test_one_sequence_is_dispatched_by_the_chip_that_holds_it() -> None:
    # DeepSeek-V3 on 72 GB200, tp 1, ep 72, attention data parallel over 72: one sequence
    # lives on one GPU, which sends its token's hidden state to the other expert groups its
    # 8 experts fall in: 72 · (1 − (71/72)^8) · 71/72 = 7.51 of them, 7,168 values each, in
    # fp8 (1 byte) out and 16 bits (2 bytes) back, over NVLink (900 GB/s, 1 µs a message),
    # in each of the 58 MoE layers. The stage's mean, 1/72 of a token per GPU, was costed.
    hit = 72 * (1 - (71 / 72) ** 8) * 71 / 72
    expected = 58 * (2 * 1e-6 + hit * 7_168 * (1 + 2) / 900e9)  # 0.126 ms
    assert _comm(1) == pytest.approx(expected, rel=1e-9)
    # 72 sequences, one a GPU: the busiest GPU sends the same one token
    assert _comm(72) == pytest.approx(expected, rel=1e-9)
    # 73: one GPU holds two
    two = 58 * (2 * 1e-6 + 2 * hit * 7_168 * (1 + 2) / 900e9)
    assert _comm(73) == pytest.approx(two, rel=1e-9)


def test_an_even_spread_is_the_stage_mean() -> None:
    # 144 sequences over 72 groups are 2 a GPU: the busiest and the mean agree (2 tokens)
    hit = 72 * (1 - (71 / 72) ** 8) * 71 / 72
    assert _comm(144) == pytest.approx(58 * (2e-6 + 2 * hit * 7_168 * 3 / 900e9), rel=1e-9)
