"""What matters most (`sensitivity.py`, `llm-roofline sensitivity`, POST /api/sensitivity): the
effect of +10% of each chip figure on tokens/s per user, throughput and $ per token. Expected
numbers are hand arithmetic written out here, on a small Llama-style model whose weights and KV
bytes are counted by hand below and a chip of round figures (1 PFLOP/s, 1 TB/s, 80 GB,
$3.60 per hour), timed by the ideal engine:

  weights W = 2 bytes × 61,850,624 parameters = 123,701,248 bytes (tied embedding: read whole)
  KV per token kv = 2 (K and V) × 2 heads × 128 × 4 layers × 2 bytes = 4,096 bytes
  a memory-bound decode step: t(b) = (W + b · S · kv) / bandwidth

In that regime t ∝ 1 / bandwidth, so tokens/s per user has elasticity 1 to bandwidth and 0 to
FLOP/s; $ per token (∝ price · t) has elasticity 1 to price and −1 to bandwidth."""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace
from typing import Any

import pytest

from llm_roofline import ModelSpec, spec_from_config
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.hardware.chip import Chip
from llm_roofline.whatif.batches import largest_batch, largest_within
from llm_roofline.whatif.chip_ranking import across_catalog
from llm_roofline.whatif.sensitivity import (
    FIGURES,
    METRICS,
    policy_effects,
    scaled_chip,
    sensitivity,
)
from tests.conftest import llama_like, make_chip, run_cli

with warnings.catch_warnings():  # starlette's note on httpx, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from llm_roofline.web.app import create_app

client = TestClient(create_app())

W = 123_701_248.0  # bytes of weights, counted below
KV = 4096.0  # bytes per token of KV cache
S = 4096  # context


def _spec() -> ModelSpec:
    return spec_from_config(llama_like(tie_word_embeddings=True), name="small")


def _chip(**over: Any) -> Chip:
    """make_chip with an NVLink-like domain, so that multi-chip splits have a link."""
    return replace(make_chip(), scale_up_domain=8, scale_up_bw=450e9, **over)


def _dep(chip: Chip | None = None) -> Deployment:
    return deployment(_spec(), chip or _chip(), 1, engine="ideal")


def test_the_hand_model_counts() -> None:
    spec = _spec()
    # per layer: q 1024·1024 + k, v 2·1024·256 + o 1024·1024 = 2,621,440 attention;
    # gated MLP 3·1024·4096 = 12,582,912; two norms 2·1024: 15,206,400. Four layers:
    # 60,825,600; the tied embedding 1000·1024 = 1,024,000; the final norm 1,024.
    assert spec.params_stored == 4 * 15_206_400 + 1_024_000 + 1024 == 61_850_624
    assert spec.kv_bytes_per_token(2.0) == 2 * 2 * 128 * 4 * 2 == KV


def test_memory_bound_elasticities_by_hand() -> None:
    r = sensitivity(_dep(), context_len=S, batch=1)
    given = next(p for p in r.policies if p.policy == "given")
    assert given.base is not None
    # t(1) = (123,701,248 + 4,096 · 4,096) / 1e12 = 140,478,464 / 1e12 s
    assert given.base.tpot_s == pytest.approx(140_478_464 / 1e12, rel=1e-12)
    assert given.base.bound == "memory"
    # $ per million tokens: $0.001 per second × t / 1 token × 1e6
    assert given.base.usd_per_million_tokens == pytest.approx(0.001 * 140.478464e-6 * 1e6)
    e = {x.figure: x for x in given.effects}
    user = "tokens_per_s_per_user"
    assert e["memory_bandwidth"].elasticity[user] == pytest.approx(1.0, abs=1e-9)
    assert e["memory_bandwidth"].change[user] == pytest.approx(0.10, abs=1e-9)
    for fig in ("flops", "memory_capacity", "scale_up_bandwidth", "scale_out_bandwidth", "price"):
        assert e[fig].elasticity[user] == 0.0
        assert e[fig].elasticity["tokens_per_s"] == 0.0
    usd = "usd_per_million_tokens"
    assert e["price"].elasticity[usd] == pytest.approx(1.0, abs=1e-9)
    assert e["memory_bandwidth"].elasticity[usd] == pytest.approx(-1.0, abs=1e-9)
    assert e["flops"].elasticity[usd] == 0.0
    # one line per policy and metric, in the brief's form
    lines = r.sentences()
    assert (
        "At batch 1 (the batch given): +10% memory bandwidth buys +10.0% tokens/s per user; "
        "+10% dense FLOP/s, memory capacity, scale-up bandwidth, scale-out bandwidth or price "
        "buys 0%." in lines
    )


