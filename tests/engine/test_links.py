"""One link and one collective (`links.py`), timed as latency + bytes / bandwidth, at points
worked by hand. (tests/engine/test_parallel.py checks an 8-chip all-reduce at two sizes; here:
the ring/tree crossover, the given-latency override, the tree's ceil(log2 n), the all-to-all,
the link choice and the KV hand-off.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline._core.errors import InputError
from llm_roofline.engine.links import (
    allreduce_eval,
    allreduce_parts,
    allreduce_plan,
    allreduce_time,
    alltoall_time,
    kv_transfer_time,
    link,
    network_link,
)
from llm_roofline.engine.parallel import CommModel

from ..conftest import make_chip

# 8 chips on a 100 GB/s scale-up link, 25 GB/s beyond it
NVL = dataclasses.replace(make_chip(), scale_up_domain=8, scale_up_bw=100e9, scale_out_bw=25e9)


def test_ring_and_tree_cross_over_where_hand_arithmetic_says() -> None:
    # n = 4, α = 1 µs, 100 GB/s. Ring: 2(n−1)α = 6 µs + 2(n−1)/n · M / bw = 1.5 M / bw.
    # Tree: 2·ceil(log2 4)·α = 4 µs + 2 M / bw. Equal where 2 µs = 0.5 M / 1e11: M = 400 kB.
    # M = 100 kB: ring 6 + 1.5 = 7.5 µs, tree 4 + 2 = 6 µs -> the tree, latency part 4 µs
    # M = 10 MB:  ring 6 + 150 = 156 µs, tree 4 + 200 = 204 µs -> the ring, latency part 6 µs
    t, lat = allreduce_parts(4, np.array([1e5, 1e7]), 100e9, 1e-6)
    assert t == pytest.approx([6e-6, 156e-6])
    assert lat == pytest.approx([4e-6, 6e-6])
    assert float(allreduce_time(4, 4e5, 100e9, 1e-6)) == pytest.approx(12e-6)  # both 12 µs


def test_tree_latency_rounds_log2_up_and_a_given_latency_replaces_both() -> None:
    # n = 5: tree steps 2·ceil(log2 5) = 6, ring steps 2·4 = 8; α = 1 µs
    plan = allreduce_plan(5, 100e9, 1e-6, None)
    assert (plan.tree_lat, plan.ring_lat) == pytest.approx((6e-6, 8e-6))
    assert plan.ring_share == pytest.approx(2 * 4 / 5)
    # a source's latency (Epoch AI's form) replaces both: then the ring's 1.6 M / bw beats the
    # tree's 2 M / bw at every size. 10 µs + 1.6 · 1e6 / 1e11 = 26 µs
    t, lat = allreduce_parts(5, 1e6, 100e9, 1e-6, latency=10e-6)
    assert float(t) == pytest.approx(26e-6) and float(lat) == pytest.approx(10e-6)


def test_one_chip_costs_nothing_and_the_backends_agree() -> None:
    assert float(allreduce_time(1, 1e9, 100e9, 1e-6)) == 0.0
    assert float(alltoall_time(1, 1e9, 100e9, 1e-6)) == 0.0
    plan = allreduce_plan(8, 100e9, 1e-6, None)
    for m in (1.0, 4e5, 1e8):
        s_t, s_lat = allreduce_eval(SCALAR, plan, m)
        a_t, a_lat = allreduce_eval(ARRAY, plan, np.float64(m))
        assert s_t == pytest.approx(float(a_t), rel=1e-15) and s_lat == float(a_lat)


def test_alltoall_is_latency_plus_bytes_over_bandwidth() -> None:
    # each chip sends 1 MB at 100 GB/s after α = 1 µs: 1 µs + 10 µs
    assert float(alltoall_time(8, 1e6, 100e9, 1e-6)) == pytest.approx(11e-6)


def test_the_link_a_group_crosses() -> None:
    comm = CommModel()  # α: 1 µs scale-up, 5 µs scale-out
    assert link(NVL, 8, comm) == pytest.approx((100e9, 1e-6))
    assert link(NVL, 9, comm) == pytest.approx(
        (25e9, 5e-6)
    )  # one chip past the domain: the network
    assert network_link(NVL, comm) == pytest.approx((25e9, 5e-6))
    lone = dataclasses.replace(NVL, scale_out_bw=0.0)
    with pytest.raises(InputError) as e:
        link(lone, 16, comm)
    assert str(e.value) == (
        "a group of 16 chips leaves the 8-chip scale-up domain of test-chip, and the catalog "
        "has no scale-out bandwidth for it"
    )
    assert e.value.field == "chips"
    with pytest.raises(InputError, match=r"^the catalog has no scale-out bandwidth for test-chip$"):
        network_link(lone, comm)


def test_kv_hand_off_over_the_fewer_of_senders_and_receivers(
    small_model: lr.ModelSpec,
) -> None:
    # the small Llama holds 2,048 KV elements a token (tests/engine/test_hand_checked.py):
    # 1,000 tokens · 2,048 · 2 bytes = 4,096,000 bytes, over min(2, 4) = 2 links of 100 GB/s
    # inside the 8-chip domain: 1 µs + 4.096e6 / 2e11 = 21.48 µs
    t = kv_transfer_time(
        small_model, 2.0, NVL, senders=2, receivers=4, fleet=6, comm=CommModel(), tokens=1000
    )
    assert float(t) == pytest.approx(1e-6 + 4.096e6 / 2e11)
