"""The page in a real browser: Debian's Chromium driven by Playwright against `serve` on
loopback. The deployment view follows every control (model, batch, engine, overlap, price,
split, chip, an upload) and keeps them in the URL; the compare view overlays two deployments;
the planning view simulates and plans; every chart is plotly's, readable (titled axes, log
axes at powers of ten, no label outside its chart or over another) and the page fetches
nothing from anywhere but the server. Expected numbers come from the API's own JSON or from
hand arithmetic."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.web_page import Page, params, shoot

DEPLOYMENT_CHARTS = ("c_batch", "c_context", "c_cost", "c_front")
COMPARE_CHARTS = ("cmp_batch", "cmp_context", "cmp_cost", "cmp_front")


def report(server: str, body: dict[str, Any]) -> dict[str, Any]:
    """The API's own answer for a body, to check the page against."""
    r = httpx.post(server + "/api/report", json=body, timeout=30)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_page_follows_model_and_batch(server: str, browser: Any) -> None:
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
    assert params(p.url())["model"] == "llama-3.1-70b" and params(p.url())["chips"] == "8"

    # the batch input holds the batch itself; the log slider follows it
    tps1 = p.text("#n_tps")
    page.fill("#batch", "256")
    p.settle()
    assert p.text("#n_batch") == "256" and params(p.url())["batch"] == "256"
    assert float(page.input_value("#batch_slider")) == pytest.approx(8.0)  # log2(256)
    assert p.text("#n_tps") != tps1 and p.text("#regime")
    # and the slider sets the batch: 2^5 sequences
    page.fill("#batch_slider", "5")
    p.settle()
    assert page.input_value("#batch") == "32" and p.text("#n_batch") == "32"
    assert params(p.url())["batch"] == "32"
    p.close()


