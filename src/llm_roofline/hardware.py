"""Chip and System: hardware in SI units, converted once from the catalog's unit-named keys.

A Chip is one accelerator as its datasheet describes it (dense peaks, memory, links, power,
price). A System is n of them serving one model replica; the parallelism issue adds how the
model is split. Scale-up and scale-out bandwidths are per chip, in one direction.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from . import units
from .errors import ConfigError, InputError

__all__ = ["COMPUTE_FALLBACK", "Chip", "System"]

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


def _num(rec: Mapping[str, Any], key: str, hw_id: str) -> float:
    v = rec[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        raise ConfigError(f"hardware {hw_id!r}: {key} must be a positive number, got {v!r}", key)
    return float(v)


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
    kind: str = "gpu"  # gpu | tpu (a torus: ESTI's layouts) | accelerator | soc
    sources: Mapping[str, str] = field(default_factory=dict)
    estimated: tuple[str, ...] = ()  # catalog keys whose figure is derived or a placeholder
    notes: str = ""

    @classmethod
    def from_record(cls, hw_id: str, rec: Mapping[str, Any]) -> Chip:
        """Build from a catalog TOML table (unit-suffixed keys; GB = 1e9, GiB = 2^30)."""
        peaks = {dt: _num(rec, k, hw_id) * units.tera for k, dt in _PEAK_KEYS.items() if k in rec}
        if not peaks:
            raise ConfigError(
                f"hardware {hw_id!r} has no dense peak throughput", "bf16_dense_tflops"
            )
        if "memory_capacity_gb" in rec:
            mem = _num(rec, "memory_capacity_gb", hw_id) * units.GB
        elif "memory_capacity_gib" in rec:
            mem = _num(rec, "memory_capacity_gib", hw_id) * units.GiB
        else:
            raise ConfigError(f"hardware {hw_id!r} lacks memory_capacity_gb", "memory_capacity_gb")
        if "memory_bandwidth_tb_per_s" not in rec:
            raise ConfigError(
                f"hardware {hw_id!r} lacks memory_bandwidth_tb_per_s", "memory_bandwidth_tb_per_s"
            )

        def opt(key: str, scale: float) -> float:
            return _num(rec, key, hw_id) * scale if key in rec else 0.0

        return cls(
            id=hw_id,
            name=str(rec.get("name", hw_id)),
            peak_flops=peaks,
            memory_bytes=mem,
            memory_bw=_num(rec, "memory_bandwidth_tb_per_s", hw_id) * units.TB,
            scale_up_domain=int(rec.get("scale_up_domain_chips", 1)),
            scale_up_bw=opt("scale_up_bandwidth_gb_per_s", units.GB),
            scale_out_bw=opt("scale_out_bandwidth_gb_per_s", units.GB),
            power_w=opt("power_w", 1.0),
            price_usd_per_s=opt("price_usd_per_hour", 1.0 / units.hour),
            price_date=str(rec.get("price_date", "")),
            status=str(rec.get("status", "shipping")),
            vendor=str(rec.get("vendor", "")),
            kind=str(rec.get("kind", "gpu")),
            sources=dict(rec.get("sources", {})),
            estimated=tuple(str(k) for k in rec.get("estimated", ())),
            notes=str(rec.get("notes", "")),
        )

    def with_price(self, usd_per_hour: float) -> Chip:
        """The same chip at another rental price (USD per chip-hour)."""
        ok = isinstance(usd_per_hour, (int, float)) and not isinstance(usd_per_hour, bool)
        if not (ok and math.isfinite(usd_per_hour) and usd_per_hour > 0):
            raise InputError(f"price must be positive, got {usd_per_hour!r}", field="price")
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
            raise InputError(
                f"{self.id} has no {compute_dtype} peak; it has: {have}", field="compute_dtype"
            ) from None

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
