"""Where to keep a KV cache (the lecture §6, `llm-roofline cache-tiers`): each memory tier of
`data/tiers.toml` and the chip's own HBM as one device with a capacity, a read bandwidth and a
cost per second, and what holding one sequence's cache there and bringing it back costs,
against recomputing it with a prefill (`cache_costs`, a `CacheCosts`), and what a provider's
cache-hit price leaves for bringing a cached prompt back (`cache_hit`, a `CacheHit`)."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import ConfigError, InputError
from llm_roofline._core.records import JsonRecord
from llm_roofline._core.units import giga, mega, year
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.fit_advice import FitAdvice, fit_advice
from llm_roofline.economics.token_costs import check_context, deployment_price, prefill_time
from llm_roofline.engine.cost import is_priced
from llm_roofline.engine.roofline import as_system
from llm_roofline.hardware.chip import Chip

__all__ = [
    "CacheCosts",
    "CacheHit",
    "HitTier",
    "Tier",
    "TierCost",
    "cache_costs",
    "cache_hit",
    "load_tiers",
]


@dataclass(frozen=True)
class Tier:
    """A memory tier as one device: capacity, read bandwidth, and its cost per second."""

    id: str
    name: str
    capacity_bytes: float
    bandwidth: float  # bytes/s
    usd_per_s: float
    sources: dict[str, str]
    notes: str = ""

    @property
    def drain_time_s(self) -> float:
        return self.capacity_bytes / self.bandwidth


@functools.cache
def _tier_records() -> dict[str, dict[str, Any]]:
    path = resources.files("llm_roofline").joinpath("data/tiers.toml")
    return dict(tomllib.loads(path.read_text(encoding="utf-8")))


def load_tiers(hardware: str | Chip) -> list[Tier]:
    """HBM (the chip's own memory and rental price) and the device tiers of data/tiers.toml."""
    chip = hardware if isinstance(hardware, Chip) else as_system(hardware).chip
    if not is_priced(chip):
        raise InputError(f"{chip.id} has no price in the catalog", field="price_usd_per_hour")
    tiers = [
        Tier(
            "hbm",
            f"{chip.name} HBM",
            chip.memory_bytes,
            chip.memory_bw,
            chip.price_usd_per_s,
            dict(chip.sources),
            "the accelerator's own memory",
        )
    ]
    for tid, rec in _tier_records().items():
        if tid in ("hbm", "prices") or not isinstance(rec, dict):
            continue
        try:
            years = float(rec.get("amortise_years", 3))
            tiers.append(
                Tier(
                    id=tid,
                    name=str(rec["name"]),
                    capacity_bytes=float(rec["capacity_gb"]) * giga,
                    bandwidth=float(rec["bandwidth_gb_per_s"]) * giga,
                    usd_per_s=float(rec["price_usd"]) / (years * year),
                    sources=dict(rec.get("sources", {})),
                    notes=str(rec.get("notes", "")),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"tier {tid!r} is malformed: {exc}", field=tid) from None
    return tiers


@dataclass(frozen=True, eq=False)
class TierCost(JsonRecord):
    """Keeping one sequence's KV cache in one tier and bringing it back: the devices it spans
    (the instance's chips for HBM, one device otherwise), their read bandwidth, the time to
    drain the tier, the fetch time, and the dollars at each hold time (`usd`)."""

    name: str
    devices: int
    bandwidth: float  # bytes/s
    drain_time_s: float
    fetch_s: float
    usd: NDArray[np.float64]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "devices": self.devices,
            "bandwidth": self.bandwidth,
            "drain_time_s": self.drain_time_s,
            "fetch_s": self.fetch_s,
            "usd": self.usd,
        }


@dataclass(frozen=True, eq=False)
class CacheCosts(JsonRecord):
    """What `cache_costs` found for one sequence of `context_len` tokens: its cache's bytes
    (all of it, and per chip beside the weights), whether it fits (`warning` when not), the
    price and time of recomputing it, each tier's costs (`tiers`, by id) and the cheapest
    choice at each hold time (a tier id or "recompute")."""

    context_len: int
    engine: str
    kv_bytes: float
    chips: int
    weights_bytes_per_chip: float
    kv_bytes_per_chip: float
    capacity_bytes_per_chip: float
    fits: bool
    warning: str | None
    recompute_usd: float
    recompute_s: float
    hold_s: NDArray[np.float64]
    tiers: dict[str, TierCost]
    cheapest: list[str]

    @property
    def per_million_tokens(self) -> float:
        """$ per sequence of `context_len` tokens -> $ per million tokens (a change of unit)."""
        return mega / self.context_len

    def cheapest_from(self) -> list[tuple[float, str]]:
        """Where the cheapest choice changes: (hold time, choice) at the first hold time and
        at each where it differs from the one before (`cache-tiers`' "cheapest:" line)."""
        return [
            (float(h), c)
            for i, (h, c) in enumerate(zip(self.hold_s, self.cheapest, strict=True))
            if i == 0 or c != self.cheapest[i - 1]
        ]

    def as_dict(self) -> dict[str, Any]:
        """The figures as `llm-roofline cache-tiers --json` writes them (arrays as arrays)."""
        return {
            "engine": self.engine,
            "kv_bytes": self.kv_bytes,
            "chips": self.chips,
            "weights_bytes_per_chip": self.weights_bytes_per_chip,
            "kv_bytes_per_chip": self.kv_bytes_per_chip,
            "capacity_bytes_per_chip": self.capacity_bytes_per_chip,
            "fits": self.fits,
            "warning": self.warning,
            "recompute_usd": self.recompute_usd,
            "recompute_s": self.recompute_s,
            "hold_s": self.hold_s,
            "tiers": {k: t.as_dict() for k, t in self.tiers.items()},
            "cheapest": self.cheapest,
        }

    def rates_dict(self) -> dict[str, Any]:
        """`as_dict` with each dollar figure also in $ per million tokens of the context, the
        context, and where the cheapest changes (the web's cache-tiers view)."""
        per_m = self.per_million_tokens
        out = self.as_dict()
        for tid, t in out["tiers"].items():
            t["usd_per_million_tokens"] = self.tiers[tid].usd * per_m
        out["context_len"] = self.context_len
        out["recompute_usd_per_million_tokens"] = self.recompute_usd * per_m
        out["cheapest_from"] = [{"hold_s": h, "tier": c} for h, c in self.cheapest_from()]
        return out


def _fit_warning(dep: Deployment, context_len: int) -> tuple[FitAdvice, str | None]:
    """`fit_advice` for one sequence, and the warning line when it does not fit."""
    spec = dep.model
    fit = fit_advice(dep, context_len, 1)
    if fit.fits:
        return fit, None
    return fit, (
        f"{spec.name} does not fit on {dep.chips} × {dep.chip.id} ({dep.split_text()}): "
        f"{fit.message} (costs computed as if it did)"
    )


def cache_costs(dep: Deployment, *, context_len: int, hold_s: ArrayLike) -> CacheCosts:
    """Dollars to keep one sequence's KV cache for `hold_s` seconds in each tier and bring it
    back, against recomputing it with a prefill (timed under the deployment's engine).

    One sequence lives on one instance (a replica) of n = chips / replicas chips.
    Holding: (cache bytes / tier capacity) × the tier's cost per second × hold time.
    Bringing it back: the instance's n chips wait for bytes / tier bandwidth, priced at the n
    chips' rate. Recomputing: one prompt's share of a prefill of `context_len` tokens on every
    independent group (`prefill_time`; the same figure as `cost_floor`'s input cost).

    HBM on n chips: the instance holds its KV cache spread over its chips (tensor parallelism
    shards each sequence's K and V by head), so one sequence's cache takes bytes / n on each
    chip and comes back over all n chips at once: bytes / (n · HBM bandwidth) seconds, charged
    at n chips' price, which is the same dollars as one chip reading all of it. Holding it
    takes bytes / (n · capacity) of n chips' price: again one chip's share. Each other tier is
    one device (a DIMM, a drive, a disk) that the whole instance waits on. Each tier's
    `devices` and `bandwidth` say which was used.

    Fit: the weights, this one sequence's KV cache and its activations, per chip (the
    deployment's split), against a chip's memory (`fit_advice`). When they do not fit, `fits`
    is False and `warning` is `fit_advice`'s line: which part overflows and what would fit
    (otherwise None); the costs are computed all the same.
    """
    S = check_context(context_len)
    hold = np.asarray(hold_s, dtype=np.float64)
    if not (np.all(np.isfinite(hold)) and np.all(hold >= 0)):
        raise InputError("hold times must be zero or positive", field="hold_s")
    n = dep.instance_chips
    nbytes = float(dep.model.kv_elements_per_sequence(S)) * get_dtype(dep.kv_dtype).bytes
    fit, warning = _fit_warning(dep, S)
    price = deployment_price(dep) / dep.replicas  # one instance's chips
    t_pre, prompts = prefill_time(dep, S)
    recompute = deployment_price(dep) * t_pre / prompts  # one prompt's share, as input cost
    tiers: dict[str, TierCost] = {}
    for t in load_tiers(dep.instance.chip):
        devices = n if t.id == "hbm" else 1
        capacity, bandwidth = devices * t.capacity_bytes, devices * t.bandwidth
        holding = nbytes / capacity * (devices * t.usd_per_s) * hold
        fetch_s = nbytes / bandwidth
        usd = holding + fetch_s * price
        tiers[t.id] = TierCost(t.name, devices, bandwidth, t.drain_time_s, fetch_s, usd)
    costs = np.stack([t.usd for t in tiers.values()] + [np.full_like(hold, recompute)])
    names = [*tiers, "recompute"]
    return CacheCosts(
        context_len=S,
        engine=dep.engine,
        kv_bytes=nbytes,
        chips=n,
        weights_bytes_per_chip=fit.weights,
        kv_bytes_per_chip=fit.kv,
        capacity_bytes_per_chip=fit.capacity,
        fits=bool(fit.fits),
        warning=warning,
        recompute_usd=recompute,
        recompute_s=t_pre,
        hold_s=hold,
        tiers=tiers,
        cheapest=[names[i] for i in np.argmin(costs, axis=0)],
    )


# ---- a cache hit's price against bringing the prompt back -----------------------------------


@dataclass(frozen=True)
class HitTier:
    """Bringing one cached prompt back from a tier (held for no time): the wait, its $ per
    million tokens, and whether the cache hit's price covers it."""

    name: str
    fetch_s: float
    usd_per_million_tokens: float
    covered: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fetch_s": self.fetch_s,
            "usd_per_million_tokens": self.usd_per_million_tokens,
            "covered": self.covered,
        }


