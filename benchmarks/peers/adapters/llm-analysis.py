"""llm-analysis adapter: ``llm_analysis.analysis.infer`` with a model-config JSON file.

The model config is written from the scenario's architecture numbers (which come from
llm_roofline's catalog), in the field names llm-analysis's ``ModelConfig`` takes. GPU
``h100-sxm-80gb`` and dtype ``w16a16e16`` are llm-analysis's own presets; efficiencies are left
at its defaults. The prediction is ``decode_latency`` for one generated token after a
``context``-token prompt.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

# Run with `python -P`: the adapter's own folder must not shadow the peer package of the
# same name, so it goes on the end of sys.path, only to find _protocol.
sys.path.append(str(Path(__file__).resolve().parent))
from _protocol import SIXTEEN_BIT, Unsupported, main

GPU = {"h100-sxm": "h100-sxm-80gb", "a100-80gb": "a100-sxm-80gb"}
_configs: dict[str, str] = {}


def _config_path(sc: dict[str, Any]) -> str:
    if sc["model"] in _configs:
        return _configs[sc["model"]]
    a = sc["arch"]
    cfg = {
        "name": f"llm-roofline-peers-{sc['model']}",
        "num_layers": a["layers"],
        "n_head": a["n_heads"],
        "hidden_dim": a["d_model"],
        "vocab_size": a["vocab_size"],
        "max_seq_len": a["max_context"],
        "num_key_value_heads": a["n_kv_heads"],
        "ffn_embed_dim": a["d_ff"],
        # given explicitly: llm-analysis asserts d_ff % d_model == 0 when it has to derive it
        "expansion_ratio": a["d_ff"] / a["d_model"],
        "model_type": a["model_type"],
        "moe_num_experts": max(1, a["n_experts"]),
        "moe_top_k": max(1, a["top_k"]),
    }
    fd, path = tempfile.mkstemp(suffix=".json", prefix="llm_analysis_")
    with os.fdopen(fd, "w") as f:
        json.dump(cfg, f)
    _configs[sc["model"]] = path
    return path


def _infer(sc: dict[str, Any], **kw: Any) -> dict[str, Any]:
    from llm_analysis.analysis import infer

    logging.disable(logging.INFO)
    args = {
        "model_name": _config_path(sc),
        "gpu_name": GPU[sc["hardware"]],
        "dtype_name": "w16a16e16",
        "log_level": "ERROR",
        "batch_size_per_gpu": sc["batch"],
        "tp_size": sc["chips"],
        "seq_len": sc["context"],
        "num_tokens_to_generate": 1,
    }
    return dict(infer(**(args | kw)))


def _gqa(job: dict[str, Any]) -> tuple[str, str]:
    sc = job["dense"]
    mha = dict(
        sc, model=sc["model"] + "-mha", arch=dict(sc["arch"], n_kv_heads=sc["arch"]["n_heads"])
    )
    kv_g, kv_m = _infer(sc)["kv_cache_memory_per_gpu"], _infer(mha)["kv_cache_memory_per_gpu"]
    return ("yes" if kv_g < kv_m else "no"), f"KV cache {kv_g / kv_m:.2f}x of the MHA one"


def _pp(job: dict[str, Any]) -> tuple[str, str]:
    sc = job["dense"]
    a, b = _infer(sc)["decode_latency"], _infer(sc, pp_size=2)["decode_latency"]
    return "yes", f"pp_size=2 accepted; decode latency {b / a:.2f}x of pp=1"


def _positive(key: str, scen: str = "dense", **kw: Any) -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        v = _infer(job[scen], **kw)[key]
        return ("yes" if v and v > 0 else "no"), f"`{key}` = {v:.3g}"

    return probe


PROBES = {
    "decode": _positive("decode_latency"),
    "prefill": _positive("prefill_latency"),
    "gqa": _gqa,
    "mla": ("no", "ModelConfig has no latent-KV (kv_lora_rank) fields"),
    "moe": _positive("decode_latency", "moe"),
    "tp_comm": _positive("decode_latency_fwd_tp_comm", "dense8"),
    "ep": ("no", "infer() takes no ep_size (the result only echoes ep_size)"),
    "pp": _pp,
    "continuous_batching": ("no", "one static batch per call"),
    "spec_decode": ("no", "no draft-model / speculation input"),
    "memory_fit": _positive("decode_max_batch_size_per_gpu"),
    "cost": _positive("decode_cost_per_1k_tokens", cost_per_gpu_hour=2.0),
    "energy": ("no", "no power or energy output"),
    "config_json": (
        "partial",
        "its own model-config JSON field names; HF configs via a Hub lookup",
    ),
    "calibration": ("partial", "efficiency / achieved TFLOPS and bandwidth set by hand; no fit"),
    "ranges": ("no", "one value per output"),
    "web": ("no", "Python API and CLI"),
}


def predict(sc: dict[str, Any]) -> tuple[float, str]:
    from llm_analysis.analysis import infer

    if sc["hardware"] not in GPU:
        raise Unsupported(f"no preset for {sc['hardware']}")
    if sc["weight_dtype"] not in SIXTEEN_BIT or sc.get("kv_dtype", "bf16") not in SIXTEEN_BIT:
        raise Unsupported("adapter maps only 16-bit weights and KV, to w16a16e16")
    logging.disable(logging.INFO)  # warnings stay, in out/<peer>.stderr.txt
    r = infer(
        model_name=_config_path(sc),
        gpu_name=GPU[sc["hardware"]],
        dtype_name="w16a16e16",
        log_level="ERROR",
        batch_size_per_gpu=sc["batch"],
        tp_size=sc["chips"],
        seq_len=sc["context"],
        num_tokens_to_generate=1,
    )
    return float(r["decode_latency"]), f"infer(tp_size={sc['chips']}), decode_latency"


if __name__ == "__main__":
    main("llm-analysis", "llm-analysis", predict, PROBES)
