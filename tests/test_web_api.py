"""The JSON API: every endpoint, bad input as 4xx naming the field (never 500), and a
schemathesis run over the OpenAPI schema with no server error."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", category=DeprecationWarning)

from fastapi.testclient import TestClient  # noqa: E402

from llm_roofline.web import create_app  # noqa: E402

APP = create_app()
client = TestClient(APP)
BODY = {
    "model": "llama-3.1-8b",
    "hardware": "h100-sxm",
    "chips": 1,
    "context_len": 4096,
    "batch": 16,
}


def test_page_and_assets_are_served_locally() -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<svg" in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # no CDN: every asset is ours
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/../app.py").status_code == 404


def test_catalog_endpoints() -> None:
    models = client.get("/api/models").json()
    assert any(m["id"] == "deepseek-v3" and m["attention"] == "mla" for m in models)
    hw = client.get("/api/hardware").json()
    assert any(h["id"] == "rubin" and h["status"] == "announced" for h in hw)


def test_report_has_the_curves_and_numbers() -> None:
    r = client.post("/api/report", json=BODY)
    assert r.status_code == 200
    out = r.json()
    assert len(out["step_vs_batch"]["batch"]) >= 150
    assert len(out["step_vs_context"]["context_len"]) >= 150
    a = out["at_batch"]
    assert a["bound"] in ("compute", "memory") and a["fits"] and a["regime"]
    assert a["t_step_s"] >= max(a["t_compute_s"], a["t_weights_s"] + a["t_kv_s"]) * 0.999
    assert out["frontier"]["frontier"] and out["cost_vs_batch"]["batch"]


def test_report_for_an_uploaded_config() -> None:
    from llm_roofline.catalog import model_entry

    cfg = model_entry("qwen3-8b").config
    r = client.post("/api/report", json={**BODY, "model": None, "config": cfg})
    assert r.status_code == 200 and r.json()["at_batch"]["t_step_s"] > 0


def test_predict_sweep_optimize() -> None:
    p = client.post(
        "/api/predict",
        json={
            "model": "qwen3-8b",
            "hardware": "l40s",
            "batch": 4,
            "input_len": 512,
            "output_len": 64,
            "mode": "continuous",
            "engine": "calibrated",
        },
    )
    assert p.status_code == 200 and p.json()["tpot_s"] > 0
    s = client.post(
        "/api/sweep",
        json={"model": "qwen3-8b", "hardware": "l40s", "batches": [1, 8], "contexts": [1024, 4096]},
    )
    assert s.status_code == 200 and len(s.json()["rows"]) == 4
    o = client.post(
        "/api/optimize",
        json={"model": "mixtral-8x7b", "hardware": "h100-sxm", "max_chips": 8, "tpot_ms": 20},
    )
    assert o.status_code == 200 and o.json()["best"]["tpot_s"] <= 0.02


@pytest.mark.parametrize(
    ("path", "body", "status", "field"),
    [
        ("/api/report", {**BODY, "model": "llama-9"}, 400, "model"),
        ("/api/report", {**BODY, "hardware": "h1000"}, 400, "hardware"),
        ("/api/report", {**BODY, "chips": 0}, 422, "chips"),
        ("/api/report", {**BODY, "batch": -1}, 422, "batch"),
        ("/api/report", {**BODY, "weight_dtype": "fp9"}, 400, "weight_dtype"),
        ("/api/report", {**BODY, "overlap": "some"}, 422, "overlap"),
        ("/api/report", {**BODY, "model": None}, 400, "model"),
        (
            "/api/report",
            {**BODY, "model": None, "config": {"model_type": "llama"}},
            400,
            "hidden_size",
        ),
        ("/api/report", {**BODY, "surprise": 1}, 422, "surprise"),
        (
            "/api/predict",
            {
                "model": "llama-3.1-70b",
                "hardware": "h100-sxm",
                "chips": 6,
                "tp": 6,  # given: 6 does not divide 64 heads (a default is never an error)
                "batch": 1,
                "input_len": 8,
                "output_len": 8,
            },
            400,
            "tp",
        ),
        (
            "/api/predict",
            {
                "model": "qwen3-8b",
                "hardware": "l40s",
                "batch": 1,
                "input_len": 8,
                "output_len": 8,
                "engine": "calibratd",
            },
            400,
            "engine",
        ),
        (
            "/api/sweep",
            {"model": "qwen3-8b", "hardware": "l40s", "batches": [], "contexts": [1]},
            422,
            "batches",
        ),
        (
            "/api/optimize",
            {"model": "llama-3.1-405b", "hardware": "rtx-4090", "max_chips": 2},
            400,
            "max_chips",
        ),
    ],
)
def test_bad_input_names_the_field(path: str, body: dict, status: int, field: str) -> None:
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    out = r.json()
    if status == 422:
        assert any(field in [str(x) for x in d["loc"]] for d in out["detail"])
    else:
        assert out["field"] == field or field in out["detail"]


@pytest.mark.parametrize("token", [b"NaN", b"Infinity", b"-Infinity"])
def test_non_finite_numbers_are_a_4xx_not_a_crash(token: bytes) -> None:
    # Python's json module accepts these tokens; the reply must still be a clean 4xx
    body = b'{"model": "qwen3-8b", "hardware": "h100-sxm", "batch": 1, "context": ' + token + b"}"
    r = client.post("/api/report", content=body, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, r.text
    assert "context" in r.text


def test_not_json_and_too_large() -> None:
    r = client.post(
        "/api/report", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    big = client.post(
        "/api/report", content=b"x" * 1_100_000, headers={"content-type": "application/json"}
    )
    assert big.status_code == 413 and big.json()["field"] == "body"


import schemathesis  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error_anywhere(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])


@pytest.mark.parametrize("config", ["hidden_size = 4096", [1, 2], 7])
def test_an_upload_that_is_not_a_config_object_is_refused(config: object) -> None:
    r = client.post("/api/report", json={**BODY, "model": None, "config": config})
    assert r.status_code in (400, 422), r.text
    assert "config" in r.text


def test_serve_listens_on_loopback_by_default() -> None:
    from llm_roofline.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1"


def test_the_server_reads_no_files_named_in_a_request(tmp_path: Path) -> None:
    # a chip record FILE.toml or a config.json path works on the command line, but over HTTP
    # only catalog ids (or records/configs sent in the body) are accepted
    record = tmp_path / "chip.toml"
    record.write_text("[mine]\nbf16_dense_tflops = 1\nmemory_capacity_gb = 1\n", "utf-8")
    for body, field in (
        ({"model": "llama-3.1-8b", "hardware": str(record)}, "hardware"),
        ({"model": str(tmp_path / "config.json"), "hardware": "h100-sxm"}, "model"),
    ):
        r = client.post("/api/report", json=body)
        assert r.status_code == 400 and r.json()["field"] == field
