"""Verbs `report`, `sweep` and `demo` (`llm_roofline.cli.cmd_report`): their parsers and
defaults (docs/cli.md), the sum `report` prints of the calibrated step's parts, and a real
`report` and `sweep` of Llama 3.1 8B on one H100 SXM under the ideal engine, worked by hand
from its config.json and the catalog (85.52 GB, 3.35 TB/s)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from llm_roofline.cli import cmd_report

from .verb_parsers import parser_of, refusal, run_verb

ADD = (cmd_report.add_report_parser, cmd_report.add_sweep_parser, cmd_report.add_demo_parser)
BW = 3.35e12
DEP = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--engine", "ideal"]
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # K and V, 32 layers, 8 KV heads of 128, 2 bytes: 131,072 B
STORED = 8_030_261_248  # Llama 3.1 8B's parameters (tests/cli/test_cmd_catalog.py)
READ_B1 = STORED - 128256 * 4096 + 4096  # batch 1 reads one row of the embedding table


def test_parsers_and_their_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    p = parser_of(*ADD)
    r = p.parse_args(["report", "--model", "m", "--hardware", "h"])
    assert (r.context, r.chips, r.out, r.engine, r.func) == (
        4096,
        1,
        None,
        "calibrated",
        cmd_report.cmd_report,
    )
    s = p.parse_args(["sweep", "--model", "m", "--hardware", "h"])
    # defaults: batch 1..1024 (2**0..2**10), context 1k..128k (2**10..2**17), chips 1
    assert s.batch == [2**i for i in range(11)]
    assert s.context == [2**i for i in range(10, 18)]
    assert s.chips == [1]
    assert p.parse_args(["sweep", "--model", "m", "--hardware", "h", "--chips", "1,8"]).chips == [
        1,
        8,
    ]
    assert p.parse_args(["demo"]).out == "out"
    line = refusal(cmd_report.add_sweep_parser, ["sweep", "--model", "m"], capsys)
    assert "the following arguments are required: --hardware" in line
    line = refusal(cmd_report.add_report_parser, ["report", *DEP, "--context", "0"], capsys)
    assert "argument --context: expected a positive integer, got '0'" in line


def test_the_parts_shown_add_up_to_the_total_shown() -> None:
    # 14.6 ms: three significant digits, one decimal; ideal 6.21 -> 6.2 and fixed 4.46 -> 4.5,
    # so the shortfall shown is 14.6 - 6.2 - 4.5 = 3.9 (its own 3.93 would not add up)
    p = {"engine_s": 14.6e-3, "ideal_s": 6.21e-3, "fixed_s": 4.46e-3}
    assert cmd_report._adding(p, 1e-3) == "6.2 + 3.9 + 4.5 = 14.6"
    p = {"engine_s": 3.333e-3, "ideal_s": 1.234e-3, "fixed_s": 1.234e-3}
    assert cmd_report._adding(p, 1e-3) == "1.23 + 0.87 + 1.23 = 3.33"  # 3.33 - 2 * 1.23
    p = {"engine_s": 0.1234, "ideal_s": 0.1234, "fixed_s": 0.0}
    assert cmd_report._adding(p, 1e-3) == "123 + 0 + 0 = 123"  # never "-0"


def test_report_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_verb(cmd_report.add_report_parser, ["report", *DEP, "--json"], capsys)
    assert code == 0
    r = json.loads(out)
    assert r["context_len"] == 4096 and r["engine"] == "ideal"
    # latency floor: each weight a token needs, read once, 2 bytes, at 3.35 TB/s
    assert r["latency_floor_s"] == pytest.approx(2 * READ_B1 / BW)
    assert r["all_weights_time_s"] == pytest.approx(2 * STORED / BW)  # 4.79 ms
    assert r["drain_time_s"] == pytest.approx(85.52e9 / BW)  # 25.5 ms
    # largest batch: (85.52e9 - 2 * 8,030,261,248) / (131,072 * 4,096) = 129.4 -> 129
    assert r["max_batch"] == int((85.52e9 - 2 * STORED) // (KV_TOKEN * 4096)) == 129
    row = r["rows"][0]
    assert row["batch"] == 1
    assert row["t_kv_s"] == pytest.approx(KV_TOKEN * 4096 / BW)
    assert row["t_step_s"] == pytest.approx(row["t_weights_s"] + row["t_kv_s"])  # memory-bound


def test_sweep_csv_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sweep", *DEP, "--batch", "1,2", "--context", "1k..2k"]
    code, out, _ = run_verb(cmd_report.add_sweep_parser, argv, capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 4  # 2 batches x 2 contexts (1,024 and 2,048) x 1 chip count
    for r in rows:
        batch, context = int(r["batch"]), int(r["context_len"])
        # KV read: batch * context * 131,072 B
        assert float(r["t_kv_s"]) == pytest.approx(batch * context * KV_TOKEN / BW)
        assert float(r["t_comm_s"]) == 0.0 and r["fits"] in ("True", "true")
    assert {(r["batch"], r["context_len"]) for r in rows} == {
        ("1", "1024"),
        ("1", "2048"),
        ("2", "1024"),
        ("2", "2048"),
    }
