"""`plan`'s typed answer (`PlanResult`, `Fleet`, `Searched`) and its JSON: `as_dict` is what
`llm-roofline plan --json` prints and the web returns, key for key and in the contract's
order, and the typed fields carry the same numbers. The priced case is tests/planning/test_plan.py's
hand-checked one (`test_cli_price_of_your_own_is_what_the_fleet_costs`): 5 requests/s of
512 -> 64 tokens on H100 SXM at $2 a chip-hour, so n chips cost 2n $/hour and their output
tokens, 5 x 64 x 3,600 = 1,152,000 an hour, cost 2n / 1.152 $ per million."""

from __future__ import annotations

import json
from typing import Any

import pytest

from llm_roofline.cli import main
from llm_roofline.planning.fleet_plan import (
    BEST_KEYS,
    Fleet,
    FleetRequest,
    InstanceSplit,
    PlanResult,
    plan,
)
from llm_roofline.planning.fleet_result import frontier

QUESTION: dict[str, Any] = {
    "model": "llama-3.1-8b",
    "hardware": ["h100-sxm"],
    "prices": {"h100-sxm": 2.0},
    "rate": 5.0,
    "input_len": 512,
    "output_len": 64,
    "ttft_p90_ms": 300.0,
    "tpot_p99_ms": 40.0,
    "max_chips": 4,
    "requests": 400,
}
ARGV = (
    "plan --model llama-3.1-8b --hardware h100-sxm --price 2 --rate 5 --input-len 512 "
    "--output-len 64 --ttft-p90-ms 300 --tpot-p99-ms 40 --max-chips 4 --requests 400 --json"
)


@pytest.fixture(scope="module")
def priced() -> PlanResult:
    return plan(FleetRequest.from_fields(QUESTION))


def _without_seconds(d: dict[str, Any]) -> dict[str, Any]:
    return {**d, "searched": {k: v for k, v in d["searched"].items() if k != "seconds"}}


def test_typed_best_costs_what_the_hand_arithmetic_says(priced: PlanResult) -> None:
    b = priced.best
    assert isinstance(b, Fleet) and b.meets_slo and priced.reason is None
    assert b.usd_per_hour == pytest.approx(2.0 * b.chips)
    assert b.usd_per_million_output_tokens == pytest.approx(2.0 * b.chips / 1.152)
    assert b.ttft_p90_s is not None and b.ttft_p90_s <= 0.3
    assert b.tpot_p99_s is not None and b.tpot_p99_s <= 0.04
    assert b.capacity_rps is not None and b.capacity_rps > 5.0


def test_as_dict_is_the_command_lines_json(priced: PlanResult, capsys: Any) -> None:
    """The command line asks the same question (its own flags) and prints the same answer;
    only the seconds the search took differ."""
    assert main(ARGV.split()) == 0
    printed = json.loads(capsys.readouterr().out)
    assert _without_seconds(printed) == _without_seconds(priced.as_dict())


def test_as_dict_keys_follow_the_contract(priced: PlanResult) -> None:
    """`best`: BEST_KEYS first and in order (docs/planning.md, "What plan does"); candidates
    each marked `meets_slo`; the request echoed as ids and seconds (300 ms = 0.3 s)."""
    d = priced.as_dict()
    assert list(d) == ["request", "best", "runner_up", "reason", "candidates", "searched"]
    assert list(d["best"])[: len(BEST_KEYS)] == list(BEST_KEYS)
    assert "meets_slo" not in d["best"]
    assert d["candidates"] and all(c["meets_slo"] in (True, False) for c in d["candidates"])
    assert d["request"] == {
        "model": "llama-3.1-8b",
        "hardware": ["h100-sxm"],
        "rate_rps": 5.0,
        "input_len": 512,
        "output_len": 64,
        "length_dist": "fixed",
        "ttft_p90_s": pytest.approx(0.3),
        "tpot_p99_s": pytest.approx(0.04),
        "max_chips": 4,
        "disagg": "auto",
        "engine": "calibrated",
        "requests_per_simulation": 400,
    }
    s = priced.searched
    assert d["searched"]["simulations"] == s.simulations >= 1
    assert d["searched"]["unsimulated"] == s.unsimulated == {}


def test_a_fleet_reads_as_its_json_row(priced: PlanResult) -> None:
    """A Fleet is also the mapping of its row, as plan's answers were dicts before."""
    b = priced.best
    assert b is not None
    assert b["usd_per_hour"] == b.usd_per_hour and b["chips"] == b.chips
    assert set(BEST_KEYS) <= set(b) and dict(b) == b.as_dict()
    assert priced.searched["simulations"] == priced.searched.simulations


