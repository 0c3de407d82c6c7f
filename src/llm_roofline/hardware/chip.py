"""Chip and System: hardware in SI units, converted once from the catalog's unit-named keys.

A Chip is one accelerator as its datasheet describes it (dense peaks, memory, links, power,
price, its kind and class). A System is n of them serving one model replica (`Parallelism`
says how the model is split over them). Scale-up and scale-out bandwidths are per chip, in one
direction. A record (a catalog table, a user's .toml file or JSON body) is checked key by key
on load, every error one line naming the field; the schema is in docs/catalog.md.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, cast, get_args

from llm_roofline._core import units
from llm_roofline._core.errors import ConfigError, InputError, closest_ids

__all__ = [
    "CHIP_CLASSES",
    "COMPUTE_FALLBACK",
    "KINDS",
    "RECORD_KEYS",
    "STATUSES",
    "Chip",
    "ChipClass",
    "ChipKind",
    "System",
]

# Keys of a catalog record that hold dense peak throughput, and the data type each is for.
_PEAK_KEYS = {
    "fp32_dense_tflops": "fp32",
    "bf16_dense_tflops": "bf16",
    "fp16_dense_tflops": "fp16",
    "fp8_dense_tflops": "fp8",
    "int8_dense_tops": "int8",
    "fp4_dense_tflops": "fp4",
    "int4_dense_tops": "int4",
}

# When weights are stored in a type the chip cannot multiply in (int4, GGUF blocks), kernels
# dequantise and multiply in the first of these the chip supports.
COMPUTE_FALLBACK = ("bf16", "fp16", "fp32")

# Weight types whose matmuls run natively in their own type when the chip has that peak.
_NATIVE_COMPUTE = {"fp32", "bf16", "fp16", "fp8", "fp4", "nvfp4", "mxfp4"}


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
_DEFAULT_CLASS: dict[ChipKind, ChipClass] = {
    "gpu": "datacenter-gpu",
    "tpu": "tpu",
    "accelerator": "accelerator",
    "soc": "soc",
}
# The default of Chip.chip_class: "not given", replaced by the kind's class in __post_init__, so
# a built Chip always holds one of CHIP_CLASSES (measure.py builds Chips without a class).
_FROM_KIND = cast(ChipClass, "")

# Every key a hardware record may hold. Figures are positive numbers with the unit in the key
# name; fp6 is kept for the record (no engine path multiplies in fp6).
_FIGURE_KEYS = (
    "memory_capacity_gb",
    "memory_capacity_gib",
    "memory_bandwidth_tb_per_s",
    *_PEAK_KEYS,
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


class _Where:
    """Where a record came from, for one-line errors: a file (`my.toml: key ...`) or a catalog
    id (`hardware 'x': key ...`)."""

    def __init__(self, hw_id: str, source: str | None) -> None:
        self.hw_id = hw_id
        self.source = source

    def error(self, message: str, key: str) -> ConfigError:
        if self.source is not None:
            return ConfigError(message, key, source=self.source)
        return ConfigError(f"hardware {self.hw_id!r}: {message}", key)


def _num(rec: Mapping[str, Any], key: str, where: _Where) -> float:
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


def _check_record(rec: Mapping[str, Any], where: _Where) -> None:
    """Refuse unknown keys and values of the wrong type, naming the key."""
    for key in rec:
        if key not in RECORD_KEYS:
            raise where.error(f"unknown key {key!r}{_hint(str(key))}", str(key))
    for key in _TEXT_KEYS:
        if key in rec and not isinstance(rec[key], str):
            raise where.error(f"{key} must be a string, got {rec[key]!r}", key)
    for key in _FIGURE_KEYS:
        if key in rec:
            _num(rec, key, where)
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


def _unscale(si: float, scale: float) -> float | int:
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


@dataclass(frozen=True)
class Chip:
    """One accelerator. SI units: FLOP/s, bytes, bytes/s, W, USD/s."""

    id: str
    name: str
    peak_flops: Mapping[str, float]  # dense FLOP/s (or OP/s) by data type
    memory_bytes: float
    memory_bw: float  # bytes/s
    scale_up_domain: int = 1  # chips in one scale-up (NVLink/ICI) domain
    scale_up_bw: float = 0.0  # bytes/s per chip per direction (0: none)
    scale_out_bw: float = 0.0  # bytes/s per chip per direction
    power_w: float = 0.0
    price_usd_per_s: float = 0.0
    price_date: str = ""
    status: str = "shipping"
    vendor: str = ""
    memory_type: str = ""  # "HBM3", "GDDR6X", "LPDDR5X (unified)": calibrate.memory_kind
    kind: ChipKind = "gpu"  # a TPU's scale-up domain is a torus (ESTI's layouts)
    chip_class: ChipClass = _FROM_KIND  # record key `class`; not given: the one kind implies
    sources: Mapping[str, str] = field(default_factory=dict)
    estimated: tuple[str, ...] = ()  # catalog keys whose figure is derived or a placeholder
    notes: str = ""

    def __post_init__(self) -> None:
        # read-only copies: the engine caches what it derives from a chip, by identity
        object.__setattr__(self, "peak_flops", MappingProxyType(dict(self.peak_flops)))
        object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))
        if self.kind not in KINDS:
            raise InputError(
                f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}", field="kind"
            )
        if self.chip_class == _FROM_KIND:
            object.__setattr__(self, "chip_class", _DEFAULT_CLASS[self.kind])
        elif self.chip_class not in CHIP_CLASSES:
            raise InputError(
                f"class must be one of {', '.join(CHIP_CLASSES)}, got {self.chip_class!r}",
                field="class",
            )

    @classmethod
    def from_record(cls, hw_id: str, rec: Mapping[str, Any], *, source: str | None = None) -> Chip:
        """Build from a catalog TOML table (unit-suffixed keys; GB = 1e9, GiB = 2^30).

        Unknown keys and bad values raise ConfigError naming the key; with `source` (a file
        name) the message starts with it: `my.toml: power_w must be a positive number, got -1`.
        """
        where = _Where(hw_id, source)
        _check_record(rec, where)
        peaks = {dt: _num(rec, k, where) * units.tera for k, dt in _PEAK_KEYS.items() if k in rec}
        if not peaks:
            raise where.error(
                "no dense peak throughput (bf16_dense_tflops or another *_dense_* key)",
                "bf16_dense_tflops",
            )
        if "memory_capacity_gb" in rec:
            mem = _num(rec, "memory_capacity_gb", where) * units.GB
        elif "memory_capacity_gib" in rec:
            mem = _num(rec, "memory_capacity_gib", where) * units.GiB
        else:
            raise where.error("lacks memory_capacity_gb", "memory_capacity_gb")
        if "memory_bandwidth_tb_per_s" not in rec:
            raise where.error("lacks memory_bandwidth_tb_per_s", "memory_bandwidth_tb_per_s")

        def opt(key: str, scale: float) -> float:
            return _num(rec, key, where) * scale if key in rec else 0.0

        return cls(
            id=hw_id,
            name=str(rec.get("name", hw_id)),
            peak_flops=peaks,
            memory_bytes=mem,
            memory_bw=_num(rec, "memory_bandwidth_tb_per_s", where) * units.TB,
            scale_up_domain=int(rec.get("scale_up_domain_chips", 1)),
            scale_up_bw=opt("scale_up_bandwidth_gb_per_s", units.GB),
            scale_out_bw=opt("scale_out_bandwidth_gb_per_s", units.GB),
            power_w=opt("power_w", 1.0),
            price_usd_per_s=opt("price_usd_per_hour", 1.0 / units.hour),
            price_date=str(rec.get("price_date", "")),
            status=str(rec.get("status", "shipping")),
            vendor=str(rec.get("vendor", "")),
            memory_type=str(rec.get("memory_type", "")),
            kind=cast(ChipKind, rec.get("kind", "gpu")),  # checked by _check_record
            chip_class=cast(ChipClass, rec.get("class", _FROM_KIND)),
            sources=dict(rec.get("sources", {})),
            estimated=tuple(str(k) for k in rec.get("estimated", ())),
            notes=str(rec.get("notes", "")),
        )

    def to_record(self) -> dict[str, Any]:
        """This chip as a catalog record (unit-suffixed keys, memory in GB), the inverse of
        from_record: `Chip.from_record(c.id, c.to_record()) == c` (year, price_basis, fp6 lost)."""
        by_dtype = {dt: key for key, dt in _PEAK_KEYS.items()}
        odd = sorted(set(self.peak_flops) - set(by_dtype))
        if odd:
            raise ConfigError(
                f"{self.id}: a record has no key for a {', '.join(odd)} peak "
                f"(it takes {', '.join(by_dtype)})",
                "peak_flops",
            )
        rec: dict[str, Any] = {"name": self.name}
        for key, text in (("vendor", self.vendor), ("memory_type", self.memory_type)):
            if text:
                rec[key] = text
        rec["kind"] = self.kind
        rec["class"] = self.chip_class
        rec["status"] = self.status
        if self.estimated:
            rec["estimated"] = list(self.estimated)
        rec["memory_capacity_gb"] = _unscale(self.memory_bytes, units.GB)
        rec["memory_bandwidth_tb_per_s"] = _unscale(self.memory_bw, units.TB)
        for dt, key in by_dtype.items():
            if dt in self.peak_flops:
                rec[key] = _unscale(self.peak_flops[dt], units.tera)
        rec["scale_up_domain_chips"] = self.scale_up_domain
        if self.scale_up_bw:
            rec["scale_up_bandwidth_gb_per_s"] = _unscale(self.scale_up_bw, units.GB)
        if self.scale_out_bw:
            rec["scale_out_bandwidth_gb_per_s"] = _unscale(self.scale_out_bw, units.GB)
        if self.power_w:
            rec["power_w"] = _unscale(self.power_w, 1.0)
        if self.price_usd_per_s:
            rec["price_usd_per_hour"] = _unscale(self.price_usd_per_s, 1.0 / units.hour)
        if self.price_date:
            rec["price_date"] = self.price_date
        if self.notes:
            rec["notes"] = self.notes
        if self.sources:
            rec["sources"] = dict(self.sources)
        return rec

    def with_price(self, usd_per_hour: float) -> Chip:
        """The same chip at another rental price (USD per chip-hour). 0 is hardware you own:
        a chip with no price, so no $ per token (as a catalog chip without one)."""
        ok = isinstance(usd_per_hour, (int, float)) and not isinstance(usd_per_hour, bool)
        if not (ok and math.isfinite(usd_per_hour) and usd_per_hour >= 0):
            raise InputError(
                f"price must be 0 (hardware you own) or positive, got {usd_per_hour!r}",
                field="price",
            )
        return replace(self, price_usd_per_s=float(usd_per_hour) / units.hour)

    def compute_dtype_for(self, weight_dtype: str) -> str:
        """The type matmuls run in for weights stored as `weight_dtype`.

        Float types the chip supports natively (bf16, fp8, fp4) multiply in their own type;
        integer and block formats (int8, int4, GGUF) are weight-only quantisation: dequantised
        and multiplied in bf16 (or the best 16/32-bit type the chip has).
        """
        wd = weight_dtype.lower()
        if wd in _NATIVE_COMPUTE and wd in self.peak_flops:
            return wd
        if wd in ("nvfp4", "mxfp4") and "fp4" in self.peak_flops:
            return "fp4"
        for dt in COMPUTE_FALLBACK:
            if dt in self.peak_flops:
                return dt
        return next(iter(self.peak_flops))

    def flops(self, compute_dtype: str) -> float:
        """Dense peak FLOP/s in `compute_dtype`."""
        try:
            return self.peak_flops[compute_dtype.lower()]
        except KeyError:
            have = ", ".join(sorted(self.peak_flops))
            msg = f"{self.id} has no {compute_dtype} peak; it has: {have}"
            raise InputError(msg, field="compute_dtype") from None

    @property
    def ops_per_byte(self) -> float:
        """Hardware ratio FLOP/s ÷ bytes/s in bf16 (or the best 16-bit type): about 300."""
        return self.flops(self.compute_dtype_for("bf16")) / self.memory_bw

    @property
    def drain_time_s(self) -> float:
        """Time to read the whole memory once: capacity ÷ bandwidth."""
        return self.memory_bytes / self.memory_bw


@dataclass(frozen=True)
class System:
    """n chips serving one replica of a model."""

    chip: Chip
    n_chips: int = 1

    def __post_init__(self) -> None:
        n = self.n_chips
        try:
            count = operator.index(n)  # int or numpy integer; not bool, float or str
        except TypeError:
            count = 0
        if isinstance(n, bool) or count < 1:
            raise InputError(f"chips must be a positive integer, got {n!r}", field="chips")
        object.__setattr__(self, "n_chips", int(count))

    @property
    def memory_bytes(self) -> float:
        return self.n_chips * self.chip.memory_bytes

    @property
    def memory_bw(self) -> float:
        return self.n_chips * self.chip.memory_bw

    def flops(self, compute_dtype: str) -> float:
        return self.n_chips * self.chip.flops(compute_dtype)

    @property
    def price_usd_per_s(self) -> float:
        return self.n_chips * self.chip.price_usd_per_s

    @property
    def power_w(self) -> float:
        return self.n_chips * self.chip.power_w
