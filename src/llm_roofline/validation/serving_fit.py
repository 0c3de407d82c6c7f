"""`validate --serving`: serving rows scored, the engines' fixed costs fitted, sources held out.

`validate_serving` simulates each row (`serving.py`) with the serving engines' fixed costs as
shipped (data/serving_costs.toml) and reports ln(simulated / measured) by metric family,
source and engine (`serving_figures.grouped_stats`). Then it fits the fixed costs `simulate`
takes (`serving.serving_knobs`: per request, per step and a request's time in the front end)
and cross-validates them leaving
one source (one address) out at a time:

* a row's figure is made time-like (a throughput by its inverse: fixed costs add time) and
  taken as linear in the costs around the shipped ones, with slopes from one more simulation
  per cost, raised by `STEPS` (`Linear`);
* each cost minimises the sum of |ln(simulated / measured)| (least absolute errors: a few
  rows off by a factor of ten do not pull it) over the figures it shows in (`SHOWN_IN`: the
  step cost over TPOT and throughput, the front end over TTFT and throughput, then the
  request cost over TTFT and end-to-end latency; fitted jointly on every figure, a step
  cost of 20 ms and a request cost of 5 ms explain a TTFT gap as well as 1 ms and 30 ms,
  and the fit jumped between the two as sources were held out), on a grid (0 to `TOP`,
  refined around the best point), each metric family of each source weighing the same (its
  n rows 1/n each); all engines share one set of costs, except an engine measured by at
  least two sources of the fit, which gets its own (`_groups`); never one per source;
* each source held out in turn is simulated with the costs fitted on the others (the real
  simulator, not the linear model) and scored: the held-out figures;
* the costs fitted on every source (`fitted` in the report; `costs_toml` writes them as
  data/serving_costs.toml) are the values to ship in the engines' profiles.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.errors import InputError
from llm_roofline.sim.simulate import SimResult
from llm_roofline.validation.serving import (
    Costs,
    ServingRow,
    Simulations,
    load_serving_rows,
    shipped_costs,
)
from llm_roofline.validation.serving_figures import grouped_stats, simulated_value

__all__ = [
    "GRID",
    "STEPS",
    "TOP",
    "CostFit",
    "Linear",
    "costs_toml",
    "fit_costs",
    "load_kind",
    "validate_serving",
]

Progress = Callable[[int, int], None]
FloatArray = NDArray[np.float64]
SHARED = "all engines"
# in the order of serving.serving_knobs' names: a request's, a step's, a request's front end
STEPS = (0.02, 0.002, 0.002)  # the finite differences: 20 ms, 2 ms, 2 ms
TOP = (0.25, 0.02, 0.02)  # the grid's reach: 250 ms, 20 ms, 20 ms
GRID = 41


@dataclass(frozen=True)
class CostFit:
    """Fitted fixed costs: `groups` maps an engine (or `SHARED`, every other engine) to its
    costs, in `names`' order; `sources` and `rows` are what they were fitted on."""

    names: tuple[str, ...]
    groups: dict[str, Costs]
    sources: int
    rows: int

    def costs(self, engine: str | None) -> Costs | None:
        """The costs an engine runs with under this fit (None: nothing fitted)."""
        if not self.names:
            return None
        return self.groups.get(engine or "", self.groups[SHARED])

    def as_dict(self) -> dict[str, Any]:
        return {
            "costs": {g: dict(zip(self.names, c, strict=True)) for g, c in self.groups.items()},
            "sources": self.sources,
            "rows": self.rows,
        }


@dataclass(frozen=True)
class Linear:
    """Each scored row's time-like figure: simulated at the shipped costs (`at`), its slope
    per cost (`slope`, rows × costs), the shipped costs (`origin`), the measured (`target`);
    `source`, `engine` and `family` say which fold, cost group and weight it has."""

    at: FloatArray
    slope: FloatArray
    origin: FloatArray
    target: FloatArray
    source: NDArray[np.str_]
    engine: NDArray[np.str_]
    family: NDArray[np.str_]

    def errors(self, theta: FloatArray, rows: NDArray[np.intp]) -> FloatArray:
        """ln(time-like simulated / measured) of `rows` at each cost vector of `theta`
        (points × costs): rows × points."""
        shift = theta[None, :, :] - self.origin[rows, None, :]
        q = self.at[rows, None] + np.sum(shift * self.slope[rows, None, :], axis=2)
        q = np.maximum(q, 0.05 * self.at[rows, None])  # the linear model far out: kept > 0
        return np.asarray(np.log(q) - np.log(self.target[rows, None]), dtype=np.float64)


