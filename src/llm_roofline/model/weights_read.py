"""The weights a pass reads: dense weights, the MoE experts its tokens touch, embedding rows.

All dense weights are read; of each MoE layer's routed experts only those the pass's tokens
touch (uniform routing: `experts_touched`, E·(1 − (1 − k/E)^t), Epoch AI 2025); of an untied
input embedding only the rows the tokens gather (a tied one is read whole as the LM head); no
vision tower (it runs once per image, in prefill).

Under a split the busiest chip reads the non-expert weights over pp · tp, and whole experts:
the expected most touched experts any of the ep ranks holds (`experts_read_per_chip`), each
expert's matrices split over `expert_tp`.

`WeightsRead` holds what of this rule depends on the model and the split alone, and
`weights_read` evaluates it for a pass's tokens: the one copy behind `ModelSpec.params_read`,
`ModelSpec.params_read_per_chip` and the engine's weight term (`pass_terms.py`).
"""

from __future__ import annotations

import functools
import math
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
    if ep <= 1:
        return _touched(E, k, tokens)
    table = _busiest_table(E, k, ep)
    last = table.size - 1
    if xp.scalar:  # between the whole token counts around it, linearly
        t = min(max(float(tokens), 0.0), float(last))
        i = min(int(t), last - 1) if last > 0 else 0
        return float(table[i] + (t - i) * (table[min(i + 1, last)] - table[i]))
    return np.interp(tokens, np.arange(table.size, dtype=np.float64), table)


def _rank_sizes(E: int, ep: int) -> list[int]:
    """Experts each of ep ranks holds: E split as evenly as whole experts allow."""
    return [E // ep + (1 if r < E % ep else 0) for r in range(ep)]


def _busiest_given_touched(E: int, ep: int) -> FloatArray:
    """E[experts on the busiest rank | n of the E touched], for n = 0..E.

    Uniform routing treats every expert alike, so given n touched the touched set is any
    n-subset with equal chance, and the ranks' counts are multivariate hypergeometric. The
    n-subsets that put at most j on every rank are the coefficient of x^n in
    Π_rank Σ_{i ≤ j} C(m_rank, i) x^i; E[max] = Σ_{j ≥ 0} P(max > j)."""
    sizes = _rank_sizes(E, ep)
    n = np.arange(E + 1)
    log_subsets = np.asarray(
        [math.lgamma(E + 1) - math.lgamma(i + 1) - math.lgamma(E - i + 1) for i in n]
    )
    rows = {m: np.asarray([float(math.comb(m, i)) for i in range(m + 1)]) for m in set(sizes)}
    expected = np.zeros(E + 1)
    for j in range(max(sizes)):
        poly, log_scale = np.ones(1), 0.0
        for m in sizes:
            poly = np.convolve(poly, rows[m][: j + 1])
            top = float(poly.max())
            poly, log_scale = poly / top, log_scale + math.log(top)
        at_most_j = np.zeros(E + 1)
        with np.errstate(divide="ignore"):
            logs = np.log(poly) + log_scale - log_subsets[: poly.size]
        at_most_j[: poly.size] = np.exp(logs)
        expected += 1.0 - np.minimum(at_most_j, 1.0)
    return expected


@functools.cache
def _busiest_table(E: int, k: int, ep: int) -> FloatArray:
    """E[experts the busiest of ep ranks holds among those t tokens touch], t = 0, 1, 2, ...
    up to where every expert is touched (to 1e-12): `experts_read_per_chip`.

    The number touched after t tokens is a Markov chain: a token picks k of E experts, j of
    them new with the hypergeometric chance C(E − n, j)·C(n, k − j) / C(E, k) when n are
    touched; each count's expected busiest rank is `_busiest_given_touched`."""
    given = _busiest_given_touched(E, ep)
    move = np.zeros((E + 1, E + 1))  # n touched -> n + j touched
    for n in range(E + 1):
        for j in range(k + 1):
            if j <= E - n and k - j <= n:
                move[n, n + j] = math.comb(E - n, j) * math.comb(n, k - j) / math.comb(E, k)
    dist = np.zeros(E + 1)
    dist[0] = 1.0
    values = [0.0]
    while k > 0 and 1.0 - dist[E] > 1e-12 and len(values) < 1_000_000:
        dist = dist @ move
        values.append(float(dist @ given))
    return np.asarray(values, dtype=np.float64)


def experts_read_per_chip(E: int, k: int, tokens: ArrayLike, ep: int = 1) -> FloatArray:
    """Experts of one MoE layer the busiest of `ep` expert-parallel chips reads for `tokens`
    tokens (uniform routing).

    With ep = 1 the expected number touched, `experts_touched`. With ep > 1 the expected
    maximum over the ep ranks (E split over them as evenly as whole experts allow) of the
    touched experts each holds, computed exactly for whole token counts (`_busiest_table`)
    and linear between them: smooth and non-decreasing in tokens, where the rounded-up
    ⌈touched / ep⌉ it replaces stepped (Mixtral 8x7B at ep 2: 3 experts a chip at batch 4,
    4 at batch 5, 10.5 to 13.9 ms of weights on two H100). E = 8, k = 2, ep = 2, one token:
    both experts on one rank with chance 12/28, so 2 · 3/7 + 1 · 4/7 = 10/7.
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
