"""The calibrated range held out by hardware kind (validation/range_check.py)."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from llm_roofline.calibration.hardware_distance import fit_range_law
from llm_roofline.validation.range_check import fold_gaps, range_by_distance

from ..conftest import run_cli

ROWS = [SimpleNamespace(hardware=h) for h in ("h100-sxm", "a100-80gb", "mi300x", "mi300x")]
KINDS = ["NVIDIA Hopper", "NVIDIA Ampere", "AMD Instinct", "AMD Instinct"]


def test_fold_gaps_by_hand() -> None:
    # Hopper held out: Ampere (NVIDIA, datacenter GPU, HBM) and AMD remain -> only its kind;
    # AMD held out: two NVIDIA kinds remain -> its kind and its vendor
    assert fold_gaps(ROWS, KINDS) == [("kind",), ("kind",), ("kind", "vendor"), ("kind", "vendor")]


def test_a_kind_held_out_never_sets_its_own_range() -> None:
    src = [0.05, -0.1, 0.2, -0.02]
    kind = [0.1, -0.2, 0.3, 0.5]
    out = range_by_distance(ROWS, KINDS, src, kind)
    amd = out["kinds"]["AMD Instinct"]
    assert amd["distance"] == [2] and amd["unmeasured"] == ["hardware kind", "vendor"]
    # by hand: without AMD, the law sees |0.1|, |0.2| at distance 1 (growth free: 0 is as
    # good as any, the smallest wins): width = the 0.8-quantile of {0.1, 0.2} = 0.2; the
    # measured band from {0.05, -0.1}: 10th and 90th percentiles -0.085 and 0.035
    floor = max(0.085, 0.035)
    w = max(0.2, floor)
    assert (amd["low"], amd["high"]) == pytest.approx((math.exp(-w), math.exp(w)), rel=1e-9)
    assert amd["coverage_80"] == 0.0  # 0.3 and 0.5 both beyond 0.2
    # AMD's own errors move nothing of its range
    moved = range_by_distance(ROWS, KINDS, [*src[:2], 5.0, -5.0], [*kind[:2], 9.0, -9.0])
    assert moved["kinds"]["AMD Instinct"]["low"] == amd["low"]
    assert moved["kinds"]["AMD Instinct"]["high"] == amd["high"]
    # the shipped law uses every kind
    law = fit_range_law([1, 1, 2, 2], kind)
    assert out["range_law"] == [law.width, law.growth]


@pytest.mark.slow
def test_the_docs_table_of_ranges_held_out_by_kind() -> None:
    """docs/validation.md's table: `llm-roofline validate --engine calibrated --cv --json`,
    `.cross_validation.kind.by_distance` (about 15 s)."""
    r = run_cli("validate", "--engine", "calibrated", "--cv", "--json")
    assert r.code == 0, r.err
    far = r.json()["cross_validation"]["kind"]["by_distance"]
    text = " ".join((Path(__file__).parents[2] / "docs" / "validation.md").read_text().split())
    for name, v in far["kinds"].items():
        d = "/".join(map(str, v["distance"]))
        cell = f"| {d} | ×{v['low']:.2f}–{v['high']:.2f} | {v['coverage_80']:.0%} |"
        assert cell in text, name
    assert f"**{far['coverage_80']:.1%}**" in text
    width, growth = far["range_law"]
    assert f"`range_law` = [{width:.4f}, {growth:.3f}]" in text
    assert np.isfinite(width) and growth >= 0
