"""The page in a real browser: Debian's Chromium driven by Playwright against `serve` on
loopback. It loads, draws, and follows a change of model, batch, engine, split and chip."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.web_page import Page


def test_page_follows_model_and_batch(server: str, browser: Any, tmp_path: Path) -> None:
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=4")
    page = p.page
    step0 = p.text("#n_step")
    chart0 = p.points("ideal step")
    assert step0 and step0 != "–" and chart0

    # another model: the numbers and the chart change, and the URL carries the state
    page.select_option("#model", "llama-3.1-70b")
    page.fill("#chips", "8")
    page.dispatch_event("#chips", "change")
    p.settle()
    assert p.text("#n_step") != step0 and p.points("ideal step") != chart0
    assert "model=llama-3.1-70b" in page.url and "chips=8" in page.url

    # a bigger batch: the step time at the batch and the tokens/s change
    tps1 = p.text("#n_tps")
    page.fill("#batch", "8")  # 2^8 = 256 sequences
    page.dispatch_event("#batch", "input")
    p.settle()
    assert p.text("#batch_out") == "256"
    assert p.text("#n_tps") != tps1
    assert p.text("#regime")

    # a bad upload says so on the page
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    page.set_input_files("#upload", str(bad))
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    assert "not JSON" in p.text("#error")
    p.close()


def test_engine_choice_moves_and_names_every_number(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=4")
    page = p.page
    # the default is the calibrated engine: ideal bound and estimate with its range side by side
    assert page.input_value("#engine") == "calibrated"
    head = p.text("#n_step")
    assert head.startswith("ideal ") and " · calibrated " in head and "–" in head, head
    assert "(calibrated)" in p.text("#l_tps") and "(calibrated)" in p.text("#l_usd")
    assert page.locator('#c_batch polygon[data-name="calibrated range"]').count() == 1
    ideal0, step0, tps0 = p.seconds("ideal-s"), p.seconds("step-s"), p.text("#n_tps")
    assert step0 > ideal0

    page.select_option("#engine", "vllm")
    p.settle()
    head = p.text("#n_step")
    assert " · vllm " in head and "calibrated" not in head, head
    assert "(vllm)" in p.text("#l_tps") and "vllm" in p.text("#n_engine_note")
    assert p.seconds("ideal-s") == ideal0  # the bound does not depend on the engine
    assert p.seconds("step-s") != step0 and p.text("#n_tps") != tps0
    assert p.points("vllm step") and "engine=vllm" in page.url

    page.select_option("#engine", "ideal")
    p.settle()
    head = p.text("#n_step")
    assert head.startswith("ideal ") and "·" not in head, head
    assert p.seconds("step-s") == pytest.approx(ideal0, rel=1e-12)
    assert "(ideal)" in p.text("#l_tps")
    assert page.locator("#c_batch polygon.band").count() == 0
    p.close()


def test_chip_editor_doubles_memory_bandwidth(server: str, browser: Any) -> None:
    # llama-3.1-8b on one h100-sxm at batch 1 is memory-bound with no communication: the ideal
    # step is bytes / bandwidth, so twice the bandwidth is half the step
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=0")
    page = p.page
    assert p.text("#n_batch") == "1" and p.text("#n_bound") == "memory"
    page.click("#chip_editor summary")
    bw = page.locator("#chip_memory_bandwidth_tb_per_s")
    assert bw.input_value() == "3.35"  # filled from the catalog record
    ideal0, step0, chart0 = p.seconds("ideal-s"), p.seconds("step-s"), p.points("ideal step")

    bw.fill("6.7")
    p.settle()
    assert p.seconds("ideal-s") / ideal0 == pytest.approx(0.5, rel=0.01)
    assert p.seconds("step-s") < step0 and p.points("ideal step") != chart0
    assert "1 figure edited" in p.text("#chip_state")
    assert "chip.memory_bandwidth_tb_per_s=6.7" in page.url

    # the link reproduces the view, edit included
    q = Page(browser, page.url)
    assert q.page.locator("#chip_editor").get_attribute("open") is not None
    assert q.page.input_value("#chip_memory_bandwidth_tb_per_s") == "6.7"
    assert q.seconds("ideal-s") == p.seconds("ideal-s") and q.text("#n_step") == p.text("#n_step")
    q.close()

    # reset returns to the catalog chip
    page.click("#chip_reset")
    p.settle()
    assert bw.input_value() == "3.35" and "chip." not in page.url
    assert p.seconds("ideal-s") == pytest.approx(ideal0, rel=1e-12)
    assert "catalog figures" in p.text("#chip_state")

    # another hardware refills the editor from its record
    page.select_option("#hardware", "a100-80gb")
    p.settle()
    assert bw.input_value() == "2.039"
    assert page.input_value("#chip_fp8_dense_tflops") == ""  # not in the catalog
    p.close()


def test_split_inputs_change_the_split(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-70b&hardware=h100-sxm&chips=8&batch=4")
    page = p.page
    auto = p.text("#split")
    assert "(auto)" in auto and "tp 8" in auto, auto

    page.fill("#tp", "2")
    page.fill("#replicas", "4")
    p.settle()
    split = p.text("#split")
    assert "tp 2" in split and "4 replicas" in split and split != auto, split
    assert "tp=2" in page.url and "replicas=4" in page.url
    page.check("#pad_heads")
    p.settle()
    assert "pad_heads=1" in page.url

    # a split that does not divide the chips: the server's message, the last view kept
    page.fill("#replicas", "")
    page.fill("#tp", "3")
    p.settle()
    assert "does not divide" in p.text("#error")
    assert p.text("#split") == split and p.points("ideal step")

    page.fill("#tp", "")
    page.uncheck("#pad_heads")
    p.settle()
    assert p.text("#split") == auto and p.text("#error") == ""
    assert "tp=" not in page.url and "pad_heads" not in page.url
    p.close()


def test_bad_chip_field_is_named(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=4")
    page = p.page
    page.click("#chip_editor summary")
    step0 = p.text("#n_step")
    for field, value in [
        ("memory_bandwidth_tb_per_s", "0"),
        ("memory_bandwidth_tb_per_s", ""),
        ("memory_bandwidth_tb_per_s", "-2"),
        ("scale_up_domain_chips", "0"),
        ("price_usd_per_hour", "-1"),
    ]:
        if page.is_enabled("#chip_reset"):  # one bad figure at a time
            page.click("#chip_reset")
        page.fill(f"#chip_{field}", value)
        p.settle()
        assert field in p.text("#error"), (field, value, p.text("#error"))
        assert "bad_field" in (page.get_attribute(f"#chip_{field}", "class") or "")
        assert p.text("#n_step") == step0  # the last good view stays, never a blank page
    page.click("#chip_reset")
    p.settle()
    assert p.text("#error") == ""
    p.close()


def test_screenshot(server: str, browser: Any, tmp_path: Path) -> None:
    """The view in the README: DeepSeek-V3 on an NVL72 rack of GB200."""
    shot = os.environ.get("LLM_ROOFLINE_SCREENSHOT", str(tmp_path / "web.png"))
    p = Page(
        browser,
        server + "/?model=deepseek-v3&hardware=gb200&chips=72&weight_dtype=fp8&batch=11",
    )
    p.page.click("#chip_editor summary")
    p.settle()
    assert "ep 72" in p.text("#split") and "calibrated" in p.text("#n_step")
    p.page.wait_for_timeout(200)
    p.page.screenshot(path=shot, full_page=True)
    assert Path(shot).stat().st_size > 20_000
    p.close()


def _run(p: Page, which: str) -> str:
    """Click the planning view's Simulate or Plan button; wait for its answer; its state."""
    page = p.page
    # the click sets the busy state at once (the button is disabled until the answer is in)
    state = page.evaluate(
        f"() => {{ document.getElementById('{which}_run').click();"
        " return document.getElementById('planning').dataset."
        f"{'simState' if which == 'sim' else 'planState'}; }}"
    )
    assert state == "busy"
    attr = "data-sim-state" if which == "sim" else "data-plan-state"
    page.wait_for_selector(f"#planning[{attr}=done], #planning[{attr}=error]")
    return page.get_attribute("#planning", attr) or ""


