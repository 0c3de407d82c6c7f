"""What serving gives: the figures of one scenario (`ServingResult`) or of many at once
(`ServingColumns`), a calibrated prediction's range, and replicas.

An engine other than the ideal enters serving as a `Timing` (`calibrate.Profile` is one): the
time of a pass, and the range of its predictions as multipliers of that time.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline.engine.roofline import BOUND_NAMES, StepTime

__all__ = ["ServingColumns", "ServingResult", "Timing", "join", "replicated"]

_TIMES = ("tpot_s", "ttft_s", "request_latency_s")
_RATES = ("output_tokens_per_s", "output_tokens_per_s_per_chip")


class Timing(Protocol):
    """An engine other than the ideal: the time of a pass, and its range as multipliers of
    that time (`low`, `high`)."""

    @property
    def low(self) -> float: ...
    @property
    def high(self) -> float: ...
    def pass_time(
        self, step: StepTime, *, prefill: bool = False, first_token: bool = False
    ) -> FloatArray: ...


def _ranges(res: Any, ideal: Any, rng: tuple[float, float] | None) -> dict[str, Any]:
    """A calibrated prediction's range: times scale with it, throughputs inversely, and neither
    passes the ideal figure (the lower bound of time)."""
    if rng is None:
        return {}
    lo, hi = rng
    out: dict[str, Any] = {}
    for k in _TIMES:
        floor, x = (0.0 if ideal is None else getattr(ideal, k)), getattr(res, k)
        out[f"{k}_low"], out[f"{k}_high"] = np.maximum(x * lo, floor), np.maximum(x * hi, floor)
    for k in _RATES:
        top, x = (np.inf if ideal is None else getattr(ideal, k)), getattr(res, k)
        out[f"{k}_low"], out[f"{k}_high"] = np.minimum(x / hi, top), np.minimum(x / lo, top)
    return out


@dataclass(frozen=True)
class ServingResult:
    """The output columns of the scenario contract for one scenario (SI units)."""

    tpot_s: float
    ttft_s: float
    request_latency_s: float
    output_tokens_per_s: float
    output_tokens_per_s_per_chip: float
    fits: bool
    bound: str
    t_compute_s: float
    t_weights_s: float
    t_kv_s: float
    t_comm_s: float
    usd_per_million_output_tokens: float | None
    memory_per_chip_bytes: float
    queue_delay_bound_s: float = 0.0
    warnings: tuple[str, ...] = ()
    # a calibrated prediction's range, as multipliers of its times (None for `ideal`)
    time_range: tuple[float, float] | None = None
    # the ideal engine's figures of the same scenario: a range never passes the lower bound
    ideal: ServingResult | None = None

    def as_dict(self) -> dict[str, float | bool | str | None]:
        d: dict[str, Any] = dict(self.__dict__)
        d["warnings"] = "; ".join(self.warnings)
        del d["time_range"], d["ideal"]
        d.update({k: float(v) for k, v in _ranges(self, self.ideal, self.time_range).items()})
        return d


@dataclass(frozen=True)
class ServingColumns:
    """`ServingResult`'s figures for many scenarios of one mode on one system: one element
    per scenario (`bound` as indices into BOUND_NAMES; `usd_...` None when unpriced)."""

    tpot_s: FloatArray
    ttft_s: FloatArray
    request_latency_s: FloatArray
    output_tokens_per_s: FloatArray
    output_tokens_per_s_per_chip: FloatArray
    fits: NDArray[np.bool_]
    bound: NDArray[np.int8]
    t_compute_s: FloatArray
    t_weights_s: FloatArray
    t_kv_s: FloatArray
    t_comm_s: FloatArray
    usd_per_million_output_tokens: FloatArray | None
    memory_per_chip_bytes: FloatArray
    queue_delay_bound_s: FloatArray
    warnings: tuple[tuple[str, ...], ...]
    time_range: tuple[float, float] | None = None
    ideal: ServingColumns | None = None

    def ranges(self) -> dict[str, FloatArray]:
        """Each time and throughput's `<name>_low` and `<name>_high` (none for `ideal`)."""
        return _ranges(self, self.ideal, self.time_range)

    def row(self, i: int) -> ServingResult:
        usd = self.usd_per_million_output_tokens
        floats: dict[str, Any] = {f: float(getattr(self, f)[i]) for f in _FLOATS}
        return ServingResult(
            **floats,
            fits=bool(self.fits[i]),
            bound=BOUND_NAMES[int(self.bound[i])],
            usd_per_million_output_tokens=None if usd is None else float(usd[i]),
            warnings=self.warnings[i],
            time_range=self.time_range,
            ideal=None if self.ideal is None else self.ideal.row(i),
        )


_TERMS = ("t_compute_s", "t_weights_s", "t_kv_s", "t_comm_s")
_FLOATS = (*_TIMES, *_RATES, *_TERMS, "memory_per_chip_bytes", "queue_delay_bound_s")


def join(parts: list[ServingColumns], index: NDArray[np.intp]) -> ServingColumns:
    """The scenarios of `parts` end to end, then taken in the order `index`."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(ServingColumns):
        vals = [getattr(p, f.name) for p in parts]
        if f.name == "warnings":
            joined = [w for v in vals for w in v]
            out[f.name] = tuple(joined[i] for i in index)
        elif f.name == "time_range":
            out[f.name] = vals[0]
        elif f.name == "ideal":
            out[f.name] = None if vals[0] is None else join(vals, index)
        elif vals[0] is None:
            out[f.name] = None
        else:
            out[f.name] = np.concatenate(vals)[index]
    return ServingColumns(**out)


Result = TypeVar("Result", ServingResult, ServingColumns)


def replicated(res: Result, *, batch: Any, per_replica: Any, replicas: int) -> Result:
    """One instance's serving figures restated for `replicas` instances serving `batch`
    sequences, ⌈batch / replicas⌉ on the busiest: times are the busiest instance's; tokens/s
    count every sequence (exactly replicas × one instance's when the batch divides evenly);
    $ per token pays for every chip. Works on one scenario or on columns of them."""
    if replicas == 1:
        return res
    share = batch / per_replica  # sequences served per instance-worth of time
    usd = res.usd_per_million_output_tokens
    ideal = res.ideal
    if ideal is not None:
        ideal = replicated(ideal, batch=batch, per_replica=per_replica, replicas=replicas)
    return dataclasses.replace(
        res,
        ideal=ideal,
        output_tokens_per_s=res.output_tokens_per_s * share,
        output_tokens_per_s_per_chip=res.output_tokens_per_s_per_chip * share / replicas,
        usd_per_million_output_tokens=None if usd is None else usd * replicas / share,
    )
