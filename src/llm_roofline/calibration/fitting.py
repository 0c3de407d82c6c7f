"""Fitting the calibrated engine: one set of physical constants, shifted by what the engine and
the chip are, fitted to every scored validation row at once.

Each row's constants (`calibrate.PARAMETERS`) are a shared value plus an effect for each of
its labels: its engine family, its chip's vendor and its chip's memory kind (`EFFECTS` says
which constants each kind of label moves). Constants live in an unbounded space (an
efficiency e as z with e = exp(−softplus(z)), a time t as z = ln(t / scale)), effects add there.
Priors (`data/priors.toml`: each constant's plausible range, with why) pull the shared values
towards the middle of their range, and effects towards zero (`SHRINK`): a label with few rows
moves little, and a label never measured (a new chip's vendor) moves nothing, so an unseen
chip gets the constants of what it is that was seen (its memory kind, its vendor) and the
shared values for the rest.

The fit minimises the sum of Huber losses of ln(predicted / measured) / σ (σ the residuals'
spread, estimated from them) plus the priors' penalties by Levenberg–Marquardt: the Jacobian
is taken by finite differences on each row's constants (one stacked prediction per constant,
however many labels there are) and carried to the labels by the chain rule. Deterministic.
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.errors import ConfigError

__all__ = [
    "EFFECTS",
    "PARAMETERS",
    "SHRINK",
    "Fitted",
    "Prior",
    "fit",
    "from_z",
    "load_priors",
    "to_z",
]

PARAMETERS = (
    "flops_eff",
    "prefill_eff",
    "bw_eff",
    "kv_eff",
    "comm_eff",
    "overhead_s",
    "prefill_overhead_s",
    "layer_s",
    "gqa_share",
    "prefill_comm_eff",
)
EFFICIENCIES = frozenset((*PARAMETERS[:5], "gqa_share", "prefill_comm_eff"))
# z = 0 is 1 ms per pass, 1 ms per prefill, 10 µs per layer
_SCALE = {"overhead_s": 1e-3, "prefill_overhead_s": 1e-3, "layer_s": 1e-5}

# which constants each kind of label moves (chosen by leave-one-source-out, docs/validation.md)
EFFECTS: Mapping[str, tuple[str, ...]] = {
    "family": ("flops_eff", "prefill_eff", "bw_eff", "overhead_s"),
    "vendor": ("flops_eff", "bw_eff"),
    "memory": ("bw_eff", "kv_eff"),
}
SHRINK = 10.0  # effects' prior: normal, sd 1/sqrt(10) = 0.32 in z (about ×1.35 on a time)
_Z90 = 1.6449  # a prior's range is its central 90%
SIGMA0 = 0.15  # the residuals' spread the first pass assumes (ln units; re-estimated after it)
SIGMA_FLOOR = 0.02  # a fit that reproduces its rows exactly still weighs them finitely
HUBER = 2.0  # residuals beyond 2 σ count linearly: one odd row cannot drag the constants
SOURCE_WEIGHT = 0.5  # a source of n rows weighs as sqrt(n) typical ones (fit's docstring)


def to_z(name: str, value: FloatArray | float) -> FloatArray:
    v = np.asarray(value, dtype=np.float64)
    if name in EFFICIENCIES:
        e = np.clip(v, 1e-9, 1 - 1e-12)
        return np.asarray(np.log(np.expm1(-np.log(e))), dtype=np.float64)
    return np.asarray(np.log(np.maximum(v, 1e-30) / _SCALE[name]), dtype=np.float64)


def from_z(name: str, z: FloatArray | float) -> FloatArray:
    z = np.asarray(z, dtype=np.float64)
    if name in EFFICIENCIES:
        return np.asarray(np.exp(-np.logaddexp(0.0, z)), dtype=np.float64)
    return np.asarray(_SCALE[name] * np.exp(np.clip(z, -40.0, 20.0)), dtype=np.float64)


@dataclass(frozen=True)
class Prior:
    """A constant's plausible range (its central 90%) and why."""

    name: str
    low: float
    high: float
    why: str

    @property
    def centre_z(self) -> float:
        return float(0.5 * (to_z(self.name, self.low) + to_z(self.name, self.high)))

    @property
    def sd_z(self) -> float:
        return float(abs(to_z(self.name, self.high) - to_z(self.name, self.low)) / (2 * _Z90))


