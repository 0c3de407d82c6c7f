"""One deployment, one answer: the split rule, replicas, padded heads, and the same numbers on
every surface (library, report, predict, sweep, CSV, the API)."""

from __future__ import annotations

import csv
import io
import json
import math
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.errors import InputError, LlmRooflineError
from llm_roofline.cli import main as cli_main
from llm_roofline.deploy.deployment import deployment
from llm_roofline.deploy.report_table import decode_report, sweep
from llm_roofline.deploy.scenarios.columns import predict_rows
from llm_roofline.deploy.scenarios.rows import (
    predict_one,
    read_scenarios,
    write_results,
)


def _cli_json(argv: list[str]) -> object:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli_main(argv) == 0
    return json.loads(buf.getvalue())


# ---- the split rule ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "hardware", "chips", "wd", "split"),
    [
        # MLA: attention data-parallel (tp 1); 256 experts spread over the 72-GPU NVLink domain;
        # fp8 weights: 671e9 B / 72 ≈ 9.3 GB a chip, far below 186 GB
        ("deepseek-v3", "gb200", 72, "fp8", (1, 1, 72, 1)),
        # 64 heads, 8 KV heads, one 8-GPU NVLink domain: tp 8; 141 GB / 8 = 17.6 GB a chip
        ("llama-3.1-70b", "h100-sxm", 8, "bf16", (8, 1, 1, 1)),
        # 405B in bf16 = 811 GB does not fit in one 8 × 85.5 GB = 684 GB domain: two pipeline
        # stages of tp 8 (811 / 16 = 50.7 GB a chip), not tp 16 across the network
        ("llama-3.1-405b", "h100-sxm", 16, "bf16", (8, 2, 1, 1)),
        # no NVLink (domain 1) and 93 GB of bf16 weights fit one 96 GB card: 8 replicas
        ("mixtral-8x7b", "rtx-pro-6000", 8, "bf16", (1, 1, 1, 8)),
        # one chip: nothing to split
        ("llama-3.1-8b", "h100-sxm", 1, "bf16", (1, 1, 1, 1)),
    ],
)
def test_auto_split_follows_the_documented_rule(
    model: str, hardware: str, chips: int, wd: str, split: tuple[int, int, int, int]
) -> None:
    d = deployment(model, hardware, chips, weight_dtype=wd)
    assert (d.tp, d.pp, d.ep, d.replicas) == split
    assert d.split_rule == "auto"
    assert "auto" in d.split_text()


def test_given_degrees_are_kept_and_the_rest_chosen() -> None:
    # tp 1 given on 8 H100 for Llama 3.1 70B: one chip cannot hold 141 GB, so the rule adds
    # pipeline stages (2 × 70.6 GB ≤ 85.5 GB) and spreads the rest as data parallel groups
    d = deployment("llama-3.1-70b", "h100-sxm", 8, tp=1)
    assert (d.tp, d.pp) == (1, 2)
    assert d.split_rule == "auto, keeping the given tp"
    # all four given: used as they are
    d = deployment("llama-3.1-70b", "h100-sxm", 8, tp=2, pp=1, ep=1, replicas=4)
    assert (d.tp, d.pp, d.replicas, d.split_rule) == (2, 1, 4, "given")


def test_a_given_split_that_cannot_divide_the_model_is_one_line_naming_tp() -> None:
    with pytest.raises(InputError) as e:
        deployment("deepseek-v3", "gb200", 72, tp=72)
    assert e.value.field == "tp"
    assert "128 query heads" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(InputError) as e:
        deployment("llama-3.1-8b", "h100-sxm", 8, replicas=3)
    assert e.value.field == "replicas"


@pytest.mark.parametrize("chips", [1, 2, 3, 6, 8, 12, 72])
@pytest.mark.parametrize("hardware", ["h100-sxm", "gb200", "tpu-v5e", "rtx-4090"])
def test_a_default_split_is_never_an_error(hardware: str, chips: int) -> None:
    for model in lr.list_models():
        d = deployment(model, hardware, chips)
        assert d.tp * d.pp * d.dp * d.replicas == chips
        d.parallel.check(d.model)  # what the rule chose is a valid split


# ---- replicas -----------------------------------------------------------------------------------


