"""The scenario CSV at engine speed: `predict --scenarios` read, predicted and written by column.

`read_table` reads a scenario CSV (the header checked by `scenarios.open_scenarios`) into one
list of cells per column. `predict_table` groups the rows by their cells other than the
lengths (batch, input_len, output_len): each distinct set is checked once, by
`scenarios._normalise` with lengths of 1, the single source of its rules and errors. A row of
a valid set whose lengths are plain whole numbers in range is that set's row with its own
lengths; any other row (bad or unusual lengths, an invalid set, cells beyond the header) goes
through `_normalise` alone, for its own error or its own inputs. Then, as `scenario_groups`
does row by row, each deployment is built once and its rows of one mode, in file order, are
timed by one `Deployment.serve_many`; a row the engine refuses is served alone
(`scenarios._serve_one`) for its error. `Predicted.write` writes the output columns from the
arrays (`repr` of each float, the csv module's quoting), never a dict per row. The file is
byte for byte what `write_results(predict_rows(read_scenarios(path)))` writes
(tests/test_scenario_groups.py).
"""

from __future__ import annotations

import csv
import functools
import gc
import io
import math
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .deployment import Deployment
from .errors import LlmRooflineError
from .roofline import BOUND_NAMES, MAX_SIZE
from .scenarios import (
    _EXTRA,
    INPUT_COLUMNS,
    OUTPUT_COLUMNS,
    RANGE_COLUMNS,
    RowError,
    ScenarioResult,
    _cell,
    _fields,
    _normalise,
    _row_error,
    _serve_one,
    deployment_from,
    open_scenarios,
    scenario_inputs,
)
from .serving import MODES, ServingColumns, valid_rows

__all__ = ["HEADER", "Predicted", "Table", "predict_file", "predict_table", "read_table"]

HEADER = (*INPUT_COLUMNS, *OUTPUT_COLUMNS, *RANGE_COLUMNS, "error", "warning")
_LENGTHS = ("batch", "input_len", "output_len")
_OTHERS = tuple(c for c in INPUT_COLUMNS if c not in _LENGTHS)
_SCENARIO = ("model", "hardware", "batch", "input_len", "output_len", "mode")
_FLOATS = frozenset(HEADER) - {"fits", "bound", "error", "warning", *INPUT_COLUMNS}
_SAFE = frozenset(string.ascii_letters + string.digits + "._-+")  # never quoted by csv
_BLANK_OUT = -1.0  # an empty output_len: 0 in decode mode, an error in the others
_OBJ = {"bound": np.array(BOUND_NAMES, dtype=object), "fits": np.array(["false", "true"], object)}


F = TypeVar("F", bound=Callable[..., Any])


def _gc_paused(fn: F) -> F:
    """`fn` with the cyclic garbage collector paused: its 10^5 rows are 10^6 objects, none in
    a cycle, and each collection would walk them all (a third of the time to read a file)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was:
                gc.enable()

    return run  # type: ignore[return-value]


@dataclass
class Table:
    """The rows of a scenario CSV by column: `cells[name][k]`, the text of row k in that
    column ("" where the row is short); `lines[k]`, the line row k starts on; `extra[k]`, the
    count of non-empty cells beyond the header. Blank lines are left out."""

    cells: dict[str, Sequence[str]]
    lines: list[int]
    extra: dict[int, int] = field(default_factory=dict)

    def row(self, k: int) -> dict[str, str]:
        """Row k as `scenarios.read_scenarios` gives it."""
        row = {c: col[k] for c, col in self.cells.items()}
        if k in self.extra:
            row[_EXTRA] = str(self.extra[k])
        return row


@_gc_paused
def read_table(path: str | Path) -> Table:
    """A scenario CSV by column (the rows, lines and errors of `scenarios.read_scenarios`)."""
    reader, header = open_scenarios(path)
    width = len(header)
    records: list[list[str]] = []
    ends: list[int] = []
    start = reader.line_num + 1
    for cells in reader:
        records.append(cells)
        ends.append(reader.line_num)
    lines = [start, *(e + 1 for e in ends[:-1])][: len(records)]
    blank, extra = set(), {}
    for k, cells in enumerate(records):
        if len(cells) != width:
            if not any(c.strip() for c in cells):
                blank.add(k)
            elif more := sum(1 for c in cells[width:] if c.strip()):
                extra[k] = more
            records[k] = (cells + [""] * width)[:width]
    columns = list(zip(*records, strict=True)) if records else [()] * width
    model = columns[header.index("model")]
    if any(not v.strip() for v in set(model)):  # a row of empty cells is a blank line too
        empty = (k for k, v in enumerate(model) if not v.strip())
        blank.update(k for k in empty if not any(map(str.strip, records[k])))
    if blank:
        keep = [k for k in range(len(records)) if k not in blank]
        extra = {i: extra[k] for i, k in enumerate(keep) if k in extra}
        lines = [lines[k] for k in keep]
        columns = [tuple(col[k] for k in keep) for col in columns]
    cells = {h: col for h, col in zip(header, columns, strict=True) if h}
    return Table(cells, lines, extra)


@dataclass
class Predicted:
    """The output columns of a table's rows (the text of each cell), and the errors."""

    columns: dict[str, list[str]]
    errors: list[RowError]

    @_gc_paused
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


