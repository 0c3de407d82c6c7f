"""API routes of the page's deployment views: the report, one scenario (predict), a sweep and
the search over splits (optimize). Each builds the request's deployment
(`request_deployment.deployment_of`) and asks the library; none computes a figure itself. The
functions' names are part of the OpenAPI contract (each operationId is derived from one)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from llm_roofline._core.units import ms
from llm_roofline.deploy.scenarios.rows import OUTPUT_COLUMNS, RANGE_COLUMNS, scenario_inputs
from llm_roofline.web.report_body import report_body
from llm_roofline.web.request_deployment import deployment_of
from llm_roofline.web.schemas import OptimizeRequest, PredictRequest, ReportRequest, SweepRequest
from llm_roofline.web.schemas_answers import (
    OptimizeAnswer,
    PredictAnswer,
    ReportAnswer,
    SweepAnswer,
)

__all__ = ["api_deployment"]

api_deployment = APIRouter(prefix="/api")


@api_deployment.post("/report", response_model=ReportAnswer, response_model_exclude_unset=True)
def report(req: ReportRequest) -> dict[str, Any]:
    """Headline figures and the curves the page draws (each about 200 points): the ideal
    bound and the engine's estimate with its range, for one deployment."""
    return report_body(deployment_of(req), req)


@api_deployment.post("/predict", response_model=PredictAnswer, response_model_exclude_unset=True)
def predict(req: PredictRequest) -> dict[str, Any]:
    """One scenario of the contract (the same columns as `llm-roofline predict --json`)."""
    dep = deployment_of(req)
    res = dep.serve(
        batch=req.batch,
        input_len=req.input_len,
        output_len=req.output_len,
        mode=req.mode,
        search_fit=True,
    )
    out = res.as_dict()
    record = {**scenario_inputs(dep, req.batch, req.input_len, req.output_len, req.mode)}
    record.update({c: out[c] for c in OUTPUT_COLUMNS})
    record.update({c: out.get(c) for c in RANGE_COLUMNS})
    record["pad_heads"] = dep.pad_heads  # JSON: a bool, as in `deployment`
    record["split"] = dep.split_text()
    record["warning"] = "; ".join(res.warnings)
    return record


@api_deployment.post("/sweep", response_model=SweepAnswer, response_model_exclude_unset=True)
def sweep(req: SweepRequest) -> dict[str, Any]:
    from llm_roofline.deploy.report_table import sweep as run_sweep

    return {"rows": run_sweep(deployment_of(req), req.batches, req.contexts)}


@api_deployment.post("/optimize", response_model=OptimizeAnswer, response_model_exclude_unset=True)
def optimize(req: OptimizeRequest) -> dict[str, Any]:
    from llm_roofline.planning.optimize import search

    res = search(
        deployment_of(req),
        req.max_chips,
        context_len=req.context_len,
        tpot_s=req.tpot_ms * ms if req.tpot_ms else None,
        ttft_s=req.ttft_ms * ms if req.ttft_ms else None,
    )
    return {
        "engine": res.engine,
        "frontier": [res.row(int(i)) for i in res.frontier],
        "best": res.row(res.best) if res.best is not None else None,
        "configs_tried": res.configs_tried,
    }
