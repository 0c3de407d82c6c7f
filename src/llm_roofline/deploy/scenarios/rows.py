"""Bulk prediction: the scenario CSV contract (docs/cli.md, "The scenario contract").

Input columns: model, hardware, chips, tp, pp, ep, replicas, pad_heads, weight_dtype, kv_dtype,
batch, input_len, output_len, mode, engine. Each row is one `Deployment` (deployment.py): the
split degrees left empty are chosen by its rule (and written back filled in), kv_dtype defaults
to bf16, engine to `calibrated` (the realistic estimate; `ideal` is the lower bound),
`output_len` may be 0 or empty in decode mode. Output: the input columns (defaults filled in),
then OUTPUT_COLUMNS, then RANGE_COLUMNS (a calibrated engine's range of each time and
throughput; empty for `ideal`), then `error` and `warning` (beyond the trained context, does
not fit). A bad row is reported with its line number and column; the other rows are still
predicted and written. Times are computed even when `fits` is false.

`predict_rows` predicts by column (`scenarios.columns`, as `predict --scenarios` does a file):
each deployment built once, its rows of one mode timed together (`Deployment.serve_many`: each
pass one engine call over arrays of batch and lengths); the results, errors and warnings are
those of `predict_one`, row by row.
"""

from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_roofline._core.checks import positive_int
from llm_roofline._core.errors import InputError, LlmRooflineError
from llm_roofline._core.units import parse_count
from llm_roofline.calibration.profile import list_profiles
from llm_roofline.deploy.deployment import DEPLOYMENT_FIELDS, Deployment, deployment
from llm_roofline.deploy.inputs import DEFAULT_ENGINE
from llm_roofline.engine.roofline import MAX_SIZE
from llm_roofline.serving.modes import MODES

__all__ = [
    "INPUT_COLUMNS",
    "OUTPUT_COLUMNS",
    "RANGE_COLUMNS",
    "RowError",
    "ScenarioResult",
    "predict_one",
    "read_scenarios",
    "scenario_inputs",
    "write_results",
]

INPUT_COLUMNS: tuple[str, ...] = ("model", "hardware", "chips", "tp", "pp", "ep", "replicas")
INPUT_COLUMNS += ("pad_heads", "weight_dtype", "kv_dtype", "batch", "input_len", "output_len")
INPUT_COLUMNS += ("mode", "engine")
REQUIRED = ("model", "hardware", "chips", "weight_dtype", "batch", "input_len", "mode")
_RANGED: tuple[str, ...] = ("tpot_s", "ttft_s", "request_latency_s")
_RANGED += ("output_tokens_per_s", "output_tokens_per_s_per_chip")
OUTPUT_COLUMNS: tuple[str, ...] = (
    *_RANGED,
    "fits",
    "bound",
    "t_compute_s",
    "t_weights_s",
    "t_kv_s",
    "t_comm_s",
)
OUTPUT_COLUMNS += ("usd_per_million_output_tokens",)
RANGE_COLUMNS = tuple(f"{c}_{end}" for c in _RANGED for end in ("low", "high"))
_INT_COLUMNS = ("chips", "tp", "pp", "ep", "replicas", "batch", "input_len", "output_len")
_OPTIONAL_INTS = ("tp", "pp", "ep", "replicas", "output_len")
EXTRA_CELLS = "__extra_cells__"


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


def _int_cell(text: str, column: str, *, allow_zero: bool = False) -> int:
    if text.isascii() and text.isdigit():  # the common case, without a float in between
        n = int(text)
        if (n >= 1 or (allow_zero and n == 0)) and n <= MAX_SIZE:
            return n
    # anything else as people write counts: 16k = 16,384, 1M, 1e3 (`units.parse_count`)
    try:
        return parse_count(text, column, allow_zero=allow_zero, maximum=MAX_SIZE)
    except InputError as exc:
        raise ValueError(str(exc).removeprefix(f"{column} ")) from None


@functools.cache
def _engines() -> tuple[str, ...]:
    return tuple(list_profiles())


