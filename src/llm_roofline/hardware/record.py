"""A hardware record's schema: the keys a chip's TOML table (or JSON body) may hold, with the
unit in each key's name, the kinds and classes of chip, and the key-by-key checks that load
runs, every error one line naming the field (docs/catalog.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal, cast, get_args

from llm_roofline._core.errors import ConfigError, closest_ids

__all__ = [
    "CHIP_CLASSES",
    "DEFAULT_CLASS",
    "FROM_KIND",
    "KINDS",
    "PEAK_KEYS",
    "RECORD_KEYS",
    "STATUSES",
    "ChipClass",
    "ChipKind",
    "RecordSite",
    "check_record",
    "record_number",
    "unscale",
]

# Keys of a catalog record that hold dense peak throughput, and the data type each is for.
PEAK_KEYS = {
    "fp32_dense_tflops": "fp32",
    "bf16_dense_tflops": "bf16",
    "fp16_dense_tflops": "fp16",
    "fp8_dense_tflops": "fp8",
    "int8_dense_tops": "int8",
    "fp4_dense_tflops": "fp4",
    "int4_dense_tops": "int4",
}

# The kinds of chip (a TPU's scale-up domain is a torus: ESTI's layouts) and release states.
ChipKind = Literal["gpu", "tpu", "accelerator", "soc"]
KINDS: tuple[ChipKind, ...] = get_args(ChipKind)
STATUSES = ("shipping", "announced")

# The class of a chip: the market it is built for. Engines run differently on each, so the
# validation reports errors by class; docs/catalog.md says what each means.
ChipClass = Literal[
    "datacenter-gpu", "workstation-gpu", "consumer-gpu", "tpu", "accelerator", "soc"
]
CHIP_CLASSES: tuple[ChipClass, ...] = get_args(ChipClass)
# The class of a record or Chip that names none: the one its kind implies.
DEFAULT_CLASS: dict[ChipKind, ChipClass] = {
    "gpu": "datacenter-gpu",
    "tpu": "tpu",
    "accelerator": "accelerator",
    "soc": "soc",
}
# The default of Chip.chip_class: "not given", replaced by the kind's class in __post_init__, so
# a built Chip always holds one of CHIP_CLASSES (measure.py builds Chips without a class).
FROM_KIND = cast(ChipClass, "")

# Every key a hardware record may hold. Figures are positive numbers with the unit in the key
# name; fp6 is kept for the record (no engine path multiplies in fp6).
_FIGURE_KEYS = (
    "memory_capacity_gb",
    "memory_capacity_gib",
    "memory_bandwidth_tb_per_s",
    *PEAK_KEYS,
    "fp6_dense_tflops",
    "scale_up_bandwidth_gb_per_s",
    "scale_out_bandwidth_gb_per_s",
    "power_w",
    "price_usd_per_hour",
)
_INTEGER_KEYS = ("scale_up_domain_chips", "year")
_TEXT_KEYS = (
    "name",
    "vendor",
    "kind",
    "class",
    "status",
    "memory_type",
    "price_date",
    "price_basis",
    "notes",
)
RECORD_KEYS = frozenset((*_TEXT_KEYS, *_INTEGER_KEYS, *_FIGURE_KEYS, "estimated", "sources"))


class RecordSite:
    """Where a record came from, for one-line errors: a file (`my.toml: key ...`) or a catalog
    id (`hardware 'x': key ...`)."""

    def __init__(self, hw_id: str, source: str | None) -> None:
        self.hw_id = hw_id
        self.source = source

    def error(self, message: str, key: str) -> ConfigError:
        if self.source is not None:
            return ConfigError(message, key, source=self.source)
        return ConfigError(f"hardware {self.hw_id!r}: {message}", key)


def record_number(rec: Mapping[str, Any], key: str, where: RecordSite) -> float:
    v = rec[key]
    ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    if not (ok and math.isfinite(v) and v > 0):
        raise where.error(f"{key} must be a positive number, got {v!r}", key)
    return float(v)


def _hint(key: str, prefix: str = "") -> str:
    """' (did you mean ...?)': keys with the same first word (memory_bw -> the memory_* keys),
    else the closest by spelling."""
    first = key.split("_")[0]
    near = sorted(k for k in RECORD_KEYS if k.split("_")[0] == first)
    if not 1 <= len(near) <= 4:
        near = closest_ids(key, RECORD_KEYS, n=2)
    return f" (did you mean {' or '.join(prefix + k for k in near)}?)" if near else ""


def check_record(rec: Mapping[str, Any], where: RecordSite) -> None:
    """Refuse unknown keys and values of the wrong type, naming the key."""
    for key in rec:
        if key not in RECORD_KEYS:
            raise where.error(f"unknown key {key!r}{_hint(str(key))}", str(key))
    for key in _TEXT_KEYS:
        if key in rec and not isinstance(rec[key], str):
            raise where.error(f"{key} must be a string, got {rec[key]!r}", key)
    for key in _FIGURE_KEYS:
        if key in rec:
            record_number(rec, key, where)
    for key in _INTEGER_KEYS:
        v = rec.get(key, 1)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise where.error(f"{key} must be a positive integer, got {v!r}", key)
    for key, allowed in (("kind", KINDS), ("class", CHIP_CLASSES), ("status", STATUSES)):
        if key in rec and rec[key] not in allowed:
            raise where.error(f"{key} must be one of {', '.join(allowed)}, got {rec[key]!r}", key)
    if "memory_capacity_gb" in rec and "memory_capacity_gib" in rec:
        raise where.error(
            "give memory_capacity_gb or memory_capacity_gib, not both", "memory_capacity_gib"
        )
    sources = rec.get("sources", {})
    if not isinstance(sources, Mapping):
        raise where.error(f"sources must be a table of addresses, got {sources!r}", "sources")
    for key, address in sources.items():
        if key not in RECORD_KEYS:
            hint = _hint(str(key), "sources.")
            raise where.error(f"unknown key 'sources.{key}'{hint}", f"sources.{key}")
        if not isinstance(address, str):
            raise where.error(f"sources.{key} must be a string, got {address!r}", f"sources.{key}")
    estimated = rec.get("estimated", [])
    if not isinstance(estimated, list) or not all(isinstance(k, str) for k in estimated):
        raise where.error(f"estimated must be a list of key names, got {estimated!r}", "estimated")
    for key in estimated:
        if key not in RECORD_KEYS:
            raise where.error(f"estimated names unknown key {key!r}", "estimated")


def unscale(si: float, scale: float) -> float | int:
    """The figure x, in a record's unit, with x * scale == si exactly (so a record written from a
    Chip loads back as the same Chip): the shortest decimal that does, else a neighbouring float."""
    x = si / scale
    for digits in range(1, 18):
        cand = float(f"{x:.{digits}g}")
        if cand * scale == si:
            return int(cand) if cand.is_integer() and abs(cand) < 2**53 else cand
    for direction in (math.inf, -math.inf):
        cand = x
        for _ in range(8):
            cand = math.nextafter(cand, direction)
            if cand * scale == si:
                return cand
    return x
