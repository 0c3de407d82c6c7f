"""The economics view's API (`web/routes_economics.py`): /api/pricing, /api/cost-vs-context and
/api/cache-tiers. Each route's figures equal the library's own functions called directly here
(and the command line's `pricing --json` / `cache-tiers --json`), the hand arithmetic written
out below, and published prices (data/tiers.toml's [prices]); bad input is a 4xx naming the
field; no answer carries NaN or Infinity."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import numpy as np
import pytest

warnings.filterwarnings("ignore", category=DeprecationWarning)

from fastapi.testclient import TestClient  # noqa: E402

from llm_roofline.deploy.deployment import deployment  # noqa: E402
from llm_roofline.economics.pricing import (  # noqa: E402
    cache_costs,
    catalog_kv_vs_price_step,
    cost_floor,
    cost_vs_context,
    decode_to_prefill_mfu,
    kv_bytes_from_price_step,
    price_step_active_params,
)
from llm_roofline.model.checkpoints import model_entry  # noqa: E402
from llm_roofline.web import create_app  # noqa: E402
from tests.conftest import run_cli  # noqa: E402

client = TestClient(create_app())
DEP: dict[str, Any] = {
    "model": "llama-3.1-70b",
    "hardware": "h100-sxm",
    "chips": 8,
    "engine": "ideal",
}
# Anthropic's published Claude Sonnet 4 prices, $ per million tokens (data/tiers.toml [prices],
# https://docs.anthropic.com/en/docs/about-claude/pricing): input 3, output 15, cache read 0.30
SONNET = {"input_price": 3.0, "output_price": 15.0, "cache_hit_price": 0.30}


def _dep() -> Any:
    return deployment("llama-3.1-70b", "h100-sxm", 8, engine="ideal")


def _strict_json(text: str) -> Any:
    """The body as JSON, failing on NaN or Infinity (neither is JSON)."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in a JSON body")

    return json.loads(text, parse_constant=refuse)


def _post(path: str, body: dict[str, Any]) -> Any:
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    return _strict_json(r.text)


def _fails(path: str, body: dict[str, Any] | bytes, field: str) -> str:
    if isinstance(body, bytes):
        r = client.post(path, content=body, headers={"content-type": "application/json"})
    else:
        r = client.post(path, json=body)
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    assert r.json()["field"] == field, r.json()
    return str(r.json()["detail"])


# ---- /api/pricing -------------------------------------------------------------------------


def test_pricing_equals_the_library_and_the_command_line() -> None:
    out = _post("/api/pricing", {**DEP, "context_len": 4096, **SONNET})
    # hand arithmetic: output priced 15 ÷ 3 = 5× input; decode at 3 ÷ 15 = 0.2 of prefill's MFU
    assert out["output_to_input"] == pytest.approx(5.0)
    assert out["decode_to_prefill_mfu"] == pytest.approx(0.2)
    assert out["decode_to_prefill_mfu"] == decode_to_prefill_mfu(3.0, 15.0)
    floor = cost_floor(_dep(), context_len=4096)
    assert out["cost_floor"] == floor
    assert out["split"] == _dep().split_text() and out["deployment"]["tp"] == 8
    # the command line's figures for the same question
    cli = run_cli(
        "pricing",
        "--input-price", "3",
        "--output-price", "15",
        "--model", "llama-3.1-70b",
        "--hardware", "h100-sxm",
        "--chips", "8",
        "--engine", "ideal",
        "--json",
    )  # fmt: skip
    assert cli.code == 0, cli.err
    want = json.loads(cli.out)
    for k, v in want["cost_floor"].items():
        assert out["cost_floor"][k] == (v if isinstance(v, str) else pytest.approx(v, rel=1e-12))
    assert out["decode_to_prefill_mfu"] == want["decode_to_prefill_mfu"]
    assert out["price_step"] is None  # no threshold given


