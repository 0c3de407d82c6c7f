"""Step 2 of `plan` (`fleet_plan.py`'s docstring), the search over fleets (`Search`):
each fleet simulated once and kept as a `Fleet`; the candidates' ladders (replicas of one
instance shape, pairs of prefill and decode pools) are `fleet_ladders.py`'s, and
`fleet_why.py` puts what the search found into words.

Each candidate (an instance shape, or a pair of prefill and decode shapes) is a ladder: a
generator that yields the cost of the next fleet it would simulate and simulates it when
resumed. The ladders are resumed best first, cheapest pending fleet first, and one whose next
fleet is no cheaper than the best found is dropped: no fleet is simulated that could not win,
and no ladder climbs past the price of a fleet another has already found."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Generator
from dataclasses import replace
from typing import Any

from llm_roofline._core import units
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.planning.fleet_bounds import Shape, Traffic
from llm_roofline.planning.fleet_early import EarlyStop, TargetMissedError
from llm_roofline.planning.fleet_request import FleetRequest
from llm_roofline.planning.fleet_result import Draw, Fleet, InstanceSplit
from llm_roofline.planning.fleet_settled import Prompts, Settled
from llm_roofline.sim.simulate import capacity_rps, simulate
from llm_roofline.sim.workload import Workload

__all__ = ["HEADROOM", "SCREEN_MISS", "Ladder", "Search", "meets"]

# the capacity plan measures is the saturating closed loop's rate (`capacity_rps(closed_loop=
# True)`, one run of this many requests a client; the verb's own uses 20), at or below the
# open-loop capacity `simulate` reports: a conservative check that a fleet keeps up
CAPACITY_PER_CLIENT = 5
HEADROOM = 1.05  # a fleet keeps up with the rate when its capacity is this many times it
# a fleet whose screen (`Traffic.screen`) misses a target by more than this factor is out
SCREEN_MISS = 1.25

# a candidate: its cost bound (USD per second), its chip, and its ladder (module docstring)
Ladder = tuple[float, str, Generator[float, None, None]]


def meets(t90: float | None, t99: float | None, ttft_s: float, tpot_s: float) -> bool:
    """Both targets met. A TPOT of None means no request had a second token (outputs of one
    token): nothing to miss."""
    return t90 is not None and t90 <= ttft_s and (t99 is None or t99 <= tpot_s)


def _split(dep: Deployment) -> InstanceSplit:
    return InstanceSplit(dep.chips, dep.tp, dep.pp, dep.ep)


class Search:
    """Step 2 of `fleet_plan.py`'s docstring for `request`, on the draws of `seen`, keeping
    every simulated fleet (`rows`) and the cheapest that meets both targets (`best`).
    `progress(done, total)` is called after each simulation and candidate; `deadline`
    (`time.perf_counter()`'s clock) stops a simulation past it with TimeLimitError."""

    def __init__(
        self,
        request: FleetRequest,
        seen: Traffic,
        progress: Callable[[int, int], None] | None = None,
        deadline: float | None = None,
    ) -> None:
        self.deadline = deadline
        self.works = seen.works
        self.order = list(range(len(seen.works)))  # the draws, hardest first (`_draws`)
        self.work = seen.works[0]
        self.screen = seen.screen
        self.longest = seen.longest
        self.seed = request.seed
        self.rate = request.rate
        self.out_mean = seen.out_mean
        self.ttft_s = request.ttft_p90_s
        self.tpot_s = request.tpot_p99_s
        self.max_chips = request.max_chips
        self.max_seqs = request.max_seqs
        self.budget = request.max_batched_tokens
        self.serving_engine = request.serving_engine
        self.progress = progress
        self.cache: dict[Any, Any] = {}
        self.capacity: dict[tuple[int, ...], float] = {}
        self.rows: list[Fleet] = []
        self.runs: dict[tuple[int, ...], Fleet] = {}
        self.best: Fleet | None = None
        self.pools: dict[int, tuple[Shape | None, Shape, int, int]] = {}
        self.settled = Settled(request.ttft_p90_s, request.tpot_p99_s)  # `fleet_settled`
        self.pruned = 0
        self.simulations = 0
        self.too_big: list[int] = []  # fleets the search wanted beyond max_chips
        # per chip id, why none of its fleets was simulated: the cheapest cost bound of those
        # pruned (USD per hour), the fewest chips of those beyond max_chips
        self.pruned_usd_h: dict[str, float] = {}
        self.too_big_chips: dict[str, int] = {}
        self.done = 0
        self.total = 0

    # ---- the ladders, best first -------------------------------------------------------------

    def run(self, ladders: list[Ladder]) -> None:
        """Resume the ladders cheapest pending fleet first (module docstring); a ladder whose
        next fleet costs no less than the best found is dropped (counted as pruned when it
        had simulated nothing)."""
        heap = [(cost, i, chip, False) for i, (cost, chip, _) in enumerate(ladders)]
        gens = [g for _, _, g in ladders]
        heapq.heapify(heap)
        self.total += len(heap)
        while heap:
            cost, i, chip, started = heapq.heappop(heap)
            if cost * units.hour >= self._cost():
                if not started:
                    self._prune(chip, cost * units.hour)
                gens[i].close()
                self.tick()
                continue
            try:
                nxt = next(gens[i])
            except StopIteration:
                self.tick()
                continue
            heapq.heappush(heap, (nxt, i, chip, True))

    # ---- one fleet -------------------------------------------------------------------------

    def _cost(self) -> float:
        return math.inf if self.best is None else float(self.best.usd_per_hour)

    def _prune(self, chip: str, usd_h: float) -> None:
        """A candidate of `chip` left unsimulated: its cost bound is not below the best's."""
        self.pruned += 1
        self.pruned_usd_h[chip] = min(usd_h, self.pruned_usd_h.get(chip, math.inf))

    def beyond(self, chip: str, chips: int) -> None:
        self.too_big_chips[chip] = min(chips, self.too_big_chips.get(chip, chips))

    def within(self, chips: int, usd_s: float) -> bool:
        """A fleet of `chips` chips costing `usd_s` a second may be tried: within max_chips
        and cheaper than the best found."""
        if chips > self.max_chips:
            self.too_big.append(chips)
            return False
        return usd_s * units.hour < self._cost()

    def _fleets(
        self, shape_p: Shape | None, shape_d: Shape, p: int, d: int
    ) -> tuple[Deployment | None, Deployment]:
        dec = replace(shape_d.dep, chips=shape_d.chips * d, replicas=d)
        pf = None if shape_p is None else replace(shape_p.dep, chips=shape_p.chips * p, replicas=p)
        return pf, dec

    def fleet(self, shape_p: Shape | None, shape_d: Shape, p: int, d: int) -> Fleet:
        """Simulate a fleet: `d` instances of `shape_d` (with `shape_p`, `p` prefill ones),
        once: first on the screen (the first draw's first quarter of requests), which rejects
        a fleet missing a target by more than SCREEN_MISS; then on each seeded draw. A fleet
        that meets the percentiles must also keep up with the rate (its simulated capacity,
        at least HEADROOM times the rate)."""
        key = (id(shape_p), id(shape_d), p, d)
        if key in self.runs:
            return self.runs[key]
        pools = self._fleets(shape_p, shape_d, p, d)
        prompts = None if shape_p is None else (id(shape_p), p)
        screened = self._screened(shape_p, shape_d, p, d, prompts)
        draws = (screened,) if screened is not None else self._draws(*pools, prompts)
        t90, t99 = _worst(draws)
        ok = screened is None and meets(t90, t99, self.ttft_s, self.tpot_s)
        capacity = None
        if ok:
            capacity = (
                self._instance_capacity(shape_d) * d
                if shape_p is None
                else self._pair_capacity(shape_p, shape_d, p, d)
            )
            ok = capacity >= HEADROOM * self.rate
        row = self._row(shape_p, shape_d, p, d, draws, capacity, ok)
        limit = SCREEN_MISS * self.ttft_s if screened is not None else self.ttft_s
        self.settled.judged(prompts, draws, limit)
        self.runs[key] = row
        self.rows.append(row)
        self.pools[id(row)] = (shape_p, shape_d, p, d)
        if row.meets_slo and row.usd_per_hour < self._cost():
            self.best = row
        return row

    def prompts_missed(self, shape_p: Shape, p: int) -> bool:
        """`p` prefill instances of `shape_p` are known to miss TTFT, whatever decode pool
        they feed (`fleet_settled`): a fleet of them fails as the one simulated did."""
        return self.settled.prompts_missed((id(shape_p), p))

    # size: the fleet (its two shapes and counts) and its prompts' key
    def _screened(
        self,
        shape_p: Shape | None,
        shape_d: Shape,
        p: int,
        d: int,
        prompts: Prompts | None,
    ) -> Draw | None:
        """The screen's figures when the fleet fails it (`_screen`), else None; not run when
        fewer decode instances (or replicas) of the same shapes and prefill pool passed it
        (`fleet_settled`)."""
        group = (id(shape_p), id(shape_d), p)
        if self.settled.screen_passed(group, d):
            return None
        screened = self._screen(*self._fleets(shape_p, shape_d, p, d), prompts)
        if screened is None:
            self.settled.passes(group, d)
        return screened

    def _screen(
        self, pf: Deployment | None, dec: Deployment, prompts: Prompts | None
    ) -> Draw | None:
        """The screen's figures when they miss a target by more than SCREEN_MISS (the fleet
        is then out), else None. The screen's requests are the first of the first draw's:
        an overloaded fleet's queue only grows after them, and a stable one starts empty, so
        the full draws would show it later and worse."""
        if self.screen is None:
            return None
        stop = self.settled.stop(SCREEN_MISS, prompts, -1)
        screened = self._simulate(pf, dec, self.screen, stop, self.seed, self.longest)
        self.settled.ran(prompts, -1, screened, stop.ttft_s)
        if meets(screened.ttft_p90_s, screened.tpot_p99_s, stop.ttft_s, stop.tpot_s):
            return None
        return screened

    def _simulate(
        self,
        pf: Deployment | None,
        dec: Deployment,
        work: Workload,
        stop: EarlyStop,
        seed: int,
        reach: int = 0,
    ) -> Draw:
        """One simulation's TTFT p90 and TPOT p99, at the rate, on the search's server and
        cache; stopped once `stop` decides it (`fleet_early`: then lower bounds that miss).
        `reach`: the step tables' longest context, when above the work's (the screen runs on
        the tables of the draw of the longest request)."""
        try:
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
                serving_engine=self.serving_engine,
                deadline=self.deadline,
                watch=stop,
                table_context=reach,
            ).summary
            draw = Draw(seed, s["ttft_p90_s"], s["tpot_p99_s"], work.requests)
        except TargetMissedError as m:
            draw = Draw(seed, m.ttft_p90_s, m.tpot_p99_s, work.requests, stopped=True)
        self.simulations += 1
        if self.progress is not None:  # lets a caller stop a long search between runs
            self.progress(self.done, self.total)
        return draw

    def _draws(
        self, pf: Deployment | None, dec: Deployment, prompts: Prompts | None
    ) -> tuple[Draw, ...]:
        """Each seeded draw's TTFT p90 and TPOT p99 on a fleet (in seed order); a miss ends
        it (the draws after it are not run), and a draw stops once it is certain to miss
        a target (`fleet_early`; a pair of pools' run, once certain to miss TTFT, which
        alone decides how its pools grow while it misses: `fleet_ladders._grow`). The
        draws run the last one to fail a fleet first (`order`): a draw hard for one fleet is
        most often hard for the next, so that a fleet that fails fails on its first run; one
        that meets runs them all, whatever the order."""
        out: list[Draw] = []
        for k in list(self.order):
            stop = self.settled.stop(1.0, prompts, k)
            draw = self._simulate(pf, dec, self.works[k], stop, self.seed + k, self.longest)
            self.settled.ran(prompts, k, draw, self.ttft_s)
            out.append(draw)
            if not meets(draw.ttft_p90_s, draw.tpot_p99_s, self.ttft_s, self.tpot_s):
                self.order.remove(k)
                self.order.insert(0, k)
                break
        return tuple(sorted(out, key=lambda d: d.seed))

    # size: one fleet's pools and counts, its draws and capacity, as the row records them
    def _row(
        self,
        shape_p: Shape | None,
        shape_d: Shape,
        p: int,
        d: int,
        draws: tuple[Draw, ...],
        capacity: float | None,
        ok: bool,
    ) -> Fleet:
        """One simulated fleet as the answer's row: its chips, cost and times."""
        dec = shape_d.dep
        chips_p = shape_p.chips * p if shape_p else 0
        chips_d = shape_d.chips * d
        usd_h = (chips_p + chips_d) * dec.chip.price_usd_per_s * units.hour
        t90, t99 = _worst(draws)
        return Fleet(
            hardware=dec.chip.id,
            chips=chips_p + chips_d,
            replicas=d if shape_p is None else p + d,
            tp=dec.tp,
            pp=dec.pp,
            ep=dec.ep,
            dp=dec.dp,
            disaggregated=shape_p is not None,
            prefill_chips=chips_p,
            decode_chips=chips_d if shape_p is not None else 0,
            usd_per_hour=usd_h,
            usd_per_million_output_tokens=usd_h
            / units.hour
            / (self.rate * self.out_mean)
            * units.mega,
            ttft_p90_s=t90,
            tpot_p99_s=t99,
            capacity_rps=capacity,
            meets_slo=bool(ok),
            instance_chips=dec.chips,
            prefill_instances=None if shape_p is None else p,
            decode_instances=None if shape_p is None else d,
            prefill_split=None if shape_p is None else _split(shape_p.dep),
            decode_split=None if shape_p is None else _split(dec),
            draws=draws,
        )

    def _pair_capacity(self, a: Shape, b: Shape, p: int, d: int) -> float:
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
                serving_engine=self.serving_engine,
                per_client=CAPACITY_PER_CLIENT,
                deadline=self.deadline,
                closed_loop=True,
                table_context=self.longest,
            )
        return self.capacity[key]

    def _instance_capacity(self, s: Shape) -> float:
        key = (id(s),)
        if key not in self.capacity:
            self.capacity[key] = capacity_rps(
                s.dep,
                self.work,
                cache=self.cache,
                max_seqs=self.max_seqs,
                max_batched_tokens=self.budget,
                serving_engine=self.serving_engine,
                per_client=CAPACITY_PER_CLIENT,
                deadline=self.deadline,
                closed_loop=True,
                table_context=self.longest,
            )
        return self.capacity[key]

    def tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)

    # ---- the answer ----------------------------------------------------------------------------

    def fill_capacity(self, fleet: Fleet) -> Fleet:
        """`fleet` with its `capacity_rps` (`fleet_plan.py`'s docstring, step 3), in its place
        among the rows (and as the best, when it is)."""
        shape_p, shape_d, p, d = self.pools[id(fleet)]
        if shape_p is None:
            capacity = self._instance_capacity(shape_d) * d
        else:
            capacity = self._pair_capacity(shape_p, shape_d, p, d)
        filled = replace(fleet, capacity_rps=capacity)
        self.rows = [filled if r is fleet else r for r in self.rows]
        self.pools[id(filled)] = self.pools[id(fleet)]
        if self.best is fleet:
            self.best = filled
        return filled


def _worst(draws: tuple[Draw, ...]) -> tuple[float | None, float | None]:
    """The worst TTFT p90 and TPOT p99 of the draws (None where no draw has one)."""
    t90 = [x.ttft_p90_s for x in draws if x.ttft_p90_s is not None]
    t99 = [x.tpot_p99_s for x in draws if x.tpot_p99_s is not None]
    return (max(t90) if t90 else None, max(t99) if t99 else None)
