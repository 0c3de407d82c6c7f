"""The API route of the page's planning view (`/api/plan`): the cheapest fleet meeting the
latency targets, from the library's fleet search. The server reads no file: models and chips
are catalog ids or the body's own config. The function's name is part of the OpenAPI contract
(its operationId is derived from it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from llm_roofline._core.errors import ConfigError
from llm_roofline._core.units import hour
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.checkpoints import model_entry
from llm_roofline.model.hf.config import spec_from_config
from llm_roofline.model.spec import ModelSpec
from llm_roofline.planning.fleet_plan import plan as search
from llm_roofline.planning.fleet_request import FleetRequest, priced_chips
from llm_roofline.web.json_values import json_body
from llm_roofline.web.schemas import PlanRequest
from llm_roofline.web.schemas_sim_answers import PlanAnswer

__all__ = ["api_plan"]

api_plan = APIRouter(prefix="/api")


def _plan_model(req: PlanRequest) -> str | ModelSpec:
    """The request's model: its uploaded config, or a catalog id (checked here, so that no
    path reaches the library: the server reads no files)."""
    if req.config is not None:
        return spec_from_config(req.config, name=req.model or "uploaded config", source="upload")
    if req.model is None:
        raise ConfigError("give a catalog model id or an uploaded config.json", field="model")
    model_entry(req.model)  # an unknown id is a 400 naming `model`
    return req.model


def _plan_chips(req: PlanRequest) -> list[Chip]:
    """The request's catalog chips (the server reads no file), each at the request's price
    where it gives one (`plan.priced_chips`: a 400 naming `prices` otherwise)."""
    return priced_chips([get_hardware(h, files=False) for h in req.hardware], req.prices)


PLAN_SECONDS = 60.0  # a plan search past this is stopped (a 400): `llm-roofline plan` has no limit


@api_plan.post("/plan", response_model=PlanAnswer, response_model_exclude_unset=True)
def plan(req: PlanRequest) -> dict[str, Any]:
    """The cheapest fleet of the hardware given meeting TTFT p90 and TPOT p99 at the rate
    (`llm-roofline plan --json`'s keys): `best` (None when no fleet within `max_chips` meets
    both, with `reason` saying which target binds), the frontier of the fleets simulated
    (`candidates`) and what the search did. Models and chips are catalog ids or the body's
    own config: the server reads no file."""
    chips = _plan_chips(req)
    fields = req.model_dump(exclude={"config", "prices"})
    question = FleetRequest.from_fields(
        fields, model=_plan_model(req), hardware=chips, time_limit_s=PLAN_SECONDS
    )
    res = search(question)
    body: dict[str, Any] = json_body(res.as_dict())
    # the price each chip was costed at, and whether it was the request's or the catalog's
    given = req.prices or {}
    body["prices"] = {
        h: {
            "usd_per_hour": c.price_usd_per_s * hour,
            "source": "request" if h in given else "catalog",
        }
        for h, c in zip(req.hardware, chips, strict=True)
    }
    return body
