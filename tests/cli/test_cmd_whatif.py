"""Verbs `sensitivity` and `fast-mode` (`llm_roofline.cli.cmd_whatif`): the argument types it
defines (--step-pct, --max-chips), its percent and elasticity cells, its parsers' defaults,
and a sensitivity of a memory-bound step worked by hand: +10% bandwidth is +10% tokens/s
and 1 - 1/1.1 = 9.09% off the $ per token; +10% FLOP/s moves nothing."""

from __future__ import annotations

import argparse
import json

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import cmd_whatif

from .verb_parsers import parse, refusal, run_verb

add = cmd_whatif.add_parsers
DEP = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm"]


def test_step_pct_and_max_chips() -> None:
    assert cmd_whatif.step_pct("10") == 10.0
    assert cmd_whatif.step_pct("0.1") == 0.1 and cmd_whatif.step_pct("100") == 100.0
    for bad in ("0.05", "101", "ten", "nan"):
        with pytest.raises(argparse.ArgumentTypeError) as exc:
            cmd_whatif.step_pct(bad)
        assert str(exc.value) == f"step_pct must be from 0.1 to 100 (percent), got {bad!r}"
    assert cmd_whatif.max_chips("1k") == 1024  # k = 1,024: the limit itself
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        cmd_whatif.max_chips("1025")
    assert str(exc.value) == "max_chips must be at most 1,024 (a limit on the search), got '1025'"
    with pytest.raises(argparse.ArgumentTypeError, match="expected a positive integer, got '0'"):
        cmd_whatif.max_chips("0")


def test_percent_and_elasticity_cells() -> None:
    assert cmd_whatif._pct(None) == "n/a"
    assert cmd_whatif._pct(0.1) == "+10.0%"
    assert cmd_whatif._pct(-1 / 11) == "-9.1%"  # 1/1.1 - 1
    assert cmd_whatif._pct(4e-4) == "0%"  # below 0.05%: shown as no change
    assert cmd_whatif._elasticity(None) == "n/a"
    assert cmd_whatif._elasticity(1.0) == "+1.00"
    assert cmd_whatif._elasticity(-3e-4) == "0"


def test_parsers_defaults_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    s = parse(add, ["sensitivity", *DEP, "--batch", "8"])
    assert (s.batch, s.context, s.step_pct, s.max_chips, s.tpot_ms, s.across_catalog) == (
        8,
        4096,
        10.0,
        8,
        None,
        False,
    )
    f = parse(add, ["fast-mode", *DEP, "--batch", "64", "--speedup", "2.5"])
    # speculation's defaults: DeepSeek-V3's MTP depth 1 and acceptance 0.85
    assert (f.speedup, f.gamma, f.acceptance, f.draft, f.max_chips) == (2.5, 1, 0.85, "auto", None)
    assert f.func is cmd_whatif.cmd_fast_mode
    line = refusal(add, ["sensitivity", *DEP, "--batch", "8", "--step-pct", "0"], capsys)
    assert line == (
        "llm-roofline: error: argument --step-pct: step_pct must be from 0.1 to 100 "
        "(percent), got '0'"
    )
    line = refusal(add, ["fast-mode", *DEP, "--batch", "64"], capsys)
    assert "the following arguments are required: --speedup" in line


def test_sensitivity_of_a_memory_bound_step(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sensitivity", *DEP, "--batch", "1", "--engine", "ideal", "--json"]
    code, out, _ = run_verb(add, argv, capsys)
    assert code == 0
    given = json.loads(out)["sensitivity"]["policies"][0]
    assert given["policy"] == "given" and given["base"]["bound"] == "memory"
    change = {e["figure"]: e["change"] for e in given["effects"]}
    # batch 1 at 4,096 tokens: 4.64 ms of weights and KV against 0.017 ms of compute
    bw = change["memory_bandwidth"]
    assert bw["tokens_per_s_per_user"] == pytest.approx(0.10)
    assert bw["usd_per_million_tokens"] == pytest.approx(1 / 1.1 - 1)  # -9.09%
    assert change["flops"]["tokens_per_s_per_user"] == 0.0
    assert change["memory_capacity"]["tokens_per_s_per_user"] == 0.0  # batch 1 fits already


def test_fast_mode_refuses_an_unpriced_chip() -> None:
    args = parse(add, ["fast-mode", *DEP, "--batch", "64", "--speedup", "2", "--price", "0"])
    with pytest.raises(InputError, match="a price multiple is undefined"):
        args.func(args)
