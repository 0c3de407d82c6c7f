"""Bulk prediction: the scenario CSV contract of DESIGN.md.

Input columns: model, hardware, chips, tp, pp, ep, weight_dtype, kv_dtype, batch, input_len,
output_len, mode, engine (tp, pp, ep, kv_dtype and engine optional: tp defaults to chips, pp and
ep to 1, kv_dtype to bf16, engine to ideal). Output: the input columns (defaults filled in),
then OUTPUT_COLUMNS, then `error` and `warning` (beyond the trained context, does not fit).
A bad row is reported with its line number and column; the other rows are still predicted and
written. Times are computed even when `fits` is false.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import LlmRooflineError
from .parallel import Parallelism
from .roofline import MAX_SIZE
from .serving import MODES, serve

__all__ = [
    "INPUT_COLUMNS",
    "OUTPUT_COLUMNS",
    "RowError",
    "ScenarioResult",
    "predict_one",
    "predict_rows",
    "read_scenarios",
    "write_results",
]

INPUT_COLUMNS = (
    "model",
    "hardware",
    "chips",
    "tp",
    "pp",
    "ep",
    "weight_dtype",
    "kv_dtype",
    "batch",
    "input_len",
    "output_len",
    "mode",
    "engine",
)
REQUIRED = (
    "model",
    "hardware",
    "chips",
    "weight_dtype",
    "batch",
    "input_len",
    "output_len",
    "mode",
)
OUTPUT_COLUMNS = (
    "tpot_s",
    "ttft_s",
    "request_latency_s",
    "output_tokens_per_s",
    "output_tokens_per_s_per_chip",
    "fits",
    "bound",
    "t_compute_s",
    "t_weights_s",
    "t_kv_s",
    "t_comm_s",
    "usd_per_million_output_tokens",
)
_INT_COLUMNS = ("chips", "tp", "pp", "ep", "batch", "input_len", "output_len")
_EXTRA = "__extra_cells__"


@dataclass(frozen=True)
class RowError:
    """What was wrong with one input row."""

    line: int
    column: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


@dataclass
class ScenarioResult:
    line: int
    inputs: dict[str, Any]
    outputs: dict[str, Any] = field(default_factory=dict)
    error: RowError | None = None
    warning: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # a calibrated engine's ranges


def _int_cell(text: str, column: str) -> int:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"must be a positive integer, got {text!r}") from None
    if not math.isfinite(v) or v < 1 or v != int(v):
        raise ValueError(f"must be a positive integer, got {text!r}")
    if v > MAX_SIZE:
        raise ValueError(f"must be at most {MAX_SIZE:.0e}, got {text!r}")
    return int(v)


def _normalise(raw: Mapping[str, Any], line: int) -> tuple[dict[str, Any], RowError | None]:
    """Fill defaults and parse numbers; the first problem found is returned as a RowError."""
    if raw.get(_EXTRA):
        return {c: str(raw.get(c) or "").strip() for c in INPUT_COLUMNS}, RowError(
            line, "row", f"{raw[_EXTRA]} more cell(s) than the header has columns"
        )
    row: dict[str, Any] = {
        c: "" if raw.get(c) is None else str(raw.get(c)).strip() for c in INPUT_COLUMNS
    }
    for c in REQUIRED:
        if not row[c]:
            return row, RowError(line, c, "missing value (required column)")
    if not row["kv_dtype"]:
        row["kv_dtype"] = "bf16"
    if not row["engine"]:
        row["engine"] = "ideal"
    for c in _INT_COLUMNS:
        if c in ("tp", "pp", "ep") and not row[c]:
            continue
        try:
            row[c] = _int_cell(row[c], c)
        except ValueError as exc:
            return row, RowError(line, c, str(exc))
    row["tp"] = row["tp"] or row["chips"]
    row["pp"] = row["pp"] or 1
    row["ep"] = row["ep"] or 1
    if row["mode"] not in MODES:
        return row, RowError(
            line, "mode", f"must be one of {', '.join(MODES)}, got {row['mode']!r}"
        )
    from .calibrate import list_profiles

    if row["engine"].lower() not in list_profiles():
        return row, RowError(
            line,
            "engine",
            f"must be one of {', '.join(list_profiles())}, got {row['engine']!r}",
        )
    return row, None


def predict_one(row: Mapping[str, Any], line: int = 0) -> ScenarioResult:
    """Predict one scenario given as a mapping of the contract's input columns."""
    from .catalog import get_hardware, get_model
    from .dtypes import get_dtype

    inputs, err = _normalise(row, line)
    result = ScenarioResult(line=line, inputs=inputs, error=err)
    if err:
        return result
    column = "model"
    try:
        spec = get_model(inputs["model"])
        column = "hardware"
        chip = get_hardware(inputs["hardware"])
        for column in ("weight_dtype", "kv_dtype"):
            get_dtype(inputs[column])
        column = "tp"
        par = Parallelism.of(inputs["chips"], inputs["tp"], inputs["pp"], inputs["ep"])
        par.check(spec)
        column = "row"
        res = serve(
            spec,
            chip,
            inputs["chips"],
            batch=inputs["batch"],
            input_len=inputs["input_len"],
            output_len=inputs["output_len"],
            mode=inputs["mode"],
            weight_dtype=inputs["weight_dtype"],
            kv_dtype=inputs["kv_dtype"],
            parallel=par,
            profile=inputs["engine"].lower(),
        )
    except LlmRooflineError as exc:
        named = getattr(exc, "field", None)
        if column in ("tp", "row") and named in (*INPUT_COLUMNS, "input_len"):
            column = str(named)
        result.error = RowError(line, column, str(exc))
        return result
    out = res.as_dict()
    result.outputs = {c: out[c] for c in OUTPUT_COLUMNS}
    result.extra = {k: v for k, v in out.items() if k.endswith(("_low", "_high"))}
    result.warning = "; ".join(res.warnings)
    return result


