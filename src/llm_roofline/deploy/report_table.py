"""Tables of the lecture's numbers for one deployment (no formulas here: every figure comes from
the engine through the deployment)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm_roofline.calibration.profile import pass_time
from llm_roofline.deploy.curves import step_figures
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.fit_advice import fit_message as advice
from llm_roofline.engine.cost import is_priced
from llm_roofline.engine.roofline import positive_array

__all__ = ["SWEEP_COLUMNS", "DecodeReport", "decode_report", "fit_message", "sweep"]
__all__ += ["OVERLAP_SUM", "engine_efficiencies", "engine_fixed_s", "engine_parts", "parts_note"]
__all__ += ["released_dtype_note", "split_latency_floor", "tpot_parts"]


@dataclass(frozen=True)
class DecodeReport:
    """Headline figures and a batch table for one deployment at one context.

    Every row carries the ideal step (`t_ideal_s`, the lower bound) and the step under the
    deployment's engine (`t_step_s`, with `t_step_low_s` / `t_step_high_s` for a calibrated
    engine); tokens/s and $ per million tokens follow the engine.
    """

    model: str
    hardware: str
    chips: int
    deployment: dict[str, Any]
    split: str
    engine: str
    context_len: int
    weight_dtype: str
    kv_dtype: str
    overlap: str
    latency_floor_s: float
    all_weights_time_s: float
    balance_batch: float
    drain_time_s: float
    max_batch: int
    weights_per_chip_bytes: float
    capacity_per_chip_bytes: float
    fit_message: str
    max_context: int | None
    beyond_max_context: bool
    rows: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _batches(largest: int) -> list[int]:
    """1, 2, 4, ... up to the largest batch that fits, and that batch itself."""
    out = [1]
    while out[-1] * 2 <= largest:
        out.append(out[-1] * 2)
    if largest > out[-1]:
        out.append(largest)
    return out


def split_latency_floor(dep: Deployment) -> float:
    """The deployment's latency floor: the weights one token reads on its split's fullest
    chip, over the chip's bandwidth (the engine's weight term of a decode step at batch 1;
    `balance.latency_floor` is the same with the weights spread evenly over the chips)."""
    return float(np.asarray(dep.decode(1, 1).t_weights).flat[0])


def fit_message(dep: Deployment, context_len: int, batch: int = 1) -> str:
    """ "" when `batch` sequences at `context_len` fit on every chip; else one line saying what
    does not fit (weights, KV cache, activations per chip) and what would: the library's
    `fit_advice` (the same line cache-tiers and the API show)."""

    line = advice(dep, context_len, batch)
    return f"does not fit: {line}" if line else ""


def decode_report(dep: Deployment, *, context_len: int = 4096) -> DecodeReport:
    """The lecture's first-section numbers for a deployment: latency floor, B*, drain time, the
    largest batch that fits, and a table over batch of each term of the step (its split's
    communication included), the ideal bound beside the engine's estimate."""
    S = int(positive_array(context_len, "context_len"))
    spec = dep.model
    fit = int(dep.max_batch(S))
    batches = np.asarray(_batches(max(fit, 1)), dtype=np.float64)
    fig = step_figures(dep, dep.decode(batches, S))
    priced = is_priced(dep.chip)
    ranged = dep.profile is not None
    rows = []
    for i, b in enumerate(batches):
        row: dict[str, Any] = {"batch": int(b)}
        for k in ("t_compute_s", "t_weights_s", "t_kv_s", "t_comm_s", "t_ideal_s", "t_step_s"):
            row[k] = float(getattr(fig, k)[i])
        row["t_step_low_s"] = float(fig.t_step_low_s[i]) if ranged else None
        row["t_step_high_s"] = float(fig.t_step_high_s[i]) if ranged else None
        row["bound"] = str(fig.bound[i])
        row["tokens_per_s"] = float(fig.tokens_per_s[i])
        row["usd_per_million_tokens"] = float(fig.usd_per_million_tokens[i]) if priced else None
        row["fits"] = bool(b <= fit)
        rows.append(row)
    return DecodeReport(
        model=spec.name,
        hardware=dep.chip.id,
        chips=dep.chips,
        deployment=dep.as_dict(),
        split=dep.split_text(),
        engine=dep.engine,
        context_len=S,
        weight_dtype=dep.weight_dtype,
        kv_dtype=dep.kv_dtype,
        overlap=dep.overlap,
        latency_floor_s=split_latency_floor(dep),
        all_weights_time_s=dep.weights_per_chip_bytes() * dep.pp / dep.chip.memory_bw,
        balance_batch=dep.balance_batch,
        drain_time_s=dep.chip.drain_time_s,
        max_batch=fit,
        weights_per_chip_bytes=dep.weights_per_chip_bytes(),
        capacity_per_chip_bytes=dep.chip.memory_bytes,
        fit_message=fit_message(dep, S),
        max_context=spec.max_context,
        beyond_max_context=bool(spec.max_context and S > spec.max_context),
        rows=rows,
    )


