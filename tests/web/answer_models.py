"""What the answer-model tests share (tests/web/test_schemas_*answers.py): one app's client,
a deployment's fields, a served answer, and where a model refuses a body."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from llm_roofline.web import create_app

client = TestClient(create_app())
D = {"model": "llama-3.1-8b", "hardware": "h100-sxm"}


def post_ok(path: str, body: dict[str, Any]) -> Any:
    """The JSON `path` serves for `body` (a 200)."""
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    return r.json()


def refused_at(model: Any, body: dict[str, Any]) -> tuple[Any, ...]:
    """The place of the one error `model` raises on `body`."""
    with pytest.raises(ValidationError) as info:
        model.model_validate(body)
    (err,) = info.value.errors()
    return tuple(err["loc"])
