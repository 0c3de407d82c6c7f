"""Many scenario rows at engine speed: rows grouped by deployment, one engine call per pass.

`scenarios.predict_rows` hands its rows here. Rows that name the same deployment (model,
hardware, chips, split, data types, engine, and the settings given for every row) share one
`Deployment`, built once, and its rows of one mode are timed together by
`Deployment.serve_many`. A row that the deployment or `serving` refuses gets the error that
`scenarios.predict_one` gives it (it is then run alone), and every other row is still
predicted: the results, errors and warnings are those of `predict_one`, row by row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .deployment import Deployment
from .errors import LlmRooflineError
from .roofline import BOUND_NAMES, MAX_SIZE
from .scenarios import (
    _EXTRA,
    INPUT_COLUMNS,
    OUTPUT_COLUMNS,
    RANGE_COLUMNS,
    ScenarioResult,
    _fields,
    _normalise,
    _row_error,
    _serve_one,
    deployment_from,
    scenario_inputs,
)
from .serving import ServingColumns, valid_rows

__all__ = ["predict_grouped"]

_SCENARIO = ("model", "hardware", "batch", "input_len", "output_len", "mode")
_LENGTHS = ("batch", "input_len", "output_len")
_OTHERS = tuple(c for c in INPUT_COLUMNS if c not in _LENGTHS)


class _Normaliser:
    """`scenarios._normalise` and the row's deployment key, remembering each set of cells
    other than the lengths: a row that repeats a valid row's other cells and gives plain whole
    numbers as lengths is that row with its own lengths (anything else goes through
    `_normalise`, for its own error)."""

    def __init__(self, settings: Mapping[str, Any] | None) -> None:
        self.settings = settings
        self.seen: dict[Any, tuple[dict[str, Any], Any] | None] = {}

    def group(self, inputs: Mapping[str, Any]) -> Any:
        """The deployment fields of a row (with the settings) as a key; None if unhashable."""
        key = tuple(_fields(inputs, self.settings).items())
        try:
            hash(key)
        except TypeError:  # a value that cannot be a key (from Python, not a CSV)
            return None
        return key

    def __call__(self, raw: Mapping[str, Any], line: int) -> tuple[dict[str, Any], Any, Any]:
        """(inputs, error, deployment key) of one row."""
        key: Any = None if raw.get(_EXTRA) else tuple(map(raw.get, _OTHERS))
        try:
            known = None if key is None else self.seen.get(key)
        except TypeError:  # a cell that cannot be a key (from Python, not a CSV)
            known = key = None
        if known is not None:
            template, group = known
            zero = template["mode"] == "decode"
            o = raw.get("output_len")
            empty = o is None or (type(o) is str and not o.strip())
            b, i = _whole(raw.get("batch")), _whole(raw.get("input_len"))
            o = 0 if zero and empty else _whole(o, zero=zero)
            if b is not None and i is not None and o is not None:
                row = template.copy()
                row["batch"], row["input_len"], row["output_len"] = b, i, o
                return row, None, group
        row, err = _normalise(raw, line)
        group = None if err else self.group(row)
        if key is not None and key not in self.seen:
            # a copy: the row itself is filled in with the deployment's defaults later
            self.seen[key] = None if err or group is None else (dict(row), group)
        return row, err, group


def _whole(v: Any, *, zero: bool = False) -> int | None:
    """A cell that is a plain whole number in range, else None."""
    s = v.strip() if type(v) is str else ""
    if not (s.isascii() and s.isdigit()):
        return None
    n = int(s)
    return n if (n >= 1 or (zero and n == 0)) and n <= MAX_SIZE else None


def predict_grouped(
    rows: Iterable[tuple[int, Mapping[str, Any]]], settings: Mapping[str, Any] | None = None
) -> list[ScenarioResult]:
    """Every row's `ScenarioResult`, in the order given."""
    results = []
    groups: dict[Any, list[ScenarioResult]] = {}
    normalise = _Normaliser(settings)
    for line, raw in rows:
        inputs, err, group = normalise(raw, line)
        result = ScenarioResult(line, inputs, error=err)
        results.append(result)
        if err is None:
            groups.setdefault(id(result) if group is None else group, []).append(result)
    for members in groups.values():
        _predict_group(members, settings)
    return results


def _predict_group(members: list[ScenarioResult], settings: Mapping[str, Any] | None) -> None:
    try:
        dep = deployment_from(_fields(members[0].inputs, settings))
    except LlmRooflineError as exc:
        for r in members:
            r.error = _row_error(exc, r.line, "field", "kind")
        return
    # the defaults the deployment filled in (the split the rule chose, the engine)
    filled = scenario_inputs(dep, 1, 1, 0, "decode")
    common = {k: v for k, v in filled.items() if k not in _SCENARIO}
    by_mode: dict[str, list[ScenarioResult]] = {}
    for r in members:
        r.inputs.update(common)
        by_mode.setdefault(r.inputs["mode"], []).append(r)
    for mode, rs in by_mode.items():
        _predict_mode(dep, mode, rs)


def _predict_mode(dep: Deployment, mode: str, rs: list[ScenarioResult]) -> None:
    B, I, O = (
        np.array([r.inputs[c] for r in rs], dtype=np.float64)
        for c in ("batch", "input_len", "output_len")
    )
    ok = valid_rows(B, I, O, mode)
    alone = [r for r, good in zip(rs, ok, strict=True) if not good]
    together = [r for r, good in zip(rs, ok, strict=True) if good]
    if together:
        try:
            cols = dep.serve_many(B[ok], I[ok], O[ok], mode)
        except LlmRooflineError:  # some row the engine refuses: each alone, for its own error
            alone += together
        else:
            _fill(together, cols)
    for r in alone:
        _serve_one(dep, r)


def _fill(rows: list[ScenarioResult], cols: ServingColumns) -> None:
    """The output and range columns of each row from the columns of its figures."""
    n = len(rows)
    values: list[list[Any]] = []
    for c in OUTPUT_COLUMNS:
        col = getattr(cols, c)
        if c == "bound":
            values.append([BOUND_NAMES[i] for i in col.tolist()])
        else:
            values.append([None] * n if col is None else col.tolist())
    ranges = cols.ranges()
    extra = [ranges[c].tolist() if c in ranges else [None] * n for c in RANGE_COLUMNS]
    for r, out, ext, warn in zip(
        rows, zip(*values, strict=True), zip(*extra, strict=True), cols.warnings, strict=True
    ):
        r.outputs = dict(zip(OUTPUT_COLUMNS, out, strict=True))
        r.extra = dict(zip(RANGE_COLUMNS, ext, strict=True))
        r.warning = "; ".join(warn)