def test_replicas_serve_exactly_replicas_times_one_instance() -> None:
    # 8 independent single-GPU replicas of Llama 3.1 8B serving 64 sequences = 8 instances of
    # one GPU serving 8 each: same step time, 8× the tokens/s, the same $ per token, no
    # communication between them.
    kw = dict(batch=64, input_len=2048, output_len=128, mode="decode")
    eight = deployment("llama-3.1-8b", "h100-sxm", 8, replicas=8, engine="ideal").serve(**kw)
    kw["batch"] = 8
    one = deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal").serve(**kw)
    assert eight.tpot_s == one.tpot_s
    assert eight.output_tokens_per_s == pytest.approx(8 * one.output_tokens_per_s, rel=1e-12)
    assert eight.output_tokens_per_s_per_chip == pytest.approx(
        one.output_tokens_per_s_per_chip, rel=1e-12
    )
    assert eight.usd_per_million_output_tokens == pytest.approx(
        one.usd_per_million_output_tokens, rel=1e-12
    )
    assert eight.t_comm_s == 0.0


def test_moe_replicas_do_not_talk() -> None:
    # Mixtral 8x7B, 8 single-GPU replicas: ep 1 per replica, so no all-to-all at all
    d = deployment("mixtral-8x7b", "rtx-pro-6000", 8, tp=1, ep=1, replicas=8, engine="ideal")
    step = d.decode(64, 1024)
    assert float(step.t_comm.flat[0]) == 0.0
    # its step is one GPU's step at 64 / 8 = 8 sequences
    one = deployment("mixtral-8x7b", "rtx-pro-6000", 1, engine="ideal").decode(8, 1024)
    assert float(step.t_step.flat[0]) == float(one.t_step.flat[0])
    assert float(step.tokens_per_s.flat[0]) == pytest.approx(8 * float(one.tokens_per_s.flat[0]))


def test_an_uneven_batch_is_timed_on_the_busiest_replica() -> None:
    # 10 sequences over 4 replicas: the busiest holds ceil(10 / 4) = 3
    d = deployment("llama-3.1-8b", "h100-sxm", 4, replicas=4, engine="ideal")
    one = deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal")
    assert float(d.decode(10, 4096).t_step.flat[0]) == float(one.decode(3, 4096).t_step.flat[0])


# ---- padded heads (ESTI's PaLM 540B) ------------------------------------------------------------


def test_pad_heads_counts_the_extra_weights_and_flops() -> None:
    # PaLM 540B: 118 layers, D 18432, 48 heads of d_h 256, multiquery. ESTI padded the heads
    # to 64 for 64-way partitioning. The extra 16 heads add a q and an o column block per
    # layer: 2 · D · 16 · 256 = 2 · 18432 · 4096 = 150,994,944 parameters a layer,
    # × 118 layers = 17,817,403,392 parameters, all multiplied per token.
    plain = lr.get_model("palm-540b")
    d = deployment("palm-540b", "tpu-v4", 64, tp=64, pad_heads=True, weight_dtype="int8")
    assert d.model.attention.n_heads == 64
    assert d.model.params_multiplied - plain.params_multiplied == 17_817_403_392
    assert "heads padded to 64" in d.split_text()
    # without padding, tp 64 does not divide 48 heads: a one-line error naming tp
    with pytest.raises(InputError, match="48 query heads"):
        deployment("palm-540b", "tpu-v4", 64, tp=64)


def test_pad_heads_from_the_command_line_and_csv(tmp_path: Path) -> None:
    out = _cli_json(
        "predict --model palm-540b --hardware tpu-v4 --chips 64 --tp 64 --pad-heads "
        "--weight-dtype int8 --batch 64 --input-len 2048 --output-len 0 --engine ideal "
        "--json".split()
    )
    assert isinstance(out, dict)
    assert out["tp"] == 64 and out["pad_heads"] == "true"
    src = tmp_path / "in.csv"
    src.write_text(
        "model,hardware,chips,tp,pad_heads,weight_dtype,batch,input_len,mode,engine\n"
        "palm-540b,tpu-v4,64,64,true,int8,64,2048,decode,ideal\n"
        "palm-540b,tpu-v4,64,64,false,int8,64,2048,decode,ideal\n",
        encoding="utf-8",
    )
    res = predict_rows(read_scenarios(src))
    assert res[0].error is None and res[0].outputs["tpot_s"] == out["tpot_s"]
    assert res[1].error is not None and res[1].error.column == "tp"


