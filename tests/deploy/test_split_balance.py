"""B* of a deployment on its split (`Deployment.balance_batch`), as every surface shows it.

The closed form `balance_batch` is one chip's B* (tested against the lecture in
tests/engine/test_reference_cases.py). A split moves it, by hand:
- tp alone: every chip reads 1/tp of the weights and does 1/tp of the matmuls: unchanged;
- pp stages: each stage reads its weights once per micro-batch of B / pp: pp × B*;
- replicas: each replica needs B* of its own: replicas × B*;
- expert parallelism with data-parallel attention: a chip holds all the attention but a
  share of the experts, so its B* is (FLOP/s / BW) · (bytes / 2) · W_chip / (N_active / dp)
  as a batch of all groups, neither B* (one chip) nor dp × B*.
Batches are whole sequences, so the solved value is within one sequence per group of these.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline import deployment
from llm_roofline.cli import main
from llm_roofline.deploy.curves import batch_axis
from llm_roofline.deploy.report_table import decode_report
from llm_roofline.deploy.split_balance import deployment_balance_batch
from llm_roofline.plots.figure_spec import PlotSpec
from tests.conftest import llama_like, make_chip

ONE = lr.balance_batch("llama-3.1-70b", "h100-sxm")  # 295.1 with bf16 weights


@pytest.mark.parametrize(
    ("split", "times", "groups"),
    [
        ({"tp": 8}, 1, 1),
        ({"tp": 4, "pp": 2}, 2, 1),
        ({"tp": 2, "replicas": 4}, 4, 4),
        ({"tp": 1, "pp": 2, "replicas": 4}, 8, 4),
    ],
)
def test_dense_splits_by_hand(split: dict[str, int], times: int, groups: int) -> None:
    dep = deployment("llama-3.1-70b", "h100-sxm", 8, **split)
    # within one whole sequence per group (and per micro-batch) of times × B*
    assert dep.balance_batch == pytest.approx(times * ONE, abs=times + groups)


def test_one_chip_is_the_closed_form() -> None:
    dep = deployment("llama-3.1-8b", "h100-sxm", 1)
    assert dep.balance_batch == pytest.approx(lr.balance_batch("llama-3.1-8b", "h100-sxm"), abs=1)


def _deepseek() -> lr.Deployment:
    return deployment("deepseek-v3", "gb200", 72, ep=72)


def test_expert_parallel_split_by_hand() -> None:
    dep = _deepseek()
    assert dep.dp == 72
    chip = dep.chip
    ratio = chip.flops(chip.compute_dtype_for("bf16")) / chip.memory_bw  # 312.5 FLOP/byte
    w_chip = dep.weights_per_chip_bytes() / 2  # bf16: parameters on the fullest chip
    # (FLOP/s / BW) · (2 bytes / 2) · W_chip / (N_active / 72): 16,793 by this estimate; the
    # busiest chip holds ⌈256 / 72⌉ = 4 experts a layer, above the mean, so the engine's is lower
    by_hand = ratio * 1.0 * w_chip * 72 / dep.model.params_multiplied
    assert dep.balance_batch == pytest.approx(by_hand, rel=0.05)
    # and it is neither one chip's B* (5,718) nor that times the 72 groups (411,668)
    one = lr.balance_batch("deepseek-v3", "gb200")
    assert 2 * one < dep.balance_batch < 72 * one / 10


def test_it_is_where_the_drawn_curves_cross() -> None:
    """The step-vs-batch figure draws the engine's matmul and weight-fetch terms: B* is where
    they cross (one micro-batch)."""
    dep = _deepseek()
    b = dep.balance_batch
    s = dep.decode(np.array([0.98 * b, 1.02 * b]), 1)
    one = s.single or s
    assert one.t_matmul[0] < one.t_weights[0]
    assert one.t_matmul[1] > one.t_weights[1]


def test_every_surface_shows_the_split_b_star(capsys: pytest.CaptureFixture[str]) -> None:
    dep = _deepseek()
    b = dep.balance_batch
    assert decode_report(dep, context_len=4096).balance_batch == b
    assert PlotSpec(dep, 4096).b_star() == b
    assert main(["report", "--model", "deepseek-v3", "--hardware", "gb200", "--chips", "72"]) == 0
    out = capsys.readouterr().out
    assert f"{b:,.0f}" in out
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from llm_roofline.web import create_app

    body = {"model": "deepseek-v3", "hardware": "gb200", "chips": 72, "ep": 72}
    r = TestClient(create_app()).post("/api/report", json=body)
    assert r.status_code == 200
    assert r.json()["balance_batch"] == pytest.approx(b, rel=1e-9)


def test_batch_axis_reaches_past_b_star_when_nothing_fits() -> None:
    # DeepSeek-V3 (671e9 parameters, 1.34 TB in bf16) does not fit on 8 H100s (80 GB each)
    dep = deployment("deepseek-v3", "h100-sxm", 8, ep=8)
    B, fit = batch_axis(dep, 4096)
    assert fit == 0
    assert B[-1] == pytest.approx(2.5 * dep.balance_batch, abs=1)


def _small(chips: int = 1, flops: float = 1e15, **split: int) -> lr.Deployment:
    # two chips joined by a 100 GB/s scale-up link (its time is not a matmul or a weight read)
    chip = dataclasses.replace(make_chip(flops=flops), scale_up_domain=2, scale_up_bw=1e11)
    spec = lr.spec_from_config(llama_like(), name="small")
    return deployment(spec, chip, chips, engine="ideal", **split)


def test_deployment_balance_batch_by_hand_on_a_small_model() -> None:
    """The small model of tests/conftest.py on a 1e15 FLOP/s, 1e12 B/s chip (1,000 FLOP/B):
    a step's matmuls take 2 · 61,841,408 · B / 1e15 s; it reads the stored weights less the
    untied input embedding (61,850,624) plus min(B, V = 1,000) gathered rows of 1,024, in
    bf16. At B = 1,000 the matmuls (1.2368e-4 s) are still below the reads (1.2575e-4 s), so
    every row is read where they cross: 2 · 61,841,408 · B / 1e15 = 2 · 62,874,624 / 1e12,
    B* = 1,000 · 62,874,624 / 61,841,408 = 1,016.71. A batch is whole sequences (1,016.5 is
    1,017 of them), so the solved value is within one sequence of it."""
    by_hand = 1000 * 62_874_624 / 61_841_408
    assert deployment_balance_batch(_small()) == pytest.approx(by_hand, abs=1)
    # tp 2: each chip does half the matmuls and reads half the weights: unchanged
    assert deployment_balance_batch(_small(2, tp=2)) == pytest.approx(by_hand, abs=1)
    # two replicas, or two pipeline stages (micro-batches of B / 2): twice the batch, within
    # one whole sequence per group
    assert deployment_balance_batch(_small(2, tp=1, replicas=2)) == pytest.approx(
        2 * by_hand, abs=2
    )
    assert deployment_balance_batch(_small(2, tp=1, pp=2)) == pytest.approx(2 * by_hand, abs=2)


def test_deployment_balance_batch_is_one_when_one_sequence_is_compute_bound() -> None:
    # a 1e9 FLOP/s chip: one token's matmuls (2 · 61,841,408 / 1e9 = 0.12 s) already take
    # longer than reading the weights (1.2e-4 s): B* is the smallest batch, 1
    assert deployment_balance_batch(_small(flops=1e9)) == 1.0
