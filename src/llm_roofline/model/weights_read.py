"""The weights a pass reads: dense weights, the MoE experts its tokens touch, embedding rows.

All dense weights are read; of each MoE layer's routed experts only those the pass's tokens
touch (uniform routing: `experts_touched`, E·(1 − (1 − k/E)^t), Epoch AI 2025); of an untied
input embedding only the rows the tokens gather (a tied one is read whole as the LM head); no
vision tower (it runs once per image, in prefill).

Under a split the busiest chip reads the non-expert weights over pp · tp, and whole experts:
at least ⌈touched / ep⌉ per layer, and at least the touched share of the ⌈E / ep⌉ experts the
fullest chip holds (`experts_read_per_chip`), each expert's matrices split over `expert_tp`.

`WeightsRead` holds what of this rule depends on the model and the split alone, and
`weights_read` evaluates it for a pass's tokens: the one copy behind `ModelSpec.params_read`,
`ModelSpec.params_read_per_chip` and the engine's weight term (`pass_terms.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY, Backend, Num
from llm_roofline._core.errors import InputError

if TYPE_CHECKING:
    from llm_roofline.model.spec import ModelSpec

__all__ = [
    "WeightsRead",
    "experts_read_per_chip",
    "experts_touched",
    "weights_read",
    "weights_read_plan",
]


def _touched(E: int, k: float, tokens: Num) -> Num:
    """E·(1 − (1 − k/E)^tokens), unchecked: the formula of `experts_touched`."""
    return E * (1.0 - (1.0 - k / E) ** tokens)


def experts_touched(E: int, k: int, tokens: ArrayLike) -> FloatArray:
    """Expected distinct experts hit by `tokens` tokens each picking k of E uniformly.

    E·(1 − (1 − k/E)^tokens): Epoch AI, "Inference economics of language models" (2025).
    Read the other way (E = ep groups, k = 1, tokens = a token's k experts) it is the expected
    number of expert groups one token's experts fall in (`collectives.py`).
    """
    if not (E >= 1 and 0 <= k <= E):
        raise InputError(
            f"experts_touched needs 1 <= E and 0 <= k <= E, got E={E}, k={k}", field="experts"
        )
    return np.asarray(_touched(E, k, np.asarray(tokens, dtype=np.float64)), dtype=np.float64)


def _read_per_chip(xp: Backend, E: int, k: int, tokens: Num, ep: int) -> Num:
    touched = _touched(E, k, tokens)
    if ep <= 1:
        return touched
    fullest = touched * (-(-E // ep)) / E
    whole = xp.ceil(touched / ep - 1e-9)  # 1e-9: 8.000000001 touched experts are 8
    return xp.maximum(whole, fullest)


def experts_read_per_chip(E: int, k: int, tokens: ArrayLike, ep: int = 1) -> FloatArray:
    """Experts of one MoE layer the busiest of `ep` expert-parallel chips reads for `tokens`
    tokens (uniform routing).

    With ep = 1 the expected number touched, `experts_touched`. With ep > 1 a chip reads whole
    experts: at least ceil(touched / ep) (some chip holds that many of the touched experts),
    and at least the touched share of the ceil(E / ep) experts the fullest chip holds.
    """
    t = np.asarray(tokens, dtype=np.float64)
    experts_touched(E, k, 1.0)  # the same checks
    return np.asarray(_read_per_chip(ARRAY, E, k, t, ep), dtype=np.float64)


@dataclass(frozen=True)
class WeightsRead:
    """The part of the weight-read rule fixed by the model and the split.

    `dense`: non-expert parameters, less an untied input embedding; `gathered`: whether the
    pass adds the embedding rows its tokens gather (untied: min(tokens, V) · D); `ptp`: pp · tp,
    the chips the dense weights split over. `moe`: per MoE layer group, (layers / pp, E, k,
    ep, parameters of one expert, expert_tp).
    """

    dense: float
    gathered: bool
    vocab: float
    d_model: int
    ptp: int
    moe: tuple[tuple[float, int, int, int, int, int], ...]


def weights_read_plan(
    spec: ModelSpec, *, tp: int = 1, pp: int = 1, ep: int = 1, expert_tp: int = 1
) -> WeightsRead:
    """`WeightsRead` of `spec` split over tp, pp, ep (each expert's matrices over expert_tp)."""
    D = spec.d_model
    dense = float(spec.params_text - spec.params_routed)
    if not spec.tie_embeddings:  # the pass gathers its own tokens' embedding rows
        dense = dense - spec.embedding_params
    moe = tuple(
        (g.count / pp, g.ffn.n_experts, g.ffn.top_k, ep, g.ffn.expert_params(D), expert_tp)
        for g in spec.groups
        if g.ffn.is_moe
    )
    for _, E, k, *_rest in moe:
        experts_touched(E, k, 1.0)  # the checks, once
    return WeightsRead(dense, not spec.tie_embeddings, float(spec.vocab_size), D, pp * tp, moe)


def weights_read(xp: Backend, w: WeightsRead, tokens: Num, group_tokens: Num) -> Num:
    """Parameters the busiest chip reads in one pass of a pipeline stage.

    `tokens`: the stage's tokens (they route to the experts); `group_tokens`: the busiest
    data-parallel group's (they gather its embedding rows).
    """
    dense = xp.full_like(group_tokens, w.dense)
    if w.gathered:
        dense = dense + xp.minimum(group_tokens, w.vocab) * w.d_model
    n = dense / w.ptp
    for layers, E, k, ep, per_expert, expert_tp in w.moe:
        n = n + layers * _read_per_chip(xp, E, k, tokens, ep) * per_expert / expert_tp
    return n
