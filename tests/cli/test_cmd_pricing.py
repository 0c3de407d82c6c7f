"""Verb `pricing` (`llm_roofline.cli.cmd_pricing`): an API's prices read backwards. Its parser,
the output/input ratio and a price step worked by hand (the lecture's example in
`economics.pricing.kv_bytes_from_price_step`), and the refusals that name the missing flag."""

from __future__ import annotations

import json

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import cmd_pricing

from .verb_parsers import parse, refusal, run_verb

add = cmd_pricing.add_pricing_parser
PRICES = ["pricing", "--input-price", "3", "--output-price", "15"]


def test_parser_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    a = parse(add, PRICES)
    assert (a.input_price, a.output_price) == (3.0, 15.0)
    # the documented defaults: an H100 SXM for the ratio, a 4,096-token context, no model
    assert (a.hardware, a.context, a.model, a.chips) == ("h100-sxm", 4096, None, 1)
    assert a.long_context_threshold is None and a.cache_hit_price is None and a.price is None
    assert a.func is cmd_pricing.cmd_pricing
    assert parse(add, [*PRICES, "--long-context-threshold", "200000"]).long_context_threshold == (
        200000.0
    )
    # "200k" read as a binary size would be 204,800 tokens: refused with what to write
    assert refusal(add, [*PRICES, "--long-context-threshold", "200k"], capsys) == (
        "llm-roofline: error: argument --long-context-threshold: write 200000 "
        "(200k reads as 204,800 tokens: k = 1,024)"
    )
    line = refusal(add, ["pricing", "--input-price", "3"], capsys)
    assert "the following arguments are required: --output-price" in line


def test_ratio_of_prices(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_verb(add, [*PRICES, "--json"], capsys)
    assert code == 0
    # output priced 15 / 3 = 5x input: decode at a fifth of prefill's utilisation
    assert json.loads(out) == {
        "input_price": 3.0,
        "output_price": 15.0,
        "decode_to_prefill_mfu": 0.2,
    }
    _, out, _ = run_verb(add, PRICES, capsys)
    assert out.startswith("output/input price ratio 5: if prices track cost, decode runs at 0.2")


def test_price_step_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    # the lecture: 100B active, 600 FLOP/B, a step at 200,000 tokens; the step is the context
    # where one sequence's KV fetch equals its matmuls: S * kv / BW = 2 N / FLOP/s, so
    # kv = 2 * 100e9 / (600 * 200e3) = 1,666.7 bytes per token
    step = ["--long-context-threshold", "200000", "--active-params", "1e11", "--ratio", "600"]
    code, out, _ = run_verb(add, [*PRICES, *step, "--json"], capsys)
    assert code == 0
    r = json.loads(out)
    assert r["implied_kv_bytes_per_token"] == pytest.approx(2 * 100e9 / (600 * 200e3))
    assert (r["flops_per_byte"], r["active_params_source"]) == (600.0, "given")
    # each catalog model against the same step at its own active parameters
    rows = {row["model"]: row for row in r["catalog_vs_price_step"]}
    llama = rows["llama-3.1-8b"]
    assert llama["kv_bytes_per_token"] == 131072  # 2 * 32 layers * 8 heads * 128 * 2 B
    implied = 2 * llama["active_params"] / (600 * 200e3)
    assert llama["implied_kv_bytes_per_token"] == pytest.approx(implied)
    # without --ratio the chip's own bf16 ops:byte: H100 SXM 989.5e12 / 3.35e12 = 295.4
    step = ["--long-context-threshold", "200000", "--active-params", "1e11"]
    _, out, _ = run_verb(add, [*PRICES, *step, "--json"], capsys)
    assert json.loads(out)["flops_per_byte"] == pytest.approx(989.5 / 3.35)


def test_refusals_name_the_missing_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse(add, [*PRICES, "--long-context-threshold", "200000"])
    with pytest.raises(InputError, match="a price step needs --active-params") as exc:
        args.func(args)
    assert exc.value.field == "active_params"
    args = parse(add, [*PRICES, "--cache-hit-price", "0.3"])
    with pytest.raises(InputError, match="--cache-hit-price is read against a deployment"):
        args.func(args)
