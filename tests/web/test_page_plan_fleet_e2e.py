"""The planning view's "Simulate this fleet" in a real browser (issue 27 §6): after a plan, the
button fills the deployment controls and Simulate's form with the plan's best fleet (a
disaggregated one with pools of two shapes: each pool's chips and split), the traffic and the
settings of its `simulate` command, and simulates it; the answer is the plan's own fleet, and
the same simulation as the plan's draw of that seed. Every wait is for the page's own state
(data-plan-state, data-sim-state, body[data-busy]), never a sleep."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from tests.web.web_page import Page

# Llama 3.1 70B bf16 at 2 requests/s of 2k prompts on up to 16 H100s, disaggregated: plan's
# cheapest fleet prefills on 2-chip instances and decodes on 4-chip ones
# (tests/web/test_simulate_pools.py asks the API the same)
TRAFFIC = {
    "rate": "2",
    "input_len": "2048",
    "output_len": "128",
    "ttft_p90_ms": "2000",
    "tpot_p99_ms": "40",
    "max_chips": "16",
}


def _flags(cmd: str) -> dict[str, str]:
    """A command's --name value pairs as {name: value} (--max-seqs: max_seqs)."""
    words = cmd.split()
    return {
        w[2:].replace("-", "_"): v
        for w, v in pairwise(words)
        if w.startswith("--") and not v.startswith("--")
    }


def _answered(p: Page, kind: str) -> None:
    """Wait for the planning view's answer of `kind` ("plan" or "sim"), then for the page to
    settle; it must be a result, not an error."""
    attr = f"data-{kind}-state"
    p.page.wait_for_selector(f"#planning[{attr}=done], #planning[{attr}=error]", timeout=300_000)
    p.settle()
    assert p.page.get_attribute("#planning", attr) == "done", p.text("#p_error")


def test_simulate_this_fleet_runs_the_plans_fleet(server: str, browser: Any) -> None:
    # the top starts on another deployment, Simulate on a seed and router the plan did not use
    query = "&".join(f"p.{k}={v}" for k, v in TRAFFIC.items())
    p = Page(
        browser,
        f"{server}/?view=planning&model=llama-3.1-70b&hardware=h100-sxm&chips=8&{query}"
        "&p.seed=7&p.router=least-loaded&p.plan_disagg=yes&p.hardware=h100-sxm",
    )
    page = p.page
    assert page.input_value('#planning [name="seed"][data-for="sim"]') == "7"
    assert page.is_hidden("#p_prefill")  # not disaggregated: no prefill instance to shape

    with page.expect_response("**/api/plan", timeout=300_000) as planned:
        page.click("#plan_run")
    _answered(p, "plan")
    assert p.text("#plan_verdict") == "best plan", p.text("#p_error")
    best = planned.value.json()["best"]
    ps, ds = best["prefill_split"], best["decode_split"]
    assert best["disaggregated"] and ps != ds, (ps, ds)  # the case is one of two shapes
    cmd = p.text('#plan_best td[data-key="simulate_command"]')
    assert cmd == best["simulate_command"]
    flags = _flags(cmd)
    seed = int(flags["seed"])

    # the button: the plan's fleet filled in and simulated (it sets data-sim-state busy at
    # once; the answer is waited for)
    with page.expect_response("**/api/simulate", timeout=300_000) as simulated:
        page.click("#plan_use")
    _answered(p, "sim")
    assert p.text("#p_error") == ""
    body = simulated.value.request.post_data_json
    answer = simulated.value.json()
    # each pool's shape as the plan gave it: the decode instance's at the top, the prefill
    # instance's in Simulate's form
    assert (body["chips"], body["tp"], body["pp"], body["ep"]) == (
        ds["chips"],
        ds["tp"],
        ds["pp"],
        ds["ep"],
    )
    assert body["disagg"] == f"{best['prefill_instances']}:{best['decode_instances']}"
    shape = (body["prefill_chips"], body["prefill_tp"], body["prefill_pp"], body["prefill_ep"])
    assert shape == (ps["chips"], ps["tp"], ps["pp"], ps["ep"])
    # the traffic and settings of the command: its seed (not the 7 typed), its requests, its
    # limits and serving engine; the router back to the command line's default
    assert body["seed"] == seed and body["requests"] == int(flags["requests"])
    assert body["max_seqs"] == int(flags["max_seqs"])
    assert body["max_batched_tokens"] == int(flags["max_batched_tokens"])
    assert body["serving_engine"] == flags["serving_engine"] == "vllm"
    assert body["router"] == "round-robin" and body["rate"] == 2
    assert (body["model"], body["hardware"]) == ("llama-3.1-70b", best["hardware"])
    # the form shows the prefill instance's shape
    assert page.is_visible("#p_prefill")
    assert page.input_value('#planning [name="prefill_chips"]') == str(ps["chips"])
    assert page.input_value('#planning [name="prefill_tp"]') == str(ps["tp"])
    assert page.input_value("#chips") == str(ds["chips"])

    # the plan's answer stays current (the button asked it nothing new), and so does the run
    assert "outdated" not in (page.get_attribute("#plan_out", "class") or "")
    assert "outdated" not in (page.get_attribute("#sim_out", "class") or "")
    # the simulated fleet, as the page reads it from the answer, is the plan's fleet
    assert p.text("#sim_fleet") == "disaggregated: " + p.text('#plan_best td[data-key="replicas"]')
    pf, dec = answer["prefill_deployment"], answer["deployment"]
    assert (pf["replicas"], pf["chips"], pf["tp"]) == (
        best["prefill_instances"],
        best["prefill_chips"],
        ps["tp"],
    )
    assert (dec["replicas"], dec["chips"], dec["tp"]) == (
        best["decode_instances"],
        best["decode_chips"],
        ds["tp"],
    )
    # and the same simulation as the plan's draw of that seed: its percentiles exactly
    draw = next(d for d in best["draws"] if d["seed"] == seed)
    assert answer["ttft_p90_s"] == draw["ttft_p90_s"]
    assert answer["tpot_p99_s"] == draw["tpot_p99_s"]
    p.close()
