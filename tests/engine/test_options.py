"""The pass options (engine/options.py): declared once, taken by every entry point as keywords,
a misspelt one refused as Python refuses an unknown keyword argument."""

from __future__ import annotations

import pytest

import llm_roofline as lr
from llm_roofline.engine.options import PASS_OPTIONS, memory_options
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.serving.modes import serve


def test_the_options_are_the_six_choices_of_a_pass() -> None:
    assert {"weight_dtype", "kv_dtype", "compute_dtype", "overlap", "parallel", "comm"} == (
        PASS_OPTIONS
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda: lr.decode_step("llama-3.1-8b", "h100-sxm", batch=1, weight_dtpye="fp8"),
        lambda: lr.prefill("llama-3.1-8b", "h100-sxm", batch=1, prompt_len=8, weight_dtpye="fp8"),
        lambda: serve(
            "llama-3.1-8b", "h100-sxm", batch=1, input_len=8, output_len=8, weight_dtpye="fp8"
        ),
    ],
)
def test_a_misspelt_option_is_refused_by_name(call: object) -> None:
    with pytest.raises(TypeError, match="weight_dtpye"):
        call()  # type: ignore[operator]


def test_defaults_are_the_lectures() -> None:
    """No option given is bf16 weights and KV, the full overlap (max of the terms), no split:
    the same step as each of them spelt out."""
    bare = lr.decode_step("llama-3.1-8b", "h100-sxm", batch=64.0, context_len=4096.0)
    spelt = lr.decode_step(
        "llama-3.1-8b",
        "h100-sxm",
        batch=64.0,
        context_len=4096.0,
        weight_dtype="bf16",
        kv_dtype="bf16",
        overlap="full",
        parallel=None,
        comm=None,
    )
    assert float(bare.t_step) == float(spelt.t_step)
    # and the step is the lecture's max(compute, memory): 16.06e9 bytes of weights and
    # 64 x 4096 x 131,072 bytes of KV over 3.35e12 B/s, against 2 x 7.5e9 x 64 FLOP at 989 TFLOP/s
    assert float(bare.t_step) == pytest.approx(max(bare.t_compute, bare.t_memory))


def test_memory_takes_the_types_and_the_split_only() -> None:
    par = Parallelism(8, 8, 1, 1)
    opts = memory_options({"weight_dtype": "fp8", "overlap": "none", "parallel": par})
    assert opts == {"weight_dtype": "fp8", "parallel": par}