def test_pricing_cache_hit_against_bringing_the_prompt_back() -> None:
    out = _post("/api/pricing", {**DEP, "context_len": 4096, **SONNET})
    hit = out["cache_hit"]
    # Anthropic's cache read is a tenth of its input price: 0.30 ÷ 3.00
    assert hit["price"] == 0.30 and hit["to_input"] == pytest.approx(0.1)
    # $ per sequence of 4,096 tokens -> $ per million tokens, from the library at no hold
    res = cache_costs(_dep(), context_len=4096, hold_s=[0.0])
    per_m = 1e6 / 4096
    assert hit["recompute_usd_per_million_tokens"] == pytest.approx(
        res["recompute_usd"] * per_m, rel=1e-12
    )
    # recomputing is the input cost floor: one prompt's share of a prefill of the context
    assert hit["recompute_usd_per_million_tokens"] == pytest.approx(
        out["cost_floor"]["usd_per_million_input_tokens"], rel=1e-9
    )
    assert set(hit["tiers"]) == set(res["tiers"])
    for tid, t in hit["tiers"].items():
        usd = float(res["tiers"][tid]["usd"][0]) * per_m
        assert t["usd_per_million_tokens"] == pytest.approx(usd, rel=1e-12)
        assert t["fetch_s"] == res["tiers"][tid]["fetch_s"]
        assert t["covered"] == (usd <= 0.30)
    # the drive's rated read: 1.34 GB of cache (80 layers · 2 · 8 heads · 128 · 2 bytes ·
    # 4,096 tokens) at 6.8 GB/s is 0.197 s, keeping eight H100s waiting: not covered by $0.30
    assert hit["tiers"]["flash"]["fetch_s"] == pytest.approx(80 * 2 * 8 * 128 * 2 * 4096 / 6.8e9)
    assert hit["tiers"]["hbm"]["covered"] and not hit["tiers"]["disk"]["covered"]
    assert hit["recompute_covered"] == (hit["recompute_usd_per_million_tokens"] <= 0.30)


def test_pricing_reads_a_long_context_price_step() -> None:
    # the lecture: 100B active parameters, 600 FLOP/B, a step at 200k tokens:
    # 2 · 1e11 / (600 · 2e5) = 1,666.7 bytes per token
    body = {
        **DEP,
        **SONNET,
        "long_context_threshold": 200_000,
        "long_input_price": 6,
        "long_output_price": 22.5,
        "active_params": 1e11,
        "ratio": 600,
    }
    st = _post("/api/pricing", body)["price_step"]
    assert st["implied_kv_bytes_per_token"] == pytest.approx(2e11 / (600 * 2e5))
    assert st["long_output_to_input"] == pytest.approx(22.5 / 6)
    assert st["flops_per_byte"] == 600 and st["flops_per_byte_source"] == "given"
    # 1e11 is not Llama 3.1 70B's own count: said, and the given figure used
    own = float(model_entry("llama-3.1-70b").spec.params_multiplied)
    assert st["active_params_source"] == "given" and st["model_active_params"] == own
    assert "active_params" in st["active_params_note"]
    assert st["catalog_vs_price_step"] == catalog_kv_vs_price_step(200_000, 600, kv_dtype="bf16")

    # without active_params or ratio: the model's parameters and the chip's own ratio
    del body["active_params"], body["ratio"]
    st = _post("/api/pricing", body)["price_step"]
    act = price_step_active_params(None, "llama-3.1-70b")
    ratio = _dep().chip.ops_per_byte
    assert st["active_params"] == act["active_params"] == own
    assert st["active_params_source"] == "model" and st["active_params_note"] is None
    assert st["flops_per_byte"] == ratio and "h100-sxm" in st["flops_per_byte_source"]
    assert st["implied_kv_bytes_per_token"] == kv_bytes_from_price_step(200_000, own, ratio)
    # the command line reads the same step the same way
    cli = run_cli(
        "pricing",
        "--input-price", "3",
        "--output-price", "15",
        "--long-context-threshold", "200000",
        "--model", "llama-3.1-70b",
        "--hardware", "h100-sxm",
        "--chips", "8",
        "--engine", "ideal",
        "--json",
    )  # fmt: skip
    assert cli.code == 0, cli.err
    want = json.loads(cli.out)
    assert st["implied_kv_bytes_per_token"] == pytest.approx(want["implied_kv_bytes_per_token"])
    assert st["flops_per_byte"] == pytest.approx(want["flops_per_byte"])


