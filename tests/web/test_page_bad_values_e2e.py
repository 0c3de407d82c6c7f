"""Bad values in a real browser (Debian's Chromium, Playwright, `serve` on loopback): a value
that a link carries, or that is typed, and that is no number (or no entry of a list) stays in
its control as it is, marked `bad_field`, and one line names the field and what it allows, on
every view. Nothing is computed from a default put in its place: the page asks the API nothing
with it (or sends it as it is, for the server to name). Sizes read as the command line reads
them (32k = 32,768). Expected lines come from the API's JSON or are written by hand."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.web.web_page import Page, params

GOOD = {
    "model": "llama-3.1-8b",
    "hardware": "h100-sxm",
    "chips": "1",
    "batch": "16",
    "context_len": "4096",
}


def _query(extra: str) -> str:
    """A good deployment's query with `extra` ("key=value&..."), whose keys win (a key given
    twice would be read at its first)."""
    from urllib.parse import parse_qsl, urlencode

    mine = dict(parse_qsl(extra, keep_blank_values=True))
    return urlencode({**GOOD, **mine}, safe=":,")


COUNT = (
    "must be a positive integer (or a size like 16k or 1M; k = 1,024, M = 1,048,576: 16k = 16,384)"
)


class Recorder(Page):
    """A page that also records the JSON body of each POST to the API, by route."""

    def __init__(self, browser: Any, url: str) -> None:
        self.sent: dict[str, list[dict[str, Any]]] = {}
        super().__init__(browser, url)

    def goto(self, url: str) -> None:
        if not hasattr(self, "_hooked"):  # before the first load: its requests are the test
            self._hooked = True
            self.page.on("request", self._seen)
        super().goto(url)

    def _seen(self, request: Any) -> None:
        if request.method == "POST" and "/api/" in request.url:
            route = "/api/" + request.url.split("/api/", 1)[1]
            self.sent.setdefault(route, []).append(json.loads(request.post_data or "{}"))

    def bodies(self, route: str) -> list[dict[str, Any]]:
        return self.sent.get(route, [])


def _server_line(server: str, route: str, body: dict[str, Any]) -> str:
    """The one line the page makes of the API's 4xx for `body` (LR.errorLine's rule)."""
    r = httpx.post(server + route, json=body, timeout=30)
    assert 400 <= r.status_code < 500, r.text
    d = r.json()
    if isinstance(d["detail"], str):
        return d["detail"] if d["field"] in d["detail"] else f"{d['field']}: {d['detail']}"
    first = d["detail"][0]
    loc = ".".join(str(x) for x in first["loc"] if x != "body")
    return f"{loc}: {_plain(first['msg'])}"


def _plain(msg: str) -> str:
    """The schema library's bound wording as the page words it (written out here, not taken
    from the page): 'Input should be greater than or equal to 1' -> 'must be at least 1'."""
    import re

    for pattern, words in (
        (r"^Input should be greater than or equal to (\S+)$", "must be at least"),
        (r"^Input should be less than or equal to (\S+)$", "must be at most"),
        (r"^Input should be greater than (\S+)$", "must be above"),
        (r"^Input should be less than (\S+)$", "must be below"),
    ):
        m = re.match(pattern, msg)
        if m:
            n = float(m.group(1))
            return f"{words} {int(n):,}" if n == int(n) else f"{words} {n:,}"
    return msg


def _marked(p: Page, selector: str) -> bool:
    return "bad_field" in (p.page.get_attribute(selector, "class") or "")


# ---- the deployment view: the controls at the top -------------------------------------------

# (URL key, value, the control, the line the page must show: by hand)
PAGE_REFUSES = [
    ("batch", "-3", "#batch", f"batch {COUNT}, got '-3'"),
    ("context_len", "zz", "#context", f"context_len {COUNT}, got 'zz'"),
    ("chips", "abc", "#chips", f"chips {COUNT}, got 'abc'"),
    ("tp", "x2", "#tp", f"tp {COUNT}, got 'x2'"),
    (
        "price_usd_per_hour",
        "cheap",
        "#price",
        "price_usd_per_hour must be a number, at least 0, got 'cheap'",
    ),
]


@pytest.mark.parametrize(("key", "value", "control", "line"), PAGE_REFUSES)
def test_a_bad_link_value_of_the_controls_is_named_and_asks_nothing(
    server: str, browser: Any, key: str, value: str, control: str, line: str
) -> None:
    p = Recorder(browser, f"{server}/?" + _query(f"{key}={value}"))
    page = p.page
    assert p.text("#error") == line
    assert page.input_value(control) == value and _marked(p, control)
    assert params(p.url())[key] == value  # the link still says what it said
    assert not p.bodies("/api/report")  # no deployment asked for with a default in its place
    assert p.text("#n_step") == "–" and p.chart("c_batch")["plotted"] == "empty"
    p.close()


# (URL key, value, the control): a list's entry it lacks, sent as it is for the server to name
SERVER_NAMES = [
    ("engine", "bogus", "#engine"),
    ("overlap", "sometimes", "#overlap"),
    ("hardware", "h999", "#hardware"),
]


@pytest.mark.parametrize(("key", "value", "control"), SERVER_NAMES)
def test_a_link_value_not_on_a_list_is_kept_for_the_server_to_name(
    server: str, browser: Any, key: str, value: str, control: str
) -> None:
    p = Recorder(browser, f"{server}/?" + _query(f"{key}={value}"))
    page = p.page
    sent = p.bodies("/api/report")
    assert sent and sent[-1][key] == value  # never the list's first entry in its place
    assert p.text("#error") == _server_line(server, "/api/report", sent[-1])
    assert key in p.text("#error")
    assert page.input_value(control) == value and _marked(p, control)
    assert value in p.text(f"{control} option:checked")
    p.close()


def test_sizes_in_a_link_still_read_as_counts(server: str, browser: Any) -> None:
    p = Recorder(
        browser, f"{server}/?" + _query("view=fast-mode&context_len=32k&fast.max_chips=1k")
    )
    p.page.wait_for_selector('section[id="view_fast-mode"][data-state="done"]', timeout=30_000)
    p.settle()
    body = p.bodies("/api/fast-mode")[-1]
    assert body["context_len"] == 32 * 1024 and body["max_chips"] == 1024
    assert p.text("#error") == "" and not p.page.locator(".bad_field").count()
    p.close()


# ---- the what-if views -----------------------------------------------------------------------


def _whatif_error(p: Page, section: str) -> str:
    p.settle()
    p.page.wait_for_selector(f'section[id="{section}"][data-state="error"]', timeout=30_000)
    return p.text(f'section[id="{section}"] .werror')


@pytest.mark.parametrize(
    ("query", "section", "name", "value", "line"),
    [
        (
            "view=sensitivity&sens.step_pct=abc",
            "view_sensitivity",
            "step_pct",
            "abc",
            "step_pct must be a number from 0.1 to 100, got 'abc'",
        ),
        (
            "view=sensitivity&sens.tpot_ms=fast",
            "view_sensitivity",
            "tpot_ms",
            "fast",
            "tpot_ms must be a number of ms above 0 (empty: no target), got 'fast'",
        ),
        (
            "view=fast-mode&fast.speedup=zz",
            "view_fast-mode",
            "speedup",
            "zz",
            "speedup must be a number from 1 to 1000, got 'zz'",
        ),
        (
            "view=fast-mode&fast.max_chips=0",
            "view_fast-mode",
            "max_chips",
            "0",
            f"max_chips {COUNT}, got '0'",
        ),
    ],
)
def test_a_bad_link_value_of_a_whatif_view_is_named_and_asks_nothing(
    server: str, browser: Any, query: str, section: str, name: str, value: str, line: str
) -> None:
    p = Recorder(browser, f"{server}/?" + _query(query))
    page = p.page
    assert _whatif_error(p, section) == line
    field = f'section[id="{section}"] [name="{name}"]'
    assert page.input_value(field) == value and _marked(p, field)
    route = "/api/" + section.removeprefix("view_")
    assert not p.bodies(route)  # not asked with the default in its place
    assert page.locator(f'section[id="{section}"] .wchart').count() == 0
    p.close()


def test_a_whatif_link_value_out_of_range_is_named_by_the_server(server: str, browser: Any) -> None:
    p = Recorder(browser, f"{server}/?" + _query("view=fast-mode&fast.speedup=0"))
    page = p.page
    line = _whatif_error(p, "view_fast-mode")
    sent = p.bodies("/api/fast-mode")
    assert sent and sent[-1]["speedup"] == 0
    assert line == _server_line(server, "/api/fast-mode", sent[-1])
    assert line.startswith("speedup: ")
    assert _marked(p, '#view_fast-mode [name="speedup"]')
    assert page.locator("#fast_chart").count() == 0
    p.close()


def test_a_bad_policy_in_a_link_is_named(server: str, browser: Any) -> None:
    p = Recorder(browser, f"{server}/?" + _query("view=sensitivity&sens.policy=biggest"))
    page = p.page
    line = _whatif_error(p, "view_sensitivity")
    assert line == "policy must be one of given, largest, target, got 'biggest'"
    assert page.input_value("#sens_policy") == "biggest" and _marked(p, "#sens_policy")
    assert not p.bodies("/api/sensitivity")
    page.select_option("#sens_policy", "largest")
    p.page.wait_for_selector('section[id="view_sensitivity"][data-state="done"]', timeout=60_000)
    p.settle()
    assert p.text("#view_sensitivity .werror") == "" and "sens.policy=largest" in p.url()
    p.close()


def test_a_whatif_view_says_the_deployment_above_is_bad(server: str, browser: Any) -> None:
    p = Recorder(browser, f"{server}/?" + _query("view=sensitivity&batch=-3"))
    line = _whatif_error(p, "view_sensitivity")
    assert line == f"the deployment above: batch {COUNT}, got '-3'"
    assert _marked(p, "#batch") and not p.bodies("/api/sensitivity")
    p.close()


# ---- the compare, planning and economics views ----------------------------------------------


def test_compare_names_a_bad_link_value_of_b(server: str, browser: Any) -> None:
    p = Recorder(browser, f"{server}/?" + _query("view=compare&b.chips=two"))
    page = p.page
    assert p.text("#cmp_error") == f"B: chips {COUNT}, got 'two'"
    assert page.input_value("#b_chips") == "two" and _marked(p, "#b_chips")
    assert all(b["chips"] == 1 for b in p.bodies("/api/report"))  # A only: no B asked
    assert not any(t["name"].startswith("B:") for t in p.chart("cmp_batch")["traces"])
    p.close()
    # a hardware B's list lacks: sent as it is, named by the server
    p = Recorder(browser, f"{server}/?" + _query("view=compare&b.hardware=h999"))
    page = p.page
    p.page.wait_for_function("document.getElementById('cmp_error').textContent !== ''")
    p.settle()
    b = next(x for x in p.bodies("/api/report") if x.get("hardware") == "h999")
    assert p.text("#cmp_error") == "B: " + _server_line(server, "/api/report", b)
    assert page.input_value("#b_hardware") == "h999" and _marked(p, "#b_hardware")
    p.close()


def test_planning_names_a_bad_link_value_before_any_run(server: str, browser: Any) -> None:
    p = Recorder(browser, f"{server}/?" + _query("view=planning&p.rate=lots&p.input_len=2k"))
    page = p.page
    field = '#planning [name="rate"]'
    assert p.text("#p_error") == "rate must be a number, at least 0, got 'lots'"
    assert page.input_value(field) == "lots" and _marked(p, field)
    page.click("#sim_run")
    page.wait_for_selector("#planning[data-sim-state=error]")
    p.settle()
    assert not p.bodies("/api/simulate")  # not simulated at the default rate
    assert p.text("#p_error") == "rate must be a number, at least 0, got 'lots'"
    assert p.chart("c_sim_ttft")["plotted"] == "empty"
    # mended: the simulation runs, with the size read as a count
    page.fill(field, "5")
    assert p.text("#p_error") == "" and not _marked(p, field)
    page.click("#sim_run")
    page.wait_for_selector("#planning[data-sim-state=done]", timeout=60_000)
    p.settle()
    body = p.bodies("/api/simulate")[-1]
    assert body["rate"] == 5 and body["input_len"] == 2048
    p.close()


def test_economics_names_a_bad_link_value(server: str, browser: Any) -> None:
    p = Recorder(browser, f"{server}/?" + _query("view=economics&econ.ratio=high"))
    page = p.page
    p.page.wait_for_selector("#view_economics[data-state=error]", timeout=30_000)
    p.settle()
    assert p.text("#econ_pricing_error") == "ratio must be a number, at least 0, got 'high'"
    assert page.input_value('#view_economics [name="ratio"]') == "high"
    assert _marked(p, '#view_economics [name="ratio"]')
    assert not p.bodies("/api/pricing")  # not priced at the chip's ratio in its place
    assert p.bodies("/api/cache-tiers")  # the other panels stand
    assert p.text("#econ_tiers_error") == ""
    p.close()


@pytest.mark.parametrize(
    ("body", "line"),
    [
        # the API's schema limits (web/schemas.py: chips >= 1, context_len <= 2^24), in the
        # page's words with the limit written as a count
        ({"chips": 0}, "chips: must be at least 1"),
        ({"context_len": 2**24 + 1}, "context_len: must be at most 16,777,216"),
        ({"batch": 1.5}, "batch: must be a whole number"),
        ({"surprise": 1}, "surprise: is not a field this request takes"),
    ],
)
def test_the_servers_refusals_read_in_the_pages_words(
    server: str, browser: Any, body: dict, line: str
) -> None:
    """The server's 4xx for a schema limit, as the page words it (LR.errorLine on the real
    answer of POST /api/report): the field, then what it must be, never the schema library's
    'Input should be greater than or equal to 1'."""
    p = Page(browser, server + "/?" + _query(""))
    got = p.page.evaluate(
        """async (extra) => {
            const body = { model: "llama-3.1-8b", hardware: "h100-sxm", ...extra };
            const { status, data } = await LR.api("/api/report", body);
            return [status, LR.errorLine(data, status)];
        }""",
        body,
    )
    assert got == [422, line], got
    p.close()
