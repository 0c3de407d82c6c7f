"""The shipped hardware catalog: one TOML record a chip, unit-suffixed keys, a source each.

Ids are lower-case and looked up case-insensitively; an unknown id raises UnknownIdError with
the closest ids. A chip may also be given as a path to a `.toml` file holding one record in
the catalog's schema (`hardware_toml` prints one). Where every figure comes from:
docs/catalog.md.
"""

from __future__ import annotations

import functools
import json
import math
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from llm_roofline._core.errors import ConfigError, unknown_catalog_id
from llm_roofline.hardware.chip import Chip

__all__ = ["get_hardware", "hardware_records", "hardware_toml", "list_hardware"]


@functools.cache
def hardware_records() -> dict[str, dict[str, Any]]:
    """Every raw hardware record, by id (sources included), from all files in data/hardware."""
    records: dict[str, dict[str, Any]] = {}
    folder = resources.files("llm_roofline").joinpath("data", "hardware")
    for item in sorted(folder.iterdir(), key=lambda t: t.name):
        if not item.name.endswith(".toml"):
            continue
        for hw_id, rec in tomllib.loads(item.read_text(encoding="utf-8")).items():
            key = hw_id.lower()
            if key in records:
                raise ConfigError(f"hardware id {key!r} is defined twice (again in {item.name})")
            records[key] = dict(rec, _file=item.name)
    return records


def _without_bookkeeping(rec: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rec.items() if k != "_file"}


@functools.cache
def _chip(hw_id: str) -> Chip:
    return Chip.from_record(hw_id, _without_bookkeeping(hardware_records()[hw_id]))


def list_hardware() -> list[str]:
    """Every hardware id in the catalog, sorted."""
    return sorted(hardware_records())


def _is_record_file(hardware: object) -> bool:
    return isinstance(hardware, Path) or (
        isinstance(hardware, str) and hardware.lower().endswith(".toml")
    )


def _read_record_file(path: str | Path) -> tuple[str, dict[str, Any]]:
    """The one (id, record) a user's .toml file holds; ConfigError naming the file otherwise."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("no such file", "path", source=where) from None
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ConfigError(f"cannot be read: {why}", "path", source=where) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = " ".join(str(e).split())
        raise ConfigError(f"is not valid TOML: {msg}", "toml", source=where) from None
    if len(data) != 1:
        names = f" ({', '.join(map(repr, data))})" if data else ""
        raise ConfigError(
            f"must hold exactly one hardware table [id], found {len(data)}{names}",
            "id",
            source=where,
        )
    ((hw_id, rec),) = data.items()
    if not isinstance(rec, dict):
        raise ConfigError(
            f"top-level key {hw_id!r} is not a table: a record is one [id] table, its keys below",
            hw_id,
            source=where,
        )
    if not hw_id.strip():
        raise ConfigError("the table name (the chip's id) must not be empty", "id", source=where)
    return hw_id, rec


def get_hardware(hardware: str | Path | Chip, *, files: bool = True) -> Chip:
    """A Chip from a catalog id (case-insensitive), a path to a .toml file holding one record in
    the catalog's schema (a `str` ending in .toml, or a Path; its table name is the id), or a Chip
    (returned as is).

    A bad file raises ConfigError with one line naming the file and the field, e.g.
    `my.toml: memory_bandwidth_tb_per_s must be a positive number, got -1`. `files=False` takes
    catalog ids only (for a server that must not read paths its users name).
    """
    if isinstance(hardware, Chip):
        return hardware
    if files and _is_record_file(hardware):
        hw_id, rec = _read_record_file(hardware)
        return Chip.from_record(hw_id, rec, source=str(hardware))
    key = str(hardware).strip().lower()
    records = hardware_records()
    if key not in records:
        raise unknown_catalog_id("hardware", str(hardware), sorted(records))
    return _chip(key)


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string, but for DEL, which TOML wants escaped.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan")
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ConfigError(f"a hardware record cannot hold {value!r}", "record")


def _record_toml(hw_id: str, rec: dict[str, Any]) -> str:
    head = _toml_key(hw_id)
    lines = [f"[{head}]"]
    tables: list[tuple[str, dict[str, Any]]] = []
    for key, value in rec.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for key, table in tables:
        lines += ["", f"[{head}.{_toml_key(key)}]"]
        lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def hardware_toml(hardware: str | Path | Chip) -> str:
    """One hardware record in the catalog's own TOML schema: a `[id]` table with the
    unit-suffixed keys, `estimated`, notes, and its `[id.sources]` table.

    Written to a file and loaded back with `get_hardware(path)` it gives an identical Chip. A
    catalog id (or a Chip equal to that catalog chip) prints the catalog's record as stored,
    every key kept; any other Chip prints `Chip.to_record()` (memory in GB).
    """
    if isinstance(hardware, Chip):
        key = hardware.id.strip().lower()
        if key in hardware_records() and _chip(key) == hardware:
            return _record_toml(key, _without_bookkeeping(hardware_records()[key]))
        return _record_toml(hardware.id, hardware.to_record())
    if _is_record_file(hardware):
        hw_id, rec = _read_record_file(hardware)
        Chip.from_record(hw_id, rec, source=str(hardware))  # refuse a bad record here too
        return _record_toml(hw_id, rec)
    key = str(hardware).strip().lower()
    records = hardware_records()
    if key not in records:
        raise unknown_catalog_id("hardware", str(hardware), sorted(records))
    return _record_toml(key, _without_bookkeeping(records[key]))
