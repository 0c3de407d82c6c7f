"""A cache hit's price against bringing the prompt back (`economics.cache_hit`, the web's
pricing view and `llm-roofline pricing --cache-hit-price`), cache tiers as a typed answer
(`CacheCosts`), and one deployment's prices read at once (`economics.read_prices`).

Hand arithmetic: Llama 3.1 70B (80 layers, 8 KV heads of 128, a bf16 cache) holds
80 · 2 · 8 · 128 · 2 = 327,680 bytes per token, so a 4,096-token prompt is 1,342,177,280
bytes. The flash tier of data/tiers.toml reads 6.8 GB/s (Micron 7450 PRO's datasheet), so
bringing it back takes 1,342,177,280 / 6.8e9 = 0.19738 s, during which the instance's 8 H100s
wait at the catalog's $3.99 per chip-hour: 0.19738 · 8 · 3.99 / 3600 = $0.0017501 per prompt,
× 1e6 / 4096 = $0.42727 per million tokens. Held for no time, holding costs nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.economics.cache_tiers import CacheCosts, cache_costs, cache_hit
from llm_roofline.economics.pricing import PriceQuestion, read_prices

from ..conftest import run_cli

KV_BYTES = 80 * 2 * 8 * 128 * 2 * 4096
FLASH_S = KV_BYTES / 6.8e9
FLASH_PER_M = FLASH_S * 8 * 3.99 / 3600 * 1e6 / 4096


def _dep() -> Deployment:
    return deployment("llama-3.1-70b", "h100-sxm", 8, engine="ideal")


def test_a_cache_hit_against_the_flash_tier_by_hand() -> None:
    hit = cache_hit(_dep(), context_len=4096, price=0.30, input_price=3.0)
    flash = hit.tiers["flash"]
    assert flash.fetch_s == pytest.approx(FLASH_S, rel=1e-9)
    assert flash.usd_per_million_tokens == pytest.approx(FLASH_PER_M, rel=1e-6)
    assert FLASH_PER_M == pytest.approx(0.42727, rel=1e-4)
    assert flash.covered is False  # $0.30 does not pay for $0.427
    assert hit.to_input == pytest.approx(0.1)  # 0.30 / 3.00
    # at $0.50 the same fetch is covered: covered means the price is at least the cost
    dearer = cache_hit(_dep(), context_len=4096, price=0.50, input_price=3.0)
    assert dearer.tiers["flash"].covered is True
    assert dearer.as_dict()["tiers"]["flash"]["covered"] is True


def test_cache_costs_reads_as_its_dict_and_says_where_the_cheapest_changes() -> None:
    hold = [0.0, 1.0, 60.0, 3600.0, 86_400.0, 2_592_000.0]
    res = cache_costs(_dep(), context_len=4096, hold_s=hold)
    assert isinstance(res, CacheCosts)
    assert res["kv_bytes"] == res.kv_bytes == KV_BYTES
    assert list(res["tiers"]) == list(res.tiers) == ["hbm", "dram", "flash", "disk"]
    assert res["tiers"]["flash"]["fetch_s"] == pytest.approx(FLASH_S, rel=1e-9)
    picks = res.cheapest_from()
    assert picks[0] == (0.0, res.cheapest[0])  # the first hold time always
    # a pick exactly where the choice differs from the one before, and nowhere else
    changes = [(hold[i], c) for i, c in enumerate(res.cheapest) if i and c != res.cheapest[i - 1]]
    assert picks[1:] == changes
    rates = res.rates_dict()
    assert rates["recompute_usd_per_million_tokens"] == pytest.approx(
        res.recompute_usd * 1e6 / 4096
    )
    assert rates["cheapest_from"] == [{"hold_s": h, "tier": c} for h, c in picks]


def test_read_prices_answers_each_part_asked() -> None:
    q = PriceQuestion(input_price=3.0, output_price=15.0, context_len=4096)
    r = read_prices(_dep(), q)
    assert r.output_to_input == 5.0 and r.decode_to_prefill_mfu == pytest.approx(0.2)
    assert r.price_step is None and r.cache_hit is None
    # the lecture's price step: 100B active, 600 FLOP per byte, 200k tokens:
    # 2 · 100e9 / (600 · 200e3) = 1,666.7 bytes per token
    q = PriceQuestion(
        input_price=3.0,
        output_price=15.0,
        cache_hit_price=0.30,
        long_context_threshold=200_000,
        active_params=1e11,
        ratio=600,
    )
    r = read_prices(_dep(), q)
    assert r.price_step is not None and r.cache_hit is not None
    assert r.price_step.implied_kv_bytes_per_token == pytest.approx(2 * 100e9 / (600 * 200e3))
    assert r.price_step.active_params_note is not None  # 1e11 is not the 70B model's figure
    assert r.cache_hit.tiers["flash"].usd_per_million_tokens == pytest.approx(FLASH_PER_M)
    assert r.as_dict()["cache_hit"] == r.cache_hit.as_dict()


DEP_FLAGS = ("--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--chips", "8")


def test_the_command_line_prints_the_cache_hit_table() -> None:
    flags = (*DEP_FLAGS, "--engine", "ideal", "--input-price", "3", "--output-price", "15")
    run = run_cli("pricing", *flags, "--cache-hit-price", "0.3")
    assert run.code == 0, run.err
    assert "a cache hit priced $0.3 per M tokens (0.1× input)" in run.out
    flash = next(line for line in run.out.splitlines() if "flash" in line)
    assert "197 ms" in flash and "$0.427" in flash and "no" in flash  # by hand, above
    js = run_cli("pricing", *flags, "--cache-hit-price", "0.3", "--json")
    hit = json.loads(js.out)["cache_hit"]
    assert hit["tiers"]["flash"]["usd_per_million_tokens"] == pytest.approx(FLASH_PER_M)
    assert hit["tiers"]["hbm"]["covered"] and not hit["tiers"]["disk"]["covered"]


def test_the_cache_hit_needs_a_deployment() -> None:
    run = run_cli("pricing", "--input-price", "3", "--output-price", "15", "--cache-hit-price", "1")
    assert run.code == 2 and "--cache-hit-price" in run.err and "--model" in run.err


def test_the_doc_quotes_the_cache_hit_answer() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "economics.md").read_text("utf-8")
    prices = ("--input-price", "3", "--output-price", "15", "--cache-hit-price", "0.3")
    run = run_cli("pricing", *prices, *DEP_FLAGS, "--engine", "ideal")
    assert run.code == 0, run.err
    for line in run.out.splitlines():  # every line, the table's too
        assert line.strip() in doc, line
