"""docs/economics.md quotes command output: re-run each command and find its lines there."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import run_cli

DOC = (Path(__file__).resolve().parents[2] / "docs" / "economics.md").read_text()


@pytest.mark.parametrize(
    "args",
    [
        "pricing --input-price 3 --output-price 15",
        "pricing --input-price 3 --output-price 15 --model llama-3.1-70b --hardware h100-sxm "
        "--chips 8 --engine ideal",
        "pricing --input-price 3 --output-price 15 --long-context-threshold 200000 "
        "--long-input-price 6 --long-output-price 22.5 --active-params 1e11 --ratio 600",
        "pricing --input-price 3 --output-price 15 --long-context-threshold 200000 "
        "--ratio 600 --model llama-3.1-70b --chips 8 --engine ideal",
        "pricing --input-price 3 --output-price 15 --long-context-threshold 200000 "
        "--ratio 600 --active-params 1e11 --model llama-3.1-70b --chips 8 --engine ideal",
        "cache-tiers --model llama-3.1-70b --hardware h100-sxm --chips 8 --context 100000 "
        "--engine ideal",
        "cache-tiers --model llama-3.1-70b --hardware h100-sxm --context 100000 --engine ideal",
        "balance --tokens-per-s 5e7 --days 60 --active-params 1e11",
    ],
)
def test_quoted_output_is_current(args: str) -> None:
    run = run_cli(*args.split())
    assert run.code == 0, run.err
    out = run.out
    # a warning the doc quotes (a model that does not fit) must be the command's own
    for ln in run.err.splitlines():
        assert ln.strip() in DOC, ln
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    # prose lines (not the rich table's box drawing, not the catalog table)
    quoted = [ln for ln in lines if ln[0] not in "┏┃┡│└" and "catalog models" not in ln]
    quoted = [ln for ln in quoted if not ln.startswith(("implied figure", "┏"))]
    assert quoted
    for ln in quoted[:4]:
        assert ln in DOC, ln
