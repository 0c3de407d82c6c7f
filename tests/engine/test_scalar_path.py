"""The engine's two backends agree: plain Python numbers take the scalar path (`backend.py`,
math on floats), arrays the numpy path, through the same formula code. Both must give the same
StepTime for the same point; this is a consistency check between the two paths (neither is the
reference), over models that exercise every branch: dense, MoE, MLA, sliding windows, chunked
attention, sinks, and splits with tensor, pipeline, expert and data parallelism, with and
without two micro-batches."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.engine.parallel import CommModel, Parallelism

FIELDS = [
    f.name
    for f in dataclasses.fields(lr.StepTime)
    if f.name not in ("overlap", "system", "comm_overlap", "single", "double")
]

CASES = [
    # (model, hardware, chips, split or None, comm overlap)
    ("llama-3.1-8b", "h100-sxm", 1, None, None),
    ("gemma-3-27b", "rtx-4090", 2, None, None),  # sliding windows
    ("llama-4-scout", "h100-sxm", 8, (8, 1, 1), "auto"),  # chunked attention, MoE
    ("gpt-oss-20b", "rtx-5090", 1, None, None),  # sinks, windows, MoE
    ("llama-3.1-70b", "h100-sxm", 8, (8, 1, 1), "auto"),
    ("llama-3.1-405b", "h100-sxm", 16, (8, 2, 1), "two-batch"),  # pipeline stages
    ("mixtral-8x7b", "a100-80gb", 4, (2, 1, 4), "none"),
    ("deepseek-v3", "gb200", 72, (1, 1, 72), "auto"),  # MLA, attention data parallel
    ("qwen3-235b-a22b", "tpu-v5p", 16, (4, 1, 16), "auto"),  # a torus
]
BATCHES = (1.0, 3.0, 64.0, 1000.0)
CONTEXTS = (1.0, 4097.0, 131072.0)


def _kw(chips: int, split: tuple[int, int, int] | None, overlap: str | None) -> dict[str, object]:
    if split is None:
        return {"chips": chips}
    tp, pp, ep = split
    return {
        "chips": chips,
        "parallel": Parallelism(chips, tp, pp, ep),
        "comm": CommModel(overlap=overlap or "auto"),  # type: ignore[arg-type]
    }


def _same(a: lr.StepTime, b: lr.StepTime) -> None:
    for name in FIELDS:
        x, y = np.asarray(getattr(a, name), dtype=float), np.asarray(getattr(b, name), dtype=float)
        np.testing.assert_allclose(x.ravel(), y.ravel(), rtol=1e-12, atol=0, err_msg=name)
    assert (a.single is None) == (b.single is None)
    if a.single is not None and b.single is not None:
        _same(a.single, b.single)
    assert (a.double is None) == (b.double is None)
    if a.double is not None and b.double is not None:
        _same(a.double, b.double)


@pytest.mark.parametrize(("model", "hw", "chips", "split", "overlap"), CASES)
def test_decode_scalar_equals_array(
    model: str, hw: str, chips: int, split: tuple[int, int, int] | None, overlap: str | None
) -> None:
    kw = _kw(chips, split, overlap)
    for B, S in itertools.product(BATCHES, CONTEXTS):
        scalar = lr.decode_step(model, hw, batch=B, context_len=S, **kw)  # type: ignore[arg-type]
        array = lr.decode_step(model, hw, batch=[B], context_len=[S], **kw)  # type: ignore[arg-type]
        assert np.ndim(scalar.t_step) == 0
        _same(scalar, array)


@pytest.mark.parametrize(("model", "hw", "chips", "split", "overlap"), CASES)
def test_prefill_scalar_equals_array(
    model: str, hw: str, chips: int, split: tuple[int, int, int] | None, overlap: str | None
) -> None:
    kw = _kw(chips, split, overlap)
    for B, T, S0 in itertools.product((1.0, 8.0), (1.0, 2048.0), (0.0, 30000.0)):
        scalar = lr.prefill(model, hw, batch=B, prompt_len=T, cached_len=S0, **kw)  # type: ignore[arg-type]
        array = lr.prefill(model, hw, batch=[B], prompt_len=[T], cached_len=[S0], **kw)  # type: ignore[arg-type]
        _same(scalar, array)


def test_many_mixed_steps_equal_one_at_a_time() -> None:
    """`mixed_step` over many passes (`context_mean`) gives each pass what a call of its own
    gives: the two ways of averaging a spread of contexts agree."""
    from llm_roofline.engine.roofline import mixed_step
    from llm_roofline.serving.spans import Spans

    batch = np.array([1.0, 16.0, 16.0, 300.0])
    first = np.array([100.0, 5000.0, 5100.0, 40000.0])
    count = np.array([1, 700, 2000, 5000])  # the last one sampled (beyond 4096 steps)
    prompts = batch / count
    spans = Spans.of(np.ones(4), first, count)
    kw = {"chips": 8, "parallel": Parallelism(8, 8), "comm": CommModel()}
    many = mixed_step(
        "llama-3.1-70b",
        "h100-sxm",
        decode_batch=batch,
        decode_contexts=spans.context,
        prefill_seqs=prompts,
        prefill_len=first,
        context_mean=spans.mean,
        **kw,  # type: ignore[arg-type]
    )
    for k in range(4):
        ctx = spans.context[spans.start[k] : spans.start[k] + spans.size[k]]
        one = mixed_step(
            "llama-3.1-70b",
            "h100-sxm",
            decode_batch=batch[k],
            decode_contexts=ctx,
            prefill_seqs=prompts[k],
            prefill_len=first[k],
            **kw,  # type: ignore[arg-type]
        )
        for name in ("t_step", "t_matmul", "t_attn", "t_weights", "t_kv", "t_comm"):
            np.testing.assert_allclose(
                getattr(many, name)[k], getattr(one, name), rtol=1e-12, err_msg=name
            )


def test_the_plan_cache_never_skips_a_check() -> None:
    """A cached plan is keyed by the chip count with its type: 2.0 and True equal 2 and 1 as
    dict keys, and must still be refused after 2 and 1 were used."""
    lr.decode_step("llama-3.1-8b", "h100-sxm", chips=2, batch=8.0, context_len=100.0)
    lr.decode_step("llama-3.1-8b", "h100-sxm", chips=1, batch=8.0, context_len=100.0)
    for bad in (2.0, True):
        with pytest.raises(lr.InputError, match="chips"):
            lr.decode_step("llama-3.1-8b", "h100-sxm", chips=bad, batch=8.0, context_len=100.0)  # type: ignore[arg-type]


def test_a_chip_cannot_change_under_a_cached_plan() -> None:
    """A Chip's peaks are a read-only copy: the engine caches what it derives from a chip by
    identity, so a peak changed in place would otherwise be silently ignored."""
    peaks = {"bf16": 1e15}
    chip = lr.Chip(id="c", name="c", peak_flops=peaks, memory_bytes=80e9, memory_bw=1e12)
    before = float(lr.decode_step("llama-3.1-8b", chip, batch=64.0, context_len=1.0).t_matmul)
    peaks["bf16"] = 1e14  # the caller's dict: not the chip's
    with pytest.raises(TypeError):
        chip.peak_flops["bf16"] = 1e14  # type: ignore[index]
    after = float(lr.decode_step("llama-3.1-8b", chip, batch=64.0, context_len=1.0).t_matmul)
    assert after == before


def test_one_mixed_step_takes_one_batch() -> None:
    from llm_roofline.engine.roofline import mixed_step

    with pytest.raises(lr.InputError, match="decode_batch"):
        mixed_step(
            "llama-3.1-8b",
            "h100-sxm",
            decode_batch=[8, 16],
            decode_contexts=[100.0, 200.0],
            prefill_seqs=0.0,
            prefill_len=1.0,
        )
