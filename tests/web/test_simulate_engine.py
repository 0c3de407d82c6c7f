"""`/api/simulate`'s serving-engine fields (`web/schemas.SimulateRequest`, the route's
`serving_engines.serving_engine` call): a bad one is a 4xx naming it, a good one reaches the
simulator and the answer shows the settings used."""

from __future__ import annotations

import warnings

import pytest

warnings.filterwarnings("ignore", category=DeprecationWarning)

from fastapi.testclient import TestClient  # noqa: E402

from llm_roofline.web import create_app, routes_simulate  # noqa: E402

client = TestClient(create_app())
ONE = {
    "model": "llama-3.1-8b",
    "hardware": "h100-sxm",
    "input_len": 256,
    "output_len": 4,
    "concurrency": 1,
    "requests": 3,
}


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"serving_engine": "tgi"}, "serving_engine"),
        ({"memory_share": 1.5}, "memory_share"),
        ({"memory_share": 0}, "memory_share"),
        ({"prefix_hit_rate": 1}, "prefix_hit_rate"),
        ({"schedule": "random"}, "schedule"),
        ({"request_overhead_ms": -1}, "request_overhead_ms"),
        ({"scheduler_steps": 0}, "scheduler_steps"),
        ({"chunked_prefill": "maybe"}, "chunked_prefill"),
    ],
)
def test_bad_engine_fields_are_named(extra: dict[str, object], field: str) -> None:
    r = client.post("/api/simulate", json={**ONE, **extra})
    assert r.status_code == 422, r.text
    out = r.json()
    assert out["field"] == field, out


def test_the_engine_serves_and_is_shown() -> None:
    """LMDeploy on an H100: 1,024 sequences (lmdeploy/utils.py get_max_batch_size), 0.8 of
    the free memory; a request's fixed cost of 40 ms instead of none adds 40 ms to each TTFT
    alone."""
    assert routes_simulate.api_simulate is not None
    base = client.post(
        "/api/simulate", json={**ONE, "serving_engine": "lmdeploy", "request_overhead_ms": 0}
    )
    assert base.status_code == 200, base.text
    e = base.json()["serving_engine"]
    assert (e["name"], e["max_seqs"], e["memory_share"], e["memory_of"]) == (
        "lmdeploy",
        1024,
        0.8,
        "free",
    )
    slow = client.post(
        "/api/simulate",
        json={**ONE, "serving_engine": "lmdeploy", "request_overhead_ms": 40, "max_seqs": 8},
    )
    assert slow.status_code == 200, slow.text
    s = slow.json()
    assert s["serving_engine"]["max_seqs"] == 8
    assert s["ttft_p50_s"] - base.json()["ttft_p50_s"] == pytest.approx(0.040, abs=1e-9)


def test_plan_refuses_an_unknown_serving_engine_naming_it() -> None:
    """`/api/plan` takes the serving engine its simulations run on; an unknown one is a 422
    naming the field, before any simulation."""
    plan = {
        "model": "llama-3.1-8b",
        "hardware": ["h100-sxm"],
        "rate": 1.0,
        "input_len": 256,
        "output_len": 16,
        "ttft_p90_ms": 500,
        "tpot_p99_ms": 50,
        "serving_engine": "tgi",
    }
    r = client.post("/api/plan", json=plan)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "serving_engine"


def test_random_lengths_with_a_range_ratio_reach_the_simulator() -> None:
    """`length_dist: random` with `range_ratio` (vllm bench serve's --random-range-ratio):
    accepted, and a ratio outside [0, 1], or one given with another distribution, is a 422
    naming `range_ratio`."""
    ok = {**ONE, "requests": 20, "length_dist": "random", "range_ratio": 0.5}
    r = client.post("/api/simulate", json=ok)
    assert r.status_code == 200, r.text
    for bad in ({**ok, "range_ratio": 1.5}, {**ok, "length_dist": "normal"}):
        r = client.post("/api/simulate", json=bad)
        assert r.status_code in (400, 422), r.text
        assert r.json()["field"] == "range_ratio", r.json()
