"""The page in a real browser: Debian's Chromium driven by Playwright against `serve` on
loopback. It loads, draws, and follows a change of model and of batch."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

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
        pytest.fail("the server did not start: " + proc.stderr.read().decode()[-500:])
    yield url
    proc.terminate()
    proc.wait(timeout=10)


def test_page_follows_model_and_batch(server: str, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is needed (make test installs it with apt-get)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
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
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server + "/?model=llama-3.1-8b&hardware=h100-sxm&batch=4")
        page.wait_for_selector("body[data-ready]")
        step0 = page.text_content("#n_step")
        chart0 = page.get_attribute("#c_batch polyline[data-name=step]", "points")
        assert step0 and step0 != "–" and chart0

        # another model: the numbers and the chart change, and the URL carries the state
        ready = page.get_attribute("body", "data-ready")
        page.select_option("#model", "llama-3.1-70b")
        page.fill("#chips", "8")
        page.dispatch_event("#chips", "change")
        page.wait_for_function(f"document.body.dataset.ready !== '{ready}'")
        page.wait_for_timeout(300)
        step1 = page.text_content("#n_step")
        chart1 = page.get_attribute("#c_batch polyline[data-name=step]", "points")
        assert step1 != step0 and chart1 != chart0
        assert "model=llama-3.1-70b" in page.url and "chips=8" in page.url

        # a bigger batch: the step time at the batch and the tokens/s change
        ready = page.get_attribute("body", "data-ready")
        tps1 = page.text_content("#n_tps")
        page.fill("#batch", "8")  # 2^8 = 256 sequences
        page.dispatch_event("#batch", "input")
        page.wait_for_function(f"document.body.dataset.ready !== '{ready}'")
        page.wait_for_timeout(300)
        assert page.text_content("#batch_out") == "256"
        assert page.text_content("#n_tps") != tps1
        assert page.text_content("#regime")

        # a bad upload says so on the page
        bad = tmp_path / "bad.json"
        bad.write_text("{not json")
        page.set_input_files("#upload", str(bad))
        page.wait_for_function("document.getElementById('error').textContent.length > 0")
        assert "not JSON" in page.text_content("#error")

        shot = os.environ.get("LLM_ROOFLINE_SCREENSHOT", str(tmp_path / "web.png"))
        page.set_input_files("#upload", [])
        page.select_option("#model", "deepseek-v3")
        page.select_option("#hardware", "gb200")
        page.fill("#chips", "72")
        page.select_option("#weight_dtype", "fp8")
        page.fill("#batch", "11")
        ready = page.get_attribute("body", "data-ready")
        page.dispatch_event("#batch", "input")
        page.wait_for_function(f"document.body.dataset.ready !== '{ready}'")
        page.wait_for_timeout(300)
        page.screenshot(path=shot, full_page=True)
        assert Path(shot).stat().st_size > 20_000
        assert not errors, errors
        browser.close()
