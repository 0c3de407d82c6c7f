"""The calibrated 80% range, held out: how it widens with a chip's distance from the measured
hardware, and how often it holds each hardware kind's measured values when that kind is held out.

`range_by_distance` takes the held-out errors of both cross-validations (`crossval`: leave one
source out, leave one hardware kind out; ln(measured / predicted time) of each scored row) and:

- gives each row the distance its chip had, in its leave-one-kind-out fold, from the rows that
  fold was fitted on (`hardware_distance.missing`: the labels no other kind shares);
- fits the range law to those errors at those distances (`hardware_distance.fit_range_law`),
  and takes the measured kinds' band from the leave-one-source-out errors: what
  `calibrate` ships;
- for each kind, refits both without any row of that kind and asks whether the range its
  rows would then get (`hardware_distance.widened` at their distance) holds their measured
  values. No kind's rows set its own range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline.calibration.hardware_distance import (
    DIMENSIONS,
    chip_labels,
    fit_range_law,
    missing,
    widened,
)
from llm_roofline.hardware.catalog import get_hardware

__all__ = ["fold_gaps", "range_by_distance"]


def fold_gaps(rows: Sequence[Any], groups: Sequence[str]) -> list[tuple[str, ...]]:
    """For each row, the labels of its chip (`hardware_distance.DIMENSIONS`) that no row of
    another group shares: its distance from what its group's held-out fold was fitted on."""
    labels = [chip_labels(get_hardware(r.hardware)) for r in rows]
    measured = {
        g: {d: {x[d] for x, h in zip(labels, groups, strict=True) if h != g} for d in DIMENSIONS}
        for g in set(groups)
    }
    return [missing(lab, measured[g]) for lab, g in zip(labels, groups, strict=True)]


def _band(errors: FloatArray) -> tuple[float, float]:
    lo, hi = np.percentile(errors, [10, 90])
    return float(np.exp(lo)), float(np.exp(hi))


def range_by_distance(
    rows: Sequence[Any],
    kinds: Sequence[str],
    source_errors: Sequence[float],
    kind_errors: Sequence[float],
) -> dict[str, Any]:
    """The shipped range (`band_known`, `range_law`) and each kind's coverage held out.

    `rows` the scored rows in the order of both error lists, `kinds` each row's hardware kind.
    Per kind: its rows, their distance(s) and the labels behind it, the range they got (low,
    high of the first row) and the share of them it holds."""
    e_src = np.asarray(source_errors, dtype=np.float64)
    e_kind = np.asarray(kind_errors, dtype=np.float64)
    keys = np.asarray(kinds)
    gaps = fold_gaps(rows, kinds)
    dist = np.asarray([len(g) for g in gaps])
    law = fit_range_law(dist, e_kind)
    per: dict[str, dict[str, Any]] = {}
    inside = np.zeros(len(rows), dtype=bool)
    for name in sorted(set(kinds)):
        own = keys == name
        other_law = fit_range_law(dist[~own], e_kind[~own])
        known = _band(e_src[~own])
        idx = np.flatnonzero(own)
        bands = [widened(known, other_law, int(dist[i])) for i in idx]
        lo = np.log([b[0] for b in bands])
        hi = np.log([b[1] for b in bands])
        inside[idx] = (e_kind[idx] >= lo) & (e_kind[idx] <= hi)
        per[name] = {
            "rows": int(idx.size),
            "distance": sorted({int(dist[i]) for i in idx}),
            "unmeasured": [w for d, w in DIMENSIONS.items() if any(d in gaps[i] for i in idx)],
            "low": bands[0][0],
            "high": bands[0][1],
            "coverage_80": float(inside[idx].mean()),
        }
    return {
        "band_known": list(_band(e_src)),
        "range_law": [law.width, law.growth],
        "kinds": per,
        "coverage_80": float(inside.mean()),
    }