def test_pricing_of_an_uploaded_config_uses_its_own_parameters() -> None:
    cfg = model_entry("qwen3-8b").config
    body = {**DEP, "model": None, "config": cfg, "chips": 1, **SONNET}
    out = _post("/api/pricing", {**body, "long_context_threshold": 100_000, "ratio": 600})
    spec = model_entry("qwen3-8b").spec
    assert out["price_step"]["active_params"] == float(spec.params_multiplied)
    want = cost_floor(deployment(spec, "h100-sxm", 1, engine="ideal"), context_len=4096)
    assert out["cost_floor"]["usd_per_million_output_tokens"] == pytest.approx(
        want["usd_per_million_output_tokens"], rel=1e-12
    )


# ---- /api/cost-vs-context -----------------------------------------------------------------


def _none_for_inf(xs: Any) -> list[float | None]:
    return [float(x) if math.isfinite(x) else None for x in np.asarray(xs, dtype=float)]


def test_cost_vs_context_equals_the_library() -> None:
    out = _post("/api/cost-vs-context", DEP)
    # the command line's grid for `pricing --out`: 60 points from 256 to 2^20 tokens, rounded
    grid = np.unique(np.geomspace(256, 1_048_576, 60).round())
    assert out["context"] == grid.tolist()
    want = cost_vs_context(_dep(), grid)
    assert out["batch"] == want["batch"].tolist()
    assert out["usd_per_million_output_tokens"] == _none_for_inf(
        want["usd_per_million_output_tokens"]
    )
    assert out["usd_per_million_output_tokens_batch1"] == _none_for_inf(
        want["usd_per_million_output_tokens_batch1"]
    )
    assert out["max_context"] == 131_072  # Llama 3.1's trained context, 128k tokens
    # 2^20 tokens of Llama 3.1 70B's cache (327,680 B/token: 344 GB) still fit beside the
    # weights (141 GB) in 8 × 80 GB
    assert out["no_fit_from"] is None and min(out["batch"]) >= 1
    # long context costs more: the cheapest output at the shortest context, the dearest at
    # the longest
    usd = out["usd_per_million_output_tokens"]
    assert usd[0] == min(usd) and usd[-1] == max(usd)


def test_cost_vs_context_says_where_one_sequence_no_longer_fits() -> None:
    # two H100s hold 85.52 GB each (the catalog's usable memory), the weights take 70.55 GB of
    # each (141.1 GB in bf16, tp 2): 2 × 14.97 GB = 29.9 GB of cache, about 91,000 tokens at
    # 327,680 B per token. Past that not one sequence fits, and the figure is null (not
    # Infinity)
    contexts = [1024.0, 16384.0, 65536.0, 131072.0, 262144.0]
    out = _post("/api/cost-vs-context", {**DEP, "chips": 2, "contexts": contexts})
    want = cost_vs_context(deployment("llama-3.1-70b", "h100-sxm", 2, engine="ideal"), contexts)
    assert out["batch"] == want["batch"].tolist()
    assert out["usd_per_million_output_tokens"][3:] == [None, None]
    assert out["usd_per_million_output_tokens"][:3] == _none_for_inf(
        want["usd_per_million_output_tokens"][:3]
    )
    assert out["no_fit_from"] == 131072.0


