"""The JSON API: every endpoint, bad input as 4xx naming the field (never 500), and a
schemathesis run over the OpenAPI schema with no server error."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", category=DeprecationWarning)

from fastapi.testclient import TestClient  # noqa: E402

from llm_roofline.planning.fleet_plan import BEST_KEYS  # noqa: E402
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


def _assets(html: str) -> list[str]:
    """Every script, stylesheet and icon a page of HTML loads."""
    import re

    return re.findall(r'<(?:script|link)[^>]*?(?:src|href)="([^"]+)"', html)


def test_page_and_assets_are_served_locally() -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'id="c_batch"' in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # no CDN: every asset is ours
    assets = _assets(page.text)
    assert "/static/vendor/plotly.min.js" in assets and "/static/app.js" in assets
    for url in assets:
        if url.startswith("data:"):
            continue
        assert url.startswith("/static/"), url
        r = client.get(url)
        assert r.status_code == 200 and r.content, url
    # plotly.js as the plotly package ships it
    plotly = client.get("/static/vendor/plotly.min.js")
    assert plotly.headers["content-type"].startswith("text/javascript")
    assert plotly.text.startswith("/**") and "plotly.js" in plotly.text[:200]
    for bad in ("/static/../app.py", "/static/swagger/index.html", "/static/nope.js"):
        assert client.get(bad).status_code == 404, bad


def test_docs_work_offline() -> None:
    """/docs is Swagger UI with every asset served here (the package's copy), none from a CDN,
    reading a schema its Swagger UI can draw: the API's own, paths and all."""
    import re

    page = client.get("/docs")
    assert page.status_code == 200
    urls = re.findall(r"https?://[^\s\"'<>]+", page.text)
    assert urls == [], urls  # no absolute URL at all: everything is same-origin
    assets = _assets(page.text)
    assert len(assets) >= 3  # the script, the stylesheet, the icon
    for url in assets:
        assert url.startswith("/"), url
        r = client.get(url)
        assert r.status_code == 200 and len(r.content) > 100, url
    schema_url = re.search(r"url: '([^']+)'", page.text)
    assert schema_url is not None and schema_url.group(1) == "/openapi.json"
    # Swagger UI 5 reads the OpenAPI 3.1 FastAPI writes (4.x cannot: "Unable to render")
    from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

    assert int(str(swagger_ui_path).rsplit("swagger-ui-", 1)[-1].split(".")[0]) >= 5
    assert client.get("/redoc").status_code == 404  # no second docs page from a CDN


def test_options_name_the_fields_values() -> None:
    from llm_roofline import OVERLAP_MODES
    from llm_roofline._core.dtypes import get_dtype

    opts = client.get("/api/options").json()
    assert opts["overlap"] == list(OVERLAP_MODES)
    assert {"bf16", "fp8", "q4_k_m"} <= set(opts["dtypes"])
    for d in opts["dtypes"]:  # each one a deployment accepts
        assert get_dtype(d).name == d
    r = client.post("/api/report", json={**BODY, "overlap": opts["overlap"][-1]})
    assert r.status_code == 200 and r.json()["deployment"]["overlap"] == opts["overlap"][-1]


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


def test_the_batch_axis_ends_near_what_fits() -> None:
    """The batch axis ends 30% past the largest batch that fits (the span beyond it shaded, not
    dwarfing what can run), holds that batch itself, and starts at 1 with points spread by
    ratio too (a log axis draws smooth). Llama 3.1 8B on one H100 at 4,096 tokens: the library's
    largest batch, asked directly."""
    from llm_roofline.deploy.deployment import deployment

    fit = int(deployment("llama-3.1-8b", "h100-sxm", 1).max_batch(4096))
    body = {**BODY, "model": "llama-3.1-8b", "hardware": "h100-sxm", "chips": 1}
    body["context_len"] = 4096
    B = client.post("/api/report", json=body).json()["step_vs_batch"]["batch"]
    assert B[0] == 1 and fit in B and max(B) == math.ceil(1.3 * fit)
    assert B == sorted(set(B))
    assert sum(b <= 10 for b in B) == 10  # every batch of 1..10: the log axis's first decade


def test_report_for_an_uploaded_config() -> None:
    from llm_roofline.model.checkpoints import model_entry

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


@pytest.mark.slow
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


# ---- /api/simulate and /api/plan (docs/planning.md) -----------------------------------------

SIM = {"model": "llama-3.1-8b", "hardware": "h100-sxm", "input_len": 512, "output_len": 64}
# `llm-roofline simulate --json`'s keys (tests/sim/test_simulate.py, docs/planning.md)
SIM_KEYS = {
    *(f"{m}_{q}_s" for m in ("ttft", "tpot", "e2e") for q in ("p50", "p90", "p99", "mean")),
    "output_tokens_per_s",
    "request_throughput_rps",
    "goodput_rps",
    "capacity_rps",
    "stable",
    "offered_rps",
    "preemptions",
    "kv_tokens_per_instance",
    "deployment",
    "workload",
}


def _strict_json(text: str) -> object:
    """The body as JSON, refusing NaN and Infinity (which json.loads would accept)."""
    import json

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} in a JSON body")

    return json.loads(text, parse_constant=refuse)


