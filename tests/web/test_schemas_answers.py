"""web/schemas_answers.py: the answer models of the catalog, report, predict, sweep and optimize
routes accept what the routes serve, refuse a value of the wrong type naming its place, and let
an undeclared key through (`Answer`: extra="allow")."""

from __future__ import annotations

from llm_roofline.web.schemas_answers import (
    ModelRow,
    OptimizeAnswer,
    PredictAnswer,
    ReportAnswer,
    SweepAnswer,
)

from .answer_models import D, client, post_ok, refused_at


def test_a_catalog_row_and_an_undeclared_key() -> None:
    rows = client.get("/api/models").json()
    row = ModelRow.model_validate(next(r for r in rows if r["id"] == "llama-3.1-8b"))
    # Llama 3.1 8B's config.json: 32 layers × (K, V) × 8 KV heads × 128 × 2 bytes (bf16)
    assert row.kv_bytes_per_token_bf16 == 32 * 2 * 8 * 128 * 2 == 131_072
    assert row.moe is False
    extra = ModelRow.model_validate({**row.model_dump(), "new_key": 1})
    assert extra.model_extra == {"new_key": 1}  # let through, not dropped


def test_predict_and_report_answers() -> None:
    served = post_ok("/api/predict", {**D, "batch": 8, "input_len": 512, "output_len": 128})
    answer = PredictAnswer.model_validate(served)
    assert (answer.batch, answer.input_len, answer.output_len, answer.mode) == (
        8,
        512,
        128,
        "decode",
    )
    assert refused_at(PredictAnswer, {**served, "batch": "eight"}) == ("batch",)
    assert refused_at(PredictAnswer, {**served, "fits": "maybe"}) == ("fits",)
    report = post_ok("/api/report", {**D, "context_len": 4096, "batch": 16})
    rep = ReportAnswer.model_validate(report)
    assert (rep.at_batch.batch, rep.at_batch.context_len) == (16, 4096)
    bad = {**report, "at_batch": {**report["at_batch"], "t_step_s": "fast"}}
    assert refused_at(ReportAnswer, bad) == ("at_batch", "t_step_s")


def test_sweep_and_optimize_answers() -> None:
    sweep = post_ok("/api/sweep", {**D, "batches": [1, 64], "contexts": [1024]})
    rows = SweepAnswer.model_validate(sweep).rows
    assert [(r.batch, r.context_len) for r in rows] == [(1, 1024), (64, 1024)]
    bad = {"rows": [{**sweep["rows"][0], "model": 42}]}
    assert refused_at(SweepAnswer, bad) == ("rows", 0, "model")
    found = post_ok("/api/optimize", {**D, "max_chips": 2, "tpot_ms": 0.01})
    answer = OptimizeAnswer.model_validate(found)
    assert answer.best is None  # no split reaches 10 µs per token
    assert answer.frontier and all(r.chips <= 2 for r in answer.frontier)  # max_chips 2