def test_compute_bound_elasticities_by_hand() -> None:
    # batch 4,096 at context 1: compute 4,096 · (2 · 61,841,408 multiplied + 4 · 8 heads · 128 ·
    # 4 layers · 1 cached) / 1e15 = 506.8 µs; memory (W + 4,096 · 4,096) / 1e12 = 140.5 µs
    r = sensitivity(_dep(), context_len=1, batch=4096)
    given = r.policies[0]
    assert given.base is not None and given.base.bound == "compute"
    flops = 4096 * (2 * 61_841_408 + 4 * 8 * 128 * 4 * 1)
    assert given.base.tpot_s == pytest.approx(flops / 1e15, rel=1e-12)
    e = {x.figure: x for x in given.effects}
    assert e["flops"].elasticity["tokens_per_s_per_user"] == pytest.approx(1.0, abs=1e-9)
    assert e["memory_bandwidth"].elasticity["tokens_per_s_per_user"] == 0.0
    assert e["flops"].elasticity["usd_per_million_tokens"] == pytest.approx(-1.0, abs=1e-9)


def test_target_policy_by_hand() -> None:
    # the largest batch with t(b) <= 0.5 ms: (0.5e-3 · 1e12 − 123,701,248) / (4,096 · 4,096)
    # = 376,298,752 / 16,777,216 = 22.43 -> 22; at 1.1 TB/s: (550e6 − W) / 16,777,216 = 25.41
    # -> 25. t(22) = 492,800,000 / 1e12; t'(25) = (W + 25 · 16,777,216) / 1.1e12.
    r = sensitivity(_dep(), context_len=S, batch=1, tpot_s=0.5e-3)
    target = next(p for p in r.policies if p.policy == "target")
    assert target.base is not None and target.base.batch == 22
    assert target.base.tpot_s == pytest.approx(492_800_000 / 1e12, rel=1e-12)
    bw = next(x for x in target.effects if x.figure == "memory_bandwidth")
    assert bw.point is not None and bw.point.batch == 25
    t1 = (W + 25 * 16_777_216) / 1.1e12
    assert bw.change["tokens_per_s"] == pytest.approx((25 / t1) / (22 / 492.8e-6) - 1, rel=1e-9)
    # the speed per user stays within the target: bandwidth buys batch, not speed
    assert bw.change["tokens_per_s_per_user"] == pytest.approx(492.8e-6 / t1 - 1, rel=1e-9)
    flops = next(x for x in target.effects if x.figure == "flops")
    assert flops.point is not None and flops.point.batch == 22


