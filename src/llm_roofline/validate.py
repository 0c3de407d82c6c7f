"""Predicted against measured: the curated validation set (data/validation.csv).

Each row is a published measurement mapped to a scenario of the contract (model, hardware,
chips, split, data types, batch, lengths, mode) and one metric in SI units, with its source
address. `validate` predicts every row with the ideal engine or a calibrated profile and
reports the ratio predicted / measured; for times a ratio below 1 is faster than measured, for
throughputs above 1. Summary statistics use |ln(predicted / measured)|: 0.10 is about 10%.

Rows flagged `ceiling` come from max-throughput tables that do not state the batch the
scheduler reached: they are predicted at the largest batch that fits (or the stated
concurrency) and only checked as bounds, not counted in the error statistics.

`fit_profiles` fits calibrated profiles on the rows: one overall, one per engine family and one
per engine family and hardware class (`hardware_class`: the chip's `class` in the hardware
catalog). The method and the figures are in docs/validation.md.
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

from .arrays import FloatArray
from .calibrate import Profile, fit_profile, get_profile
from .catalog import get_hardware, get_model
from .errors import InputError, LlmRooflineError
from .hardware import ChipClass
from .memory import max_batch
from .parallel import Parallelism
from .serving import ServingTerms, compose, serving_terms

__all__ = [
    "METRICS",
    "RowResult",
    "ValidationRow",
    "cross_validate",
    "fit_profiles",
    "load_rows",
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

# The validation's group of each chip class (its `class` in the hardware catalog); a class not
# listed is its own group. GeForce cards keep the group name "client-gpu" the fitted profiles
# were named under before chips carried a class.
_GROUP: dict[ChipClass, str] = {"consumer-gpu": "client-gpu"}


def hardware_class(hw_id: str) -> str:
    """datacenter-gpu, workstation-gpu, client-gpu (GeForce), soc (Apple, Ryzen AI), tpu or
    accelerator (Trainium, Gaudi): the chip's catalog class, GeForce under "client-gpu"."""
    cls = get_hardware(hw_id).chip_class
    return _GROUP.get(cls, cls)


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

    @property
    def source(self) -> str:
        """The publication the row came from (its address without a fragment)."""
        return self.source_address.split("#", 1)[0]


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
    """Predict every row; returns the results and the rows that could not be predicted."""
    profile = engine if isinstance(engine, Profile) else get_profile(engine)
    out, failed = [], []
    for r in rows if rows is not None else load_rows():
        try:
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


def _predictor(
    rows: Sequence[ValidationRow],
) -> tuple[Callable[[Profile], FloatArray], FloatArray]:
    terms = [_terms(r) for r in rows]
    metrics = [r.metric for r in rows]

    def predict(p: Profile) -> FloatArray:
        return np.asarray(
            [float(getattr(compose(t, p), m)) for t, m in zip(terms, metrics, strict=True)],
            dtype=np.float64,
        )

    return predict, np.asarray([r.measured for r in rows], dtype=np.float64)


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


def _fit(name: str, rows: Sequence[ValidationRow], note: str) -> Profile:
    predict, measured = _predictor(rows)
    multi = any(r.chips > 1 for r in rows)
    fixed = None if multi else {"comm_eff": 1.0}
    throughput = [r.metric.startswith("output_tokens_per_s") for r in rows]
    return fit_profile(
        name,
        predict,
        measured,
        tuple(r.row for r in rows),
        note=note,
        fixed=fixed,
        throughput=throughput,
    )


def fit_profiles(min_rows: int = 12) -> list[Profile]:
    """The default `calibrated` profile across all rows, then one per engine family and one
    per (engine family, hardware class) with at least `min_rows` rows."""
    rows = _usable(load_rows())
    out = [_fit("calibrated", rows, "all validation rows (ceilings excluded)")]
    families: dict[str, list[ValidationRow]] = {}
    classes: dict[tuple[str, str], list[ValidationRow]] = {}
    for r in rows:
        families.setdefault(r.engine_family, []).append(r)
        classes.setdefault((r.engine_family, hardware_class(r.hardware)), []).append(r)
    for fam, rs in sorted(families.items()):
        if len(rs) >= min_rows:
            out.append(_fit(fam, rs, f"engine family {fam}, all hardware"))
    for (fam, cls), rs in sorted(classes.items()):
        if len(rs) >= min_rows and len(rs) < len(families[fam]):
            out.append(_fit(f"{fam}-{cls}", rs, f"engine family {fam} on {cls}"))
    return out


def cross_validate() -> dict[str, Any]:
    """Leave-one-source-out: fit the default profile without a source's rows, predict them.

    Returns the held-out |ln error| statistics and each source's own numbers.
    """
    rows = _usable(load_rows())
    sources = sorted({r.source for r in rows})
    held: list[float] = []
    per_source = {}
    for src in sources:
        train = [r for r in rows if r.source != src]
        test = [r for r in rows if r.source == src]
        if not train or not test:
            continue
        p = _fit("cv", train, "")
        errs = [abs(math.log(predict_row(r, p) / r.measured)) for r in test]
        held += errs
        per_source[src] = _stats(errs)
    return {"held_out": _stats(held), "sources": per_source}
