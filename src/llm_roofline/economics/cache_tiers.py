"""Where to keep a KV cache (the lecture §6, `llm-roofline cache-tiers`): each memory tier of
`data/tiers.toml` and the chip's own HBM as one device with a capacity, a read bandwidth and a
cost per second, and what holding one sequence's cache there and bringing it back costs,
against recomputing it with a prefill."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import ConfigError, InputError
from llm_roofline._core.units import giga, year
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.fit_advice import fit_advice
from llm_roofline.economics.token_costs import check_context, deployment_price, prefill_time
from llm_roofline.engine.roofline import as_system
from llm_roofline.hardware.chip import Chip

__all__ = ["Tier", "cache_costs", "load_tiers"]


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
    if not chip.price_usd_per_s > 0:
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


def cache_costs(dep: Deployment, *, context_len: int, hold_s: ArrayLike) -> dict[str, Any]:
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
    spec = dep.model
    S = check_context(context_len)
    hold = np.asarray(hold_s, dtype=np.float64)
    if not (np.all(np.isfinite(hold)) and np.all(hold >= 0)):
        raise InputError("hold times must be zero or positive", field="hold_s")
    n = dep.instance_chips
    nbytes = float(spec.kv_elements_per_sequence(S)) * get_dtype(dep.kv_dtype).bytes
    fit = fit_advice(dep, S, 1)
    weights_pc, kv_pc, fits = fit.weights, fit.kv, fit.fits
    warning = None
    if not fits:
        warning = (
            f"{spec.name} does not fit on {dep.chips} × {dep.chip.id} ({dep.split_text()}): "
            f"{fit.message} (costs computed as if it did)"
        )
    price = deployment_price(dep) / dep.replicas  # one instance's chips
    t_pre, prompts = prefill_time(dep, S)
    recompute = deployment_price(dep) * t_pre / prompts  # one prompt's share, as input cost
    system = dep.instance
    tiers = load_tiers(system.chip)
    out: dict[str, Any] = {
        "engine": dep.engine,
        "kv_bytes": nbytes,
        "chips": n,
        "weights_bytes_per_chip": weights_pc,
        "kv_bytes_per_chip": kv_pc,
        "capacity_bytes_per_chip": fit.capacity,
        "fits": bool(fits),
        "warning": warning,
        "recompute_usd": recompute,
        "recompute_s": t_pre,
        "hold_s": hold,
        "tiers": {},
    }
    for t in tiers:
        devices = n if t.id == "hbm" else 1
        capacity, bandwidth = devices * t.capacity_bytes, devices * t.bandwidth
        holding = nbytes / capacity * (devices * t.usd_per_s) * hold
        fetch_s = nbytes / bandwidth
        out["tiers"][t.id] = {
            "name": t.name,
            "devices": devices,
            "bandwidth": bandwidth,
            "drain_time_s": t.drain_time_s,
            "fetch_s": fetch_s,
            "usd": holding + fetch_s * price,
        }
    costs = np.stack([v["usd"] for v in out["tiers"].values()] + [np.full_like(hold, recompute)])
    names = [*out["tiers"], "recompute"]
    out["cheapest"] = [names[i] for i in np.argmin(costs, axis=0)]
    return out