def test_simulate_has_the_contract_the_curve_and_the_timeline() -> None:
    r = client.post(
        "/api/simulate",
        json={**SIM, "rate": 10, "requests": 300, "slo_ttft_ms": 1000, "slo_tpot_ms": 100},
    )
    assert r.status_code == 200, r.text
    d = _strict_json(r.text)
    assert isinstance(d, dict)
    assert SIM_KEYS <= d.keys(), SIM_KEYS - d.keys()
    assert d["stable"] is True and d["offered_rps"] == 10 and d["requests"] == 300
    assert d["disaggregated"] is False and d["prefill_deployment"] is None
    # alone, a request takes 17 ms to its first token and 8 ms a token: every one meets
    # 1 s and 100 ms at 10 requests/s, so goodput is the throughput
    assert d["goodput_rps"] == pytest.approx(d["request_throughput_rps"])
    assert d["ttft_p50_s"] <= d["ttft_p90_s"] <= d["ttft_p99_s"]
    # the curve: Poisson rates at fractions of the capacity, percentiles growing with load
    curve = d["latency_vs_load"]
    assert len(curve) >= 5
    rates = [row["rate_rps"] for row in curve]
    assert rates == sorted(rates) and rates[-1] < d["capacity_rps"]
    for row in curve:
        assert row["rate_rps"] == pytest.approx(row["load"] * row["capacity_rps"])
        assert row["tpot_p90_s"] > 0 and row["ttft_p90_s"] > 0
    assert curve[-1]["tpot_p90_s"] > curve[0]["tpot_p90_s"]
    # the timeline: at most 300 points, four series of one length, time in order
    tl = d["timeline"]
    n = len(tl["t_s"])
    assert 10 <= n <= 300
    assert all(len(tl[k]) == n for k in ("waiting", "running", "kv_share"))
    assert tl["t_s"] == sorted(tl["t_s"])
    assert all(0 <= x <= 1 for x in tl["kv_share"]) and max(tl["running"]) >= 1


def test_simulate_at_near_zero_load_is_one_request_alone() -> None:
    """Arrivals 100 s apart on average (each finds the server empty): the percentiles are one
    request's, as `predict --mode static --batch 1` gives them, an independent engine call,
    plus the default engine's (vLLM's) fixed cost a request and its time in the front end,
    alone there, as shipped (data/serving_costs.toml; its cost a step, also added, is 0
    there)."""
    from llm_roofline.deploy.deployment import deployment
    from llm_roofline.sim.serving_engines import fixed_costs

    r = client.post("/api/simulate", json={**SIM, "rate": 0.01, "requests": 20})
    assert r.status_code == 200, r.text
    d = r.json()
    dep = deployment("llama-3.1-8b", "h100-sxm", 1, engine="calibrated")
    one = dep.serve(batch=1, input_len=512, output_len=64, mode="static")
    per_request, per_step, front, _ = fixed_costs("vllm")
    ttft = one.ttft_s + per_request + front + per_step
    assert d["ttft_p50_s"] == pytest.approx(ttft, rel=0.02)
    assert d["tpot_p50_s"] == pytest.approx(one.tpot_s + per_step, rel=0.02)
    e2e = one.request_latency_s + per_request + front + 64 * per_step
    assert d["e2e_p50_s"] == pytest.approx(e2e, rel=0.02)


