"""`plan`'s answer, typed: each simulated fleet (`Fleet`, with the split of its instances,
`InstanceSplit`), what the search did (`Searched`), and the answer (`PlanResult`: the best
fleet, the frontier of those simulated, and why none or why a chip lost). `as_dict` gives the
JSON of `llm-roofline plan --json` and the web's `/api/plan`, key for key and in order; a
`Fleet` or `Searched` also reads as that mapping (`fleet["usd_per_hour"]`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from llm_roofline._core.records import JsonRecord
from llm_roofline.planning.fleet_request import FleetRequest

__all__ = ["BEST_KEYS", "Fleet", "InstanceSplit", "PlanResult", "Searched", "frontier"]

# the keys of the answer's `best`, the contract other programs read (docs/planning.md)
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
# and after them, where the fleet has them
_BEST_EXTRA = (
    "dp",
    "instance_chips",
    "prefill_instances",
    "decode_instances",
    "prefill_split",
    "decode_split",
)


@dataclass(frozen=True)
class InstanceSplit:
    """One instance of a pool: its chips and their split."""

    chips: int
    tp: int
    pp: int
    ep: int

    def as_dict(self) -> dict[str, int]:
        return {"chips": self.chips, "tp": self.tp, "pp": self.pp, "ep": self.ep}


@dataclass(frozen=True)
class Fleet(JsonRecord):
    """One simulated fleet: `replicas` instances of `instance_chips` chips split tp × pp × ep
    (attention data parallel `dp`), or, `disaggregated`, `prefill_instances` of
    `prefill_split` feeding `decode_instances` of `decode_split` (tp, pp, ep, dp and
    `instance_chips` are then the decode pool's). Its cost, its simulated percentiles (the
    worst of the seeded draws; a TPOT of None: no request had a second token), whether it
    meets both targets and keeps up with the rate (`meets_slo`), and its simulated capacity
    (`capacity_rps`, known for the best and for disaggregated fleets that meet the targets)."""

    hardware: str
    chips: int
    replicas: int
    tp: int
    pp: int
    ep: int
    dp: int
    disaggregated: bool
    prefill_chips: int
    decode_chips: int
    usd_per_hour: float
    usd_per_million_output_tokens: float
    ttft_p90_s: float | None
    tpot_p99_s: float | None
    capacity_rps: float | None
    meets_slo: bool
    instance_chips: int
    prefill_instances: int | None = None
    decode_instances: int | None = None
    prefill_split: InstanceSplit | None = None
    decode_split: InstanceSplit | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fleet as a row of the answer's `candidates`."""
        row: dict[str, Any] = {
            "hardware": self.hardware,
            "chips": self.chips,
            "replicas": self.replicas,
            "tp": self.tp,
            "pp": self.pp,
            "ep": self.ep,
            "dp": self.dp,
            "disaggregated": self.disaggregated,
            "prefill_chips": self.prefill_chips,
            "decode_chips": self.decode_chips,
            "usd_per_hour": self.usd_per_hour,
            "usd_per_million_output_tokens": self.usd_per_million_output_tokens,
            "ttft_p90_s": self.ttft_p90_s,
            "tpot_p99_s": self.tpot_p99_s,
            "capacity_rps": self.capacity_rps,
            "meets_slo": self.meets_slo,
            "instance_chips": self.instance_chips,
        }
        if self.prefill_split is not None and self.decode_split is not None:
            row["prefill_instances"] = self.prefill_instances
            row["decode_instances"] = self.decode_instances
            row["prefill_split"] = self.prefill_split.as_dict()
            row["decode_split"] = self.decode_split.as_dict()
        return row

    def best_dict(self) -> dict[str, Any]:
        """The fleet as the answer's `best`: BEST_KEYS first, then what it has of the rest."""
        row = self.as_dict()
        return {k: row[k] for k in (*BEST_KEYS, *_BEST_EXTRA) if k in row}


@dataclass(frozen=True)
class Searched(JsonRecord):
    """What the search did: the instance shapes that hold the model, those within the
    targets' floors, the candidates pruned by their cost bound, why each chip without a
    simulated fleet lost (chip id -> words), the simulations run, the seconds taken."""

    instance_shapes: int
    within_bounds: int
    pruned_by_bound: int
    unsimulated: dict[str, str]
    simulations: int
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "instance_shapes": self.instance_shapes,
            "within_bounds": self.within_bounds,
            "pruned_by_bound": self.pruned_by_bound,
            "unsimulated": self.unsimulated,
            "simulations": self.simulations,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class PlanResult:
    """The cheapest fleet meeting both targets (`best`, None when none does, with `reason`),
    the frontier of the fleets simulated (`candidates`), and what the search did, for the
    question asked (`request`), its fleets timed with `engine`."""

    request: FleetRequest
    engine: str
    best: Fleet | None
    candidates: list[Fleet]
    reason: str | None
    searched: Searched

    def as_dict(self) -> dict[str, Any]:
        """The answer as `llm-roofline plan --json` prints it and the web returns it."""
        return {
            "request": self.request.as_dict(self.engine),
            "best": None if self.best is None else self.best.best_dict(),
            "reason": self.reason,
            "candidates": [r.as_dict() for r in self.candidates],
            "searched": self.searched.as_dict(),
        }


def frontier(rows: list[Fleet]) -> list[Fleet]:
    """The fleets no other beats on cost per hour, TTFT p90 and TPOT p99 together (a TPOT of
    None, no second token, counts as 0), one of each point, chip count and chip (the first
    found), cheapest first."""

    def point(r: Fleet) -> tuple[float, float, float]:
        t90 = math.inf if r.ttft_p90_s is None else r.ttft_p90_s  # (those are left out)
        return (r.usd_per_hour, t90, r.tpot_p99_s or 0.0)

    pts = [r for r in rows if r.ttft_p90_s is not None]
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
    unique: dict[tuple[Any, ...], Fleet] = {}
    for r in keep:
        unique.setdefault((*point(r), r.chips, r.hardware), r)
    return sorted(unique.values(), key=lambda r: point(r)[0::2])
