"""The lecture's economics (§3, §5, §6): prices read backwards, cost against context, where
to keep a KV cache, and the training/RL/inference balance. Expected numbers come from
docs/reference-cases.md (the lecture: Dwarkesh Podcast, Reiner Pope, 2026-04-29) or
from hand arithmetic written out here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from llm_roofline import balanced_context_formula
from llm_roofline._core.errors import InputError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.economics.pricing import (
    balance,
    cache_costs,
    catalog_kv_vs_price_step,
    cost_floor,
    cost_vs_context,
    decode_to_prefill_mfu,
    kv_bytes_from_price_step,
    load_tiers,
    price_step_active_params,
)
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.model.hf.config import load_config, spec_from_config

DATA = Path(__file__).resolve().parents[2] / "src" / "llm_roofline" / "data"


def _ideal(model: str, chips: int) -> Deployment:
    """The deployment these hand checks assume: H100 SXM, bf16, the ideal engine."""
    return deployment(model, "h100-sxm", chips, engine="ideal")


def test_price_ratio_is_the_mfu_ratio() -> None:
    # the lecture: output priced 5x input -> decode at a fifth of prefill's utilisation
    assert decode_to_prefill_mfu(3.0, 15.0) == pytest.approx(0.2)


def test_kv_bytes_implied_by_a_price_step_lecture() -> None:
    # reference-cases: 200k-token step, 100B active, ratio 300 -> 1,667 bytes per token.
    # The lecture counts the ratio in multiply-adds per byte; our argument is FLOP/B, so 600:
    # 2 * 100e9 / (600 * 200e3) = 2e11 / 1.2e8 = 1,666.67
    kv = kv_bytes_from_price_step(200_000, 100e9, 600)
    assert kv == pytest.approx(1666.67, rel=1e-5)
    # read forwards, the balance S = 2·N·BW / (FLOP/s · kv) at 600 FLOP/B and that KV size is
    # the 200k-token step: 2 * 100e9 / (600 * 1,666.67) = 200,000
    assert balanced_context_formula(600.0, 1.0, 100e9, kv) == pytest.approx(200e3)


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
    f = cost_floor(_ideal("llama-3.1-70b", 8), context_len=4096)
    assert 0 < f["usd_per_million_input_tokens"] < f["usd_per_million_output_tokens"]
    # Llama 3.1 70B: 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes = 327,680 B/token
    assert f["kv_bytes_per_token"] == 327_680


def test_cost_grows_with_context_once_kv_dominates() -> None:
    curve = cost_vs_context(_ideal("llama-3.1-70b", 8), [1024, 32768, 131072])
    usd = curve["usd_per_million_output_tokens"]
    assert usd[0] < usd[1] < usd[2]
    assert np.all(curve["batch"][:-1] >= curve["batch"][1:])  # fewer fit at longer context
    with pytest.raises(InputError):
        cost_vs_context(_ideal("llama-3.1-70b", 1), [0, 10])


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

    res = cache_costs(_ideal("llama-3.1-8b", 1), context_len=10_000, hold_s=[0.1, 1e4, 1e9])
    # Llama 3.1 8B: 32 layers x 8 heads x 128 x 2 x 2 bytes = 131,072 B/token; x 10,000
    assert res["kv_bytes"] == 131_072 * 10_000
    # holding in HBM for t seconds: bytes / capacity x price per second x t, plus bringing it
    # back: 1.31072e9 / 85.52e9 x ($3.99 / 3600 = 1.108333e-3 $/s) x 1e4 s = 0.1698684 $;
    # 1.31072e9 / 3.35e12 = 3.912597e-4 s x 1.108333e-3 $/s = 4.336462e-7 $
    hbm = res["tiers"]["hbm"]["usd"]
    assert hbm[1] == pytest.approx(0.1698684 + 4.336462e-7, rel=1e-6)
    # short holds stay in HBM; a 30-year hold is cheaper to recompute or keep on disk
    assert res["cheapest"][0] == "hbm"
    assert res["cheapest"][2] in ("recompute", "disk")
    with pytest.raises(InputError):
        cache_costs(_ideal("llama-3.1-8b", 1), context_len=10, hold_s=[-1])


def test_hbm_bring_back_uses_every_chip_that_holds_the_cache() -> None:
    # The deployment holds each sequence's KV spread evenly over its n chips, so it comes back
    # over n chips' bandwidth while n chips are paid. Llama 3.1 8B on 2 x H100 SXM, 10,000
    # tokens: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 131,072 B/token;
    # x 10,000 = 1.31072e9 B. H100 SXM: 3.35e12 B/s, 85.52e9 B, $3.99 per hour.
    chip = get_hardware("h100-sxm")
    assert (chip.memory_bw, chip.memory_bytes) == (3.35e12, 85.52e9)
    assert chip.price_usd_per_s == pytest.approx(3.99 / 3600)
    res = cache_costs(_ideal("llama-3.1-8b", 2), context_len=10_000, hold_s=[0.0, 1e4])
    hbm = res["tiers"]["hbm"]
    assert hbm["devices"] == 2 and hbm["bandwidth"] == 2 * 3.35e12
    # bring back: 1.31072e9 / (2 x 3.35e12) = 1.31072e9 / 6.7e12 = 1.9563e-4 s
    assert hbm["fetch_s"] == pytest.approx(1.9563e-4, rel=1e-4)
    # priced at 2 chips: 1.9563e-4 s x 2 x 3.99 / 3600 $/s = 1.9563e-4 x 2.21667e-3
    # = 4.3365e-7 $, the same as one chip reading all of it: 3.9126e-4 s x 1.10833e-3 $/s
    assert hbm["usd"][0] == pytest.approx(4.3365e-7, rel=1e-4)
    # (the old model read over one chip and charged two: 3.9126e-4 x 2.21667e-3 = 8.673e-7)
    assert hbm["usd"][0] != pytest.approx(8.673e-7, rel=1e-2)
    # holding 1e4 s: 1.31072e9 / (2 x 85.52e9) x (2 x 1.10833e-3 $/s) x 1e4 s
    # = 7.6633e-3 x 2.21667e-3 x 1e4 = 0.169868 $, plus the bring-back
    assert hbm["usd"][1] == pytest.approx(0.169868 + 4.3365e-7, rel=1e-4)
    # another tier is one device the whole deployment waits on: a DIMM at 38.4e9 B/s,
    # 1.31072e9 / 38.4e9 = 0.034133 s, x 2.21667e-3 $/s = 7.5662e-5 $ at hold 0
    dram = res["tiers"]["dram"]
    assert dram["devices"] == 1 and dram["fetch_s"] == pytest.approx(0.034133, rel=1e-4)
    assert dram["usd"][0] == pytest.approx(7.5662e-5, rel=1e-4)
    # one chip: nothing changes, 1.31072e9 / 3.35e12 = 3.9126e-4 s
    one = cache_costs(_ideal("llama-3.1-8b", 1), context_len=10_000, hold_s=[0.0])
    assert one["tiers"]["hbm"]["fetch_s"] == pytest.approx(3.9126e-4, rel=1e-4)


def test_cache_tiers_says_when_the_model_does_not_fit() -> None:
    # Llama 3.1 70B in bf16: 80 layers x (attention 8192 x 8192 x 2 + 8192 x 1024 x 2
    # = 150,994,944; MLP 3 x 8192 x 28672 = 704,643,072; two norms 16,384) = 68,452,352,000,
    # + embedding and LM head 2 x 128,256 x 8192 = 2,101,346,304, + final norm 8,192
    # = 70,553,706,496 parameters x 2 bytes = 141,107,412,992 B.
    # KV at 100,000 tokens: 80 x 8 x 128 x 2 x 2 = 327,680 B/token x 1e5 = 32,768,000,000 B.
    res = cache_costs(_ideal("llama-3.1-70b", 1), context_len=100_000, hold_s=[1.0])
    assert res["weights_bytes_per_chip"] == 141_107_412_992
    assert res["kv_bytes_per_chip"] == 32_768_000_000
    # 141.1e9 + 32.8e9 = 173.9e9 B on one chip, against 85.52e9 B: does not fit
    assert res["fits"] is False
    assert res["warning"] is not None
    for words in ("does not fit", "1 × h100-sxm", "141.1 GB", "32.8 GB", "173.9 GB", "85.5 GB"):
        assert words in res["warning"], words
    # and the numbers are still there
    assert res["kv_bytes"] == 32_768_000_000 and res["recompute_usd"] > 0
    # 8 chips: 141,107,412,992 / 8 + 32,768,000,000 / 8 = 17.638e9 + 4.096e9 = 21.73e9 B
    # per chip, under 85.52e9: fits, no warning
    res8 = cache_costs(_ideal("llama-3.1-70b", 8), context_len=100_000, hold_s=[1.0])
    assert res8["kv_bytes_per_chip"] == 4_096_000_000
    assert res8["fits"] is True and res8["warning"] is None
    with pytest.raises(InputError) as exc:
        cache_costs(_ideal("llama-3.1-8b", 1), context_len=0, hold_s=[1.0])
    assert exc.value.field == "context_len"


def test_catalog_table_uses_each_models_own_active_params() -> None:
    # A price step at 200,000 tokens on a 600 FLOP/B chip implies, for a model with N_active
    # parameters, 2 x N_active / (600 x 200,000) = N_active / 6e7 bytes of KV per token.
    rows = {r["model"]: r for r in catalog_kv_vs_price_step(200_000, 600)}
    # Llama 3.1 70B: 80 x (150,994,944 attention + 704,643,072 MLP) + LM head
    # 128,256 x 8192 = 68,451,041,280 + 1,050,673,152 = 69,501,714,432 active
    r = rows["llama-3.1-70b"]
    assert r["active_params"] == 69_501_714_432
    # 2 x 69,501,714,432 / 1.2e8 = 139,003,428,864 / 1.2e8 = 1,158.36 B/token
    assert r["implied_kv_bytes_per_token"] == pytest.approx(1158.36, rel=1e-5)
    # real 327,680 / 1,158.36 = 282.88 (against the 1e11 figure, 1,666.67, it was 196.6)
    assert r["kv_bytes_per_token"] == 327_680
    assert r["ratio"] == pytest.approx(282.88, rel=1e-4)
    # Llama 3.1 8B: 32 x (41,943,040 attention + 176,160,768 MLP) + 128,256 x 4096
    # = 6,979,321,856 + 525,336,576 = 7,504,658,432 active; 2 x that / 1.2e8 = 125.078;
    # 131,072 / 125.078 = 1,047.9
    r = rows["llama-3.1-8b"]
    assert r["active_params"] == 7_504_658_432
    assert r["implied_kv_bytes_per_token"] == pytest.approx(125.078, rel=1e-5)
    assert r["ratio"] == pytest.approx(1047.9, rel=1e-4)
    with pytest.raises(InputError) as exc:
        catalog_kv_vs_price_step(0, 600)
    assert exc.value.field == "threshold_tokens"


def test_price_step_active_params_from_the_model() -> None:
    # no --active-params: the model's parameters multiplied per token (69,501,714,432 above)
    a = price_step_active_params(None, "llama-3.1-70b")
    assert (a["active_params"], a["source"], a["agrees"]) == (69_501_714_432, "model", None)
    # both, within 1%: |6.95e10 - 69,501,714,432| / 6.95e10 = 2.5e-5
    a = price_step_active_params(6.95e10, "llama-3.1-70b")
    assert (a["active_params"], a["source"], a["agrees"]) == (6.95e10, "given", True)
    # both, disagreeing (1e11 vs 6.95e10): the given figure, flagged
    a = price_step_active_params(1e11, "llama-3.1-70b")
    assert (a["active_params"], a["agrees"], a["model_active_params"]) == (
        1e11,
        False,
        69_501_714_432,
    )
    with pytest.raises(InputError) as exc:
        price_step_active_params(None, None)
    assert exc.value.field == "active_params"
    with pytest.raises(InputError) as exc:
        price_step_active_params(-1.0, None)
    assert exc.value.field == "active_params"


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