# ---- one deployment, every surface ---------------------------------------------------------------

FLAGS = "--model llama-3.1-70b --hardware l40s --chips 8 --weight-dtype fp8".split()


def test_one_deployment_gives_the_same_numbers_on_every_surface(tmp_path: Path) -> None:
    """Llama 3.1 70B in fp8 on 8 × L40S at 32k context, batch 4, the calibrated engine: the
    library, report, sweep, predict (flags and CSV) and the API all give one step time."""
    from fastapi.testclient import TestClient

    from llm_roofline.web import create_app

    B, S = 4, 32768
    dep = deployment("llama-3.1-70b", "l40s", 8, weight_dtype="fp8")
    assert dep.engine == "calibrated"  # realistic by default
    t_lib, lo_lib, hi_lib = (float(x.flat[0]) for x in dep.time(dep.decode(B, S)))
    usd_lib = dep.system.price_usd_per_s * t_lib / B * 1e6
    ideal_lib = float(dep.decode(B, S).t_step.flat[0])
    assert ideal_lib < lo_lib < t_lib < hi_lib

    # library: the scenario contract (decode mode: TPOT is the step at input_len)
    served = dep.serve(batch=B, input_len=S, output_len=0)
    assert served.tpot_s == pytest.approx(t_lib, rel=1e-12)
    assert served.usd_per_million_output_tokens == pytest.approx(usd_lib, rel=1e-12)

    # report (library and CLI): the row at batch 4
    rep = decode_report(dep, context_len=S)
    row = next(r for r in rep.rows if r["batch"] == B)
    assert (row["t_step_s"], row["t_ideal_s"]) == pytest.approx((t_lib, ideal_lib), rel=1e-12)
    cli_rep = _cli_json(["report", *FLAGS, "--context", str(S), "--json"])
    assert isinstance(cli_rep, dict)
    cli_row = next(r for r in cli_rep["rows"] if r["batch"] == B)
    assert cli_row["t_step_s"] == pytest.approx(t_lib, rel=1e-12)
    assert cli_rep["split"] == dep.split_text()
    assert cli_rep["max_batch"] == rep.max_batch

    # sweep
    (srow,) = sweep(dep, [B], [S])
    assert srow["t_step_s"] == pytest.approx(t_lib, rel=1e-12)
    assert (srow["tp"], srow["pp"], srow["replicas"]) == (dep.tp, dep.pp, dep.replicas)

    # predict: flags and a CSV row
    pj = _cli_json(
        ["predict", *FLAGS, "--batch", str(B), "--input-len", str(S), "--output-len", "0", "--json"]
    )
    assert isinstance(pj, dict)
    assert pj["tpot_s"] == pytest.approx(t_lib, rel=1e-12)
    assert (pj["tpot_s_low"], pj["tpot_s_high"]) == pytest.approx((lo_lib, hi_lib), rel=1e-12)
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(
        "model,hardware,chips,weight_dtype,batch,input_len,mode\n"
        f"llama-3.1-70b,l40s,8,fp8,{B},{S},decode\n",
        encoding="utf-8",
    )
    write_results(predict_rows(read_scenarios(src)), dst)
    (crow,) = list(csv.DictReader(dst.open(encoding="utf-8")))
    assert float(crow["tpot_s"]) == pytest.approx(t_lib, rel=1e-12)
    assert float(crow["tpot_s_low"]) == pytest.approx(lo_lib, rel=1e-12)
    assert (crow["tp"], crow["pp"], crow["replicas"]) == tuple(
        str(x) for x in (dep.tp, dep.pp, dep.replicas)
    )

    # the API: /api/report at this batch and /api/predict
    client = TestClient(create_app())
    body = {"model": "llama-3.1-70b", "hardware": "l40s", "chips": 8, "weight_dtype": "fp8"}
    r = client.post("/api/report", json={**body, "context_len": S, "batch": B}).json()
    assert r["at_batch"]["t_step_s"] == pytest.approx(t_lib, rel=1e-12)
    assert r["at_batch"]["t_ideal_s"] == pytest.approx(ideal_lib, rel=1e-12)
    assert r["max_batch"] == rep.max_batch
    assert r["split"] == dep.split_text()
    p = client.post(
        "/api/predict", json={**body, "batch": B, "input_len": S, "output_len": 0}
    ).json()
    assert p["tpot_s"] == pytest.approx(t_lib, rel=1e-12)

    # the economics verbs: pricing's cost floor prices the output at the largest batch that
    # fits, the report's last row; cache-tiers recomputes a context with the same prefill
    from llm_roofline.economics.pricing import cache_costs, cost_floor

    floor = cost_floor(dep, context_len=S)
    last = rep.rows[-1]
    assert floor["batch"] == last["batch"] == rep.max_batch
    assert floor["usd_per_million_output_tokens"] == pytest.approx(
        last["usd_per_million_tokens"], rel=1e-12
    )
    pre = dep.instance_deployment().prefill(1, S)
    t_pre = float(dep.time(pre, is_prefill=True)[0].flat[0])
    assert cache_costs(dep, context_len=S, hold_s=[1.0])["recompute_s"] == t_pre
    prices = ["pricing", "--input-price", "3", "--output-price", "15"]
    cli_floor = _cli_json([*prices, *FLAGS, "--context", str(S), "--json"])
    assert isinstance(cli_floor, dict)
    assert cli_floor["cost_floor"] == pytest.approx(floor)


