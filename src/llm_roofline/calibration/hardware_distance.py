"""How far a chip is from the measured hardware, and the range that widens with that distance.

A chip is described by four labels (`chip_labels`): its hardware kind (`HARDWARE_KINDS`: a GPU
generation, a vendor's line), its vendor, its chip class (datacenter GPU, consumer GPU,
system-on-chip, accelerator, TPU) and its memory kind (`memory_kind`). Its distance from a set
of measured rows is the number of those labels no measured row shares (`missing`): 0 for a
chip of a measured kind (an H100), 1 for a new kind of a measured vendor, class and memory (a
Rubin), 3 for a TPU (vendor and class unmeasured as well; its HBM is measured).

The calibrated range of a chip at distance 0 is what leave-one-source-out validation found
(`band_known`). Beyond, its half-width in ln(time) is `RangeLaw.half_width(d) = width ·
exp(growth · (d − 1))`, fitted (`fit_range_law`) to the errors of whole hardware kinds held out
(leave-one-kind-out), each held-out row at the distance its kind had from the rows the fold was
fitted on, by quantile regression at 80% (growth at least 0: a range never narrows with
distance); never narrower than the measured kinds' range (`widened`). A distance beyond the
held-out kinds' extrapolates the law.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline.hardware.chip import Chip

__all__ = [
    "DIMENSIONS",
    "HARDWARE_KINDS",
    "RangeLaw",
    "chip_kind",
    "chip_labels",
    "fit_range_law",
    "memory_kind",
    "missing",
    "quantile",
    "why_wider",
    "widened",
]

# hardware kinds held out together by leave-one-kind-out: a GPU generation, a vendor's line
HARDWARE_KINDS = {
    "NVIDIA Ampere": ("a100-40gb", "a100-80gb"),
    "NVIDIA Hopper": ("h100-sxm", "h100-pcie", "h800", "h200"),
    "NVIDIA Blackwell": ("b200", "gb200", "b300", "gb300"),
    "NVIDIA Rubin": ("rubin", "rubin-ultra"),
    "NVIDIA Ada (L40S, L4)": ("l40s", "l4"),
    "NVIDIA workstation": ("rtx-pro-6000",),
    "consumer GPUs": ("rtx-3090", "rtx-4090", "rtx-5090"),
    "AMD Instinct": ("mi250x", "mi300x", "mi325x", "mi355x"),
    "Apple silicon": ("apple-m1-max", "apple-m2-ultra", "apple-m3-max", "apple-m4-max"),
    "Google TPU": ("tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7"),
    "AWS Trainium": ("trn2",),
    "Intel Gaudi": ("gaudi2", "gaudi3"),
}

# the labels a chip shares or not with the measured rows, and how a note names each
DIMENSIONS = {
    "kind": "hardware kind",
    "vendor": "vendor",
    "arch": "chip class",
    "memory": "memory kind",
}


def chip_kind(chip: Chip) -> str:
    """The hardware kind a chip belongs to (`HARDWARE_KINDS`: a GPU generation, a vendor's
    line); a chip in none, its vendor and class ("Acme accelerator")."""
    for kind, ids in HARDWARE_KINDS.items():
        if chip.id in ids:
            return kind
    return f"{chip.vendor} {chip.chip_class}".strip()


def memory_kind(chip: Chip) -> str:
    """hbm, gddr or unified (a system-on-chip's shared LPDDR), from the chip's memory type
    (its class where the record names none)."""
    t = chip.memory_type.lower()
    if "hbm" in t:
        return "hbm"
    if "gddr" in t:
        return "gddr"
    if "lpddr" in t or "unified" in t or chip.chip_class == "soc":
        return "unified"
    return "gddr" if chip.chip_class in ("consumer-gpu", "workstation-gpu") else "hbm"


def chip_labels(chip: Chip) -> dict[str, str]:
    """The chip's label in each of `DIMENSIONS` (the vendor case-folded)."""
    return {
        "kind": chip_kind(chip),
        "vendor": chip.vendor.casefold(),
        "arch": chip.chip_class,
        "memory": memory_kind(chip),
    }


def missing(labels: Mapping[str, str], measured: Mapping[str, Collection[str]]) -> tuple[str, ...]:
    """The dimensions in which no measured row shares the chip's label (`measured[dim]`: the
    labels measured); their number is the chip's distance from the measured hardware."""
    return tuple(d for d in DIMENSIONS if labels[d] not in measured.get(d, ()))


@dataclass(frozen=True)
class RangeLaw:
    """Half-width in ln(time) of the 80% range at distance d ≥ 1: `width · exp(growth · (d −
    1))`."""

    width: float
    growth: float

    def half_width(self, d: int) -> float:
        return self.width * math.exp(self.growth * (d - 1))


def quantile(values: FloatArray, weights: FloatArray, q: float) -> float:
    """The weighted q-quantile: the smallest value whose share of the weight at or below it
    reaches q (what minimises the weighted pinball loss at q)."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    i = int(np.searchsorted(cum, q * cum[-1] * (1 - 1e-12)))
    return float(values[order][min(i, values.size - 1)])


def fit_range_law(
    distances: Sequence[int] | FloatArray,
    errors: Sequence[float] | FloatArray,
    *,
    q: float = 0.8,
    growths: FloatArray | None = None,
) -> RangeLaw:
    """The law whose half-width holds a share q of |errors| at their distances (d ≥ 1): least
    pinball loss at q over `growths` (0 to 1 in steps of 0.005), the width for each growth
    exact (the pinball loss is homogeneous, so it is the weighted q-quantile of |e| ·
    exp(−growth (d − 1)) with weights exp(growth (d − 1))). The smallest growth wins a tie."""
    d = np.asarray(distances, dtype=np.float64) - 1.0
    a = np.abs(np.asarray(errors, dtype=np.float64))
    if a.size == 0 or d.size != a.size or np.any(d < 0):
        raise ValueError("a range law needs errors at distances of at least 1")
    grid = np.round(np.arange(0, 201) * 0.005, 6) if growths is None else growths
    best: tuple[float, float, float] | None = None
    for g in grid:
        scale = np.exp(g * d)
        w = quantile(a / scale, scale, q)
        r = a - w * scale
        loss = float(np.sum(np.where(r >= 0, q * r, (q - 1) * r)))
        if best is None or loss < best[0] - 1e-12 * max(1.0, abs(best[0])):
            best = (loss, float(g), w)
    assert best is not None
    return RangeLaw(width=best[2], growth=best[1])


def widened(band_known: tuple[float, float], law: RangeLaw, d: int) -> tuple[float, float]:
    """The range (low, high multiples of a predicted time) of a chip at distance d: the
    measured kinds' band at 0; beyond, e^(∓ half-width), never inside that band."""
    if d <= 0:
        return band_known
    floor = max(-math.log(band_known[0]), math.log(band_known[1]))
    w = max(law.half_width(d), floor)
    return math.exp(-w), math.exp(w)


def why_wider(gaps: Sequence[str]) -> str:
    """One phrase for a range widened by the dimensions `gaps` that were never measured."""
    if not gaps:
        return ""
    return "range widened: no measurements of this " + ", ".join(DIMENSIONS[g] for g in gaps)
