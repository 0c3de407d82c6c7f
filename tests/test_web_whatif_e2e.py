"""The what-if views in a real browser (Debian's Chromium driven by Playwright against `serve`
on loopback): "What matters most" (?view=sensitivity) and "Fast modes" (?view=fast-mode). Each
shows the API's numbers, follows a change of its own inputs and of the deployment, keeps its
inputs in the URL, names a bad field, and is photographed for docs/whatif.md."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.web_page import Page, shoot

DEPLOYMENT = "model=llama-3.1-8b&hardware=h100-sxm&chips=1&batch=64&context_len=4096"


def _post(server: str, route: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        server + route,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        out: dict[str, Any] = json.loads(r.read())
    return out


def _done(p: Page, section: str) -> dict[str, Any]:
    """Wait until the view has drawn its answer; the body it sent."""
    p.settle()
    p.page.wait_for_selector(f'section[id="{section}"][data-state="done"]', timeout=30_000)
    raw = p.page.get_attribute(f'section[id="{section}"]', "data-request")
    assert raw
    body: dict[str, Any] = json.loads(raw)
    return body


def _number(text: str) -> float:
    """A number as the page shows it: '+8.7%' -> 0.087, '$0.487' -> 0.487, '×2.53' -> 2.53."""
    t = text.replace(",", "").replace("$", "").replace("×", "").strip()
    if t == "0%":
        return 0.0
    if t.endswith("%"):
        return float(t[:-1]) / 100
    return float(t)


def _cells(p: Page, selector: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = p.page.eval_on_selector_all(
        selector, "els => els.map(e => ({...e.dataset, text: e.textContent}))"
    )
    return out


def test_sensitivity_view_shows_the_api_numbers(server: str, browser: Any, tmp_path: Path) -> None:
    p = Page(browser, f"{server}/?view=sensitivity&{DEPLOYMENT}&sens.tpot_ms=20")
    page = p.page
    body = _done(p, "view_sensitivity")
    # the request is the deployment above with this view's inputs, and their names are its fields
    assert body["model"] == "llama-3.1-8b" and body["hardware"] == "h100-sxm"
    assert body["batch"] == 64 and body["context_len"] == 4096 and body["tpot_ms"] == 20
    assert body["across_catalog"] is True and body["step_pct"] == 10
    for name in ("tpot_ms", "step_pct", "across_catalog", "max_chips"):
        assert page.locator(f'#view_sensitivity [name="{name}"]').count() == 1
    api = _post(server, "/api/sensitivity", body)

    # every change and elasticity shown is the API's, at the policy shown (the batch given)
    given = next(x for x in api["policies"] if x["policy"] == "given")
    cells = _cells(p, "#sens_table td[data-kind]")
    assert len(cells) == 6 * 3 * 2  # 6 chip figures × 3 metrics × (change, elasticity)
    for c in cells:
        effect = next(e for e in given["effects"] if e["figure"] == c["figure"])
        want = effect[c["kind"]][c["metric"]]
        assert float(c["value"]) == pytest.approx(want, rel=1e-12)
        shown = _number(c["text"])
        assert shown == pytest.approx(want, abs=0.0006 if c["kind"] == "change" else 0.006)
    # the base figures at every policy, and the sentences
    for c in _cells(p, "#sens_base td[data-key]"):
        row = page.locator(f'#sens_base td[data-key="{c["key"]}"][data-value="{c["value"]}"]')
        assert row.count() >= 1
    bases = {x["policy"]: x["base"] for x in api["policies"]}
    assert {int(c["value"]) for c in _cells(p, '#sens_base td[data-key="batch"]')} == {
        b["batch"] for b in bases.values()
    }
    shown = page.eval_on_selector_all("#sens_sentences li", "els => els.map(e => e.textContent)")
    assert shown and set(shown) <= set(api["sentences"])
    # across the catalog: the cheapest chip and each $ per token
    assert api["catalog"]["cheapest"] in p.text("#sens_cheapest")
    for c in _cells(p, '#sens_catalog td[data-key="usd_per_million_tokens"]'):
        row = next(r for r in api["catalog"]["rows"] if r["usd_per_million_tokens"] is not None)
        assert row  # the table lists priced chips only
        assert float(c["value"]) in {r["usd_per_million_tokens"] for r in api["catalog"]["rows"]}
    assert page.get_attribute("#sens_chart", "data-plotted") == "data"
    assert page.get_attribute("#sens_catalog_chart", "data-plotted") == "data"
    shoot(page, "#view_sensitivity", "web_sensitivity.png", tmp_path)

    # this view's own inputs: a 20% step, another policy shown; both go into the URL
    page.fill('#view_sensitivity [name="step_pct"]', "20")
    page.select_option("#sens_policy", "largest")
    body2 = _done(p, "view_sensitivity")
    page.wait_for_function(
        "JSON.parse(document.getElementById('view_sensitivity').dataset.request).step_pct === 20"
    )
    body2 = _done(p, "view_sensitivity")
    assert body2["step_pct"] == 20
    assert "sens.step_pct=20" in page.url and "sens.policy=largest" in page.url
    largest = next(
        x for x in _post(server, "/api/sensitivity", body2)["policies"] if x["policy"] == "largest"
    )
    bw = page.get_attribute(
        '#sens_table td[data-figure="memory_bandwidth"][data-metric="tokens_per_s"]'
        '[data-kind="change"]',
        "data-value",
    )
    effect = next(e for e in largest["effects"] if e["figure"] == "memory_bandwidth")
    assert float(bw or "nan") == pytest.approx(effect["change"]["tokens_per_s"], rel=1e-12)

    # the URL round-trips: a reload restores the inputs and the policy shown
    page.goto(page.url)
    page.wait_for_selector("body[data-ready]")
    body3 = _done(p, "view_sensitivity")
    assert page.input_value('#view_sensitivity [name="step_pct"]') == "20"
    assert page.input_value('#view_sensitivity [name="tpot_ms"]') == "20"
    assert page.input_value("#sens_policy") == "largest"
    assert body3 == body2

    # a bad input is named and marked, and no stale result stays
    page.fill('#view_sensitivity [name="step_pct"]', "500")
    p.settle()
    page.wait_for_selector('section[id="view_sensitivity"][data-state="error"]')
    assert "step_pct" in p.text("#view_sensitivity .werror")
    assert page.locator('#view_sensitivity [name="step_pct"].bad_field').count() == 1
    assert page.locator("#sens_table").count() == 0
    p.close()


def test_fast_mode_view_shows_the_api_numbers(server: str, browser: Any, tmp_path: Path) -> None:
    p = Page(browser, f"{server}/?view=fast-mode&{DEPLOYMENT}&fast.speedup=2.5")
    page = p.page
    body = _done(p, "view_fast-mode")
    assert body["speedup"] == 2.5 and body["batch"] == 64
    assert "draft" not in body  # the default: MTP only for a model that has an MTP layer
    for name in ("speedup", "gamma", "acceptance", "draft", "max_chips"):
        assert page.locator(f'#view_fast-mode [name="{name}"]').count() == 1
    api = _post(server, "/api/fast-mode", body)
    assert p.text("#fast_message") == api["message"]
    settings = {"base": api["base"]} | {o["option"]: o["setting"] for o in api["options"]}
    shown = _cells(p, "#fast_table td[data-key]")
    assert {c["key"] for c in shown} == {
        "tpot_s",
        "tokens_per_s_per_user",
        "speedup",
        "usd_per_million_tokens",
        "price_multiple",
    }
    for row in page.eval_on_selector_all(
        "#fast_table tbody tr", "els => els.map(e => e.dataset.option)"
    ):
        for c in _cells(p, f'#fast_table tr[data-option="{row}"] td[data-key]'):
            want = settings[row][c["key"]]
            assert float(c["value"]) == pytest.approx(want, rel=1e-12)
            if c["key"] != "tpot_s":  # shown in ms
                assert _number(c["text"]) == pytest.approx(want, rel=0.006)
    if api["cheapest"]:
        assert page.locator(f'#fast_table tr.cheapest[data-option="{api["cheapest"]}"]').count()
    assert page.get_attribute("#fast_chart", "data-plotted") == "data"
    shoot(page, "#view_fast-mode", "web_fast_mode.png", tmp_path)

    # a change of the factor recomputes and goes into the URL; a reload restores it
    page.fill('#view_fast-mode [name="speedup"]', "2")
    page.wait_for_function(
        "JSON.parse(document.getElementById('view_fast-mode').dataset.request).speedup === 2"
    )
    body2 = _done(p, "view_fast-mode")
    assert "fast.speedup=2" in page.url
    assert p.text("#fast_message") == _post(server, "/api/fast-mode", body2)["message"]
    page.goto(page.url)
    page.wait_for_selector("body[data-ready]")
    assert _done(p, "view_fast-mode") == body2
    assert page.input_value('#view_fast-mode [name="speedup"]') == "2"

    # a change of the deployment above recomputes the view
    page.select_option('[name="hardware"]', "h200")
    page.wait_for_function(
        "JSON.parse(document.getElementById('view_fast-mode').dataset.request).hardware === 'h200'"
    )
    body3 = _done(p, "view_fast-mode")
    assert p.text("#fast_message") == _post(server, "/api/fast-mode", body3)["message"]

    # an unknown draft model is named
    page.fill('#view_fast-mode [name="draft"]', "no-such-model")
    p.settle()
    page.wait_for_selector('section[id="view_fast-mode"][data-state="error"]')
    assert re.search(r"draft|unknown model", p.text("#view_fast-mode .werror"))
    assert page.locator('#view_fast-mode [name="draft"].bad_field').count() == 1
    p.close()


def test_api_refuses_what_the_page_cannot_send(server: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as e:
        _post(server, "/api/fast-mode", {"model": "llama-3.1-8b", "speedup": 0.5})
    assert e.value.code == 422