def test_simulate_unstable_gives_the_percentiles_of_its_requests() -> None:
    """Above capacity the run is `stable: false` and, as a benchmark reports it (issue 27),
    its percentiles are those of the requests simulated, with a warning that they grow with
    the run's length; the served rate is at most the capacity."""
    r = client.post("/api/simulate", json={**SIM, "rate": 500, "requests": 2000})
    assert r.status_code == 200, r.text
    d = _strict_json(r.text)
    assert isinstance(d, dict)
    assert d["stable"] is False and d["offered_rps"] == 500 and d["capacity_rps"] < 500
    for key in SIM_KEYS:
        if key.startswith(("ttft_", "tpot_", "e2e_")):
            assert isinstance(d[key], float) and d[key] > 0, key
    assert any("grow with the run's length" in w for w in d["warnings"])
    assert d["request_throughput_rps"] <= 1.05 * d["capacity_rps"]


@pytest.mark.slow
def test_simulate_closed_loop_and_disaggregated() -> None:
    from llm_roofline.deploy.deployment import deployment
    from llm_roofline.sim.serving_engines import fixed_costs

    # one client: its requests back to back, each alone (predict's static batch 1)
    r = client.post("/api/simulate", json={**SIM, "concurrency": 1, "requests": 5})
    assert r.status_code == 200, r.text
    d = r.json()
    one = deployment("llama-3.1-8b", "h100-sxm", 1, engine="calibrated").serve(
        batch=1, input_len=512, output_len=64, mode="static"
    )
    assert d["offered_rps"] is None and d["stable"] is True
    # plus the default engine's (vLLM's) fixed costs as shipped (data/serving_costs.toml),
    # its front end's included (one client: never a queue there)
    per_request, per_step, front, _ = fixed_costs("vllm")
    e2e = one.request_latency_s + per_request + front + 64 * per_step
    assert d["e2e_p50_s"] == pytest.approx(e2e, rel=0.02)
    # one prefill and two decode instances, each one chip
    r = client.post("/api/simulate", json={**SIM, "rate": 5, "requests": 200, "disagg": "1:2"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["disaggregated"] is True
    assert (d["prefill_instances"], d["decode_instances"]) == (1, 2)
    assert d["prefill_deployment"]["chips"] == 1 and d["deployment"]["chips"] == 2


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({**SIM, "rate": -1}, 422, "rate"),
        ({**SIM, "rate": 1, "concurrency": 2}, 400, "rate"),  # not both
        (SIM, 400, "rate"),  # neither
        ({**SIM, "rate": 1, "requests": 0}, 422, "requests"),
        ({**SIM, "rate": 1, "requests": 20_001}, 422, "requests"),
        ({**SIM, "rate": 1, "slo_ttft_ms": 0}, 422, "slo_ttft_ms"),
        ({**SIM, "rate": 1, "slo_tpot_ms": -5}, 422, "slo_tpot_ms"),
        ({**SIM, "rate": 1, "disagg": "1:x"}, 400, "disagg"),
        ({**SIM, "rate": 1, "disagg": "0:2"}, 400, "disagg"),
        ({**SIM, "rate": 1, "length_dist": "zipf"}, 422, "length_dist"),
        ({**SIM, "rate": 1, "router": "random"}, 422, "router"),
        ({**SIM, "rate": 1, "max_seqs": 512, "max_batched_tokens": 256}, 400, "max_batched_tokens"),
        ({**SIM, "rate": 1, "input_len": 200_000}, 400, "input_len"),  # over the context
        ({**SIM, "rate": "fast"}, 422, "rate"),
        ({**SIM, "concurrency": 2, "arrival": "gamma"}, 400, "arrival"),
        ({**SIM, "rate": 1, "model": "llama-9"}, 400, "model"),
        ({**SIM, "rate": 1, "context_len": 4096}, 422, "context_len"),  # not a traffic's
        # 20,000 requests of 50,000 tokens each: over what one web request may simulate
        ({**SIM, "rate": 1, "requests": 20_000, "output_len": 50_000}, 400, "requests"),
        # 64 instances of 256 sequences: a capacity run of 330,000 requests, too long
        ({**SIM, "rate": 1, "chips": 64, "replicas": 64}, 400, "max_seqs"),
        ({**SIM, "rate": 1, "chips": 128, "replicas": 128, "max_seqs": 1}, 400, "replicas"),
    ],
)
def test_simulate_bad_input_names_the_field(body: dict, status: int, field: str) -> None:
    r = client.post("/api/simulate", json=body)
    assert r.status_code == status, r.text
    out = r.json()
    assert out["field"] == field, out
    if status == 422:
        assert any(field in [str(x) for x in d["loc"]] for d in out["detail"])


