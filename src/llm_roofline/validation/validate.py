"""Predicted against measured: the curated validation set (data/validation.csv).

Each row is a published measurement mapped to a scenario of the contract (model, hardware,
chips, split, data types, batch, lengths, mode) and one metric in SI units, with its source
address. `validate` predicts every row with the ideal engine or a calibrated profile and
reports the ratio predicted / measured; for times a ratio below 1 is faster than measured, for
throughputs above 1. Summary statistics use |ln(predicted / measured)|: 0.10 is about 10%.

Rows flagged `ceiling` come from max-throughput tables that do not state the batch the
scheduler reached: they are predicted at the largest batch that fits (or the stated
concurrency) and only checked as bounds, not counted in the error statistics.

The calibrated engine is fitted to the scored rows and cross-validated by `crossval.py`; the
method and the figures are in docs/validation.md.
"""

from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from llm_roofline._core.errors import InputError, LlmRooflineError
from llm_roofline.calibration.profile import Profile, get_profile, shipped
from llm_roofline.engine.memory import max_batch
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.model.checkpoints import get_model
from llm_roofline.serving.modes import compose, serving_terms
from llm_roofline.serving.passes import ServingTerms
from llm_roofline.validation import crossval
from llm_roofline.validation.range_check import range_by_distance

Progress = Callable[[int, int], None]

__all__ = [
    "METRICS",
    "RowResult",
    "ValidationRow",
    "cross_validate",
    "load_rows",
    "range_check",
    "summarise",
    "validate",
]

# metric -> True when larger is faster (throughputs), False for times
METRICS = {
    "tpot_s": False,
    "ttft_s": False,
    "request_latency_s": False,
    "output_tokens_per_s": True,
    "output_tokens_per_s_per_chip": True,
}


@dataclass(frozen=True)
class ValidationRow:
    row: int
    source_address: str
    model: str
    hardware: str
    chips: int
    tp: int | None
    pp: int | None
    ep: int | None
    weight_dtype: str
    kv_dtype: str
    batch: int | None
    input_len: int
    output_len: int
    mode: str
    metric: str
    measured: float
    ceiling: bool
    engine_family: str
    notes: str
    same_source_as: str = ""  # another address of the same document (a copy, a later version)

    @property
    def source(self) -> str:
        """The page the row came from (its address without a fragment)."""
        return self.source_address.split("#", 1)[0]

    @property
    def publication(self) -> str:
        """The document the row came from: its source, or the one it is a copy of."""
        return self.same_source_as.split("#", 1)[0] or self.source


def _int(text: str) -> int | None:
    text = (text or "").strip()
    return int(float(text)) if text else None


def _read(text: str) -> list[ValidationRow]:
    rows = []
    for rec in csv.DictReader(io.StringIO(text)):
        metric = rec["metric"].strip()
        if metric not in METRICS:
            raise InputError(
                f"validation row {rec['row']}: unknown metric {metric!r}", field="metric"
            )
        rows.append(
            ValidationRow(
                row=int(rec["row"]),
                source_address=rec["source_address"].strip(),
                model=rec["model"].strip(),
                hardware=rec["hardware"].strip(),
                chips=int(float(rec["chips"])),
                tp=_int(rec.get("tp", "")),
                pp=_int(rec.get("pp", "")),
                ep=_int(rec.get("ep", "")),
                weight_dtype=rec["weight_dtype"].strip(),
                kv_dtype=(rec.get("kv_dtype") or "bf16").strip() or "bf16",
                batch=_int(rec.get("batch", "")),
                input_len=int(float(rec["input_len"])),
                output_len=int(float(rec["output_len"])),
                mode=rec["mode"].strip(),
                metric=metric,
                measured=float(rec["measured"]),
                ceiling=rec.get("ceiling", "").strip().lower() == "true",
                engine_family=rec.get("engine_family", "other").strip() or "other",
                notes=rec.get("notes", ""),
                same_source_as=(rec.get("same_source_as") or "").strip(),
            )
        )
    return rows


@functools.cache
def load_rows() -> tuple[ValidationRow, ...]:
    """The shipped validation set."""
    text = resources.files("llm_roofline").joinpath("data/validation.csv").read_text("utf-8")
    return tuple(_read(text))


