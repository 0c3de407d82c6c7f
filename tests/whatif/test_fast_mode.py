"""Fast modes (`fast_mode.py`, `llm-roofline fast-mode`, POST /api/fast-mode): the cheapest
way to sell tokens F times faster per user, and the price multiple. Neither docs/lecture.md nor
docs/reference-cases.md gives numbers for fast mode (the lecture states the question: "2.5×
faster for 6× the price"), so the checks are hand arithmetic in the memory-bound regime, on the
small Llama-style model of tests/whatif/test_sensitivity.py (weights W = 123,701,248 bytes, KV 4,096
bytes per token; a tied embedding is read whole) and a chip of round figures (1 PFLOP/s, 1 TB/s,
80 GB, $0.001 per second), under the ideal engine:

  t(b) = (W + b · S · kv) / 1e12                    (a decode step, memory-bound)
  a smaller batch reaching F: the largest b with t(b) <= t(B) / F
  price multiple = (t(b) / b) / (t(B) / B)          ($ per token at b ÷ at the base B)

With t(b) = a + c·b, "2.5× faster for 6× the price" is a batch 15 times smaller (6 = (B / b) /
2.5), which needs c·B = 1.8·a at the base: KV traffic 1.8 times the weights'."""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from llm_roofline import spec_from_config
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.hardware.chip import Chip
from llm_roofline.whatif.fast_mode import batch_grid, fast_mode
from tests.conftest import llama_like, make_chip, run_cli

with warnings.catch_warnings():  # starlette's note on httpx, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from llm_roofline.web.app import create_app

client = TestClient(create_app())

W = 123_701_248  # bytes of weights (tests/whatif/test_sensitivity.py counts them)
KV = 4096  # bytes of KV per token


def _chip(**over: Any) -> Chip:
    return replace(make_chip(), scale_up_domain=8, scale_up_bw=450e9, **over)


def _dep(chip: Chip | None = None) -> Deployment:
    spec = spec_from_config(llama_like(tie_word_embeddings=True), name="small")
    return deployment(spec, chip or _chip(), 1, engine="ideal")


def test_batch_grid() -> None:
    assert list(batch_grid(5)) == [1, 2, 3, 4, 5]
    g = batch_grid(100)
    # every integer to 64, then 64·1.02^k rounded: 65.28 -> 65, 66.59 -> 67, 67.92 -> 68
    assert list(g[:64]) == list(range(1, 65)) and list(g[64:67]) == [65, 67, 68]
    assert g[-1] == 100 and np.all(np.diff(g) > 0)


def test_smaller_batch_and_speculation_by_hand() -> None:
    # base B = 64 at S = 4,096: t0 = (123,701,248 + 64 · 16,777,216) / 1e12 = 1,197,443,072e-12
    t0 = (W + 64 * 4096 * KV) / 1e12
    r = fast_mode(_dep(), context_len=4096, batch=64, speedup=2.5, draft=None, max_chips=2)
    assert r.base.tpot_s == pytest.approx(t0, rel=1e-12)
    assert r.target_tpot_s == pytest.approx(t0 / 2.5, rel=1e-12)
    # a smaller batch: b <= (t0 / 2.5 · 1e12 − W) / 16,777,216 = 355,275,980.8 / 16,777,216
    # = 21.18 -> 21; t(21) = 476,022,784e-12; price (t(21) / 21) / (t0 / 64) = 1.2115
    batch = r.option("batch")
    assert batch.reaches and batch.setting is not None
    assert batch.setting.batch == 21
    t21 = (W + 21 * 4096 * KV) / 1e12
    assert batch.setting.speedup == pytest.approx(t0 / t21, rel=1e-12)
    assert batch.setting.price_multiple == pytest.approx((t21 / 21) / (t0 / 64), rel=1e-12)
    assert batch.setting.price_multiple == pytest.approx(1.2115, abs=1e-4)
    # speculation, a free draft, γ = 1, α = 0.85: 1 + 0.85 = 1.85 tokens per verification
    # (Epoch AI's (1 − α^(γ+1)) / (1 − α)); the verification reads what a decode step reads
    # (and each sequence's 2 new tokens' KV, < 0.05% more), so per token t(b) / 1.85:
    # b <= (t0 / 2.5 · 1.85 · 1e12 − W) / 16,777,216 = 762,406,655 / 16,777,216 = 45.44 -> 45
    spec = r.option("speculative")
    assert spec.reaches and spec.setting is not None and spec.setting.batch == 45
    t45 = (W + 45 * 4096 * KV) / 1e12 / 1.85
    assert spec.setting.price_multiple == pytest.approx((t45 / 45) / (t0 / 64), rel=1e-3)
    assert spec.setting.price_multiple == pytest.approx(0.5641, abs=1e-3)
    # more chips: two data-parallel groups at 2b cost what one chip costs at b, so the chips
    # option is at most the smaller batch's price
    chips = r.option("chips")
    assert chips.reaches and chips.setting is not None and chips.setting.chips == 2
    assert chips.setting.price_multiple <= batch.setting.price_multiple * (1 + 1e-12)
    assert r.cheapest == "speculative" and r.reachable
    assert "costs ×0.564 per token at the cheapest, speculative decoding" in r.message
    json.dumps(r.as_dict(), allow_nan=False)


