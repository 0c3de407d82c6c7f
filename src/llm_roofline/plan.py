"""Plan a fleet: the cheapest deployment that serves a traffic within its latency targets.

Given a model, candidate chips, a request rate with its prompt and output lengths, and two
targets (the 90th percentile of time to first token, the 99th of time per output token),
`plan` searches chip × chips per instance × split (tp, pp, ep) × replicas, aggregated or
disaggregated (a pool of prefill instances and a pool of decode instances, of their own sizes),
for the fleet of least cost per hour whose simulated percentiles (`simulate.simulate`, with the
deployment's engine) meet both targets at that rate.

1. **Bounds, no simulation.** Each instance that holds the model is timed by the ideal engine,
   a lower bound on every engine's time (`docs/validation.md`): one sequence decoding at the
   prompt's context is the fastest time per output token any load allows, the prompt alone the
   fastest first token. An instance slower than a target on its own is out. The most requests
   per second it can serve within the TPOT target is the lesser of its decode rate, B / (O ·
   t(B)) at the largest batch B whose step meets the target (taken at the next batch of the
   grid, so that it stays a bound), and its prompt rate, one over a prompt's share of a full
   step of prompts (a step may overlap the two; it beats neither). R over that rate is a lower
   bound on its replicas, hence on the fleet's cost.
2. **Simulation, cheapest bound first.** A fleet meets the targets when it meets them on each
   of `SEEDS` draws of the traffic (seeds `seed`, `seed` + 1, ...; the worst of them is what
   is reported): percentiles of a few thousand requests vary from draw to draw, most with
   long-tailed lengths (sharegpt-like), and one lucky draw must not decide. Instances are
   visited in order of their cost bound, and the search stops when the next bound is no
   cheaper than the best plan found. For one instance shape, the fewest replicas whose
   simulations of `requests` requests at the rate meet both targets: starting from the fewest
   that the instance's simulated capacity keeps stable, growing by a quarter until the targets
   are met, then bisecting back. (The targets
   are taken to be met at any count above one that meets them.) Disaggregated: the two best
   prefill shapes and the two best decode shapes by their bounds, paired; prefill instances
   are added while TTFT misses, decode instances while TPOT misses, then each pool is trimmed
   while both targets still hold.
3. Every simulated fleet is a candidate; `candidates` is their frontier on cost per hour, TTFT
   p90 and TPOT p99 (no other candidate is as good on all three and better on one). Of two
   fleets of equal cost the first found is kept. `capacity_rps` of the best: the simulated
   capacity of one instance times the replicas, or, disaggregated, the simulated capacity of
   the two pools together.

Cost per million output tokens is the fleet's cost per hour over the output tokens the planned
rate brings in an hour (the fleet is sized for that rate, not for its capacity).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from . import units
from .catalog import get_hardware, get_model
from .deployment import Deployment, deployment
from .errors import InputError, LlmRooflineError
from .hardware import Chip
from .model import ModelSpec
from .optimize import powers, splits
from .simulate import capacity_rps, simulate
from .workload import Workload, make_workload

__all__ = ["BEST_KEYS", "DISAGG_CHOICES", "PlanResult", "plan"]

DISAGG_CHOICES = ("auto", "yes", "no")
BEST_KEYS = (
    "hardware",
    "chips",
    "replicas",
    "tp",
    "pp",
    "ep",
    "disaggregated",
    "prefill_chips",
    "decode_chips",
    "usd_per_hour",
    "usd_per_million_output_tokens",
    "ttft_p90_s",
    "tpot_p99_s",
    "capacity_rps",
)
SEEDS = 3  # a fleet meets the targets when it meets them on each of this many seeded draws
MAX_INSTANCE_CHIPS = 64  # the largest instance tried (a rack's scale-up domain)
PAIRS_PER_ROLE = 2  # disaggregated: the best shapes tried for each pool


@dataclass
class _Shape:
    """One instance (chip, chips, split) with its bounds: the fastest TPOT and TTFT it allows,
    the most requests per second its decoding and its prompts can serve within the TPOT target."""

    dep: Deployment  # one instance (replicas 1), with the engine asked for
    tpot_floor: float
    ttft_floor: float
    decode_rps: float
    prefill_rps: float

    @property
    def chips(self) -> int:
        return self.dep.chips

    @property
    def price_s(self) -> float:
        """USD per second of one instance."""
        return self.dep.chip.price_usd_per_s * self.dep.chips

    def label(self) -> str:
        d = self.dep
        return f"{d.chips} × {d.chip.id} (tp {d.tp} · pp {d.pp} · ep {d.ep})"


@dataclass
class PlanResult:
    """The cheapest fleet meeting both targets (`best`, None when none does, with `reason`),
    the frontier of the fleets simulated, and what the search did."""

    best: dict[str, Any] | None
    candidates: list[dict[str, Any]]
    reason: str | None
    searched: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "best": self.best,
            "reason": self.reason,
            "candidates": self.candidates,
            "searched": self.searched,
        }


def _positive(name: str, v: object, *, integer: bool = False) -> None:
    ok = not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v) and v > 0
    if integer:
        ok = ok and isinstance(v, int)
    if not ok:
        kind = "a positive integer" if integer else "a positive number"
        raise InputError(f"{name} must be {kind}, got {v!r}", field=name)


def _bounds(
    spec: ModelSpec,
    chip: Chip,
    n: int,
    model_id: str,
    kw: dict[str, Any],
    inp: int,
    out: int,
    tpot_s: float,
    budget: int,
    max_seqs: int,
    longest: int,
) -> list[_Shape]:
    """The instance shapes of `n` chips that hold the model and the longest request, with
    their bounds (step 1)."""
    found = []
    experts = max((g.ffn.n_experts for g in spec.groups), default=0)
    for par in splits(spec, n):
        if not experts and par.tp * par.pp != n:
            continue  # data parallel inside an instance: the same as replicas
        try:
            dep = deployment(
                spec, chip, n, tp=par.tp, pp=par.pp, ep=par.ep, replicas=1, model_id=model_id, **kw
            )
        except LlmRooflineError:
            continue
        fit = int(dep.max_batch(inp + out))
        if fit < 1 or int(dep.max_batch(longest)) < 1:
            continue
        ideal = dep.with_engine("ideal")
        top = min(fit, max_seqs)
        B = np.asarray(sorted({*powers(top), top}), dtype=np.float64)
        t_mid = np.asarray(ideal.time(ideal.decode(B, inp + out / 2))[0], dtype=np.float64)
        t_first = float(np.asarray(ideal.time(ideal.decode(1, inp + 1))[0]).flat[0])
        ttft = float(np.asarray(ideal.time(ideal.prefill(1, inp), is_prefill=True)[0]).flat[0])
        k = max(1, budget // inp)
        full = ideal.time(ideal.prefill(k, inp), is_prefill=True)[0]
        prefill_rps = k / float(np.asarray(full).flat[0])
        meets = np.flatnonzero(t_mid <= tpot_s)
        if out <= 1:
            decode_rps = math.inf
        elif meets.size == 0:
            decode_rps = 0.0
        else:
            i = int(meets[-1])
            b_next = B[i + 1] if i + 1 < B.size else B[i]
            decode_rps = float(b_next / (out * t_mid[i]))
        found.append(_Shape(dep, t_first, ttft, decode_rps, prefill_rps))
    return found


def _summary_row(
    shape_p: _Shape | None,
    shape_d: _Shape,
    p: int,
    d: int,
    s: dict[str, Any],
    rate: float,
    out_mean: float,
    ttft_s: float,
    tpot_s: float,
) -> dict[str, Any]:
    """One simulated fleet as the contract's `best` keys (and whether it meets the targets)."""
    dec = shape_d.dep
    chips_p = shape_p.chips * p if shape_p else 0
    chips_d = shape_d.chips * d
    usd_h = (chips_p + chips_d) * dec.chip.price_usd_per_s * units.hour
    t90, t99 = s["ttft_p90_s"], s["tpot_p99_s"]
    meets = t90 is not None and t99 is not None and t90 <= ttft_s and t99 <= tpot_s
    row = {
        "hardware": dec.chip.id,
        "chips": chips_p + chips_d,
        "replicas": d if shape_p is None else p + d,
        "tp": dec.tp,
        "pp": dec.pp,
        "ep": dec.ep,
        "disaggregated": shape_p is not None,
        "prefill_chips": chips_p,
        "decode_chips": chips_d if shape_p is not None else 0,
        "usd_per_hour": usd_h,
        "usd_per_million_output_tokens": usd_h / units.hour / (rate * out_mean) * units.mega,
        "ttft_p90_s": t90,
        "tpot_p99_s": t99,
        "capacity_rps": None,
        "meets_slo": bool(meets),
        "instance_chips": dec.chips,
    }
    if shape_p is not None:
        pd = shape_p.dep
        row.update(
            prefill_instances=p,
            decode_instances=d,
            prefill_split={"chips": pd.chips, "tp": pd.tp, "pp": pd.pp, "ep": pd.ep},
            decode_split={"chips": dec.chips, "tp": dec.tp, "pp": dec.pp, "ep": dec.ep},
        )
    return row


