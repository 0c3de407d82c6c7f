"""The economics view in a real browser (Debian's Chromium, Playwright, `serve` on loopback):
`?view=economics` for Llama 3.1 70B on 8 H100s shows what the API answers for the requests the
page sent (and those equal the command line's), its charts draw the API's curves on log axes
ticked at powers of ten, its inputs round-trip through the URL (econ.*), a change of the
deployment above recomputes it, and a bad input is one line naming the field."""

from __future__ import annotations

import json
import math
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import run_cli
from tests.web.web_page import Page, shoot

VIEW = "#view_economics"
URL = (
    "/?view=economics&model=llama-3.1-70b&hardware=h100-sxm&chips=8&engine=ideal"
    "&econ.long_context_threshold=200000&econ.ratio=600&econ.context_len=100000"
)
ROUTES = {"pricing": "/api/pricing", "cost": "/api/cost-vs-context", "tiers": "/api/cache-tiers"}
# a shown figure's unit -> SI (display units of the page)
UNITS = {"µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
UNITS.update({"GB": 1e9, "GB/s": 1e9, "B": 1.0})


def _answered(p: Page) -> str:
    """Wait until the view has drawn its answer (or its error) to the last input."""
    p.page.wait_for_selector(
        f"{VIEW}[data-state=done], {VIEW}[data-state=error]", state="attached", timeout=30_000
    )
    p.settle()
    return p.page.get_attribute(VIEW, "data-state") or ""


def _post(server: str, path: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        server + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def _at(d: Any, path: str) -> Any:
    for part in path.split("."):
        d = d[int(part)] if isinstance(d, list) else d[part]
    return d


def _shown(text: str) -> float:
    """A shown figure ("$0.159", "5×", "1,158 B", "50.1 µs", "26,800 GB/s") in SI units."""
    t = text.strip().replace(",", "").replace("$", "").replace("×", "")
    number, _, unit = t.partition(" ")
    return float(number) * (UNITS[unit] if unit else 1.0)


def _check_figures(p: Page, panel: str, answer: dict[str, Any]) -> int:
    """Every figure of a panel (each carries its API key and exact value) equals the API's
    answer, and its text shows it to three significant figures."""
    figures = p.page.eval_on_selector_all(
        f"#econ_{panel} [data-key]",
        "els => els.map(e => [e.dataset.key, e.dataset.value, e.textContent])",
    )
    for key, value, text in figures:
        want = _at(answer, key)
        if isinstance(want, str):
            assert value == want == text, key
            continue
        assert float(value) == want, key
        assert _shown(text) == pytest.approx(want, rel=6e-3), (key, text)
    return len(figures)


def _ticks(p: Page, chart: str, axis: str) -> list[float]:
    """The values of an axis's tick labels as plotly wrote them: "100", "10k", "10<sup>−3</sup>"."""
    labels = p.page.eval_on_selector_all(
        f"#{chart} .{axis}tick text", "els => els.map(e => e.getAttribute('data-unformatted'))"
    )
    out = []
    for label in labels:
        m = re.fullmatch(r"10<sup>([−-]?\d+)</sup>", label)
        if m:
            out.append(10.0 ** int(m.group(1).replace("−", "-")))
            continue
        scale = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}.get(label[-1], 1.0)
        out.append(float(label.rstrip("kMGT").replace(",", "")) * scale)
    return out


def _greyed(p: Page, selector: str) -> bool:
    """Whether an element is shown greyed (faded and grey), as stale figures are."""
    style: list[str] = p.page.eval_on_selector(
        selector,
        "el => { const s = getComputedStyle(el); return [s.opacity, s.filter]; }",
    )
    return float(style[0]) < 1 and "grayscale" in style[1]


def test_economics_view(server: str, browser: Any, tmp_path: Path) -> None:
    p = Page(browser, server + URL)
    page = p.page
    # the bodies the page sends, seen on a reload (the view's inputs come back from the URL)
    sent: dict[str, dict[str, Any]] = {}

    def seen(request: Any) -> None:
        for panel, route in ROUTES.items():
            if request.url.endswith(route) and request.method == "POST":
                sent[panel] = json.loads(request.post_data or "{}")

    page.on("request", seen)
    page.reload()
    assert _answered(p) == "done", page.text_content(VIEW)
    assert set(sent) == set(ROUTES)

    # the requests: the deployment above with the view's own fields (no batch: nothing here
    # depends on it); the published prices by default (Anthropic's $3 / $15, cache read $0.30)
    dep = {"model": "llama-3.1-70b", "hardware": "h100-sxm", "chips": 8, "engine": "ideal"}
    for body in sent.values():
        assert dep.items() <= body.items() and "batch" not in body
    assert sent["pricing"]["input_price"] == 3 and sent["pricing"]["output_price"] == 15
    assert sent["pricing"]["cache_hit_price"] == 0.3 and sent["pricing"]["ratio"] == 600
    assert sent["pricing"]["long_context_threshold"] == 200_000
    assert sent["tiers"]["context_len"] == 100_000

    # every figure shown is the API's answer to those requests
    answers = {k: _post(server, ROUTES[k], body) for k, body in sent.items()}
    assert _check_figures(p, "pricing", answers["pricing"]) >= 15
    assert _check_figures(p, "tiers", answers["tiers"]) >= 15
    assert "8 × h100-sxm" in p.text("#econ_deployment")
    # counts in words, as the command line writes them: Llama 3.1 70B multiplies
    # 69,501,714,432 parameters per token -> "69.5 billion"; no number in exponent form
    text = page.text_content(VIEW) or ""
    assert "69.5 billion active parameters" in text
    assert not re.search(r"\d[eE][+-]\d", text), re.findall(r"\S*\d[eE][+-]\d\S*", text)

    # ... and the command line's for the same question
    cli = run_cli(
        "pricing",
        "--input-price", "3",
        "--output-price", "15",
        "--model", "llama-3.1-70b",
        "--hardware", "h100-sxm",
        "--chips", "8",
        "--engine", "ideal",
        "--context", str(sent["pricing"]["context_len"]),
        "--json",
    )  # fmt: skip
    floor = json.loads(cli.out)["cost_floor"]
    for k in ("usd_per_million_input_tokens", "usd_per_million_output_tokens", "batch"):
        shown = page.get_attribute(f'#econ_pricing [data-key="cost_floor.{k}"]', "data-value")
        assert float(shown or "nan") == pytest.approx(floor[k], rel=1e-12), k
    cli = run_cli(
        "cache-tiers",
        "--model", "llama-3.1-70b",
        "--hardware", "h100-sxm",
        "--chips", "8",
        "--context", "100000",
        "--engine", "ideal",
        "--json",
    )  # fmt: skip
    tiers = json.loads(cli.out)
    assert p.text("#econ_cheapest").startswith("cheapest: from 1 s: hbm")
    shown_tiers = page.eval_on_selector_all(
        '#econ_cheapest [data-key$=".tier"]', "els => els.map(e => e.textContent)"
    )
    runs = [c for i, c in enumerate(tiers["cheapest"]) if i == 0 or c != tiers["cheapest"][i - 1]]
    assert shown_tiers == runs

    # the charts draw the API's curves, on log axes ticked at powers of ten
    cost = answers["cost"]
    drawn = page.evaluate(
        "() => document.getElementById('econ_cost_chart').data.map(t => [t.name, t.y])"
    )
    assert drawn[0][1] == cost["usd_per_million_output_tokens"]
    assert drawn[1][1] == cost["usd_per_million_output_tokens_batch1"]
    assert any(name.startswith("price: $15") for name, _ in drawn)
    drawn = page.evaluate(
        "() => document.getElementById('econ_tiers_chart').data.map(t => [t.name, t.y])"
    )
    usd = answers["tiers"]["tiers"]
    assert [y for _, y in drawn[: len(usd)]] == [t["usd_per_million_tokens"] for t in usd.values()]
    assert any("cache-hit price $0.3" in name for name, _ in drawn)
    for chart in ("econ_cost_chart", "econ_tiers_chart"):
        for axis in ("x", "y"):
            kind = page.evaluate(
                f"() => document.getElementById('{chart}')._fullLayout.{axis}axis.type"
            )
            assert kind == "log", (chart, axis)
            ticks = _ticks(p, chart, axis)
            assert len(ticks) >= 3, (chart, axis, ticks)
            for v in ticks:
                assert math.log10(v) == pytest.approx(round(math.log10(v)), abs=1e-9), (chart, v)
    shoot(page, VIEW, "web_economics.png", tmp_path)

    # the URL carries the view's inputs: a change, a cleared default, a reload
    page.fill(f'{VIEW} [name="output_price"]', "10")
    page.fill(f'{VIEW} [name="cache_hit_price"]', "")
    assert _answered(p) == "done"
    assert "econ.output_price=10" in page.url and "econ.cache_hit_price=&" in page.url + "&"
    page.reload()
    assert _answered(p) == "done"
    values = {
        name: page.input_value(f'{VIEW} [name="{name}"]')
        for name in ("input_price", "output_price", "cache_hit_price", "ratio", "context_len")
    }
    assert values == {
        "input_price": "3",
        "output_price": "10",
        "cache_hit_price": "",
        "ratio": "600",
        "context_len": "100000",
    }
    assert page.locator('#econ_pricing [data-key="cache_hit.to_input"]').count() == 0
    assert p.text('#econ_pricing [data-key="output_to_input"]') == "3.33×"  # 10 ÷ 3
    names = page.evaluate("() => document.getElementById('econ_cost_chart').data.map(t => t.name)")
    assert any(name.startswith("price: $10 per M") for name in names), names

    # a change of the deployment above: every panel answers for the new one
    page.fill("#chips", "4")
    page.dispatch_event("#chips", "change")
    assert _answered(p) == "done"
    assert "4 × h100-sxm" in p.text("#econ_deployment")
    assert sent["pricing"]["chips"] == 4 and sent["tiers"]["chips"] == 4

    # a deployment the server refuses (tp 3 does not divide 4 chips): no figure here stands
    # for it, and the line says why; back to a good one, every panel answers again
    page.fill("#tp", "3")
    page.dispatch_event("#tp", "change")
    assert _answered(p) == "error"
    assert p.text("#econ_cost_error").startswith("the deployment above")
    assert "tp" in p.text("#econ_cost_error")
    # ... and the header, the last good deployment's, is greyed with the line naming the field
    refused = httpx.post(server + "/api/report", json={**dep, "chips": 4, "tp": 3}, timeout=30)
    assert refused.status_code == 400 and refused.json()["field"] == "tp"
    assert p.text("#econ_error") == "the deployment above: " + refused.json()["detail"]
    assert _greyed(p, "#econ_deployment") and _greyed(p, "#econ_pricing_out")
    page.fill("#tp", "")
    page.dispatch_event("#tp", "change")
    assert _answered(p) == "done" and p.text("#econ_cost_error") == ""
    assert p.text("#econ_error") == "" and not _greyed(p, "#econ_deployment")

    # a bad input: one line naming the field, the input marked; the other panels stand
    page.fill(f'{VIEW} [name="input_price"]', "-1")
    assert _answered(p) == "error"
    line = p.text("#econ_pricing_error")
    assert "input_price" in line and "\n" not in line, line
    assert "bad_field" in (page.get_attribute(f'{VIEW} [name="input_price"]', "class") or "")
    assert p.text("#econ_cost_error") == "" and p.text("#econ_tiers_error") == ""
    page.fill(f'{VIEW} [name="context_len"]', "0")
    assert _answered(p) == "error"
    assert "context_len" in p.text("#econ_tiers_error")
    page.fill(f'{VIEW} [name="input_price"]', "3")
    page.fill(f'{VIEW} [name="context_len"]', "")  # the deployment's context
    assert _answered(p) == "done"
    assert p.text("#econ_pricing_error") == "" and page.locator(f"{VIEW} .bad_field").count() == 0
    assert sent["tiers"]["context_len"] == sent["pricing"]["context_len"]
    p.close()


def test_economics_view_from_the_tabs(server: str, browser: Any) -> None:
    # opened on the deployment view, the economics view computes when it is first shown, for
    # the deployment above as it stands then
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&chips=1")
    page = p.page
    assert page.get_attribute(VIEW, "data-state") == "idle"
    page.click('nav#views a[data-view="economics"]')
    assert _answered(p) == "done"
    assert "view=economics" in page.url and page.is_visible(VIEW)
    assert p.text("#econ_deployment").startswith("llama-3.1-8b on 1 × h100-sxm")
    p.close()


def test_economics_header_follows_the_deployment_or_greys(server: str, browser: Any) -> None:
    """A deployment whose prices cannot be read (the model does not fit: /api/pricing refuses,
    /api/cost-vs-context answers) heads the view as it is, never as the last good one; a
    deployment no route answers (a bad field) greys the header with the line naming it; a
    bad field of the view's own is named in its panel, nothing asked with a default for it."""
    base = "/?view=economics&model=llama-3.1-8b&hardware=h100-sxm&chips=1&engine=ideal"
    p = Page(browser, server + base)
    page = p.page
    assert _answered(p) == "done"
    assert p.text("#econ_deployment").startswith("llama-3.1-8b on 1 × h100-sxm")

    # Llama 3.1 405B on one H100: no batch to price, a cost curve all the same
    page.select_option("#model", "llama-3.1-405b")
    assert _answered(p) == "error"
    dep = {"model": "llama-3.1-405b", "hardware": "h100-sxm", "chips": 1, "engine": "ideal"}
    cost = _post(server, ROUTES["cost"], dep)
    with pytest.raises(urllib.error.HTTPError) as e:
        prices = {"context_len": 4096, "input_price": 3, "output_price": 15}
        _post(server, ROUTES["pricing"], {**dep, **prices})
    refused = json.loads(e.value.read())
    head = f"llama-3.1-405b on 1 × h100-sxm ({cost['split']}), ideal: a floor"
    assert p.text("#econ_deployment").startswith(head), p.text("#econ_deployment")
    assert not _greyed(p, "#econ_deployment") and p.text("#econ_error") == ""
    assert p.text("#econ_pricing_error") == refused["detail"].replace("\n", " ")
    assert _greyed(p, "#econ_pricing_out")  # the 8B's price figures, greyed

    # chips that are no count: no route is asked, the header greyed, the field named
    page.select_option("#model", "llama-3.1-8b")
    assert _answered(p) == "done"
    asked = len(p.requests)
    page.fill("#chips", "two")
    assert _answered(p) == "error"
    line = p.text("#econ_error")
    assert line.startswith("the deployment above: chips must be a positive integer"), line
    assert "'two'" in p.text("#econ_error")
    assert _greyed(p, "#econ_deployment")
    assert page.input_value("#chips") == "two" and page.locator("#chips.bad_field").count() == 1
    assert not [u for u in p.requests[asked:] if "/api/" in u]
    page.fill("#chips", "1")
    assert _answered(p) == "done" and not _greyed(p, "#econ_deployment")

    # the view's own field: text kept, marked, named; pricing not asked; a size is a count
    asked = len([u for u in p.requests if u.endswith(ROUTES["pricing"])])
    page.fill(f'{VIEW} [name="input_price"]', "3$")
    page.fill(f'{VIEW} [name="context_len"]', "32k")
    assert _answered(p) == "error"
    assert p.text("#econ_pricing_error").startswith("input_price must be a number"), p.text(
        "#econ_pricing_error"
    )
    assert "'3$'" in p.text("#econ_pricing_error")
    assert page.locator(f'{VIEW} [name="input_price"].bad_field').count() == 1
    assert len([u for u in p.requests if u.endswith(ROUTES["pricing"])]) == asked
    tiers = _post(server, ROUTES["tiers"], {**dep, "model": "llama-3.1-8b", "context_len": 32768})
    shown = page.get_attribute('#econ_tiers [data-key="kv_bytes"]', "data-value")
    assert float(shown or "nan") == tiers["kv_bytes"]  # 32k = 32,768 tokens
    assert p.text("#econ_deployment").startswith("llama-3.1-8b on 1 × h100-sxm")
    p.close()
