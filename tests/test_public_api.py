"""The public API is explicit and pinned: a change to it is a deliberate change to this list."""

from __future__ import annotations

import llm_roofline

PUBLIC = {
    "FastMode",
    "FleetRequest",
    "PlanResult",
    "SearchResult",
    "Sensitivity",
    "SimResult",
    "fast_mode",
    "optimize",
    "plan",
    "sensitivity",
    "simulate",
    "validate",
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


def test_the_headline_features_load_on_first_use_and_answer_in_types() -> None:
    """simulate, plan, optimize, sensitivity and fast_mode are reached from the package and
    return dataclasses (not dicts); importing the package alone loads none of their wings."""
    import dataclasses
    import inspect
    import subprocess
    import sys

    code = (
        "import sys, llm_roofline; "
        "print(any(m.startswith('llm_roofline.sim.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    for fn, result in (
        (llm_roofline.simulate, llm_roofline.SimResult),
        (llm_roofline.plan, llm_roofline.PlanResult),
        (llm_roofline.optimize, llm_roofline.SearchResult),
        (llm_roofline.sensitivity, llm_roofline.Sensitivity),
        (llm_roofline.fast_mode, llm_roofline.FastMode),
    ):
        # annotations are text (`from __future__ import annotations`): the class's own name
        assert inspect.signature(fn).return_annotation == result.__name__, fn
        assert dataclasses.is_dataclass(result), result
    assert callable(llm_roofline.validate)
