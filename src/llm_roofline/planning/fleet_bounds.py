"""Step 1 of `plan` (`fleet_plan.py`'s docstring): the traffic's seeded draws (`Traffic`) and
every instance shape that holds the model, with its bounds from the ideal engine (`Shape`),
before anything is simulated."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from llm_roofline._core.errors import LlmRooflineError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.engine.candidates import candidates, powers
from llm_roofline.engine.parallel import CommModel
from llm_roofline.hardware.chip import Chip
from llm_roofline.planning.fleet_request import FleetRequest
from llm_roofline.sim.simulate import kv_capacity
from llm_roofline.sim.workload import Workload, make_workload

__all__ = [
    "MAX_INSTANCE_CHIPS",
    "SCREEN_LEAST",
    "SEEDS",
    "Shape",
    "Traffic",
    "instance_shapes",
    "traffic",
]

MAX_INSTANCE_CHIPS = 64  # the largest instance tried (a rack's scale-up domain)
SEEDS = 3  # a fleet meets the targets when it meets them on each of this many seeded draws
SCREEN_LEAST = 400  # draws of fewer requests are not screened (a quarter would be a burst)


@dataclass
class Shape:
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


@dataclass(frozen=True)
class Traffic:
    """The request's traffic as `SEEDS` seeded draws (seeds `seed`, `seed` + 1, ...), with
    what the bounds read off them: the longest request of any draw (prompt and output), the
    90th percentile prompt (the least of the draws: at least a tenth of the requests take its
    prefill or more to a first token), and the first draw's mean prompt and output."""

    works: list[Workload]
    longest: int
    first_len: int
    inp_mean: float
    out_mean: float
    screen: Workload | None = None


def traffic(request: FleetRequest) -> Traffic:
    """The seeded draws of the request's traffic (Poisson arrivals at its rate)."""
    works = [
        make_workload(
            requests=request.requests,
            rate=request.rate,
            input_len=request.input_len,
            output_len=request.output_len,
            length_dist=request.length_dist,
            max_context=request.spec.max_context,
            seed=request.seed + k,
        )
        for k in range(SEEDS)
    ]
    return Traffic(
        works,
        longest=max(int(np.max(w.input_len + w.output_len)) for w in works),
        first_len=min(int(np.percentile(w.input_len, 90)) for w in works),
        inp_mean=float(np.mean(works[0].input_len)),
        out_mean=float(np.mean(works[0].output_len)),
        screen=_first_quarter(works[0]),
    )


def _first_quarter(work: Workload) -> Workload | None:
    """The first quarter of an open loop's requests, as arrived; None below SCREEN_LEAST."""
    n = work.requests // 4
    if work.requests < SCREEN_LEAST or work.arrival_s is None:
        return None
    return Workload(
        input_len=work.input_len[:n],
        output_len=work.output_len[:n],
        arrival_s=work.arrival_s[:n],
        concurrency=None,
        description=f"the first {n} requests of: {work.description}",
    )


def instance_shapes(request: FleetRequest, seen: Traffic) -> list[Shape]:
    """Every instance shape of the request's chips (1, 2, 4, ... chips, at most max_chips and
    MAX_INSTANCE_CHIPS) that holds the model and the longest request, with its bounds."""
    shapes: list[Shape] = []
    counts = powers(min(request.max_chips, MAX_INSTANCE_CHIPS))
    for chip in request.chips:
        for n in counts:
            shapes += _bounds(request, seen, chip, n)
    return shapes


def _bounds(request: FleetRequest, seen: Traffic, chip: Chip, n: int) -> list[Shape]:
    """The instance shapes of `n` chips that hold the model and the longest request, with
    their bounds (step 1); a split the chip's links cannot carry is left out (`candidates`)."""
    spec = request.spec
    found = []
    experts = max((g.ffn.n_experts for g in spec.groups), default=0)
    for _, par in candidates(spec, chip, CommModel(), [n]):
        if not experts and par.tp * par.pp != n:
            continue  # data parallel inside an instance: the same as replicas
        try:
            dep = deployment(
                spec,
                chip,
                n,
                tp=par.tp,
                pp=par.pp,
                ep=par.ep,
                replicas=1,
                model_id=request.model_id,
                weight_dtype=request.weight_dtype,
                kv_dtype=request.kv_dtype,
                engine=request.engine,
            )
        except LlmRooflineError:
            continue
        if int(dep.max_batch(seen.longest)) < 1:
            continue
        found.append(_shape(dep, request, seen))
    return found


def _prefill_s(dep: Deployment, tokens: int) -> float:
    """The time `dep` takes for a prefill pass of one prompt of `tokens` tokens."""
    t = dep.time(dep.prefill(1, tokens), is_prefill=True)[0]
    return float(np.asarray(t).flat[0])


def _shape(dep: Deployment, request: FleetRequest, seen: Traffic) -> Shape:
    """`dep`'s bounds, timed by the ideal engine: `inp` and `out` the mean prompt and output
    (for the rates, and the decode contexts, at most the 90th percentile prompt)."""
    ideal = dep.with_engine("ideal")
    budget, first_len = request.max_batched_tokens, seen.first_len
    inp, out = round(seen.inp_mean), round(seen.out_mean)
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
    top = max(1, min(request.max_seqs, kv_capacity(dep, seen.longest) // ctx))
    B = np.asarray(sorted({*powers(top), top}), dtype=np.float64)
    t_low = np.asarray(ideal.time(ideal.decode(B, ctx))[0], dtype=np.float64)
    meets = np.flatnonzero(t_low <= request.tpot_p99_s)
    if out <= 1:
        decode_rps = math.inf
    elif meets.size == 0:
        decode_rps = 0.0
    else:
        i = int(meets[-1])
        b_next = B[i + 1] if i + 1 < B.size else B[i]
        decode_rps = float(b_next / ((out - 1) * t_low[i]))
    return Shape(dep, float(t_low[0]), ttft, decode_rps, prefill_rps)