@functools.cache
def load_priors() -> dict[str, Prior]:
    """The priors of data/priors.toml, one per constant."""
    text = resources.files("llm_roofline").joinpath("data/priors.toml").read_text("utf-8")
    raw = tomllib.loads(text)
    out = {}
    for name in PARAMETERS:
        rec = raw.get(name)
        if not isinstance(rec, dict) or not {"low", "high", "why"} <= set(rec):
            raise ConfigError(f"priors.toml: {name} needs low, high and why", field=name)
        low, high = float(rec["low"]), float(rec["high"])
        if not 0 < low < high or (name in EFFICIENCIES and high > 1):
            raise ConfigError(f"priors.toml: {name} range {low}..{high} is not valid", field=name)
        out[name] = Prior(name, low, high, str(rec["why"]))
    return out


@dataclass(frozen=True)
class Fitted:
    """Shared constants (z space) with their standard errors, and each label's effects."""

    shared: dict[str, float]
    shared_sd: dict[str, float]
    effects: dict[str, dict[str, dict[str, float]]]  # kind -> label -> constant -> z
    rows: int
    iterations: int
    sigma: float = 1.0  # the residuals' spread the rows were weighed by (ln units)

    def z_for(self, labels: Mapping[str, str | None]) -> dict[str, float]:
        """One row's constants in z: the shared value plus its labels' effects (a label that
        was not fitted adds nothing)."""
        z = dict(self.shared)
        for kind, label in labels.items():
            for name, dz in self.effects.get(kind, {}).get(label or "", {}).items():
                z[name] += dz
        return z

    def values_for(self, labels: Mapping[str, str | None]) -> dict[str, float]:
        return {k: float(from_z(k, v)) for k, v in self.z_for(labels).items()}


def _huber(u: FloatArray) -> FloatArray:
    """Huber's loss of standardised residuals: squares within HUBER, linear beyond."""
    a = np.abs(u)
    return np.asarray(np.where(a < HUBER, u * u, 2 * HUBER * a - HUBER**2), dtype=np.float64)


class _Problem:
    """The least-squares problem `fit` solves: the free variables (the shared z of each
    constant, then one per (kind, label, constant it moves)), the rows' weights, and the
    priors that hold each variable near its centre."""

    def __init__(
        self,
        predict: Callable[[dict[str, FloatArray]], FloatArray],
        measured: FloatArray,
        labels: Mapping[str, Sequence[str]],
        sources: Sequence[str] | None,
    ) -> None:
        priors = load_priors()
        n_rows, n_par = int(measured.size), len(PARAMETERS)
        free: list[tuple[str, str, int, np.ndarray]] = []  # kind, label, constant index, rows
        for kind, moved in EFFECTS.items():
            lab = np.asarray(labels.get(kind, ["" for _ in range(n_rows)]))
            for label in sorted(set(lab.tolist()) - {""}):
                rows = lab == label
                free += [(kind, label, PARAMETERS.index(m), rows) for m in moved]
        src = np.asarray(sources if sources is not None else ["" for _ in range(n_rows)])
        _, inv, counts = np.unique(src, return_inverse=True, return_counts=True)
        self.row_w = (float(np.median(counts)) / counts[inv]) ** SOURCE_WEIGHT
        self.n_rows, self.n_par, self.free = n_rows, n_par, free
        self.n_free = n_par + len(free)
        centre = np.asarray([priors[p].centre_z for p in PARAMETERS])
        self.prior_sd = np.concatenate(
            [
                [priors[p].sd_z for p in PARAMETERS],
                np.full(len(free), 1.0 / math.sqrt(SHRINK)),
            ]
        )
        self.target = np.concatenate([centre, np.zeros(len(free))])
        self.member = np.zeros((n_rows, len(free)))
        for j, (_, _, _, rows) in enumerate(free):
            self.member[:, j] = rows
        self.which = np.asarray([c for _, _, c, _ in free], dtype=np.intp)
        self.log_m = np.log(measured)
        self.inv_var = 1.0 / self.prior_sd**2
        self.predict = predict

    def row_z(self, x: FloatArray) -> FloatArray:
        """Each row's z of each constant: the shared z plus the effects of its labels."""
        n_par = self.n_par
        z = np.tile(x[:n_par], (self.n_rows, 1))
        for c in range(n_par):
            cols = self.which == c
            if cols.any():
                z[:, c] += self.member[:, cols] @ x[n_par:][cols]
        return z

    def residual(self, z_rows: FloatArray) -> FloatArray:
        params = {p: from_z(p, z_rows[:, i]) for i, p in enumerate(PARAMETERS)}
        return np.asarray(np.log(self.predict(params)) - self.log_m, dtype=np.float64)

    def cost(self, r: FloatArray, x: FloatArray, sigma: float) -> float:
        prior = (((x - self.target) / self.prior_sd) ** 2).sum()
        return float((self.row_w * _huber(r / sigma)).sum() + prior)

    def normal_equations(
        self, x: FloatArray, r: FloatArray, sigma: float
    ) -> tuple[FloatArray, FloatArray]:
        """The Gauss–Newton matrix (Huber-weighted, with the priors) and the gradient at x."""
        zr = self.row_z(x)
        j_rows = np.empty((self.n_rows, self.n_par))
        for i in range(self.n_par):
            dz = zr.copy()
            dz[:, i] += 1e-5
            j_rows[:, i] = (self.residual(dz) - r) / 1e-5
        jac = np.concatenate([j_rows, j_rows[:, self.which] * self.member], axis=1) / sigma
        u = r / sigma
        w = self.row_w * np.where(np.abs(u) < HUBER, 1.0, HUBER / np.maximum(np.abs(u), 1e-12))
        a_mat = jac.T @ (jac * w[:, None]) + np.diag(self.inv_var)
        grad = jac.T @ (w * u) + self.inv_var * (x - self.target)
        return a_mat, grad

    def solve(
        self, x: FloatArray, sigma: float, iterations: int
    ) -> tuple[FloatArray, FloatArray, FloatArray, int]:
        """Levenberg–Marquardt from x: the solution, its residuals, the Hessian, iterations."""
        r = self.residual(self.row_z(x))
        c, mu, it = self.cost(r, x, sigma), 1e-2, 0
        a_mat = np.eye(self.n_free)
        for it in range(1, iterations + 1):  # noqa: B007 (the count is reported)
            a_mat, grad = self.normal_equations(x, r, sigma)
            done = False
            while True:
                step = np.linalg.solve(a_mat + mu * np.diag(np.diag(a_mat)), -grad)
                x_new = x + step
                r_new = self.residual(self.row_z(x_new))
                c_new = self.cost(r_new, x_new, sigma)
                if np.isfinite(c_new) and c_new < c:
                    done = c - c_new < 1e-6 * max(c, 1.0)
                    x, r, c, mu = x_new, r_new, c_new, max(mu / 3.0, 1e-9)
                    break
                mu *= 4.0
                if mu > 1e9:
                    done = True
                    break
            if done:
                break
        return x, r, a_mat, it


