"""Every API route declares the JSON it answers (`response_model`, web/schemas_*answers.py), so
that /openapi.json and /docs describe the answers as well as the questions; and declaring it
changes no answer: the route's own dict, encoded as FastAPI encoded it before any response
model, equals the body served (each number of the same JSON type: an int stays an int), and
no key of an answer is left undeclared (`Answer` lets an undeclared key through rather than
drop it: here none may be)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.encoders import jsonable_encoder
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

from llm_roofline.web import create_app
from llm_roofline.web.routes import api
from llm_roofline.web.routes_deployment import api_deployment
from llm_roofline.web.routes_economics import api_economics
from llm_roofline.web.routes_plan import api_plan
from llm_roofline.web.routes_simulate import api_simulate
from llm_roofline.web.routes_whatif import api_whatif

APP = create_app()
client = TestClient(APP)
ROUTERS = (api, api_deployment, api_simulate, api_plan, api_economics, api_whatif)
ROUTES = {r.path: r for a in ROUTERS for r in a.routes if isinstance(r, APIRoute)}

D = {"model": "llama-3.1-8b", "hardware": "h100-sxm"}
D70 = {"model": "llama-3.1-70b", "hardware": "h100-sxm", "chips": 8, "engine": "ideal"}
SIM = {**D, "input_len": 512, "output_len": 32}
PLAN = {**D, "hardware": ["h100-sxm"], "rate": 5, "input_len": 256, "output_len": 32}
PLAN |= {"ttft_p90_ms": 500, "tpot_p99_ms": 50, "max_chips": 2, "requests": 100}
# one request or more per route, between them reaching the nulls the answers can hold (no
# price, the ideal engine's missing range, no fleet, no price step, a cache that does not fit)
CASES: list[tuple[str, dict[str, Any] | None]] = [
    ("/api/models", None),
    ("/api/hardware", None),
    ("/api/options", None),
    ("/api/engines", None),
    ("/api/report", {**D, "context_len": 4096, "batch": 16}),
    ("/api/report", {**D, "engine": "ideal", "price_usd_per_hour": 0, "batch": 100_000}),
    ("/api/predict", {**D, "batch": 8, "input_len": 512, "output_len": 128}),
    ("/api/predict", {**D, "engine": "ideal", "batch": 8, "input_len": 512, "output_len": 0}),
    ("/api/sweep", {**D, "price_usd_per_hour": 0, "batches": [1, 100_000], "contexts": [1024]}),
    ("/api/optimize", {**D, "max_chips": 2, "tpot_ms": 20}),
    ("/api/optimize", {**D, "max_chips": 2, "tpot_ms": 0.01}),
    ("/api/simulate", {**SIM, "rate": 5, "requests": 30}),
    ("/api/simulate", {**SIM, "rate": 500, "requests": 50}),
    ("/api/simulate", {**SIM, "concurrency": 2, "requests": 10, "chips": 3, "disagg": "1:2"}),
    ("/api/plan", PLAN),
    ("/api/plan", {**PLAN, "tpot_p99_ms": 0.1}),
    ("/api/plan", {**PLAN, "max_chips": 4, "disagg": "yes"}),  # fleets of two pools
    ("/api/pricing", {**D70, "input_price": 3.0, "output_price": 15.0}),
    (
        "/api/pricing",
        {**D70, "input_price": 3.0, "output_price": 15.0, "cache_hit_price": 0.3}
        | {"long_context_threshold": 200_000, "active_params": 5e9, "long_input_price": 6},
    ),
    ("/api/cost-vs-context", {**D70, "chips": 2, "contexts": [1024, 1_000_000]}),
    ("/api/cache-tiers", {**D70, "chips": 2, "context_len": 1_000_000, "hold_s": [0, 10]}),
    ("/api/sensitivity", {**D, "context_len": 4096, "batch": 8, "tpot_ms": 20}),
    ("/api/sensitivity", {**D, "price_usd_per_hour": 0, "across_catalog": True, "max_chips": 1}),
    ("/api/fast-mode", {**D, "context_len": 4096, "batch": 64}),
]


def _schema(ref_or_schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in ref_or_schema:
        name = ref_or_schema["$ref"].rsplit("/", 1)[-1]
        return dict(spec["components"]["schemas"][name])
    return ref_or_schema


def test_every_route_documents_its_answer() -> None:
    spec = APP.openapi()
    assert set(spec["paths"]) == set(ROUTES)  # every API route is in the schema
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            schema = op["responses"]["200"]["content"]["application/json"]["schema"]
            top = _schema(schema, spec)
            if top.get("type") == "array":  # a list of rows: the rows are described
                top = _schema(top["items"], spec)
            assert top.get("properties"), (method, path, schema)
            assert top.get("description"), (method, path)  # each model says what it is


def _same(a: Any, b: Any, where: str = "$") -> None:
    """Equal, and of the same JSON type all the way down (1 is not 1.0 here)."""
    assert type(a) is type(b), f"{where}: {a!r} against {b!r}"
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def _undeclared(x: Any, where: str = "$") -> list[str]:
    """The keys an answer has that its model does not declare."""
    if isinstance(x, BaseModel):
        out = [f"{where}.{k}" for k in x.model_extra or {}]
        for k in type(x).model_fields:
            out += _undeclared(getattr(x, k), f"{where}.{k}")
        return out
    if isinstance(x, list):
        return [e for i, v in enumerate(x) for e in _undeclared(v, f"{where}[{i}]")]
    if isinstance(x, dict):
        return [e for k, v in x.items() for e in _undeclared(v, f"{where}.{k}")]
    return []


def _served(path: str, body: dict[str, Any] | None) -> Any:
    r = client.get(path) if body is None else client.post(path, json=body)
    assert r.status_code == 200, r.text
    return r.json()


def _own(path: str, body: dict[str, Any] | None) -> Any:
    """The route function's own answer, as FastAPI encoded it without a response model."""
    route = ROUTES[path]
    if body is None:
        return jsonable_encoder(route.endpoint())
    (param,) = route.dependant.body_params
    request_type: Any = param.field_info.annotation
    return jsonable_encoder(route.endpoint(TypeAdapter(request_type).validate_python(body)))


@pytest.mark.slow
@pytest.mark.parametrize(("path", "body"), CASES, ids=[f"{i}{p}" for i, (p, _) in enumerate(CASES)])
def test_the_response_model_changes_no_answer(path: str, body: dict[str, Any] | None) -> None:
    served = _served(path, body)
    own = _own(path, body)
    if path == "/api/plan":  # the seconds the search took: the one figure that is not repeatable
        own["searched"]["seconds"] = served["searched"]["seconds"]
    _same(served, own)
    answer = TypeAdapter(ROUTES[path].response_model).validate_python(served)
    assert _undeclared(answer) == []


def test_every_route_has_a_case() -> None:
    assert {p for p, _ in CASES} == set(ROUTES)