def _frontier(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows no other row beats on cost per hour, TTFT p90 and TPOT p99 together."""
    keys = ("usd_per_hour", "ttft_p90_s", "tpot_p99_s")
    pts = [r for r in rows if all(r[k] is not None for k in keys)]
    keep = []
    for r in pts:
        a = [r[k] for k in keys]
        dominated = False
        for q in pts:
            b = [q[k] for k in keys]
            if q is not r and all(y <= x for x, y in zip(a, b, strict=True)) and b != a:
                dominated = True
                break
        if not dominated:
            keep.append(r)
    unique: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in keep:
        unique.setdefault(tuple(r[k] for k in (*keys, "chips", "hardware")), r)
    return sorted(unique.values(), key=lambda r: (r["usd_per_hour"], r["tpot_p99_s"]))


def plan(
    model: str | ModelSpec,
    hardware: Sequence[str | Chip],
    *,
    rate: float,
    input_len: int,
    output_len: int,
    ttft_p90_s: float,
    tpot_p99_s: float,
    max_chips: int = 64,
    disagg: str = "auto",
    engine: str | None = None,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    length_dist: str = "fixed",
    requests: int = 2000,
    seed: int = 0,
    max_seqs: int = 256,
    max_batched_tokens: int = 8192,
    progress: Callable[[int, int], None] | None = None,
) -> PlanResult:
    """The search of the module docstring. `max_chips`: the most chips the whole fleet may
    use; `disagg`: "no" (aggregated only), "yes" (disaggregated only) or "auto" (both);
    `requests`: how many each simulation serves (Poisson arrivals at `rate`, seeded)."""
    t0 = time.perf_counter()
    _positive("rate", rate)
    _positive("input_len", input_len, integer=True)
    _positive("output_len", output_len, integer=True)
    _positive("ttft_p90", ttft_p90_s)
    _positive("tpot_p99", tpot_p99_s)
    _positive("max_chips", max_chips, integer=True)
    _positive("requests", requests, integer=True)
    if disagg not in DISAGG_CHOICES:
        raise InputError(
            f"disagg must be one of {', '.join(DISAGG_CHOICES)}, got {disagg!r}", field="disagg"
        )
    if isinstance(hardware, str):
        hardware = [h for h in hardware.split(",") if h.strip()]
    if not hardware:
        raise InputError("give at least one hardware id", field="hardware")
    spec = get_model(model)
    model_id = model if isinstance(model, str) else spec.name
    chips = []
    for h in hardware:
        c = get_hardware(h.strip() if isinstance(h, str) else h)
        if not c.price_usd_per_s > 0:
            raise InputError(
                f"{c.id} has no price in the catalog; plan ranks fleets by cost (give a chip "
                "record with price_usd_per_hour)",
                field="hardware",
            )
        chips.append(c)
    works = [
        make_workload(
            requests=requests,
            rate=rate,
            input_len=input_len,
            output_len=output_len,
            length_dist=length_dist,
            max_context=spec.max_context,
            seed=seed + k,
        )
        for k in range(SEEDS)
    ]
    work = works[0]
    longest = max(int(np.max(w.input_len + w.output_len)) for w in works)
    out_mean = float(np.mean(work.output_len))
    inp_mean = float(np.mean(work.input_len))
    kw = {"weight_dtype": weight_dtype, "kv_dtype": kv_dtype, "engine": engine}
    shapes: list[_Shape] = []
    for chip in chips:
        for n in powers(min(max_chips, MAX_INSTANCE_CHIPS)):
            shapes += _bounds(
                spec,
                chip,
                n,
                model_id,
                kw,
                round(inp_mean),
                round(out_mean),
                tpot_p99_s,
                max_batched_tokens,
                max_seqs,
                longest,
            )
    request = {
        "model": model_id,
        "hardware": [c.id for c in chips],
        "rate_rps": rate,
        "input_len": input_len,
        "output_len": output_len,
        "length_dist": length_dist,
        "ttft_p90_s": ttft_p90_s,
        "tpot_p99_s": tpot_p99_s,
        "max_chips": max_chips,
        "disagg": disagg,
        "engine": shapes[0].dep.engine if shapes else engine,
        "requests_per_simulation": requests,
    }
    search = _Search(
        works,
        rate,
        out_mean,
        ttft_p90_s,
        tpot_p99_s,
        max_chips,
        max_seqs,
        max_batched_tokens,
        progress,
    )
    ok = [s for s in shapes if s.tpot_floor <= tpot_p99_s and s.ttft_floor <= ttft_p90_s]
    if ok and disagg in ("auto", "no"):
        search.aggregated(ok)
    if ok and disagg in ("auto", "yes"):
        search.disaggregated(ok)
    best = search.best
    if best is not None:
        search.fill_capacity(best)
    reason = None if best is not None else search.reason(shapes, ok)
    searched = {
        "instance_shapes": len(shapes),
        "within_bounds": len(ok),
        "pruned_by_bound": search.pruned,
        "simulations": search.simulations,
        "seconds": time.perf_counter() - t0,
    }
    best_out = None
    if best is not None:
        best_out = {k: best[k] for k in (*BEST_KEYS, *_EXTRA) if k in best}
    return PlanResult(best_out, _frontier(search.rows), reason, searched, request)


_EXTRA = (
    "instance_chips",
    "prefill_instances",
    "decode_instances",
    "prefill_split",
    "decode_split",
)


class _Search:
    """Step 2 of the module docstring, keeping every simulated fleet."""

    def __init__(
        self,
        works: list[Workload],
        rate: float,
        out_mean: float,
        ttft_s: float,
        tpot_s: float,
        max_chips: int,
        max_seqs: int,
        budget: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.works = works
        self.work = works[0]
        self.rate = rate
        self.out_mean = out_mean
        self.ttft_s = ttft_s
        self.tpot_s = tpot_s
        self.max_chips = max_chips
        self.max_seqs = max_seqs
        self.budget = budget
        self.progress = progress
        self.cache: dict[Any, Any] = {}
        self.capacity: dict[int, float] = {}
        self.rows: list[dict[str, Any]] = []
        self.best: dict[str, Any] | None = None
        self.pools: dict[int, tuple[_Shape | None, _Shape, int, int]] = {}
        self.pruned = 0
        self.simulations = 0
        self.too_big: list[int] = []  # fleets the rate needs beyond max_chips
        self.done = 0
        self.total = 0

    # ---- one fleet -------------------------------------------------------------------------

    def _cost(self) -> float:
        return math.inf if self.best is None else float(self.best["usd_per_hour"])

    def _run(self, shape_p: _Shape | None, shape_d: _Shape, p: int, d: int) -> dict[str, Any]:
        """Simulate a fleet: `d` instances of `shape_d` (with `shape_p`, `p` prefill ones)."""
        dec = replace(shape_d.dep, chips=shape_d.chips * d, replicas=d)
        pf = None
        if shape_p is not None:
            pf = replace(shape_p.dep, chips=shape_p.chips * p, replicas=p)
        worst: dict[str, Any] = {"ttft_p90_s": 0.0, "tpot_p99_s": 0.0}
        for work in self.works:  # the worst of the seeds; a miss ends it
            s = simulate(
                dec,
                work,
                with_capacity=False,
                timeline_points=0,
                rate=self.rate,
                prefill_pool=pf,
                cache=self.cache,
                max_seqs=self.max_seqs,
                max_batched_tokens=self.budget,
            ).summary
            self.simulations += 1
            for k in worst:
                worst[k] = None if s[k] is None or worst[k] is None else max(worst[k], s[k])
            t90, t99 = worst["ttft_p90_s"], worst["tpot_p99_s"]
            if t90 is None or t99 is None or t90 > self.ttft_s or t99 > self.tpot_s:
                break
        row = _summary_row(
            shape_p, shape_d, p, d, worst, self.rate, self.out_mean, self.ttft_s, self.tpot_s
        )
        self.rows.append(row)
        self.pools[id(row)] = (shape_p, shape_d, p, d)
        if row["meets_slo"] and row["usd_per_hour"] < self._cost():
            self.best = row
        return row

    def _tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)

    # ---- aggregated --------------------------------------------------------------------------

    def aggregated(self, shapes: list[_Shape]) -> None:
        def bound(s: _Shape) -> tuple[int, float]:
            per = min(s.decode_rps, s.prefill_rps)
            r = math.ceil(self.rate / per) if per > 0 else 10**9
            return r, r * s.price_s

        order = sorted(shapes, key=lambda s: bound(s)[1])
        self.total += len(order)
        for s in order:
            r_lb, cost_lb = bound(s)
            if cost_lb * units.hour >= self._cost():
                self.pruned += 1
                self._tick()
                continue
            if r_lb * s.chips > self.max_chips:
                self.too_big.append(r_lb * s.chips)
                self._tick()
                continue
            self._replicas(s, r_lb)
            self._tick()

    def _instance_capacity(self, s: _Shape) -> float:
        key = id(s)
        if key not in self.capacity:
            self.capacity[key] = capacity_rps(
                s.dep,
                self.work,
                cache=self.cache,
                max_seqs=self.max_seqs,
                max_batched_tokens=self.budget,
            )
        return self.capacity[key]

    def _replicas(self, s: _Shape, r_lb: int) -> None:
        """The fewest replicas of `s` meeting both targets (or none within the chips and the
        cheapest plan so far)."""
        cap1 = self._instance_capacity(s)
        r = max(r_lb, math.floor(self.rate / cap1) + 1)

        def affordable(k: int) -> bool:
            fits = k * s.chips <= self.max_chips
            if not fits:
                self.too_big.append(k * s.chips)
            return fits and k * s.price_s * units.hour < self._cost()

        if not affordable(r):
            return
        failed = r - 1
        while not self._run(None, s, 0, r)["meets_slo"]:
            failed = r
            r += max(1, math.ceil(r / 4))
            if not affordable(r):
                return
        while r - failed > 1:  # bisect back: r meets, failed does not (or is below the bound)
            mid = (r + failed) // 2
            if mid < r_lb or mid * cap1 <= self.rate:
                failed = mid
            elif self._run(None, s, 0, mid)["meets_slo"]:
                r = mid
            else:
                failed = mid

    # ---- disaggregated -----------------------------------------------------------------------

    def disaggregated(self, shapes: list[_Shape]) -> None:
        by_chip: dict[str, list[_Shape]] = {}
        for s in shapes:
            by_chip.setdefault(s.dep.chip.id, []).append(s)
        pairs = []
        for group in by_chip.values():
            pre = sorted(
                (s for s in group if s.prefill_rps > 0),
                key=lambda s: s.price_s / s.prefill_rps,
            )[:PAIRS_PER_ROLE]
            dec = sorted(
                (s for s in group if s.decode_rps > 0),
                key=lambda s: s.price_s / s.decode_rps,
            )[:PAIRS_PER_ROLE]
            for a in pre:
                for b in dec:
                    p = math.ceil(self.rate / a.prefill_rps)
                    d = 1 if math.isinf(b.decode_rps) else math.ceil(self.rate / b.decode_rps)
                    pairs.append((p * a.price_s + d * b.price_s, a, b, p, d))
        pairs.sort(key=lambda x: x[0])
        self.total += len(pairs)
        for cost_lb, a, b, p, d in pairs:
            if cost_lb * units.hour >= self._cost():
                self.pruned += 1
            else:
                self._pools(a, b, p, d)
            self._tick()

    def _pools(self, a: _Shape, b: _Shape, p: int, d: int) -> None:
        """Grow the pool whose target misses until both hold, then trim each pool."""
        p_lb, d_lb = p, d

        def affordable(pp: int, dd: int) -> bool:
            chips = pp * a.chips + dd * b.chips
            if chips > self.max_chips:
                self.too_big.append(chips)
                return False
            return (pp * a.price_s + dd * b.price_s) * units.hour < self._cost()

        for _ in range(40):
            if not affordable(p, d):
                return
            row = self._run(a, b, p, d)
            if row["meets_slo"]:
                break
            t90, t99 = row["ttft_p90_s"], row["tpot_p99_s"]
            if t90 is None or t90 > self.ttft_s:
                p += max(1, math.ceil(p / 4))
            if t99 is None or t99 > self.tpot_s:
                d += max(1, math.ceil(d / 4))
        else:
            return
        for which in ("p", "d"):
            while True:
                pp, dd = (p - 1, d) if which == "p" else (p, d - 1)
                if pp < p_lb or dd < d_lb or pp < 1 or dd < 1:
                    break
                if not self._run(a, b, pp, dd)["meets_slo"]:
                    break
                p, d = pp, dd

    # ---- the answer ----------------------------------------------------------------------------

    def fill_capacity(self, best: dict[str, Any]) -> None:
        """`capacity_rps` of the best fleet (module docstring, step 3)."""
        shape_p, shape_d, p, d = self.pools[id(best)]
        if shape_p is None:
            best["capacity_rps"] = self._instance_capacity(shape_d) * d
            return
        dec = replace(shape_d.dep, chips=shape_d.chips * d, replicas=d)
        pf = replace(shape_p.dep, chips=shape_p.chips * p, replicas=p)
        best["capacity_rps"] = capacity_rps(
            dec,
            self.work,
            prefill_pool=pf,
            cache=self.cache,
            max_seqs=self.max_seqs,
            max_batched_tokens=self.budget,
        )

    def reason(self, shapes: list[_Shape], ok: list[_Shape]) -> str:
        """Why nothing met the targets: the binding target and the best value reachable."""
        ms = units.ms
        if not shapes:
            return (
                f"no instance of up to {min(self.max_chips, MAX_INSTANCE_CHIPS)} chips holds "
                "the model with one request: allow more chips or a smaller weight type"
            )
        if not ok:
            fast_t = min(shapes, key=lambda s: s.tpot_floor)
            fast_f = min(shapes, key=lambda s: s.ttft_floor)
            if fast_t.tpot_floor > self.tpot_s:
                return (
                    f"tpot_p99: the fastest decode within {self.max_chips} chips is "
                    f"{fast_t.tpot_floor / ms:.3g} ms per token ({fast_t.label()}, one "
                    f"sequence, ideal engine), above the {self.tpot_s / ms:.3g} ms target"
                )
            if fast_f.ttft_floor > self.ttft_s:
                return (
                    f"ttft_p90: the fastest first token within {self.max_chips} chips is "
                    f"{fast_f.ttft_floor / ms:.3g} ms ({fast_f.label()}, the prompt alone, "
                    f"ideal engine), above the {self.ttft_s / ms:.3g} ms target"
                )
            return (
                "no instance meets both targets on its own: the fastest decoders "
                f"({fast_t.label()}, {fast_t.tpot_floor / ms:.3g} ms per token) take "
                f"{fast_t.ttft_floor / ms:.3g} ms to a first token"
            )
        if not self.rows:
            need = min(self.too_big) if self.too_big else self.max_chips + 1
            return (
                f"chips: the rate of {self.rate:g} requests/s needs at least {need} chips "
                f"by the bounds, more than --max-chips {self.max_chips}"
            )

        def miss(r: dict[str, Any]) -> float:
            t90 = r["ttft_p90_s"] if r["ttft_p90_s"] is not None else math.inf
            t99 = r["tpot_p99_s"] if r["tpot_p99_s"] is not None else math.inf
            return max(t90 / self.ttft_s, t99 / self.tpot_s)

        near = min(self.rows, key=miss)
        t90, t99 = near["ttft_p90_s"], near["tpot_p99_s"]
        if t99 is not None and t99 / self.tpot_s >= (t90 or 0) / self.ttft_s:
            which = f"tpot_p99: {t99 / ms:.3g} ms against the {self.tpot_s / ms:.3g} ms target"
        else:
            which = f"ttft_p90: {t90 / ms:.3g} ms against the {self.ttft_s / ms:.3g} ms target"
        return (
            f"{which}, the closest within {self.max_chips} chips "
            f"({near['chips']} × {near['hardware']}"
            + (", disaggregated" if near["disaggregated"] else "")
            + ")"
        )