def test_speculation_pays_for_its_draft_by_hand() -> None:
    # the draft "mtp" is one more layer like the last and the tied embedding as its LM head:
    # 2 bytes × (15,206,400 + 1,024,000 + 1,024 norm) = 32,462,848 bytes, and one layer's KV,
    # 1,024 bytes per token. Per output token, with γ = 1 and α = 0.85 (1.85 tokens per
    # verification): (W + b·S·4,096 + 32,462,848 + b·S·1,024) / 1.85 / 1e12 <= t0 / 2.5, so
    # b·20,971,520 <= 886,107,873 − 123,701,248 − 32,462,848 = 729,943,777: b <= 34.8 -> 34
    t0 = (W + 64 * 4096 * KV) / 1e12
    r = fast_mode(_dep(), context_len=4096, batch=64, speedup=2.5, max_chips=1, draft="mtp")
    s = r.option("speculative").setting
    assert s is not None and s.batch == 34
    # asked for, though the small model's config states no MTP layer: said so
    assert r.draft == "mtp" and "assumed" in r.option("speculative").note
    # a model with one (mtp_layers: what its config.json states) gets it by default, unnoted
    own = fast_mode(_dep(), context_len=4096, batch=64, speedup=2.5, max_chips=1, mtp_layers=1)
    assert own.option("speculative").setting == s and own.option("speculative").note == ""
    assert own.draft == "mtp" and own.mtp_layers == 1 and own.not_tried == {}
    t34 = (W + 34 * 4096 * KV + 32_462_848 + 34 * 4096 * 1024) / 1.85 / 1e12
    assert s.tpot_s == pytest.approx(t34, rel=1e-3)  # the verification's 2 new tokens: < 0.1%
    assert s.price_multiple == pytest.approx((t34 / 34) / (t0 / 64), rel=1e-3)


def test_the_lectures_2_5x_for_6x_by_hand() -> None:
    # base B = 60 at S = 907: c·B = 60 · 907 · 4,096 = 222,904,320 ≈ 1.8 · W (222,662,246).
    # t0 = (W + 222,904,320) / 1e12 = 346,605,568e-12; t0 / 2.5 = 138,642,227.2e-12
    # b <= (138,642,227.2 − 123,701,248) / (907 · 4,096) = 14,940,979.2 / 3,715,072 = 4.02 -> 4
    # t(4) = (W + 4 · 3,715,072) / 1e12 = 138,561,536e-12: ×2.5014 faster for
    # (138,561,536 / 4) / (346,605,568 / 60) = ×5.9965 the price: the lecture's 2.5× for 6×
    r = fast_mode(_dep(), context_len=907, batch=60, speedup=2.5, max_chips=1)
    s = r.option("batch").setting
    assert s is not None and s.batch == 4
    assert s.speedup == pytest.approx(346_605_568 / 138_561_536, rel=1e-12)
    assert s.price_multiple == pytest.approx((138_561_536 / 4) / (346_605_568 / 60), rel=1e-12)
    assert s.price_multiple == pytest.approx(5.9965, abs=1e-4)
    # with no chip count above 1 allowed, the chips option has no setting and says why
    chips = r.option("chips")
    assert chips.setting is None and not chips.reaches and "max_chips" in chips.note


