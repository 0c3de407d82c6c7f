"""Verb `predict` (`llm_roofline.cli.cmd_predict`): its parser, and one decode step of Llama
3.1 8B on one H100 SXM under the ideal engine, each term worked by hand from the config.json
and the catalog's datasheet figures (989.5 TFLOP/s bf16, 3.35 TB/s, $3.99 per hour)."""

from __future__ import annotations

import json

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import cmd_predict

from .verb_parsers import parse, refusal, run_verb

add = cmd_predict.add_parsers
ONE = ["predict", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--batch", "1"]
FLOPS, BW, USD_PER_S = 989.5e12, 3.35e12, 3.99 / 3600


def test_parser_defaults_and_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    a = parse(add, [*ONE, "--input-len", "16k"])
    assert a.input_len == 16384 and a.batch == 1 and a.output_len is None
    # the documented defaults: decode mode, the calibrated engine, full overlap, one chip
    assert (a.mode, a.engine, a.overlap, a.chips) == ("decode", "calibrated", "full", 1)
    assert (a.weight_dtype, a.kv_dtype, a.tp, a.price, a.scenarios) == (
        "bf16",
        "bf16",
        None,
        None,
        None,
    )
    assert parse(add, [*ONE, "--output-len", "0"]).output_len == 0  # allowed in decode mode
    line = refusal(add, [*ONE, "--mode", "streaming"], capsys)
    assert "argument --mode: invalid choice: 'streaming'" in line
    line = refusal(add, [*ONE, "--input-len", "0.3k"], capsys)
    assert "argument --input-len: expected a positive integer, got '0.3k'" in line


def test_one_decode_step_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*ONE, "--input-len", "1k", "--engine", "ideal", "--json"]
    code, out, _ = run_verb(add, argv, capsys)
    assert code == 0
    r = json.loads(out)
    layer_matmuls = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336  # q,o; k,v; MLP
    multiplied = 32 * layer_matmuls + 128256 * 4096  # + the LM head = 7,504,658,432
    norms = 65 * 4096  # two RMSNorms a layer and the final one
    # weights read at batch 1: every stored weight but the embedding table, of which the one
    # row gathered; 2 bytes each
    assert r["t_weights_s"] == pytest.approx(2 * (multiplied + norms + 4096) / BW, rel=1e-9)
    # KV: 131,072 B a token (2 * 32 layers * 8 heads * 128 * 2 B) * 1,024 tokens
    assert r["t_kv_s"] == pytest.approx(131072 * 1024 / BW, rel=1e-9)
    # compute: 2 FLOPs a multiplied weight, and QK^T and PV: 2 * 2 * 32 layers * 4096 * 1024
    assert r["t_compute_s"] == pytest.approx((2 * multiplied + 4 * 32 * 4096 * 1024) / FLOPS)
    assert r["t_comm_s"] == 0.0  # one chip
    # ideal step under full overlap: max(compute, weights + KV) + comm, memory-bound here
    step = max(r["t_compute_s"], r["t_weights_s"] + r["t_kv_s"])
    assert r["tpot_s"] == pytest.approx(step, rel=1e-12) and r["bound"] == "memory"
    assert r["output_tokens_per_s"] == pytest.approx(1 / step)
    # $ per million output tokens: one token's step at $3.99 per chip-hour
    assert r["usd_per_million_output_tokens"] == pytest.approx(step * USD_PER_S * 1e6)
    assert r["fits"] is True and r["engine_profile"] == "ideal"


def test_price_zero_has_no_cost(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*ONE, "--input-len", "1k", "--engine", "ideal", "--price", "0"]
    code, out, _ = run_verb(add, argv, capsys)
    assert code == 0
    assert "price 0: hardware you own, so no $ per token" in out


def test_refusals_name_what_is_missing() -> None:
    args = parse(add, ["predict", "--model", "llama-3.1-8b", "--hardware", "h100-sxm"])
    with pytest.raises(InputError, match=r"one scenario needs --batch, --input-len \(or"):
        args.func(args)
    args = parse(add, [*ONE, "--input-len", "1k", "--mode", "static"])
    with pytest.raises(InputError, match="one scenario needs --output-len") as exc:
        args.func(args)
    assert exc.value.field == "--output-len"
    args = parse(add, ["predict", "--scenarios", "in.csv"])
    with pytest.raises(InputError, match=r"--scenarios needs --out OUT\.csv"):
        args.func(args)
