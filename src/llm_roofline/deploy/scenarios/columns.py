"""Scenario rows at engine speed, by column: `predict --scenarios` and `columns.predict_rows`.

A `Table` holds the rows by column: `read_table` reads a scenario CSV, `Table.of_rows` takes rows
from Python. Rows are grouped by their cells other than the lengths (batch, input_len,
output_len): each distinct set is checked once, by `scenarios._normalise` with lengths of 1, the
single source of its rules and errors; a row of a valid set whose lengths are plain whole numbers
in range is that set's row with its own lengths, any other row goes through `normalise_row` alone.
Each deployment is built once and its rows of one mode, in order, are timed by one
`Deployment.serve_many` (a row the engine refuses is served alone, for its error).
`predict_results` gives `scenarios.predict_one`'s `ScenarioResult` of each row; `predict_table`
their cells, which `Predicted.write` writes from the arrays, never a dict per row: byte for byte
what `write_results(predict_rows(read_scenarios(path)))` writes (tests/deploy/test_scenarios.py).
"""

from __future__ import annotations

import csv
import io
import math
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.errors import LlmRooflineError
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.scenarios.rows import (
    INPUT_COLUMNS,
    OUTPUT_COLUMNS,
    RANGE_COLUMNS,
    RowError,
    ScenarioResult,
    csv_cell,
    deployment_from,
    normalise_row,
    row_error,
    row_fields,
    scenario_inputs,
    serve_row,
)
from llm_roofline.deploy.scenarios.table import Table, gc_paused, read_table
from llm_roofline.engine.roofline import BOUND_NAMES, MAX_SIZE
from llm_roofline.serving.modes import MODES, ServingColumns, valid_rows

__all__ = ["HEADER", "Predicted", "Table", "predict_file", "predict_results", "predict_rows"]
__all__ += ["predict_table", "read_table"]

HEADER = (*INPUT_COLUMNS, *OUTPUT_COLUMNS, *RANGE_COLUMNS, "error", "warning")
_LENGTHS = ("batch", "input_len", "output_len")
_OTHERS = tuple(c for c in INPUT_COLUMNS if c not in _LENGTHS)
_SCENARIO = ("model", "hardware", "batch", "input_len", "output_len", "mode")
_FLOATS = frozenset(HEADER) - {"fits", "bound", "error", "warning", *INPUT_COLUMNS}
_SAFE = frozenset(string.ascii_letters + string.digits + "._-+")  # never quoted by csv
_BLANK_OUT = -1.0  # an empty output_len: 0 in decode mode, an error in the others
_OBJ = {"bound": np.array(BOUND_NAMES, dtype=object), "fits": np.array(["false", "true"], object)}


@dataclass
class Predicted:
    """The output columns of a table's rows (the text of each cell), and the errors."""

    columns: dict[str, list[str]]
    errors: list[RowError]

    @gc_paused()
    def write(self, path: str | Path) -> int:
        """Write the output CSV (`scenarios.write_results`'s bytes); returns the rows."""
        cols = [v if c in _FLOATS else _quoted(v) for c, v in self.columns.items()]
        with Path(path).open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerow(HEADER)
            if cols[0]:
                fh.write("\r\n".join(map(",".join, zip(*cols, strict=True))))
                fh.write("\r\n")
        return len(cols[0])


def _quoted(column: list[str]) -> list[str]:
    """Each cell as the csv module writes it (quoted where it must be)."""
    text = {v: v if _SAFE.issuperset(v) else _csv_text(v) for v in set(column)}
    if all(k is v for k, v in text.items()):
        return column
    return list(map(text.__getitem__, column))


def _csv_text(v: str) -> str:
    buf = io.StringIO()
    csv.writer(buf).writerow([v, ""])
    return buf.getvalue()[: -len(",\r\n")]


