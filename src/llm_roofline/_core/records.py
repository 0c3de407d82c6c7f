"""Typed answers that also read as their JSON mapping: a dataclass whose `as_dict` gives the
keys the command line's `--json` and the API print, readable by key (`fleet["usd_per_hour"]`)
as those answers were when they were dicts."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["JsonRecord"]


class JsonRecord(Mapping[str, Any]):
    """A mixin for a frozen dataclass with `as_dict`: reading by key reads that mapping. By
    default the mapping is the dataclass's fields, in order, values as they are (not copied
    into dicts, as `dataclasses.asdict` would); a record whose JSON differs says so by
    overriding `as_dict`."""

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())
