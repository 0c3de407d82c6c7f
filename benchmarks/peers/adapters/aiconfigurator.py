"""aiconfigurator adapter: ``aiconfigurator.cli.api.cli_estimate`` in ``static_gen`` mode.

``static_gen`` is a single static-batching generation pass (no in-flight batching, no rate
matching). With ``isl = context - 1`` and ``osl = 2`` the generation phase is one decode step
at (about) ``context`` tokens of context. Backend ``trtllm`` and database mode ``SILICON``
(its defaults: interpolation over kernel timings measured on the system) are kept; MoE runs
with ``moe_tp_size = tp``, ``moe_ep_size = 1``. The prediction is ``tpot`` (ms).

Llama 3.1 uses the model ids whose ``config.json`` aiconfigurator ships. For other models
(Mixtral 8x7B; the Llama 2/3 models of the accuracy rows) the id is not among its default
models and it tries to download it (no network here), so the adapter passes a local directory
holding a ``config.json`` written from the scenario's architecture numbers (llm_roofline's
catalog). A100 80GB maps to its ``a100_sxm`` database.
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

MODEL = {
    "llama-3.1-8b": "meta-llama/Meta-Llama-3.1-8B",
    "llama-3.1-70b": "meta-llama/Meta-Llama-3.1-70B",
}
_dirs: dict[str, str] = {}


def _model_path(sc: dict[str, Any]) -> str:
    if sc["model"] in MODEL:
        return MODEL[sc["model"]]
    if sc["model"] not in _dirs:
        d = tempfile.mkdtemp(prefix="aiconfigurator_")
        (Path(d) / "config.json").write_text(json.dumps(sc["hf_config"]))
        _dirs[sc["model"]] = d
    return _dirs[sc["model"]]


SYSTEM = {"h100-sxm": "h100_sxm", "a100-80gb": "a100_sxm"}
# SILICON (default): measured kernel timings; SOL: its analytic speed-of-light (roofline) mode,
# chosen by aiconfigurator-sol.py
DATABASE_MODE = os.environ.get("AIC_DATABASE_MODE", "SILICON")


def _est(sc: dict[str, Any], **kw: Any) -> Any:
    from aiconfigurator.cli.api import cli_estimate

    logging.disable(logging.INFO)
    args = {
        "mode": "static_gen",
        "isl": sc["context"] - 1,
        "osl": 2,
        "batch_size": sc["batch"],
        "database_mode": DATABASE_MODE,
    }
    return cli_estimate(_model_path(sc), SYSTEM[sc["hardware"]], **(args | kw))


def _ok(scen: str, attr: str = "tpot", **kw: Any) -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        sc = job[scen]
        kw.setdefault("tp_size", sc["chips"])
        v = getattr(_est(sc, **kw), attr)
        extra = ", ".join(f"{k}={val}" for k, val in kw.items())
        return ("yes" if v and v > 0 else "no"), f"{sc['model']} ({extra}): `{attr}` = {v:.3g}"

    return probe


def _gqa(job: dict[str, Any]) -> tuple[str, str]:
    sc = dict(job["dense"], model="llama-gqa-probe", batch=64)
    cfg = sc["hf_config"]
    mha = dict(
        sc,
        model="llama-mha-probe",
        hf_config=dict(cfg, num_key_value_heads=cfg["num_attention_heads"]),
    )
    a, b = _est(sc).tpot, _est(mha).tpot
    return ("yes" if a < b else "no"), f"batch 64: TPOT with 8 KV heads {a / b:.2f}x of MHA"


def _mla(job: dict[str, Any]) -> tuple[str, str]:
    cfg = job["mla_hf_config"]
    sc = dict(job["dense"], model="deepseek-v3-probe", hf_config=cfg, chips=8)
    r = _est(sc, tp_size=8, moe_tp_size=1, moe_ep_size=8)
    return "yes", f"DeepSeek-V3 config.json, tp=8, moe_ep=8: tpot = {r.tpot:.3g} ms"


def _ratio(scen: str, base: dict[str, Any], **kw: Any) -> Any:
    def probe(job: dict[str, Any]) -> tuple[str, str]:
        sc = job[scen]
        a, b = _est(sc, **base).tpot, _est(sc, **kw).tpot
        fmt = lambda d: ", ".join(f"{k}={v}" for k, v in d.items())  # noqa: E731
        return "yes", f"{sc['model']}: {fmt(kw)} accepted, tpot {b / a:.2f}x of {fmt(base)}"

    return probe


def _energy(job: dict[str, Any]) -> tuple[str, str]:
    r = _est(job["dense"])
    if r.power_is_available and r.power_w:
        return "yes", f"power_w = {r.power_w}"
    return (
        "partial",
        "result has `power_w`, but no power data for h100_sxm (power_is_available False)",
    )


PROBES = {
    "decode": _ok("dense"),
    "prefill": _ok("dense", "ttft", mode="static", osl=2),
    "gqa": _gqa,
    "mla": _mla,
    "moe": _ok("moe", moe_tp_size=2, moe_ep_size=1),
    "tp_comm": _ratio("dense8", {"tp_size": 4, "pp_size": 2}, tp_size=8),
    "ep": _ratio(
        "moe",
        {"tp_size": 2, "moe_tp_size": 2, "moe_ep_size": 1},
        tp_size=2,
        moe_tp_size=1,
        moe_ep_size=2,
    ),
    "pp": _ratio("dense", {"tp_size": 1}, tp_size=1, pp_size=2),
    "continuous_batching": _ok("dense", mode="agg", osl=128),
    "spec_decode": ("yes", "`nextn` / `nextn_accepted` inputs (MTP-style speculation)"),
    "memory_fit": _ok("dense8", "memory"),
    "cost": ("no", "no price input in cli_estimate"),
    "energy": _energy,
    "config_json": _ok("moe", moe_tp_size=2, moe_ep_size=1),  # a local config.json dir
    "calibration": (
        "partial",
        "interpolates kernel timings measured per system and backend version "
        "(SILICON database); no user fitting",
    ),
    "ranges": ("no", "one value per output"),
    "web": ("no", "Python API and CLI in the PyPI package"),
}


def predict(sc: dict[str, Any]) -> tuple[float, str]:
    from aiconfigurator.cli.api import cli_estimate

    if sc["hardware"] not in SYSTEM:
        raise Unsupported(f"no system database for {sc['hardware']}")
    if sc["weight_dtype"] not in SIXTEEN_BIT or sc.get("kv_dtype", "bf16") not in SIXTEEN_BIT:
        raise Unsupported("adapter maps only 16-bit (bf16/fp16) weights and KV")
    logging.disable(logging.INFO)  # warnings stay, in out/<peer>.stderr.txt
    moe = {"moe_tp_size": sc["chips"], "moe_ep_size": 1} if sc["arch"]["n_experts"] else {}
    r = cli_estimate(
        _model_path(sc),
        SYSTEM[sc["hardware"]],
        mode="static_gen",
        isl=sc["context"] - 1,
        osl=2,
        batch_size=sc["batch"],
        tp_size=sc["chips"],
        database_mode=DATABASE_MODE,
        **moe,
    )
    src = "bundled config" if sc["model"] in MODEL else "local config.json"
    note = f"cli_estimate static_gen tpot, trtllm/{DATABASE_MODE}, TP={sc['chips']}, {src}"
    return float(r.tpot) / 1e3, note


if __name__ == "__main__":
    name = "aiconfigurator" if DATABASE_MODE == "SILICON" else "aiconfigurator-sol"
    main(name, "aiconfigurator", predict, PROBES)