def test_optimize_times_a_split_as_the_deployment_does() -> None:
    # the search visits every split of 2 L40S; its point at tp 1, pp 2, batch 4 is the
    # deployment the rule picks for 2 chips (70.6 GB of fp8 weights do not fit one 48 GB card)
    from llm_roofline.planning.optimize import search

    one = deployment("llama-3.1-70b", "l40s", 2, weight_dtype="fp8")
    assert (one.tp, one.pp, one.replicas) == (1, 2, 1)
    t_one = float(one.time(one.decode(4, 4096))[0].flat[0])
    res = search(one, 2, context_len=4096)
    pts = res.points
    at = (pts["chips"] == 2) & (pts["tp"] == 1) & (pts["pp"] == 2) & (pts["batch"] == 4)
    assert int(np.sum(at)) == 1
    assert float(pts["tpot_s"][at][0]) == pytest.approx(t_one, rel=1e-12)
    assert res.engine == "calibrated"


def test_engine_is_named_on_every_output() -> None:
    rep = _cli_json(["report", *FLAGS, "--engine", "ideal", "--json"])
    assert isinstance(rep, dict) and rep["engine"] == "ideal"
    assert all(r["t_step_low_s"] is None for r in rep["rows"])
    pj = _cli_json(
        ["predict", *FLAGS, "--batch", "1", "--input-len", "1024", "--engine", "vllm", "--json"]
    )
    assert isinstance(pj, dict) and pj["engine"] == "vllm"
    with pytest.raises(LlmRooflineError, match="unknown engine"):
        deployment("llama-3.1-8b", "h100-sxm", engine="warp-drive")


def test_a_chip_of_your_own_goes_wherever_a_catalog_id_goes(tmp_path: Path) -> None:
    # `hardware ID --toml` prints a record; with the memory bandwidth doubled, the memory-bound
    # ideal step of Llama 3.1 8B at batch 1 (no communication on one chip) halves exactly:
    # t = bytes / bandwidth, so t(6.7 TB/s) = t(3.35 TB/s) · 3.35 / 6.7 = t / 2.
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli_main(["hardware", "h100-sxm", "--toml"]) == 0
    text = buf.getvalue()
    head, sep, rest = text.partition("memory_bandwidth_tb_per_s = 3.35\n")
    assert sep, "the record holds the H100's 3.35 TB/s"
    path = tmp_path / "fast.toml"
    path.write_text(head + "memory_bandwidth_tb_per_s = 6.7\n" + rest, encoding="utf-8")
    base = deployment("llama-3.1-8b", "h100-sxm", engine="ideal").decode(1, 1024)
    mine = deployment("llama-3.1-8b", str(path), engine="ideal").decode(1, 1024)
    assert str(np.asarray(base.bound_names).flat[0]) == "memory"
    assert float(mine.t_step.flat[0]) == pytest.approx(float(base.t_step.flat[0]) / 2, rel=1e-12)
    pj = _cli_json(
        f"predict --model llama-3.1-8b --hardware {path} --batch 1 --input-len 1024 "
        "--engine ideal --json".split()
    )
    assert isinstance(pj, dict)
    assert pj["tpot_s"] == pytest.approx(float(mine.t_step.flat[0]), rel=1e-12)