def _points(p: Page, svg: str, name: str) -> int:
    pts = p.page.get_attribute(f'#{svg} polyline[data-name="{name}"]', "points") or ""
    return len(pts.split())


def _shoot(p: Page, name: str, tmp_path: Path) -> None:
    """The planning view as it stands, into docs/figures with `make screenshot`."""
    folder = os.environ.get("LLM_ROOFLINE_SCREENSHOT")
    shot = Path(folder).parent / name if folder else tmp_path / name
    p.page.locator("#planning").screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


def test_planning_view_simulates_the_deployment(server: str, browser: Any, tmp_path: Path) -> None:
    p = Page(browser, server + "/?view=planning&model=llama-3.1-8b&hardware=h100-sxm&batch=4")
    page = p.page
    for name, value in (("rate", "10"), ("requests", "300"), ("input_len", "512")):
        page.fill(f'#planning [name="{name}"]', value)
    page.fill('#planning [name="output_len"]', "64")
    assert _run(p, "sim") == "done", p.text("#p_error")
    assert p.text("#sim_stable") == "stable" and p.text("#p_error") == ""
    ttft = p.text('#sim_table td[data-key="ttft_p50_s"]')
    assert ttft.endswith(" ms"), ttft
    # the engine's own figure for one request alone (about 17 ms to the first token at 512
    # tokens) is a floor for the median at 10 requests/s
    assert float(ttft.split()[0]) >= 17
    assert "requests/s" in p.text('#sim_numbers b[data-key="capacity_rps"]')
    # the curve: p50, p90 and p99 at 7 rates up to 90% of capacity; the run's timeline
    for m in ("ttft", "tpot"):
        assert all(_points(p, f"c_sim_{m}", q) == 7 for q in ("p50", "p90", "p99"))
    assert _points(p, "c_sim_queue", "running") > 10
    assert _points(p, "c_sim_kv", "KV memory used") > 10
    _shoot(p, "web_simulate.png", tmp_path)

    # a bad rate: the server's message names the field, the input is marked, and the charts
    # say there is no result (neither blank nor the last run's)
    page.fill('#planning [name="rate"]', "-1")
    assert _run(p, "sim") == "error"
    assert "rate" in p.text("#p_error"), p.text("#p_error")
    assert "bad_field" in (page.get_attribute('#planning [name="rate"]', "class") or "")
    assert page.locator("#c_sim_ttft polyline").count() == 0
    assert "no result" in p.text("#c_sim_ttft")
    # disaggregated P:D that is not one: named too
    page.fill('#planning [name="rate"]', "10")
    page.fill('#planning [name="disagg"][data-for="sim"]', "one:two")
    assert _run(p, "sim") == "error" and "disagg" in p.text("#p_error")
    # the server's message echoes what was typed: shown as text, never run as markup
    page.fill('#planning [name="disagg"][data-for="sim"]', "<img src=x onerror=pwned=1>")
    assert _run(p, "sim") == "error"
    page.wait_for_timeout(100)
    assert page.evaluate("() => window.pwned") is None
    assert page.locator("#planning img").count() == 0
    page.fill('#planning [name="disagg"][data-for="sim"]', "")
    assert _run(p, "sim") == "done"
    assert p.text("#p_error") == "" and page.locator("#planning .bad_field").count() == 0
    assert _points(p, "c_sim_ttft", "p99") == 7

    # an unstable traffic: said so, no percentile
    page.fill('#planning [name="rate"]', "500")
    page.fill('#planning [name="requests"]', "2000")
    assert _run(p, "sim") == "done"
    assert p.text("#sim_stable") == "UNSTABLE" and "grows without bound" in p.text("#sim_head")
    assert p.text('#sim_table td[data-key="ttft_p99_s"]') == "–"

    # a change of deployment marks the result as outdated
    page.select_option("#model", "qwen3-8b")
    p.settle()
    assert "outdated" in (page.get_attribute("#sim_out", "class") or "")
    p.close()


