"""web/schemas_whatif_answers.py: the answer models of `/api/sensitivity` and `/api/fast-mode`
accept what the routes serve and refuse a value of the wrong type, naming its place."""

from __future__ import annotations

import pytest

from llm_roofline.web.schemas_whatif_answers import FastModeAnswer, SensitivityAnswer

from .answer_models import D, post_ok, refused_at


def test_a_sensitivity_answer() -> None:
    served = post_ok("/api/sensitivity", {**D, "context_len": 4096, "batch": 8, "step_pct": 20})
    answer = SensitivityAnswer.model_validate(served)
    assert (answer.context_len, answer.batch, answer.step) == (4096, 8, 0.2)  # 20 % as 0.2
    assert answer.catalog is None  # across_catalog not asked for
    assert answer.policies and all(p.effects for p in answer.policies)
    assert refused_at(SensitivityAnswer, {**served, "sentences": "one"}) == ("sentences",)


def test_a_fast_mode_answer() -> None:
    served = post_ok("/api/fast-mode", {**D, "context_len": 4096, "batch": 64, "speedup": 2.0})
    answer = FastModeAnswer.model_validate(served)
    assert answer.base.batch == 64
    # twice the tokens/s per user: half the base's time per token
    assert answer.base.tpot_s is not None
    assert answer.target_tpot_s == pytest.approx(answer.base.tpot_s / 2.0)
    bad = {**served, "base": {**served["base"], "chips": "several"}}
    assert refused_at(FastModeAnswer, bad) == ("base", "chips")