def test_out_of_reach_names_the_latency_floor() -> None:
    # at context 1 the step is nearly all weights: t(64) = (W + 64 · 4,096) / 1e12 and batch
    # 1's (W + 4,096) / 1e12 is only 1.002× faster; a free draft at most 1.85×. The floor is
    # the weights one token reads over the bandwidth: 123,701,248 / 1e12 s = 0.124 ms
    r = fast_mode(_dep(), context_len=1, batch=64, speedup=2.5, draft=None, max_chips=1)
    assert not r.reachable and r.cheapest is None
    assert r.latency_floor_s == pytest.approx(W / 1e12, rel=1e-12)
    b = r.option("batch").setting
    assert b is not None and b.batch == 1
    assert b.speedup == pytest.approx((W + 64 * KV) / (W + KV), rel=1e-12)
    assert "out of reach" in r.message and "No batch passes the latency floor" in r.message
    assert "0.124 ms per token" in r.message
    assert r.option("speculative").setting is not None
    assert r.option("speculative").setting.speedup < 1.86  # type: ignore[union-attr]


def test_out_of_reach_above_the_floor_names_what_stops_it() -> None:
    # base batch 1 at context 4,096: t(1) = (123,701,248 + 4,096 · 4,096) / 1e12 = 0.140478 ms
    # (the weights 0.123701 ms, the KV cache 0.016777 ms). ×1.1 asks for 0.127708 ms per
    # token: above the floor, the weights' 0.123701 ms, so the floor is not what stops it; no
    # batch is below 1, no chip count is allowed above 1, and speculation is not tried (the
    # small model has no MTP layer): batch 1's own step stops it, its KV read of 4,096 tokens.
    r = fast_mode(_dep(), context_len=4096, batch=1, speedup=1.1, max_chips=1)
    t1 = (W + 4096 * KV) / 1e12
    assert r.target_tpot_s == pytest.approx(t1 / 1.1, rel=1e-12)
    assert r.latency_floor_s == pytest.approx(W / 1e12, rel=1e-12)
    assert r.latency_floor_s < r.target_tpot_s
    assert not r.reachable and "speculative" in r.not_tried
    assert "No batch passes" not in r.message
    assert (
        "The target, 0.128 ms per token, is above the latency floor: the weights one token "
        "reads, 0.124 GB per chip, over 1 TB/s = 0.124 ms per token" in r.message
    )
    assert (
        "what stops it: batch 1 takes 0.14 ms per token on the fastest split tried (1 chip, "
        "tp 1 · pp 1 · 1 replica (auto)): the ideal step 0.14 ms (its terms: the weights 0.124 "
        "ms, the KV cache of 4,096 tokens 0.0168 ms" in r.message
    )


def test_out_of_reach_under_a_calibrated_engine_names_its_times() -> None:
    # the lecture's case: Llama 3.1 8B on one H100 at batch 1, ×1.6: the target (193 tokens/s
    # per user) is slower than the floor (223), so the floor does not stop it: the engine's
    # time at batch 1 does; its three parts add up to that time
    from llm_roofline.deploy.report_table import engine_parts

    dep = deployment("llama-3.1-8b", "h100-sxm")
    r = fast_mode(dep, context_len=4096, batch=1, speedup=1.6, max_chips=1, acceptance=0.0)
    assert 1 / r.target_tpot_s < 1 / r.latency_floor_s and not r.reachable
    assert "No batch passes" not in r.message and "what stops it: batch 1 takes" in r.message
    t = r.base.tpot_s
    ideal = float(dep.decode(1, 4096).t_step)
    parts = engine_parts(dep, ideal, t)
    assert parts["ideal_s"] + parts["efficiency_s"] + parts["fixed_s"] == pytest.approx(t)
    assert (
        f"{parts['efficiency_s'] * 1e3:.3g} ms more at the calibrated engine's measured "
        f"efficiencies and {parts['fixed_s'] * 1e3:.3g} ms of its fixed times per step" in r.message
    )


