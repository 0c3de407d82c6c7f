"""Shared helpers for the tests: small hand-made models and chips whose numbers are easy to
check by hand, and `run_cli`, the command line run in this process."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any

import pytest

from llm_roofline import Chip, ModelSpec, spec_from_config

# the browser tests' server, browser and page (tests/web/web_page.py)
pytest_plugins = ["tests.web.web_page"]


def llama_like(**over: Any) -> dict[str, Any]:
    """A small Llama-style config.json (gated MLP, GQA, untied embeddings)."""
    cfg: dict[str, Any] = {
        "model_type": "llama",
        "hidden_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "intermediate_size": 4096,
        "vocab_size": 1000,
        "tie_word_embeddings": False,
        "max_position_embeddings": 8192,
    }
    cfg.update(over)
    return cfg


# a 2-layer Llama-style model small enough to run for real on a CPU in a fraction of a second
# (tests/validation/test_measure.py, and `measure` in tests/cli/test_commands.py)
TINY_CONFIG: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 688,
    "vocab_size": 1000,
    "tie_word_embeddings": False,
}


def make_chip(
    flops: float = 1e15, bw: float = 1e12, mem: float = 80e9, price_per_hour: float = 3.6
) -> Chip:
    """A chip with round numbers: 1 PFLOP/s bf16, 1 TB/s, 80 GB, $3.60 per hour = $0.001/s."""
    return Chip(
        id="test-chip",
        name="test chip",
        peak_flops={"bf16": flops, "fp8": 2 * flops},
        memory_bytes=mem,
        memory_bw=bw,
        power_w=1000.0,
        price_usd_per_s=price_per_hour / 3600.0,
    )


@pytest.fixture
def small_model() -> ModelSpec:
    return spec_from_config(llama_like(), name="small")


@pytest.fixture
def chip() -> Chip:
    return make_chip()


# ---- the command line, in this process ---------------------------------------------------------


@dataclass(frozen=True)
class CliRun:
    """What one `llm-roofline` command gave: its exit code and everything it printed."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    @property
    def err_lines(self) -> list[str]:
        return [ln for ln in self.err.splitlines() if ln.strip()]


def run_cli(*argv: str) -> CliRun:
    """Run `llm-roofline ARGV` in this process through `llm_roofline.cli.main`, the function the
    installed command calls, capturing what it prints. argparse's errors raise SystemExit(2)
    after printing their one line; that is the exit code a user sees. (Standard streams are
    redirected here rather than with capsys so that module-scoped fixtures can run commands.)"""
    from llm_roofline.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return CliRun(int(code), out.getvalue(), err.getvalue())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that drives the page (the `browser` fixture of tests/web/web_page.py) is marked
    `browser`: `make test-browser` runs those, `make test` the rest."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