def _split(r: ValidationRow) -> Parallelism | None:
    if r.chips == 1:
        return None
    return Parallelism.of(r.chips, r.tp, r.pp, r.ep)


@functools.cache
def _terms(r: ValidationRow) -> ServingTerms:
    par = _split(r)
    batch = r.batch
    if batch is None or r.ceiling:  # a ceiling runs at most the largest batch that fits
        fit = max(
            1,
            int(
                max_batch(
                    r.model,
                    r.hardware,
                    r.chips,
                    context_len=r.input_len + r.output_len,
                    weight_dtype=r.weight_dtype,
                    kv_dtype=r.kv_dtype,
                    parallel=par,
                )
            ),
        )
        batch = fit if batch is None else min(batch, fit)
    if par is not None:
        par.check(get_model(r.model))
    return serving_terms(
        r.model,
        r.hardware,
        r.chips,
        batch=batch,
        input_len=r.input_len,
        output_len=r.output_len,
        mode=r.mode,
        weight_dtype=r.weight_dtype,
        kv_dtype=r.kv_dtype,
        parallel=par,
    )


def predict_row(r: ValidationRow, profile: Profile | None) -> float:
    res = compose(_terms(r), profile)
    return float(getattr(res, r.metric))


@dataclass(frozen=True)
class RowResult:
    row: ValidationRow
    predicted: float
    low: float
    high: float

    @property
    def ratio(self) -> float:
        return self.predicted / self.row.measured

    @property
    def log_error(self) -> float:
        return abs(math.log(self.ratio))

    @property
    def faster_than_measured(self) -> bool:
        """The prediction is faster than reality (as a lower bound must be)."""
        return self.ratio >= 1.0 if METRICS[self.row.metric] else self.ratio <= 1.0


def validate(
    engine: str | Profile = "ideal", rows: Sequence[ValidationRow] | None = None
) -> tuple[list[RowResult], list[tuple[ValidationRow, str]]]:
    """Predict every row; returns the results and the rows that could not be predicted.

    A calibrated engine is the one a user gets on the row's chip: "calibrated" with the row's
    own engine family (the user names their engine), a family name with that family's."""
    if not isinstance(engine, Profile):
        get_profile(engine)  # an unknown name is an error, not a failure of every row
    out, failed = [], []
    for r in rows if rows is not None else load_rows():
        try:
            profile = _row_profile(engine, r)
            p = predict_row(r, profile)
        except LlmRooflineError as exc:
            failed.append((r, str(exc)))
            continue
        low, high = p, p
        if profile is not None:
            # the profile's range: measured / predicted between `low` and `high` on its rows
            a, b = p * profile.low, p * profile.high
            if METRICS[r.metric]:  # a throughput scales the other way round
                a, b = p / profile.high, p / profile.low
            low, high = min(a, b), max(a, b)
        out.append(RowResult(r, p, low, high))
    return out, failed


def _row_profile(engine: str | Profile, r: ValidationRow) -> Profile | None:
    if isinstance(engine, Profile):
        return engine
    chip = get_hardware(r.hardware)
    fitted = shipped()
    if engine.strip().lower() == "calibrated" and fitted and r.engine_family in fitted.families:
        return get_profile(r.engine_family, chip)  # "other" too: its rows were fitted with it
    return get_profile(engine, chip)


def _stats(errors: Iterable[float]) -> dict[str, float]:
    e = np.asarray(list(errors), dtype=np.float64)
    if e.size == 0:
        return {"rows": 0.0}
    return {
        "rows": float(e.size),
        "median": float(np.median(e)),
        "p90": float(np.percentile(e, 90)),
    }


def summarise(results: Sequence[RowResult]) -> dict[str, Any]:
    """Median and 90th percentile of |ln(predicted / measured)| overall, by hardware and by
    engine family (ceiling rows excluded), and the share of rows predicted slower than
    measured (ceilings included: a ceiling still bounds)."""
    scored = [r for r in results if not r.row.ceiling]
    by_hw: dict[str, list[float]] = {}
    by_family: dict[str, list[float]] = {}
    for r in scored:
        by_hw.setdefault(r.row.hardware, []).append(r.log_error)
        by_family.setdefault(r.row.engine_family, []).append(r.log_error)
    slower = [r for r in results if not r.faster_than_measured]
    return {
        "overall": _stats(r.log_error for r in scored),
        "by_hardware": {k: _stats(v) for k, v in sorted(by_hw.items())},
        "by_engine_family": {k: _stats(v) for k, v in sorted(by_family.items())},
        "slower_than_measured": len(slower),
        "slower_than_measured_share": len(slower) / max(len(results), 1),
        "rows": len(results),
        "ceiling_rows": len(results) - len(scored),
    }


