"""A chip's distance from the measured hardware and the range that widens with it
(calibration/hardware_distance.py): every expected value worked by hand below."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.calibration.hardware_distance import (
    RangeLaw,
    chip_labels,
    fit_range_law,
    missing,
    quantile,
    why_wider,
    widened,
)
from llm_roofline.calibration.profile import get_profile, shipped

# measured by hand: rows on an H100 (Hopper), an MI300X (AMD Instinct), an RTX 4090 (consumer)
# -> kinds {Hopper, AMD Instinct, consumer GPUs}, vendors {nvidia, amd},
#    classes {datacenter-gpu, consumer-gpu}, memory {hbm, gddr}
MEASURED = {
    d: {chip_labels(lr.get_hardware(c))[d] for c in ("h100-sxm", "mi300x", "rtx-4090")}
    for d in ("kind", "vendor", "arch", "memory")
}


@pytest.mark.parametrize(
    ("chip", "gaps"),
    [
        ("h200", ()),  # Hopper measured
        ("b200", ("kind",)),  # Blackwell not; NVIDIA, datacenter GPU, HBM are
        ("l40s", ("kind",)),  # Ada not; NVIDIA, datacenter GPU, GDDR are
        ("gaudi3", ("kind", "vendor", "arch")),  # Intel accelerator; HBM measured
        ("tpu-v5e", ("kind", "vendor", "arch")),  # Google TPU; HBM measured
        ("ryzen-ai-max-395", ("kind", "arch", "memory")),  # AMD measured; SoC, LPDDR not
        ("apple-m4-max", ("kind", "vendor", "arch", "memory")),  # nothing shared
    ],
)
def test_distance_of_catalog_chips_by_hand(chip: str, gaps: tuple[str, ...]) -> None:
    assert missing(chip_labels(lr.get_hardware(chip)), MEASURED) == gaps


def test_distance_from_the_shipped_rows_by_hand() -> None:
    # the shipped rows measure Ampere, Hopper, Blackwell, Ada, consumer GPUs (NVIDIA), AMD
    # Instinct, Apple silicon and Intel Gaudi: HBM, GDDR and unified memory; datacenter GPUs,
    # consumer GPUs, SoCs and accelerators
    s = shipped()
    assert s is not None
    by_hand = {
        "gaudi3": 0,
        "apple-m4-max": 0,
        "rubin": 1,  # a new NVIDIA kind
        "ryzen-ai-max-395": 1,  # AMD, SoC (Apple's class), unified memory all measured
        "trn2": 2,  # AWS never measured; an accelerator like Gaudi, HBM
        "tpu-v6e": 3,  # Google and the TPU class never measured; HBM
    }
    for chip, d in by_hand.items():
        assert len(missing(chip_labels(lr.get_hardware(chip)), s.label_rows)) == d, chip


def test_weighted_quantile_by_hand() -> None:
    v = np.array([0.3, 0.1, 0.2])
    # weights 1, 1, 1: 0.8 of 3 = 2.4 -> sorted 0.1 (1), 0.2 (2), 0.3 (3): first to reach is 0.3
    assert quantile(v, np.ones(3), 0.8) == 0.3
    # weights 1 (0.3), 6 (0.1), 1 (0.2): 0.8 of 8 = 6.4 -> 0.1 (6), 0.2 (7): 0.2
    assert quantile(v, np.array([1.0, 6.0, 1.0]), 0.8) == 0.2


def test_range_law_fitted_by_hand() -> None:
    # |errors| at distance 1: 0.1 x4, 0.2; at distance 2: three times as large, 0.3 x4, 0.6
    d = [1] * 5 + [2] * 5
    e = [0.1, -0.1, 0.1, -0.1, 0.2, 0.3, -0.3, 0.3, -0.3, -0.6]
    # growth 0: width = 8th of the 10 sorted |e| = 0.3; pinball loss at 0.8:
    #   0.2 * (4 * 0.2 + 0.1) + 0.8 * 0.3 = 0.18 + 0.24 = 0.42
    # growth ln 3: |e| / 3^(d-1) = 0.1 x8, 0.2 x2, weights 1 (d 1), 3 (d 2): total 20,
    #   0.8 of it 16 = the weight of the 0.1s (4 + 12): width 0.1; loss 0.8 * (0.1 + 0.3) = 0.32
    law = fit_range_law(d, e, growths=np.array([0.0, math.log(3)]))
    assert law.width == pytest.approx(0.1, abs=1e-12)
    assert law.growth == pytest.approx(math.log(3), abs=1e-12)
    assert law.half_width(2) == pytest.approx(0.3, abs=1e-12)  # holds 4 of the 5 at d 2


def test_a_range_never_narrows_with_distance() -> None:
    # errors shrink with distance (0.4 x5 at 1, 0.1 x5 at 2): any growth > 0 below ln 4 keeps
    # width 0.4 and only adds loss at distance 2, so growth 0 and width the 8th of ten, 0.4
    law = fit_range_law([1] * 5 + [2] * 5, [0.4] * 5 + [0.1] * 5)
    assert law == RangeLaw(width=0.4, growth=0.0)
    with pytest.raises(ValueError):
        fit_range_law([0, 1], [0.1, 0.2])  # distance 0 is the measured kinds' band


def test_widened_by_hand() -> None:
    known = (0.8, 1.25)  # half-width ln 1.25 = 0.2231 both ways
    law = RangeLaw(width=0.1, growth=math.log(3))  # 0.1, 0.3, 0.9 at distances 1, 2, 3
    assert widened(known, law, 0) == known
    assert widened(known, law, 1) == pytest.approx((0.8, 1.25), rel=1e-12)  # never inside
    assert widened(known, law, 2) == pytest.approx((math.exp(-0.3), math.exp(0.3)), rel=1e-12)
    assert widened(known, law, 3) == pytest.approx((math.exp(-0.9), math.exp(0.9)), rel=1e-12)
    assert why_wider(("vendor", "memory")) == (
        "range widened: no measurements of this vendor, memory kind"
    )
    assert why_wider(()) == ""


def test_a_far_chip_gets_a_wider_range_than_a_measured_one() -> None:
    ranges = {}
    for chip in ("h100-sxm", "gaudi3", "rubin", "trn2", "tpu-v6e"):
        p = get_profile("calibrated", lr.get_hardware(chip))
        assert p is not None
        ranges[chip] = p.high / p.low
    assert ranges["gaudi3"] == pytest.approx(ranges["h100-sxm"], rel=1e-12)  # both measured
    assert ranges["h100-sxm"] <= ranges["rubin"] <= ranges["trn2"] < ranges["tpu-v6e"]
    assert ranges["h100-sxm"] < ranges["tpu-v6e"]
    note = get_profile("calibrated", lr.get_hardware("tpu-v6e")).note  # type: ignore[union-attr]
    assert "range widened: no measurements of this hardware kind, vendor, chip class" in note