@_gc_paused
def predict_table(table: Table, settings: Mapping[str, Any] | None = None) -> Predicted:
    """Every row of `table` predicted: the cells `scenarios.write_results` would write."""
    return _Run(table, settings).run()


class _Run:
    """One `predict_table`: the rows' groups, lengths and output columns."""

    def __init__(self, table: Table, settings: Mapping[str, Any] | None) -> None:
        self.table, self.settings, n = table, settings, len(table.lines)
        self.n, blank = n, ("",) * n
        self.out = {c: np.full(n, "", dtype=object) for c in HEADER}
        self.errors: dict[int, RowError] = {}
        self.deps: dict[Any, int] = {}  # a deployment's fields (as a key) -> its number
        self.fields: list[dict[str, Any]] = []  # each deployment's fields
        self.alone: dict[int, ScenarioResult] = {}  # rows normalised alone, without error
        keys = list(zip(*(table.cells.get(c, blank) for c in _OTHERS), strict=True))
        ids = dict.fromkeys(keys, 0)
        for i, key in enumerate(ids):
            ids[key] = i
        self.group = np.fromiter(map(ids.__getitem__, keys), dtype=np.intp, count=n)
        self.templates = [self._template(key) for key in ids]

    def _template(self, key: tuple[str, ...]) -> tuple[dict[str, Any], int] | None:
        """The normalised inputs of a set of cells, with lengths of 1, and its deployment."""
        raw = dict(zip(_OTHERS, key, strict=True)) | dict.fromkeys(_LENGTHS, "1")
        row, err = _normalise(raw, 0)
        return None if err else (row, self._dep(row))

    def _dep(self, inputs: Mapping[str, Any]) -> int:
        """The number of a row's deployment (rows of the same fields share one)."""
        fields = _fields(inputs, self.settings)
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

    def run(self) -> Predicted:
        ok = [t is not None for t in self.templates]
        mode_of = np.array([MODES.index(t[0]["mode"]) if t else -1 for t in self.templates])
        dep_of = np.array([t[1] if t else -1 for t in self.templates], dtype=np.intp)
        B, I, O = self._lengths()
        decode = mode_of[self.group] == MODES.index("decode")
        O[decode & (O == _BLANK_OUT)] = 0
        fast = np.asarray(ok, dtype=bool)[self.group] & (B >= 1) & (I >= 1)
        fast &= (O >= 1) | (decode & (O == 0))  # NaN compares false
        fast[list(self.table.extra)] = False
        self.mode, self.dep = mode_of[self.group], np.where(fast, dep_of[self.group], -1)
        self.B, self.I, self.O = B, I, O
        for k in np.flatnonzero(~fast).tolist():
            self._normalise_alone(k)
        built = [self._build(fields) for fields in self.fields]
        self._input_cells(built, fast)
        for d, dep in enumerate(built):
            rows = np.flatnonzero(self.dep == d)
            if isinstance(dep, LlmRooflineError):
                for k in rows.tolist():
                    self.errors[k] = _row_error(dep, self.table.lines[k], "field", "kind")
                continue
            for m, mode in enumerate(MODES):
                if (sel := rows[self.mode[rows] == m]).size:
                    self._serve(dep, mode, sel)
        errors = [self.errors[k] for k in sorted(self.errors)]
        self.out["error"][sorted(self.errors)] = [str(e) for e in errors]
        return Predicted({c: v.tolist() for c, v in self.out.items()}, errors)

    def _normalise_alone(self, k: int) -> None:
        inputs, err = _normalise(self.table.row(k), self.table.lines[k])
        if err:
            self.errors[k] = err
            self._inputs(k, inputs)
            return
        self.alone[k] = ScenarioResult(self.table.lines[k], inputs)
        self.dep[k], self.mode[k] = self._dep(inputs), MODES.index(inputs["mode"])
        self.B[k], self.I[k], self.O[k] = (inputs[c] for c in _LENGTHS)

    def _build(self, fields: dict[str, Any]) -> Deployment | LlmRooflineError:
        try:
            return deployment_from(fields)
        except LlmRooflineError as exc:
            return exc

    def _inputs(self, k: int, inputs: Mapping[str, Any]) -> None:
        for c in INPUT_COLUMNS:
            self.out[c][k] = _cell(inputs.get(c))

    def _input_cells(self, built: list[Deployment | LlmRooflineError], fast: Any) -> None:
        """The input columns: each set of cells filled in by its deployment (the split the
        rule chose, the engine), the lengths as whole numbers; rows normalised alone apart."""
        filled = []
        for t in self.templates:
            row = {} if t is None else dict(t[0])
            if t is not None and not isinstance(dep := built[t[1]], LlmRooflineError):
                row.update(_common(dep))
            filled.append(row)
        idx = np.flatnonzero(fast)
        group = self.group[idx]
        for c in _OTHERS:
            self.out[c][idx] = np.array([_cell(r.get(c)) for r in filled], dtype=object)[group]
        for c, v in zip(_LENGTHS, (self.B, self.I, self.O), strict=True):
            whole = v[idx].astype(np.int64)
            texts = {x: str(x) for x in set(whole.tolist())}
            self.out[c][idx] = list(map(texts.__getitem__, whole.tolist()))
        for k, r in self.alone.items():
            dep = built[self.dep[k]]
            if not isinstance(dep, LlmRooflineError):
                r.inputs.update(_common(dep))
            self._inputs(k, r.inputs)

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
                self._fill(sel[ok], cols)
        for k in alone:
            r = self.alone.get(k) or ScenarioResult(self.table.lines[k], {})
            if not r.inputs:
                lengths = (self.B[k], self.I[k], self.O[k])
                r.inputs.update(zip(_LENGTHS, map(int, lengths), strict=True))
                r.inputs["mode"] = mode
            _serve_one(dep, r)
            if r.error:
                self.errors[k] = r.error
            for c, v in (*r.outputs.items(), *r.extra.items(), ("warning", r.warning)):
                self.out[c][k] = _cell(v)

    def _fill(self, rows: NDArray[np.intp], cols: ServingColumns) -> None:
        """The output and range columns of `rows` from the columns of their figures."""
        done: list[tuple[NDArray[np.int64], list[str]]] = []  # a column equal to another
        for c, v in (*((c, getattr(cols, c)) for c in OUTPUT_COLUMNS), *cols.ranges().items()):
            if v is None:
                continue
            if c in _OBJ:
                self.out[c][rows] = _OBJ[c][np.asarray(v, dtype=np.intp)]
            elif v.dtype != np.float64:
                self.out[c][rows] = list(map(_cell, v.tolist()))
            else:
                bits = np.ascontiguousarray(v).view(np.int64)  # -0.0 apart from 0.0
                same = (t for b, t in done if np.array_equal(b, bits))
                if (texts := next(same, None)) is None:
                    done.append((bits, texts := _reprs(bits)))
                self.out[c][rows] = texts
        self.out["warning"][rows] = ["; ".join(w) for w in cols.warnings]


def _reprs(bits: NDArray[np.int64]) -> list[str]:
    """`repr` of each float (given by its bits): lossless, what the csv module writes; each
    distinct value once where many repeat."""
    values, index = np.unique(bits, return_inverse=True)
    if values.size > 0.8 * bits.size:
        return list(map(float.__repr__, bits.view(np.float64).tolist()))
    texts = list(map(float.__repr__, values.view(np.float64).tolist()))
    return list(map(texts.__getitem__, index.tolist()))


def _common(dep: Deployment) -> dict[str, Any]:
    """The input columns a deployment fills in, other than the scenario's own."""
    filled = scenario_inputs(dep, 1, 1, 0, "decode")
    return {k: v for k, v in filled.items() if k not in _SCENARIO}
