"""Typed readers of config.json fields, each error a ConfigError naming the field.

Integers must be integers (never a bool, NaN or fraction, nor larger than any model has), flags
JSON `true`/`false` (the string "false" is refused rather than read as true), layer lists lists
of integers. A quantity with several spellings is read through its aliases, first match wins.
`hf_config` and `hf_vision` read every field through these; the rules are in docs/design.md
("Reading config.json"). `Noted` wraps a config to note which fields a reading relied on (what
the warning for an unknown `model_type` names).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from llm_roofline._core.errors import ConfigError

__all__ = ["Noted", "first", "flag", "int_field", "int_list", "opt_int", "positive_int"]

_LARGEST = 2**40  # no model dimension is this big: a typo or a corrupt file


class Noted(Mapping[str, Any]):
    """A config that notes, in order, each field a reader looked up that is present and not null
    (`used`): the fields a reading relied on."""

    def __init__(self, cfg: Mapping[str, Any]) -> None:
        self._cfg = dict(cfg)
        self.used: list[str] = []

    def __getitem__(self, key: str) -> Any:
        value = self._cfg[key]
        if value is not None and key not in self.used:
            self.used.append(key)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._cfg)

    def __len__(self) -> int:
        return len(self._cfg)


def first(cfg: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    """The value of the first alias present and not null, else None."""
    for n in names:
        if cfg.get(n) is not None:
            return cfg[n]
    return None


def int_field(cfg: Mapping[str, Any], names: tuple[str, ...], what: str, src: str) -> int:
    """A required positive integer field, looked up under its aliases."""
    v = first(cfg, names)
    if v is None:
        others = f"; also accepted: {', '.join(names[1:])}" if names[1:] else ""
        raise ConfigError(
            f"missing field {names[0]!r} ({what}{others})", field=names[0], source=src
        )
    return positive_int(v, names[0], src)


def positive_int(v: Any, name: str, src: str, *, zero_ok: bool = False) -> int:
    """An integer field: positive (or zero when `zero_ok`), never a bool, NaN or fraction."""
    least = 0 if zero_ok else 1
    kind = "a non-negative" if zero_ok else "a positive"
    ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
    if not ok or v < least or int(v) != v:
        raise ConfigError(f"field {name!r} must be {kind} integer, got {v!r}", name, src)
    if v > _LARGEST:
        raise ConfigError(
            f"field {name!r} = {v!r} is larger than any model has (> 2^40)", name, src
        )
    return int(v)


def opt_int(
    cfg: Mapping[str, Any], names: tuple[str, ...], src: str, *, zero_ok: bool = False
) -> int | None:
    """An optional integer field (None when absent or null)."""
    v = first(cfg, names)
    return None if v is None else positive_int(v, names[0], src, zero_ok=zero_ok)


def flag(cfg: Mapping[str, Any], name: str, default: bool, src: str) -> bool:
    """A true/false field; the strings "false" or 0 are refused rather than read as true."""
    v = cfg.get(name)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ConfigError(f"field {name!r} must be true or false, got {v!r}", name, src)
    return v


def int_list(cfg: Mapping[str, Any], name: str, src: str) -> list[int] | None:
    """An optional list of non-negative integers (layer indices or 0/1 flags)."""
    v = cfg.get(name)
    if v is None:
        return None
    if not isinstance(v, list):
        raise ConfigError(f"field {name!r} must be a list of integers, got {v!r}", name, src)
    return [positive_int(x, name, src, zero_ok=True) for x in v]