def test_largest_policy_capacity_buys_batch() -> None:
    dep = _dep()
    r = sensitivity(dep, context_len=S, batch=1)
    largest = next(p for p in r.policies if p.policy == "largest")
    assert largest.base is not None
    b0 = largest.base.batch
    cap = next(x for x in largest.effects if x.figure == "memory_capacity")
    assert cap.point is not None
    b1 = cap.point.batch
    # the batch is the memory model's largest on each chip; capacity changes no step time
    assert b0 == int(dep.max_batch(S))
    assert b1 == int(replace(dep, chip=scaled_chip(dep.chip, "memory_capacity", 1.1)).max_batch(S))
    assert b1 > b0
    t0, t1 = (W + b0 * S * KV) / 1e12, (W + b1 * S * KV) / 1e12  # memory-bound, by hand
    assert cap.change["tokens_per_s_per_user"] == pytest.approx(t0 / t1 - 1, rel=1e-9)
    assert cap.change["tokens_per_s"] == pytest.approx((b1 / t1) / (b0 / t0) - 1, rel=1e-9)
    assert cap.change["usd_per_million_tokens"] == pytest.approx((t1 / b1) / (t0 / b0) - 1)
    # t1 > t0, so each user's rate falls: the sentence says capacity costs it, and why (a
    # larger batch), never that it "buys" a negative change
    line = next(x for x in r.sentences() if x.startswith(f"At batch {b0:,} (the largest"))
    lost = f"{1 - t0 / t1:.1%}"
    # (bandwidth moves it more, +10%, so it comes first and names the metric)
    assert line.split(": ", 1)[1].startswith("+10% memory bandwidth buys +10.0% tokens/s per user")
    assert f"+10% memory capacity costs {lost} (at batch {b1:,}, not {b0:,})" in line
    assert "buys -" not in " ".join(r.sentences())
    # the batch given is untouched by capacity
    given = r.policies[0]
    assert {x.point.batch for x in given.effects if x.point is not None} == {1}


def test_scaled_chip_changes_one_figure() -> None:
    c = _chip()
    assert scaled_chip(c, "memory_bandwidth", 1.1).memory_bw == pytest.approx(1.1e12)
    assert scaled_chip(c, "memory_capacity", 1.1).memory_bytes == pytest.approx(88e9)
    assert scaled_chip(c, "scale_up_bandwidth", 1.1).scale_up_bw == pytest.approx(495e9)
    assert scaled_chip(c, "price", 1.1).price_usd_per_s == pytest.approx(1.1 * 0.001)
    f = scaled_chip(c, "flops", 1.1)
    assert dict(f.peak_flops) == pytest.approx({"bf16": 1.1e15, "fp8": 2.2e15})
    assert f.memory_bw == c.memory_bw and f.id == c.id
    with pytest.raises(InputError) as e:
        scaled_chip(c, "clock", 1.1)
    assert e.value.field == "figure"


def test_largest_within_bisection() -> None:
    # non-decreasing f(b) = b²: the largest b in [1, 100] with b² <= 50 is 7
    assert largest_within(lambda b: float(b * b), 1, 100, 50.0) == 7
    assert largest_within(lambda b: float(b * b), 1, 100, 1e6) == 100
    assert largest_within(lambda b: float(b * b), 3, 100, 1.0) == 2  # none: lo − 1
    assert largest_batch(_dep(), S, tpot_s=1e-9) == 0


def test_a_chip_without_a_price_has_no_cost_and_no_nan() -> None:
    dep = _dep(_chip(price_usd_per_s=0.0))
    r = sensitivity(dep, context_len=S, batch=8)
    for p in r.policies:
        assert p.base is not None and p.base.usd_per_million_tokens is None
        for e in p.effects:
            assert e.change["usd_per_million_tokens"] is None
            assert e.elasticity["tokens_per_s_per_user"] is not None
    json.dumps(r.as_dict(), allow_nan=False)  # no NaN or Infinity anywhere


def test_a_model_that_does_not_fit_says_so() -> None:
    dep = _dep(_chip(memory_bytes=1e8))  # 0.1 GB < 0.12 GB of weights
    r = sensitivity(dep, context_len=S, batch=1)
    largest = next(p for p in r.policies if p.policy == "largest")
    assert largest.base is None and "does not fit" in largest.note
    assert r.policies[0].base is not None and not r.policies[0].base.fits
    assert any("does not fit" in line for line in r.sentences())


def test_bad_input_names_the_field() -> None:
    dep = _dep()
    for kw, field in (
        ({"batch": 0}, "batch"),
        ({"batch": 1, "context_len": 0}, "context_len"),
        ({"batch": 1, "step": 0.0}, "step"),
        ({"batch": 1, "step": 2.0}, "step"),
        ({"batch": 1, "step": math.nan}, "step"),
        ({"batch": 1, "step": 1e-15}, "step"),  # below +0.1%: lost in rounding
        ({"batch": 1, "step": 0.0009}, "step"),
        ({"batch": 1, "step": True}, "step"),
        ({"batch": 1, "tpot_s": -1.0}, "tpot_ms"),
    ):
        with pytest.raises(InputError) as e:
            sensitivity(dep, **kw)
        assert e.value.field == field
    with pytest.raises(InputError) as e:
        policy_effects(dep, "fastest", context_len=S, batch=1)
    assert e.value.field == "policy"
    with pytest.raises(InputError) as e:
        across_catalog(dep, max_chips=0)
    assert e.value.field == "max_chips"


