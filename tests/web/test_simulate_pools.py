"""/api/simulate's disaggregated fleets with pools of two shapes (issue 27 §6): the prefill
instance's chips and split (`prefill_chips`, `prefill_tp`, `prefill_pp`, `prefill_ep`) built
as `simulate --prefill-...` builds them (`sim.pool_shapes.shaped_pools`), so that the fleet
`plan` chose simulates as it stands; a bad prefill field is a 4xx naming it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from llm_roofline.cli import main
from tests.web.answer_models import client, post_ok

SIM = {
    "model": "llama-3.1-8b",
    "hardware": "h100-sxm",
    "rate": 5,
    "requests": 100,
    "input_len": 256,
    "output_len": 16,
}


def _instance(d: dict[str, Any]) -> tuple[int, int, int, int, int]:
    """(instances, chips of one, tp, pp, ep) of a pool's deployment fields."""
    return (d["replicas"], d["chips"] // d["replicas"], d["tp"], d["pp"], d["ep"])


def test_a_plans_fleet_of_two_shapes_simulates_as_it_stands() -> None:
    # Llama 3.1 70B bf16 (141 GB of weights) at 2 requests/s of 2k prompts on H100s: plan's
    # cheapest disaggregated fleet prefills on 2-chip instances and decodes on 4-chip ones
    plan = post_ok(
        "/api/plan",
        {
            "model": "llama-3.1-70b",
            "hardware": ["h100-sxm"],
            "rate": 2,
            "input_len": 2048,
            "output_len": 128,
            "ttft_p90_ms": 2000,
            "tpot_p99_ms": 40,
            "max_chips": 16,
            "disagg": "yes",
            "requests": 200,
        },
    )
    b = plan["best"]
    ps, ds = b["prefill_split"], b["decode_split"]
    assert ps != ds, f"this case was chosen for pools of two shapes; plan now gives {ps}, {ds}"
    seed = int(b["simulate_command"].split("--seed ")[1].split()[0])
    body = {
        "model": "llama-3.1-70b",
        "hardware": b["hardware"],
        "chips": ds["chips"],
        "tp": ds["tp"],
        "pp": ds["pp"],
        "ep": ds["ep"],
        "disagg": f"{b['prefill_instances']}:{b['decode_instances']}",
        "prefill_chips": ps["chips"],
        "prefill_tp": ps["tp"],
        "prefill_pp": ps["pp"],
        "prefill_ep": ps["ep"],
        "rate": 2,
        "requests": 200,
        "input_len": 2048,
        "output_len": 128,
        "max_seqs": 256,  # plan's defaults, which its command names
        "max_batched_tokens": 8192,
        "seed": seed,
    }
    out = post_ok("/api/simulate", body)
    pf, dec = out["prefill_deployment"], out["deployment"]
    want_pf = (b["prefill_instances"], ps["chips"], ps["tp"], ps["pp"], ps["ep"])
    assert _instance(pf) == want_pf
    assert _instance(dec) == (b["decode_instances"], ds["chips"], ds["tp"], ds["pp"], ds["ep"])
    assert pf["chips"] == b["prefill_chips"] and dec["chips"] == b["decode_chips"]
    assert out["prefill_instances"] == b["prefill_instances"]
    # the same simulation as plan's draw of that seed: its percentiles, to the last digit
    draw = next(d for d in b["draws"] if d["seed"] == seed)
    assert out["ttft_p90_s"] == draw["ttft_p90_s"] and out["tpot_p99_s"] == draw["tpot_p99_s"]


def test_two_shapes_by_hand_as_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    # 2 prefill instances of 1 chip (tp 1) and 3 decode instances of 2 chips (tp 2): 2 + 6 chips
    body = {**SIM, "chips": 2, "tp": 2, "disagg": "2:3", "prefill_chips": 1}
    out = post_ok("/api/simulate", body)
    assert _instance(out["prefill_deployment"]) == (2, 1, 1, 1, 1)
    assert _instance(out["deployment"]) == (3, 2, 2, 1, 1)
    # `simulate --prefill-chips 1` builds the same pools and serves the same traffic alike
    argv = ["simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--chips", "2"]
    argv += ["--tp", "2", "--disagg", "2:3", "--prefill-chips", "1", "--rate", "5"]
    argv += ["--requests", "100", "--input-len", "256", "--output-len", "16", "--json"]
    assert main(argv) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["prefill_deployment"] == out["prefill_deployment"]
    assert cli["deployment"] == out["deployment"]
    assert cli["ttft_p90_s"] == out["ttft_p90_s"] and cli["tpot_p99_s"] == out["tpot_p99_s"]
    # no prefill field: a prefill instance is a decode instance, as before
    same = post_ok("/api/simulate", {**SIM, "chips": 2, "tp": 2, "disagg": "2:3"})
    assert _instance(same["prefill_deployment"]) == (2, 2, 2, 1, 1)


@pytest.mark.parametrize(
    ("extra", "status", "field"),
    [
        ({"disagg": "1:1", "prefill_tp": 0}, 422, "prefill_tp"),  # not a positive integer
        ({"disagg": "1:1", "prefill_chips": "2"}, 422, "prefill_chips"),  # a string
        ({"disagg": "1:1", "prefill_ep": 1.5}, 422, "prefill_ep"),
        ({"disagg": "1:1", "prefill_pp": 5000}, 422, "prefill_pp"),  # over 4096
        ({"prefill_tp": 1}, 400, "prefill_tp"),  # no disaggregated fleet to shape
        # Llama 3.1 8B's 32 query heads: tp 3 divides none of them
        ({"disagg": "1:1", "prefill_chips": 3, "prefill_tp": 3}, 400, "prefill_tp"),
        # tp 2 × pp 1 cannot split 3 chips
        ({"disagg": "1:1", "prefill_chips": 3, "prefill_tp": 2}, 400, "prefill_tp"),
        ({"disagg": "1:1", "prefill_pp": 2}, 400, "prefill_pp"),  # 2 stages of 1 chip
        ({"disagg": "1:1", "prefill_ep": 2}, 400, "prefill_ep"),  # a dense model: no experts
    ],
)
def test_a_bad_prefill_field_is_named(extra: dict[str, Any], status: int, field: str) -> None:
    r = client.post("/api/simulate", json={**SIM, **extra})
    assert r.status_code == status, r.text
    assert r.json()["field"] == field