def test_the_default_draft_is_the_models_own_mtp() -> None:
    from llm_roofline.whatif.drafts import model_mtp_layers, mtp_layers_in

    # DeepSeek-V3's config.json states num_nextn_predict_layers = 1; Kimi K2's 0; Llama's none
    assert model_mtp_layers(deployment("deepseek-v3", "h100-sxm", 8, weight_dtype="fp8")) == 1
    assert model_mtp_layers(deployment("llama-3.1-8b", "h100-sxm")) == 0
    assert mtp_layers_in({"num_nextn_predict_layers": 0}) == 0
    assert mtp_layers_in({"text_config": {"num_nextn_predict_layers": 2}}) == 2
    # a model without one: speculation is not tried by default, and the answer says why
    r = fast_mode(_dep(), context_len=4096, batch=64, speedup=2.5, max_chips=1)
    assert [o.option for o in r.options] == ["batch", "chips"]
    assert r.draft == "" and r.mtp_layers == 0
    assert r.not_tried["speculative"].startswith(
        "small has no multi-token-prediction layer (its config.json states no "
        "num_nextn_predict_layers), so there is no draft to assume: give a draft model"
    )
    with pytest.raises(KeyError, match="no multi-token-prediction layer"):
        r.option("speculative")
    assert "from the base decoding without speculation" in r.message
    json.dumps(r.as_dict(), allow_nan=False)


def test_a_config_file_with_an_mtp_layer_gets_it(tmp_path: Any) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(llama_like(tie_word_embeddings=True, num_nextn_predict_layers=1)))
    dep = deployment(str(cfg), _chip(), 1, engine="ideal")
    r = fast_mode(dep, context_len=4096, batch=64, speedup=2.5, max_chips=1)
    assert r.mtp_layers == 1 and r.draft == "mtp" and r.not_tried == {}
    # the same speculation as the draft "mtp" on the catalog-free spec (hand-checked above)
    s = r.option("speculative").setting
    assert s is not None and s.batch == 34


def test_max_chips_default_and_bound() -> None:
    # default: twice the chips, at least the scale-up domain, at most 1,024: a 4,096-chip
    # domain gives min(max(2 · 1, 4,096), 1,024) = 1,024; the H100's 8: max(2, 8) = 8
    wide = _dep(replace(_chip(), scale_up_domain=4096))
    assert fast_mode(wide, context_len=1, batch=1, speedup=1.0, max_chips=None).max_chips == 1024
    assert fast_mode(_dep(), context_len=1, batch=1, speedup=1.0).max_chips == 8
    assert fast_mode(_dep(), context_len=1, batch=1, speedup=1.0, max_chips=1024).max_chips == 1024


def test_speedup_one_is_the_base() -> None:
    r = fast_mode(_dep(), context_len=4096, batch=64, speedup=1.0, max_chips=1)
    s = r.option("batch").setting
    assert s is not None and s.batch == 64 and s.price_multiple == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"speedup": 0.5}, "speedup"),
        ({"speedup": math.nan}, "speedup"),
        ({"speedup": math.inf}, "speedup"),
        ({"batch": 0}, "batch"),
        ({"batch": 10**7}, "batch"),  # does not fit
        ({"context_len": 0}, "context_len"),
        ({"gamma": 0}, "gamma"),
        ({"acceptance": 1.5}, "acceptance"),
        ({"draft": "no-such-model"}, "draft"),
        ({"max_chips": 0}, "max_chips"),
        ({"max_chips": 1025}, "max_chips"),  # a limit on the search: 1,024
        ({"max_chips": 10**9}, "max_chips"),
        ({"mtp_layers": -1}, "mtp_layers"),
    ],
)
def test_bad_input_names_the_field(kw: dict[str, Any], field: str) -> None:
    args: dict[str, Any] = {"context_len": 4096, "batch": 8, "speedup": 2.0} | kw
    with pytest.raises(InputError) as e:
        fast_mode(_dep(), **args)
    assert e.value.field == field