PLAN = {
    "model": "llama-3.1-8b",
    "hardware": ["h100-sxm"],
    "rate": 10,
    "input_len": 512,
    "output_len": 128,
    "ttft_p90_ms": 500,
    "tpot_p99_ms": 50,
    "max_chips": 8,
    "requests": 500,
}


def test_plan_finds_a_fleet_within_the_targets() -> None:
    from llm_roofline.hardware.catalog import get_hardware

    r = client.post("/api/plan", json=PLAN)
    assert r.status_code == 200, r.text
    d = _strict_json(r.text)
    assert isinstance(d, dict)
    b = d["best"]
    assert d["reason"] is None and set(BEST_KEYS) <= b.keys(), b
    assert b["hardware"] == "h100-sxm" and 1 <= b["chips"] <= 8
    assert b["ttft_p90_s"] <= 0.5 and b["tpot_p99_s"] <= 0.05 and b["capacity_rps"] > 10
    # cost: the chips at the catalog's price per chip-hour; per million output tokens, that
    # hour over the 10 × 128 × 3600 output tokens the rate brings in an hour
    per_chip_hour = get_hardware("h100-sxm").price_usd_per_s * 3600
    assert b["usd_per_hour"] == pytest.approx(b["chips"] * per_chip_hour)
    tokens_per_hour = 10 * 128 * 3600
    want = b["usd_per_hour"] / tokens_per_hour * 1e6
    assert b["usd_per_million_output_tokens"] == pytest.approx(want)
    assert d["candidates"] and all("meets_slo" in c for c in d["candidates"])


def test_plan_impossible_target_gives_the_reason() -> None:
    # one H100 streams Llama 3.1 8B's 16 GB of weights at 3.35 TB/s in 4.8 ms at best, eight
    # in 0.6 ms before communication: no fleet of 8 reaches a 0.1 ms TPOT
    r = client.post("/api/plan", json={**PLAN, "tpot_p99_ms": 0.1})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["best"] is None
    assert isinstance(d["reason"], str) and "tpot" in d["reason"].lower(), d["reason"]


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({**PLAN, "hardware": []}, 422, "hardware"),
        ({**PLAN, "hardware": ["h100-sxm"] * 7}, 422, "hardware"),
        ({**PLAN, "hardware": ["h1000"]}, 400, "hardware"),
        ({**PLAN, "hardware": ["gaudi2"]}, 400, "hardware"),  # no price: plan ranks by cost
        ({**PLAN, "hardware": "h100-sxm"}, 422, "hardware"),  # a list of ids
        ({**PLAN, "rate": 0}, 422, "rate"),
        ({**PLAN, "ttft_p90_ms": -1}, 422, "ttft_p90_ms"),
        ({**PLAN, "max_chips": 1025}, 422, "max_chips"),
        ({**PLAN, "disagg": "maybe"}, 422, "disagg"),
        ({**PLAN, "weight_dtype": "fp9"}, 400, "weight_dtype"),
        ({**PLAN, "engine": "calibratd"}, 400, "engine"),
        ({**PLAN, "model": "llama-9"}, 400, "model"),
        ({**PLAN, "model": None}, 400, "model"),
    ],
)
def test_plan_bad_input_names_the_field(body: dict, status: int, field: str) -> None:
    r = client.post("/api/plan", json=body)
    assert r.status_code == status, r.text
    assert r.json()["field"] == field, r.text