def _time_like(r: ServingRow, value: float) -> float:
    return 1.0 / value if r.family == "throughput" else value


def _groups(lin: Linear, train: NDArray[np.bool_]) -> dict[str, NDArray[np.intp]]:
    """The training rows of each cost group: an engine with rows from at least two sources
    has its own; the rest share `SHARED`."""
    own = {
        e
        for e in set(lin.engine[train].tolist())
        if e and len(set(lin.source[train & (lin.engine == e)].tolist())) >= 2
    }
    groups = {e: np.flatnonzero(train & (lin.engine == e)) for e in sorted(own)}
    rest = train & ~np.isin(lin.engine, sorted(own))
    groups[SHARED] = np.flatnonzero(rest)
    return groups


# the figures each cost shows in, fitted in this order: a step's CPU cost adds to every
# token's time (TPOT, and throughput through it); a request's front-end time queues requests
# that come together (TTFT) and caps the requests an instance takes a second (throughput);
# then a request's own delay adds to its first token and latency
SHOWN_IN = {
    "step_overhead_s": ("tpot", "throughput"),
    "frontend_s": ("ttft", "throughput"),
    "request_overhead_s": ("ttft", "e2e"),
}


def _best(
    lin: Linear, rows: NDArray[np.intp], weights: FloatArray, names: tuple[str, ...]
) -> Costs:
    """The costs minimising the weighted |errors| of `rows`, one at a time on the rows whose
    figures show it (`SHOWN_IN`), the others held at their value so far (first the median
    shipped value): on GRID points from 0 to TOP, then twice on a finer grid around the best.
    A cost that comes out at TOP is not identified by the rows (they would take more of it
    than any CPU cost in reach, so they are missing something else): it is set to 0, before
    the next cost is fitted."""
    theta = np.median(lin.origin[rows], axis=0)
    for name in sorted(names, key=lambda n: tuple(SHOWN_IN).index(n)):
        k = names.index(name)
        mine = np.isin(lin.family[rows], SHOWN_IN[name])
        if not mine.any():
            continue
        low, high = 0.0, TOP[k]
        for _ in range(3):
            grid = np.repeat(theta[None, :], GRID, axis=0)
            grid[:, k] = np.linspace(low, high, GRID)
            err = np.abs(lin.errors(grid, rows[mine]))
            theta = grid[int(np.argmin(np.sum(weights[mine, None] * err, axis=0)))]
            step = (high - low) / (GRID - 1)
            low, high = max(theta[k] - step, 0.0), min(theta[k] + step, TOP[k])
        if theta[k] >= TOP[k]:  # at the grid's reach: the rows ask for something else
            theta[k] = 0.0
    return tuple(float(x) for x in theta)


def fit_costs(lin: Linear, train: NDArray[np.bool_], names: tuple[str, ...]) -> CostFit:
    """The fixed costs fitted on the rows `train` selects (module docstring)."""
    cells = Counter(zip(lin.source[train].tolist(), lin.family[train].tolist(), strict=True))
    groups = {}
    for g, rows in _groups(lin, train).items():
        if rows.size == 0:
            groups[g] = tuple(float(x) for x in lin.origin[0]) if lin.origin.size else ()
            continue
        keys = zip(lin.source[rows].tolist(), lin.family[rows].tolist(), strict=True)
        groups[g] = _best(lin, rows, np.array([1.0 / cells[k] for k in keys]), names)
    return CostFit(names, groups, len({s for s, _ in cells}), int(np.sum(train)))


