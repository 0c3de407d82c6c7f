"""`sim.pools`: from deployments to the simulator's pools. KV capacity by hand on the small
Llama-style model of tests/conftest.py (weights 125,749,248 bytes in bf16, KV 4,096 bytes a
token, 26,528 bytes of activations and logits a sequence) on 1 GB chips: 874,250,752 bytes
free beside the weights; the P:D split; the KV hand-off between pools."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from llm_roofline import spec_from_config
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.engine.parallel import CommModel
from llm_roofline.sim.pools import build_pools, disagg_pools, kv_capacity, parse_disagg
from tests.conftest import llama_like, make_chip

FREE = 1_000_000_000 - 125_749_248  # 874,250,752 bytes beside the weights


def _dep(chips: int = 2, **kw: Any) -> Deployment:
    # chips joined in pairs by a 100 GB/s scale-up link
    chip = dataclasses.replace(make_chip(mem=1e9), scale_up_domain=2, scale_up_bw=1e11)
    spec = spec_from_config(llama_like(), name="small")
    return deployment(spec, chip, chips, replicas=chips, engine="ideal", **kw)


def test_kv_capacity_by_hand() -> None:
    dep = _dep()  # two single-chip replicas: capacity is one instance's
    # 1,000 tokens: 874,250,752 // (1,000 · 4,096 + 26,528) = 212 sequences, 212,000 tokens
    assert FREE // (1000 * 4096 + 26_528) == 212
    assert kv_capacity(dep, 1000) == 212_000
    # 10,000 tokens: 21 sequences (210,000 tokens); counted in sequences of 8,192 instead,
    # 874,250,752 // (8,192 · 4,096 + 26,528) = 26 of them hold 212,992: the more
    assert FREE // (10_000 * 4096 + 26_528) == 21 and FREE // (8192 * 4096 + 26_528) == 26
    assert kv_capacity(dep, 10_000) == 212_992


def test_kv_capacity_refuses_a_request_that_does_not_fit_alone() -> None:
    # 300,000 tokens of KV are 1.23e9 bytes, more than the 1 GB chip
    with pytest.raises(InputError) as exc:
        kv_capacity(_dep(), 300_000)
    assert exc.value.field == "input_len"
    assert str(exc.value).startswith("a request of 300000 tokens does not fit one instance: ")


def test_parse_disagg() -> None:
    assert parse_disagg("1:3") == (1, 3)
    assert parse_disagg(" 2 : 5 ") == (2, 5)  # int() takes the spaces
    for bad in ("3", "1:3:1", "0:2", "a:b", "-1:2"):
        with pytest.raises(InputError) as exc:
            parse_disagg(bad)
        assert exc.value.field == "disagg"
        assert str(exc.value) == (
            "disagg must be P:D, prefill and decode instance counts (e.g. 1:3), got " + repr(bad)
        )


def test_disagg_pools_are_instances_of_the_deployment() -> None:
    dep = deployment(
        spec_from_config(llama_like(), name="small"),
        dataclasses.replace(make_chip(), scale_up_domain=4, scale_up_bw=1e11),
        8,
        tp=4,
        engine="ideal",
    )
    assert (dep.instance_chips, dep.replicas) == (4, 2)
    pf, dec = disagg_pools(dep, 1, 3)
    assert (pf.chips, pf.replicas, pf.tp) == (4, 1, 4)
    assert (dec.chips, dec.replicas, dec.tp) == (12, 3, 4)
    with pytest.raises(InputError) as exc:
        disagg_pools(dep, 0, 3)
    assert exc.value.field == "disagg"


def test_build_pools_by_hand() -> None:
    pf, dec = disagg_pools(_dep(), 1, 1)
    cache: dict[Any, Any] = {}
    pre, decode = build_pools(dec, pf, [100, 200], 300, max_seqs=16, budget=512, cache=cache)
    assert (pre.role, decode.role) == ("prefill", "decode")
    # the prefill pool holds the longest prompt and its first token, 201 tokens:
    # 874,250,752 // (201 · 4,096 + 26,528) = 1,028 sequences, 206,628 tokens
    assert pre.kv_cap == 1028 * 201
    # the decode pool the longest request, 300: // (300 · 4,096 + 26,528) = 696 sequences
    assert decode.kv_cap == 696 * 300
    # the hand-off of a 100-token prompt, one chip to one over the scale-up link:
    # latency + 100 · 4,096 bytes / 1e11 B/s
    assert pre.transfer is not None and decode.transfer is None
    assert pre.transfer(100) == pytest.approx(CommModel().scale_up_latency_s + 409_600 / 1e11)
    # kept between runs: the same step table comes back
    again = build_pools(dec, pf, [100, 200], 300, max_seqs=16, budget=512, cache=cache)
    assert again[1].table is decode.table
    # aggregated: one pool of the deployment's instances
    (whole,) = build_pools(_dep(), None, [100], 300, max_seqs=16, budget=512)
    assert (whole.role, whole.replicas, whole.kv_cap) == ("mixed", 2, 696 * 300)


def test_pools_must_share_the_kv_type() -> None:
    pf, _ = disagg_pools(_dep(kv_dtype="fp8"), 1, 1)
    _, dec = disagg_pools(_dep(), 1, 1)
    with pytest.raises(InputError) as exc:
        build_pools(dec, pf, [100], 200, max_seqs=16, budget=512)
    assert exc.value.field == "kv_dtype"
    assert str(exc.value) == "the prefill and decode pools must share the kv_dtype (fp8 vs bf16)"
