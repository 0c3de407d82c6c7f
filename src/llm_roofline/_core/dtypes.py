"""Data types and their sizes.

A data type carries bits per element, fractional where real: GGUF block formats store a scale per
block, so q4_0 costs 18 bytes per 32 weights = 4.5 bits. The table is data
(`data/dtypes.toml`, each entry with its source).
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources

from llm_roofline._core.errors import ConfigError, UnknownIdError

__all__ = ["DType", "get_dtype", "list_dtypes"]


@dataclass(frozen=True)
class DType:
    name: str
    bits: float
    kind: str  # float | int | gguf | block-float
    source: str
    note: str = ""

    @property
    def bytes(self) -> float:
        """Bytes per element (fractional for block formats)."""
        return self.bits / 8.0


@functools.cache
def _table() -> dict[str, DType]:
    text = resources.files("llm_roofline").joinpath("data/dtypes.toml").read_bytes()
    raw = tomllib.loads(text.decode())
    table: dict[str, DType] = {}
    for name, rec in raw.items():
        try:
            table[name.lower()] = DType(
                name=name.lower(),
                bits=float(rec["bits"]),
                kind=str(rec["kind"]),
                source=str(rec["source"]),
                note=str(rec.get("note", "")),
            )
        except KeyError as exc:
            raise ConfigError(f"dtype {name!r} lacks {exc}", field=str(exc)) from None
    return table


def list_dtypes() -> list[DType]:
    """Every data type in the catalog."""
    return list(_table().values())


def get_dtype(name: str | DType) -> DType:
    """Look a data type up by name (case-insensitive): `get_dtype("bf16").bytes == 2.0`."""
    if isinstance(name, DType):
        return name
    table = _table()
    try:
        return table[str(name).lower()]
    except KeyError:
        raise UnknownIdError("data type", str(name), table) from None
