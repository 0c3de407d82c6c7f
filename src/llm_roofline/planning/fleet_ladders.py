"""The candidates of `plan`'s search (`fleet_search.py`'s docstring), each a ladder of fleets
to simulate: replicas of one instance shape (`aggregated`), or a pool of prefill instances of
one shape feeding a pool of decode instances of another (`disaggregated`). A ladder yields the
cost (USD per second) of the next fleet it would simulate and simulates it when the search
resumes it, cheapest pending fleet first (`Search.run`)."""

from __future__ import annotations

import math
from collections.abc import Generator

from llm_roofline.planning.fleet_bounds import Shape
from llm_roofline.planning.fleet_result import Fleet
from llm_roofline.planning.fleet_search import HEADROOM, Ladder, Search

__all__ = [
    "PAIRS_PER_ROLE",
    "aggregated",
    "aggregated_ladders",
    "disaggregated",
    "disaggregated_ladders",
]

PAIRS_PER_ROLE = 2  # disaggregated: the best shapes tried for each pool


def _quarter(n: int) -> int:
    return max(1, math.ceil(n / 4))


def aggregated(search: Search, shapes: list[Shape]) -> None:
    """The fewest replicas of each shape meeting both targets, best first."""
    search.run(aggregated_ladders(search, shapes))


def aggregated_ladders(search: Search, shapes: list[Shape]) -> list[Ladder]:
    """A ladder for each shape whose fewest replicas by its bound fit max_chips (the others
    are counted as candidates beyond max_chips)."""
    out: list[Ladder] = []
    for s in shapes:
        r_lb = math.ceil(search.rate / min(s.decode_rps, s.prefill_rps))
        if r_lb * s.chips > search.max_chips:
            search.too_big.append(r_lb * s.chips)
            search.beyond(s.dep.chip.id, r_lb * s.chips)
            search.total += 1
            search.tick()
        else:
            out.append((r_lb * s.price_s, s.dep.chip.id, _replicas(search, s, r_lb)))
    return out


def _replicas(search: Search, s: Shape, r_lb: int) -> Generator[float, None, None]:
    """The fewest replicas of `s` meeting both targets (or none within the chips and the
    cheapest plan so far): from the bound, growing by a quarter until the targets are met,
    then bisecting back; each fleet's cost yielded before it is simulated."""
    r, failed = r_lb, r_lb - 1
    while True:
        if not search.within(r * s.chips, r * s.price_s):
            return
        yield r * s.price_s
        if search.fleet(None, s, 0, r).meets_slo:
            break
        failed, step = r, _quarter(r)
        # a quarter more, or as many as still fit the chips and the best cost
        while step > 1 and not search.within((r + step) * s.chips, (r + step) * s.price_s):
            step = max(1, step // 2)
        r += step
    while r - failed > 1:  # bisect back: r meets, failed does not (or is below the bound)
        mid = (r + failed) // 2
        yield mid * s.price_s
        if search.fleet(None, s, 0, mid).meets_slo:
            r = mid
        else:
            failed = mid


def disaggregated(search: Search, pre_shapes: list[Shape], dec_shapes: list[Shape]) -> None:
    """Pairs of prefill and decode pools, best first (`disaggregated_ladders`)."""
    search.run(disaggregated_ladders(search, pre_shapes, dec_shapes))


def disaggregated_ladders(
    search: Search, pre_shapes: list[Shape], dec_shapes: list[Shape]
) -> list[Ladder]:
    """Pairs of the best prefill and decode shapes (within their own targets' floors) of each
    chip, each from the pools' counts of its bounds."""
    out: list[Ladder] = []
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
                p = math.ceil(search.rate / a.prefill_rps)
                d = 1 if math.isinf(b.decode_rps) else math.ceil(search.rate / b.decode_rps)
                out.append((p * a.price_s + d * b.price_s, chip, _pools(search, a, b, p, d)))
    return out


def _pools(search: Search, a: Shape, b: Shape, p: int, d: int) -> Generator[float, None, None]:
    """Grow the pool whose target misses (or, short of capacity, the one whose bound carries
    less) until both hold, then trim each pool while both still hold; each fleet's cost
    yielded before it is simulated. A fleet whose prefill pool is known to miss TTFT
    (`Search.prompts_missed`) fails unsimulated, and its prefill pool grows."""
    p_lb, d_lb = p, d
    for _ in range(60):
        if not search.within(p * a.chips + d * b.chips, p * a.price_s + d * b.price_s):
            return
        row = None
        if not search.prompts_missed(a, p):
            yield p * a.price_s + d * b.price_s
            row = search.fleet(a, b, p, d)
            if row.meets_slo:
                break
        grown = _grow(search, (a, b), p, d, row)
        if grown is None:
            return
        p, d = grown
    else:
        return
    for which in ("p", "d"):
        while True:
            pp, dd = (p - 1, d) if which == "p" else (p, d - 1)
            if pp < p_lb or dd < d_lb or pp < 1 or dd < 1 or search.prompts_missed(a, pp):
                break
            yield pp * a.price_s + dd * b.price_s
            if not search.fleet(a, b, pp, dd).meets_slo:
                break
            p, d = pp, dd


def _grow(
    search: Search, pair: tuple[Shape, Shape], p: int, d: int, row: Fleet | None
) -> tuple[int, int] | None:
    """The pools' next counts after `row` missed (None: not simulated, its prompts known to
    miss TTFT): the prefill pool grown by a quarter while TTFT misses, the decode pool while
    TPOT misses (a run stopped once certain to miss TTFT shows TPOT's bound then: the decode
    pool grows only if that is past its target); both met but the capacity short, the pool
    whose bound carries less grown by the capacity's shortfall (no capacity run per pool).
    None when not even one more instance fits."""
    a, b = pair
    t90 = None if row is None else row.ttft_p90_s
    t99 = None if row is None else row.tpot_p99_s
    grow_p = t90 is None or t90 > search.ttft_s
    grow_d = t99 is not None and t99 > search.tpot_s
    more = {"p": _quarter(p), "d": _quarter(d)}
    if row is not None and not (grow_p or grow_d):  # percentiles met, capacity short
        grow_p = p * a.prefill_rps <= d * b.decode_rps
        grow_d = not grow_p
        short = HEADROOM * search.rate / max(row.capacity_rps or 0.0, 1e-9)
        n = p if grow_p else d
        more["p" if grow_p else "d"] = max(1, math.ceil(n * short) - n)
    for which, grow in (("p", grow_p), ("d", grow_d)):
        step = more[which]
        while grow and step >= 1:
            pp, dd = (p + step, d) if which == "p" else (p, d + step)
            if search.within(pp * a.chips + dd * b.chips, pp * a.price_s + dd * b.price_s):
                p, d = pp, dd
                break
            step //= 2
        if grow and step < 1:
            return None
    return p, d
