"""web/schemas_whatif.py: the what-if routes' request bodies; each bound refused with a
ValidationError naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from llm_roofline.web.schemas_whatif import FastModeRequest, SensitivityRequest

D = {"model": "llama-3.1-8b"}


def _refused(cls: type[BaseModel], **body: Any) -> tuple[tuple[Any, ...], str, str]:
    with pytest.raises(ValidationError) as info:
        cls.model_validate({**D, **body})
    (err,) = info.value.errors()
    return err["loc"], err["type"], err["msg"]


def test_sensitivity_steps_from_a_tenth_of_a_percent_to_a_hundred() -> None:
    req = SensitivityRequest.model_validate(D)
    assert (req.step_pct, req.batch, req.context_len, req.max_chips) == (10.0, 1, 4096, 8)
    assert SensitivityRequest.model_validate({**D, "step_pct": 0.1}).step_pct == 0.1
    assert SensitivityRequest.model_validate({**D, "step_pct": 100}).step_pct == 100
    assert _refused(SensitivityRequest, step_pct=0.05) == (
        ("step_pct",),
        "greater_than_equal",
        "Input should be greater than or equal to 0.1",
    )
    assert _refused(SensitivityRequest, step_pct=101)[:2] == (("step_pct",), "less_than_equal")
    assert _refused(SensitivityRequest, max_chips=129)[2] == (
        "Input should be less than or equal to 128"  # the page's limit
    )
    assert _refused(SensitivityRequest, tpot_ms=0)[:2] == (("tpot_ms",), "greater_than")


@pytest.mark.parametrize(
    ("body", "field", "kind"),
    [
        ({"acceptance": 1.5}, "acceptance", "less_than_equal"),  # a probability
        ({"speedup": 0.5}, "speedup", "greater_than_equal"),  # a speed-up is at least 1
        ({"gamma": 17}, "gamma", "less_than_equal"),
        ({"gamma": 2.0}, "gamma", "int_type"),  # strict: tokens drafted are counted
        ({"draft": ""}, "draft", "string_too_short"),
        ({"max_chips": 1025}, "max_chips", "less_than_equal"),  # sensitivity.MAX_CHIPS
        ({"speedup": float("inf")}, "speedup", "finite_number"),
    ],
)
def test_fast_mode_bounds(body: dict[str, Any], field: str, kind: str) -> None:
    assert _refused(FastModeRequest, **body)[:2] == ((field,), kind)


def test_fast_mode_defaults() -> None:
    req = FastModeRequest.model_validate(D)
    assert (req.speedup, req.gamma, req.acceptance, req.draft, req.max_chips) == (
        2.5,
        1,
        0.85,
        "auto",
        None,
    )
