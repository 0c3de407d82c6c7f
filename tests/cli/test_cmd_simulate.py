"""Verb `simulate` (`llm_roofline.cli.cmd_simulate`): its parser's documented defaults (the
vllm serving engine, whose sequence cap and token budget the library resolves for the chip:
`tests/sim/test_serving_engines.py`), the refusals of a traffic given twice or half, the
traffic's description, and a closed loop of one client worked by hand: with nothing to
queue behind, each request is its prefill and then one decode step a token."""

from __future__ import annotations

import json

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import cmd_simulate

from .verb_parsers import parse, refusal, run_verb

add = cmd_simulate.add_parsers
DEP = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm"]
BW = 3.35e12


def test_parser_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    a = parse(add, [*DEP, "--rate", "10", "--input-len", "2k", "--output-len", "256"])
    assert (a.rate, a.input_len, a.output_len, a.concurrency, a.trace) == (
        10.0,
        2048,
        256,
        None,
        None,
    )
    assert (a.requests, a.max_seqs, a.max_batched_tokens, a.router) == (
        1000,
        None,  # the serving engine's own
        None,
        "round-robin",
    )
    assert a.serving_engine == "vllm"
    assert (a.length_dist, a.arrival, a.burstiness, a.seed, a.disagg) == (
        "fixed",
        "poisson",
        1.0,
        0,
        None,
    )
    assert a.func is cmd_simulate.cmd_simulate
    line = refusal(add, [*DEP, "--rate", "10", "--router", "random"], capsys)
    assert "argument --router: invalid choice: 'random'" in line
    line = refusal(add, [*DEP, "--concurrency", "0"], capsys)
    assert "argument --concurrency: expected a positive integer, got '0'" in line
    line = refusal(add, [*DEP, "--rate", "10", "--serving-engine", "vllm-v2"], capsys)
    assert "argument --serving-engine: invalid choice: 'vllm-v2'" in line


def test_traffic_given_twice_or_half_is_refused() -> None:
    args = parse(add, [*DEP, "--rate", "2", "--trace", "t.csv"])
    with pytest.raises(InputError, match="give --trace or --rate/--concurrency, not both"):
        cmd_simulate._workload(args, 8192)
    args = parse(add, [*DEP, "--rate", "2", "--input-len", "128"])
    with pytest.raises(InputError, match="give --input-len and --output-len") as exc:
        cmd_simulate._workload(args, 8192)
    assert exc.value.field == "input_len"


def test_traffic_says_the_clipping_in_words() -> None:
    text = "3 requests, input 128 ±0, output 4 ±0 (fixed), context 131072, seed 0"
    assert cmd_simulate._traffic(text, 131072) == (
        "3 requests, input 128 ±0, output 4 ±0 (fixed), lengths clipped to the model's "
        "maximum context of 131,072 tokens, seed 0"
    )
    assert cmd_simulate._traffic(text, None) == text


def test_one_client_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*DEP, "--engine", "ideal", "--concurrency", "1", "--requests", "3"]
    code, out, _ = run_verb(
        add, [*argv, "--input-len", "128", "--output-len", "4", "--json"], capsys
    )
    assert code == 0
    r = json.loads(out)
    assert r["requests"] == 3 and r["stable"] is True and r["preemptions"] == 0
    ttft, tpot, e2e = r["ttft_mean_s"], r["tpot_mean_s"], r["e2e_mean_s"]
    # alone on the chip: the first token after the prefill, then 3 decode steps
    assert e2e == pytest.approx(ttft + 3 * tpot, rel=1e-9)
    assert r["e2e_p99_s"] == pytest.approx(e2e)  # identical requests: no spread
    # one client: the next request leaves as the last returns
    assert r["request_throughput_rps"] == pytest.approx(1 / e2e)
    assert r["output_tokens_per_s"] == pytest.approx(4 / e2e)
    # a decode step at batch 1 reads the weights (2 B each of 7,504,928,768: all but the
    # embedding table, and one row of it) and 128 to 131 tokens of KV at 131,072 B each
    weights = 2 * 7_504_928_768 / BW
    assert weights + 128 * 131072 / BW <= tpot <= weights + 131 * 131072 / BW