def test_a_link_to_a_view_that_does_not_exist_says_so(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?view=bogus&model=llama-3.1-8b&hardware=h100-sxm")
    note = p.text("#view_note")
    assert note.startswith('view: no view "bogus"') and "fast-mode" in note, note
    assert p.page.get_attribute("body", "data-view") == "deployment"
    assert p.text("#error") == ""  # the deployment itself is fine
    p.page.click('nav#views a[data-view="economics"]')
    p.settle()
    assert p.text("#view_note") == "" and params(p.url())["view"] == "economics"
    p.close()


def test_the_url_holds_true_values_and_round_trips(server: str, browser: Any) -> None:
    given = {
        "model": "llama-3.1-70b",
        "hardware": "h100-sxm",
        "chips": "8",
        "weight_dtype": "fp8",
        "kv_dtype": "fp8",
        "context_len": "8192",
        "batch": "24",
        "engine": "vllm",
        "tp": "4",
        "replicas": "2",
        "overlap": "per-op",
        "price_usd_per_hour": "2.5",
        "pad_heads": "1",
        "chip.memory_bandwidth_tb_per_s": "4",
    }
    url = server + "/?" + "&".join(f"{k}={v}" for k, v in given.items())
    p = Page(browser, url)
    page = p.page
    # every control shows its key's value (each control's name is its API field and URL key)
    shown = p.controls()
    assert {k: shown[k] for k in given} == given
    assert page.locator("#chip_editor").get_attribute("open") is not None
    # the URL is as loaded: nothing added, nothing changed
    assert params(p.url()) == given
    # batch=24 means 24 sequences: the page shows the API's figures for batch 24
    assert p.text("#n_batch") == "24"
    chip = next(h for h in httpx.get(server + "/api/hardware").json() if h["id"] == "h100-sxm")
    rec = {**chip["record"], "memory_bandwidth_tb_per_s": 4.0}
    rec.update(id="h100-sxm-edited", name=rec["name"] + " (edited)")
    body = {
        "model": "llama-3.1-70b",
        "chip": rec,
        "chips": 8,
        "weight_dtype": "fp8",
        "kv_dtype": "fp8",
        "context_len": 8192,
        "batch": 24,
        "engine": "vllm",
        "tp": 4,
        "replicas": 2,
        "overlap": "per-op",
        "price_usd_per_hour": 2.5,
        "pad_heads": True,
    }
    want = report(server, body)
    assert want["at_batch"]["batch"] == 24 and "tp 4" in want["split"]
    assert p.seconds("step-s") == pytest.approx(want["at_batch"]["t_step_s"], rel=1e-12)
    assert p.text("#split") == want["split"]

    # a change of a control changes the URL, and a reload restores it
    page.fill("#batch", "48")
    page.select_option("#overlap", "none")
    p.settle()
    assert params(p.url()) == {**given, "batch": "48", "overlap": "none"}
    step = p.seconds("step-s")
    q = Page(browser, p.url())
    assert q.controls()["batch"] == "48" and q.controls()["overlap"] == "none"
    assert q.seconds("step-s") == step and params(q.url()) == params(p.url())
    q.close()
    p.close()


def test_engine_choice_moves_and_names_every_number(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    page = p.page
    # the default is the calibrated engine: ideal bound and estimate with its range side by side
    assert page.input_value("#engine") == "calibrated"
    head = p.text("#n_step")
    assert head.startswith("ideal ") and " · calibrated " in head and "–" in head, head
    assert "(calibrated)" in p.text("#l_tps") and "(calibrated)" in p.text("#l_usd")
    band = p.trace("c_batch", "calibrated range")
    assert band is not None and band["fill"] == "tonexty"
    ideal0, step0, tps0 = p.seconds("ideal-s"), p.seconds("step-s"), p.text("#n_tps")
    assert step0 > ideal0

    page.select_option("#engine", "vllm")
    p.settle()
    head = p.text("#n_step")
    assert " · vllm " in head and "calibrated" not in head, head
    assert "(vllm)" in p.text("#l_tps") and "vllm" in p.text("#n_engine_note")
    assert p.seconds("ideal-s") == ideal0  # the bound does not depend on the engine
    assert p.seconds("step-s") != step0 and p.text("#n_tps") != tps0
    assert p.points("vllm step") and params(p.url())["engine"] == "vllm"

    page.select_option("#engine", "ideal")
    p.settle()
    head = p.text("#n_step")
    assert head.startswith("ideal ") and "·" not in head, head
    assert p.seconds("step-s") == pytest.approx(ideal0, rel=1e-12)
    assert "(ideal)" in p.text("#l_tps")
    assert not [t for t in p.chart("c_batch")["traces"] if t["fill"]]  # no range band
    p.close()


def test_price_and_overlap_controls(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=1")
    page = p.page
    assert page.get_attribute("#price", "name") == "price_usd_per_hour"
    catalog = next(h for h in httpx.get(server + "/api/hardware").json() if h["id"] == "h100-sxm")
    usd0 = float(page.get_attribute("#n_usd", "data-usd") or "nan")
    # the cost of a token is the chips' price times the time: twice the price, twice the cost
    page.fill("#price", str(2 * catalog["price_usd_per_hour"]))
    p.settle()
    usd1 = float(page.get_attribute("#n_usd", "data-usd") or "nan")
    assert usd1 / usd0 == pytest.approx(2.0, rel=1e-9)
    assert params(p.url())["price_usd_per_hour"] == str(2 * catalog["price_usd_per_hour"])
    # a bad price: the server's message names the field, the input is marked
    page.fill("#price", "-1")
    p.settle()
    assert "price_usd_per_hour" in p.text("#error")
    assert "bad_field" in (page.get_attribute("#price", "class") or "")
    page.fill("#price", "")
    p.settle()
    assert p.text("#error") == "" and "price_usd_per_hour" not in params(p.url())

    # no overlap: the ideal step is the sum of its terms (the lecture's overlap takes the
    # larger of compute and memory); the terms are the API's
    full = report(
        server, {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 1, "engine": "ideal"}
    )["at_batch"]
    page.select_option("#overlap", "none")
    p.settle()
    want = full["t_compute_s"] + full["t_memory_s"] + full["t_comm_s"]
    assert p.seconds("ideal-s") == pytest.approx(want, rel=1e-9)
    assert p.seconds("ideal-s") > full["t_ideal_s"]
    assert params(p.url())["overlap"] == "none"
    p.close()


def test_chip_editor_doubles_memory_bandwidth(server: str, browser: Any) -> None:
    # llama-3.1-8b on one h100-sxm at batch 1 is memory-bound with no communication: the ideal
    # step is bytes / bandwidth, so twice the bandwidth is half the step
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=1")
    page = p.page
    assert p.text("#n_batch") == "1" and p.text("#n_bound") == "memory"
    page.click("#chip_editor summary")
    bw = page.locator('[name="chip.memory_bandwidth_tb_per_s"]')
    assert bw.input_value() == "3.35"  # filled from the catalog record
    ideal0, step0, chart0 = p.seconds("ideal-s"), p.seconds("step-s"), p.points("ideal step")

    bw.fill("6.7")
    p.settle()
    assert p.seconds("ideal-s") / ideal0 == pytest.approx(0.5, rel=0.01)
    assert p.seconds("step-s") < step0 and p.points("ideal step") != chart0
    assert "1 figure edited" in p.text("#chip_state")
    assert params(p.url())["chip.memory_bandwidth_tb_per_s"] == "6.7"

    # the link reproduces the view, edit included
    q = Page(browser, p.url())
    assert q.page.locator("#chip_editor").get_attribute("open") is not None
    assert q.page.input_value("#chip_memory_bandwidth_tb_per_s") == "6.7"
    assert q.seconds("ideal-s") == p.seconds("ideal-s") and q.text("#n_step") == p.text("#n_step")
    q.close()

    # reset returns to the catalog chip
    page.click("#chip_reset")
    p.settle()
    assert bw.input_value() == "3.35" and not any(k.startswith("chip.") for k in params(p.url()))
    assert p.seconds("ideal-s") == pytest.approx(ideal0, rel=1e-12)
    assert "catalog figures" in p.text("#chip_state")

    # another hardware refills the editor from its record
    page.select_option("#hardware", "a100-80gb")
    p.settle()
    assert bw.input_value() == "2.039"
    assert page.input_value("#chip_fp8_dense_tflops") == ""  # not in the catalog
    p.close()


def test_split_inputs_change_the_split(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-70b&hardware=h100-sxm&chips=8&batch=16")
    page = p.page
    auto = p.text("#split")
    assert "(auto)" in auto and "tp 8" in auto, auto

    p.fill_together({"#tp": "2", "#replicas": "4"})
    p.settle()
    split = p.text("#split")
    assert "tp 2" in split and "4 replicas" in split and split != auto, split
    assert params(p.url())["tp"] == "2" and params(p.url())["replicas"] == "4"
    page.check("#pad_heads")
    p.settle()
    assert params(p.url())["pad_heads"] == "1"

    # a split that does not divide the chips: the server's message, the last view kept (greyed)
    p.fill_together({"#tp": "3", "#replicas": ""})
    p.settle()
    assert "does not divide" in p.text("#error")
    assert p.text("#split") == split and p.points("ideal step")
    assert "stale" in (page.get_attribute("body", "class") or "")
    # the regime line (what bounds the step, whether it fits) is the last view's too: greyed
    # like the numbers beside it
    regime = page.eval_on_selector(
        "#regime", "el => { const s = getComputedStyle(el); return [s.opacity, s.filter]; }"
    )
    assert float(regime[0]) < 1 and "grayscale" in regime[1], regime

    page.fill("#tp", "")
    page.uncheck("#pad_heads")
    p.settle()
    assert p.text("#split") == auto and p.text("#error") == ""
    assert "tp" not in params(p.url()) and "pad_heads" not in params(p.url())
    p.close()


def test_bad_chip_field_is_named(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    page = p.page
    page.click("#chip_editor summary")
    step0 = p.text("#n_step")
    for field, value in [
        ("memory_bandwidth_tb_per_s", "0"),
        ("memory_bandwidth_tb_per_s", ""),
        ("memory_bandwidth_tb_per_s", "-2"),
        ("scale_up_domain_chips", "0"),
    ]:
        if page.is_enabled("#chip_reset"):  # one bad figure at a time
            page.click("#chip_reset")
        page.fill(f"#chip_{field}", value)
        # the edit's request leaves after the page's debounce: wait for its answer, not only
        # for the page to be idle (it may be idle before the debounced request has gone out)
        page.wait_for_function(
            "(f) => (document.querySelector('#error').textContent || '').includes(f)",
            arg=field,
            timeout=60_000,
        )
        p.settle()
        assert field in p.text("#error"), (field, value, p.text("#error"))
        assert "bad_field" in (page.get_attribute(f"#chip_{field}", "class") or "")
        assert p.text("#n_step") == step0  # the last good view stays (greyed), never a blank
    page.click("#chip_reset")
    p.settle()
    assert p.text("#error") == ""
    p.close()


def _upload(p: Page, path: Path) -> None:
    p.page.set_input_files("#upload", str(path))
    p.page.wait_for_timeout(50)
    p.settle()


def test_upload_state_cannot_mislead(server: str, browser: Any, tmp_path: Path) -> None:
    from llm_roofline.model.checkpoints import model_entry

    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    page = p.page
    # a good config.json: its name in the selector and the URL, the API's figures for it
    cfg = {**model_entry("qwen3-8b").config, "_name_or_path": "someone/my-qwen"}
    good = tmp_path / "config.json"
    good.write_text(json.dumps(cfg))
    _upload(p, good)
    assert page.input_value("#model") == "upload:my-qwen"
    assert "uploaded: my-qwen" in p.text("#model option:checked")
    assert params(p.url())["model"] == "upload:my-qwen"
    want = report(server, {"model": "my-qwen", "config": cfg, "hardware": "h100-sxm", "batch": 16})
    assert p.seconds("step-s") == pytest.approx(want["at_batch"]["t_step_s"], rel=1e-12)
    assert p.text("#error") == ""

    # a config the server refuses: the field named, the numbers and charts cleared
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"model_type": "llama", "_name_or_path": "broken"}))
    _upload(p, bad)
    assert "hidden_size" in p.text("#error"), p.text("#error")
    assert p.text("#n_step") == "–" and p.text("#n_tps") == "–" and p.text("#split") == "–"
    for c in DEPLOYMENT_CHARTS:
        shown = p.chart(c)
        assert shown["plotted"] == "empty" and not shown["traces"], c
        assert "no result" in shown["text"] and "hidden_size" in shown["text"]
    assert "bad_field" in (page.get_attribute("#upload", "class") or "")
    assert params(p.url())["model"] == "upload:broken"

    # a file that is not JSON: said so, nothing shown
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    _upload(p, junk)
    assert "not JSON" in p.text("#error") and p.text("#n_step") == "–"

    # the link of an upload, reloaded without the file: says to choose it again, shows no
    # other model's figures and asks the server for none
    q = Page(browser, server + "/?model=upload:my-qwen&hardware=h100-sxm&batch=16")
    assert "choose the file again" in q.text("#error")
    assert q.page.input_value("#model") == "upload:my-qwen"
    assert q.text("#n_step") == "–" and q.chart("c_batch")["plotted"] == "empty"
    assert not [u for u in q.requests if u.endswith("/api/report")]
    assert params(q.url())["model"] == "upload:my-qwen"
    # choosing the file again shows it
    _upload(q, good)
    assert q.seconds("step-s") == pytest.approx(want["at_batch"]["t_step_s"], rel=1e-12)
    # a catalog model from the list: its figures, the upload kept on the list
    q.page.select_option("#model", "llama-3.1-8b")
    q.settle()
    assert q.text("#error") == "" and q.text("#n_step") != "–"
    assert params(q.url())["model"] == "llama-3.1-8b"
    assert q.page.locator('#model option[value="upload:my-qwen"]').count() == 1
    q.close()
    p.close()


def test_report_warnings_are_shown(server: str, browser: Any) -> None:
    """The report may carry `warnings` (a config of an unknown model_type): the page shows
    them. The server's answer is passed through with a warning added."""
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    page = p.page
    assert p.text("#warnings") == ""

    def add_warning(route: Any) -> None:
        res = route.fetch()
        body = res.json()
        body["warnings"] = ["model_type 'mystery' is not known: read as a Llama"]
        route.fulfill(response=res, json=body)

    page.route("**/api/report", add_warning)
    page.fill("#batch", "17")
    p.settle()
    assert "model_type 'mystery' is not known" in p.text("#warnings")
    page.unroute("**/api/report")
    page.fill("#batch", "18")
    p.settle()
    assert p.text("#warnings") == ""
    p.close()


def test_deployment_charts_are_readable_and_marked(server: str, browser: Any) -> None:
    for url in (
        "/?model=llama-3.1-8b&hardware=h100-sxm&batch=24",
        "/?model=deepseek-v3&hardware=gb200&chips=72&weight_dtype=fp8&batch=2048",
    ):
        p = Page(browser, server + url)
        shown = p.controls()
        body = {k: shown[k] for k in ("model", "hardware", "weight_dtype")}
        want = report(server, {**body, "chips": int(shown["chips"]), "batch": int(shown["batch"])})
        charts = {c: p.readable(c) for c in DEPLOYMENT_CHARTS}
        b, ctx, cost = charts["c_batch"], charts["c_context"], charts["c_cost"]
        assert b["x"]["type"] == "linear" and ctx["x"]["type"] == "log" == ctx["y"]["type"]
        assert cost["x"]["type"] == "log" == cost["y"]["type"]
        assert charts["c_front"]["x"]["type"] == "log" == charts["c_front"]["y"]["type"]
        assert "ms" in b["y"]["title"] and "batch" in b["x"]["title"]
        assert "$" in cost["y"]["title"]
        # the lecture's markers: B*, the latency floor, the balanced context, what fits
        assert any(a.startswith("B* ") for a in b["annotations"]), b["annotations"]
        assert any(a.startswith("latency floor") for a in b["annotations"])
        assert any(a.startswith("balanced context") for a in ctx["annotations"])
        fit = want["max_batch"]
        assert any("does not fit" in a for a in b["annotations"])
        # the batch axis ends near what fits (the API's largest batch), not at B*'s multiple
        assert fit < b["x"]["range"][1] <= max(1.5 * fit, 1.2 * want["at_batch"]["batch"], 20)
        # the chart's mode bar saves it as PNG and as SVG
        buttons = " ".join(b or "" for b in cost["buttons"]).lower()
        assert "png" in buttons and "svg" in buttons, buttons
        # the ideal step drawn is the API's, in ms
        ideal = p.trace("c_batch", "ideal step")
        assert ideal is not None
        sb = want["step_vs_batch"]
        api = dict(zip(sb["batch"], sb["t_ideal_s"], strict=True))
        for x, y in zip(ideal["x"], ideal["y"], strict=True):
            assert y == pytest.approx(api[x] * 1e3, rel=1e-12)
        if "deepseek" in url:
            # attention is a visible share of compute at 4,096 tokens: the matmuls alone are
            # drawn, and B* (of the whole split, the API's) is where they cross the weight fetch
            mm, w = p.trace("c_batch", "matmul (no attention)"), p.trace("c_batch", "weights")
            assert mm is not None and w is not None
            bstar = want["balance_batch"]
            below = [i for i, x in enumerate(mm["x"]) if x < 0.95 * bstar]
            above = [i for i, x in enumerate(mm["x"]) if 1.05 * bstar < x < 1.3 * bstar]
            assert below and above
            assert all(mm["y"][i] < w["y"][i] for i in below)
            assert all(mm["y"][i] > w["y"][i] for i in above)
        p.close()


def test_compare_view_overlays_two_deployments(server: str, browser: Any, tmp_path: Path) -> None:
    url = (
        "/?view=compare&model=llama-3.1-8b&hardware=h100-sxm&chips=1&batch=16"
        "&b.hardware=mi300x&b.weight_dtype=fp8"
    )
    p = Page(browser, server + url)
    page = p.page
    assert page.is_visible("#view_compare") and not page.is_visible("#view_deployment")
    shown = p.controls("#b_controls")
    assert shown["b.hardware"] == "mi300x" and shown["b.weight_dtype"] == "fp8"
    assert shown["b.chips"] == "" and shown["b.engine"] == ""
    assert params(p.url())["b.hardware"] == "mi300x" and params(p.url())["view"] == "compare"
    # every chart: A and B, each a series of its own
    for c in COMPARE_CHARTS:
        names = [t["name"] for t in p.readable(c)["traces"] if t["legend"]]
        assert any(n.startswith("A: ") for n in names), (c, names)
        assert any(n.startswith("B: ") for n in names), (c, names)
    # the headline numbers as a difference, from the API's own figures for A and B
    a = report(server, {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 16})
    b = report(
        server,
        {"model": "llama-3.1-8b", "hardware": "mi300x", "batch": 16, "weight_dtype": "fp8"},
    )
    assert "mi300x" in p.text('#cmp_table td[data-key="deployment_b"]')
    for key in ("tokens_per_s", "usd_per_million_tokens", "t_step_s"):
        va, vb = a["at_batch"][key], b["at_batch"][key]
        cell = page.get_attribute(f'#cmp_table tr[data-key="{key}"] td.diff', "data-diff")
        assert float(cell or "nan") == pytest.approx((vb - va) / va, rel=1e-9), key
    shoot(page, "main", "web_compare.png", tmp_path)
    # a chart saved as SVG from its mode bar
    page.hover("#cmp_cost .nsewdrag")
    with page.expect_download() as got:
        page.click('#cmp_cost .modebar-btn[data-title="Download plot as SVG"]')
    svg = Path(got.value.path()).read_text()
    assert svg.startswith("<svg") and "B: calibrated" in svg

    # a change of B's inputs: in the URL, and a reload restores it
    page.fill("#b_chips", "2")
    p.settle()
    assert params(p.url())["b.chips"] == "2"
    assert "2 × mi300x" in p.text('#cmp_table td[data-key="deployment_b"]')
    q = Page(browser, p.url())
    assert q.controls("#b_controls")["b.chips"] == "2" and params(q.url()) == params(p.url())
    assert q.text("#cmp_table") == p.text("#cmp_table")
    q.close()

    # a bad override names the field; A stays
    page.fill("#b_tp", "3")
    p.settle()
    assert "tp" in p.text("#cmp_error") and p.text("#cmp_error").startswith("B:")
    assert "bad_field" in (page.get_attribute("#b_tp", "class") or "")
    assert "h100-sxm" in p.text('#cmp_table td[data-key="deployment_a"]')
    page.fill("#b_tp", "")
    p.settle()
    assert p.text("#cmp_error") == ""

    # A follows the controls at the top
    page.select_option("#weight_dtype", "fp8")
    p.settle()
    assert "fp8 weights" in p.text('#cmp_table td[data-key="deployment_a"]')
    p.close()


def test_the_page_loads_nothing_from_the_internet(server: str, browser: Any) -> None:
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    for view in ("compare", "planning", "economics", "sensitivity", "fast-mode", "deployment"):
        p.page.click(f'nav#views a[data-view="{view}"]')
        p.settle()
        assert params(p.url()).get("view", "deployment") == view
        assert p.page.is_visible(f'section.view[data-view="{view}"]')
    assert any(u.endswith("/static/vendor/plotly.min.js") for u in p.requests)
    assert p.foreign(server) == [], p.foreign(server)
    p.close()

    # the API's docs: Swagger UI, every asset from the server
    d = browser.new_page()
    asked: list[str] = []
    d.on("request", lambda r: asked.append(r.url))
    d.goto(server + "/docs")
    d.wait_for_selector(".opblock", timeout=20_000)
    assert d.locator(".opblock").count() >= 8  # the operations are drawn
    assert "Unable to render" not in (d.text_content("body") or "")
    assert asked and all(u.startswith(server + "/") for u in asked), asked
    d.close()


def test_screenshot(server: str, browser: Any, tmp_path: Path) -> None:
    """The view in the README: DeepSeek-V3 on an NVL72 rack of GB200."""
    p = Page(
        browser,
        server + "/?model=deepseek-v3&hardware=gb200&chips=72&weight_dtype=fp8&batch=2048",
    )
    assert "ep 72" in p.text("#split") and "calibrated" in p.text("#n_step")
    p.page.wait_for_timeout(200)
    shoot(p.page, "body", "web.png", tmp_path)
    p.close()


# ---- what a newcomer reads: sizes, notes, definitions ----------------------------------------


def test_context_and_batch_read_sizes_as_the_command_line_does(server: str, browser: Any) -> None:
    """ "32k" in the context is 32,768 tokens, as `--context 32k` on the command line (binary
    k, units.parse_count): the URL holds the true number and the figures are the API's for it.
    Text that is no count is one line naming the field, never a different number."""
    from llm_roofline._core.units import parse_count

    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    page = p.page
    for sel in ("#context", "#batch"):
        assert page.get_attribute(sel, "inputmode") == "numeric"
    page.fill("#context", "32k")
    p.settle()
    assert params(p.url())["context_len"] == "32768"
    want = report(
        server, {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 16, "context_len": 32768}
    )
    assert p.seconds("step-s") == pytest.approx(want["at_batch"]["t_step_s"], rel=1e-12)
    assert any(a == "context 32,768" for a in p.chart("c_context")["annotations"])
    page.dispatch_event("#context", "change")  # once left, the field shows the number
    assert page.input_value("#context") == "32768"
    # the batch too: 1.5k sequences are 1,536, the slider at log2(1536)
    page.fill("#batch", "1.5k")
    p.settle()
    assert params(p.url())["batch"] == "1536" and p.text("#n_batch") == "1,536"
    # thousands separators
    page.fill("#batch", "2,048")
    p.settle()
    assert params(p.url())["batch"] == "2048" and p.text("#n_batch") == "2,048"
    # not a count: the field named, the input marked, no request made with another number
    step = p.text("#n_step")
    asked = len(p.requests)
    page.fill("#context", "32x")
    p.settle()
    assert p.text("#error").startswith("context_len must be a positive integer"), p.text("#error")
    assert "bad_field" in (page.get_attribute("#context", "class") or "")
    assert not [u for u in p.requests[asked:] if u.endswith("/api/report")]
    assert p.text("#n_step") == step and "stale" in (page.get_attribute("body", "class") or "")
    page.fill("#context", "1.1k")  # 1,126.4 tokens: not whole
    p.settle()
    assert "context_len" in p.text("#error")
    page.fill("#context", "4096")
    p.settle()
    assert p.text("#error") == "" and params(p.url())["context_len"] == "4096"
    # a link may carry a size: shown, and the URL rewritten, as the number
    q = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&context_len=16k&batch=1k")
    assert q.page.input_value("#context") == "16384" and q.page.input_value("#batch") == "1024"
    assert params(q.url())["context_len"] == "16384" and params(q.url())["batch"] == "1024"
    q.close()
    # Llama 4 Scout's whole context, 10M (10,485,760: its config's max_position_embeddings),
    # as its users write it: read, asked for and answered, not refused
    q = Page(browser, server + "/?model=llama-4-scout&hardware=b200&chips=8&batch=1")
    q.page.fill("#context", "10M")
    q.settle()
    assert params(q.url())["context_len"] == "10485760", q.text("#error")
    assert q.text("#error") == "" and q.seconds("step-s") > 0
    q.close()
    # the page's reading is the command line's, case by case
    cases = [
        "4096",
        "32k",
        "32K",
        "1M",
        "1m",
        "2G",
        "1.5k",
        "0.5k",
        "1e3",
        "16_384",
        "+8",
        "1.5e3k",
        " 64 ",
        "32x",
        "0",
        "-4",
        "1.1k",
        "k",
        "",
        "1e-1",
        "nan",
        "0x10",
        ".",
    ]
    for text in cases:
        try:
            want_n: int | None = parse_count(text)
        except Exception:
            want_n = None
        got = page.evaluate(
            "(t) => { try { return LR.count(t, 'context_len'); } catch (e) { return null; } }", text
        )
        assert got == want_n, (text, got, want_n)
    p.close()


def test_an_empty_frontier_and_a_misfit_say_why_in_the_pages_words(
    server: str, browser: Any
) -> None:
    """Llama 3.1 70B in q4_k_m on 2 × RTX 4090 at 32,768 tokens: the chip has a price, nothing
    fits. The frontier says nothing fits (the API's note), not "no price"; the fit line names
    the page's control (KV cache TYPE), not the command line's flag; the markers' labels sit
    above the plots, where no curve crosses them."""
    url = (
        "/?model=llama-3.1-70b&hardware=rtx-4090&chips=2&weight_dtype=q4_k_m"
        "&context_len=32768&batch=1"
    )
    p = Page(browser, server + url)
    want = report(
        server,
        {
            "model": "llama-3.1-70b",
            "hardware": "rtx-4090",
            "chips": 2,
            "weight_dtype": "q4_k_m",
            "context_len": 32768,
            "batch": 1,
        },
    )
    assert want["frontier"] is None and want["frontier_note"]
    front = p.chart("c_front")
    assert front["plotted"] == "empty" and "no price" not in front["text"]
    assert "not one sequence fits" in front["text"] and "32,768" in front["text"]
    # the library's line names a flag (--kv-dtype TYPE); the page names its control instead
    flag = re.search(r"--kv-dtype (\S+?),", want["at_batch"]["fit_message"])
    assert flag, want["at_batch"]["fit_message"]
    fit = p.text("#fit")
    assert "--" not in fit and f"KV cache {flag.group(1)}" in fit, fit
    for c in ("c_batch", "c_context", "c_cost"):
        shown = p.readable(c)
        assert shown["markers"], c
    ctx = p.chart("c_context")
    assert {"does not fit in memory", "context 32,768"} <= {m["text"] for m in ctx["markers"]}
    # the speed and cost cards are what the batch would get if it fit: greyed and said so
    for card in ("n_step", "n_tps", "n_tpu", "n_usd"):
        num = f".num:has(#{card})"
        assert "nofit" in (p.page.get_attribute(num, "class") or ""), card
        style = p.page.eval_on_selector(
            f"#{card}", "el => { const s = getComputedStyle(el); return [s.opacity, s.filter]; }"
        )
        assert float(style[0]) < 1 and "grayscale" in style[1], (card, style)
        assert "if it fit" in p.page.eval_on_selector(
            f"{num} > span", "el => getComputedStyle(el, '::after').content"
        )
    # one chip's worth of a model that fits (8B at 4,096 tokens): no card is marked
    p.page.select_option("#model", "llama-3.1-8b")
    p.page.fill("#context", "4096")
    p.settle()
    assert p.page.locator("#numbers .num.nofit").count() == 0
    p.close()
    # DeepSeek-V3 at batch 256: its marker near the axis's start stays inside the plot's sides
    p = Page(
        browser, server + "/?model=deepseek-v3&hardware=gb200&chips=72&weight_dtype=fp8&batch=256"
    )
    for c in DEPLOYMENT_CHARTS:
        p.readable(c)
    assert any(m["text"] == "batch 256" for m in p.chart("c_batch")["markers"])
    p.close()


def test_price_zero_is_hardware_you_own(server: str, browser: Any) -> None:
    """Price 0, as `--price 0`: no $ figure, and the page says why where each would be."""
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    page = p.page
    page.fill("#price", "0")
    p.settle()
    assert p.text("#error") == "" and params(p.url())["price_usd_per_hour"] == "0"
    assert p.text("#n_usd") == "–" and "hardware you own" in p.text("#n_usd_note")
    for c in ("c_cost", "c_front"):
        shown = p.chart(c)
        assert shown["plotted"] == "empty" and "hardware you own" in shown["text"], c
    assert p.text("#n_tps") != "–" and p.points("ideal step")  # the times stay
    # the compare view's $ row says so too
    page.click('nav#views a[data-view="compare"]')
    p.settle()
    row = p.text('#cmp_table tr[data-key="usd_per_million_tokens"]')
    assert "–" in row and "hardware you own" in row, row
    p.close()


def test_a_context_beyond_the_trained_maximum_is_warned_and_drawn(
    server: str, browser: Any
) -> None:
    """Llama 3.1 8B at 200k (204,800) tokens, trained to 131,072: the command line's warning
    under the controls, and the step-vs-context chart's axis reaching the chosen context."""
    import math

    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=1")
    p.page.fill("#context", "200k")
    p.settle()
    assert "context 204,800 is beyond the model's trained maximum (131,072)" in p.text("#warnings")
    c = p.readable("c_context")
    assert c["x"]["range"][1] >= math.log10(204_800)
    assert "context 204,800" in c["annotations"]
    # zoomed to 1,000-5,000 tokens (under one decade), the ticks follow: 1k, 2k, 5k
    p.page.evaluate("() => Plotly.relayout('c_context', {'xaxis.range': [3, Math.log10(5000)]})")
    p.page.wait_for_function(
        "() => (document.getElementById('c_context')._fullLayout.xaxis.ticktext || [])"
        ".join() === '1k,2k,5k'"
    )
    p.page.fill("#context", "4096")
    p.settle()
    assert p.text("#warnings") == ""
    p.close()


def test_the_lectures_figures_are_defined(server: str, browser: Any) -> None:
    """B*, the latency floor and the balanced context each carry their definition, on the card
    (a line and a tooltip with a "?") and on the chart marker's hover; the throughput is named
    for the whole batch, beside a user's tokens/s (the API's figures)."""
    p = Page(browser, server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=16")
    page = p.page
    want = report(server, {"model": "llama-3.1-8b", "hardware": "h100-sxm", "batch": 16})
    cards = {
        "#n_bstar": "matmul time equals weight-fetch time",
        "#n_floor": "all weights read once at full bandwidth",
        "#n_bctx": "KV fetch takes as long as its matmuls",
    }
    for sel, words in cards.items():
        card = page.locator(".num", has=page.locator(sel))
        assert words in (card.text_content() or ""), sel
        assert card.get_attribute("title") and card.locator("abbr.q").count() == 1, sel
    assert p.text("#n_bctx") == f"{round(want['balanced_context']):,} tokens"
    assert "all sequences" in p.text(".num:has(#n_tps) span")
    per_user = float(p.text("#n_tpu"))
    assert per_user == pytest.approx(want["at_batch"]["tokens_per_s_per_user"], rel=2e-3)
    assert per_user == pytest.approx(1 / want["at_batch"]["t_step_s"], rel=2e-3)
    hovers = {
        "c_batch": ("B* ", "matmul time equals its weight-fetch time"),
        "c_context": ("balanced context", "KV-cache fetch takes as long as its matmuls"),
    }
    for chart, (label, words) in hovers.items():
        m = next(m for m in p.chart(chart)["markers"] if m["text"].startswith(label))
        assert words in m["hover"].replace("<br>", " "), (chart, m)
    floor = page.evaluate(
        "() => document.getElementById('c_batch')._fullLayout.annotations"
        ".find((a) => a.text.startsWith('latency floor')).hovertext"
    )
    assert "read once at full memory bandwidth" in floor.replace("<br>", " ")
    # hovering the B* label shows its definition (the mode bar, shown on hover, clear of it)
    page.locator("#c_batch g.annotation", has_text="B* ").hover(timeout=5000)
    page.wait_for_function(
        "() => document.querySelector('#c_batch .hoverlayer').textContent.includes('B*')"
    )
    assert "weight-fetch time" in p.text("#c_batch .hoverlayer")
    p.close()


# ---- the planning view ---------------------------------------------------------------------


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
    # a plan simulates many fleets: on a loaded 2-core machine it can take minutes, so wait for
    # the answer itself (playwright's 30 s default timed out there), bounded at 5 minutes
    page.wait_for_selector(f"#planning[{attr}=done], #planning[{attr}=error]", timeout=300_000)
    p.settle()
    return page.get_attribute("#planning", attr) or ""


def _points(p: Page, chart: str, name: str) -> int:
    t = p.trace(chart, name)
    return 0 if t is None else len([y for y in t["y"] if y is not None])


def test_planning_view_inputs_round_trip_in_the_url(server: str, browser: Any) -> None:
    given = {
        "view": "planning",
        "model": "llama-3.1-8b",
        "p.rate": "7",
        "p.input_len": "256",
        "p.length_dist": "lognormal",
        "p.tpot_p99_ms": "35",
        "p.requests": "300",
        "p.disagg": "1:2",
        "p.seed": "4",
        "p.router": "least-loaded",
        "p.hardware": "h100-sxm,mi300x",
        "p.max_chips": "16",
        "p.plan_disagg": "no",
    }
    p = Page(browser, server + "/?" + "&".join(f"{k}={v}" for k, v in given.items()))
    page = p.page
    shown = {f"p.{k}": v for k, v in p.controls("#planning").items()}
    assert shown["p.rate"] == "7" and shown["p.input_len"] == "256"
    assert shown["p.length_dist"] == "lognormal" and shown["p.tpot_p99_ms"] == "35"
    assert shown["p.requests"] == "300"
    # Simulate's seed (the plan's first draw's is its own, p.plan_seed)
    assert page.input_value('#planning [name="seed"][data-for="sim"]') == "4"
    assert shown["p.router"] == "least-loaded" and shown["p.max_chips"] == "16"
    assert shown["p.hardware"] == "h100-sxm,mi300x"
    assert page.input_value('#planning [name="disagg"][data-for="sim"]') == "1:2"
    assert page.input_value('#planning [name="disagg"][data-for="plan"]') == "no"
    # loaded as given: the planning keys unchanged (the deployment's own keys added)
    now = params(p.url())
    assert {k: now[k] for k in given} == given
    assert not [k for k in now if k.startswith("p.") and k not in given]
    # a change is written; a reload restores it
    page.fill('#planning [name="output_len"]', "96")
    page.select_option('#planning select[name="hardware"]', ["l40s"])
    assert params(p.url())["p.output_len"] == "96" and params(p.url())["p.hardware"] == "l40s"
    q = Page(browser, p.url())
    assert q.controls("#planning")["output_len"] == "96"
    assert q.controls("#planning")["hardware"] == "l40s"
    assert params(q.url()) == params(p.url())
    q.close()
    # back to a default: the key goes
    page.fill('#planning [name="output_len"]', "128")
    assert "p.output_len" not in params(p.url())
    p.close()


def test_the_plan_costs_the_price_set_above_and_shows_its_whole_table(
    server: str, browser: Any
) -> None:
    """Price 0.5 $/chip-hour for the H100 at the top (an eighth of the catalog's): a plan is
    costed at it (the H100 fleet's $/hour is its chips × 0.5, hand arithmetic), and the view
    says which price each chip is costed at; the fleets' table takes its own height, each fleet
    on one line."""
    p = Page(
        browser,
        server
        + "/?view=planning&model=llama-3.1-70b&hardware=h100-sxm&batch=4&price_usd_per_hour=0.5",
    )
    page = p.page
    # the view's defaults: 20 requests/s, 512 and 128 tokens, TTFT p90 200 ms, TPOT p99 20 ms,
    # up to 64 chips (some 17 fleets on the frontier)
    page.select_option('#planning select[name="hardware"]', ["h100-sxm", "mi300x"])
    assert "the price set above" in p.text('#planning option[value="h100-sxm"]')
    assert _run(p, "plan") == "done", p.text("#p_error")
    prices = p.text("#plan_prices")
    assert "h100-sxm $0.5 per chip-hour (the price set above)" in prices, prices
    assert "mi300x" in prices and "the catalog's" in prices, prices
    assert p.text('#plan_best td[data-key="hardware"]') == "h100-sxm"
    chips = int(p.text('#plan_best td[data-key="chips"]'))
    cost = p.text('#plan_best td[data-key="usd_per_hour"]')
    assert float(cost.split()[0].lstrip("$")) == pytest.approx(chips * 0.5, rel=1e-2), cost
    box = page.evaluate(
        """() => { const t = document.getElementById("plan_table"), box = t.parentElement;
          const rows = [...t.rows].map((r) => r.getBoundingClientRect().height);
          return { clipped: box.scrollHeight > box.clientHeight + 1, rows,
            line: parseFloat(getComputedStyle(t).fontSize) }; }"""
    )
    assert len(box["rows"]) >= 3 and not box["clipped"], box
    assert max(box["rows"]) < 2 * box["line"], box  # no fleet wraps onto a second line
    # price 0 at the top (hardware you own): a plan cannot cost it, and says so
    page.fill("#price", "0")
    p.settle()
    assert _run(p, "plan") == "error"
    assert "prices" in p.text("#p_error") and "hardware you own" in p.text("#p_error")
    p.close()


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
        c = p.readable(f"c_sim_{m}")
        assert c["y"]["type"] == "log" and any(a.startswith("offered") for a in c["annotations"])
    assert _points(p, "c_sim_queue", "running") > 10
    assert _points(p, "c_sim_kv", "KV memory used") > 10
    for c in ("c_sim_queue", "c_sim_kv"):
        p.readable(c)
    shoot(page, "#planning", "web_simulate.png", tmp_path)

    # a bad rate: the server's message names the field, the input is marked, and the charts
    # say there is no result (neither blank nor the last run's)
    page.fill('#planning [name="rate"]', "-1")
    assert _run(p, "sim") == "error"
    assert "rate" in p.text("#p_error"), p.text("#p_error")
    assert "bad_field" in (page.get_attribute('#planning [name="rate"]', "class") or "")
    shown = p.chart("c_sim_ttft")
    assert not shown["traces"] and "no result" in shown["text"]
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

    # an unstable traffic: said so; the percentiles are those of the requests simulated (as
    # vllm bench serve reports a finite run above capacity), and the head says they grow with
    # the run's length
    page.fill('#planning [name="rate"]', "500")
    page.fill('#planning [name="requests"]', "2000")
    assert _run(p, "sim") == "done"
    assert p.text("#sim_stable") == "UNSTABLE" and "grows without bound" in p.text("#sim_head")
    assert "those of the requests simulated" in p.text("#sim_head")
    assert p.text('#sim_table td[data-key="ttft_p99_s"]') not in ("–", "", "NaN")

    # a change of this view's own inputs (the traffic) marks the result as outdated; typing
    # the value it ran on back clears the mark
    page.fill('#planning [name="rate"]', "400")
    assert "outdated" in (page.get_attribute("#sim_out", "class") or "")
    assert "changed since this result" in p.text("#p_status")
    page.fill('#planning [name="rate"]', "500")
    assert "outdated" not in (page.get_attribute("#sim_out", "class") or "")
    assert "changed since" not in p.text("#p_status")
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
    assert _points(p, "c_plan", "best") == 1
    c = p.readable("c_plan")
    assert c["x"]["type"] == "log" == c["y"]["type"]
    assert any(a.startswith("TPOT p99 target") for a in c["annotations"])
    assert page.locator("#plan_table tr").count() >= 2  # header and the fleets simulated
    shoot(page, "#planning", "web_plan.png", tmp_path)
    # issue 27 §6, §7: each draw, where the best stands, its command; Simulate takes its fleet
    assert "seed 0" in p.text('#plan_best td[data-key="draws"]')
    assert "binding" in p.text('#plan_best td[data-key="margins"]')
    assert p.text('#plan_best td[data-key="simulate_command"]').startswith("llm-roofline simulate")
    chips = p.text('#plan_best td[data-key="chips"]')
    # the button fills the fleet in and simulates it (tests/web/test_page_plan_fleet_e2e.py)
    page.click("#plan_use")
    assert page.input_value("#chips") == chips.replace(",", "")
    page.wait_for_selector(
        "#planning[data-sim-state=done], #planning[data-sim-state=error]", timeout=300_000
    )
    p.settle()
    assert page.get_attribute("#planning", "data-sim-state") == "done", p.text("#p_error")

    # two chips, one of which loses without a simulation: named, with why (at 20 requests/s
    # four RTX 4090s, $1.36/hour, meet both targets; any H100 fleet costs at least $3.99/hour)
    for name, value in (("rate", "20"), ("ttft_p90_ms", "300"), ("tpot_p99_ms", "40")):
        page.fill(f'#planning [name="{name}"]', value)
    page.fill('#planning [name="max_chips"]', "16")
    page.select_option('#planning select[name="hardware"]', ["h100-sxm", "rtx-4090"])
    # the list shows four chips at a time: what is chosen is also written under it
    assert p.text("#p_hw_chosen") == "chosen: h100-sxm, rtx-4090"
    assert _run(p, "plan") == "done", p.text("#p_error")
    assert p.text('#plan_best td[data-key="hardware"]') == "rtx-4090"
    lost = p.text('#plan_best td[data-lost="h100-sxm"]')
    assert lost.startswith("its cheapest fleet able to carry 20 requests/s costs at least"), lost
    page.select_option('#planning select[name="hardware"]', ["h100-sxm"])
    for name, value in (("rate", "10"), ("ttft_p90_ms", "500"), ("tpot_p99_ms", "50")):
        page.fill(f'#planning [name="{name}"]', value)
    page.fill('#planning [name="max_chips"]', "8")

    # no fleet of 8 H100s decodes a token in 0.1 ms: the reason, not a plan
    page.fill('#planning [name="tpot_p99_ms"]', "0.1")
    assert _run(p, "plan") == "done"
    assert p.text("#plan_verdict") == "no fleet meets the targets"
    assert "tpot" in p.text('#plan_best td[data-key="reason"]').lower()
    assert _points(p, "c_plan", "best") == 0

    # no hardware chosen: the server names the field
    page.select_option('#planning select[name="hardware"]', [])
    assert p.text("#p_hw_chosen") == "none chosen"
    assert _run(p, "plan") == "error" and "hardware" in p.text("#p_error")
    assert "bad_field" in (page.get_attribute('#planning select[name="hardware"]', "class") or "")
    p.close()
