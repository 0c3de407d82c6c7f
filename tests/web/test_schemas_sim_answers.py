"""web/schemas_sim_answers.py: the `/api/simulate` and `/api/plan` answer models accept what
the routes serve and refuse a value of the wrong type, naming its place."""

from __future__ import annotations

from llm_roofline.web.schemas_sim_answers import PlanAnswer, SimulateAnswer

from .answer_models import D, post_ok, refused_at


def test_a_simulation_answer() -> None:
    body = {**D, "input_len": 64, "output_len": 4, "concurrency": 1, "requests": 3}
    served = post_ok("/api/simulate", body)
    answer = SimulateAnswer.model_validate(served)
    assert answer.requests == 3
    assert answer.disaggregated is False and answer.prefill_deployment is None
    assert answer.deployment.model == "llama-3.1-8b"
    # the timeline's columns are as long as each other
    tl = answer.timeline
    assert len(tl.t_s) == len(tl.waiting) == len(tl.running) == len(tl.kv_share) > 0
    assert refused_at(SimulateAnswer, {**served, "preemptions": 0.5}) == ("preemptions",)
    bad = {**served, "timeline": {**served["timeline"], "waiting": ["many"]}}
    assert refused_at(SimulateAnswer, bad) == ("timeline", "waiting", 0)


def test_a_plan_answer() -> None:
    body = {**D, "hardware": ["h100-sxm"], "rate": 5, "input_len": 256, "output_len": 32}
    body |= {"ttft_p90_ms": 500, "tpot_p99_ms": 50, "max_chips": 2, "requests": 100}
    served = post_ok("/api/plan", body)
    answer = PlanAnswer.model_validate(served)
    # the question echoed in seconds: 500 ms and 50 ms
    assert (answer.request.ttft_p90_s, answer.request.tpot_p99_s) == (0.5, 0.05)
    assert answer.request.hardware == ["h100-sxm"]
    assert set(answer.prices) == {"h100-sxm"}
    bad = {**served, "request": {**served["request"], "max_chips": "two"}}
    assert refused_at(PlanAnswer, bad) == ("request", "max_chips")