def _scored(
    rows: Sequence[ServingRow], sims: Simulations, costs: Callable[[ServingRow], Costs | None]
) -> tuple[list[ServingRow], FloatArray, list[tuple[ServingRow, str]]]:
    """The rows simulated (each at `costs(row)`), their figures, and those that failed."""
    done, values, failed = [], [], []
    for r in rows:
        if r.setting is None:
            continue
        res = sims.result(r.setting, costs(r))
        if isinstance(res, str):
            failed.append((r, res))
            continue
        v = _value(r, res, sims)
        if isinstance(v, str) or not (np.isfinite(v) and v > 0):  # e.g. no TPOT, a rate of inf
            failed.append((r, v if isinstance(v, str) else f"the simulated {r.metric} is {v:g}"))
            continue
        done.append(r)
        values.append(v)
    return done, np.asarray(values, dtype=np.float64), failed


def _linear(rows: Sequence[ServingRow], base: FloatArray, sims: Simulations) -> Linear:
    """Slopes of each row's time-like figure per fixed cost, by finite differences."""
    n, p = len(rows), len(sims.costs)
    origin = np.array([shipped_costs(_engine(r)) for r in rows], dtype=np.float64).reshape(n, p)
    at = np.array([_time_like(r, v) for r, v in zip(rows, base, strict=True)])
    slope = np.array([[_slope(r, k, origin[i], at[i], sims) for k in range(p)]
                      for i, r in enumerate(rows)]).reshape(n, p)  # fmt: skip
    target = np.array([_time_like(r, r.value) for r in rows])
    src = np.array([r.source for r in rows], dtype=np.str_)
    eng = np.array([_engine(r) or "" for r in rows], dtype=np.str_)
    fam = np.array([r.family or "" for r in rows], dtype=np.str_)
    return Linear(at, slope, origin, target, src, eng, fam)


def _slope(r: ServingRow, k: int, origin: FloatArray, at: float, sims: Simulations) -> float:
    """d(time-like figure)/d(cost k) at the shipped costs. An open loop's request cost only
    delays each request's arrival at the engine (sim/event_loop.py), so it adds itself to
    every TTFT and end-to-end latency and nothing to TPOT or (over a long run) throughput;
    otherwise one more simulation with the cost raised by STEPS[k]."""
    assert r.setting is not None
    if sims.costs[k] == "request_overhead_s" and r.setting.loop == "rate":
        return 1.0 if r.family in ("ttft", "e2e") else 0.0
    raised = tuple(c + (STEPS[k] if j == k else 0.0) for j, c in enumerate(origin))
    res = sims.result(r.setting, raised)
    if isinstance(res, str):
        return 0.0
    v = _value(r, res, sims)
    if isinstance(v, str) or not (np.isfinite(v) and v > 0):
        return 0.0
    return (_time_like(r, v) - at) / STEPS[k]


def _value(r: ServingRow, res: SimResult, sims: Simulations) -> float | str:
    """The row's simulated figure, or why it has none."""
    assert r.setting is not None
    try:
        return simulated_value(r.metric, res, sims.workload(r.setting), r.setting)
    except InputError as e:
        return str(e)


def _costs_of(fit: CostFit) -> Callable[[ServingRow], Costs | None]:
    return lambda r: fit.costs(_engine(r))


def _engine(r: ServingRow) -> str | None:
    return None if r.setting is None else r.setting.engine


def _errors(rows: Sequence[ServingRow], values: FloatArray) -> list[float]:
    return [float(np.log(v / r.value)) for r, v in zip(rows, values, strict=True)]


def _stats(rows: Sequence[ServingRow], errors: Sequence[float]) -> dict[str, Any]:
    """The error statistics by family, by source, by engine and by how the load was applied."""
    every = grouped_stats(rows, errors, lambda r: "all")
    return {
        "by_family": every.get("all", {}),
        "by_source": grouped_stats(rows, errors, lambda r: r.source),
        "by_engine": grouped_stats(rows, errors, lambda r: r.engine),
        "by_load": grouped_stats(rows, errors, load_kind),
    }


def load_kind(r: ServingRow) -> str:
    """How a row's load was applied: a closed loop of clients, an open loop at a rate, or
    every request at t = 0 (a burst)."""
    s = r.setting
    if s is None or s.loop == "concurrency":
        return "closed loop"
    return "burst" if np.isinf(s.load) else "open loop"