def read_scenarios(path: str | Path) -> list[tuple[int, dict[str, str]]]:
    """Rows of a scenario CSV with the line each starts on.

    The header must name every required column once and nothing else (empty names from a
    trailing comma are ignored). A row with more cells than the header keeps its line number
    and is reported as an error by `predict_one`.
    """
    from .errors import InputError

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"no such file: {p}", field="scenarios") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {p}: {exc}", field="scenarios") from None
    if not text.strip():
        raise InputError(
            f"{p} is empty: expected a header line with the columns {', '.join(REQUIRED)}",
            field="scenarios",
        )
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader)]
    named = [h for h in header if h]
    dupes = sorted({h for h in named if named.count(h) > 1})
    if dupes:
        raise InputError(f"{p}: column(s) named twice: {', '.join(dupes)}", field=dupes[0])
    missing = [c for c in REQUIRED if c not in named]
    if missing:
        hint = " (is the file comma-separated?)" if len(named) == 1 else ""
        raise InputError(
            f"{p}: missing column(s) {', '.join(missing)}; required: {', '.join(REQUIRED)}{hint}",
            field=missing[0],
        )
    unknown = [c for c in named if c not in INPUT_COLUMNS]
    if unknown:
        raise InputError(
            f"{p}: unknown column(s) {', '.join(unknown)}; allowed: {', '.join(INPUT_COLUMNS)}",
            field=unknown[0],
        )
    rows = []
    start = reader.line_num + 1
    for cells in reader:
        line, start = start, reader.line_num + 1
        if not any(c.strip() for c in cells):
            continue  # blank line
        row = {h: c for h, c in zip(header, cells, strict=False) if h}
        extra = [c for c in cells[len(header) :] if c.strip()]
        if extra:
            row[_EXTRA] = str(len(extra))
        rows.append((line, row))
    return rows


def predict_rows(rows: Iterable[tuple[int, Mapping[str, Any]]]) -> list[ScenarioResult]:
    return [predict_one(r, line) for line, r in rows]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def write_results(results: Iterable[ScenarioResult], path: str | Path) -> int:
    """Write the output CSV; returns the number of rows written."""
    n = 0
    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([*INPUT_COLUMNS, *OUTPUT_COLUMNS, "error", "warning"])
        for r in results:
            w.writerow(
                [_cell(r.inputs.get(c)) for c in INPUT_COLUMNS]
                + [_cell(r.outputs.get(c)) for c in OUTPUT_COLUMNS]
                + [str(r.error) if r.error else "", r.warning]
            )
            n += 1
    return n
