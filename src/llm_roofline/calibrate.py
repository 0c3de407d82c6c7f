"""Calibrated predictions: the ideal terms scaled by achievable efficiencies, plus overhead.

A `Profile` holds five numbers fitted to published measurements:

- `flops_eff`: fraction of peak FLOP/s decode tokens' matmuls and attention reach;
- `prefill_eff`: the same for prompt tokens (large matmuls run closer to peak): a prefill pass,
  and the prefill share a continuous-batching step carries (`StepTime.t_matmul_prefill`,
  `t_attn_prefill`);
- `bw_eff`: fraction of memory bandwidth reached when fetching weights and KV;
- `comm_eff`: fraction of the ideal speed collectives reach (it scales their whole time:
  latency and bandwidth; fitting the two apart did not hold out better, docs/validation.md);
- `overhead_s`: a fixed time per pass (kernel launches, scheduling, sampling).

A pass then takes `combine(t_compute / eff, t_memory / bw_eff) + t_comm / comm_eff + overhead`,
with the ideal engine's overlap of compute and memory, but communication on the critical path
with one micro-batch (real engines mostly wait for their all-reduces: the StepTime's
`one_batch` terms), so `ideal` differs from the profile (1, 1, 1, 1, 0) only where the ideal
hides communication under a second micro-batch.
Profiles are data (`data/profiles.toml`), each with the validation rows it was fitted on and a
range: the 10th and 90th percentiles of ln(measured / predicted) on those rows, which
`low`/`high` predictions apply.

Fitting minimises the sum of squared ln(predicted / measured) with a deterministic
Nelder–Mead search in the logarithms of the parameters (efficiencies capped at 1).
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

import numpy as np

from .arrays import FloatArray
from .errors import ConfigError, UnknownIdError
from .roofline import StepTime, _combine
from .units import ms, us

__all__ = [
    "IDEAL",
    "PARAMETERS",
    "Profile",
    "fit_profile",
    "get_profile",
    "list_profiles",
    "nelder_mead",
    "pass_time",
]

PARAMETERS = ("flops_eff", "prefill_eff", "bw_eff", "comm_eff", "overhead_s")


@dataclass(frozen=True)
class Profile:
    """Efficiencies and overhead of one engine family on one class of hardware."""

    name: str
    flops_eff: float = 1.0
    prefill_eff: float = 1.0
    bw_eff: float = 1.0
    comm_eff: float = 1.0
    overhead_s: float = 0.0
    # a predicted time times `low` and `high` is its range: the 10th and 90th percentiles of
    # measured / predicted time on the fitted rows (a throughput is divided by them)
    low: float = 1.0
    high: float = 1.0
    fitted_on: tuple[int, ...] = ()  # validation rows (`row` of data/validation.csv)
    note: str = ""
    # real engines mostly wait for their collectives (TP all-reduces feed the next layer):
    # "none" times the one-micro-batch schedule; any other value keeps the ideal's schedule
    # (communication hidden where it chose two micro-batches)
    comm_overlap: str = "none"
    stats: dict[str, float] = field(default_factory=dict)

    def values(self) -> FloatArray:
        return np.asarray([getattr(self, p) for p in PARAMETERS], dtype=np.float64)

    def with_values(self, v: FloatArray) -> Profile:
        f, pf, b, c, o = (float(x) for x in v)
        return replace(self, flops_eff=f, prefill_eff=pf, bw_eff=b, comm_eff=c, overhead_s=o)

    def pass_time(self, step: StepTime, *, prefill: bool = False) -> FloatArray:
        """A pass under this profile (`pass_time`): how serving times a calibrated engine."""
        return pass_time(step, self, prefill=prefill)


IDEAL = Profile(name="ideal", note="datasheet peaks, no overheads: a lower bound on time")


def pass_time(step: StepTime, profile: Profile | None, *, prefill: bool = False) -> FloatArray:
    """The time of a pass under a profile (its ideal time when `profile` is None).

    The profile keeps communication on the critical path: it times the one-micro-batch
    schedule (`StepTime.one_batch`). Prompt tokens' matmuls and attention run at `prefill_eff`
    (all of a pass with `prefill=True`; a mixed step's prefill share otherwise), decode
    tokens' at `flops_eff`.
    """
    if profile is None:
        return step.t_step
    s = step.one_batch if profile.comm_overlap == "none" else step
    if prefill:
        mm_pre, at_pre = s.t_matmul, s.t_attn
    else:
        mm_pre, at_pre = s.t_matmul_prefill, s.t_attn_prefill
    t_matmul = (s.t_matmul - mm_pre) / profile.flops_eff + mm_pre / profile.prefill_eff
    t_attn = (s.t_attn - at_pre) / profile.flops_eff + at_pre / profile.prefill_eff
    t, _ = _combine(
        t_matmul,
        t_attn,
        s.t_weights / profile.bw_eff,
        s.t_kv / profile.bw_eff,
        s.t_comm / profile.comm_eff,
        s.overlap,
        comm_hidden=(s.micro_batches > 1) if profile.comm_overlap != "none" else False,
    )
    return np.asarray(t + profile.overhead_s, dtype=np.float64)


# ---- the shipped profiles -------------------------------------------------------------------


@functools.cache
def _profiles() -> dict[str, Profile]:
    path = resources.files("llm_roofline").joinpath("data/profiles.toml")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"ideal": IDEAL}
    out = {"ideal": IDEAL}
    for name, rec in raw.items():
        try:
            out[name] = Profile(
                name=name,
                low=float(rec.get("low", 1.0)),
                high=float(rec.get("high", 1.0)),
                fitted_on=tuple(int(r) for r in rec.get("fitted_on", [])),
                note=str(rec.get("note", "")),
                stats={k: float(v) for k, v in rec.get("stats", {}).items()},
            ).with_values(np.asarray([float(rec[p]) for p in PARAMETERS]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"profile {name!r} is malformed: {exc}", field=name) from None
    return out


def list_profiles() -> list[str]:
    return sorted(_profiles())


def get_profile(name: str | Profile | None) -> Profile | None:
    """A shipped profile by name ("ideal" gives None: the ideal engine)."""
    if name is None or isinstance(name, Profile):
        return None if name is IDEAL else name
    key = name.strip().lower()
    profiles = _profiles()
    if key not in profiles:
        raise UnknownIdError("engine profile", name, profiles)
    return None if key == "ideal" else profiles[key]


# ---- fitting -------------------------------------------------------------------------------


def nelder_mead(
    f: Callable[[FloatArray], float],
    x0: FloatArray,
    *,
    step: float = 0.5,
    iterations: int = 600,
    tol: float = 1e-10,
) -> FloatArray:
    """Minimise f from x0 with the Nelder–Mead simplex (deterministic, numpy only)."""
    n = x0.size
    simplex = [x0.astype(np.float64)]
    for i in range(n):
        x = x0.astype(np.float64).copy()
        x[i] += step
        simplex.append(x)
    values = [f(x) for x in simplex]
    for _ in range(iterations):
        order = np.argsort(values)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if abs(values[-1] - values[0]) < tol:
            break
        centroid = np.mean(simplex[:-1], axis=0)
        worst = simplex[-1]
        xr = centroid + (centroid - worst)
        fr = f(xr)
        if fr < values[0]:
            xe = centroid + 2.0 * (centroid - worst)
            fe = f(xe)
            simplex[-1], values[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = xr, fr
        else:
            xc = centroid + 0.5 * (worst - centroid)
            fc = f(xc)
            if fc < values[-1]:
                simplex[-1], values[-1] = xc, fc
            else:
                best = simplex[0]
                simplex = [best] + [best + 0.5 * (x - best) for x in simplex[1:]]
                values = [values[0]] + [f(x) for x in simplex[1:]]
    return simplex[int(np.argmin(values))]


def _to_params(z: FloatArray) -> FloatArray:
    """Unconstrained z to parameters: efficiencies exp(−softplus) in (0, 1], overhead ≥ 0."""
    eff = np.exp(-np.logaddexp(0.0, z[:4]))  # (0, 1)
    overhead = us * np.exp(np.clip(z[4], -30, 15))  # in microseconds: 1e-19 .. 3 s
    return np.concatenate([eff, [overhead]])


def _from_params(p: FloatArray) -> FloatArray:
    eff = np.clip(p[:4], 1e-6, 1 - 1e-9)
    z_eff = np.log(np.expm1(-np.log(eff)))  # inverse of exp(-softplus)
    return np.concatenate([z_eff, [math.log(max(p[4], 1e-18) / us)]])


def fit_profile(
    name: str,
    predict: Callable[[Profile], FloatArray],
    measured: FloatArray,
    rows: tuple[int, ...],
    *,
    start: Profile | None = None,
    note: str = "",
    fixed: dict[str, float] | None = None,
    throughput: Any = None,
) -> Profile:
    """Fit a profile so that `predict(profile)` (one value per row) matches `measured`.

    `fixed` pins parameters the rows cannot inform (e.g. comm_eff without multi-chip rows).
    `throughput` marks rows whose metric grows when things go faster (tokens/s): the range
    (`low`, `high`) is taken on times, so their residuals are turned round.
    """
    m = np.asarray(measured, dtype=np.float64)
    base = start or Profile(
        name=name, flops_eff=0.5, prefill_eff=0.6, bw_eff=0.7, comm_eff=0.7, overhead_s=ms
    )
    fixed = fixed or {}
    free = [i for i, p in enumerate(PARAMETERS) if p not in fixed]

    def make(z_free: FloatArray) -> Profile:
        z = _from_params(base.values())
        z[free] = z_free
        p = _to_params(z)
        for i, name_ in enumerate(PARAMETERS):
            if name_ in fixed:
                p[i] = fixed[name_]
        return base.with_values(p)

    def loss(z_free: FloatArray) -> float:
        pred = predict(make(z_free))
        r = np.log(pred / m)
        return float(np.sum(np.where(np.abs(r) < 0.5, r * r, np.abs(r) - 0.25)))  # Huber

    z0 = _from_params(base.values())[free]
    best = make(nelder_mead(loss, z0))
    resid = np.log(m / predict(best))  # ln(measured / predicted) ...
    if throughput is not None:  # ... as a ratio of times: measured time / predicted time
        resid = np.where(np.asarray(throughput, dtype=bool), -resid, resid)
    return replace(
        best,
        name=name,
        low=float(math.exp(np.percentile(resid, 10))),
        high=float(math.exp(np.percentile(resid, 90))),
        fitted_on=tuple(int(r) for r in rows),
        note=note,
        stats={
            "rows": float(m.size),
            "median_abs_log_error": float(np.median(np.abs(resid))),
            "p90_abs_log_error": float(np.percentile(np.abs(resid), 90)),
        },
    )


def profile_record(p: Profile) -> dict[str, Any]:
    """A profile as a TOML-ready table."""
    rec: dict[str, Any] = {k: round(getattr(p, k), 6) for k in PARAMETERS}
    rec["overhead_s"] = float(f"{p.overhead_s:.4g}")
    rec.update(
        low=round(p.low, 4),
        high=round(p.high, 4),
        note=p.note,
        fitted_on=list(p.fitted_on),
        stats={k: round(v, 4) for k, v in p.stats.items()},
    )
    return rec
