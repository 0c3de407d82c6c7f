"""llm-roofline: how fast can this model run on that hardware, and what does a token cost?

A first-principles model of LLM inference (the roofline of a decode step and a prefill), with
catalogs of real models (their config.json) and real hardware (datasheet figures, sourced).

>>> import llm_roofline as lr
>>> step = lr.decode_step("llama-3.1-8b", "h100-sxm", batch=[1, 256], context_len=4096)
>>> step.t_step.shape, step.bound_names.tolist()
((2,), ['memory', 'memory'])

One deployment (model, chips, split, data types, engine) gives the same numbers on every
surface; the split is chosen by a documented rule when only chips are given:

>>> d = lr.deployment("llama-3.1-70b", "h100-sxm", 8)
>>> d.split_text()
'tp 8 · pp 1 · 1 replica (auto)'

The questions people bring are one call each, with typed answers: `simulate` (serving a
traffic step by step: `SimResult`), `plan` (the cheapest fleet meeting latency targets:
`FleetRequest` -> `PlanResult`), `optimize` (chips × split × batch: `SearchResult`),
`sensitivity` (which chip figure matters most: `Sensitivity`), `fast_mode` (the cheapest way
to F× tokens/s per user: `FastMode`) and `validate` (predicted against measured).

This module's `__all__` is the public surface (tests/test_public_api.py pins it); the wings below it
(`llm_roofline.engine`, `llm_roofline.sim`, ...) are the implementation and may move.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from llm_roofline._core.dtypes import DType, get_dtype, list_dtypes
from llm_roofline._core.errors import ConfigError, InputError, LlmRooflineError, UnknownIdError

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment, deployment
    from llm_roofline.deploy.split import auto_split
    from llm_roofline.engine.balance import (
        balance_batch,
        balance_batch_formula,
        balanced_context,
        balanced_context_formula,
        latency_floor,
    )
    from llm_roofline.engine.cost import joules_per_token, usd_per_million_tokens, usd_per_token
    from llm_roofline.engine.memory import MemoryUse, max_batch, memory_use
    from llm_roofline.engine.roofline import decode_step, prefill
    from llm_roofline.engine.step_time import BOUND_NAMES, OVERLAP_MODES, StepTime
    from llm_roofline.hardware.catalog import get_hardware, list_hardware
    from llm_roofline.hardware.chip import Chip, System
    from llm_roofline.model.checkpoints import ModelEntry, get_model, list_models, model_entry
    from llm_roofline.model.hf.config import spec_from_config
    from llm_roofline.model.spec import FFN, Attention, LayerGroup, ModelSpec
    from llm_roofline.model.weights_read import experts_touched
    from llm_roofline.planning.fleet_plan import plan
    from llm_roofline.planning.fleet_request import FleetRequest
    from llm_roofline.planning.fleet_result import PlanResult
    from llm_roofline.planning.optimize import SearchResult
    from llm_roofline.planning.optimize import search as optimize
    from llm_roofline.sim.simulate import SimResult, simulate
    from llm_roofline.validation.validate import validate
    from llm_roofline.whatif.fast_mode import FastMode, fast_mode
    from llm_roofline.whatif.sensitivity import Sensitivity, sensitivity

__version__ = "0.1.0"

# every other public name, imported on first use: name -> (module, attribute)
_LAZY = {
    "Attention": ("llm_roofline.model.spec", "Attention"),
    "BOUND_NAMES": ("llm_roofline.engine.step_time", "BOUND_NAMES"),
    "Chip": ("llm_roofline.hardware.chip", "Chip"),
    "Deployment": ("llm_roofline.deploy.deployment", "Deployment"),
    "FFN": ("llm_roofline.model.spec", "FFN"),
    "FastMode": ("llm_roofline.whatif.fast_mode", "FastMode"),
    "FleetRequest": ("llm_roofline.planning.fleet_request", "FleetRequest"),
    "LayerGroup": ("llm_roofline.model.spec", "LayerGroup"),
    "MemoryUse": ("llm_roofline.engine.memory", "MemoryUse"),
    "ModelEntry": ("llm_roofline.model.checkpoints", "ModelEntry"),
    "ModelSpec": ("llm_roofline.model.spec", "ModelSpec"),
    "OVERLAP_MODES": ("llm_roofline.engine.step_time", "OVERLAP_MODES"),
    "PlanResult": ("llm_roofline.planning.fleet_result", "PlanResult"),
    "SearchResult": ("llm_roofline.planning.optimize", "SearchResult"),
    "Sensitivity": ("llm_roofline.whatif.sensitivity", "Sensitivity"),
    "SimResult": ("llm_roofline.sim.simulate", "SimResult"),
    "StepTime": ("llm_roofline.engine.step_time", "StepTime"),
    "System": ("llm_roofline.hardware.chip", "System"),
    "auto_split": ("llm_roofline.deploy.split", "auto_split"),
    "balance_batch": ("llm_roofline.engine.balance", "balance_batch"),
    "balance_batch_formula": ("llm_roofline.engine.balance", "balance_batch_formula"),
    "balanced_context": ("llm_roofline.engine.balance", "balanced_context"),
    "balanced_context_formula": ("llm_roofline.engine.balance", "balanced_context_formula"),
    "decode_step": ("llm_roofline.engine.roofline", "decode_step"),
    "deployment": ("llm_roofline.deploy.deployment", "deployment"),
    "experts_touched": ("llm_roofline.model.weights_read", "experts_touched"),
    "fast_mode": ("llm_roofline.whatif.fast_mode", "fast_mode"),
    "get_hardware": ("llm_roofline.hardware.catalog", "get_hardware"),
    "get_model": ("llm_roofline.model.checkpoints", "get_model"),
    "joules_per_token": ("llm_roofline.engine.cost", "joules_per_token"),
    "latency_floor": ("llm_roofline.engine.balance", "latency_floor"),
    "list_hardware": ("llm_roofline.hardware.catalog", "list_hardware"),
    "list_models": ("llm_roofline.model.checkpoints", "list_models"),
    "max_batch": ("llm_roofline.engine.memory", "max_batch"),
    "memory_use": ("llm_roofline.engine.memory", "memory_use"),
    "model_entry": ("llm_roofline.model.checkpoints", "model_entry"),
    "optimize": ("llm_roofline.planning.optimize", "search"),
    "plan": ("llm_roofline.planning.fleet_plan", "plan"),
    "prefill": ("llm_roofline.engine.roofline", "prefill"),
    "sensitivity": ("llm_roofline.whatif.sensitivity", "sensitivity"),
    "simulate": ("llm_roofline.sim.simulate", "simulate"),
    "spec_from_config": ("llm_roofline.model.hf.config", "spec_from_config"),
    "usd_per_million_tokens": ("llm_roofline.engine.cost", "usd_per_million_tokens"),
    "usd_per_token": ("llm_roofline.engine.cost", "usd_per_token"),
    "validate": ("llm_roofline.validation.validate", "validate"),
}


def __getattr__(name: str) -> Any:
    """A public name, imported when first asked for (PEP 562)."""
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'llm_roofline' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "BOUND_NAMES",
    "FFN",
    "OVERLAP_MODES",
    "Attention",
    "Chip",
    "ConfigError",
    "DType",
    "Deployment",
    "FastMode",
    "FleetRequest",
    "InputError",
    "LayerGroup",
    "LlmRooflineError",
    "MemoryUse",
    "ModelEntry",
    "ModelSpec",
    "PlanResult",
    "SearchResult",
    "Sensitivity",
    "SimResult",
    "StepTime",
    "System",
    "UnknownIdError",
    "__version__",
    "auto_split",
    "balance_batch",
    "balance_batch_formula",
    "balanced_context",
    "balanced_context_formula",
    "decode_step",
    "deployment",
    "experts_touched",
    "fast_mode",
    "get_dtype",
    "get_hardware",
    "get_model",
    "joules_per_token",
    "latency_floor",
    "list_dtypes",
    "list_hardware",
    "list_models",
    "max_batch",
    "memory_use",
    "model_entry",
    "optimize",
    "plan",
    "prefill",
    "sensitivity",
    "simulate",
    "spec_from_config",
    "usd_per_million_tokens",
    "usd_per_token",
    "validate",
]