def test_plan_reads_no_files_named_in_a_request(tmp_path: Path) -> None:
    record = tmp_path / "chip.toml"
    record.write_text("[mine]\nbf16_dense_tflops = 1\nmemory_capacity_gb = 1\n", "utf-8")
    for body, field in (
        ({**PLAN, "hardware": [str(record)]}, "hardware"),
        ({**PLAN, "model": str(tmp_path / "config.json")}, "model"),
    ):
        r = client.post("/api/plan", json=body)
        assert r.status_code == 400 and r.json()["field"] == field, r.text


# ---- the page's review: price 0, the frontier's note, the context's warning, per user -------


def test_price_zero_is_hardware_you_own() -> None:
    """`--price 0` on the command line is hardware you own: no $ per token. The API takes it
    too: no $ figure (null, never NaN), the report saying why; a search ranked by cost names
    the field."""
    body = {**BODY, "price_usd_per_hour": 0}
    r = client.post("/api/report", json=body)
    assert r.status_code == 200, r.text
    d = _strict_json(r.text)
    assert isinstance(d, dict)
    assert d["at_batch"]["usd_per_million_tokens"] is None
    assert d["cost_vs_batch"] is None and d["frontier"] is None
    assert "hardware you own" in d["cost_note"] and "hardware you own" in d["frontier_note"]
    # the times are the catalog chip's: a price moves no time
    priced = client.post("/api/report", json=BODY).json()
    assert d["at_batch"]["t_step_s"] == priced["at_batch"]["t_step_s"]
    own = {k: v for k, v in body.items() if k != "context_len"}
    p = client.post(
        "/api/predict",
        json={**own, "batch": 4, "input_len": 512, "output_len": 64, "mode": "static"},
    )
    assert p.status_code == 200, p.text
    out = _strict_json(p.text)
    assert isinstance(out, dict) and out["usd_per_million_output_tokens"] is None
    searched = {k: v for k, v in own.items() if k != "batch"}
    o = client.post("/api/optimize", json={**searched, "max_chips": 2})
    assert o.status_code == 400 and o.json()["field"] == "price_usd_per_hour", o.text
    assert client.post("/api/report", json={**BODY, "price_usd_per_hour": -1}).status_code == 422


def test_an_empty_frontier_says_why() -> None:
    """Llama 3.1 70B in q4_k_m at 32,768 tokens on RTX 4090s: the chip has a price, but not one
    sequence fits on any chip count the frontier tries, so there is no frontier; the report
    says that, not that the chip has no price."""
    from llm_roofline.deploy.curves import latency_cost_grid
    from llm_roofline.deploy.deployment import deployment

    dep = deployment("llama-3.1-70b", "rtx-4090", 2, weight_dtype="q4_k_m")
    assert dep.chip.price_usd_per_s > 0
    assert latency_cost_grid(dep, 32768)["chips"].size == 0  # the library's own grid: empty
    body = {
        "model": "llama-3.1-70b",
        "hardware": "rtx-4090",
        "chips": 2,
        "weight_dtype": "q4_k_m",
        "context_len": 32768,
        "batch": 1,
    }
    d = client.post("/api/report", json=body).json()
    assert d["frontier"] is None and d["cost_vs_batch"] is not None and d["cost_note"] is None
    note = d["frontier_note"]
    assert "32,768" in note and "not one sequence fits" in note and "rtx-4090" in note, note
    assert "no price" not in note
    # at 4,096 tokens a sequence fits: a frontier, no note
    d = client.post("/api/report", json={**body, "context_len": 4096}).json()
    assert d["frontier"] is not None and d["frontier_note"] is None
    # a chip without a price says so
    d = client.post("/api/report", json={**BODY, "hardware": "gaudi2"}).json()
    assert d["frontier"] is None and "no price for gaudi2" in d["frontier_note"]