def test_a_step_of_a_tenth_of_a_percent_is_exact() -> None:
    # memory-bound: t = X / bandwidth, so tokens/s per user has elasticity exactly 1 to it. A
    # step of 1e-15 (once allowed) gave 1.33: ln(1 + 1e-15) is lost in the rounding of t.
    # The smallest step allowed, +0.1%, gives 1 to 1e-9.
    r = sensitivity(_dep(), context_len=S, batch=1, step=0.001)
    e = {x.figure: x for x in r.policies[0].effects}
    assert e["memory_bandwidth"].elasticity["tokens_per_s_per_user"] == pytest.approx(1.0, abs=1e-9)
    assert e["price"].elasticity["usd_per_million_tokens"] == pytest.approx(1.0, abs=1e-9)


def test_the_step_is_printed_as_given() -> None:
    # +2.5% is printed "+2.5%", not rounded to "+2%" (or "+3%")
    r = sensitivity(_dep(), context_len=S, batch=1, step=0.025)
    assert any(
        line.startswith("At batch 1 (the batch given): +2.5% memory bandwidth buys +2.5%")
        for line in r.sentences()
    )
    assert not any("+2% " in line or "+3% " in line for line in r.sentences())
    a = replace(_chip(), id="chip-a", name="chip a")
    ranking = across_catalog(_dep(a), context_len=S, max_chips=1, hardware=[a], step=0.025)
    assert ranking.rows[0].reason.startswith("+2.5% memory bandwidth cuts its $ per million")
    c = run_cli(
        "sensitivity",
        "--model",
        "llama-3.1-8b",
        "--hardware",
        "h100-sxm",
        "--batch",
        "1",
        "--engine",
        "ideal",
        "--step-pct",
        "2.5",
    )
    assert c.code == 0, c.err
    assert "+2.5% memory bandwidth buys +2.5% tokens/s per user" in c.out
    assert "+2% " not in c.out


def test_scale_out_bandwidth_by_hand() -> None:
    # Two chips with no scale-up link (a domain of one chip), 100 MB/s of scale-out bandwidth
    # and no network latency; tp 2. At batch 1 and context 4,096 each chip reads half the
    # weights and half the KV cache: (61,850,624 + 8,388,608) / 1e12 = 70.239232 µs. Each of
    # the 4 layers (a serial block) all-reduces twice over the 2 chips, 1 token × 1,024 × 2
    # bytes = 2,048 bytes: a ring, 2(n − 1)/n · M / bw = 2,048 / 1e8 s each (a tree's 2M / bw
    # is twice it), 8 × 20.48 µs = 163.84 µs, added to the step (one micro-batch: batch 1).
    # +10% scale-out bandwidth: 70.239232 + 163.84 / 1.1 µs. Scale-up bandwidth moves nothing.
    from llm_roofline.engine.parallel import CommModel

    chip = replace(_chip(), scale_up_domain=1, scale_up_bw=0.0, scale_out_bw=1e8)
    dep = deployment(
        _spec(),
        chip,
        2,
        tp=2,
        pp=1,
        replicas=1,
        engine="ideal",
        comm=CommModel(scale_out_latency_s=0.0),
    )
    r = sensitivity(dep, context_len=S, batch=1)
    given = r.policies[0]
    assert given.base is not None and given.base.bound == "communication"
    t0 = (61_850_624 + 8_388_608) / 1e12 + 8 * 2048 / 1e8
    assert given.base.tpot_s == pytest.approx(t0, rel=1e-12)
    t1 = (61_850_624 + 8_388_608) / 1e12 + 8 * 2048 / 1.1e8
    e = {x.figure: x for x in given.effects}
    user = "tokens_per_s_per_user"
    assert e["scale_out_bandwidth"].change[user] == pytest.approx(t0 / t1 - 1, rel=1e-9)
    assert e["scale_out_bandwidth"].elasticity[user] == pytest.approx(
        math.log(t0 / t1) / math.log(1.1), rel=1e-9
    )
    # ln(234.079232 / (70.239232 + 148.945455)) / ln(1.1) = 0.065748 / 0.095310 = 0.690
    assert e["scale_out_bandwidth"].elasticity[user] == pytest.approx(0.690, abs=1e-3)
    assert e["scale_up_bandwidth"].elasticity[user] == 0.0
    assert scaled_chip(chip, "scale_out_bandwidth", 1.1).scale_out_bw == pytest.approx(1.1e8)
    assert any("+10% scale-out bandwidth buys" in line for line in r.sentences())