def test_report_says_what_does_not_fit_for_the_split_given() -> None:
    # tp 1, pp 1 on 8 H100 = 8 data-parallel copies: every chip holds all 70.6e9 bf16
    # parameters = 141 GB > 85.5 GB. The message blames the weights with that figure, and
    # says the same 8 chips hold them split tp 8 (141.1 / 8 = 17.6 GB a chip).
    d = deployment("llama-3.1-70b", "h100-sxm", 8, tp=1, pp=1, ep=1, replicas=1)
    rep = decode_report(d, context_len=4096)
    assert rep.max_batch == 0
    w = d.model.params_stored * 2 / 1e9
    assert math.isclose(rep.weights_per_chip_bytes / 1e9, w, rel_tol=1e-9)
    assert f"weights {w:,.1f} GB" in rep.fit_message
    assert "the weights alone exceed a chip; try 8 chips (tp 8 · pp 1 · 1 replica)" in (
        rep.fit_message
    )


def test_sweep_over_chips_splits_each_count_by_the_rule() -> None:
    rows = sweep(deployment("llama-3.1-70b", "h100-sxm", 8, engine="ideal"), [1], [1024], [2, 8])
    assert [(r["chips"], r["tp"]) for r in rows] == [(2, 2), (8, 8)]
    assert np.all([r["engine"] == "ideal" for r in rows])


def test_scenario_row_fills_the_split_and_engine() -> None:
    res = predict_one(
        {
            "model": "deepseek-v3",
            "hardware": "gb200",
            "chips": "72",
            "weight_dtype": "fp8",
            "batch": "64",
            "input_len": "4096",
            "mode": "decode",
        }
    )
    assert res.error is None
    assert (res.inputs["tp"], res.inputs["ep"], res.inputs["replicas"]) == (1, 72, 1)
    assert res.inputs["engine"] == "calibrated" and res.inputs["output_len"] == 0


# ---- found in review ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hardware", "chips", "split"),
    [
        # 12 H100 (8-GPU NVLink domains), Llama 3.1 70B bf16 (141 GB): tp 4 fits (35 GB a
        # chip) in 4 chips, 4 divides 12: three tp-4 replicas. tp 2 with 3 data-parallel
        # groups per instance would read every weight on 2 chips instead of 4, for nothing.
        ("h100-sxm", 12, (4, 1, 1, 3)),
        # 20 MI300X (8-GPU domains, 192 GB): tp 4 divides 20 and the 64 heads: 5 replicas
        ("mi300x", 20, (4, 1, 1, 5)),
    ],
)
def test_a_dense_model_widens_tp_before_adding_data_parallel_groups(
    hardware: str, chips: int, split: tuple[int, int, int, int]
) -> None:
    d = deployment("llama-3.1-70b", hardware, chips)
    assert (d.tp, d.pp, d.ep, d.replicas) == split and d.dp == 1


def test_input_cost_does_not_charge_idle_replicas() -> None:
    # one prompt per replica keeps every chip busy: 8 single-GPU replicas price a prompt as
    # one GPU does (input $/M equal); the output at the largest batch too
    from llm_roofline.economics.pricing import cache_costs, cost_floor

    one = deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal")
    eight = deployment("llama-3.1-8b", "h100-sxm", 8, tp=1, replicas=8, engine="ideal")
    a, b = cost_floor(one, context_len=4096), cost_floor(eight, context_len=4096)
    for k in ("usd_per_million_input_tokens", "usd_per_million_output_tokens"):
        assert b[k] == pytest.approx(a[k], rel=1e-12), k
    ca = cache_costs(one, context_len=4096, hold_s=[1.0])["recompute_usd"]
    cb = cache_costs(eight, context_len=4096, hold_s=[1.0])["recompute_usd"]
    assert cb == pytest.approx(ca, rel=1e-12)


