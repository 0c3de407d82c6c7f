"""Verb `optimize` (`llm_roofline.cli.cmd_optimize`): its parser (no split flags: it searches
them), the refusal of an unpriced chip before any search, and a one-chip search of Llama 3.1
8B on an H100 SXM whose answer is worked by hand from the catalog (85.52 GB, 3.35 TB/s, $3.99
per chip-hour) and the config.json (8,030,261,248 parameters, 131,072 KV bytes a token)."""

from __future__ import annotations

import itertools
import json

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import cmd_optimize
from tests.conftest import make_chip

from .verb_parsers import parse, refusal, run_verb

add = cmd_optimize.add_parsers
BASE = ["optimize", "--model", "llama-3.1-8b", "--hardware", "h100-sxm"]
SEARCH = [*BASE, "--max-chips", "1", "--engine", "ideal", "--json"]


def test_parser_defaults_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    a = parse(add, [*BASE, "--max-chips", "16", "--tpot-ms", "30"])
    assert (a.max_chips, a.tpot_ms, a.ttft_ms, a.context, a.out) == (16, 30.0, None, 4096, None)
    assert a.func is cmd_optimize.cmd_optimize
    line = refusal(add, BASE, capsys)
    assert "the following arguments are required: --max-chips" in line
    # the search chooses the chips and the split: neither flag is taken
    line = refusal(add, [*BASE, "--max-chips", "8", "--tp", "2"], capsys)
    assert "unrecognized arguments: --tp 2" in line
    line = refusal(add, [*BASE, "--max-chips", "8", "--chips", "2"], capsys)
    assert "unrecognized arguments: --chips 2" in line


def test_an_unpriced_chip_is_refused_naming_the_flag() -> None:
    with pytest.raises(InputError, match=r"--price 0 is hardware you own\); optimize ranks"):
        cmd_optimize._require_price(make_chip(price_per_hour=0.0), 0.0)
    with pytest.raises(InputError, match=r"\(none in the catalog\)") as exc:
        cmd_optimize._require_price(make_chip(price_per_hour=0.0), None)
    assert exc.value.field == "price"
    cmd_optimize._require_price(make_chip(), None)  # $3.60 per hour: searched
    args = parse(add, [*BASE, "--max-chips", "1", "--price", "0"])
    with pytest.raises(InputError, match="h100-sxm has no price"):
        args.func(args)


def test_one_chip_search_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_verb(add, SEARCH, capsys)
    assert code == 0
    r = json.loads(out)
    assert r["engine"] == "ideal" and r["configs_tried"] == 1
    best = r["best"]
    # no target: the cheapest per token is the largest batch that fits; at 4,096 tokens a
    # sequence holds 131,072 * 4,096 = 536,870,912 B of KV, beside 2 * 8,030,261,248 B of
    # weights in 85.52e9 B: (85.52e9 - 16,060,522,496) / 536,870,912 = 129.4 -> 129
    assert best["batch"] == int((85.52e9 - 2 * 8_030_261_248) // (131072 * 4096)) == 129
    assert (best["chips"], best["tp"], best["pp"]) == (1, 1, 1)
    # $ per million tokens: a step at $3.99 an hour, shared by the batch's tokens
    usd = best["tpot_s"] * 3.99 / 3600 / best["batch"] * 1e6
    assert best["usd_per_million_tokens"] == pytest.approx(usd)
    # along the frontier, each point buys its lower cost with a lower speed per user
    front = r["frontier"]
    for a, b in itertools.pairwise(front):
        assert b["usd_per_million_tokens"] < a["usd_per_million_tokens"]
        assert b["tokens_per_s_per_user"] < a["tokens_per_s_per_user"]


def test_a_tpot_target_binds(capsys: pytest.CaptureFixture[str]) -> None:
    # batch 1 at 4,096 tokens: weights 4.48 ms + KV 536,870,912 / 3.35e12 = 0.16 ms = 4.64 ms;
    # batch 2 doubles the KV: 4.48 + 0.32 = 4.80 ms. A 4.7 ms target admits batch 1 alone.
    code, out, _ = run_verb(add, [*SEARCH, "--tpot-ms", "4.7"], capsys)
    assert code == 0
    best = json.loads(out)["best"]
    assert best["batch"] == 1 and best["tpot_s"] <= 4.7e-3
    assert best["tpot_s"] == pytest.approx(
        2 * (7_504_658_432 + 65 * 4096 + 4096) / 3.35e12 + 131072 * 4096 / 3.35e12
    )
