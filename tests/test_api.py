"""The public API is explicit and pinned: a change to it is a deliberate change to this list."""

from __future__ import annotations

import llm_roofline

PUBLIC = {
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
}


def test_public_api_is_pinned() -> None:
    assert set(llm_roofline.__all__) == PUBLIC
    for name in PUBLIC:
        assert hasattr(llm_roofline, name), name


def test_errors_are_typed() -> None:
    assert issubclass(llm_roofline.UnknownIdError, llm_roofline.LlmRooflineError)
    assert issubclass(llm_roofline.ConfigError, ValueError)
    assert issubclass(llm_roofline.InputError, ValueError)