def test_an_owned_chip_is_named_as_such() -> None:
    # a price of 0 given for a chip the catalog prices: hardware you own, not "no price in the
    # catalog"; tpu-v7 has no public price
    dep = deployment("llama-3.1-8b", "h100-sxm", engine="ideal", price_usd_per_hour=0.0)
    r = across_catalog(dep, context_len=S, max_chips=1, hardware=["h100-sxm", "tpu-v7"])
    why = {x.hardware: x.reason for x in r.rows}
    assert why == {
        "h100-sxm": "price 0: hardware you own, no $ per token",
        "tpu-v7": "no price in the catalog",
    }
    with pytest.raises(InputError) as e:
        across_catalog(dep, max_chips=1025)
    assert e.value.field == "max_chips" and "1,024" in str(e.value)


def test_across_catalog_by_hand() -> None:
    # two chips alike but for bandwidth (1 and 2 TB/s) at the same price, one chip: the same
    # largest batch fits on both and every step is memory-bound, so the faster one's step, and
    # its $ per token, is exactly half; each is bound by bandwidth, whose +10% cuts $ per
    # token to 1 / 1.1 of it (−9.09%). A chip without a price is listed last, saying so.
    a = replace(_chip(), id="chip-a", name="chip a")
    b = replace(_chip(), id="chip-b", name="chip b", memory_bw=2e12)
    free = replace(_chip(), id="chip-free", name="no price", price_usd_per_s=0.0)
    r = across_catalog(_dep(a), context_len=S, max_chips=1, hardware=[a, b, free])
    assert [x.hardware for x in r.rows] == ["chip-b", "chip-a", "chip-free"]
    assert r.cheapest == "chip-b"
    ra, rb = r.rows[1], r.rows[0]
    assert ra.batch == rb.batch and ra.chips == rb.chips == 1
    assert ra.usd_per_million_tokens is not None
    assert rb.usd_per_million_tokens == pytest.approx(ra.usd_per_million_tokens / 2, rel=1e-12)
    for row in (ra, rb):
        assert row.bound == "memory bandwidth" and row.step_bound == "memory"
        assert row.bound_cost_change == pytest.approx(1 / 1.1 - 1, rel=1e-9)
    assert r.rows[2].usd_per_million_tokens is None and "no price" in r.rows[2].reason
    json.dumps(r.as_dict(), allow_nan=False)


def test_across_the_real_catalog_ranks_by_cost() -> None:
    dep = deployment("llama-3.1-8b", "h100-sxm", engine="ideal")
    r = across_catalog(dep, context_len=4096, max_chips=2)
    costs = [x.usd_per_million_tokens for x in r.rows if x.usd_per_million_tokens is not None]
    assert costs == sorted(costs) and r.cheapest == r.rows[0].hardware
    assert any("no price" in x.reason for x in r.rows)  # tpu-v7 has no public price
    for x in r.rows:
        if x.usd_per_million_tokens is not None:
            assert x.bound in ("compute", "memory bandwidth", "memory capacity", "communication")


# ---- the command line ---------------------------------------------------------------------------


