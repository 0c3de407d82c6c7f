"""One time, number and money format for the command line and the page: the page's
`LR.fmtTime`, `LR.cliNum` and `LR.fmtUsd` (web/static/common.js) write a table of values exactly
as the command line's `fmt_time`, `fmt_num` and `fmt_money` (cli/_format.py) do. The
JavaScript runs under node (skipped without it); common.js needs no page to define its formats,
only `document.body` to exist."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from llm_roofline.cli._format import fmt_money, fmt_num, fmt_time

COMMON = Path(__file__).resolve().parents[2] / "src/llm_roofline/web/static/common.js"
DAY = 86400.0

# every rung of the ladder, its edges, rounding up into the next digit, and a negative
TIMES = [
    0.0,
    3e-10,
    5e-7,
    9.995e-7,
    1.5e-6,
    0.0241,
    0.99996,
    1.0,
    59.9,
    60.0,
    1234.5,
    3599.0,
    3600.0,
    1.5 * DAY,
    2 * DAY,
    3e6,
    365 * DAY,
    4e10,
    -0.5,
]
NUMBERS = [0.0189, 5.19, 972.0, 1130.0, 1e-5, -3e-5, 0.00012345, 31_500_000.0, -2.5, 0.0]
# dollars: tiny (per token), cents, the three-digit range, its edge, whole dollars, negative
MONEY = [1.66e-7, 1.66e-5, -3.2e-5, 0.000123, 0.159, 0.5, 1.1, 3.99, 150.0, 999.4, 999.6]
MONEY += [1234.0, 27_930.0, 0.0, -2.5, -2000.0]


def _node(expr: str) -> list[str]:
    script = (
        "const vm = require('vm'), fs = require('fs');"
        "const ctx = vm.createContext({document: {body: {dataset: {}}}});"
        f"const code = fs.readFileSync({json.dumps(str(COMMON))}, 'utf8');"
        "const LR = vm.runInContext(code + ';LR', ctx);"
        f"console.log(JSON.stringify({expr}));"
    )
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout))


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@needs_node
def test_the_page_writes_times_as_the_command_line_does() -> None:
    page = _node(f"{json.dumps(TIMES)}.map((s) => LR.fmtTime(s))")
    assert page == [fmt_time(t) for t in TIMES]


@needs_node
def test_the_page_writes_figures_as_the_command_line_does() -> None:
    page = _node(f"{json.dumps(NUMBERS)}.map((v) => LR.cliNum(v))")
    assert page == [fmt_num(v) for v in NUMBERS]


@needs_node
def test_the_page_writes_money_as_the_command_line_does() -> None:
    page = _node(f"{json.dumps(MONEY)}.map((v) => LR.fmtUsd(v))")
    assert page == [fmt_money(v) for v in MONEY]


def test_money_by_hand() -> None:
    # the command line's own, never an exponent: the page is held to it above
    assert fmt_money(0.5) == "$0.5"
    assert fmt_money(999.6) == "$1,000"  # three digits would round to 1e+03
    assert fmt_money(27_930.0) == "$27,930"
    assert fmt_money(1.66e-7) == "$0.000000166"


def test_the_ladder_by_hand() -> None:
    # the command line's own: the page is held to it above
    assert fmt_time(3e-10) == "0.3 ns"  # below a µs: ns
    assert fmt_time(0.0241) == "24.1 ms"
    assert fmt_time(1.5 * DAY) == "36 h"  # hours below two days
    assert fmt_time(3e6) == "34.7 d"  # 3e6 / 86,400 = 34.72 days
    assert fmt_time(4e10) == "1,268 y"  # 4e10 / (365 · 86,400) = 1,268.4 years
    assert fmt_time(0.99996) == "1,000 ms"  # 999.96 ms to three digits, still in ms
