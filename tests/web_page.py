"""The browser tests' shared parts (a plugin of conftest.py): the server (`serve` on loopback),
Debian's Chromium driven by Playwright, and `Page`, a page that records script errors and
waits until the answer to the last input is drawn. Every view's test file uses these."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llm_roofline.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/api/hardware", timeout=1)
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        err = proc.stderr.read().decode() if proc.stderr else ""
        pytest.fail("the server did not start: " + err[-500:])
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is needed (make test installs it with apt-get)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


class Page:
    """A page on the server that records script errors; `settle` waits until the answer to
    the last input is drawn (the page keeps body[data-busy] set until then)."""

    def __init__(self, browser: Any, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 1000})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready]")
        self.settle()

    def settle(self) -> None:
        self.page.wait_for_function("!document.body.dataset.busy")

    def text(self, selector: str) -> str:
        return self.page.text_content(selector) or ""

    def seconds(self, which: str) -> float:
        """The exact value behind the headline: `ideal-s` or `step-s`."""
        return float(self.page.get_attribute("#n_step", f"data-{which}") or "nan")

    def points(self, name: str) -> str | None:
        points: str | None = self.page.get_attribute(
            f'#c_batch polyline[data-name="{name}"]', "points"
        )
        return points

    def close(self) -> None:
        assert not self.errors, self.errors
        self.page.close()


def shoot(page: Any, selector: str, name: str, tmp_path: Path) -> Path:
    """A screenshot of one element: into docs/figures/NAME under `make screenshot` (which sets
    LLM_ROOFLINE_SCREENSHOT to a file in that folder), else into the test's tmp_path."""
    import os

    folder = os.environ.get("LLM_ROOFLINE_SCREENSHOT")
    shot = Path(folder).parent / name if folder else tmp_path / name
    page.locator(selector).screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000, f"{name}: a blank screenshot"
    return shot
