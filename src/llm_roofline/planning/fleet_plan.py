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
2. **Simulation, best first.** A fleet meets the targets when it meets them on each of
   `SEEDS` draws of the traffic (seeds `seed`, `seed` + 1, ...; the worst of them is what is
   reported, each draw's in `draws`): percentiles of a few thousand requests vary from draw
   to draw, most with long-tailed lengths (sharegpt-like), and one lucky draw must not
   decide; a fleet missing a target by over 25% on the screen (the first quarter of the
   first draw's requests) is out before the draws. The draw that last failed a fleet runs
   first, and a run stops once a target is certain to be missed (`fleet_early`: its figures
   are then lower bounds past the target; a fleet that meets ran every draw to the end).
   Each candidate is a ladder of fleets (`fleet_ladders`), and the cheapest fleet pending on
   any ladder is simulated next; a ladder whose next fleet is no cheaper than the best found
   is dropped. For one instance shape, the fewest replicas meeting both targets: from the
   bound's, growing by a quarter until the targets are met, then bisecting back. (The
   targets are taken to be met at any count above one that meets them.) Disaggregated: the
   two best prefill shapes and the two best decode shapes by their bounds, paired; prefill
   instances are added while TTFT misses, decode instances while TPOT misses, then each pool
   is trimmed while both targets still hold. A fleet whose percentiles meet must also keep up
   with the rate: its simulated capacity at least `HEADROOM` times it.
3. Every simulated fleet is a candidate; `candidates` is their frontier on cost per hour, TTFT
   p90 and TPOT p99 (no other candidate is as good on all three and better on one). Of two
   fleets of equal cost the first found is kept. `capacity_rps` of the best: the simulated
   capacity of one instance times the replicas, or, disaggregated, the simulated capacity of
   the two pools together.

Cost per million output tokens is the fleet's cost per hour over the output tokens the planned
rate brings in an hour (the fleet is sized for that rate, not for its capacity).

The parts: the question, checked (`fleet_request.FleetRequest`), step 1 (`fleet_bounds`),
step 2 (`fleet_search.Search`), the answer, typed (`fleet_result.PlanResult`, whose `as_dict`
is the JSON of `llm-roofline plan --json` and the web's), and its reasons in words
(`fleet_why`). `plan` joins them; the names a caller needs are exported from here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from llm_roofline._core.errors import TimeLimitError
from llm_roofline.model.spec import ModelSpec
from llm_roofline.planning.fleet_bounds import SEEDS, Shape, instance_shapes, traffic
from llm_roofline.planning.fleet_ladders import aggregated_ladders, disaggregated_ladders
from llm_roofline.planning.fleet_request import DISAGG_CHOICES, FleetRequest, priced_chips
from llm_roofline.planning.fleet_result import (
    BEST_KEYS,
    Fleet,
    InstanceSplit,
    PlanResult,
    Searched,
    frontier,
)
from llm_roofline.planning.fleet_search import Search
from llm_roofline.planning.fleet_why import no_fleet_reason, unsimulated

__all__ = [
    "BEST_KEYS",
    "DISAGG_CHOICES",
    "SEEDS",
    "Fleet",
    "FleetRequest",
    "InstanceSplit",
    "PlanResult",
    "Searched",
    "plan",
    "priced_chips",
]


def plan(
    request: FleetRequest | str | ModelSpec,
    hardware: Any = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    **fields: Any,
) -> PlanResult:
    """The search of the module docstring for `request`, a FleetRequest, or for the
    FleetRequest of these arguments: `plan(model, hardware, rate=..., input_len=...,
    output_len=..., ttft_p90_s=..., tpot_p99_s=..., ...)` with FleetRequest's field names.
    `progress(done, total)` is called as the search goes (a caller may raise in it to stop)."""
    if not isinstance(request, FleetRequest):
        request = FleetRequest(request, hardware, **fields)
    elif hardware is not None or fields:
        raise TypeError("plan(request) takes a FleetRequest alone (and progress=)")
    return _plan(request, progress)


def _plan(request: FleetRequest, progress: Callable[[int, int], None] | None) -> PlanResult:
    t0 = time.perf_counter()
    seen = traffic(request)
    shapes = instance_shapes(request, seen)
    limit = request.time_limit_s
    search = Search(request, seen, progress, None if limit is None else t0 + limit)
    ttft_s, tpot_s, disagg = request.ttft_p90_s, request.tpot_p99_s, request.disagg
    ok = [s for s in shapes if s.tpot_floor <= tpot_s and s.ttft_floor <= ttft_s]
    pre = [s for s in shapes if s.ttft_floor <= ttft_s]  # may run prompts
    dec = [s for s in shapes if s.tpot_floor <= tpot_s]  # may decode
    try:
        ladders = aggregated_ladders(search, ok) if ok and disagg in ("auto", "no") else []
        if pre and dec and disagg in ("auto", "yes"):
            ladders += disaggregated_ladders(search, pre, dec)
        search.run(ladders)  # every candidate together, cheapest pending fleet first
        best = None if search.best is None else search.fill_capacity(search.best)
    except TimeLimitError:
        raise TimeLimitError(
            f"the search ran past {limit:g} s ({search.simulations} simulations done): "
            "fewer hardware choices, a smaller max chips, or disaggregation yes or no "
            "rather than auto",
            field="hardware",
        ) from None
    reason = None if best is not None else no_fleet_reason(search, shapes, pre, dec, disagg)
    within = {id(s) for s in (*ok, *((*pre, *dec) if pre and dec and disagg != "no" else ()))}
    searched = Searched(
        instance_shapes=len(shapes),
        within_bounds=len(within),
        pruned_by_bound=search.pruned,
        unsimulated=unsimulated(search, [c.id for c in request.chips], shapes, pre, dec),
        simulations=search.simulations,
        seconds=time.perf_counter() - t0,
    )
    return PlanResult(
        request,
        _engine(request, shapes),
        best,
        frontier(search.rows),
        reason,
        searched,
        _runner_up(search.rows, best),
    )


def _runner_up(rows: list[Fleet], best: Fleet | None) -> Fleet | None:
    """The cheapest other fleet simulated that meets both targets, of another instance shape
    or pairing than the best's where one was simulated (the search climbs no ladder past the
    best's cost, so often none was: then the best's own shape with other counts)."""
    if best is None:
        return None
    met = sorted((r for r in rows if r.meets_slo and r is not best), key=lambda r: r.usd_per_hour)

    def shape(r: Fleet) -> tuple[Any, ...]:
        return (r.hardware, r.disaggregated, r.instance_chips, r.tp, r.pp, r.ep)

    other = [r for r in met if shape(r) != shape(best) or r.prefill_split != best.prefill_split]
    return other[0] if other else met[0] if met else None


def _engine(request: FleetRequest, shapes: list[Shape]) -> str:
    """The engine the fleets were timed with: the instances' own (the one asked, checked)."""
    return shapes[0].dep.engine if shapes else str(request.engine)
