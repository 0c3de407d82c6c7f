"""The three options of a fast mode (`fast_mode.py`): a smaller batch, more chips, speculative
decoding; each a search for the cheapest setting reaching a target time per output token,
measured against the base (`Baseline`) as a speed-up and a price multiple."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.units import mega, sig
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.engine.candidates import candidates, powers
from llm_roofline.engine.cost import pareto_frontier, usd_per_token_from
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.model.spec import ModelSpec
from llm_roofline.serving.speculative import speculative_decode
from llm_roofline.whatif.batches import largest_within, tpot

__all__ = [
    "CURVE_POINTS",
    "OPTIONS",
    "Baseline",
    "OptionResult",
    "Setting",
    "batch_grid",
    "batch_option",
    "chips_option",
    "on_split",
    "speculative_option",
]

OPTIONS: dict[str, str] = {
    "batch": "a smaller batch",
    "chips": "more chips",
    "speculative": "speculative decoding",
}
CURVE_POINTS = 150  # the most points of an option's frontier returned


def batch_grid(top: int) -> NDArray[np.float64]:
    """Batches 1 .. `top`: every integer up to 64, then steps of 2%, and `top`."""
    ints = np.arange(1, min(top, 64) + 1, dtype=np.float64)
    if top <= 64:
        return ints
    k = np.arange(1, math.ceil(math.log(top / 64) / math.log(1.02)) + 1)
    geo = np.round(64 * 1.02**k)
    return np.unique(np.concatenate([ints, geo[geo < top], [float(top)]]))


@dataclass(frozen=True)
class Setting:
    """One way of serving: the chips, the split, the batch (and the speculation) and what it
    gives, under the deployment's engine; `speedup` and `price_multiple` against the base."""

    option: str  # "base" or a key of OPTIONS
    chips: int
    tp: int
    pp: int
    ep: int
    replicas: int
    split: str
    batch: int
    gamma: int | None
    acceptance: float | None
    tpot_s: float
    tokens_per_s_per_user: float
    tokens_per_s: float
    usd_per_million_tokens: float
    speedup: float
    price_multiple: float

    def text(self) -> str:
        """e.g. 'batch 21 on 1 chip (tp 1 · pp 1 · 1 replica)'."""
        s = f"batch {self.batch:,} on {self.chips} chip{'s' if self.chips > 1 else ''}"
        s += f" ({self.split})"
        if self.gamma is not None:
            s += f", γ {self.gamma}, α {self.acceptance:g}"
        return s


@dataclass(frozen=True)
class OptionResult:
    """One option: the cheapest setting reaching the factor (`reaches`), else the fastest it
    gets (None when it has no setting at all, with a note), and its frontier: `curve` holds
    `speedup`, `price_multiple`, `batch` and `chips`, fastest last."""

    option: str
    label: str
    reaches: bool
    setting: Setting | None
    note: str
    curve: dict[str, list[float]] = field(default_factory=dict)


def on_split(dep: Deployment, chips: int, par: Parallelism, replicas: int = 1) -> Deployment:
    """`dep` on `chips` chips split as `par` (tp, pp, ep), as given, `replicas` instances."""
    if (chips, par.tp, par.pp, par.ep, replicas) == (
        dep.chips,
        dep.tp,
        dep.pp,
        dep.ep,
        dep.replicas,
    ):
        return dep
    return replace(
        dep,
        chips=chips,
        tp=par.tp,
        pp=par.pp,
        ep=par.ep,
        replicas=replicas,
        split_rule="given",
        given=("tp", "pp", "ep", "replicas"),
    )


class Baseline:
    """What every setting is measured against: the deployment at its base batch."""

    def __init__(self, dep: Deployment, batch: int, context_len: int) -> None:
        self.dep, self.S = dep, context_len
        self.t = tpot(dep, batch, context_len)
        self.usd = float(usd_per_token_from(dep.system.price_usd_per_s, self.t, batch, mega))

    def setting(
        self,
        option: str,
        d: Deployment,
        batch: int,
        t: float,
        gamma: int | None = None,
        acceptance: float | None = None,
    ) -> Setting:
        usd = float(usd_per_token_from(d.system.price_usd_per_s, t, batch, mega))
        return Setting(
            option=option,
            chips=d.chips,
            tp=d.tp,
            pp=d.pp,
            ep=d.ep,
            replicas=d.replicas,
            split=d.split_text(),
            batch=int(batch),
            gamma=gamma,
            acceptance=acceptance,
            tpot_s=t,
            tokens_per_s_per_user=1.0 / t,
            tokens_per_s=batch / t,
            usd_per_million_tokens=usd,
            speedup=self.t / t,
            price_multiple=usd / self.usd,
        )

    def curve(
        self,
        t: NDArray[np.float64],
        usd: NDArray[np.float64],
        batch: NDArray[np.float64],
        chips: Any,
    ) -> dict[str, list[float]]:
        """The frontier of (time, $) points as speed-up and price multiple, fastest last."""
        idx = pareto_frontier(t, usd)[::-1]
        if idx.size > CURVE_POINTS:
            idx = idx[np.unique(np.linspace(0, idx.size - 1, CURVE_POINTS).round().astype(int))]
        n = np.broadcast_to(np.asarray(chips, dtype=np.float64), t.shape)
        return {
            "speedup": [float(x) for x in self.t / t[idx]],
            "price_multiple": [float(x) for x in usd[idx] / self.usd],
            "batch": [float(x) for x in batch[idx]],
            "chips": [float(x) for x in n[idx]],
        }


def _timer(d: Deployment, context_len: int) -> Callable[[int], float]:
    """Seconds per output token against batch, for `largest_within`."""
    return lambda b: tpot(d, b, context_len)


