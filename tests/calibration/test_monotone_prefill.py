"""A calibrated prefill never gets faster as its prompt grows (issue 27, section 1).

An engine can always keep the cheaper of its schedules (one micro-batch, communication on the
critical path; or two, which hide it), so a longer prompt, which adds work to every term, can
never take less time. The calibrated engine used to follow the ideal's choice of schedule:
where the ideal switched to two micro-batches, the calibrated time fell (Mixtral 8x7B on two
H100 at ep 2: 54.0 ms at 1,900 prompt tokens, 47.0 ms at 1,910).
"""

from __future__ import annotations

import numpy as np
import pytest

import llm_roofline as lr

# expert-parallel splits (where the two schedules differ) and dense ones
CASES = [
    ("mixtral-8x7b", "h100-sxm", 2),
    ("mixtral-8x7b", "h100-sxm", 4),
    ("qwen3-30b-a3b", "h100-sxm", 2),
    ("mixtral-8x22b", "mi300x", 8),
    ("deepseek-v3", "h200", 8),
    ("llama-3.1-8b", "h100-sxm", 1),
    ("llama-3.1-70b", "h100-sxm", 8),
]


@pytest.mark.parametrize(("model", "hardware", "chips"), CASES)
def test_calibrated_prefill_is_non_decreasing_in_prompt_length(
    model: str, hardware: str, chips: int
) -> None:
    d = lr.deployment(model, hardware, chips)
    prompt = np.arange(16.0, 16_384.0, 3.0)  # a fine grid: every third length
    for batch in (1.0, 4.0):
        t, low, high = d.time(d.prefill(batch, prompt), is_prefill=True)
        for name, x in (("time", t), ("low", low), ("high", high)):
            drops = np.flatnonzero(np.diff(x) < 0)
            assert drops.size == 0, (name, batch, prompt[drops[:3]])


def test_mixtral_on_two_h100_prefill_does_not_fall_at_the_schedule_switch() -> None:
    d = lr.deployment("mixtral-8x7b", "h100-sxm", 2)
    assert d.split_text().startswith("tp 2 · pp 1 · ep 2")
    (t_1900, t_1910), _, _ = d.time(d.prefill(1.0, np.asarray([1900.0, 1910.0])), is_prefill=True)
    assert t_1910 >= t_1900
    # and the ideal switches schedule between them, so the case still tests the switch
    ideal = d.prefill(1.0, np.arange(1800.0, 2100.0))
    assert set(np.unique(ideal.micro_batches).tolist()) == {1.0, 2.0}
