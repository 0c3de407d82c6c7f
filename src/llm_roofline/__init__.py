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
"""

from __future__ import annotations

from llm_roofline._core.dtypes import DType, get_dtype, list_dtypes
from llm_roofline._core.errors import ConfigError, InputError, LlmRooflineError, UnknownIdError
from llm_roofline.deploy.deployment import Deployment, auto_split, deployment
from llm_roofline.engine.cost import joules_per_token, usd_per_million_tokens, usd_per_token
from llm_roofline.engine.memory import MemoryUse, max_batch, memory_use
from llm_roofline.engine.roofline import (
    BOUND_NAMES,
    OVERLAP_MODES,
    StepTime,
    balance_batch,
    balance_batch_formula,
    balanced_context,
    balanced_context_formula,
    decode_step,
    latency_floor,
    prefill,
)
from llm_roofline.hardware.catalog import get_hardware, list_hardware
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import ModelEntry, get_model, list_models, model_entry
from llm_roofline.model.hf.config import load_config, spec_from_config
from llm_roofline.model.spec import FFN, Attention, LayerGroup, ModelSpec, experts_touched

__version__ = "0.1.0"

__all__ = [
    "BOUND_NAMES",
    "FFN",
    "OVERLAP_MODES",
    "Attention",
    "Chip",
    "ConfigError",
    "DType",
    "Deployment",
    "InputError",
    "LayerGroup",
    "LlmRooflineError",
    "MemoryUse",
    "ModelEntry",
    "ModelSpec",
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
    "get_dtype",
    "get_hardware",
    "get_model",
    "joules_per_token",
    "latency_floor",
    "list_dtypes",
    "list_hardware",
    "list_models",
    "load_config",
    "max_batch",
    "memory_use",
    "model_entry",
    "prefill",
    "spec_from_config",
    "usd_per_million_tokens",
    "usd_per_token",
]