def _held_out(
    rows: list[ServingRow], lin: Linear, sims: Simulations, sources: list[str]
) -> tuple[list[ServingRow], list[float], dict[str, Any]]:
    """Each source in `sources` scored with the costs fitted on the others."""
    kept: list[ServingRow] = []
    errors: list[float] = []
    fits: dict[str, Any] = {}
    for src in sources:
        fit = fit_costs(lin, lin.source != src, sims.costs)
        fits[src] = fit.as_dict()
        mine = [r for r in rows if r.source == src]
        done, values, _ = _scored(mine, sims, _costs_of(fit))
        kept += done
        errors += _errors(done, values)
    return kept, errors, fits


def validate_serving(
    path: Path | None = None, source: str | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The serving validation (module docstring): rows of `path` (the repository's file by
    default) whose address contains `source` (all by default) scored as shipped and held
    out; the fixed costs fitted on every source. `progress(i, n)` after each stage."""
    every = load_serving_rows(path)
    rows = every if source is None else load_serving_rows(path, source)
    sims = Simulations()
    tick = progress or (lambda _i, _n: None)
    done, base, failed = _scored(every, sims, lambda r: None)
    tick(1, 4)
    lin = _linear(done, base, sims)
    tick(2, 4)
    sources = sorted({r.source for r in done} & {r.source for r in rows})  # those simulated
    held_rows, held, fits = _held_out(done, lin, sims, sources) if sims.costs else ([], [], {})
    tick(3, 4)
    fit = fit_costs(lin, np.ones(len(done), dtype=bool), sims.costs)
    tick(4, 4)
    mine = {r.line for r in rows}  # by line: `rows` and `every` are read separately
    shipped = [(r, e) for r, e in zip(done, _errors(done, base), strict=True) if r.line in mine]
    return {
        "rows": len(rows),
        "simulated": len(shipped),
        "settings": len({r.setting for r in done}),
        "fixed_costs": list(sims.costs),
        "not_simulated": [
            {"line": r.line, "source": r.source, "metric": r.metric, "reason": why}
            for r, why in [(r, r.reason) for r in rows if r.setting is None]
            + [(r, w) for r, w in failed if r.line in mine]
        ],
        "shipped": _stats([r for r, _ in shipped], [e for _, e in shipped]),
        "held_out": {**_stats(held_rows, held), "fits": fits},
        "fitted": fit.as_dict(),
        "row_figures": _row_figures(done, base, mine),
    }


def _row_figures(
    rows: Sequence[ServingRow], values: FloatArray, mine: set[int]
) -> list[dict[str, Any]]:
    return [
        {
            "line": r.line,
            "source": r.source,
            "engine": r.engine,
            "metric": r.metric,
            "measured": r.value,
            "simulated": float(v),
        }
        for r, v in zip(rows, values, strict=True)
        if r.line in mine
    ]


def costs_toml(fitted: dict[str, Any], engines: Sequence[str]) -> str:
    """data/serving_costs.toml's text for `engines` from a report's `fitted` (`validate_serving`):
    each engine's costs (its own, or those shared by engines of fewer than two sources) with
    their provenance."""
    costs = fitted["costs"]
    head = [
        "# Each serving engine's fixed costs outside the GPU's steps (sim/serving_engines.py):",
        "#   request_overhead_s: per request, before its prompt reaches the engine;",
        "#   step_overhead_s: per engine step (the CPU scheduler, input preparation, sampling);",
        "#   frontend_s: per request, in the instance's one front-end process (HTTP, tokenising,",
        "#     detokenising, streaming), which serves one request at a time.",
        "# Written by `llm-roofline validate --serving --save-costs` (validation/serving_fit.py):",
        "# least absolute ln(simulated / measured) over every source, never per source.",
        "",
    ]
    out = head
    for e in engines:
        own = e in costs
        c = costs[e] if own else costs[SHARED]
        whose = "this engine's own" if own else "shared by the engines of fewer than two sources"
        out += [
            f"[{e}]",
            f"request_overhead_s = {c['request_overhead_s']:.5f}",
            f"step_overhead_s = {c['step_overhead_s']:.6f}",
            f"frontend_s = {c['frontend_s']:.6f}",
            f'source = "fitted ({whose}) by validate --serving to {fitted["rows"]} rows from '
            f'{fitted["sources"]} sources of tests/data/serving_measurements.csv"',
            "",
        ]
    return "\n".join(out)
