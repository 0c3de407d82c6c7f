"""`JsonRecord`: a frozen dataclass whose `as_dict` mapping it also reads as (by key, in
order, with a length), so `dict(record)` and `json.dumps` give the `--json` keys."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from llm_roofline._core.records import JsonRecord


@dataclass(frozen=True)
class Fleet(JsonRecord):
    chips: int
    usd_per_s: float

    def as_dict(self) -> dict[str, Any]:
        # the JSON keys differ from the fields: one derived, one renamed
        return {"chips": self.chips, "usd_per_hour": self.usd_per_s * 3600.0}


def test_reads_by_key_from_as_dict() -> None:
    f = Fleet(chips=8, usd_per_s=0.001)
    # $0.001 per second · 3,600 s = $3.60 per hour
    assert f["usd_per_hour"] == pytest.approx(3.6)
    assert f["chips"] == 8
    with pytest.raises(KeyError):
        f["usd_per_s"]  # a field name that is not a JSON key is not readable by key


def test_iterates_and_counts_the_json_keys_in_order() -> None:
    f = Fleet(chips=2, usd_per_s=0.5)
    assert list(f) == ["chips", "usd_per_hour"]
    assert len(f) == 2
    assert dict(f) == {"chips": 2, "usd_per_hour": 1800.0}
    assert json.loads(json.dumps(dict(f))) == {"chips": 2, "usd_per_hour": 1800.0}
    assert "chips" in f and "usd_per_s" not in f
    assert f.get("missing", "none") == "none"  # the rest of Mapping comes with it


def test_a_record_that_is_no_dataclass_must_say_its_mapping() -> None:
    class Bare(JsonRecord):  # no fields to read: as_dict must be given
        pass

    with pytest.raises(TypeError):
        Bare()["x"]


@dataclass(frozen=True)
class _Plain(JsonRecord):
    batch: float
    engine: str


def test_by_default_the_mapping_is_the_fields_in_order() -> None:
    r = _Plain(batch=64.0, engine="ideal")
    assert r.as_dict() == {"batch": 64.0, "engine": "ideal"}
    assert list(r) == ["batch", "engine"] and r["engine"] == "ideal"
