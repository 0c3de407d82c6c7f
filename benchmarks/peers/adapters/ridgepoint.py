"""ridgepoint adapter: ``ridgepoint.fit(model, gpu, count=..., ctx=..., as_json=True)``.

ridgepoint's public API takes a built-in model id or a Hugging Face repo id (fetched over the
network, which is not available here), so the adapter uses its built-in ids. Its ``llama-3-8b`` /
``llama-3-70b`` have the same shapes as Llama 3.1 8B / 70B (the 3.1 change is RoPE scaling and
context length, which a decode-step cost does not see). The API has no batch-size input: its
``decode_tok_s`` is per request, so only batch 1 maps onto it. The prediction is
``1 / speed.decode_tok_s.best``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# Run with `python -P`: the adapter's own folder must not shadow the peer package of the
# same name, so it goes on the end of sys.path, only to find _protocol.
sys.path.append(str(Path(__file__).resolve().parent))
from _protocol import SIXTEEN_BIT, Unsupported, main

MODEL = {
    "llama-3.1-8b": "llama-3-8b",
    "llama-3.1-70b": "llama-3-70b",
    "mixtral-8x7b": "mixtral-8x7b",
    # accuracy rows (3.3 70B has the 3 70B shapes)
    "llama-2-7b": "llama-2-7b",
    "llama-3-8b": "llama-3-8b",
    "llama-3-70b": "llama-3-70b",
    "llama-3.3-70b": "llama-3-70b",
}
GPU = {"h100-sxm": "h100-80gb", "a100-80gb": "a100-80gb"}


def _fit(model: str = "llama-3-8b", count: int = 1, **kw: Any) -> dict[str, Any]:
    import ridgepoint

    args = {"count": count, "dtype": "bf16", "kv_cache_dtype": "bf16", "ctx": 1024, "prompt": 1024}
    return dict(json.loads(ridgepoint.fit(model, "h100-80gb", as_json=True, **(args | kw))))


def _speed(model: str = "llama-3-8b", count: int = 1, key: str = "decode_tok_s") -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        v = _fit(model, count)["speed"][key]
        return "yes", f"fit({model}, count={count}): `speed.{key}` = {v}"

    return probe


def _kv(models: tuple[str, ...], want: str) -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        for model in models[:-1]:  # the first built-in id that exists
            try:
                kind = _fit(model, 8)["model"]["kv_kind"]
                break
            except ValueError:
                continue
        else:
            model = models[-1]
            kind = _fit(model, 8)["model"]["kv_kind"]
        return ("yes" if want in str(kind).lower() else "partial"), f"{model}: kv_kind = {kind}"

    return probe


def _mem(job: dict[str, Any]) -> tuple[str, str]:
    v = _fit("llama-3-70b", 1)["verdict"]
    return ("yes" if not v["serves"] else "no"), f"llama-3-70b on one H100: verdict {v}"


def _ranges(job: dict[str, Any]) -> tuple[str, str]:
    v = _fit()["speed"]["decode_tok_s"]
    return ("yes" if "low" in v and "high" in v else "no"), f"decode_tok_s = {v}"


PROBES = {
    "decode": _speed(),
    "prefill": _speed(key="ttft_s"),
    "gqa": _kv(("llama-3-8b",), "gqa"),
    "mla": _kv(("deepseek-v3", "deepseek-r1", "deepseek-v2-lite", "deepseek-v2"), "mla"),
    "moe": _speed("mixtral-8x7b", 2),
    "tp_comm": ("partial", "`count` chips; no parallelism layout or communication input/output"),
    "ep": ("no", "only a chip count"),
    "pp": ("no", "only a chip count"),
    "continuous_batching": (
        "partial",
        "capacity.max_sequences from the KV pool; no request-level serving model",
    ),
    "spec_decode": ("no", "no speculation input"),
    "memory_fit": _mem,
    "cost": ("no", "no price input or $ output"),
    "energy": ("no", "no power or energy output"),
    "config_json": (
        "partial",
        "a Hugging Face repo id is fetched over the network; no local config.json input",
    ),
    "calibration": ("partial", "ships calibrated speeds (`calibrated: true`); no user fitting"),
    "ranges": _ranges,
    "web": ("no", "Python API and CLI"),
}


def predict(sc: dict[str, Any]) -> tuple[float, str]:
    import ridgepoint

    if sc["batch"] != 1:
        raise Unsupported("fit()/scan() take no batch size; decode speed is per single request")
    if sc["model"] not in MODEL or sc["hardware"] not in GPU:
        raise Unsupported("no built-in id for this model/GPU (HF lookup needs network)")
    if sc["weight_dtype"] not in SIXTEEN_BIT or sc.get("kv_dtype", "bf16") not in SIXTEEN_BIT:
        raise Unsupported("adapter maps only 16-bit (bf16/fp16) weights and KV")
    r = json.loads(
        ridgepoint.fit(
            MODEL[sc["model"]],
            GPU[sc["hardware"]],
            count=sc["chips"],
            dtype=sc["weight_dtype"],
            kv_cache_dtype=sc.get("kv_dtype", "bf16"),
            ctx=sc["context"],
            prompt=sc["context"],
            as_json=True,
        )
    )
    tok_s = r["speed"]["decode_tok_s"]["best"]
    return 1.0 / tok_s, f"1/decode_tok_s.best, built-in id {MODEL[sc['model']]}"


if __name__ == "__main__":
    main("ridgepoint", "ridgepoint", predict, PROBES)