def test_no_fit_from_is_the_smallest_context_that_does_not_fit() -> None:
    # the same deployment, the contexts given out of order: 262,144 comes first in the list,
    # but the smallest context at which not one sequence fits is 131,072 (about 91,000 tokens
    # fit, above); the figures stay in the order given
    contexts = [262144.0, 1024.0, 131072.0, 65536.0]
    out = _post("/api/cost-vs-context", {**DEP, "chips": 2, "contexts": contexts})
    assert out["context"] == contexts
    assert [b < 1 for b in out["batch"]] == [True, False, True, False]
    assert out["no_fit_from"] == 131072.0


def test_contexts_are_whole_tokens() -> None:
    r = client.post("/api/cost-vs-context", json={**DEP, "contexts": [1024, 4096.5]})
    assert r.status_code == 422 and r.json()["field"] == "contexts"
    assert "item 1 is 4096.5" in r.json()["detail"][0]["msg"]
    ok = client.post("/api/cost-vs-context", json={**DEP, "contexts": [1024, 4096.0]})
    assert ok.status_code == 200, ok.text


# ---- /api/cache-tiers ---------------------------------------------------------------------


def test_cache_tiers_equals_the_library_and_the_command_line() -> None:
    out = _post("/api/cache-tiers", {**DEP, "context_len": 100_000})
    # Llama 3.1 70B's KV cache: 80 layers · 2 (K and V) · 8 heads · 128 · 2 bytes per token
    assert out["kv_bytes"] == 80 * 2 * 8 * 128 * 2 * 100_000  # 32.8 GB
    # the command line's hold times: 60 from 1 s to 30 days
    hold = np.geomspace(1, 30 * 86400, 60)
    res = cache_costs(_dep(), context_len=100_000, hold_s=hold)
    assert out["hold_s"] == pytest.approx(hold.tolist(), rel=1e-12)
    assert out["recompute_usd"] == res["recompute_usd"] and out["recompute_s"] == res["recompute_s"]
    assert out["cheapest"] == res["cheapest"] and out["fits"] is True and out["warning"] is None
    for tid, t in res["tiers"].items():
        o = out["tiers"][tid]
        assert o["usd"] == pytest.approx(t["usd"].tolist(), rel=1e-12)
        assert o["usd_per_million_tokens"] == pytest.approx((t["usd"] / 100_000 * 1e6).tolist())
        for k in ("fetch_s", "drain_time_s", "bandwidth", "devices", "name"):
            assert o[k] == t[k], k
    # one DDR5-4800 DIMM (data/tiers.toml): 64 GB at 38.4 GB/s drains in 1.67 s
    assert out["tiers"]["dram"]["drain_time_s"] == pytest.approx(64 / 38.4)
    # HBM read back over all 8 chips at once: 8 × 3.35 TB/s
    assert out["tiers"]["hbm"]["bandwidth"] == pytest.approx(8 * 3.35e12)
    # where the cheapest changes: the first hold time of each run of the library's choices
    runs = [
        (float(h), c)
        for i, (h, c) in enumerate(zip(hold, res["cheapest"], strict=True))
        if i == 0 or c != res["cheapest"][i - 1]
    ]
    assert [p["tier"] for p in out["cheapest_from"]] == [c for _, c in runs]
    assert [p["hold_s"] for p in out["cheapest_from"]] == pytest.approx([h for h, _ in runs])
    cli = run_cli(
        "cache-tiers",
        "--model", "llama-3.1-70b",
        "--hardware", "h100-sxm",
        "--chips", "8",
        "--context", "100000",
        "--engine", "ideal",
        "--json",
    )  # fmt: skip
    assert cli.code == 0, cli.err
    want = json.loads(cli.out)
    assert out["cheapest"] == want["cheapest"]
    assert out["recompute_usd"] == pytest.approx(want["recompute_usd"], rel=1e-12)
    for tid in want["tiers"]:
        assert out["tiers"][tid]["usd"] == pytest.approx(want["tiers"][tid]["usd"], rel=1e-12)