def test_an_uneven_batch_pays_for_every_chip() -> None:
    # 10 sequences on 4 single-GPU replicas: the step is one GPU's at ceil(10 / 4) = 3;
    # tokens/s = 10 / t; $ per token = 4 GPUs' price × t / 10
    d = deployment("llama-3.1-8b", "h100-sxm", 4, replicas=4, engine="ideal")
    res = d.serve(batch=10, input_len=4096, output_len=0)
    t = float(deployment("llama-3.1-8b", "h100-sxm", engine="ideal").decode(3, 4096).t_step[()])
    assert res.tpot_s == pytest.approx(t, rel=1e-12)
    assert res.output_tokens_per_s == pytest.approx(10 / t, rel=1e-12)
    price = 4 * lr.get_hardware("h100-sxm").price_usd_per_s
    assert res.usd_per_million_output_tokens == pytest.approx(price * t / 10 * 1e6, rel=1e-12)


def test_a_range_never_reaches_below_the_ideal_bound() -> None:
    # the TensorRT-LLM profile's 10th percentile is below 1/its slowdown on a small decode:
    # the range's low end stops at the ideal time (the lower bound)
    d = deployment("llama-3.1-8b", "h100-sxm", weight_dtype="fp8", engine="tensorrt-llm")
    step = d.decode(np.array([1.0, 64.0, 1024.0]), 4096)
    t, low, high = d.time(step)
    assert np.all(low >= step.t_step) and np.all(low <= t) and np.all(t <= high)
    out = d.serve(batch=64, input_len=4096, output_len=256, mode="static").as_dict()
    ideal = d.with_engine("ideal").serve(batch=64, input_len=4096, output_len=256, mode="static")
    assert out["tpot_s_low"] >= ideal.tpot_s
    assert out["output_tokens_per_s_high"] <= ideal.output_tokens_per_s


def test_predict_takes_price_and_overlap_flags() -> None:
    # the same scenario at twice the catalog's price costs twice as much per token
    base = "predict --model llama-3.1-8b --hardware h100-sxm --batch 8 --input-len 1024 "
    price = lr.get_hardware("h100-sxm").price_usd_per_s * 3600
    one = _cli_json((base + "--engine ideal --json").split())
    two = _cli_json((base + f"--engine ideal --price {2 * price} --json").split())
    assert isinstance(one, dict) and isinstance(two, dict)
    assert two["usd_per_million_output_tokens"] == pytest.approx(
        2 * one["usd_per_million_output_tokens"], rel=1e-9
    )
    # no overlap (plain sum of compute and memory) is slower than the lecture's max
    none = _cli_json((base + "--engine ideal --overlap none --json").split())
    assert isinstance(none, dict) and none["tpot_s"] > one["tpot_s"]


def test_sweep_keeps_the_given_split_on_every_chip_count() -> None:
    d = deployment("llama-3.1-8b", "h100-sxm", 8, tp=2, engine="ideal")
    rows = sweep(d, [8], [1024], [8, 16])
    assert [(r["chips"], r["tp"], r["replicas"]) for r in rows] == [(8, 2, 4), (16, 2, 8)]
    with pytest.raises(InputError, match="tp"):
        sweep(d, [8], [1024], [1])  # tp 2 cannot split one chip


def test_absurd_chip_counts_refused() -> None:
    # (that no flag is abbreviated, --tp never read as --tpot-ms, is in
    # tests/errors/test_command_line_errors.py)
    with pytest.raises(InputError, match="chips must be at most"):
        deployment("llama-3.1-8b", "h100-sxm", 10_000_000)


def test_a_bad_chip_record_names_the_hardware_field(tmp_path: Path) -> None:
    res = predict_one(
        {
            "model": "llama-3.1-8b",
            "hardware": str(tmp_path / "missing.toml"),
            "chips": "1",
            "weight_dtype": "bf16",
            "batch": "1",
            "input_len": "128",
            "mode": "decode",
        }
    )
    assert res.error is not None and res.error.column == "hardware"
