"""A short run of the fuzzer in benchmarks/fuzz.py (`make fuzz` runs 100,000 of each kind):
mutated configs, raw config text and scenario CSVs must end in a typed error or finite
numbers, never in another exception. In `make test-slow`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import fuzz


@pytest.mark.slow  # hypothesis draws 1,200 inputs through the readers: a few seconds
def test_short_fuzz_run() -> None:
    report = fuzz.run(400, seed=0)  # raises FuzzFailureError on the first bad ending
    for name, r in report.items():
        assert r["inputs"] == 400, name
    # the generators reach both endings, so the run tests the accepting path too
    configs = report["config.json (mutated catalog configs)"]
    assert configs["accepted"] > 100 and configs["refused"] > 20
    assert report["scenario CSV"]["rows"] > 50
