"""A request's deployment: every endpoint builds it the same way, from a catalog model or an
uploaded config.json, catalog hardware or a chip record of the request's own, and the split,
data types, engine and price the request names. The server reads no files: ids are catalog ids
only. A bad name is a `ConfigError` naming the request's field (a 400)."""

from __future__ import annotations

from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import ConfigError, UnknownIdError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.checkpoints import model_entry
from llm_roofline.model.hf.config import spec_from_config
from llm_roofline.model.spec import ModelSpec
from llm_roofline.web.schemas import SystemQuery

__all__ = ["deployment_of"]


def _spec(req: SystemQuery) -> ModelSpec:
    if req.config is not None:
        return spec_from_config(req.config, name=req.model or "uploaded config", source="upload")
    if req.model is None:
        raise ConfigError("give a catalog model id or an uploaded config.json", field="model")
    return model_entry(req.model).spec  # catalog ids only: the server reads no files


def _check_dtypes(req: SystemQuery) -> None:
    for name in ("weight_dtype", "kv_dtype"):
        try:
            get_dtype(getattr(req, name))
        except UnknownIdError as exc:
            raise ConfigError(str(exc), field=name) from None


def _chip(req: SystemQuery) -> Chip:
    if req.chip is None:
        return get_hardware(req.hardware, files=False)  # catalog ids only: no server files
    rec = dict(req.chip)
    chip_id = str(rec.pop("id", None) or "my-chip")
    return Chip.from_record(chip_id, rec)


def deployment_of(req: SystemQuery) -> Deployment:
    """The request's deployment (every endpoint builds it the same way)."""
    _check_dtypes(req)
    try:
        return deployment(
            _spec(req),
            _chip(req),
            req.chips,
            tp=req.tp,
            pp=req.pp,
            ep=req.ep,
            replicas=req.replicas,
            pad_heads=req.pad_heads,
            weight_dtype=req.weight_dtype,
            kv_dtype=req.kv_dtype,
            overlap=req.overlap,
            engine=req.engine,
            price_usd_per_hour=req.price_usd_per_hour,
            model_id=req.model or "uploaded config",
        )
    except UnknownIdError as exc:
        raise ConfigError(str(exc), field="engine" if exc.kind == "engine" else exc.kind) from None