@dataclass(frozen=True)
class CacheHit:
    """A provider's cache-hit price (`price`, $ per million input tokens; `to_input`: its share
    of the input price) beside what this deployment pays to bring one cached prompt of
    `context_len` tokens back from each tier (`tiers`, by id) and to recompute it, each in $
    per million tokens, and whether the price covers each."""

    price: float
    to_input: float
    context_len: int
    recompute_usd_per_million_tokens: float
    recompute_covered: bool
    tiers: dict[str, HitTier]

    def as_dict(self) -> dict[str, Any]:
        """The comparison as the web's pricing view returns it (`cache_hit`)."""
        return {
            "price": self.price,
            "to_input": self.to_input,
            "context_len": self.context_len,
            "recompute_usd_per_million_tokens": self.recompute_usd_per_million_tokens,
            "recompute_covered": self.recompute_covered,
            "tiers": {k: t.as_dict() for k, t in self.tiers.items()},
        }


def cache_hit(dep: Deployment, *, context_len: int, price: float, input_price: float) -> CacheHit:
    """A cache hit's `price` ($ per million input tokens; `input_price`, the uncached input's)
    against this deployment's cost of bringing a prompt of `context_len` tokens back from each
    tier, held for no time (`cache_costs` at a hold time of 0), and of recomputing it: a price
    at or above a tier's cost covers it."""
    res = cache_costs(dep, context_len=context_len, hold_s=[0.0])
    per_m = res.per_million_tokens
    recompute = res.recompute_usd * per_m
    tiers = {}
    for tid, t in res.tiers.items():
        usd = float(t.usd[0]) * per_m
        tiers[tid] = HitTier(t.name, t.fetch_s, usd, usd <= price)  # the price pays for it
    return CacheHit(
        price=price,
        to_input=price / input_price,
        context_len=context_len,
        recompute_usd_per_million_tokens=recompute,
        recompute_covered=recompute <= price,
        tiers=tiers,
    )
