"""The shipped catalogs: models (real config.json files) and hardware (TOML records).

Ids are lower-case and looked up case-insensitively. An unknown id raises UnknownIdError with
the closest ids. A model may also be given as a path to a config.json, and a chip as a path to a
`.toml` file holding one record in the catalog's schema (`hardware_toml` prints one).

Layout of `data/`:
  models/<id>.config.json   the model's config.json (published, edited or assembled: its .toml)
  models/<id>.toml          where it came from, and the published parameter count
  hardware/*.toml           one table per chip id, unit-suffixed keys, a `sources` table each
  dtypes.toml               data types and their bits per element

The schema of both and where every figure comes from: docs/catalog.md.
"""

from __future__ import annotations

import functools
import json
import math
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from .errors import ConfigError, InputError, UnknownIdError, closest_ids
from .hardware import Chip
from .hf_config import load_config, spec_from_config
from .model import ModelSpec

__all__ = [
    "ModelEntry",
    "get_hardware",
    "get_model",
    "hardware_records",
    "hardware_toml",
    "list_hardware",
    "list_models",
    "model_entry",
    "similar_models",
]


def _data() -> Traversable:
    return resources.files("llm_roofline").joinpath("data")


@dataclass(frozen=True)
class ModelEntry:
    """A catalog model: its config.json and the provenance of every figure."""

    id: str
    name: str
    config: dict[str, Any]
    meta: dict[str, Any]

    @property
    def spec(self) -> ModelSpec:
        return _spec(self.id)


@functools.cache
def _model_entries() -> dict[str, ModelEntry]:
    folder = _data().joinpath("models")
    entries: dict[str, ModelEntry] = {}
    for item in sorted(folder.iterdir(), key=lambda t: t.name):
        if not item.name.endswith(".toml"):
            continue
        meta = tomllib.loads(item.read_text(encoding="utf-8"))
        mid = str(meta.get("id", item.name[: -len(".toml")])).lower()
        cfg_file = folder.joinpath(f"{mid}.config.json")
        try:
            cfg = json.loads(cfg_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"catalog model {mid!r} has no {mid}.config.json") from None
        entries[mid] = ModelEntry(id=mid, name=str(meta.get("name", mid)), config=cfg, meta=meta)
    return entries


@functools.cache
def _spec(model_id: str) -> ModelSpec:
    e = _model_entries()[model_id]
    return spec_from_config(e.config, name=e.name, source=f"catalog:{model_id}")


def list_models() -> list[str]:
    """Every model id in the catalog, sorted."""
    return sorted(_model_entries())


def _tokens(model_id: str) -> set[str]:
    """The words of an id, split at separators and between letters and digits, a size kept
    whole: 'llama-3.1-70b' -> {'llama', '3', '1', '70b'}, 'qwen2.5-72b' -> {'qwen', '2', '5',
    '72b'}."""
    return set(re.findall(r"\d+(?:\.\d+)?[bmk](?![a-z])|[a-z]+|\d+", model_id.lower()))


def similar_models(given: str, known: list[str] | None = None, n: int = 8) -> list[str]:
    """Catalog ids a user probably meant by `given`: every id holding all of its words (the
    family and the size: 'llama-70b' -> llama-2-70b, llama-3-70b, llama-3.1-70b,
    llama-3.3-70b), fewest other words first, then those `errors.closest_ids` finds by
    spelling; at most `n`."""
    ids = sorted(known if known is not None else _model_entries())
    words = _tokens(given)
    found = sorted(
        (k for k in ids if words and words <= _tokens(k)), key=lambda k: (len(_tokens(k)), k)
    )
    found += [k for k in closest_ids(given, ids) if k not in found]
    return found[:n]


# the command that lists each catalog, named where an id is not found in it
_LISTED_BY = {"model": "llm-roofline models", "hardware": "llm-roofline hardware"}