def _fleet(usd_h: float, t90: float | None, t99: float | None, **kw: Any) -> Fleet:
    """A made-up aggregated fleet of 2 h100-sxm (replicas 2 of 1 chip)."""
    base: dict[str, Any] = dict(
        hardware="h100-sxm",
        chips=2,
        replicas=2,
        tp=1,
        pp=1,
        ep=1,
        dp=1,
        disaggregated=False,
        prefill_chips=0,
        decode_chips=0,
        usd_per_hour=usd_h,
        usd_per_million_output_tokens=usd_h / 3.6,
        ttft_p90_s=t90,
        tpot_p99_s=t99,
        capacity_rps=None,
        meets_slo=False,
        instance_chips=1,
    )
    return Fleet(**{**base, **kw})


def test_a_disaggregated_fleet_names_its_pools_and_an_aggregated_one_does_not() -> None:
    agg = _fleet(8.0, 0.1, 0.02)
    assert "prefill_split" not in agg.as_dict() and "prefill_instances" not in agg
    dis = _fleet(
        12.0,
        0.1,
        0.02,
        chips=3,
        replicas=2,
        tp=2,
        disaggregated=True,
        prefill_chips=1,
        decode_chips=2,
        instance_chips=2,
        prefill_instances=1,
        decode_instances=1,
        prefill_split=InstanceSplit(1, 1, 1, 1),
        decode_split=InstanceSplit(2, 2, 1, 1),
    )
    row = dis.as_dict()
    assert row["prefill_split"] == {"chips": 1, "tp": 1, "pp": 1, "ep": 1}
    assert row["decode_split"] == {"chips": 2, "tp": 2, "pp": 1, "ep": 1}
    # issue 27 §6: no top-level figure of one instance beside the two pools (the decode
    # pool's tp 2 with 2 instances in all would read as 4 chips, not the fleet's 3)
    assert [row[k] for k in ("replicas", "tp", "pp", "ep", "dp", "instance_chips")] == [None] * 6
    assert agg.as_dict()["tp"] == agg.tp and agg.as_dict()["replicas"] == agg.replicas
    assert list(dis.best_dict())[len(BEST_KEYS) :] == [
        "draws",
        "dp",
        "instance_chips",
        "prefill_instances",
        "decode_instances",
        "prefill_split",
        "decode_split",
    ]


def test_frontier_keeps_the_fleets_nothing_beats_cheapest_first() -> None:
    """$8 at 0.2 s / 30 ms and $12 at 0.1 s / 20 ms trade cost for speed: both stay; $12 at
    0.2 s / 30 ms is beaten by the $8 one on cost and equal on both times: it goes; a fleet
    with no first token is not a point at all."""
    cheap, fast = _fleet(8.0, 0.2, 0.03), _fleet(12.0, 0.1, 0.02)
    beaten, silent = _fleet(12.0, 0.2, 0.03), _fleet(1.0, None, None)
    assert frontier([fast, beaten, silent, cheap]) == [cheap, fast]


def test_a_stopped_fleet_may_be_beaten_but_never_beats() -> None:
    """A fleet whose run stopped once a target was certain to be missed has lower bounds for
    percentiles: $6 at ≥ 0.2 s / ≥ 0.06 s (a stopped draw) would beat $8 at 0.95 s / 0.062 s on
    every axis, but its real figures may be above those, so both stay; a finished fleet at
    $6 and 0.1 s / 0.05 s beats the stopped one, which goes."""
    from llm_roofline.planning.fleet_result import Draw

    stopped = _fleet(6.0, 0.2, 0.06, draws=(Draw(0, 0.2, 0.06, 2000, stopped=True),))
    ran = _fleet(8.0, 0.95, 0.062, draws=(Draw(0, 0.95, 0.062, 2000),))
    assert stopped.stopped and not ran.stopped
    assert frontier([ran, stopped]) == [stopped, ran]
    better = _fleet(6.0, 0.1, 0.05)
    assert frontier([ran, stopped, better]) == [better]


def test_the_frontier_marks_a_stopped_fleets_bounds(capsys: Any) -> None:
    """The command line's frontier writes a stopped fleet's figures as lower bounds."""
    from llm_roofline.cli.cmd_plan import _print_frontier
    from llm_roofline.planning.fleet_result import Draw

    stopped = _fleet(6.0, 0.2, 0.06, draws=(Draw(0, 0.2, 0.06, 2000, stopped=True),))
    _print_frontier([stopped, _fleet(8.0, 0.15, 0.02)], 300.0, 40.0)
    out = capsys.readouterr().out
    assert "≥ 200" in out and "≥ 60" in out and "≥ 150" not in out
