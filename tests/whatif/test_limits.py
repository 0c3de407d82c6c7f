"""The what-if questions' bounds (whatif/limits.py), stated once and used by the library, the
command line and the page's schemas alike."""

from __future__ import annotations

import pytest

from llm_roofline import InputError, deployment
from llm_roofline.whatif import limits
from llm_roofline.whatif.sensitivity import sensitivity


def test_the_bounds_are_a_small_change_and_a_bounded_search() -> None:
    # +10% by default; from +0.1% (below it a step time's change is lost in rounding) to +100%
    assert (limits.DEFAULT_STEP, limits.MIN_STEP, limits.MAX_STEP) == (0.10, 0.001, 1.0)
    assert limits.MAX_CHIPS == 1024


@pytest.mark.parametrize("step", [0.0005, 1.5])
def test_sensitivity_refuses_a_step_outside_them(step: float) -> None:
    dep = deployment("llama-3.1-8b", "h100-sxm", engine="ideal")
    with pytest.raises(InputError, match=r"step must be from 0\.001 to 1 ") as e:
        sensitivity(dep, batch=8, step=step)
    assert e.value.field == "step"
