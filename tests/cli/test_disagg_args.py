"""`simulate --disagg P:D` with each pool's own instance shape (`cli.disagg_args`, issue 27
§6): the pools built, a prefill flag without --disagg refused naming it."""

from __future__ import annotations

import json

import pytest

from llm_roofline.cli import main
from llm_roofline.cli.disagg_args import pools_text

BASE = [
    "simulate",
    "--model",
    "llama-3.1-8b",
    "--hardware",
    "h100-sxm",
    "--rate",
    "5",
    "--requests",
    "100",
    "--input-len",
    "256",
    "--output-len",
    "16",
    "--json",
]


def test_pools_of_two_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    # 2 prefill instances of 1 chip, 3 decode instances of 2 chips (tp 2): 2 + 6 chips
    argv = [*BASE, "--chips", "2", "--tp", "2", "--disagg", "2:3", "--prefill-chips", "1"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    pf, dec = out["prefill_deployment"], out["deployment"]
    assert (pf["chips"], pf["replicas"], pf["tp"]) == (2, 2, 1)
    assert (dec["chips"], dec["replicas"], dec["tp"]) == (6, 3, 2)
    assert out["prefill_instances"] == 2 and out["decode_instances"] == 3


def test_a_prefill_flag_needs_disagg(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--prefill-tp", "1"]) == 2
    assert "--prefill-tp" in capsys.readouterr().err


def test_pools_in_words() -> None:
    from llm_roofline.deploy.deployment import deployment

    pf = deployment("llama-3.1-8b", "h100-sxm", 2, tp=1, replicas=2)
    dec = deployment("llama-3.1-8b", "h100-sxm", 6, tp=2, replicas=3)
    assert pools_text(dec, pf) == (
        "2 prefill instances of 1 chip (tp 1 · pp 1) and 3 decode instances of 2 chips "
        "(tp 2 · pp 1)"
    )