def test_cache_tiers_at_given_hold_times_and_a_model_that_does_not_fit() -> None:
    out = _post(
        "/api/cache-tiers",
        {**DEP, "chips": 1, "context_len": 100_000, "hold_s": [0, 60, 3600]},
    )
    # Llama 3.1 70B on one H100: 141 GB of weights in 80 GB; priced all the same, and said
    assert out["fits"] is False and "does not fit" in out["warning"]
    res = cache_costs(
        deployment("llama-3.1-70b", "h100-sxm", 1, engine="ideal"),
        context_len=100_000,
        hold_s=[0, 60, 3600],
    )
    assert out["cheapest"] == res["cheapest"]
    assert out["tiers"]["flash"]["usd"] == pytest.approx(res["tiers"]["flash"]["usd"].tolist())


# ---- bad input: a 4xx naming the field ----------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/pricing", {**DEP, "input_price": -1, "output_price": 15}, "input_price"),
        ("/api/pricing", {**DEP, "input_price": 0, "output_price": 15}, "input_price"),
        ("/api/pricing", {**DEP, "input_price": "cheap", "output_price": 15}, "input_price"),
        ("/api/pricing", {**DEP, "input_price": 3}, "output_price"),
        ("/api/pricing", {**DEP, **SONNET, "cache_hit_price": -0.3}, "cache_hit_price"),
        ("/api/pricing", {**DEP, **SONNET, "long_context_threshold": 0}, "long_context_threshold"),
        ("/api/pricing", {**DEP, **SONNET, "ratio": -600}, "ratio"),
        ("/api/pricing", {**DEP, **SONNET, "context_len": 0}, "context_len"),
        ("/api/pricing", {**DEP, **SONNET, "model": "no-such-model"}, "model"),
        ("/api/pricing", {**DEP, **SONNET, "hardware": "gaudi2"}, "price_usd_per_hour"),
        ("/api/pricing", {**DEP, **SONNET, "chips": 1}, "chips"),  # 141 GB on one H100
        ("/api/pricing", {**DEP, **SONNET, "batch": 4}, "batch"),  # not a field here
        ("/api/cost-vs-context", {**DEP, "contexts": []}, "contexts"),
        ("/api/cost-vs-context", {**DEP, "contexts": [1024, 0.5]}, "contexts"),
        ("/api/cost-vs-context", {**DEP, "hardware": "no-such-chip"}, "hardware"),
        ("/api/cache-tiers", DEP, "context_len"),
        ("/api/cache-tiers", {**DEP, "context_len": 1.5}, "context_len"),
        ("/api/cache-tiers", {**DEP, "context_len": 4096, "hold_s": [1, -1]}, "hold_s"),
        ("/api/cache-tiers", {**DEP, "context_len": 4096, "kv_dtype": "fp3"}, "kv_dtype"),
        ("/api/cache-tiers", {**DEP, "context_len": 4096, "tp": 3}, "tp"),
    ],
)
def test_bad_input_names_the_field(path: str, body: dict[str, Any], field: str) -> None:
    _fails(path, body, field)


def test_a_bad_item_of_a_list_names_the_list_and_the_item() -> None:
    r = client.post("/api/cost-vs-context", json={**DEP, "contexts": [1024, 0.5]})
    assert r.status_code == 422 and r.json()["field"] == "contexts"
    assert "item 1 is 0.5" in r.json()["detail"][0]["msg"]


def test_nan_and_infinity_are_refused() -> None:
    for text in ("NaN", "Infinity", "-Infinity"):
        body = json.dumps({**DEP, "output_price": 15})[:-1] + f', "input_price": {text}}}'
        _fails("/api/pricing", body.encode(), "input_price")
        body = json.dumps(DEP)[:-1] + f', "context_len": 4096, "hold_s": [{text}]}}'
        _fails("/api/cache-tiers", body.encode(), "hold_s")
