"""The busiest expert-parallel chip's expert reads: the expected maximum over the ranks of the
experts touched, smooth in the batch (issue 27, section 1).

Before, the busiest chip read ⌈touched / ep⌉ experts, an expected count rounded up: Mixtral
8x7B on two H100 (ep 2) stepped from 10.5 to 13.9 ms of weights between batch 4 and 5.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.model.weights_read import experts_read_per_chip, experts_touched


def _busiest_by_enumeration(E: int, k: int, ep: int, tokens: int) -> Fraction:
    """E[most touched experts on one rank] over every equally likely routing: each token picks
    one of the C(E, k) sets of k experts; rank r holds experts r·E/ep .. (r+1)·E/ep − 1."""
    per_rank = E // ep
    picks = list(itertools.combinations(range(E), k))
    total, count = Fraction(0), 0
    for routing in itertools.product(picks, repeat=tokens):
        touched = set().union(*routing)
        total += max(sum(1 for x in touched if x // per_rank == r) for r in range(ep))
        count += 1
    return total / count


def test_two_ranks_eight_experts_top_two_by_hand() -> None:
    # one token: of the C(8, 2) = 28 pairs, 2 · C(4, 2) = 12 sit on one rank (it reads 2), 16
    # straddle the two (each reads 1): 2 · 12/28 + 1 · 16/28 = 40/28 = 10/7
    assert _busiest_by_enumeration(8, 2, 2, 1) == Fraction(10, 7)
    assert float(experts_read_per_chip(8, 2, 1, ep=2)) == pytest.approx(10 / 7, rel=1e-12)
    # two tokens: all 28 × 28 routings enumerated
    two = _busiest_by_enumeration(8, 2, 2, 2)
    assert float(experts_read_per_chip(8, 2, 2, ep=2)) == pytest.approx(float(two), rel=1e-12)
    # three ranks of two, one token (E = 6, k = 2): 3 of the 15 pairs on one rank
    assert float(experts_read_per_chip(6, 2, 1, ep=3)) == pytest.approx(1 + 3 / 15, rel=1e-12)
    # the rounded-up count this replaces gave ⌈2 / 2⌉ = 1 at one token: below the expectation


@pytest.mark.parametrize(("E", "k", "ep"), [(8, 2, 2), (8, 2, 4), (64, 6, 8), (256, 8, 8)])
def test_busiest_reads_are_monotone_and_smooth_in_tokens(E: int, k: int, ep: int) -> None:
    t = np.arange(0.0, 3000.0)
    got = experts_read_per_chip(E, k, t, ep=ep)
    touched = experts_touched(E, k, t)
    step = np.diff(got)
    assert np.all(step >= -1e-12)  # a token more never reads fewer experts
    # and never more than it adds: in every routing the busiest rank gains at most the
    # experts the new token touches for the first time, so the expected gain is at most the
    # gain of the expected count touched (the rounded-up count jumped by a whole expert)
    assert np.all(step <= np.diff(touched) + 1e-9)
    # between the fullest rank's share of those touched and the experts it holds
    assert np.all(got >= touched * -(-E // ep) / E - 1e-9)
    assert np.all(got <= -(-E // ep) + 1e-9)
    # fractional tokens (averaged loads) lie between their whole neighbours
    half = experts_read_per_chip(E, k, t[:-1] + 0.5, ep=ep)
    assert np.all((half >= got[:-1] - 1e-12) & (half <= got[1:] + 1e-12))
    # the scalar path gives the same
    assert float(experts_read_per_chip(E, k, 4.5, ep=ep)) == pytest.approx(float(half[4]))


def test_mixtral_on_two_h100_has_no_step_at_batch_five() -> None:
    d = lr.deployment("mixtral-8x7b", "h100-sxm", 2)
    assert d.split_text().startswith("tp 2 · pp 1 · ep 2")
    s = d.decode(np.arange(1.0, 9.0), 1024.0)
    w = s.one_batch.t_weights
    # from batch 4 to 5 the busiest chip reads at most the extra experts five tokens touch
    # over four, 8 · (0.75^4 − 0.75^5) = 0.633 per layer, of 3 · 4,096 · 14,336 parameters in
    # bf16, over 32 layers at 3.35 TB/s: 2.14 ms (the rounded-up count added 3.36 ms)
    bound = 8 * (0.75**4 - 0.75**5) * 32 * 3 * 4096 * 14336 * 2 / 3.35e12
    assert 0 <= float(w[4] - w[3]) <= bound * (1 + 1e-9)
    assert np.all(np.diff(w) >= 0)