def normalise_row(raw: Mapping[str, Any], line: int) -> tuple[dict[str, Any], RowError | None]:
    """Fill defaults and parse numbers; the first problem found is returned as a RowError."""
    if raw.get(EXTRA_CELLS):
        return {c: str(raw.get(c) or "").strip() for c in INPUT_COLUMNS}, RowError(
            line, "row", f"{raw[EXTRA_CELLS]} more cell(s) than the header has columns"
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
        row["engine"] = DEFAULT_ENGINE
    if row["mode"] not in MODES:
        return row, RowError(
            line, "mode", f"must be one of {', '.join(MODES)}, got {row['mode']!r}"
        )
    if not row["output_len"] and row["mode"] == "decode":
        row["output_len"] = "0"
    for c in _INT_COLUMNS:
        if c in _OPTIONAL_INTS and not row[c]:
            continue
        try:
            zero = c == "output_len" and row["mode"] == "decode"
            row[c] = _int_cell(row[c], c, allow_zero=zero)
        except ValueError as exc:
            return row, RowError(line, c, str(exc))
    if row["output_len"] == "":
        return row, RowError(line, "output_len", f"missing value (required in {row['mode']} mode)")
    if row["engine"].lower() not in _engines():
        return row, RowError(
            line, "engine", f"must be one of {', '.join(_engines())}, got {row['engine']!r}"
        )
    row["engine"] = row["engine"].lower()
    return row, None


def row_fields(inputs: Mapping[str, Any], settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """The deployment fields of a row, with the settings that apply to every row."""
    fields = {k: inputs[k] for k in DEPLOYMENT_FIELDS if k in inputs}
    fields.update({k: v for k, v in (settings or {}).items() if v is not None})
    return fields


def scenario_inputs(
    dep: Deployment, batch: int, input_len: int, output_len: int, mode: str
) -> dict[str, Any]:
    """The contract's input columns of a scenario on a deployment, every default filled in
    (the split the rule chose, the engine)."""
    d = dep.as_dict()
    row = {c: d[c] for c in INPUT_COLUMNS if c in d}
    row.update(pad_heads="true" if dep.pad_heads else "false", batch=batch, input_len=input_len)
    row.update(output_len=output_len, mode=mode)
    return {c: row[c] for c in INPUT_COLUMNS}


def predict_one(
    row: Mapping[str, Any],
    line: int = 0,
    *,
    settings: Mapping[str, Any] | None = None,
    search_fit: bool = False,
) -> ScenarioResult:
    """Predict one scenario given as a mapping of the contract's input columns.

    `settings`: deployment fields that are not CSV columns (`overlap`, `price_usd_per_hour`;
    from the command line's flags), applied to the row's deployment. `search_fit`: a "does not
    fit" warning names the chips and data types that would fit (`Deployment.serve`); a row of
    a file leaves it off, so that it reads as the file's other rows do."""
    inputs, err = normalise_row(row, line)
    result = ScenarioResult(line=line, inputs=inputs, error=err)
    if err:
        return result
    try:
        dep = deployment_from(row_fields(inputs, settings))
    except LlmRooflineError as exc:
        result.error = row_error(exc, line, "field", "kind")
        return result
    inputs.update(
        scenario_inputs(
            dep, inputs["batch"], inputs["input_len"], inputs["output_len"], inputs["mode"]
        ),
        model=inputs["model"],
        hardware=inputs["hardware"],
    )
    serve_row(dep, result, search_fit)
    return result


def row_error(exc: LlmRooflineError, line: int, *attrs: str) -> RowError:
    named = next((str(v) for a in attrs if (v := getattr(exc, a, None))), "row")
    return RowError(line, named if named in INPUT_COLUMNS else "row", str(exc))


def serve_row(dep: Deployment, result: ScenarioResult, search_fit: bool = False) -> None:
    inputs = result.inputs
    try:
        res = dep.serve(
            batch=inputs["batch"],
            input_len=inputs["input_len"],
            output_len=inputs["output_len"],
            mode=inputs["mode"],
            search_fit=search_fit,
        )
    except LlmRooflineError as exc:
        result.error = row_error(exc, result.line, "field")
        return
    out = res.as_dict()
    result.outputs = {c: out[c] for c in OUTPUT_COLUMNS}
    result.extra = {c: out.get(c) for c in RANGE_COLUMNS}
    result.warning = "; ".join(res.warnings)


def open_scenarios(path: str | Path) -> tuple[Any, list[str]]:
    """A csv reader past the header of a scenario CSV, and the header (`read_scenarios`)."""
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
    return reader, header


def read_scenarios(path: str | Path) -> list[tuple[int, dict[str, str]]]:
    """Rows of a scenario CSV with the line each starts on.

    The header must name every required column once and nothing else (empty names from a
    trailing comma are ignored). A row with more cells than the header keeps its line number
    and is reported as an error by `predict_one`.
    """
    reader, header = open_scenarios(path)
    rows = []
    start = reader.line_num + 1
    for cells in reader:
        line, start = start, reader.line_num + 1
        if not any(c.strip() for c in cells):
            continue  # blank line
        row = {h: c for h, c in zip(header, cells, strict=False) if h}
        extra = [c for c in cells[len(header) :] if c.strip()]
        if extra:
            row[EXTRA_CELLS] = str(len(extra))
        rows.append((line, row))
    return rows


def csv_cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _column(values: list[Any]) -> list[Any]:
    """A column as the csv module writes it: it writes None as "", a float as its repr and an
    int or str as is, in C; only booleans (and anything unusual) are converted here. (A CSV of
    10^5 rows has 4·10^6 cells: converting each in Python cost as much as the engine.)"""
    kinds = set(map(type, values))
    if kinds <= {float, int, str, type(None)}:
        return values
    return [csv_cell(v) for v in values]


def write_results(results: Iterable[ScenarioResult], path: str | Path) -> int:
    """Write the output CSV; returns the number of rows written."""
    rs = list(results)
    inputs, outputs, extra = [r.inputs for r in rs], [r.outputs for r in rs], [r.extra for r in rs]
    columns = [_column([d.get(c) for d in inputs]) for c in INPUT_COLUMNS]
    columns += [_column([d.get(c) for d in outputs]) for c in OUTPUT_COLUMNS]
    columns += [_column([d.get(c) for d in extra]) for c in RANGE_COLUMNS]
    columns.append([str(r.error) if r.error else "" for r in rs])
    columns.append([r.warning for r in rs])
    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([*INPUT_COLUMNS, *OUTPUT_COLUMNS, *RANGE_COLUMNS, "error", "warning"])
        w.writerows(zip(*columns, strict=True))
    return len(rs)


_TRUE = ("1", "true", "yes")
_FALSE = ("", "0", "false", "no")


def _opt_int(row: Mapping[str, Any], key: str) -> int | None:
    v = row.get(key)
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            raise InputError(f"{key} must be a positive integer, got {v!r}", field=key) from None
        if not (math.isfinite(f) and f == int(f)):
            raise InputError(f"{key} must be a positive integer, got {v!r}", field=key)
        v = int(f)
    return positive_int(v, key)


def _flag(row: Mapping[str, Any], key: str) -> bool:
    v = row.get(key)
    if isinstance(v, bool):
        return v
    text = "" if v is None else str(v).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InputError(f"{key} must be true or false, got {v!r}", field=key)


def deployment_from(row: Mapping[str, Any]) -> Deployment:
    """A deployment from a mapping of DEPLOYMENT_FIELDS (CSV cells as text, or JSON values)."""
    unknown = [k for k in row if k not in DEPLOYMENT_FIELDS]
    if unknown:
        raise InputError(
            f"unknown deployment field(s) {', '.join(map(str, unknown))}; allowed: "
            f"{', '.join(DEPLOYMENT_FIELDS)}",
            field=str(unknown[0]),
        )
    for key in ("model", "hardware"):
        if not str(row.get(key) or "").strip():
            raise InputError(f"{key} is required", field=key)
    price = row.get("price_usd_per_hour")
    if isinstance(price, str):
        try:
            price = float(price) if price.strip() else None
        except ValueError:
            raise InputError(
                f"price_usd_per_hour must be a positive number, got {price!r}",
                field="price_usd_per_hour",
            ) from None
    model = row["model"]
    return deployment(
        str(model).strip() if isinstance(model, str) else model,
        str(row["hardware"]).strip() if isinstance(row["hardware"], str) else row["hardware"],
        _opt_int(row, "chips") or 1,
        tp=_opt_int(row, "tp"),
        pp=_opt_int(row, "pp"),
        ep=_opt_int(row, "ep"),
        replicas=_opt_int(row, "replicas"),
        pad_heads=_flag(row, "pad_heads"),
        weight_dtype=str(row.get("weight_dtype") or "bf16").strip(),
        kv_dtype=str(row.get("kv_dtype") or "bf16").strip(),
        overlap=str(row.get("overlap") or "full").strip(),
        engine=str(row.get("engine") or DEFAULT_ENGINE).strip(),
        price_usd_per_hour=price,
    )