def test_a_chip_without_a_price_is_refused() -> None:
    with pytest.raises(InputError) as e:
        fast_mode(_dep(_chip(price_usd_per_s=0.0)), batch=8, speedup=2.0)
    assert e.value.field == "price_usd_per_hour"
    # a price of 0 given for a chip the catalog prices: hardware you own, said as such (it
    # once said "h100-sxm has no price in the catalog")
    own = deployment("llama-3.1-8b", "h100-sxm", engine="ideal", price_usd_per_hour=0.0)
    with pytest.raises(InputError) as e:
        fast_mode(own, batch=8, speedup=2.0)
    assert e.value.field == "price_usd_per_hour"
    assert str(e.value).startswith(
        "h100-sxm: price 0: hardware you own, no $ per token, so a price multiple is undefined"
    )
    assert "in the catalog" not in str(e.value)


def test_every_option_times_a_real_split() -> None:
    # the base and each answer on a catalog deployment, re-timed here from their settings
    dep = deployment("llama-3.1-70b", "h100-sxm", 8, engine="ideal")
    r = fast_mode(dep, context_len=4096, batch=64, speedup=2.0, max_chips=16)
    for o in r.options:
        s = o.setting
        assert s is not None
        d = replace(dep, chips=s.chips, tp=s.tp, pp=s.pp, ep=s.ep, replicas=s.replicas)
        t = float(d.decode(s.batch, 4096).t_step)
        if o.option == "speculative":
            assert s.tpot_s < t  # speculation: fewer seconds per token than a decode step
        else:
            assert s.tpot_s == pytest.approx(t, rel=1e-12)
        assert s.speedup == pytest.approx(r.base.tpot_s / s.tpot_s, rel=1e-12)
        if o.reaches:
            assert s.speedup >= 2.0 * (1 - 1e-12)
        # each curve is a frontier: faster costs more
        c = o.curve
        assert np.all(np.diff(c["speedup"]) > 0) and np.all(np.diff(c["price_multiple"]) > 0)


# ---- the command line ---------------------------------------------------------------------------


def test_cli_fast_mode() -> None:
    args = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--engine", "ideal"]
    r = run_cli("fast-mode", *args, "--batch", "64", "--speedup", "2.5", "--json")
    assert r.code == 0, r.err
    got = r.json()
    # Llama 3.1 8B has no MTP layer: speculation is left out by default, saying why
    assert {o["option"] for o in got["options"]} == {"batch", "chips"}
    assert "no multi-token-prediction layer" in got["not_tried"]["speculative"]
    assert got["draft"] == "" and got["mtp_layers"] == 0
    assert got["max_chips"] == 8  # twice 1 chip, at least the H100's 8-GPU NVLink domain
    # the latency floor: the weights one token reads (all but the input embedding, of which a
    # step gathers its tokens' rows) over the H100 SXM's 3.35 TB/s (NVIDIA's datasheet)
    from llm_roofline import get_model

    floor = get_model("llama-3.1-8b").params_read(1) * 2 / 3.35e12
    assert got["latency_floor_s"] == pytest.approx(floor, rel=1e-9)
    t = run_cli("fast-mode", *args, "--batch", "1", "--speedup", "2.5", "--max-chips", "1")
    assert t.code == 0, t.err
    assert "out of reach" in t.out and "latency floor" in t.out and "reaches ×2.5" in t.out
    assert "base batch 1 decoding without speculation" in " ".join(t.out.split())
    assert "base (no speculation)" in t.out
    assert "speculative decoding: not tried: Llama 3.1 8B has no multi-token-prediction" in t.out
    d = run_cli("fast-mode", *args, "--batch", "64", "--speedup", "2.5", "--draft", "none")
    assert d.code == 0 and "speculative decoding" in d.out and "not tried" not in d.out


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--batch", "64", "--speedup", "0.5"], "speedup"),
        (["--batch", "64", "--speedup", "x"], "--speedup"),
        (["--batch", "100000", "--speedup", "2"], "does not fit"),
        (["--batch", "64", "--speedup", "2", "--acceptance", "2"], "acceptance"),
        (["--batch", "64", "--speedup", "2", "--draft", "nope"], "nope"),
        (["--batch", "64", "--speedup", "2", "--hardware", "tpu-v7"], "no price"),
        (["--batch", "64", "--speedup", "2", "--price", "0"], "price 0: hardware you own"),
        (["--batch", "64", "--speedup", "2", "--max-chips", "1025"], "at most 1,024"),
        (["--batch", "64", "--speedup", "2", "--max-chips", "1e9"], "at most 1,024"),
    ],
)
def test_cli_fast_mode_bad_input(extra: list[str], says: str) -> None:
    base = ["--model", "llama-3.1-8b"]
    if "--hardware" not in extra:
        base += ["--hardware", "h100-sxm"]
    r = run_cli("fast-mode", *base, *extra)
    assert r.code == 2 and len(r.err_lines) == 1 and says in r.err, r.err


