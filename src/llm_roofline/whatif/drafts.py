"""The draft of speculative decoding for `fast_mode`: whether a model has a multi-token-
prediction layer (its config.json's `num_nextn_predict_layers`, as DeepSeek-V3 and R1 state;
ModelSpec does not hold it), and the draft a caller names ("auto", "mtp", "none" or a draft
model), checked."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from llm_roofline._core.errors import InputError, UnknownIdError
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.model.checkpoints import get_model, model_entry
from llm_roofline.model.spec import ModelSpec

__all__ = [
    "MTP_FIELDS",
    "check_mtp_layers",
    "draft_name",
    "model_mtp_layers",
    "mtp_layers_in",
    "no_mtp_reason",
    "resolve_draft",
]

MTP_FIELDS = ("num_nextn_predict_layers",)  # DeepSeek-V3's config.json (R1; Kimi K2 states 0)


def mtp_layers_in(config: Mapping[str, Any]) -> int:
    """The multi-token-prediction layers a config.json states (`num_nextn_predict_layers`, read
    in `text_config` too); 0 when it states none."""
    for cfg in (config, config.get("text_config")):
        if not isinstance(cfg, Mapping):
            continue
        for name in MTP_FIELDS:
            v = cfg.get(name)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v
    return 0


def model_mtp_layers(dep: Deployment) -> int:
    """The MTP layers of the deployment's model: from its catalog config (by model id), or
    from the config.json its id names (a file, or a folder holding one); 0 when neither says
    (ModelSpec itself does not hold them)."""
    name = dep.model_id.strip()
    if not name:
        return 0
    try:
        return mtp_layers_in(model_entry(name).config)
    except UnknownIdError:
        pass
    path = Path(name).expanduser()
    path = path / "config.json" if path.is_dir() else path
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    return mtp_layers_in(cfg) if isinstance(cfg, Mapping) else 0


def resolve_draft(draft: str | ModelSpec | None) -> str | ModelSpec | None:
    """ "auto" or "mtp" as given, None for "none" (a free draft), else the draft model (a catalog
    id or a config.json), refused naming the field `draft`."""
    if draft is None or isinstance(draft, ModelSpec):
        return draft
    key = draft.strip().lower()
    if key in ("auto", "mtp"):
        return key
    if key == "none":
        return None
    try:
        return get_model(draft)
    except UnknownIdError as exc:
        raise InputError(str(exc), field="draft") from None


def draft_name(draft: str | ModelSpec | None) -> str:
    """The draft as the answer names it."""
    if draft is None:
        return "none"
    return draft.name if isinstance(draft, ModelSpec) else draft


def no_mtp_reason(dep: Deployment) -> str:
    """Why speculative decoding is not tried by default for a model without an MTP layer."""
    return (
        f"{dep.spec.name} has no multi-token-prediction layer (its config.json states no "
        "num_nextn_predict_layers), so there is no draft to assume: give a draft model (a "
        "smaller model with its tokenizer: a catalog id or a config.json), mtp (timed as if "
        "it had one) or none (a free draft: the most speculation can give)"
    )


def check_mtp_layers(n: int) -> int:
    """An MTP layer count given by the caller (the web passes the uploaded config's)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InputError(f"mtp_layers must be 0 or a positive integer, got {n!r}", "mtp_layers")
    return int(n)