# ---- calibration on the validation set ------------------------------------------------------


def _usable(rows: Sequence[ValidationRow]) -> list[ValidationRow]:
    ok = []
    for r in rows:
        if r.ceiling:
            continue
        try:
            _terms(r)
        except LlmRooflineError:
            continue
        ok.append(r)
    return ok


def scored_rows() -> list[ValidationRow]:
    """The rows the calibrated engine is fitted to and scored on (ceilings excluded)."""
    return _usable(load_rows())


def cross_validate(by: str = "source", progress: Progress | None = None) -> dict[str, Any]:
    """Leave-one-source-out (`by="source"`) or leave-one-hardware-kind-out (`"kind"`): the
    calibrated engine refitted without each group, predicted on it (`crossval.cross_validate`).
    A source is a row's `publication` (copies of one document are one source)."""
    group = _GROUPS.get(by)
    if group is None:
        raise InputError(f"cross-validation by must be one of {', '.join(_GROUPS)}", field="by")
    out = crossval.cross_validate(scored_rows(), _terms, group, progress=progress)
    out["by"] = by
    out["errors"] = [round(float(e), 6) for e in out["errors"]]  # JSON-ready, row order
    out["rows"] = [r.row for r in scored_rows()]
    return out


_GROUPS: dict[str, Callable[[ValidationRow], str]] = {
    "source": lambda r: r.publication,
    "kind": lambda r: crossval.hardware_kind(r.hardware),
}


def group_counts() -> dict[str, int]:
    """How many groups each cross-validation holds out in turn (its number of fits)."""
    rows = scored_rows()
    return {by: len({g(r) for r in rows}) for by, g in _GROUPS.items()}


def fit_shipped(progress: Progress | None = None) -> dict[str, Any]:
    """What `calibrate` writes to data/profiles.toml: the constants fitted to every scored row,
    the rows behind each label, and the ranges held-out validation found (leave-one-source-out
    for chips of a measured kind; beyond, a range that widens with the chip's distance from
    the measured hardware, fitted to the leave-one-kind-out errors: `range_check`)."""
    rows = scored_rows()
    groups = group_counts()
    n_src = groups["source"]
    total = n_src + groups["kind"] + 1

    def step(offset: int) -> Progress | None:
        if progress is None:
            return None
        return lambda i, _n: progress(offset + i, total)

    fitted = crossval.fit_rows(rows, _terms)
    if progress is not None:
        progress(1, total)
    loso = cross_validate("source", step(1))
    loko = cross_validate("kind", step(1 + n_src))
    counts: dict[str, dict[str, int]] = {}
    groups_of: dict[str, list[str]] = {
        **crossval.labels(rows),
        "kind": [crossval.hardware_kind(r.hardware) for r in rows],
        "arch": [str(get_hardware(r.hardware).chip_class) for r in rows],
    }
    for kind, labels in groups_of.items():
        for label in labels:
            counts.setdefault(kind, {}).setdefault(label, 0)
            counts[kind][label] += 1
    ranges = range_check(loso, loko)
    return {
        "fitted": fitted,
        "band_known": ranges["band_known"],
        "range_law": ranges["range_law"],
        "fitted_on": [r.row for r in rows],
        "label_rows": counts,
        "held_out": {"source": loso["held_out"], "kind": loko["held_out"]},
    }


def range_check(loso: dict[str, Any], loko: dict[str, Any]) -> dict[str, Any]:
    """The calibrated range held out (`range_check.range_by_distance`) from the results of
    `cross_validate("source")` and `cross_validate("kind")`: the shipped band and range law,
    and each hardware kind's coverage by the range it gets when it is held out."""
    rows = scored_rows()
    if loso["rows"] != [r.row for r in rows] or loko["rows"] != loso["rows"]:
        raise ValueError("cross-validations of other rows than the scored rows")
    kinds = [crossval.hardware_kind(r.hardware) for r in rows]
    return range_by_distance(rows, kinds, loso["errors"], loko["errors"])