def test_a_context_beyond_the_trained_maximum_warns_and_is_drawn() -> None:
    """200k tokens (204,800) for Llama 3.1 8B, trained to 131,072 (its config's
    max_position_embeddings): the command line's warning, and the step-vs-context axis reaching
    the chosen context."""
    from llm_roofline.model.checkpoints import model_entry

    top = model_entry("llama-3.1-8b").spec.max_context
    assert top == 131072
    d = client.post("/api/report", json={**BODY, "context_len": 204_800, "batch": 1}).json()
    want = "context 204,800 is beyond the model's trained maximum (131,072)"
    assert any(w.startswith(want) for w in d["warnings"]), d["warnings"]
    ctx = d["step_vs_context"]["context_len"]
    assert 204_800 in ctx and max(ctx) >= 204_800
    # within the maximum: no warning, the axis to the maximum
    d = client.post("/api/report", json={**BODY, "context_len": 131_072}).json()
    assert d["warnings"] == [] and max(d["step_vs_context"]["context_len"]) == 131_072


def test_the_longest_shipped_context_is_accepted() -> None:
    """Llama 4 Scout's config gives max_position_embeddings 10,485,760 (10M as context lengths
    are written, 10 x 2^20): a request at that context is answered, not refused for passing a
    decimal 10,000,000; past 16M (2^24 = 16,777,216) it is a 422 naming the field."""
    from llm_roofline.model.checkpoints import model_entry

    top = model_entry("llama-4-scout").spec.max_context
    assert top == 10 * 2**20 == 10_485_760
    body = {**BODY, "model": "llama-4-scout", "hardware": "b200", "chips": 8, "batch": 1}
    r = client.post("/api/report", json={**body, "context_len": top})
    assert r.status_code == 200, r.text
    assert not any("beyond the model's trained maximum" in w for w in r.json()["warnings"])
    r = client.post("/api/report", json={**body, "context_len": 2**24 + 1})
    assert r.status_code == 422 and "context_len" in r.text


def test_tokens_per_second_per_user_is_one_token_a_step() -> None:
    """Each sequence gets one token a step: a user's tokens/s is 1 / the step, the batch's is
    batch / the step."""
    a = client.post("/api/report", json={**BODY, "batch": 16}).json()["at_batch"]
    assert a["tokens_per_s_per_user"] == pytest.approx(1 / a["t_step_s"], rel=1e-12)
    assert a["tokens_per_s"] == pytest.approx(16 / a["t_step_s"], rel=1e-12)


@pytest.mark.slow
def test_plan_costs_the_hardware_at_the_price_given() -> None:
    """A price for a chip of the plan costs the fleet at it: the best fleet's $/hour is its
    chips × the price, and the answer says which price each chip was costed at."""
    from llm_roofline.hardware.catalog import get_hardware

    r = client.post("/api/plan", json={**PLAN, "prices": {"h100-sxm": 2.0}})
    assert r.status_code == 200, r.text
    d = r.json()
    b = d["best"]
    assert b["usd_per_hour"] == pytest.approx(b["chips"] * 2.0)
    assert d["prices"] == {"h100-sxm": {"usd_per_hour": 2.0, "source": "request"}}
    # without it, the catalog's
    d = client.post("/api/plan", json={**PLAN, "hardware": ["h100-sxm", "mi300x"]}).json()
    catalog = get_hardware("mi300x").price_usd_per_s * 3600
    assert d["prices"]["mi300x"] == {"usd_per_hour": pytest.approx(catalog), "source": "catalog"}


@pytest.mark.parametrize(
    "prices",
    [{"h100-sxm": 0}, {"h100-sxm": -2}, {"mi300x": 2}, {"h100-sxm": 5000}],
)
def test_plan_refuses_a_price_it_cannot_use(prices: dict[str, float]) -> None:
    """A plan ranks fleets by cost: a price of 0 (hardware you own), a negative or absurd one,
    or one for a chip not among the hardware is a 400 naming `prices` and the chip."""
    r = client.post("/api/plan", json={**PLAN, "prices": prices})
    assert r.status_code == 400, r.text
    out = r.json()
    assert out["field"] == "prices" and next(iter(prices)) in out["detail"], out
    if next(iter(prices.values())) == 0:
        assert "hardware you own" in out["detail"]
