"""llm-roofline: how fast can this model run on that hardware, and what does a token cost?

A first-principles model of LLM inference (the roofline of a decode step and a prefill), with
catalogs of real models (their config.json) and real hardware (datasheet figures, sourced).

>>> import llm_roofline as lr
>>> step = lr.decode_step("llama-3.1-8b", "h100-sxm", batch=[1, 256], context_len=4096)
>>> step.t_step.shape, list(step.bound_names)
((2,), ['memory', 'memory'])
"""

from __future__ import annotations

from .catalog import (
    ModelEntry,
    get_hardware,
    get_model,
    list_hardware,
    list_models,
    model_entry,
)
from .cost import joules_per_token, usd_per_million_tokens, usd_per_token
from .dtypes import DType, get_dtype, list_dtypes
from .errors import ConfigError, InputError, LlmRooflineError, UnknownIdError
from .hardware import Chip, System
from .hf_config import load_config, spec_from_config
from .memory import MemoryUse, max_batch, memory_use
from .model import FFN, Attention, LayerGroup, ModelSpec, experts_touched
from .roofline import (
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

__version__ = "0.1.0"

__all__ = [
    "BOUND_NAMES",
    "FFN",
    "OVERLAP_MODES",
    "Attention",
    "Chip",
    "ConfigError",
    "DType",
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
    "balance_batch",
    "balance_batch_formula",
    "balanced_context",
    "balanced_context_formula",
    "decode_step",
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
