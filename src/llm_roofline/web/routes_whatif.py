"""API routes of the page's what-if views: what matters most (sensitivity) and fast modes.
Each builds the request's deployment (`deployment.deployment_of`) and asks the library
(`sensitivity.py`, `fast_mode.py`); none computes a figure itself. The functions' names are
part of the OpenAPI contract (each operationId is derived from one)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from llm_roofline._core.errors import ConfigError, UnknownIdError
from llm_roofline._core.units import ms
from llm_roofline.model.checkpoints import model_entry
from llm_roofline.model.spec import ModelSpec
from llm_roofline.web.json_values import json_body
from llm_roofline.web.request_deployment import deployment_of
from llm_roofline.web.schemas_whatif import FastModeRequest, SensitivityRequest
from llm_roofline.web.schemas_whatif_answers import FastModeAnswer, SensitivityAnswer

__all__ = ["api_whatif"]

api_whatif = APIRouter(prefix="/api")


@api_whatif.post(
    "/sensitivity", response_model=SensitivityAnswer, response_model_exclude_unset=True
)
def sensitivity(req: SensitivityRequest) -> dict[str, Any]:
    """Each chip figure raised by `step_pct`: the change of tokens/s per user, throughput and $
    per million tokens at the batch given, the largest that fits and (with `tpot_ms`) the
    largest within the target (`llm-roofline sensitivity --json`'s `sensitivity`); with
    `across_catalog`, `catalog`: every catalog chip's cheapest setting and what bounds it."""
    from llm_roofline.whatif.chip_ranking import across_catalog
    from llm_roofline.whatif.sensitivity import sensitivity as run

    dep = deployment_of(req)
    target = req.tpot_ms * ms if req.tpot_ms is not None else None
    step = req.step_pct / 100.0
    body = run(dep, context_len=req.context_len, batch=req.batch, tpot_s=target, step=step)
    out: dict[str, Any] = body.as_dict()
    out["catalog"] = (
        across_catalog(
            dep, context_len=req.context_len, max_chips=req.max_chips, tpot_s=target, step=step
        ).as_dict()
        if req.across_catalog
        else None
    )
    return dict(json_body(out))


def _draft(name: str) -> str | ModelSpec | None:
    """The request's draft: auto, mtp, none, or a catalog model (ids only: the server reads no
    files); an unknown id is a 400 naming `draft`."""
    key = name.strip().lower()
    if key in ("auto", "mtp", "none"):
        return None if key == "none" else key
    try:
        return model_entry(key).spec
    except UnknownIdError as exc:
        raise ConfigError(str(exc), field="draft") from None


@api_whatif.post("/fast-mode", response_model=FastModeAnswer, response_model_exclude_unset=True)
def fast_mode(req: FastModeRequest) -> dict[str, Any]:
    """The cheapest way to raise tokens/s per user by `speedup` from the base `batch` (decoding
    without speculation): a smaller batch, more chips, speculative decoding (by default only
    with the model's own MTP layer; `not_tried` says why an option was left out), the price
    multiple each implies, and each option's frontier of price multiple against speed-up
    (`llm-roofline fast-mode --json`)."""
    from llm_roofline.whatif.drafts import mtp_layers_in
    from llm_roofline.whatif.fast_mode import fast_mode as run

    dep = deployment_of(req)
    # the MTP layers the uploaded config.json or the catalog model's states (the server reads
    # no files: never the library's reading of a config.json by path)
    cfg = req.config if req.config is not None else model_entry(str(req.model)).config
    mtp = mtp_layers_in(cfg)
    res = run(
        dep,
        context_len=req.context_len,
        batch=req.batch,
        speedup=req.speedup,
        gamma=req.gamma,
        acceptance=req.acceptance,
        draft=_draft(req.draft),
        max_chips=req.max_chips,
        mtp_layers=mtp,
    )
    return dict(json_body(res.as_dict()))
