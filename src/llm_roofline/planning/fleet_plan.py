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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError, LlmRooflineError, TimeLimitError, UnknownIdError
from llm_roofline.deploy.deployment import Deployment, deployment, engine_name
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec
from llm_roofline.planning.fleet_search import MAX_INSTANCE_CHIPS, Search, Shape, frontier
from llm_roofline.planning.fleet_why import no_fleet_reason, unsimulated
from llm_roofline.planning.optimize import powers, splits
from llm_roofline.sim.simulate import kv_capacity
from llm_roofline.sim.workload import make_workload

__all__ = ["BEST_KEYS", "DISAGG_CHOICES", "PlanResult", "plan", "priced_chips"]

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
) -> list[Shape]:
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
        found.append(Shape(dep, float(t_low[0]), ttft, decode_rps, prefill_rps))
    return found


def priced_chips(
    chips: Sequence[Chip],
    prices: Mapping[str, float] | Sequence[tuple[str, float]] | None,
    *,
    field: str = "prices",
) -> list[Chip]:
    """The chips to plan on, each at the price given for it, keyed by chip id (case ignored),
    as a mapping or as (id, price) pairs in the order given; the others at their own. Refused
    naming `field`: a price for a chip not among them, two prices for one chip (`h100-sxm` and
    `H100-SXM` are one), or one that is not over 0 and at most 1,000 $ per chip-hour (a plan
    ranks fleets by cost, so hardware you own, price 0, cannot be planned)."""
    out = list(chips)
    at = {c.id.lower(): i for i, c in enumerate(out)}
    pairs = list(prices.items() if isinstance(prices, Mapping) else prices or ())
    seen: dict[int, object] = {}  # chip index -> the price given for it first
    for key, usd in pairs:
        i = at.get(str(key).strip().lower())
        if i is None:
            raise InputError(
                f"a price for {key!r}, which is not among the hardware to plan on "
                f"({', '.join(c.id for c in out)})",
                field=field,
            )
        if i in seen:  # the later would silently win
            a, b = (f"{x:g}" if isinstance(x, (int, float)) else repr(x) for x in (seen[i], usd))
            raise InputError(
                f"two prices for {out[i].id}, {a} and {b} $ per chip-hour: give one", field=field
            )
        seen[i] = usd
        ok = isinstance(usd, (int, float)) and not isinstance(usd, bool) and math.isfinite(usd)
        if not (ok and 0 < usd <= 1000):
            raise InputError(
                f"the price of {out[i].id} must be over 0 and at most 1000 $ per chip-hour, got "
                f"{usd!r}"
                + (
                    ": a plan ranks fleets by cost, so hardware you own (price 0) cannot be "
                    "planned; leave the price out for the catalog's"
                    if ok and usd == 0
                    else ""
                ),
                field=field,
            )
        out[i] = out[i].with_price(float(usd))
    return out


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
    shapes: list[Shape] = []
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
    search = Search(
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
    reason = None if best is not None else no_fleet_reason(search, shapes, pre, dec, disagg)
    searched = {
        "instance_shapes": len(shapes),
        "within_bounds": len(
            {id(s) for s in (*ok, *((*pre, *dec) if pre and dec and disagg != "no" else ()))}
        ),
        "pruned_by_bound": search.pruned,
        "unsimulated": unsimulated(search, [c.id for c in chips], shapes, pre, dec),
        "simulations": search.simulations,
        "seconds": time.perf_counter() - t0,
    }
    best_out = None
    if best is not None:
        best_out = {k: best[k] for k in (*BEST_KEYS, *_EXTRA) if k in best}
    return PlanResult(best_out, frontier(search.rows), reason, searched, request)


_EXTRA = (
    "dp",
    "instance_chips",
    "prefill_instances",
    "decode_instances",
    "prefill_split",
    "decode_split",
)
