"""GenZ (genz-llm) adapter: ``GenZ.decode_moddeling`` with its built-in model and system presets.

``Bb`` (beam size, default 4) is set to 1 so the batch is ``batch`` sequences, ``output_tokens``
to 0 so the KV cache holds ``context`` tokens, and multi-chip scenarios use
``tensor_parallel=chips``. ``system_eff`` is left at its default (1). The prediction is
``Latency`` (ms per decode step).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

# Run with `python -P`: the adapter's own folder must not shadow the peer package of the
# same name, so it goes on the end of sys.path, only to find _protocol.
sys.path.append(str(Path(__file__).resolve().parent))
from _protocol import SIXTEEN_BIT, Unsupported, main

MODEL = {
    "llama-3.1-8b": "meta-llama/Llama-3.1-8B",
    "llama-3.1-70b": "meta-llama/Llama-3.1-70B",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B",
    # accuracy rows: built-in presets of the same shapes (3 vs 3.1 / 3.3 differ in RoPE
    # scaling and context length only)
    "llama-2-7b": "meta-llama/Llama-2-7B",
    "llama-3-8b": "meta-llama/Llama-3.1-8B",
    "llama-3-70b": "meta-llama/Llama-3.1-70B",
    "llama-3.3-70b": "meta-llama/Llama-3.1-70B",
}
SYSTEM = {"h100-sxm": "H100_GPU", "a100-80gb": "A100_80GB_GPU"}


def _run(kind: str, model: str, **kw: Any) -> float:
    import GenZ

    args = {
        "model": model,
        "batch_size": 8,
        "input_tokens": 1024,
        "system_name": "H100_GPU",
        "bits": "bf16",
    }
    if kind == "decode":
        args["Bb"] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = getattr(GenZ, f"{kind}_moddeling")(**(args | kw))
    return float(out["Latency"])


def _ok(kind: str, model: str, **kw: Any) -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        ms = _run(kind, model, **kw)
        extra = ", ".join(f"{k}={v}" for k, v in kw.items())
        return (
            "yes" if ms > 0 else "no"
        ), f"{kind}_moddeling({model}{', ' + extra if extra else ''}): {ms:.3g} ms"

    return probe


def _gqa(job: dict[str, Any]) -> tuple[str, str]:
    from GenZ.Models import get_configs

    cfg = get_configs(MODEL["llama-3.1-8b"])
    kv, h = cfg.num_key_value_heads, cfg.num_attention_heads
    return ("yes" if kv < h else "no"), f"Llama 3.1 8B preset: {kv} KV heads of {h}"


def _ratio(model: str, base: dict[str, int], **kw: Any) -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        a, b = _run("decode", model, **base), _run("decode", model, **kw)
        fmt = lambda d: ", ".join(f"{k}={v}" for k, v in d.items()) or "one chip"  # noqa: E731
        return "yes", f"{fmt(kw)} accepted: decode {b / a:.2f}x of {fmt(base)}"

    return probe


def _fit(job: dict[str, Any]) -> tuple[str, str]:
    try:
        _run("decode", L70)
    except ValueError as exc:
        return "yes", f"70B bf16 on one H100 refused: {str(exc).splitlines()[0][:80]}"
    return "no", "70B bf16 on one H100 accepted"


L8, L70, MIX = MODEL["llama-3.1-8b"], MODEL["llama-3.1-70b"], MODEL["mixtral-8x7b"]
PROBES = {
    "decode": _ok("decode", L8),
    "prefill": _ok("prefill", L8),
    "gqa": _gqa,
    # it would not fit on 8 H100 in bf16 otherwise (TP does not split its experts)
    "mla": _ok("decode", "deepseek-ai/DeepSeek-V3-Base", tensor_parallel=8, model_offload=True),
    "moe": _ok("decode", MIX, tensor_parallel=2),
    "tp_comm": _ratio(L70, {"tensor_parallel": 2}, tensor_parallel=8),
    "ep": _ratio(MIX, {"tensor_parallel": 2}, expert_parallel=2),
    "pp": _ratio(L8, {}, pipeline_parallel=2),
    "continuous_batching": (
        "partial",
        "chunked_moddeling: a chunked-prefill step mixing prefill and decode; "
        "no request-level serving",
    ),
    "spec_decode": ("yes", "GenZ.LLM_inference.llm_spec_decode"),
    "memory_fit": _fit,
    "cost": ("no", "no price input or $ output"),
    "energy": ("no", "no power or energy output"),
    "config_json": ("partial", "built-in presets or its own ModelConfig; no config.json reader"),
    "calibration": ("partial", "system_eff / ceff / meff efficiency knobs set by hand; no fit"),
    "ranges": ("no", "one value per output"),
    "web": ("no", "none in the PyPI package (Python API)"),
}


def predict(sc: dict[str, Any]) -> tuple[float, str]:
    from GenZ import decode_moddeling

    if sc["model"] not in MODEL or sc["hardware"] not in SYSTEM:
        raise Unsupported("no built-in preset for this model/system")
    if sc["weight_dtype"] not in SIXTEEN_BIT or sc.get("kv_dtype", "bf16") not in SIXTEEN_BIT:
        raise Unsupported("adapter maps only 16-bit (bf16/fp16) weights and KV")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = decode_moddeling(
            model=MODEL[sc["model"]],
            batch_size=sc["batch"],
            input_tokens=sc["context"],
            output_tokens=0,
            Bb=1,
            system_name=SYSTEM[sc["hardware"]],
            bits="bf16",
            tensor_parallel=sc["chips"],
        )
    return float(out["Latency"]) / 1e3, f"decode_moddeling Latency, TP={sc['chips']}"


if __name__ == "__main__":
    main("genz-llm", "genz-llm", predict, PROBES)