# ---- the API ------------------------------------------------------------------------------------


def test_api_fast_mode_matches_the_library() -> None:
    body = {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 64, "engine": "ideal"}
    r = client.post("/api/fast-mode", json=body | {"speedup": 2.5, "draft": "none"})
    assert r.status_code == 200, r.text
    got = r.json()
    want = fast_mode(
        deployment("llama-3.1-8b", "h100-sxm", engine="ideal"),
        context_len=4096,
        batch=64,
        speedup=2.5,
        draft=None,
    )
    assert got["message"] == want.message and got["cheapest"] == want.cheapest
    for og, ow in zip(got["options"], want.options, strict=True):
        assert og["setting"]["price_multiple"] == pytest.approx(ow.setting.price_multiple)  # type: ignore[union-attr]
    r2 = client.post("/api/fast-mode", json=body | {"draft": "llama-3.1-8b"})
    assert r2.status_code == 200, r2.text
    # the defaults are the library's: no MTP layer, so no speculation; max_chips 8 on an H100
    r3 = client.post("/api/fast-mode", json=body)
    assert r3.status_code == 200, r3.text
    d = r3.json()
    assert d["max_chips"] == 8 and [o["option"] for o in d["options"]] == ["batch", "chips"]
    assert "no multi-token-prediction layer" in d["not_tried"]["speculative"]
    # an uploaded config.json that states an MTP layer gets it
    cfg = llama_like(tie_word_embeddings=True, num_nextn_predict_layers=1)
    up = {"config": cfg, "hardware": "h100-sxm", "batch": 64, "engine": "ideal"}
    r4 = client.post("/api/fast-mode", json=up)
    assert r4.status_code == 200, r4.text
    assert r4.json()["draft"] == "mtp" and r4.json()["not_tried"] == {}
    r5 = client.post("/api/fast-mode", json=body | {"max_chips": 1024})
    assert r5.status_code == 200 and r5.json()["max_chips"] == 1024


@pytest.mark.parametrize(
    ("extra", "status", "field"),
    [
        ({"speedup": 0.5}, 422, "speedup"),
        ({"gamma": 0}, 422, "gamma"),
        ({"acceptance": 1.5}, 422, "acceptance"),
        ({"max_chips": 1025}, 422, "max_chips"),
        ({"draft": "no-such-model"}, 400, "draft"),
        ({"draft": "../../etc/passwd"}, 400, "draft"),  # ids only: the server reads no files
        ({"batch": 100_000}, 400, "batch"),
        ({"hardware": "tpu-v7"}, 400, "price_usd_per_hour"),
        ({"model": "no-such-model"}, 400, "model"),
    ],
)
def test_api_fast_mode_bad_input(extra: dict[str, Any], status: int, field: str) -> None:
    body = {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 8} | extra
    r = client.post("/api/fast-mode", json=body)
    assert r.status_code == status and r.json()["field"] == field, r.text


