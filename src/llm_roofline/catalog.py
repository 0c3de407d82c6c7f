"""The shipped catalogs: models (real config.json files) and hardware (TOML records).

Ids are lower-case and looked up case-insensitively. An unknown id raises UnknownIdError with
the closest ids. A model may also be given as a path to a config.json.

Layout of `data/`:
  models/<id>.config.json   the model's config.json as published
  models/<id>.toml          where it came from, and the published parameter count
  hardware/*.toml           one table per chip id, unit-suffixed keys, a `sources` table each
  dtypes.toml               data types and their bits per element
"""

from __future__ import annotations

import functools
import json
import tomllib
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from .errors import ConfigError, UnknownIdError
from .hardware import Chip
from .hf_config import load_config, spec_from_config
from .model import ModelSpec

__all__ = [
    "ModelEntry",
    "get_hardware",
    "get_model",
    "hardware_records",
    "list_hardware",
    "list_models",
    "model_entry",
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


def model_entry(model_id: str) -> ModelEntry:
    """The catalog entry (config and provenance) of a model id."""
    entries = _model_entries()
    key = model_id.strip().lower()
    if key not in entries:
        raise UnknownIdError("model", model_id, entries)
    return entries[key]


def get_model(model: str | Path | ModelSpec) -> ModelSpec:
    """A ModelSpec from a catalog id, a path to a config.json, or a ModelSpec (returned as is).

    >>> get_model("llama-3.1-8b").n_layers
    32
    """
    if isinstance(model, ModelSpec):
        return model
    text = str(model)
    looks_like_path = isinstance(model, Path) or text.endswith(".json") or "/" in text
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


@functools.cache
def _chip(hw_id: str) -> Chip:
    return Chip.from_record(hw_id, hardware_records()[hw_id])


def list_hardware() -> list[str]:
    """Every hardware id in the catalog, sorted."""
    return sorted(hardware_records())


def get_hardware(hardware: str | Chip) -> Chip:
    """A Chip from a catalog id (case-insensitive), or a Chip (returned as is)."""
    if isinstance(hardware, Chip):
        return hardware
    key = str(hardware).strip().lower()
    records = hardware_records()
    if key not in records:
        raise UnknownIdError("hardware", str(hardware), records)
    return _chip(key)
