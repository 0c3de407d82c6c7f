"""servcalc adapter: ``servcalc.estimate`` with an HF-style ``config.json`` dict.

servcalc models a serving engine, not a bare decode step. To ask it for one decode step at a
given context, the adapter uses its vLLM profile switched to static batching without chunked
prefill (``profiles.vllm(chunked=False, batching="static")``) and a workload of
``prompt_len = context - 1``, ``gen_len = 2``: exactly one decode step whose context is
``context``. The prediction is the mid value of ``itl_ms`` (which includes servcalc's per-step
overhead and bandwidth/MFU efficiency curves, "prior" values in 0.1, not yet fitted). servcalc
0.1 is single-GPU and dense only.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# Run with `python -P`: the adapter's own folder must not shadow the peer package of the
# same name, so it goes on the end of sys.path, only to find _protocol.
sys.path.append(str(Path(__file__).resolve().parent))
from _protocol import SIXTEEN_BIT, Unsupported, main

GPU = {"h100-sxm": "H100 80GB", "a100-80gb": "A100 80GB"}


def _point(cfg: dict[str, Any], batch: int = 8, **prof: Any) -> Any:
    from servcalc import Workload, estimate, profiles

    profile = profiles.vllm(**prof) if prof else profiles.vllm()
    wl = Workload(prompt_len=1023, gen_len=64, concurrency=(batch,))
    return estimate(cfg, "H100 80GB", workload=wl, profile=profile).points[0]


def _ok(attr: str, scen: str = "dense", **prof: Any) -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        cfg = job[scen] if scen == "mla_hf_config" else job[scen]["hf_config"]
        v = getattr(_point(cfg, **prof), attr)
        return "yes", f"`{attr}` low / mid / high = {v.low:.3g} / {v.mid:.3g} / {v.high:.3g} ms"

    return probe


def _gqa(job: dict[str, Any]) -> tuple[str, str]:
    cfg = job["dense"]["hf_config"]
    mha = dict(cfg, num_key_value_heads=cfg["num_attention_heads"])
    a, b = _point(cfg, 64).itl_ms.mid, _point(mha, 64).itl_ms.mid
    return ("yes" if a < b else "no"), f"batch 64: ITL with 8 KV heads {a / b:.2f}x of MHA"


def _fit(job: dict[str, Any]) -> tuple[str, str]:
    from servcalc import DoesNotFitError

    try:
        p = _point(job["dense8"]["hf_config"], 1)
    except DoesNotFitError as exc:
        return "yes", f"70B bf16 on one H100 refused: {str(exc)[:90]}"
    return ("yes" if not p.feasible else "no"), f"70B on one H100: feasible={p.feasible}"


PROBES = {
    "decode": _ok("itl_ms"),
    "prefill": _ok("ttft_ms"),
    "gqa": _gqa,
    "mla": _ok("itl_ms", "mla_hf_config"),
    "moe": _ok("itl_ms", "moe"),
    "tp_comm": ("no", "single GPU: estimate() takes one GPU name, no parallelism input"),
    "ep": ("no", "single GPU"),
    "pp": ("no", "single GPU"),
    "continuous_batching": _ok("itl_ms", batching="continuous"),
    "spec_decode": ("no", "its own list of what is not modelled says: no speculative decoding"),
    "memory_fit": _fit,
    "cost": ("no", "no price input or $ output"),
    "energy": ("no", "no power or energy output"),
    "config_json": _ok("itl_ms"),
    "calibration": (
        "partial",
        "Calibration curves (bandwidth / MFU / overhead) can be passed; built-in ones are "
        "priors, no fitting routine",
    ),
    "ranges": _ok("itl_ms"),
    "web": ("no", "Python API"),
}


def predict(sc: dict[str, Any]) -> tuple[float, str]:
    from servcalc import Workload, estimate, profiles

    if sc["chips"] != 1:
        raise Unsupported("servcalc 0.1 is single-GPU (no tensor/pipeline parallel)")
    if sc["arch"]["n_experts"]:
        raise Unsupported("servcalc 0.1 has no MoE (model_type mixtral is rejected)")
    if sc["hardware"] not in GPU:
        raise Unsupported(f"no GPU entry for {sc['hardware']}")
    if sc["weight_dtype"] not in SIXTEEN_BIT or sc.get("kv_dtype", "bf16") not in SIXTEEN_BIT:
        raise Unsupported("adapter maps only 16-bit (bf16/fp16) weights and KV")
    profile = profiles.vllm(chunked=False, batching="static")
    wl = Workload(prompt_len=sc["context"] - 1, gen_len=2, concurrency=(sc["batch"],))
    e = estimate(sc["hf_config"], GPU[sc["hardware"]], workload=wl, profile=profile)
    p = e.points[0]
    note = "itl_ms.mid, vllm profile static/no chunking"
    if not p.feasible:
        note += f"; servcalc says infeasible: {p.infeasible_reason}"
    return p.itl_ms.mid / 1e3, note


if __name__ == "__main__":
    main("servcalc", "servcalc", predict, PROBES)
