"""Chip and System: hardware in SI units, converted once from the catalog's unit-named keys.

A Chip is one accelerator as its datasheet describes it (dense peaks, memory, links, power,
price, its kind and class). A System is n of them serving one model replica (`Parallelism`
says how the model is split over them). Scale-up and scale-out bandwidths are per chip, in one
direction. A record (a catalog table, a user's .toml file or JSON body) is checked key by key
on load, every error one line naming the field; the schema is in docs/catalog.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, cast

from llm_roofline._core import units
from llm_roofline._core.checks import positive_int
from llm_roofline._core.errors import ConfigError, InputError
from llm_roofline.hardware.record import (
    CHIP_CLASSES,
    DEFAULT_CLASS,
    FROM_KIND,
    KINDS,
    PEAK_KEYS,
    RECORD_KEYS,
    STATUSES,
    ChipClass,
    ChipKind,
    RecordSite,
    check_record,
    record_number,
    unscale,
)

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

# When weights are stored in a type the chip cannot multiply in (int4, GGUF blocks), kernels
# dequantise and multiply in the first of these the chip supports.
COMPUTE_FALLBACK = ("bf16", "fp16", "fp32")

# Weight types whose matmuls run natively in their own type when the chip has that peak.
_NATIVE_COMPUTE = {"fp32", "bf16", "fp16", "fp8", "fp4", "nvfp4", "mxfp4"}


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
    chip_class: ChipClass = FROM_KIND  # record key `class`; not given: the one kind implies
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
        if self.chip_class == FROM_KIND:
            object.__setattr__(self, "chip_class", DEFAULT_CLASS[self.kind])
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
        where = RecordSite(hw_id, source)
        check_record(rec, where)
        peaks = {
            dt: record_number(rec, k, where) * units.tera for k, dt in PEAK_KEYS.items() if k in rec
        }
        if not peaks:
            raise where.error(
                "no dense peak throughput (bf16_dense_tflops or another *_dense_* key)",
                "bf16_dense_tflops",
            )
        if "memory_capacity_gb" in rec:
            mem = record_number(rec, "memory_capacity_gb", where) * units.GB
        elif "memory_capacity_gib" in rec:
            mem = record_number(rec, "memory_capacity_gib", where) * units.GiB
        else:
            raise where.error("lacks memory_capacity_gb", "memory_capacity_gb")
        if "memory_bandwidth_tb_per_s" not in rec:
            raise where.error("lacks memory_bandwidth_tb_per_s", "memory_bandwidth_tb_per_s")

        def opt(key: str, scale: float) -> float:
            return record_number(rec, key, where) * scale if key in rec else 0.0

        return cls(
            id=hw_id,
            name=str(rec.get("name", hw_id)),
            peak_flops=peaks,
            memory_bytes=mem,
            memory_bw=record_number(rec, "memory_bandwidth_tb_per_s", where) * units.TB,
            scale_up_domain=int(rec.get("scale_up_domain_chips", 1)),
            scale_up_bw=opt("scale_up_bandwidth_gb_per_s", units.GB),
            scale_out_bw=opt("scale_out_bandwidth_gb_per_s", units.GB),
            power_w=opt("power_w", 1.0),
            price_usd_per_s=opt("price_usd_per_hour", 1.0 / units.hour),
            price_date=str(rec.get("price_date", "")),
            status=str(rec.get("status", "shipping")),
            vendor=str(rec.get("vendor", "")),
            memory_type=str(rec.get("memory_type", "")),
            kind=cast(ChipKind, rec.get("kind", "gpu")),  # checked by check_record
            chip_class=cast(ChipClass, rec.get("class", FROM_KIND)),
            sources=dict(rec.get("sources", {})),
            estimated=tuple(str(k) for k in rec.get("estimated", ())),
            notes=str(rec.get("notes", "")),
        )

    def to_record(self) -> dict[str, Any]:
        """This chip as a catalog record (unit-suffixed keys, memory in GB), the inverse of
        from_record: `Chip.from_record(c.id, c.to_record()) == c` (year, price_basis, fp6 lost)."""
        by_dtype = {dt: key for key, dt in PEAK_KEYS.items()}
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
        rec["memory_capacity_gb"] = unscale(self.memory_bytes, units.GB)
        rec["memory_bandwidth_tb_per_s"] = unscale(self.memory_bw, units.TB)
        for dt, key in by_dtype.items():
            if dt in self.peak_flops:
                rec[key] = unscale(self.peak_flops[dt], units.tera)
        rec["scale_up_domain_chips"] = self.scale_up_domain
        if self.scale_up_bw:
            rec["scale_up_bandwidth_gb_per_s"] = unscale(self.scale_up_bw, units.GB)
        if self.scale_out_bw:
            rec["scale_out_bandwidth_gb_per_s"] = unscale(self.scale_out_bw, units.GB)
        if self.power_w:
            rec["power_w"] = unscale(self.power_w, 1.0)
        if self.price_usd_per_s:
            rec["price_usd_per_hour"] = unscale(self.price_usd_per_s, 1.0 / units.hour)
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
        # an int or numpy integer; not bool, float or str
        object.__setattr__(self, "n_chips", positive_int(self.n_chips, "chips"))

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
