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

__all__ = [
    "BEST_KEYS",
    "Draw",
    "Fleet",
    "InstanceSplit",
    "PlanResult",
    "Searched",
    "frontier",
    "simulate_command",
    "standing",
]

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
    "draws",
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
class Draw:
    """One seeded draw of the traffic simulated on a fleet (its first `requests`): its TTFT
    p90 and TPOT p99; `stopped`: the run stopped once a target was certain to be missed
    (`fleet_early`), and the two are lower bounds, at least one past its target."""

    seed: int
    ttft_p90_s: float | None
    tpot_p99_s: float | None
    requests: int
    stopped: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "requests": self.requests,
            "ttft_p90_s": self.ttft_p90_s,
            "tpot_p99_s": self.tpot_p99_s,
            "stopped": self.stopped,
        }


@dataclass(frozen=True)
class Fleet(JsonRecord):
    """One simulated fleet: `replicas` instances of `instance_chips` chips split tp × pp × ep
    (attention data parallel `dp`), or, `disaggregated`, `prefill_instances` of
    `prefill_split` feeding `decode_instances` of `decode_split` (the attributes tp, pp, ep,
    dp and `instance_chips` are then the decode pool's; its JSON leaves them and `replicas`
    null, so that no top-level figure reads as the whole fleet's). Its cost, its simulated
    percentiles (the worst of the seeded draws, each draw's in `draws`: a draw that misses
    ends the fleet's, so a fleet that misses has fewer; a TPOT of None: no request had a
    second token), whether it meets both targets and keeps up with the rate (`meets_slo`),
    and its simulated capacity (`capacity_rps`, known for fleets that meet the percentiles)."""

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
    draws: tuple[Draw, ...] = ()

    @property
    def stopped(self) -> bool:
        """A draw of it stopped once a target was certain to be missed: its percentiles are
        lower bounds (`Draw.stopped`)."""
        return any(d.stopped for d in self.draws)

    def as_dict(self) -> dict[str, Any]:
        """The fleet as a row of the answer's `candidates` (disaggregated: the pools' splits,
        no single instance's)."""
        one = not self.disaggregated
        row: dict[str, Any] = {
            "hardware": self.hardware,
            "chips": self.chips,
            "replicas": self.replicas if one else None,
            "tp": self.tp if one else None,
            "pp": self.pp if one else None,
            "ep": self.ep if one else None,
            "dp": self.dp if one else None,
            "disaggregated": self.disaggregated,
            "prefill_chips": self.prefill_chips,
            "decode_chips": self.decode_chips,
            "usd_per_hour": self.usd_per_hour,
            "usd_per_million_output_tokens": self.usd_per_million_output_tokens,
            "ttft_p90_s": self.ttft_p90_s,
            "tpot_p99_s": self.tpot_p99_s,
            "capacity_rps": self.capacity_rps,
            "meets_slo": self.meets_slo,
            "instance_chips": self.instance_chips if one else None,
            "draws": [d.as_dict() for d in self.draws],
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
    runner_up: Fleet | None = None

    def as_dict(self) -> dict[str, Any]:
        """The answer as `llm-roofline plan --json` prints it and the web returns it: `best`
        and `runner_up` each with where it stands (`standing`) and the `simulate` command
        that reproduces its reported figures (`simulate_command`)."""

        def answer(f: Fleet | None) -> dict[str, Any] | None:
            if f is None:
                return None
            return {
                **f.best_dict(),
                **standing(f, self.request),
                "simulate_command": simulate_command(f, self.request, self.engine),
            }

        return {
            "request": self.request.as_dict(self.engine),
            "best": answer(self.best),
            "runner_up": answer(self.runner_up),
            "reason": self.reason,
            "candidates": [r.as_dict() for r in self.candidates],
            "searched": self.searched.as_dict(),
        }


def standing(f: Fleet, request: FleetRequest) -> dict[str, Any]:
    """Where a fleet stands against the question: the share of its simulated capacity the
    rate uses (`utilisation`), the margin to each target as a share of it (1 − the worst
    draw's percentile over the target; None for a TPOT no request had), and the target with
    the least margin (`binding`: "ttft_p90" or "tpot_p99")."""
    m90 = None if f.ttft_p90_s is None else 1.0 - f.ttft_p90_s / request.ttft_p90_s
    m99 = None if f.tpot_p99_s is None else 1.0 - f.tpot_p99_s / request.tpot_p99_s
    low = {k: v for k, v in (("ttft_p90", m90), ("tpot_p99", m99)) if v is not None}
    return {
        "utilisation": None if not f.capacity_rps else request.rate / f.capacity_rps,
        "binding": min(low, key=lambda k: low[k]) if low else None,
        "margins": {"ttft_p90": m90, "tpot_p99": m99},
    }


def _binding_seed(f: Fleet, request: FleetRequest) -> int:
    """The seed of the draw whose percentile is the fleet's reported one on its binding
    target (the first draw's when it has none)."""
    key = "tpot_p99_s" if standing(f, request)["binding"] == "tpot_p99" else "ttft_p90_s"
    worst = getattr(f, key)
    return next((d.seed for d in f.draws if getattr(d, key) == worst), request.seed)


def simulate_command(f: Fleet, request: FleetRequest, engine: str) -> str:
    """The `llm-roofline simulate` command that serves the question's traffic on `f` as the
    search did, on the draw of its reported percentile on the binding target (`--seed`; the
    others are the seeds of `draws`)."""
    q = request
    cmd = [f"llm-roofline simulate --model {q.model_id} --hardware {f.hardware}"]
    ps, ds = f.prefill_split, f.decode_split
    if ps is not None and ds is not None:
        cmd.append(
            f"--chips {ds.chips} --tp {ds.tp} --pp {ds.pp} --ep {ds.ep} "
            f"--disagg {f.prefill_instances}:{f.decode_instances} --prefill-chips {ps.chips} "
            f"--prefill-tp {ps.tp} --prefill-pp {ps.pp} --prefill-ep {ps.ep}"
        )
    else:
        cmd.append(f"--chips {f.chips} --replicas {f.replicas} --tp {f.tp} --pp {f.pp} --ep {f.ep}")
    cmd.append(
        f"--weight-dtype {q.weight_dtype} --kv-dtype {q.kv_dtype} --engine {engine} "
        f"--rate {q.rate:g} --requests {q.requests} --input-len {q.input_len} "
        f"--output-len {q.output_len} --length-dist {q.length_dist} --max-seqs {q.max_seqs} "
        f"--max-batched-tokens {q.max_batched_tokens} --serving-engine {q.serving_engine} "
        f"--seed {_binding_seed(f, q)}"
    )
    return " ".join(cmd)


def frontier(rows: list[Fleet]) -> list[Fleet]:
    """The fleets no other beats on cost per hour, TTFT p90 and TPOT p99 together (a TPOT of
    None, no second token, counts as 0), one of each point, chip count and chip (the first
    found), cheapest first. A stopped fleet's percentiles are lower bounds (`Fleet.stopped`):
    it may be beaten, but never beats another, whose real figures may be below its own."""

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
            if q.stopped or q is r:
                continue
            if all(y <= x for x, y in zip(a, b, strict=True)) and b != a:
                dominated = True
                break
        if not dominated:
            keep.append(r)
    unique: dict[tuple[Any, ...], Fleet] = {}
    for r in keep:
        unique.setdefault((*point(r), r.chips, r.hardware), r)
    return sorted(unique.values(), key=lambda r: point(r)[0::2])