# ---- docs/whatif.md -----------------------------------------------------------------------------


def test_whatif_md_quotes_what_the_tool_gives() -> None:
    """The fast-mode example of docs/whatif.md, re-run (the command written there)."""
    from pathlib import Path

    text = " ".join((Path(__file__).parents[2] / "docs" / "whatif.md").read_text().split())
    dep = deployment("llama-3.1-8b", "h100-sxm")
    r = fast_mode(dep, context_len=4096, batch=64, speedup=2.5)
    assert "speculative" in r.not_tried and r.cheapest == "chips"
    mtp = fast_mode(dep, context_len=4096, batch=64, speedup=2.5, draft="mtp")
    b = r.base
    assert (
        f"{b.tokens_per_s_per_user:.1f} tokens/s per user at ${b.usd_per_million_tokens:.3f}"
        in text
    )
    assert f"×2.5 is {2.5 * b.tokens_per_s_per_user:.1f} tokens/s per user" in text
    tail = "| {u:.3g} | ${usd:.3g} |"
    rows = {
        "batch": "| a smaller batch | batch {batch} " + tail + " ×{pm:.3g} |",
        "chips": "| more chips | batch {batch} on {chips} chips, tp {tp} "
        + tail
        + " **×{pm:.3g}** |",
        "speculative": "| speculative decoding, `--draft mtp` | batch {batch}, γ 1, α 0.85 "
        + tail
        + " ×{pm:.3g} |",
    }
    for name, row in rows.items():
        s = (mtp if name == "speculative" else r).option(name).setting
        assert s is not None
        line = row.format(
            batch=s.batch,
            chips=s.chips,
            tp=s.tp,
            u=s.tokens_per_s_per_user,
            usd=s.usd_per_million_tokens,
            pm=s.price_multiple,
        )
        assert line in text, line
    assert mtp.cheapest == "speculative"
    one = fast_mode(dep, context_len=4096, batch=1, speedup=2.5, draft="mtp")
    assert not one.reachable
    assert (
        f"×2.5 ({2.5 * one.base.tokens_per_s_per_user:.1f} tokens/s per user) is out of reach"
        in text
    )
    chips, spec = one.option("chips").setting, one.option("speculative").setting
    assert chips is not None and spec is not None
    assert (
        f"more chips reach ×{chips.speedup:.3g} (tp {chips.tp} on {chips.chips} chips, for "
        f"×{chips.price_multiple:.3g} the price); speculation with `--draft mtp` "
        f"×{spec.speedup:.3g}" in text
    )
    # ×1.6 from batch 1: slower than the floor, stopped by the engine's time at batch 1
    from llm_roofline.deploy.report_table import engine_parts

    slow = fast_mode(dep, context_len=4096, batch=1, speedup=1.6, max_chips=1, acceptance=0.0)
    ideal = float(dep.decode(1, 4096).t_step)
    parts = engine_parts(dep, ideal, slow.base.tpot_s)
    assert (
        f"×1.6 ({1.6 * slow.base.tokens_per_s_per_user:.0f} tokens/s per user, slower than the "
        f"floor's {1 / slow.latency_floor_s:.0f}) is stopped by the calibrated engine: batch 1 "
        f"takes {slow.base.tpot_s * 1e3:.3g} ms per token, {ideal * 1e3:.3g} ms of it the ideal "
        f"step, {parts['fixed_s'] * 1e3:.3g} ms fixed times" in text
    )
    assert "what stops it: batch 1 takes" in slow.message
    assert (
        f"**{one.latency_floor_s * 1e3:.3g} ms** per token, {1 / one.latency_floor_s:.0f} "
        "tokens/s per user" in text
    )