def predict_file(
    src: str | Path, dst: str | Path, settings: Mapping[str, Any] | None = None
) -> tuple[int, list[RowError]]:
    """`predict --scenarios SRC --out DST`: the rows written and the errors."""
    out = predict_table(read_table(src), settings)
    return out.write(dst), out.errors


@gc_paused()
def predict_table(table: Table, settings: Mapping[str, Any] | None = None) -> Predicted:
    """Every row of `table` predicted: the cells `scenarios.write_results` would write."""
    return _Run(table, settings).run().text()


@gc_paused()
def predict_results(table: Table, settings: Mapping[str, Any] | None = None) -> list[Any]:
    """Every row of `table` predicted: `scenarios.predict_one`'s `ScenarioResult` of each."""
    return _Run(table, settings).run().results()


class _Run:
    """One prediction of a table: the rows' groups, lengths, deployments and figures."""

    def __init__(self, table: Table, settings: Mapping[str, Any] | None) -> None:
        self.table, self.settings, self.n = table, settings, (n := len(table.lines))
        self.errors: dict[int, RowError] = {}
        self.deps: dict[Any, int] = {}  # a deployment's fields (as a key) -> its number
        self.fields: list[dict[str, Any]] = []  # each deployment's fields
        self.alone: dict[int, ScenarioResult] = {}  # rows normalised alone (an error or not)
        self.served: dict[int, ScenarioResult] = {}  # rows served alone
        self.chunks: list[tuple[NDArray[np.intp], ServingColumns]] = []  # rows served together
        keys = list(zip(*(table.cells.get(c, ("",) * n) for c in _OTHERS), strict=True))
        ids = {key: i for i, key in enumerate(dict.fromkeys(keys))}
        self.group = np.fromiter(map(ids.__getitem__, keys), dtype=np.intp, count=n)
        self.templates = [self._template(key) for key in ids]

    def _template(self, key: tuple[str, ...]) -> tuple[dict[str, Any], int] | None:
        """The normalised inputs of a set of cells, with lengths of 1, and its deployment."""
        raw = dict(zip(_OTHERS, key, strict=True)) | dict.fromkeys(_LENGTHS, "1")
        row, err = normalise_row(raw, 0)
        return None if err else (row, self._dep(row))

    def _dep(self, inputs: Mapping[str, Any]) -> int:
        """The number of a row's deployment (rows of the same fields share one)."""
        fields = row_fields(inputs, self.settings)
        key: Any = tuple(fields.items())
        try:
            hash(key)
        except TypeError:  # a setting that cannot be a key (from Python): its own deployment
            key = object()
        if key not in self.deps:
            self.deps[key] = len(self.fields)
            self.fields.append(fields)
        return self.deps[key]

    def _lengths(self) -> tuple[NDArray[np.float64], ...]:
        """batch, input_len, output_len of each row; NaN where not a plain whole number in
        range (output_len: _BLANK_OUT where empty)."""
        out = []
        for c in _LENGTHS:
            num: dict[str, float] = {}
            for v in set(self.table.cells.get(c, ("",))):
                s = v.strip()
                if s.isascii() and s.isdigit() and len(s) <= 20 and int(s) <= MAX_SIZE:
                    num[v] = int(s)
                elif not s and c == "output_len":
                    num[v] = _BLANK_OUT
            cells = self.table.cells.get(c, repeat("", self.n))
            out.append(np.fromiter(map(num.get, cells, repeat(math.nan)), np.float64, self.n))
        return tuple(out)

    def run(self) -> _Run:
        mode_of = np.array([MODES.index(t[0]["mode"]) if t else -1 for t in self.templates])
        dep_of = np.array([t[1] if t else -1 for t in self.templates], dtype=np.intp)
        B, I, O = self._lengths()
        decode = mode_of[self.group] == MODES.index("decode")
        O[decode & (O == _BLANK_OUT)] = 0
        fast = np.array([t is not None for t in self.templates], bool)[self.group] & (B >= 1)
        fast &= I >= 1
        fast &= (O >= 1) | (decode & (O == 0))  # NaN compares false
        fast[[*self.table.extra, *self.table.odd]] = False
        self.mode, self.dep = mode_of[self.group], np.where(fast, dep_of[self.group], -1)
        self.B, self.I, self.O, self.fast = B, I, O, fast
        for k in np.flatnonzero(~fast).tolist():
            self._normalise_alone(k)
        built = [_build(fields) for fields in self.fields]
        # each set of cells filled in by its deployment (the split the rule chose, the engine)
        self.filled = [{} if t is None else t[0] | built[t[1]][1] for t in self.templates]
        for k, r in self.alone.items():
            r.inputs.update({} if r.error else built[self.dep[k]][1])
        for d, (dep, _) in enumerate(built):
            rows = np.flatnonzero(self.dep == d)
            if isinstance(dep, LlmRooflineError):
                for k in rows.tolist():
                    self.errors[k] = row_error(dep, self.table.lines[k], "field", "kind")
                continue
            for m, mode in enumerate(MODES):
                if (sel := rows[self.mode[rows] == m]).size:
                    self._serve(dep, mode, sel)
        return self

    def _normalise_alone(self, k: int) -> None:
        inputs, err = normalise_row(self.table.row(k), self.table.lines[k])
        self.alone[k] = ScenarioResult(self.table.lines[k], inputs, error=err)
        if err:
            self.errors[k] = err
            return
        self.dep[k], self.mode[k] = self._dep(inputs), MODES.index(inputs["mode"])
        self.B[k], self.I[k], self.O[k] = (inputs[c] for c in _LENGTHS)

    def _serve(self, dep: Deployment, mode: str, sel: NDArray[np.intp]) -> None:
        B, I, O = self.B[sel], self.I[sel], self.O[sel]
        ok = valid_rows(B, I, O, mode)
        alone = sel[~ok].tolist()
        if ok.any():
            try:
                cols = dep.serve_many(B[ok], I[ok], O[ok], mode)
            except LlmRooflineError:  # some row the engine refuses: each alone, for its error
                alone = sel.tolist()
            else:
                self.chunks.append((sel[ok], cols))
        for k in alone:
            own = dict(zip(_LENGTHS, map(int, (self.B[k], self.I[k], self.O[k])), strict=True))
            r = self.alone.get(k) or ScenarioResult(self.table.lines[k], own | {"mode": mode})
            serve_row(dep, r)
            self.served[k] = r
            if r.error:
                self.errors[k] = r.error

    def text(self) -> Predicted:
        """The cells of every row as `scenarios.write_results` writes them."""
        out = {c: np.full(self.n, "", dtype=object) for c in HEADER}
        idx = np.flatnonzero(self.fast)
        group = self.group[idx]
        for c in _OTHERS:
            out[c][idx] = np.array([csv_cell(r.get(c)) for r in self.filled], dtype=object)[group]
        for c, v in zip(_LENGTHS, (self.B, self.I, self.O), strict=True):
            whole = v[idx].astype(np.int64)
            texts = {x: str(x) for x in set(whole.tolist())}
            out[c][idx] = list(map(texts.__getitem__, whole.tolist()))
        for k, r in self.alone.items():
            for c in INPUT_COLUMNS:
                out[c][k] = csv_cell(r.inputs.get(c))
        for rows, cols in self.chunks:
            self._fill(out, rows, cols)
        for k, r in self.served.items():
            for c, v in (*r.outputs.items(), *r.extra.items(), ("warning", r.warning)):
                out[c][k] = csv_cell(v)
        errors = [self.errors[k] for k in sorted(self.errors)]
        out["error"][sorted(self.errors)] = [str(e) for e in errors]
        return Predicted({c: v.tolist() for c, v in out.items()}, errors)

    @staticmethod
    def _fill(out: dict[str, Any], rows: NDArray[np.intp], cols: ServingColumns) -> None:
        """The output and range cells of `rows` from the columns of their figures."""
        done: list[tuple[NDArray[np.int64], list[str]]] = []  # a column equal to another
        for c, v in (*((c, getattr(cols, c)) for c in OUTPUT_COLUMNS), *cols.ranges().items()):
            if v is None:
                continue
            if c in _OBJ:
                out[c][rows] = _OBJ[c][np.asarray(v, dtype=np.intp)]
            elif v.dtype != np.float64:
                out[c][rows] = list(map(csv_cell, v.tolist()))
            else:
                bits = np.ascontiguousarray(v).view(np.int64)  # -0.0 apart from 0.0
                same = (t for b, t in done if np.array_equal(b, bits))
                if (texts := next(same, None)) is None:
                    done.append((bits, texts := _reprs(bits)))
                out[c][rows] = texts
        out["warning"][rows] = ["; ".join(w) for w in cols.warnings]

    def results(self) -> list[ScenarioResult]:
        """Each row's `ScenarioResult`: inputs with defaults filled, outputs, ranges, error."""
        lines, errors = self.table.lines, self.errors
        res: list[Any] = [None] * self.n
        idx = np.flatnonzero(self.fast)
        lengths = (v[idx].astype(np.int64).tolist() for v in (self.B, self.I, self.O))
        for k, g, b, i, o in zip(idx.tolist(), self.group[idx].tolist(), *lengths, strict=True):
            row = self.filled[g].copy()
            row["batch"], row["input_len"], row["output_len"] = b, i, o
            res[k] = ScenarioResult(lines[k], row, error=errors.get(k))
        for k, r in self.alone.items():
            res[k], r.error = r, errors.get(k)
        for rows, cols in self.chunks:  # the figures of rows served together, by column
            got = {c: getattr(cols, c) for c in OUTPUT_COLUMNS} | cols.ranges()
            got["bound"] = _OBJ["bound"][np.asarray(got["bound"], dtype=np.intp)]
            none = [None] * rows.size
            out = [none if (v := got.get(c)) is None else v.tolist() for c in OUTPUT_COLUMNS]
            ext = [none if (v := got.get(c)) is None else v.tolist() for c in RANGE_COLUMNS]
            out_ext = zip(zip(*out, strict=True), zip(*ext, strict=True), strict=True)
            for k, (o, e), w in zip(rows.tolist(), out_ext, cols.warnings, strict=True):
                res[k].outputs = dict(zip(OUTPUT_COLUMNS, o, strict=True))
                res[k].extra = dict(zip(RANGE_COLUMNS, e, strict=True))
                res[k].warning = "; ".join(w)
        for k, r in self.served.items():
            res[k].outputs, res[k].extra, res[k].warning = r.outputs, r.extra, r.warning
        return res


