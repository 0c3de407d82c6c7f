"""The serving engine's flags of `simulate` (`llm_roofline.cli.serving_flags`): each flag reaches
the library as the setting it names (milliseconds written as seconds), a bad value is refused
with exit 2 and one line, and the output shows the settings used."""

from __future__ import annotations

import json

import pytest

from llm_roofline.cli import cmd_simulate, main, serving_flags

from .verb_parsers import parse, refusal, run_verb

add = cmd_simulate.add_parsers
DEP = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm"]
RUN = [*DEP, "--concurrency", "1", "--requests", "2", "--input-len", "128", "--output-len", "4"]


def test_flags_become_the_library_settings() -> None:
    a = parse(add, [*DEP, "--rate", "1", "--serving-engine", "sglang", "--max-seqs", "64"])
    kw = serving_flags.engine_args(a)
    assert (kw["serving_engine"], kw["max_seqs"], kw["max_batched_tokens"]) == ("sglang", 64, None)
    a = parse(
        add,
        [
            *DEP,
            "--rate",
            "1",
            "--request-overhead-ms",
            "40",
            "--step-overhead-ms",
            "2.5",
            "--no-chunked-prefill",
            "--prefix-hit-rate",
            "0.25",
            "--schedule",
            "prefill-first",
            "--scheduler-steps",
            "4",
            "--reserve-output",
        ],
    )
    kw = serving_flags.engine_args(a)
    assert kw["request_overhead_s"] == pytest.approx(0.040)
    assert kw["step_overhead_s"] == pytest.approx(0.0025)
    assert (kw["chunked_prefill"], kw["prefix_hit_rate"], kw["policy"]) == (
        False,
        0.25,
        "prefill-first",
    )
    assert kw["scheduler_steps"] == 4 and kw["prefix_caching"] is None
    assert kw["reserve_output"] is True


def test_unknown_engine_and_bad_settings_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    line = refusal(add, [*DEP, "--rate", "1", "--serving-engine", "tgi"], capsys)
    assert "--serving-engine: invalid choice: 'tgi'" in line
    line = refusal(add, [*DEP, "--rate", "1", "--schedule", "random"], capsys)
    assert "--schedule: invalid choice" in line
    capsys.readouterr()
    assert main([*RUN, "--memory-share", "1.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "memory_share must be a fraction in (0, 1]" in err[0]


def test_output_shows_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_verb(add, [*RUN, "--serving-engine", "lmdeploy", "--json"], capsys)
    assert code == 0
    e = json.loads(out)["serving_engine"]
    assert (e["name"], e["max_seqs"], e["memory_share"]) == ("lmdeploy", 1024, 0.8)
    code, out, _ = run_verb(add, [*RUN, "--max-seqs", "32"], capsys)
    assert code == 0
    assert "serving engine: vllm (32 sequences, 8,192 tokens a step, 0.9 of the total" in out
