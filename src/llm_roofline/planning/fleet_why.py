"""Why `plan` found what it found, in words: for each chip asked for that has no fleet
simulated, why it lost (`unsimulated`), and when no fleet meets the targets, the binding one
with the best value reached (`no_fleet_reason`, the answer's `reason`). Read off a finished
`Search` (`fleet_search.py`)."""

from __future__ import annotations

import math

from llm_roofline._core import units
from llm_roofline.planning.fleet_bounds import MAX_INSTANCE_CHIPS, Shape
from llm_roofline.planning.fleet_result import Fleet
from llm_roofline.planning.fleet_search import Search, meets

__all__ = ["no_fleet_reason", "unsimulated"]


def unsimulated(
    search: Search, chips: list[str], shapes: list[Shape], pre: list[Shape], dec: list[Shape]
) -> dict[str, str]:
    """Why each chip asked for that has no simulated fleet lost, in words: no instance
    holds the model, its fastest instance misses a target's floor, its fleets would pass
    max_chips, or the cheapest fleet able to carry the rate (each instance at its ideal
    throughput) costs at least the best's price."""
    ms = units.ms
    ran = {r.hardware for r in search.rows}
    best = math.inf if search.best is None else float(search.best.usd_per_hour)
    out = {}
    for chip in chips:
        if chip in ran:
            continue
        own = [s for s in shapes if s.dep.chip.id == chip]
        if not own:
            why = (
                f"no instance of up to {_largest_instance(search)} "
                "holds the model and the longest request"
            )
        elif chip in search.pruned_usd_h:
            why = (
                f"its cheapest fleet able to carry {units.sig(search.rate, 6)} requests/s "
                f"costs at least ${search.pruned_usd_h[chip]:,.2f}/hour (each instance at "
                f"its ideal throughput), not below the best's ${best:,.2f}/hour: not "
                "simulated"
            )
        elif chip in search.too_big_chips:
            why = (
                f"its fleets need at least {search.too_big_chips[chip]} chips, more than "
                f"the {search.max_chips} allowed"
            )
        elif not any(s in dec for s in own):
            fast = min(s.tpot_floor for s in own)
            why = (
                f"its fastest decode is {_ms(fast)} per token (one sequence, ideal "
                f"engine), above the {units.sig(search.tpot_s / ms)} ms TPOT target"
            )
        elif not any(s in pre for s in own):
            fast = min(s.ttft_floor for s in own)
            why = (
                f"its fastest first token is {_ms(fast)} (the prompt alone, ideal "
                f"engine), above the {units.sig(search.ttft_s / ms)} ms TTFT target"
            )
        else:
            why = "no instance of it meets both targets within the floors searched"
        out[chip] = why
    return out


def no_fleet_reason(
    search: Search, shapes: list[Shape], pre: list[Shape], dec: list[Shape], disagg: str
) -> str:
    """Why nothing met the targets: the binding target and the best value reachable."""
    if not shapes or not dec or not pre:
        return _no_shape(search, shapes, pre, dec)
    if not search.rows:
        return _nothing_simulated(search, disagg)
    return _closest(search)


def _largest_instance(search: Search) -> str:
    """'1 chip', '8 chips': the largest instance the search tried, in words."""
    n = min(search.max_chips, MAX_INSTANCE_CHIPS)
    return f"{n} chip" + ("s" if n > 1 else "")


def _within(search: Search) -> str:
    """'within 1 chip', 'within 16 chips': the fleet's limit in words."""
    return f"{search.max_chips} chip" + ("s" if search.max_chips > 1 else "")


def _no_shape(search: Search, shapes: list[Shape], pre: list[Shape], dec: list[Shape]) -> str:
    """No instance holds the model, or none is fast enough for a target's floor."""
    ms, chips = units.ms, _within(search)
    if not shapes:
        return (
            f"no instance of up to {_largest_instance(search)} holds "
            "the model and the longest request: allow more chips or a smaller weight type"
        )
    if not dec:
        fast = min(shapes, key=lambda s: s.tpot_floor)
        return (
            f"tpot_p99: the fastest decode within {chips} is "
            f"{_ms(fast.tpot_floor)} per token ({fast.label()}, one sequence, ideal "
            f"engine), above the {units.sig(search.tpot_s / ms)} ms target"
        )
    fast = min(shapes, key=lambda s: s.ttft_floor)
    return (
        f"ttft_p90: the fastest first token within {chips} is "
        f"{_ms(fast.ttft_floor)} ({fast.label()}, the prompt alone, ideal engine), "
        f"above the {units.sig(search.ttft_s / ms)} ms target"
    )


def _nothing_simulated(search: Search, disagg: str) -> str:
    """Instances within the floors, but no fleet of them simulated."""
    if search.too_big:
        rate, least = units.sig(search.rate, 6), min(search.too_big)
        return (
            f"chips: the rate of {rate} requests/s needs more than {_within(search)}: the "
            f"smallest fleet the search asked for had {least}, a lower bound from each "
            "instance's ideal throughput (the fleet that meets the targets may need "
            f"more): allow at least {least} (--max-chips, max_chips in the library and "
            "the page)"
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


def _closest(search: Search) -> str:
    """The simulated fleet closest to both targets, and what it missed: of those whose runs
    ended, where any did (a stopped run's bounds sit just past a target: `fleet_early`)."""
    ms, chips = units.ms, _within(search)

    def miss(r: Fleet) -> float:
        t90 = r.ttft_p90_s if r.ttft_p90_s is not None else math.inf
        t99 = r.tpot_p99_s or 0.0
        return max(t90 / search.ttft_s, t99 / search.tpot_s)

    # a fleet that ran to the end before one stopped at a bound (about 1x its target)
    ran = [r for r in search.rows if not r.stopped] or search.rows
    near = min(ran, key=miss)
    t90, t99 = near.ttft_p90_s, near.tpot_p99_s or 0.0
    fleet = f"{near.chips} × {near.hardware}" + (", disaggregated" if near.disaggregated else "")
    if meets(t90, t99, search.ttft_s, search.tpot_s):  # met the percentiles, not the rate
        return (
            f"capacity: the closest within {chips} ({fleet}) meets both targets but serves "
            f"only {units.sig(near.capacity_rps or 0.0)} of the {units.sig(search.rate, 6)} "
            "requests/s"
        )
    # a draw stopped once certain to miss (`fleet_early`) gives lower bounds
    least = "at least " if near.stopped else ""
    if t99 / search.tpot_s >= (t90 if t90 is not None else math.inf) / search.ttft_s:
        which = f"tpot_p99: {least}{_ms(t99)} against the {units.sig(search.tpot_s / ms)} ms target"
    else:
        shown = "no first token" if t90 is None else least + _ms(t90)
        which = f"ttft_p90: {shown} against the {units.sig(search.ttft_s / ms)} ms target"
    return f"{which}, the closest within {chips} ({fleet})"


def _ms(t: float) -> str:
    """A time in milliseconds as people write it: 4.5 ms, 133 ms, 4,060 ms."""
    v = t / units.ms
    return f"{v:,.0f} ms" if v >= 100 else f"{units.sig(v)} ms"
