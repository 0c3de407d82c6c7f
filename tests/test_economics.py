"""The lecture's economics (§3, §5, §6): prices read backwards, cost against context, where
to keep a KV cache, and the training/RL/inference balance. Expected numbers come from
../shared/reference-cases.md (the lecture: Dwarkesh Podcast, Reiner Pope, 2026-04-29) or
from hand arithmetic written out here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from llm_roofline.catalog import get_hardware
from llm_roofline.economics import (
    balance,
    cache_costs,
    cost_floor,
    cost_vs_context,
    decode_to_prefill_mfu,
    kv_bytes_from_price_step,
    load_tiers,
)
from llm_roofline.errors import InputError
from llm_roofline.hf_config import load_config, spec_from_config

CLI = [sys.executable, "-m", "llm_roofline.cli"]
DATA = Path(__file__).resolve().parent.parent / "src" / "llm_roofline" / "data"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def test_price_ratio_is_the_mfu_ratio() -> None:
    # the lecture: output priced 5x input -> decode at a fifth of prefill's utilisation
    assert decode_to_prefill_mfu(3.0, 15.0) == pytest.approx(0.2)


def test_kv_bytes_implied_by_a_price_step_lecture() -> None:
    # reference-cases: 200k-token step, 100B active, ratio 300 -> 1,667 bytes per token.
    # The lecture counts the ratio in multiply-adds per byte; our argument is FLOP/B, so 600:
    # 2 * 100e9 / (600 * 200e3) = 2e11 / 1.2e8 = 1,666.7
    assert kv_bytes_from_price_step(200_000, 100e9, 600) == pytest.approx(1666.67, rel=0.01)


def test_balance_lecture_numbers() -> None:
    # reference-cases: 50M tokens/s for 60 days = 2.59e14 tokens; Chinchilla for 100B
    # active = 2e12; ratio ~100. 5e7 * 60 * 86400 = 2.592e14; 20 * 1e11 = 2e12.
    r = balance(5e7, 60, 100e9)
    assert r.inference_tokens == pytest.approx(2.592e14, rel=1e-3)
    assert r.chinchilla_tokens == pytest.approx(2e12)
    # defaults: inference MFU = pre-training's / 3, so pre-training tokens at equal cost
    # = 2 * N * D_inf / (MFU/3) * MFU / (6 * N) = D_inf: over-training 2.592e14 / 2e12 = 129.6
    assert r.pretrain_tokens == pytest.approx(2.592e14, rel=1e-3)
    assert r.overtraining == pytest.approx(129.6, rel=1e-3)
    # RL at 3 N FLOPs per token and inference's MFU: D_rl = 2 D_inf / 3 = 1.728e14
    assert r.rl_tokens == pytest.approx(1.728e14, rel=1e-3)


def test_cost_floor_input_cheaper_than_output() -> None:
    # prefill is compute-bound, decode memory-bound: input tokens must cost less (the
    # premise of output/input price ratios above 1)
    f = cost_floor("llama-3.1-70b", "h100-sxm", 8, context_len=4096)
    assert 0 < f["usd_per_million_input_tokens"] < f["usd_per_million_output_tokens"]
    # Llama 3.1 70B: 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes = 327,680 B/token
    assert f["kv_bytes_per_token"] == 327_680


def test_cost_grows_with_context_once_kv_dominates() -> None:
    curve = cost_vs_context("llama-3.1-70b", "h100-sxm", [1024, 32768, 131072], 8)
    usd = curve["usd_per_million_output_tokens"]
    assert usd[0] < usd[1] < usd[2]
    assert np.all(curve["batch"][:-1] >= curve["batch"][1:])  # fewer fit at longer context
    with pytest.raises(InputError):
        cost_vs_context("llama-3.1-70b", "h100-sxm", [0, 10])


def test_cache_tiers_hand_arithmetic() -> None:
    chip = get_hardware("h100-sxm")
    tiers = {t.id: t for t in load_tiers(chip)}
    # HBM drain time = capacity / bandwidth; the lecture's Rubin example: 288 GB / 20 TB/s
    # = 14.4 ms. H100 SXM: 85.52e9 B / 3.35e12 B/s = 25.5 ms
    assert tiers["hbm"].drain_time_s == pytest.approx(85.52e9 / 3.35e12, rel=1e-3)
    # DRAM, one 64 GB DDR5-4800 DIMM: 64 / 38.4 = 1.67 s (data/tiers.toml)
    assert tiers["dram"].drain_time_s == pytest.approx(64 / 38.4, rel=1e-3)
    # the tiers' drain times grow from HBM to disk: each suits a longer hold
    drains = [tiers[k].drain_time_s for k in ("hbm", "dram", "flash", "disk")]
    assert drains == sorted(drains)

    res = cache_costs("llama-3.1-8b", "h100-sxm", context_len=10_000, hold_s=[0.1, 1e4, 1e9])
    # Llama 3.1 8B: 32 layers x 8 heads x 128 x 2 x 2 bytes = 131,072 B/token; x 10,000
    assert res["kv_bytes"] == 131_072 * 10_000
    # holding in HBM for t seconds: bytes / capacity x price per second x t
    hbm = res["tiers"]["hbm"]["usd"]
    expect = 1.31072e9 / chip.memory_bytes * chip.price_usd_per_s * 1e4
    assert hbm[1] == pytest.approx(expect + 1.31072e9 / chip.memory_bw * chip.price_usd_per_s)
    # short holds stay in HBM; a 30-year hold is cheaper to recompute or keep on disk
    assert res["cheapest"][0] == "hbm"
    assert res["cheapest"][2] in ("recompute", "disk")
    with pytest.raises(InputError):
        cache_costs("llama-3.1-8b", "h100-sxm", context_len=10, hold_s=[-1])


def test_every_tier_figure_has_a_source() -> None:
    import tomllib

    recs = tomllib.loads((DATA / "tiers.toml").read_text())
    for tid, rec in recs.items():
        if tid in ("hbm", "prices"):
            continue
        for key in ("capacity_gb", "bandwidth_gb_per_s", "price_usd"):
            assert rec["sources"][key].startswith("https://"), (tid, key)


def test_sparse_attention_reads_a_bounded_subset() -> None:
    # DeepSeek sparse attention: each query reads the latents of index_topk tokens, plus
    # the indexer's key (index_head_dim elements) of every token. The values are
    # DeepSeek-V3.2-Exp's (index_topk 2048, 64 indexer heads of dim 128,
    # https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp/blob/main/config.json)
    cfg = load_config(DATA / "models" / "deepseek-v3.config.json")
    dense = spec_from_config(cfg, "dsv3")
    sparse = spec_from_config(
        {**cfg, "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128}, "dsv32"
    )
    # MLA latent + rope key per layer: 512 + 64 = 576 elements; 61 layers
    S = np.array([1024.0, 2048.0, 100_000.0])
    assert np.allclose(dense.kv_elements_read(S), 61 * 576 * S)
    # sparse: 61 x (576 x min(S, 2048) + 128 x S)
    want = 61 * (576 * np.minimum(S, 2048) + 128 * S)
    assert np.allclose(sparse.kv_elements_read(S), want)
    # at 100k tokens: 61 x (576 x 2048 + 128 x 1e5) / (61 x 576 x 1e5) = 0.2427 of dense
    assert sparse.kv_elements_read(100_000.0) / dense.kv_elements_read(100_000.0) == (
        pytest.approx((576 * 2048 + 128e5) / 576e5)
    )


def test_cli_pricing_cache_tiers_balance(tmp_path: Path) -> None:
    r = run(
        "pricing", "--input-price", "3", "--output-price", "15",
        "--long-context-threshold", "200000", "--long-input-price", "6",
        "--long-output-price", "22.5", "--active-params", "1e11", "--ratio", "600",
        "--model", "llama-3.1-70b", "--chips", "8", "--out", str(tmp_path), "--json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["decode_to_prefill_mfu"] == pytest.approx(0.2)
    assert out["implied_kv_bytes_per_token"] == pytest.approx(1666.67, rel=0.01)
    assert out["catalog_kv_bytes_per_token_bf16"]["llama-3.1-70b"] == 327_680
    assert (tmp_path / "llama-3.1-70b_cost_vs_context.png").stat().st_size > 10_000

    r = run("cache-tiers", "--model", "llama-3.1-8b", "--hardware", "h100-sxm",
            "--context", "10000", "--hold", "1,3600", "--out", str(tmp_path), "--json")  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["kv_bytes"] == 131_072 * 10_000 and len(out["cheapest"]) == 2
    assert (tmp_path / "llama-3.1-8b_h100-sxm_cache_tiers.png").exists()

    r = run("balance", "--tokens-per-s", "5e7", "--days", "60", "--active-params", "1e11")
    assert r.returncode == 0 and "over-training factor 130" in r.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("pricing", "--input-price", "0", "--output-price", "1"),
        ("pricing", "--input-price", "1", "--output-price", "5", "--long-context-threshold", "1e5"),
        ("cache-tiers", "--model", "llama-9", "--hardware", "h100-sxm", "--context", "10"),
        ("cache-tiers", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--context", "10",
         "--hold", "-1"),
        ("balance", "--tokens-per-s", "nan", "--days", "1", "--active-params", "1e9"),
    ],
)  # fmt: skip
def test_cli_bad_input_is_exit_2(args: tuple[str, ...]) -> None:
    r = run(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and r.stderr.strip().count("\n") <= 1
