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
from .deployment import Deployment, deployment, engine_name
from .dtypes import get_dtype
from .errors import InputError, LlmRooflineError, TimeLimitError, UnknownIdError
from .hardware import Chip
from .model import ModelSpec
from .optimize import powers, splits
from .simulate import capacity_rps, kv_capacity, simulate
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
CAPACITY_PER_CLIENT = 5  # requests per client in a capacity run (the verb's own uses 20)
HEADROOM = 1.05  # a fleet keeps up with the rate when its capacity is this many times it
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
        dp = f" · dp {d.dp}" if d.dp > 1 else ""
        return f"{d.chips} × {d.chip.id} (tp {d.tp} · pp {d.pp} · ep {d.ep}{dp})"


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


def _prefill_s(dep: Deployment, tokens: int) -> float:
    """The time `dep` takes for a prefill pass of one prompt of `tokens` tokens."""
    t = dep.time(dep.prefill(1, tokens), is_prefill=True)[0]
    return float(np.asarray(t).flat[0])


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
    first_len: int,
) -> list[_Shape]:
    """The instance shapes of `n` chips that hold the model and the longest request, with
    their bounds (step 1): `inp` and `out` the mean prompt and output (for the rates, and the
    decode contexts, at most the 90th percentile prompt), `first_len` the 90th percentile
    prompt (at least a tenth of the requests take its prefill or more to a first token)."""
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
        if int(dep.max_batch(longest)) < 1:
            continue
        ideal = dep.with_engine("ideal")

        # as the simulator times a prompt longer than the budget: chunks, each from position 0
        whole, rest = divmod(first_len, budget)
        ttft = whole * _prefill_s(ideal, budget) + (_prefill_s(ideal, rest) if rest else 0.0)
        # a step's prompt tokens as the simulator times them (as one prompt): whole prompts as
        # many as the budget holds, or the budget filled with chunks, the faster per token
        k = max(1, budget // inp)
        per_token = max(k * inp / _prefill_s(ideal, k * inp), budget / _prefill_s(ideal, budget))
        prefill_rps = per_token / inp
        # decoding: every step's context is at least the prompt's, and the simulator holds as
        # many sequences as its KV tokens allow at that length (sequences at their current
        # length, not their final one)
        ctx = min(inp, first_len) + 1
        top = max(1, min(max_seqs, kv_capacity(dep, longest) // ctx))
        B = np.asarray(sorted({*powers(top), top}), dtype=np.float64)
        t_low = np.asarray(ideal.time(ideal.decode(B, ctx))[0], dtype=np.float64)
        meets = np.flatnonzero(t_low <= tpot_s)
        if out <= 1:
            decode_rps = math.inf
        elif meets.size == 0:
            decode_rps = 0.0
        else:
            i = int(meets[-1])
            b_next = B[i + 1] if i + 1 < B.size else B[i]
            decode_rps = float(b_next / ((out - 1) * t_low[i]))
        found.append(_Shape(dep, float(t_low[0]), ttft, decode_rps, prefill_rps))
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
    meets = _meets(t90, t99, ttft_s, tpot_s)
    row = {
        "hardware": dec.chip.id,
        "chips": chips_p + chips_d,
        "replicas": d if shape_p is None else p + d,
        "tp": dec.tp,
        "pp": dec.pp,
        "ep": dec.ep,
        "dp": dec.dp,
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


def _meets(t90: float | None, t99: float | None, ttft_s: float, tpot_s: float) -> bool:
    """Both targets met. A TPOT of None means no request had a second token (outputs of one
    token): nothing to miss."""
    return t90 is not None and t90 <= ttft_s and (t99 is None or t99 <= tpot_s)


def _frontier(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows no other row beats on cost per hour, TTFT p90 and TPOT p99 together (a TPOT
    of None, no second token, counts as 0)."""

    def point(r: dict[str, Any]) -> tuple[float, float, float]:
        return (r["usd_per_hour"], r["ttft_p90_s"], r["tpot_p99_s"] or 0.0)

    pts = [r for r in rows if r["ttft_p90_s"] is not None]
    keep = []
    for r in pts:
        a = point(r)
        dominated = False
        for q in pts:
            b = point(q)
            if q is not r and all(y <= x for x, y in zip(a, b, strict=True)) and b != a:
                dominated = True
                break
        if not dominated:
            keep.append(r)
    unique: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in keep:
        unique.setdefault((*point(r), r["chips"], r["hardware"]), r)
    return sorted(unique.values(), key=lambda r: point(r)[0::2])


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
    time_limit_s: float | None = None,
) -> PlanResult:
    """The search of the module docstring. `max_chips`: the most chips the whole fleet may
    use; `disagg`: "no" (aggregated only), "yes" (disaggregated only) or "auto" (both);
    `requests`: how many each simulation serves (Poisson arrivals at `rate`, seeded);
    `time_limit_s`: stop with TimeLimitError (field `requests`) past this many seconds."""
    t0 = time.perf_counter()
    if time_limit_s is not None:
        _positive("time_limit_s", time_limit_s)
    _positive("rate", rate)
    _positive("input_len", input_len, integer=True)
    _positive("output_len", output_len, integer=True)
    _positive("ttft_p90_s", ttft_p90_s)
    _positive("tpot_p99_s", tpot_p99_s)
    _positive("max_chips", max_chips, integer=True)
    _positive("requests", requests, integer=True)
    _positive("max_seqs", max_seqs, integer=True)
    _positive("max_batched_tokens", max_batched_tokens, integer=True)
    if max_batched_tokens < max_seqs:
        raise InputError(
            f"max_batched_tokens ({max_batched_tokens}) must be at least max_seqs ({max_seqs})",
            field="max_batched_tokens",
        )
    engine = engine_name(engine)
    for name, value in (("weight_dtype", weight_dtype), ("kv_dtype", kv_dtype)):
        try:
            get_dtype(value)
        except UnknownIdError as exc:
            raise InputError(str(exc), field=name) from None
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
    chips: list[Chip] = []
    for h in hardware:
        try:
            c = get_hardware(h.strip() if isinstance(h, str) else h)
        except LlmRooflineError as exc:
            raise InputError(str(exc), field="hardware") from None
        same = [k for k in chips if k.id == c.id]
        if same and same[0] != c:
            raise InputError(f"two different chips are called {c.id!r}", field="hardware")
        if same:
            continue  # named twice: searched once
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
    first_len = min(int(np.percentile(w.input_len, 90)) for w in works)
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
                first_len,
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
        None if time_limit_s is None else t0 + time_limit_s,
    )
    ok = [s for s in shapes if s.tpot_floor <= tpot_p99_s and s.ttft_floor <= ttft_p90_s]
    pre = [s for s in shapes if s.ttft_floor <= ttft_p90_s]  # may run prompts
    dec = [s for s in shapes if s.tpot_floor <= tpot_p99_s]  # may decode
    try:
        if ok and disagg in ("auto", "no"):
            search.aggregated(ok)
        if pre and dec and disagg in ("auto", "yes"):
            search.disaggregated(pre, dec)
        best = search.best
        if best is not None:
            search.fill_capacity(best)
    except TimeLimitError:
        raise TimeLimitError(
            f"the search ran past {time_limit_s:g} s ({search.simulations} simulations of "
            f"{requests} requests done): fewer requests per simulation, shorter outputs, "
            "fewer hardware choices or a smaller max_chips",
            field="requests",
        ) from None
    reason = None if best is not None else search.reason(shapes, pre, dec, disagg)
    searched = {
        "instance_shapes": len(shapes),
        "within_bounds": len(
            {id(s) for s in (*ok, *((*pre, *dec) if pre and dec and disagg != "no" else ()))}
        ),
        "pruned_by_bound": search.pruned,
        "simulations": search.simulations,
        "seconds": time.perf_counter() - t0,
    }
    best_out = None
    if best is not None:
        best_out = {k: best[k] for k in (*BEST_KEYS, *_EXTRA) if k in best}
    return PlanResult(best_out, _frontier(search.rows), reason, searched, request)


_EXTRA = (
    "dp",
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
        deadline: float | None = None,
    ) -> None:
        self.deadline = deadline
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
        self.capacity: dict[tuple[int, ...], float] = {}
        self.rows: list[dict[str, Any]] = []
        self.runs: dict[tuple[int, ...], dict[str, Any]] = {}
        self.best: dict[str, Any] | None = None
        self.pools: dict[int, tuple[_Shape | None, _Shape, int, int]] = {}
        self.pruned = 0
        self.simulations = 0
        self.too_big: list[int] = []  # fleets the search wanted beyond max_chips
        self.done = 0
        self.total = 0

    # ---- one fleet -------------------------------------------------------------------------

    def _cost(self) -> float:
        return math.inf if self.best is None else float(self.best["usd_per_hour"])

    def _within(self, chips: int, usd_s: float) -> bool:
        """A fleet of `chips` chips costing `usd_s` a second may be tried: within max_chips
        and cheaper than the best found."""
        if chips > self.max_chips:
            self.too_big.append(chips)
            return False
        return usd_s * units.hour < self._cost()

    def _fleets(self, shape_p: _Shape | None, shape_d: _Shape, p: int, d: int) -> Any:
        dec = replace(shape_d.dep, chips=shape_d.chips * d, replicas=d)
        pf = None if shape_p is None else replace(shape_p.dep, chips=shape_p.chips * p, replicas=p)
        return pf, dec

    def _run(self, shape_p: _Shape | None, shape_d: _Shape, p: int, d: int) -> dict[str, Any]:
        """Simulate a fleet: `d` instances of `shape_d` (with `shape_p`, `p` prefill ones),
        once; a disaggregated fleet that meets the percentiles must also keep up with the
        rate (its pools' capacity, simulated)."""
        key = (id(shape_p), id(shape_d), p, d)
        if key in self.runs:
            return self.runs[key]
        pf, dec = self._fleets(shape_p, shape_d, p, d)
        worst: dict[str, Any] = {"ttft_p90_s": None, "tpot_p99_s": None}
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
                deadline=self.deadline,
            ).summary
            self.simulations += 1
            if self.progress is not None:  # lets a caller stop a long search between runs
                self.progress(self.done, self.total)
            for k in ("ttft_p90_s", "tpot_p99_s"):
                seen = [v for v in (worst[k], s[k]) if v is not None]
                worst[k] = max(seen) if seen else None
            if not _meets(worst["ttft_p90_s"], worst["tpot_p99_s"], self.ttft_s, self.tpot_s):
                break
        row = _summary_row(
            shape_p, shape_d, p, d, worst, self.rate, self.out_mean, self.ttft_s, self.tpot_s
        )
        if row["meets_slo"] and shape_p is not None:
            row["capacity_rps"] = self._pair_capacity(shape_p, shape_d, p, d)
            row["meets_slo"] = row["capacity_rps"] >= HEADROOM * self.rate
        self.runs[key] = row
        self.rows.append(row)
        self.pools[id(row)] = (shape_p, shape_d, p, d)
        if row["meets_slo"] and row["usd_per_hour"] < self._cost():
            self.best = row
        return row

    def _pair_capacity(self, a: _Shape, b: _Shape, p: int, d: int) -> float:
        key = (id(a), id(b), p, d)
        if key not in self.capacity:
            pf, dec = self._fleets(a, b, p, d)
            self.capacity[key] = capacity_rps(
                dec,
                self.work,
                prefill_pool=pf,
                cache=self.cache,
                max_seqs=self.max_seqs,
                max_batched_tokens=self.budget,
                per_client=CAPACITY_PER_CLIENT,
                deadline=self.deadline,
            )
        return self.capacity[key]

    def _tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)

    # ---- aggregated --------------------------------------------------------------------------

    def aggregated(self, shapes: list[_Shape]) -> None:
        def bound(s: _Shape) -> tuple[int, float]:
            per = min(s.decode_rps, s.prefill_rps)
            r = math.ceil(self.rate / per)
            return r, r * s.price_s

        order = sorted(shapes, key=lambda s: (bound(s)[1], s.chips))
        self.total += len(order)
        for s in order:
            r_lb, cost_lb = bound(s)
            if cost_lb * units.hour >= self._cost():
                self.pruned += 1
            elif r_lb * s.chips > self.max_chips:
                self.too_big.append(r_lb * s.chips)
            else:
                self._replicas(s, r_lb)
            self._tick()

    def _instance_capacity(self, s: _Shape) -> float:
        key = (id(s),)
        if key not in self.capacity:
            self.capacity[key] = capacity_rps(
                s.dep,
                self.work,
                cache=self.cache,
                max_seqs=self.max_seqs,
                max_batched_tokens=self.budget,
                per_client=CAPACITY_PER_CLIENT,
                deadline=self.deadline,
            )
        return self.capacity[key]

    def _replicas(self, s: _Shape, r_lb: int) -> None:
        """The fewest replicas of `s` meeting both targets (or none within the chips and the
        cheapest plan so far)."""
        cap1 = self._instance_capacity(s)
        r = max(r_lb, math.floor(HEADROOM * self.rate / cap1) + 1)
        if not self._within(r * s.chips, r * s.price_s):
            return
        failed = r - 1
        while not self._run(None, s, 0, r)["meets_slo"]:
            failed = r
            step = max(1, math.ceil(r / 4))
            # a quarter more, or as many as still fit the chips and the best cost
            while step > 1 and not self._within((r + step) * s.chips, (r + step) * s.price_s):
                step = max(1, step // 2)
            r += step
            if not self._within(r * s.chips, r * s.price_s):
                return
        while r - failed > 1:  # bisect back: r meets, failed does not (or is below the bound)
            mid = (r + failed) // 2
            if mid < r_lb or mid * cap1 < HEADROOM * self.rate:
                failed = mid
            elif self._run(None, s, 0, mid)["meets_slo"]:
                r = mid
            else:
                failed = mid

    # ---- disaggregated -----------------------------------------------------------------------

    def disaggregated(self, pre_shapes: list[_Shape], dec_shapes: list[_Shape]) -> None:
        """Pairs of the best prefill and decode shapes (within their own targets' floors) of
        each chip, cheapest bound first."""
        pairs = []
        for chip in dict.fromkeys(s.dep.chip.id for s in (*pre_shapes, *dec_shapes)):
            pre = sorted(
                (s for s in pre_shapes if s.dep.chip.id == chip),
                key=lambda s: (s.price_s / s.prefill_rps, s.chips),
            )[:PAIRS_PER_ROLE]
            dec = sorted(
                (s for s in dec_shapes if s.dep.chip.id == chip and s.decode_rps > 0),
                key=lambda s: (s.price_s / s.decode_rps, s.chips),
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
        """Grow the pool whose target misses (or, short of capacity, the one whose growth
        raises it more) until both hold, then trim each pool."""
        p_lb, d_lb = p, d

        def within(pp: int, dd: int) -> bool:
            return self._within(pp * a.chips + dd * b.chips, pp * a.price_s + dd * b.price_s)

        def grown(n: int, other: int, first: bool) -> int | None:
            """n grown by a quarter, or less where that would not be within; None if not
            even one more is."""
            step = max(1, math.ceil(n / 4))
            while step >= 1:
                pp, dd = (n + step, other) if first else (other, n + step)
                if within(pp, dd):
                    return n + step
                step //= 2
            return None

        for _ in range(60):
            if not within(p, d):
                return
            row = self._run(a, b, p, d)
            if row["meets_slo"]:
                break
            t90, t99 = row["ttft_p90_s"], row["tpot_p99_s"]
            grow_p = t90 is None or t90 > self.ttft_s
            grow_d = t99 is not None and t99 > self.tpot_s
            if not (grow_p or grow_d):  # percentiles met, capacity short: the binding pool
                more_p = self._pair_capacity(a, b, p + 1, d)
                more_d = self._pair_capacity(a, b, p, d + 1)
                grow_p, grow_d = more_p >= more_d, more_d > more_p
            if grow_p:
                np_ = grown(p, d, True)
                if np_ is None:
                    return
                p = np_
            if grow_d:
                nd = grown(d, p, False)
                if nd is None:
                    return
                d = nd
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
        else:
            best["capacity_rps"] = self._pair_capacity(shape_p, shape_d, p, d)

    def reason(
        self, shapes: list[_Shape], pre: list[_Shape], dec: list[_Shape], disagg: str
    ) -> str:
        """Why nothing met the targets: the binding target and the best value reachable."""
        ms = units.ms
        chips = f"{self.max_chips} chip" + ("s" if self.max_chips > 1 else "")
        if not shapes:
            return (
                f"no instance of up to {min(self.max_chips, MAX_INSTANCE_CHIPS)} chips holds "
                "the model and the longest request: allow more chips or a smaller weight type"
            )
        if not dec:
            fast = min(shapes, key=lambda s: s.tpot_floor)
            return (
                f"tpot_p99: the fastest decode within {chips} is "
                f"{_ms(fast.tpot_floor)} per token ({fast.label()}, one sequence, ideal "
                f"engine), above the {self.tpot_s / ms:.3g} ms target"
            )
        if not pre:
            fast = min(shapes, key=lambda s: s.ttft_floor)
            return (
                f"ttft_p90: the fastest first token within {chips} is "
                f"{_ms(fast.ttft_floor)} ({fast.label()}, the prompt alone, ideal engine), "
                f"above the {self.ttft_s / ms:.3g} ms target"
            )
        if not self.rows:
            if self.too_big:
                return (
                    f"chips: the rate of {self.rate:g} requests/s needs more than {chips}: the "
                    f"smallest fleet the search asked for had {min(self.too_big)}"
                )
            if disagg == "no":
                return (
                    "no instance meets both targets on its own (the fastest decoders are too "
                    "slow to a first token); prefill and decode on separate pools were not "
                    "searched (disagg no)"
                )
            return (
                "no instance meets both targets on its own, and no chip has both an instance "
                "fast enough to a first token and one fast enough per token for separate pools"
            )

        def miss(r: dict[str, Any]) -> float:
            t90 = r["ttft_p90_s"] if r["ttft_p90_s"] is not None else math.inf
            t99 = r["tpot_p99_s"] or 0.0
            return max(t90 / self.ttft_s, t99 / self.tpot_s)

        near = min(self.rows, key=miss)
        t90, t99 = near["ttft_p90_s"], near["tpot_p99_s"] or 0.0
        fleet = f"{near['chips']} × {near['hardware']}" + (
            ", disaggregated" if near["disaggregated"] else ""
        )
        if _meets(t90, t99, self.ttft_s, self.tpot_s):  # met the percentiles, not the rate
            return (
                f"capacity: the closest within {chips} ({fleet}) meets both targets but serves "
                f"only {near['capacity_rps']:.3g} of the {self.rate:g} requests/s"
            )
        if t99 / self.tpot_s >= (t90 if t90 is not None else math.inf) / self.ttft_s:
            which = f"tpot_p99: {_ms(t99)} against the {self.tpot_s / ms:.3g} ms target"
        else:
            shown = "no first token" if t90 is None else _ms(t90)
            which = f"ttft_p90: {shown} against the {self.ttft_s / ms:.3g} ms target"
        return f"{which}, the closest within {chips} ({fleet})"


def _ms(t: float) -> str:
    """A time in milliseconds as people write it: 4.5 ms, 133 ms, 4,060 ms."""
    v = t / units.ms
    return f"{v:,.0f} ms" if v >= 100 else f"{v:.3g} ms"