def _engine_times(d: Deployment, batches: NDArray[np.float64], context_len: int) -> Any:
    t, _, _ = d.time(d.decode(batches, context_len))
    return np.asarray(t, dtype=np.float64)


def _usd(d: Deployment, t: NDArray[np.float64], grid: NDArray[np.float64]) -> Any:
    """$ per million output tokens of each batch of `grid` taking `t` per step on `d`."""
    return usd_per_token_from(d.system.price_usd_per_s, t, grid, mega)


def _refined(
    fn: Callable[[int], float], grid: NDArray[np.float64], t: Any, fit: int, target: float
) -> int:
    """The largest batch within `target`, from the grid's largest (its times `t`) up to the
    next grid point (or `fit`), by bisection of `fn`; the grid's first is within it."""
    i = int(np.flatnonzero(t <= target)[-1])  # the grid's largest batch within it
    hi = int(grid[i + 1]) - 1 if i + 1 < grid.size else fit
    return largest_within(fn, int(grid[i]), hi, target)


def batch_option(base: Baseline, batch: int, target: float) -> OptionResult:
    """A smaller batch on the same chips and split."""
    dep, S = base.dep, base.S
    grid = batch_grid(int(dep.max_batch(S)))
    t = _engine_times(dep, grid, S)
    curve = base.curve(t, _usd(dep, t, grid), grid, dep.chips)
    b = largest_within(lambda x: tpot(dep, x, S), 1, batch, target)
    if b >= 1:
        s = base.setting("batch", dep, b, tpot(dep, b, S))
        return OptionResult("batch", OPTIONS["batch"], True, s, "", curve)
    one = base.setting("batch", dep, 1, tpot(dep, 1, S))
    note = f"batch 1 is the fastest this split gets: ×{sig(one.speedup)}"
    return OptionResult("batch", OPTIONS["batch"], False, one, note, curve)


def chips_option(base: Baseline, target: float, max_chips: int) -> OptionResult:
    """More chips: every count above the deployment's up to `max_chips`, every split of it
    the chip's links carry (`engine.candidates`), every batch that fits."""
    dep, S = base.dep, base.S
    counts = sorted({n for n in [*powers(max_chips), max_chips] if n > dep.chips})
    if not counts:
        note = f"no chip count above {dep.chips} up to max_chips = {max_chips}"
        return OptionResult("chips", OPTIONS["chips"], False, None, note)
    span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    pts: dict[str, list[float]] = {"t": [], "usd": [], "batch": [], "chips": []}
    best: Setting | None = None
    fastest: tuple[float, Deployment] | None = None
    tried = 0
    for n, par in candidates(dep.model, dep.chip, dep.comm, counts):
        d = on_split(dep, n, par)
        fit = int(d.max_batch(S))
        if fit < 1:
            continue
        grid = batch_grid(fit)
        t = _engine_times(d, grid, S)
        tried += 1
        usd = _usd(d, t, grid)
        for k, v in (("t", t), ("usd", usd), ("batch", grid), ("chips", np.full(t.shape, n))):
            pts[k] += [float(x) for x in v]
        if fastest is None or t[0] < fastest[0]:
            fastest = (float(t[0]), d)
        if t[0] > target:
            continue
        b = _refined(_timer(d, S), grid, t, fit, target)
        s = base.setting("chips", d, b, tpot(d, b, S))
        if best is None or s.usd_per_million_tokens < best.usd_per_million_tokens:
            best = s
    if fastest is None:
        note = f"the model fits on no split of {span} chips at context {S:,}"
        return OptionResult("chips", OPTIONS["chips"], False, None, note)
    arrays = {k: np.asarray(v, dtype=np.float64) for k, v in pts.items()}
    curve = base.curve(arrays["t"], arrays["usd"], arrays["batch"], arrays["chips"])
    if best is not None:
        return OptionResult("chips", OPTIONS["chips"], True, best, "", curve)
    s = base.setting("chips", fastest[1], 1, fastest[0])
    note = f"the fastest of {tried} splits on {span} chips gets ×{sig(s.speedup)}"
    return OptionResult("chips", OPTIONS["chips"], False, s, note, curve)


def speculative_option(
    base: Baseline, target: float, gamma: int, acceptance: float, draft: str | ModelSpec | None
) -> OptionResult:
    """Speculative decoding on the same chips: γ drafted tokens each accepted with α."""
    dep, S = base.dep, base.S

    def spec_tpot(b: int) -> float:
        per = -(-b // dep.replicas)
        r = speculative_decode(
            dep.model,
            dep.instance,
            batch=per,
            context_len=S,
            gamma=gamma,
            acceptance=acceptance,
            draft=draft,
            weight_dtype=dep.weight_dtype,
            kv_dtype=dep.kv_dtype,
            overlap=dep.overlap,
            parallel=dep.parallel,
            comm=dep.comm,
        )
        return tpot(dep, b, S) / r.speedup  # the engine's step ÷ the ideal speed-up

    fit = int(dep.max_batch(S))
    grid = batch_grid(fit)
    t = np.asarray([spec_tpot(int(b)) for b in grid], dtype=np.float64)
    curve = base.curve(t, _usd(dep, t, grid), grid, dep.chips)
    if np.any(t <= target):
        b = _refined(spec_tpot, grid, t, fit, target)
        s = base.setting("speculative", dep, b, spec_tpot(b), gamma, acceptance)
        return OptionResult("speculative", OPTIONS["speculative"], True, s, "", curve)
    s = base.setting("speculative", dep, 1, float(t[0]), gamma, acceptance)
    note = f"at batch 1 speculation (γ {gamma}, α {acceptance:g}) gets ×{sig(s.speedup)}"
    return OptionResult("speculative", OPTIONS["speculative"], False, s, note, curve)