def _reprs(bits: NDArray[np.int64]) -> list[str]:
    """`repr` of each float (given by its bits): lossless, what the csv module writes; each
    distinct value once where many repeat."""
    values, index = np.unique(bits, return_inverse=True)
    if values.size > 0.8 * bits.size:
        return list(map(float.__repr__, bits.view(np.float64).tolist()))
    texts = list(map(float.__repr__, values.view(np.float64).tolist()))
    return list(map(texts.__getitem__, index.tolist()))


def _build(fields: dict[str, Any]) -> tuple[Deployment | LlmRooflineError, dict[str, Any]]:
    """A deployment (or why not) and the input columns it fills in, other than the scenario's."""
    try:
        dep = deployment_from(fields)
    except LlmRooflineError as exc:
        return exc, {}
    filled = scenario_inputs(dep, 1, 1, 0, "decode")
    return dep, {k: v for k, v in filled.items() if k not in _SCENARIO}


def predict_rows(
    rows: Iterable[tuple[int, Mapping[str, Any]]], *, settings: Mapping[str, Any] | None = None
) -> list[ScenarioResult]:
    """Predict every row (`predict_one`'s results, errors and warnings), by column: the rows
    of one deployment and mode timed together ."""
    return predict_results(Table.of_rows(rows), settings)