def test_planning_view_plans_a_fleet(server: str, browser: Any, tmp_path: Path) -> None:
    p = Page(browser, server + "/?view=planning&model=llama-3.1-8b&hardware=h100-sxm&batch=4")
    page = p.page
    for name, value in (
        ("rate", "10"),
        ("input_len", "512"),
        ("output_len", "128"),
        ("ttft_p90_ms", "500"),
        ("tpot_p99_ms", "50"),
        ("max_chips", "8"),
    ):
        page.fill(f'#planning [name="{name}"]', value)
    page.select_option('#planning select[name="hardware"]', ["h100-sxm"])
    assert _run(p, "plan") == "done", p.text("#p_error")
    assert p.text("#plan_verdict") == "best plan"
    assert p.text('#plan_best td[data-key="hardware"]') == "h100-sxm"
    assert p.text('#plan_best td[data-key="usd_per_hour"]').startswith("$")
    assert page.locator("#c_plan circle.best").count() == 1
    assert page.locator("#plan_table tr").count() >= 2  # header and the fleets simulated
    _shoot(p, "web_plan.png", tmp_path)

    # no fleet of 8 H100s decodes a token in 0.1 ms: the reason, not a plan
    page.fill('#planning [name="tpot_p99_ms"]', "0.1")
    assert _run(p, "plan") == "done"
    assert p.text("#plan_verdict") == "no fleet meets the targets"
    assert "tpot" in p.text('#plan_best td[data-key="reason"]').lower()
    assert page.locator("#c_plan circle.best").count() == 0

    # no hardware chosen: the server names the field
    page.select_option('#planning select[name="hardware"]', [])
    assert _run(p, "plan") == "error" and "hardware" in p.text("#p_error")
    assert "bad_field" in (page.get_attribute('#planning select[name="hardware"]', "class") or "")
    p.close()
