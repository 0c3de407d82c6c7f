"""Verbs `validate`, `calibrate` and `measure` (`llm_roofline.cli.cmd_validation`): their
parsers' documented defaults, the helpers that name a measured model and show a metric, and
`measure`'s handler on a machine report made up here (torch and a real timing are
tests/validation/test_measure.py's), so what it prints and writes is checked by hand."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from llm_roofline.cli import cmd_validation
from llm_roofline.validation import measure
from llm_roofline.validation.measure import DecodePoint, MachineReport

from .verb_parsers import parse, refusal, run_verb

add = cmd_validation.add_parsers


def test_parsers_defaults_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    v = parse(add, ["validate"])
    # the ideal engine by default: the lower bound every row should be measured slower than
    assert (v.engine, v.cv, v.out, v.json, v.func) == (
        "ideal",
        False,
        None,
        False,
        cmd_validation.cmd_validate,
    )
    c = parse(add, ["calibrate"])
    assert (c.out, c.func) == (None, cmd_validation.cmd_calibrate)
    m = parse(add, ["measure"])
    assert (m.model, m.layers, m.dtype, m.device, m.hardware_id) == (
        "llama-3.1-8b",
        2,
        "fp32",
        "cpu",
        "this-machine",
    )
    assert (m.batch, m.context) == ([1, 4, 16], [128, 1024])
    m = parse(add, ["measure", "--batch", "1..64", "--context", "1k..8k"])
    assert m.batch == [1, 2, 4, 8, 16, 32, 64] and m.context == [1024, 2048, 4096, 8192]
    line = refusal(add, ["measure", "--device", "tpu"], capsys)
    assert "argument --device: invalid choice: 'tpu'" in line
    line = refusal(add, ["measure", "--layers", "0"], capsys)
    assert "argument --layers: expected a positive integer, got '0'" in line


def test_model_label_and_metric_value() -> None:
    assert cmd_validation._model_label("llama-3.1-8b") == "llama-3.1-8b"  # a catalog id
    assert cmd_validation._model_label("configs/tiny.json") == "tiny"  # a file: its stem
    assert cmd_validation._model_label("checkouts/Qwen3-8B") == "Qwen3-8B"  # a folder: its name
    # a time in the unit a person reads it in; a throughput to four significant digits
    assert cmd_validation._metric_value("tpot_s", 0.0241) == "24.1 ms"
    assert cmd_validation._metric_value("output_tokens_per_s", 1234.5678) == "1,235"


def _report() -> MachineReport:
    # a machine of 150 GB/s and 2 TFLOP/s whose steps took twice the time predicted
    points = [DecodePoint(1, 128, 2e-3, 1e-3), DecodePoint(4, 128, 4e-3, 3e-3)]
    return MachineReport("cpu", "a test CPU", "fp32", "2.0", 150e9, 2e12, "tiny", 2, points)


def test_measure_prints_and_writes_the_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    seen: dict[str, object] = {}

    def fake(model: str, **kw: object) -> MachineReport:
        seen.update(kw, model=model)
        return _report()

    monkeypatch.setattr(measure, "measure_machine", fake)
    rows = tmp_path / "rows.csv"
    argv = ["measure", "--model", "configs/tiny.json", "--batch", "1,4", "--context", "128"]
    code, out, err = run_verb(add, [*argv, "--save-rows", str(rows)], capsys)
    assert code == 0
    assert (seen["model"], seen["batches"], seen["contexts"]) == (
        "configs/tiny.json",
        [1, 4],
        [128],
    )
    # 150e9 B/s = 150.0 GB/s; 2e12 FLOP/s = 2.000 TFLOP/s
    assert "a test CPU (cpu, torch 2.0): memory 150.0 GB/s, fp32 matmul 2.000 TFLOP/s" in out
    assert "0.50" in out and "0.75" in out  # predicted / measured: 1/2 and 3/4
    assert f"wrote 2 validation rows to {rows}" in err
    with rows.open(newline="", encoding="utf-8") as fh:
        written = list(csv.DictReader(fh))
    assert [(r["model"], r["hardware"], r["batch"]) for r in written] == [
        ("tiny", "this-machine", "1"),
        ("tiny", "this-machine", "4"),
    ]
    assert float(written[1]["measured"]) == 4e-3 and written[0]["metric"] == "tpot_s"
