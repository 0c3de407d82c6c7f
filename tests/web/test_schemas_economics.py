"""web/schemas_economics.py: the economics routes' request bodies; every bound refused with a
ValidationError naming the field (the app's 422 names the last part of the error's location)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from llm_roofline.web.schemas_economics import (
    POINTS,
    CacheTiersRequest,
    CostVsContextRequest,
    PricingRequest,
)

D = {"model": "llama-3.1-8b"}


def _refused(cls: type[BaseModel], **body: Any) -> tuple[tuple[Any, ...], str, str]:
    """The one error of a refused body: its location, type and message."""
    with pytest.raises(ValidationError) as info:
        cls.model_validate({**D, **body})
    (err,) = info.value.errors()
    return err["loc"], err["type"], err["msg"]


def test_pricing_defaults() -> None:
    req = PricingRequest.model_validate({**D, "input_price": 3, "output_price": 15})
    assert (req.context_len, req.cache_hit_price, req.ratio) == (4096, None, None)


@pytest.mark.parametrize(
    ("body", "field", "kind"),
    [
        # a price from a billionth of a dollar per million tokens: zero is refused
        ({"input_price": 0}, "input_price", "greater_than_equal"),
        ({"output_price": float("nan")}, "output_price", "finite_number"),
        ({"output_price": 2e6}, "output_price", "less_than_equal"),  # up to a million
        ({"long_context_threshold": 0.5}, "long_context_threshold", "greater_than_equal"),
        ({"price": 3}, "price", "extra_forbidden"),  # a field it does not have
    ],
)
def test_pricing_bounds(body: dict[str, Any], field: str, kind: str) -> None:
    prices = {"input_price": 1, "output_price": 2}
    assert _refused(PricingRequest, **prices | body)[:2] == ((field,), kind)


def test_contexts_are_whole_numbers_of_tokens_within_bounds() -> None:
    ok = CostVsContextRequest.model_validate({**D, "contexts": [1024, 4096.0]})
    assert ok.contexts == [1024.0, 4096.0]  # 4096.0 is a whole number
    assert _refused(CostVsContextRequest, contexts=[1024, 1.5]) == (
        ("contexts",),
        "value_error",
        "Value error, item 1 is 1.5: contexts (tokens) must be whole numbers of tokens",
    )
    assert _refused(CostVsContextRequest, contexts=[0])[2] == (
        "Value error, item 0 is 0.0: contexts (tokens) must be from 1 to 1e+09"
    )
    assert POINTS == 200
    assert _refused(CostVsContextRequest, contexts=[1024.0] * 201)[:2] == (
        ("contexts",),
        "too_long",
    )


def test_hold_times_from_zero_and_finite() -> None:
    ok = CacheTiersRequest.model_validate({**D, "context_len": 100, "hold_s": [0, 86400]})
    assert ok.hold_s == [0.0, 86400.0]
    assert _refused(CacheTiersRequest, context_len=100, hold_s=[-1])[2] == (
        "Value error, item 0 is -1.0: hold times (s) must be from 0 to 1e+10"
    )
    assert _refused(CacheTiersRequest, context_len=100, hold_s=[1, float("inf")])[2] == (
        "Value error, item 1 is inf: hold times (s) must be from 0 to 1e+10"
    )
    assert _refused(CacheTiersRequest)[:2] == (("context_len",), "missing")  # required here