def test_cli_sensitivity_json_and_table() -> None:
    # Llama 3.1 8B on one H100 at batch 1 under the ideal engine is memory-bound with no
    # communication: tokens/s per user ∝ bandwidth (elasticity 1), independent of FLOP/s
    args = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--batch", "1"]
    r = run_cli("sensitivity", *args, "--engine", "ideal", "--json")
    assert r.code == 0, r.err
    given = r.json()["sensitivity"]["policies"][0]
    e = {x["figure"]: x for x in given["effects"]}
    assert e["memory_bandwidth"]["elasticity"]["tokens_per_s_per_user"] == pytest.approx(1.0)
    assert e["flops"]["elasticity"]["tokens_per_s_per_user"] == 0.0
    assert "catalog" not in r.json()
    t = run_cli("sensitivity", *args, "--engine", "ideal", "--tpot-ms", "10")
    assert t.code == 0, t.err
    assert "+10% memory bandwidth buys +10.0% tokens/s per user" in t.out
    assert "the largest batch that fits within the target" in t.out
    c = run_cli("sensitivity", *args, "--across-catalog", "--max-chips", "1")
    assert c.code == 0, c.err
    assert "cheapest: " in c.out and "tpu-v7: no price in the catalog" in c.out


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--batch", "0"], "--batch"),
        (["--batch", "1", "--step-pct", "0"], "--step-pct"),
        (["--batch", "1", "--step-pct", "500"], "step_pct"),
        (["--batch", "1", "--step-pct", "1e-13"], "step_pct must be from 0.1 to 100"),
        (["--batch", "1", "--step-pct", "0.09"], "step_pct"),
        (["--batch", "1", "--across-catalog", "--max-chips", "1025"], "at most 1,024"),
        (["--batch", "1", "--tpot-ms", "-1"], "--tpot-ms"),
        (["--batch", "1", "--max-chips", "0"], "--max-chips"),
    ],
)
def test_cli_sensitivity_bad_input(extra: list[str], says: str) -> None:
    r = run_cli("sensitivity", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", *extra)
    assert r.code == 2 and len(r.err_lines) == 1 and says in r.err, r.err


# ---- the API ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_api_sensitivity_matches_the_library() -> None:
    body = {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 16, "engine": "ideal"}
    r = client.post("/api/sensitivity", json=body | {"tpot_ms": 20})
    assert r.status_code == 200, r.text
    got = r.json()
    want = sensitivity(
        deployment("llama-3.1-8b", "h100-sxm", engine="ideal"),
        context_len=4096,
        batch=16,
        tpot_s=0.02,
    ).as_dict()
    assert got["sentences"] == want["sentences"]
    assert [p["policy"] for p in got["policies"]] == ["given", "largest", "target"]
    for pg, pw in zip(got["policies"], want["policies"], strict=True):
        assert pg["base"] == pytest.approx(pw["base"])
        for eg, ew in zip(pg["effects"], pw["effects"], strict=True):
            for m in METRICS:
                assert eg["elasticity"][m] == pytest.approx(ew["elasticity"][m])
    assert got["catalog"] is None
    assert set(FIGURES) == {e["figure"] for e in got["policies"][0]["effects"]}
    c = client.post("/api/sensitivity", json=body | {"across_catalog": True, "max_chips": 1})
    assert c.status_code == 200 and c.json()["catalog"]["cheapest"]
    # a rack-scale deployment (72 GB200s) can rank the catalog at its own scale: up to 128
    c = client.post("/api/sensitivity", json=body | {"across_catalog": True, "max_chips": 128})
    assert c.status_code == 200 and c.json()["catalog"]["max_chips"] == 128


@pytest.mark.parametrize(
    ("extra", "status", "field"),
    [
        ({"step_pct": 0}, 422, "step_pct"),
        ({"step_pct": 500}, 422, "step_pct"),
        ({"step_pct": 1e-11}, 422, "step_pct"),
        ({"step_pct": 0.09}, 422, "step_pct"),
        ({"tpot_ms": -1}, 422, "tpot_ms"),
        ({"batch": 0}, 422, "batch"),
        ({"max_chips": 129}, 422, "max_chips"),  # the page's limit, 128
        ({"model": "no-such-model"}, 400, "model"),
        ({"hardware": "no-such-chip"}, 400, "hardware"),
        ({"surprise": 1}, 422, "surprise"),
    ],
)
def test_api_sensitivity_bad_input(extra: dict[str, Any], status: int, field: str) -> None:
    body = {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 1} | extra
    r = client.post("/api/sensitivity", json=body)
    assert r.status_code == status and r.json()["field"] == field, r.text


# ---- docs/whatif.md -----------------------------------------------------------------------------


def test_whatif_md_quotes_what_the_tool_gives() -> None:
    """The worked example of docs/whatif.md, re-run (the commands written there)."""
    from pathlib import Path

    text = " ".join((Path(__file__).parents[2] / "docs" / "whatif.md").read_text().split())
    dep = deployment("llama-3.1-8b", "h100-sxm")
    pol = {}
    for b in (1, 256):
        r = sensitivity(dep, context_len=2048, batch=b, tpot_s=0.02)
        pol[b] = {p.policy: p for p in r.policies}

    def eff(b: int, policy: str, fig: str) -> Any:
        return next(e for e in pol[b][policy].effects if e.figure == fig)

    one = pol[1]["given"].base
    assert one is not None
    user, usd = "tokens_per_s_per_user", "usd_per_million_tokens"
    assert (
        f"**batch 1** ({one.tokens_per_s_per_user:.0f} tokens/s per user, "
        f"${one.usd_per_million_tokens:.2f}" in text
    )
    bw = eff(1, "given", "memory_bandwidth")
    assert (
        f"**{bw.change[user]:+.1%}** tokens/s per user (elasticity {bw.elasticity[user]:.2f}"
        in text
    )
    assert f"bandwidth cuts $ per million tokens by {-bw.change[usd]:.1%}" in text
    b256 = pol[256]["given"].base
    assert b256 is not None
    assert (
        f"({b256.tokens_per_s_per_user:.1f} tokens/s per user, {b256.tokens_per_s:,.0f} "
        f"tokens/s, ${b256.usd_per_million_tokens:.3f})" in text
    )
    bw = eff(256, "given", "memory_bandwidth")
    assert (
        f"**{bw.change[user]:+.1%}** tokens/s per user and throughput and cuts $ per token by "
        f"{-bw.change[usd]:.1%}" in text
    )
    largest = pol[256]["largest"]
    cap = eff(256, "largest", "memory_capacity")
    assert largest.base is not None and cap.point is not None
    assert f"**{largest.base.batch}**: +10% memory capacity fits **{cap.point.batch}**" in text
    assert (
        f"**−{-cap.change[user]:.1%}** tokens/s per user and buys only "
        f"**{cap.change['tokens_per_s']:+.1%}** throughput" in text
    )
    target = pol[256]["target"]
    bw = eff(256, "target", "memory_bandwidth")
    assert target.base is not None and bw.point is not None
    assert (
        f"the batch is **{target.base.batch}**; +10% bandwidth lets it grow to {bw.point.batch}"
        in text
    )
    assert (
        f"**{bw.change[user]:+.1%}** tokens/s per user but "
        f"**{bw.change['tokens_per_s']:+.1%}** throughput and **−{-bw.change[usd]:.1%}** $ per "
        f"token (elasticity {bw.elasticity['tokens_per_s']:.2f}" in text
    )
    ranking = across_catalog(dep, context_len=2048, max_chips=8)
    top = ranking.rows[0]
    assert ranking.cheapest == "gaudi3" and "the cheapest is a Gaudi 3" in text
    assert (
        f"{top.chips} chips, ${top.usd_per_million_tokens:.3g} per million tokens at batch "
        f"{top.batch:,}" in text
    )
    not_bw = sorted(r.hardware for r in ranking.rows if r.bound not in (None, "memory bandwidth"))
    assert not_bw == [
        "apple-m1-max",
        "apple-m2-ultra",
        "apple-m3-max",
        "apple-m4-max",
        "mi250x",
        "rtx-3090",
    ]
