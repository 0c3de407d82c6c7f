"""Property tests for the physics, over random models, chips, batches and contexts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import llm_roofline as lr
from llm_roofline import Chip, System, spec_from_config


@st.composite
def models(draw: st.DrawFn) -> lr.ModelSpec:
    heads = draw(st.sampled_from([4, 8, 16, 32]))
    kv = draw(st.sampled_from([h for h in (1, 2, 4, 8, 16, 32) if heads % h == 0]))
    head_dim = draw(st.sampled_from([32, 64, 128]))
    cfg: dict[str, object] = {
        "model_type": "llama",
        "hidden_size": heads * head_dim,
        "num_hidden_layers": draw(st.integers(1, 48)),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "intermediate_size": draw(st.integers(64, 20000)),
        "vocab_size": draw(st.integers(100, 200000)),
        "tie_word_embeddings": draw(st.booleans()),
    }
    if draw(st.booleans()):  # mixture of experts
        E = draw(st.integers(2, 256))
        cfg.update(
            model_type="mixtral",
            num_local_experts=E,
            num_experts_per_tok=draw(st.integers(1, min(E, 8))),
        )
    if draw(st.booleans()):  # sliding window on every layer
        cfg["sliding_window"] = draw(st.integers(16, 8192))
        cfg["model_type"] = "mistral" if cfg["model_type"] == "llama" else cfg["model_type"]
    return spec_from_config(cfg)


chips = st.builds(
    lambda f, bw, n: System(
        Chip(
            id="p",
            name="p",
            peak_flops={"bf16": f},
            memory_bytes=80e9,
            memory_bw=bw,
            price_usd_per_s=0.001,
            power_w=700.0,
        ),
        n,
    ),
    st.floats(1e12, 1e16),
    st.floats(1e11, 3e13),
    st.integers(1, 128),
)
overlaps = st.sampled_from(lr.OVERLAP_MODES)


@settings(max_examples=60, deadline=None)
@given(models(), chips, overlaps)
def test_step_time_never_decreases_with_batch_or_context(
    spec: lr.ModelSpec, system: System, overlap: str
) -> None:
    B = np.array([1, 2, 3, 8, 64, 500, 4096], dtype=float)
    S = np.array([1, 10, 100, 1000, 30000, 500000], dtype=float)
    grid = lr.decode_step(spec, system, batch=B[:, None], context_len=S[None, :], overlap=overlap)
    t = grid.t_step
    assert np.all(np.isfinite(t)) and np.all(t > 0)
    assert np.all(np.diff(t, axis=0) >= -1e-18 * t[:-1])
    assert np.all(np.diff(t, axis=1) >= -1e-18 * t[:, :-1])


@settings(max_examples=60, deadline=None)
@given(models(), chips, st.integers(1, 10000), st.integers(1, 200000), overlaps)
def test_never_below_weights_over_bandwidth(
    spec: lr.ModelSpec, system: System, b: int, s: int, overlap: str
) -> None:
    step = lr.decode_step(spec, system, batch=b, context_len=s, overlap=overlap)
    # An independent floor from the architecture: every non-expert weight, and at least the
    # k experts one token routes to in each MoE layer, must cross the memory bus once.
    D = spec.d_model
    dense = spec.params_text - spec.params_routed
    if not spec.tie_embeddings:
        dense -= spec.vocab_size * D - D  # only the gathered rows of an untied embedding
    experts = sum(g.count * g.ffn.top_k * g.ffn.expert_params(D) for g in spec.groups)
    floor = (dense + experts) * 2.0 / system.memory_bw  # bf16
    assert float(step.t_step) >= floor * (1 - 1e-12)
    assert lr.latency_floor(spec, system) >= floor * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(models(), chips, st.integers(1, 100000))
def test_cost_per_token_never_rises_with_batch_while_memory_bound(
    spec: lr.ModelSpec, system: System, s: int
) -> None:
    B = np.unique(np.geomspace(1, 8192, 40).round())
    step = lr.decode_step(spec, system, batch=B, context_len=s)
    usd = lr.usd_per_token(step)
    mem = step.bound == 1
    # consecutive points both memory-bound: cost per token must not rise
    both = mem[1:] & mem[:-1]
    assert np.all(usd[1:][both] <= usd[:-1][both] * (1 + 1e-12))


@settings(max_examples=60, deadline=None)
@given(models(), chips, st.integers(1, 4096), st.integers(1, 100000), overlaps)
def test_doubling_chips_halves_every_term(
    spec: lr.ModelSpec, system: System, b: int, s: int, overlap: str
) -> None:
    one = lr.decode_step(spec, system, batch=b, context_len=s, overlap=overlap)
    two = lr.decode_step(
        spec, System(system.chip, 2 * system.n_chips), batch=b, context_len=s, overlap=overlap
    )
    for name in ("t_matmul", "t_attn", "t_weights", "t_kv", "t_step"):
        np.testing.assert_allclose(getattr(two, name), getattr(one, name) / 2, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(models(), chips, st.integers(1, 4096), st.integers(1, 100000))
def test_doubling_bandwidth_halves_memory_time(
    spec: lr.ModelSpec, system: System, b: int, s: int
) -> None:
    c = system.chip
    fast = Chip(
        id="f",
        name="f",
        peak_flops=c.peak_flops,
        memory_bytes=c.memory_bytes,
        memory_bw=2 * c.memory_bw,
    )
    one = lr.decode_step(spec, system, batch=b, context_len=s)
    two = lr.decode_step(spec, System(fast, system.n_chips), batch=b, context_len=s)
    np.testing.assert_allclose(two.t_memory, one.t_memory / 2, rtol=1e-12)
    np.testing.assert_allclose(two.t_compute, one.t_compute, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(models(), chips, st.integers(1, 2048), st.integers(1, 32768))
def test_prefill_finite_positive_and_monotone(
    spec: lr.ModelSpec, system: System, b: int, t: int
) -> None:
    p1 = lr.prefill(spec, system, batch=b, prompt_len=t)
    p2 = lr.prefill(spec, system, batch=b, prompt_len=2 * t)
    assert np.isfinite(p1.t_step) and p1.t_step > 0
    assert p2.t_step >= p1.t_step


@settings(max_examples=40, deadline=None)
@given(models(), chips, st.lists(st.integers(1, 5000), min_size=2, max_size=12))
def test_order_of_inputs_does_not_matter(
    spec: lr.ModelSpec, system: System, batches: list[int]
) -> None:
    B = np.array(batches, dtype=float)
    perm = np.random.default_rng(0).permutation(len(B))
    a = lr.decode_step(spec, system, batch=B, context_len=777)
    b = lr.decode_step(spec, system, batch=B[perm], context_len=777)
    np.testing.assert_allclose(a.t_step[perm], b.t_step, rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(models())
def test_parameter_counts_are_consistent(spec: lr.ModelSpec) -> None:
    # read at batch 1 ≤ stored; multiplied ≤ stored + LM head (tied heads count once stored)
    assert float(spec.params_read(1)) <= spec.params_stored
    assert spec.params_multiplied <= spec.params_stored + spec.lm_head_params
    # reading for very many tokens touches every expert: all stored weights
    assert float(spec.params_read(1e9)) <= spec.params_stored * (1 + 1e-12)
