"""Speculative decoding (and multi-token prediction): time per output token when a draft
proposes `gamma` tokens and the target verifies them in one pass.

Epoch AI, "Inference economics of language models" (arXiv 2506.04645), after Leviathan et al.
2023. Re-exported by `serving`, where it used to live.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Unpack

import numpy as np

from llm_roofline._core.checks import positive_int
from llm_roofline._core.errors import InputError
from llm_roofline.engine.options import PassOptions, check_options
from llm_roofline.engine.roofline import as_system, decode_step, prefill
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec
from llm_roofline.serving.spans import size

__all__ = ["SpeculativeResult", "speculative_decode", "tokens_per_verification"]


def tokens_per_verification(gamma: int, acceptance: float) -> float:
    """Expected tokens one verification pass yields with `gamma` drafted tokens each accepted
    with probability α (independently): (1 − α^(γ+1)) / (1 − α); γ + 1 when α = 1.

    Epoch AI, "Inference economics of language models" (arXiv 2506.04645), after Leviathan et
    al. 2023.
    """
    positive_int(gamma, "gamma")
    a = float(acceptance)
    if not 0.0 <= a <= 1.0:
        raise InputError(f"acceptance must be in [0, 1], got {acceptance!r}", field="acceptance")
    if a == 1.0:
        return float(gamma + 1)
    return (1.0 - a ** (gamma + 1)) / (1.0 - a)


@dataclass(frozen=True)
class SpeculativeResult:
    """Speculative decoding (or multi-token prediction) at one batch and context, seconds."""

    gamma: int
    acceptance: float
    tokens_per_verification: float
    t_verify_s: float  # one pass of gamma + 1 tokens per sequence through the target model
    t_draft_s: float  # gamma draft steps (a draft model, or MTP heads)
    tpot_s: float  # (verify + draft) / tokens per verification
    tpot_plain_s: float  # the same batch without speculation
    speedup: float


def _mtp_head(spec: ModelSpec) -> ModelSpec:
    """A multi-token-prediction module: one more layer like the model's last, and the shared
    embedding and LM head (DeepSeek-V3's MTP module; its small projection is left out)."""
    last = spec.groups[-1]
    return dataclasses.replace(
        spec,
        name=f"{spec.name} MTP module",
        groups=(dataclasses.replace(last, count=1),),
        params_vision=0,
    )


def speculative_decode(
    model: str | ModelSpec,
    hardware: str | Chip | System,
    chips: int = 1,
    *,
    batch: int,
    context_len: int,
    gamma: int,
    acceptance: float,
    draft: str | ModelSpec | None = "mtp",
    **kw: Unpack[PassOptions],
) -> SpeculativeResult:
    """Time per output token with `gamma` drafted tokens accepted with probability α.

    The target model verifies all gamma + 1 positions of every sequence in one pass (a prefill
    of gamma + 1 tokens after the context, logits at every position); the draft costs gamma
    decode steps of `draft`: "mtp" (one extra layer of the target and its LM head), a catalog
    model or ModelSpec (a separate draft model on the same chips), or None (free, an upper
    bound on the gain).
    """
    spec = get_model(model)
    system = as_system(hardware, chips)
    E = tokens_per_verification(gamma, acceptance)
    B = size(batch, "batch")
    S = size(context_len, "context_len")
    check_options(kw, "speculative_decode")
    parallel = kw.get("parallel")
    pp = parallel.pp if parallel is not None else 1
    # verification rides the decode pipeline: micro-batches of B / pp cross pp stages
    verify = prefill(
        spec,
        system,
        batch=-(-B // pp),
        prompt_len=gamma + 1,
        cached_len=S,
        all_logits=True,
        **kw,
    )
    plain = decode_step(spec, system, batch=B, context_len=S, **kw)
    if draft is None:
        t_draft = 0.0
    else:
        d = _mtp_head(spec) if draft == "mtp" else get_model(draft)
        dkw: PassOptions = {**kw, "parallel": None} if d is not spec else kw
        steps = decode_step(d, system, batch=B, context_len=S + np.arange(gamma), **dkw)
        t_draft = float(np.sum(steps.t_step))
    t_verify = float(verify.t_step[()]) * pp
    tpot = (t_verify + t_draft) / E
    t_plain = float(plain.t_step[()])
    return SpeculativeResult(
        gamma=int(gamma),
        acceptance=float(acceptance),
        tokens_per_verification=E,
        t_verify_s=t_verify,
        t_draft_s=t_draft,
        tpot_s=tpot,
        tpot_plain_s=t_plain,
        speedup=t_plain / tpot,
    )
