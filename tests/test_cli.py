"""The command line as a user runs it: real processes, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "llm_roofline.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60)


def test_demo_runs(tmp_path: Path) -> None:
    r = run("demo", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "DeepSeek-V3 on 72 × gb200" in r.stdout
    assert "latency floor" in r.stdout and "balance batch B*" in r.stdout
    assert "nan" not in r.stdout.lower()


def test_decode_json_is_machine_readable() -> None:
    r = run("report", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["hardware"] == "h100-sxm" and out["rows"][0]["batch"] == 1
    # batches are powers of two up to the largest that fits, which is the last row
    batches = [row["batch"] for row in out["rows"]]
    assert batches[-1] == out["max_batch"] and batches == sorted(batches)
    for row in out["rows"]:
        assert row["t_step_s"] >= max(row["t_compute_s"], row["t_weights_s"] + row["t_kv_s"])


def test_decode_accepts_a_config_path(tmp_path: Path) -> None:
    from llm_roofline.catalog import model_entry

    p = tmp_path / "my-model.json"
    p.write_text(json.dumps(model_entry("qwen3-8b").config))
    r = run("report", "--model", str(p), "--hardware", "l40s", "--json")
    assert r.returncode == 0, r.stderr


def test_listings() -> None:
    r = run("models", "--json")
    assert r.returncode == 0
    assert any(m["id"] == "deepseek-v3" for m in json.loads(r.stdout))
    r = run("hardware")
    assert r.returncode == 0 and "rubin" in r.stdout and "announced" in r.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("report", "--model", "llama-3.1-7b", "--hardware", "h100-sxm"), "unknown model"),
        (("report", "--model", "llama-3.1-8b", "--hardware", "h100"), "closest: h100-"),
        (
            ("report", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--chips", "0"),
            "--chips",
        ),
        (
            ("report", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--context", "-5"),
            "--context",
        ),
        (
            (
                "report",
                "--model",
                "llama-3.1-8b",
                "--hardware",
                "h100-sxm",
                "--weight-dtype",
                "fp7",
            ),
            "unknown data type",
        ),
        (("report", "--model", "/no/such/config.json", "--hardware", "h100-sxm"), "no such file"),
        (
            ("report", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--modle", "x"),
            "unrecognized arguments: --modle",
        ),
        (("frobnicate",), "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines and message in lines[-1]
    assert lines[-1].startswith("llm-roofline: error:")


def test_not_json_config(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text("{oops")
    r = run("report", "--model", str(p), "--hardware", "h100-sxm")
    assert r.returncode == 2 and "not valid JSON" in r.stderr and "Traceback" not in r.stderr
