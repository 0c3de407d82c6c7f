"""Shared helpers for the tests: small hand-made models and chips whose numbers are easy to
check by hand."""

from __future__ import annotations

from typing import Any

import pytest

from llm_roofline import Chip, ModelSpec, spec_from_config


def llama_like(**over: Any) -> dict[str, Any]:
    """A small Llama-style config.json (gated MLP, GQA, untied embeddings)."""
    cfg: dict[str, Any] = {
        "model_type": "llama",
        "hidden_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "intermediate_size": 4096,
        "vocab_size": 1000,
        "tie_word_embeddings": False,
        "max_position_embeddings": 8192,
    }
    cfg.update(over)
    return cfg


def make_chip(
    flops: float = 1e15, bw: float = 1e12, mem: float = 80e9, price_per_hour: float = 3.6
) -> Chip:
    """A chip with round numbers: 1 PFLOP/s bf16, 1 TB/s, 80 GB, $3.60 per hour = $0.001/s."""
    return Chip(
        id="test-chip",
        name="test chip",
        peak_flops={"bf16": flops, "fp8": 2 * flops},
        memory_bytes=mem,
        memory_bw=bw,
        power_w=1000.0,
        price_usd_per_s=price_per_hour / 3600.0,
    )


@pytest.fixture
def small_model() -> ModelSpec:
    return spec_from_config(llama_like(), name="small")


@pytest.fixture
def chip() -> Chip:
    return make_chip()
