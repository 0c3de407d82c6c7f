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

from tests.web.web_page import Page, shoot

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
    # its $ axis is logarithmic, so each chip is a dot (a bar's length on a log axis would
    # depend on where the axis starts), one per priced chip of the table
    kinds = page.eval_on_selector(
        "#sens_catalog_chart", "el => el.data.map(t => [t.type, t.mode, t.x.length])"
    )
    assert {(k[0], k[1]) for k in kinds} == {("scatter", "markers")}, kinds
    priced = [r for r in api["catalog"]["rows"] if r["usd_per_million_tokens"] is not None]
    assert sum(k[2] for k in kinds) == len(priced)
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


@pytest.mark.slow
def test_api_refuses_what_the_page_cannot_send(server: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as e:
        _post(server, "/api/fast-mode", {"model": "llama-3.1-8b", "speedup": 0.5})
    assert e.value.code == 422


def _error(p: Page, section: str) -> str:
    """Wait until the view says it has no answer; its error line."""
    p.settle()
    p.page.wait_for_selector(f'section[id="{section}"][data-state="error"]', timeout=30_000)
    return p.text(f'section[id="{section}"] .werror')


def _asked(p: Page, route: str) -> int:
    return len([u for u in p.requests if u.endswith(route)])


def test_a_bad_input_of_a_whatif_view_is_named_and_clears_its_charts(
    server: str, browser: Any
) -> None:
    """Text that is no number stays in its input, marked, and one line names the field and what
    it allows; nothing is asked with a default in its place, and no chart of the last answer
    stays. A size (1k = 1,024, as the command line reads it) is a count."""
    p = Page(browser, f"{server}/?view=sensitivity&{DEPLOYMENT}&sens.across_catalog=0")
    page = p.page
    sens = "#view_sensitivity"
    _done(p, "view_sensitivity")
    assert page.get_attribute("#sens_chart", "data-plotted") == "data"
    asked = _asked(p, "/api/sensitivity")
    page.fill(f'{sens} [name="step_pct"]', "abc")
    line = _error(p, "view_sensitivity")
    assert line == "step_pct must be a number from 0.1 to 100, got 'abc'", line
    assert page.input_value(f'{sens} [name="step_pct"]') == "abc"
    assert page.locator(f'{sens} [name="step_pct"].bad_field').count() == 1
    assert _asked(p, "/api/sensitivity") == asked  # not asked with 10% in its place
    assert page.locator("#sens_chart").count() == 0 and page.locator("#sens_table").count() == 0
    assert "sens.step_pct=abc" in page.url  # the link says what was typed
    # mended: the answer for the value typed
    page.fill(f'{sens} [name="step_pct"]', "5")
    assert _done(p, "view_sensitivity")["step_pct"] == 5
    assert page.locator(f"{sens} .bad_field").count() == 0 and p.text(f"{sens} .werror") == ""
    p.close()

    q = Page(browser, f"{server}/?view=fast-mode&{DEPLOYMENT}")
    page = q.page
    fast = "#view_fast-mode"
    _done(q, "view_fast-mode")
    assert page.get_attribute("#fast_chart", "data-plotted") == "data"
    asked = _asked(q, "/api/fast-mode")
    page.fill(f'{fast} [name="acceptance"]', "0.9x")
    line = _error(q, "view_fast-mode")
    assert line.startswith("acceptance must be a number from 0 to 1, got '0.9x'"), line
    assert page.input_value(f'{fast} [name="acceptance"]') == "0.9x"
    assert page.locator(f'{fast} [name="acceptance"].bad_field').count() == 1
    assert _asked(q, "/api/fast-mode") == asked
    assert page.locator("#fast_chart").count() == 0 and page.locator("#fast_table").count() == 0
    page.fill(f'{fast} [name="acceptance"]', "0.85")
    # a count: a fraction is named; a size is read as the command line reads it
    page.fill(f'{fast} [name="gamma"]', "1.5")
    line = _error(q, "view_fast-mode")
    assert line.startswith("gamma must be a positive integer") and "'1.5'" in line, line
    page.fill(f'{fast} [name="gamma"]', "2")
    page.fill(f'{fast} [name="max_chips"]', "1k")
    body = _done(q, "view_fast-mode")
    assert body["max_chips"] == 1024 and body["gamma"] == 2  # 1k = 1,024
    # a number out of range: the server's line, naming the field and its bound
    page.fill(f'{fast} [name="speedup"]', "0")
    line = _error(q, "view_fast-mode")
    with pytest.raises(urllib.error.HTTPError) as e:
        _post(server, "/api/fast-mode", {**body, "speedup": 0})
    detail = json.loads(e.value.read())["detail"][0]
    # the server's bound ("Input should be greater than or equal to 1"), in the page's words
    assert detail["msg"].endswith("greater than or equal to 1"), detail
    assert line == "speedup: must be at least 1", line
    assert page.locator(f'{fast} [name="speedup"].bad_field').count() == 1
    assert page.locator("#fast_chart").count() == 0
    q.close()


def test_a_bad_deployment_greys_a_whatif_view_and_says_why(server: str, browser: Any) -> None:
    """When the controls above give no deployment, the what-if view asks nothing, says why in
    its own error line, and the last answer (its charts too) is greyed, not shown as if it
    answered them; a good deployment again answers afresh."""
    p = Page(browser, f"{server}/?view=sensitivity&{DEPLOYMENT}&sens.across_catalog=0")
    page = p.page
    sens = "#view_sensitivity"
    _done(p, "view_sensitivity")
    asked = _asked(p, "/api/sensitivity")
    page.fill("#batch", "zz")
    line = _error(p, "view_sensitivity")
    assert line.startswith("the deployment above: batch must be a positive integer"), line
    assert "'zz'" in line
    assert _asked(p, "/api/sensitivity") == asked
    out = page.locator(f"{sens} .wout")
    assert "stale" in (out.get_attribute("class") or "")
    style = page.eval_on_selector(
        f"{sens} .wout", "el => getComputedStyle(el).filter + ' ' + getComputedStyle(el).opacity"
    )
    assert "grayscale" in style and float(style.split()[-1]) < 1, style
    page.fill("#batch", "32")
    body = _done(p, "view_sensitivity")
    assert body["batch"] == 32 and p.text(f"{sens} .werror") == ""
    assert "stale" not in (out.get_attribute("class") or "")
    p.close()
