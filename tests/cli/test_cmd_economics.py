"""Verbs `balance` and `cache-tiers` (`llm_roofline.cli.cmd_economics`; `pricing`, which its
`add_parsers` adds too, is tests/cli/test_cmd_pricing.py): parsers, and a run of each worked
by hand."""

from __future__ import annotations

import json

import pytest

from llm_roofline.cli import cmd_economics

from .verb_parsers import parse, refusal, run_verb

add = cmd_economics.add_parsers
BALANCE = ["balance", "--tokens-per-s", "1e6", "--days", "365", "--active-params", "3.7e10"]


def test_add_parsers_adds_the_three_verbs() -> None:
    assert parse(add, BALANCE).func is cmd_economics.cmd_balance
    ct = parse(add, ["cache-tiers", "--model", "m", "--hardware", "h", "--context", "32k"])
    assert ct.func is cmd_economics.cmd_cache_tiers
    assert ct.context == 32 * 1024 and ct.hold is None and ct.chips == 1
    pc = parse(add, ["pricing", "--input-price", "3", "--output-price", "15"])
    assert pc.command == "pricing"


def test_balance_defaults_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    b = parse(add, BALANCE)
    assert b.tokens_per_s == 1e6 and b.days == 365.0 and b.active_params == 3.7e10
    # the documented defaults: pre-training at 40% of peak, RL at 3 FLOPs per parameter
    assert (b.pretrain_mfu, b.inference_mfu, b.rl_flops_per_token, b.rl_mfu) == (
        0.4,
        None,
        3.0,
        None,
    )
    # a rate written with a binary suffix is refused with the number to write (docs/cli.md)
    argv = ["balance", "--tokens-per-s", "1M", "--days", "1", "--active-params", "1e9"]
    assert refusal(add, argv, capsys) == (
        "llm-roofline: error: argument --tokens-per-s: write 1000000 "
        "(1M reads as 1,048,576 tokens/s: M = 1,048,576)"
    )
    line = refusal(add, ["balance", "--days", "1", "--active-params", "1e9"], capsys)
    assert "the following arguments are required: --tokens-per-s" in line
    line = refusal(add, [*BALANCE, "--pretrain-mfu", "0"], capsys)
    assert "argument --pretrain-mfu: expected a positive number, got '0'" in line


def test_balance_run_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_verb(add, [*BALANCE, "--json"], capsys)
    assert code == 0
    r = json.loads(out)
    d_inf = 1e6 * 365 * 86400  # 3.1536e13 tokens served in a year
    assert r["inference_tokens"] == pytest.approx(d_inf)
    # equal cost: 6 N D_pt / 0.4 = 2 N D_inf / (0.4 / 3)  =>  D_pt = D_inf
    assert r["pretrain_tokens"] == pytest.approx(d_inf)
    # RL at inference's MFU, 3 N per token: 3 N D_rl = 2 N D_inf  =>  D_rl = 2/3 D_inf
    assert r["rl_tokens"] == pytest.approx(2 / 3 * d_inf)
    assert r["chinchilla_tokens"] == pytest.approx(20 * 3.7e10)  # 7.4e11
    assert r["overtraining"] == pytest.approx(d_inf / 7.4e11)  # 42.6
    code, out, _ = run_verb(add, BALANCE, capsys)
    assert "over-training factor 42.6" in out


def test_cache_tiers_sizes_llama_31_8b(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cache-tiers", "--model", "llama-3.1-8b", "--hardware", "h100-sxm"]
    code, out, _ = run_verb(add, [*argv, "--context", "32k", "--hold", "60,3600", "--json"], capsys)
    assert code == 0
    r = json.loads(out)
    # KV: 2 (K, V) * 32 layers * 8 KV heads * 128 * 2 bytes = 131,072 B a token, * 32,768
    assert r["kv_bytes"] == 131072 * 32768 == 4_294_967_296
    assert r["weights_bytes_per_chip"] == 2 * 8_030_261_248  # bf16, all stored parameters
    assert r["capacity_bytes_per_chip"] == 85.52e9  # the catalog's H100 SXM
    assert r["fits"] is True and r["hold_s"] == [60.0, 3600.0]
    assert "hbm" in {k.lower() for k in r["tiers"]}