def _unknown(
    kind: str, given: str, known: list[str], close: list[str] | None = None
) -> UnknownIdError:
    """UnknownIdError for a model or hardware id: the closest ids (`close`, else those of
    `errors.closest_ids`), and the command that lists the whole catalog."""
    exc = UnknownIdError(kind, given, known)
    if close is not None:
        exc.closest = close
    hint = f"; closest: {', '.join(exc.closest)}" if exc.closest else ""
    exc.message = (
        f"unknown {kind} {given!r}{hint} (see the catalog: {len(known)} ids, "
        f"`{_LISTED_BY[kind]}` lists them)"
    )
    exc.args = (exc.message,)
    return exc


def _unknown_model(given: str, known: list[str]) -> UnknownIdError:
    """UnknownIdError for a model id, its suggestions those of `similar_models`."""
    return _unknown("model", given, known, similar_models(given, known))


def _catalog_id_named(repo: str) -> str | None:
    """The catalog model whose id or name is the name part of a Hugging Face repo id, letter
    case, spaces and underscores aside: 'meta-llama/Llama-3.1-8B' -> 'llama-3.1-8b'."""

    def norm(text: str) -> str:
        return re.sub(r"[\s_]+", "-", text.strip().lower())

    name = norm(repo.rsplit("/", 1)[-1])
    for mid, e in _model_entries().items():
        if name in (mid, norm(e.name)):
            return mid
    return None


def model_entry(model_id: str) -> ModelEntry:
    """The catalog entry (config and provenance) of a model id."""
    entries = _model_entries()
    key = model_id.strip().lower()
    if key not in entries:
        raise _unknown_model(model_id, sorted(entries))
    return entries[key]


# a Hugging Face repo id: owner/name, no path of its own
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def get_model(model: str | Path | ModelSpec) -> ModelSpec:
    """A ModelSpec from a catalog id, a path to a config.json, a folder holding one (a Hugging
    Face checkout), or a ModelSpec (returned as is).

    A name with a slash that is neither a catalog id nor a file or folder here, such as
    `meta-llama/Llama-3.1-8B`, is taken for a Hugging Face repo id: the error says how to
    fetch its config.json (nothing is downloaded here).

    >>> get_model("llama-3.1-8b").n_layers
    32
    """
    if isinstance(model, ModelSpec):
        return model
    text = str(model)
    path = Path(text).expanduser()
    if not isinstance(model, Path) and text.strip().lower() in _model_entries():
        return model_entry(text).spec
    if path.is_dir():
        cfg_file = path / "config.json"
        if not cfg_file.is_file():
            raise ConfigError(
                "the folder holds no config.json (give the file, or a folder with one)",
                "path",
                source=text,
            )
        name = path.resolve().name or text
        return spec_from_config(load_config(cfg_file), name=name, source=str(cfg_file))
    looks_like_path = isinstance(model, Path) or text.endswith(".json") or "/" in text
    if not path.exists() and not text.endswith(".json") and _REPO_ID.match(text):
        same = _catalog_id_named(text)
        ours = f"the catalog has it as {same} (--model {same}); else, " if same else ""
        raise InputError(
            f"{text!r} is not a catalog id, a config.json or a folder here; {ours}if it is a "
            f"Hugging Face repo, fetch its config: huggingface-cli download {text} config.json "
            f"--local-dir DIR, then give --model DIR",
            field="model",
        )
    if looks_like_path:
        cfg = load_config(text)
        return spec_from_config(cfg, name=Path(text).stem, source=text)
    return model_entry(text).spec


@functools.cache
def hardware_records() -> dict[str, dict[str, Any]]:
    """Every raw hardware record, by id (sources included), from all files in data/hardware."""
    records: dict[str, dict[str, Any]] = {}
    folder = _data().joinpath("hardware")
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
        raise _unknown("hardware", str(hardware), sorted(records))
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
        raise _unknown("hardware", str(hardware), sorted(records))
    return _record_toml(key, _without_bookkeeping(records[key]))
