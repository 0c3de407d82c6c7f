"""Step 2 of `plan` (`fleet_plan.py`'s docstring), the search over fleets (`Search`):
replicas of one instance shape, pairs of prefill and decode pools, each fleet simulated once
and kept as a `Fleet`, cheapest bound first; `fleet_why.py` puts what it found into words."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from llm_roofline._core import units
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.planning.fleet_bounds import Shape, Traffic
from llm_roofline.planning.fleet_request import FleetRequest
from llm_roofline.planning.fleet_result import Fleet, InstanceSplit
from llm_roofline.sim.simulate import capacity_rps, simulate

__all__ = ["HEADROOM", "Search", "meets"]

CAPACITY_PER_CLIENT = 5  # requests per client in a capacity run (the verb's own uses 20)
HEADROOM = 1.05  # a fleet keeps up with the rate when its capacity is this many times it
PAIRS_PER_ROLE = 2  # disaggregated: the best shapes tried for each pool


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
        self.work = seen.works[0]
        self.rate = request.rate
        self.out_mean = seen.out_mean
        self.ttft_s = request.ttft_p90_s
        self.tpot_s = request.tpot_p99_s
        self.max_chips = request.max_chips
        self.max_seqs = request.max_seqs
        self.budget = request.max_batched_tokens
        self.progress = progress
        self.cache: dict[Any, Any] = {}
        self.capacity: dict[tuple[int, ...], float] = {}
        self.rows: list[Fleet] = []
        self.runs: dict[tuple[int, ...], Fleet] = {}
        self.best: Fleet | None = None
        self.pools: dict[int, tuple[Shape | None, Shape, int, int]] = {}
        self.pruned = 0
        self.simulations = 0
        self.too_big: list[int] = []  # fleets the search wanted beyond max_chips
        # per chip id, why none of its fleets was simulated: the cheapest cost bound of those
        # pruned (USD per hour), the fewest chips of those beyond max_chips
        self.pruned_usd_h: dict[str, float] = {}
        self.too_big_chips: dict[str, int] = {}
        self.done = 0
        self.total = 0

    # ---- one fleet -------------------------------------------------------------------------

    def _cost(self) -> float:
        return math.inf if self.best is None else float(self.best.usd_per_hour)

    def _prune(self, chip: str, usd_h: float) -> None:
        """A candidate of `chip` left unsimulated: its cost bound is not below the best's."""
        self.pruned += 1
        self.pruned_usd_h[chip] = min(usd_h, self.pruned_usd_h.get(chip, math.inf))

    def _beyond(self, chip: str, chips: int) -> None:
        self.too_big_chips[chip] = min(chips, self.too_big_chips.get(chip, chips))

    def _within(self, chips: int, usd_s: float) -> bool:
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

    def _run(self, shape_p: Shape | None, shape_d: Shape, p: int, d: int) -> Fleet:
        """Simulate a fleet: `d` instances of `shape_d` (with `shape_p`, `p` prefill ones),
        once; a disaggregated fleet that meets the percentiles must also keep up with the
        rate (its pools' capacity, simulated)."""
        key = (id(shape_p), id(shape_d), p, d)
        if key in self.runs:
            return self.runs[key]
        t90, t99 = self._worst(*self._fleets(shape_p, shape_d, p, d))
        ok = meets(t90, t99, self.ttft_s, self.tpot_s)
        capacity = None
        if ok and shape_p is not None:
            capacity = self._pair_capacity(shape_p, shape_d, p, d)
            ok = capacity >= HEADROOM * self.rate
        row = self._row(shape_p, shape_d, p, d, (t90, t99), capacity, ok)
        self.runs[key] = row
        self.rows.append(row)
        self.pools[id(row)] = (shape_p, shape_d, p, d)
        if row.meets_slo and row.usd_per_hour < self._cost():
            self.best = row
        return row

    def _worst(self, pf: Deployment | None, dec: Deployment) -> tuple[float | None, float | None]:
        """TTFT p90 and TPOT p99 of a fleet, the worst of the seeded draws; a miss ends it."""
        worst: dict[str, float | None] = {"ttft_p90_s": None, "tpot_p99_s": None}
        for work in self.works:
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
            if not meets(worst["ttft_p90_s"], worst["tpot_p99_s"], self.ttft_s, self.tpot_s):
                break
        return worst["ttft_p90_s"], worst["tpot_p99_s"]

    def _row(
        self,
        shape_p: Shape | None,
        shape_d: Shape,
        p: int,
        d: int,
        times: tuple[float | None, float | None],
        capacity: float | None,
        ok: bool,
    ) -> Fleet:
        """One simulated fleet as the answer's row: its chips, cost and times."""
        dec = shape_d.dep
        chips_p = shape_p.chips * p if shape_p else 0
        chips_d = shape_d.chips * d
        usd_h = (chips_p + chips_d) * dec.chip.price_usd_per_s * units.hour
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
            ttft_p90_s=times[0],
            tpot_p99_s=times[1],
            capacity_rps=capacity,
            meets_slo=bool(ok),
            instance_chips=dec.chips,
            prefill_instances=None if shape_p is None else p,
            decode_instances=None if shape_p is None else d,
            prefill_split=None if shape_p is None else _split(shape_p.dep),
            decode_split=None if shape_p is None else _split(dec),
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
                per_client=CAPACITY_PER_CLIENT,
                deadline=self.deadline,
            )
        return self.capacity[key]

    def _tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)

    # ---- aggregated --------------------------------------------------------------------------

    def aggregated(self, shapes: list[Shape]) -> None:
        def bound(s: Shape) -> tuple[int, float]:
            per = min(s.decode_rps, s.prefill_rps)
            r = math.ceil(self.rate / per)
            return r, r * s.price_s

        order = sorted(shapes, key=lambda s: (bound(s)[1], s.chips))
        self.total += len(order)
        for s in order:
            r_lb, cost_lb = bound(s)
            if cost_lb * units.hour >= self._cost():
                self._prune(s.dep.chip.id, cost_lb * units.hour)
            elif r_lb * s.chips > self.max_chips:
                self.too_big.append(r_lb * s.chips)
                self._beyond(s.dep.chip.id, r_lb * s.chips)
            else:
                self._replicas(s, r_lb)
            self._tick()

    def _instance_capacity(self, s: Shape) -> float:
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

    def _replicas(self, s: Shape, r_lb: int) -> None:
        """The fewest replicas of `s` meeting both targets (or none within the chips and the
        cheapest plan so far)."""
        cap1 = self._instance_capacity(s)
        r = max(r_lb, math.floor(HEADROOM * self.rate / cap1) + 1)
        if not self._within(r * s.chips, r * s.price_s):
            return
        failed = r - 1
        while not self._run(None, s, 0, r).meets_slo:
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
            elif self._run(None, s, 0, mid).meets_slo:
                r = mid
            else:
                failed = mid

    # ---- disaggregated -----------------------------------------------------------------------

    def disaggregated(self, pre_shapes: list[Shape], dec_shapes: list[Shape]) -> None:
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
                self._prune(b.dep.chip.id, cost_lb * units.hour)
            else:
                self._pools(a, b, p, d)
            self._tick()

    def _pools(self, a: Shape, b: Shape, p: int, d: int) -> None:
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
            if row.meets_slo:
                break
            t90, t99 = row.ttft_p90_s, row.tpot_p99_s
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
                if not self._run(a, b, pp, dd).meets_slo:
                    break
                p, d = pp, dd

    # ---- the answer ----------------------------------------------------------------------------

    def fill_capacity(self, best: Fleet) -> Fleet:
        """`best` with its `capacity_rps` (`fleet_plan.py`'s docstring, step 3), in its place
        among the rows and as the best."""
        shape_p, shape_d, p, d = self.pools[id(best)]
        if shape_p is None:
            capacity = self._instance_capacity(shape_d) * d
        else:
            capacity = self._pair_capacity(shape_p, shape_d, p, d)
        filled = replace(best, capacity_rps=capacity)
        self.rows = [filled if r is best else r for r in self.rows]
        self.pools[id(filled)] = self.pools[id(best)]
        self.best = filled
        return filled
