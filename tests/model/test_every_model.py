"""Every catalog model on a few kinds of hardware gives finite, positive output in every verb's
library call: the report, the three serving modes, and the figures' data."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.deploy.deployment import deployment
from llm_roofline.deploy.report_table import decode_report
from llm_roofline.serving.modes import MODES, serve

SYSTEMS = [("h100-sxm", 8), ("mi300x", 8), ("tpu-v5e", 16), ("rtx-4090", 1), ("gb200", 72)]


@pytest.mark.slow
@pytest.mark.parametrize("model_id", lr.list_models())
def test_report_is_finite_everywhere(model_id: str) -> None:
    for hw, n in SYSTEMS:
        rep = decode_report(deployment(model_id, hw, n), context_len=4096)
        for key in ("latency_floor_s", "all_weights_time_s", "balance_batch", "drain_time_s"):
            v = getattr(rep, key)
            assert math.isfinite(v) and v > 0, (model_id, hw, key)
        for row in rep.rows:
            for key in ("t_compute_s", "t_weights_s", "t_kv_s", "t_ideal_s", "t_step_s"):
                assert math.isfinite(row[key]) and row[key] > 0, (model_id, hw, key)
            usd = row["usd_per_million_tokens"]
            assert usd is None or (math.isfinite(usd) and usd > 0)


@pytest.mark.parametrize("model_id", lr.list_models())
def test_serving_modes_are_finite(model_id: str) -> None:
    for mode in MODES:
        r = serve(model_id, "h100-sxm", 8, batch=16, input_len=2048, output_len=128, mode=mode)
        for key, v in r.as_dict().items():
            if isinstance(v, float):
                assert math.isfinite(v) and v >= 0, (model_id, mode, key)
        assert r.request_latency_s >= r.ttft_s > 0


@pytest.mark.parametrize("model_id", lr.list_models())
def test_prefill_grid_is_finite(model_id: str) -> None:
    p = lr.prefill(
        model_id,
        "b200",
        8,
        batch=np.array([1, 8])[:, None],
        prompt_len=np.array([1, 128, 32768])[None, :],
    )
    assert p.t_step.shape == (2, 3)
    assert np.all(np.isfinite(p.t_step)) and np.all(p.t_step > 0)