SWEEP_COLUMNS = (
    "model",
    "hardware",
    "chips",
    "tp",
    "pp",
    "ep",
    "replicas",
    "batch",
    "context_len",
    "weight_dtype",
    "kv_dtype",
    "overlap",
    "engine",
    "t_matmul_s",
    "t_attn_s",
    "t_weights_s",
    "t_kv_s",
    "t_comm_s",
    "t_ideal_s",
    "t_step_s",
    "t_step_low_s",
    "t_step_high_s",
    "bound",
    "tokens_per_s",
    "usd_per_million_tokens",
    "memory_per_chip_bytes",
    "fits",
)


def sweep(
    dep: Deployment,
    batches: Sequence[int],
    contexts: Sequence[int],
    chips: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """Decode steps over the grid chips × batch × context, one row per point. Each chip
    count other than the deployment's own gets its split from the deployment rule."""
    B = positive_array(batches, "batch")[:, None]
    S = positive_array(contexts, "context_len")[None, :]
    rows: list[dict[str, Any]] = []
    ranged = dep.profile is not None
    for n in chips or [dep.chips]:
        d = dep if int(n) == dep.chips else dep.with_chips(int(n))
        step = d.decode(B, S)
        fig = step_figures(d, step)
        mem = d.memory(B, S)
        total, fits = mem.total, mem.fits
        priced = is_priced(d.chip)
        base = {
            "model": d.model_id or d.spec.name,
            "hardware": d.chip.id,
            "chips": d.chips,
            "tp": d.tp,
            "pp": d.pp,
            "ep": d.ep,
            "replicas": d.replicas,
        }
        for i in range(B.shape[0]):
            for j in range(S.shape[1]):
                rows.append(
                    {
                        **base,
                        "batch": int(B[i, 0]),
                        "context_len": int(S[0, j]),
                        "weight_dtype": d.weight_dtype,
                        "kv_dtype": d.kv_dtype,
                        "overlap": d.overlap,
                        "engine": d.engine,
                        "t_matmul_s": float(step.t_matmul[i, j]),
                        "t_attn_s": float(step.t_attn[i, j]),
                        "t_weights_s": float(step.t_weights[i, j]),
                        "t_kv_s": float(step.t_kv[i, j]),
                        "t_comm_s": float(step.t_comm[i, j]),
                        "t_ideal_s": float(step.t_step[i, j]),
                        "t_step_s": float(fig.t_step_s[i, j]),
                        "t_step_low_s": float(fig.t_step_low_s[i, j]) if ranged else None,
                        "t_step_high_s": float(fig.t_step_high_s[i, j]) if ranged else None,
                        "bound": str(fig.bound[i, j]),
                        "tokens_per_s": float(fig.tokens_per_s[i, j]),
                        "usd_per_million_tokens": (
                            float(fig.usd_per_million_tokens[i, j]) if priced else None
                        ),
                        "memory_per_chip_bytes": float(total[i, j]),
                        "fits": bool(fits[i, j]),
                    }
                )
    return rows


# ---- how the parts make the totals --------------------------------------------------------

# the ideal step from its terms under each overlap mode (steptime.py), in words
OVERLAP_SUM = {
    "full": "max(compute, weights + KV) + comm",
    "per-op": "max(matmul, weights) + max(attention, KV) + comm",
    "none": "compute + weights + KV + comm",
}


def parts_note(dep: Deployment) -> str:
    """One line: how the ideal terms (compute, weights, KV, comm) make the ideal step, so a
    reader does not expect them to add up to it."""
    return (
        f"compute, weights, KV and comm are the ideal bound's terms (datasheet peaks); the "
        f"ideal step is {OVERLAP_SUM[dep.overlap]} (overlap {dep.overlap}; comm hidden "
        "behind the work where two micro-batches are faster, and then weights doubles: each "
        "micro-batch reads them)"
        + (
            "; weights grows with the batch up to every expert: the experts its tokens reach"
            if dep.spec.is_moe
            else ""
        )
    )


def released_dtype_note(dep: Deployment) -> str | None:
    """A line when the weights are read in another type than the released checkpoint's (its
    config.json's quantization_config: DeepSeek-V3 and Kimi K2 ship in fp8, gpt-oss in mxfp4),
    naming the flag that gives the released figures; None when they agree or the config names
    no format."""
    r = dep.spec.released_dtype
    if r is None or dep.weight_dtype == r:
        return None
    part = (
        " (mxfp4 covers its MoE experts; the layers its config leaves unconverted stay 16-bit, "
        "so mxfp4 throughout counts them a little short)"
        if r == "mxfp4"
        else ""
    )
    return (
        f"{dep.spec.name} is released with {r} weights (its config.json's quantization_config)"
        f"{part}; these figures read them in {dep.weight_dtype}: --weight-dtype {r} gives the "
        "released checkpoint's figures"
    )


def engine_fixed_s(dep: Deployment) -> float:
    """The fixed time the deployment's engine adds to every decode pass (per pass and per
    layer: scheduler, sampling, kernel launches); 0 for the ideal engine. Taken from the
    engine itself: a pass timed with the profile less the same pass with its fixed times 0."""
    from dataclasses import replace

    prof = dep.profile
    if prof is None:
        return 0.0
    step = dep.decode(1, 1)
    bare = replace(prof, overhead_s=0.0, layer_s=0.0, prefill_overhead_s=0.0)
    return float(
        np.asarray(pass_time(step, prof)).flat[0] - np.asarray(pass_time(step, bare)).flat[0]
    )


def engine_parts(dep: Deployment, ideal_s: float, engine_s: float) -> dict[str, float]:
    """A decode pass under the engine as three parts that add up to it: the ideal step, the
    terms' shortfall at the engine's measured efficiencies, and its fixed times:
    `ideal_s + efficiency_s + fixed_s == engine_s`."""
    fixed = engine_fixed_s(dep)
    return {
        "ideal_s": ideal_s,
        "efficiency_s": engine_s - ideal_s - fixed,
        "fixed_s": fixed,
        "engine_s": engine_s,
    }


def engine_efficiencies(dep: Deployment) -> dict[str, float]:
    """The fractions of peak the deployment's engine reaches on each decode term (its
    profile's constants; empty for the ideal engine, which reaches every peak)."""
    prof = dep.profile
    if prof is None:
        return {}
    return {
        "compute": prof.flops_eff,
        "weights": prof.bw_eff,
        "KV": prof.kv_eff,
        "comm": prof.comm_eff,
    }


def tpot_parts(
    dep: Deployment, *, batch: int, input_len: int, output_len: int, mode: str = "decode"
) -> dict[str, float]:
    """A scenario's time per output token under the deployment's engine as `engine_parts`:
    the ideal engine's tpot, the shortfall at measured efficiencies, the fixed times."""
    from dataclasses import replace

    kw: dict[str, Any] = {
        "batch": batch,
        "input_len": input_len,
        "output_len": output_len,
        "mode": mode,
    }
    engine = float(dep.serve(**kw).tpot_s)
    ideal = float(replace(dep, engine="ideal").serve(**kw).tpot_s)
    return engine_parts(dep, ideal, engine)
