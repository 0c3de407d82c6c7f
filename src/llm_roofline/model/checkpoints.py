"""The shipped model catalog: real config.json files, each with where it came from.

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
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from llm_roofline._core.errors import (
    ConfigError,
    InputError,
    UnknownIdError,
    closest_ids,
    unknown_catalog_id,
)
from llm_roofline.model.hf.config import load_config, spec_from_config
from llm_roofline.model.spec import ModelSpec

__all__ = [
    "ModelEntry",
    "get_model",
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


def _unknown_model(given: str, known: list[str]) -> UnknownIdError:
    """UnknownIdError for a model id, its suggestions those of `similar_models`."""
    return unknown_catalog_id("model", given, known, similar_models(given, known))


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