def fit(
    predict: Callable[[dict[str, FloatArray]], FloatArray],
    measured: FloatArray,
    labels: Mapping[str, Sequence[str]],
    *,
    sources: Sequence[str] | None = None,
    iterations: int = 60,
) -> Fitted:
    """Fit the shared constants and label effects so that `predict` (each row's metric from
    per-row constants) matches `measured`; `labels[kind][i]` is row i's label of that kind.

    The residuals ln(predicted / measured) are weighed by their spread σ (a row is a draw of
    that spread, the priors are not): fitted once with σ = SIGMA0, then σ is re-estimated from
    the residuals (1.4826 × their median absolute deviation) and the fit is repeated.

    `sources[i]` names row i's publication. Rows of one publication share its engine version,
    settings and way of measuring, so they are not independent draws: each row weighs
    (the typical source's rows / its source's rows) ** SOURCE_WEIGHT, and a source of 83 rows
    counts for less than 83 sources of one."""
    pb = _Problem(predict, measured, labels, sources)
    n_par = pb.n_par
    x, r, _, it0 = pb.solve(pb.target.copy(), SIGMA0, iterations)
    sigma = max(1.4826 * float(np.median(np.abs(r - np.median(r)))), SIGMA_FLOOR)
    x, r, a_mat, it = pb.solve(x, sigma, iterations)
    it += it0
    sd = np.sqrt(np.clip(np.diag(np.linalg.inv(a_mat)), 0.0, None))
    effects: dict[str, dict[str, dict[str, float]]] = {}
    for (kind, label, ci, _), v in zip(pb.free, x[n_par:], strict=True):
        effects.setdefault(kind, {}).setdefault(label, {})[PARAMETERS[ci]] = float(v)
    return Fitted(
        shared={p: float(x[i]) for i, p in enumerate(PARAMETERS)},
        shared_sd={p: float(sd[i]) for i, p in enumerate(PARAMETERS)},
        effects=effects,
        rows=pb.n_rows,
        iterations=it,
        sigma=sigma,
    )
