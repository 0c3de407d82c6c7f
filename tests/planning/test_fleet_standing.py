"""`fleet_result.standing` and `simulate_command` on fleets written by hand (issue 27 §6, §7):
the margins, the utilisation and the binding target by arithmetic, and the command of a
disaggregated fleet naming each pool's shape."""

from __future__ import annotations

import pytest

from llm_roofline.planning.fleet_request import FleetRequest
from llm_roofline.planning.fleet_result import (
    Draw,
    Fleet,
    InstanceSplit,
    simulate_command,
    standing,
)


def _request() -> FleetRequest:
    return FleetRequest(
        "llama-3.1-8b",
        "h100-sxm",
        rate=40.0,
        input_len=512,
        output_len=128,
        ttft_p90_s=0.5,
        tpot_p99_s=0.02,
    )


def _fleet(**kw: object) -> Fleet:
    base: dict[str, object] = {
        "hardware": "h100-sxm",
        "chips": 3,
        "replicas": 3,
        "tp": 1,
        "pp": 1,
        "ep": 1,
        "dp": 1,
        "disaggregated": False,
        "prefill_chips": 0,
        "decode_chips": 0,
        "usd_per_hour": 12.0,
        "usd_per_million_output_tokens": 1.0,
        "ttft_p90_s": 0.4,
        "tpot_p99_s": 0.019,
        "capacity_rps": 50.0,
        "meets_slo": True,
        "instance_chips": 1,
        "draws": (Draw(0, 0.3, 0.019, 2000), Draw(1, 0.4, 0.018, 2000)),
    }
    return Fleet(**{**base, **kw})  # type: ignore[arg-type]


def test_standing_by_hand() -> None:
    # TTFT 0.4 of 0.5 s: 20% margin; TPOT 19 of 20 ms: 5%, the binding one; 40 of 50 req/s: 80%
    st = standing(_fleet(), _request())
    assert st["margins"]["ttft_p90"] == pytest.approx(0.2)
    assert st["margins"]["tpot_p99"] == pytest.approx(0.05)
    assert st["binding"] == "tpot_p99" and st["utilisation"] == pytest.approx(0.8)
    # no second token anywhere: TPOT has no margin, TTFT binds; no capacity: no utilisation
    st = standing(_fleet(tpot_p99_s=None, capacity_rps=None), _request())
    assert st["binding"] == "ttft_p90" and st["utilisation"] is None


def test_command_names_each_pool_and_the_binding_draw() -> None:
    f = _fleet(
        chips=5,
        disaggregated=True,
        prefill_chips=1,
        decode_chips=4,
        prefill_instances=1,
        decode_instances=2,
        prefill_split=InstanceSplit(1, 1, 1, 1),
        decode_split=InstanceSplit(2, 2, 1, 1),
    )
    cmd = simulate_command(f, _request(), "calibrated")
    assert "--chips 2 --tp 2 --pp 1 --ep 1 --disagg 1:2 --prefill-chips 1 --prefill-tp 1" in cmd
    assert "--replicas" not in cmd
    # TPOT binds; its worst, 19 ms, is seed 0's
    assert cmd.endswith("--seed 0")
    # the serving engine plan simulated with (the request's; vLLM by default) is named
    assert "--serving-engine vllm" in cmd
    agg = simulate_command(_fleet(), _request(), "calibrated")
    assert "--chips 3 --replicas 3 --tp 1" in agg and "--disagg" not in agg
