"""Splitting a model over chips: the degrees, their checks, and how communication is costed.

Degrees (per model replica of `chips` chips):

- PP pipeline stages, each of chips/pp chips holding L/pp layers; a sequence's token crosses
  every stage in turn, so with micro-batches of b = B/pp in flight the time per output token
  is pp stage times, and throughput is B per that time.
- TP tensor parallel: attention heads and dense matrices split over tp chips.
- DP data (attention-data) parallel: dp = (chips/pp)/tp groups, each holding its own sequences
  (and their KV cache) and a copy of the non-expert weights.
- EP expert parallel: a stage's routed experts spread over ep chips; each expert's matrices are
  split over the remaining (chips/pp)/ep chips.

The collectives each split runs, and their time, are in `collectives.py` (re-exported here:
`comm_terms`, `comm_time`, `allreduce_time`, ...). `CommModel` says how they are costed: the
links' latency, the ESTI layout on torus machines, and the schedule.

Whether communication is hidden is the schedule's business (`CommModel.overlap`): with one
micro-batch each layer's collective feeds the next layer and adds to the step; with two, one
micro-batch's collectives run under the other's work, but each micro-batch reads the weights
again and pays its collectives' latency again (`pass_terms.py` costs both, `schedule.py` takes
the better).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from llm_roofline._core import units
from llm_roofline._core.checks import positive_int
from llm_roofline._core.errors import InputError
from llm_roofline.engine.collectives import (
    ACT_BYTES,
    allreduce_parts,
    allreduce_time,
    alltoall_time,
    comm_terms,
    comm_time,
    link,
    network_link,
)
from llm_roofline.model.spec import ModelSpec

__all__ = [
    "ACT_BYTES",
    "COMM_OVERLAP",
    "LAYOUTS",
    "CommModel",
    "Parallelism",
    "allreduce_parts",
    "allreduce_time",
    "alltoall_time",
    "comm_terms",
    "comm_time",
    "link",
    "network_link",
]

Layout = Literal["auto", "1d", "2d", "wg"]
CommOverlap = Literal["auto", "none", "two-batch"]
LAYOUTS: tuple[Layout, ...] = ("auto", "1d", "2d", "wg")
COMM_OVERLAP: tuple[CommOverlap, ...] = ("auto", "none", "two-batch")


@dataclass(frozen=True)
class Parallelism:
    """Degrees of parallelism over `chips` chips: tp · dp · pp = chips."""

    chips: int
    tp: int
    pp: int = 1
    ep: int = 1
    kv_batch_shard: bool = False  # split the KV cache over the TP group by sequence (ESTI)

    def __post_init__(self) -> None:
        for name in ("chips", "tp", "pp", "ep"):
            positive_int(getattr(self, name), name)

    @classmethod
    def of(
        cls,
        chips: int,
        tp: int | None = None,
        pp: int | None = None,
        ep: int | None = None,
        *,
        kv_batch_shard: bool = False,
    ) -> Parallelism:
        """Defaults: tp = chips / pp (the scenario contract's tp = chips), pp = 1, ep = 1."""
        n = positive_int(chips, "chips")
        p = positive_int(1 if pp is None else pp, "pp")
        t = positive_int(tp if tp is not None else max(n // p, 1), "tp")
        return cls(n, t, p, positive_int(1 if ep is None else ep, "ep"), bool(kv_batch_shard))

    @property
    def stage_chips(self) -> int:
        return self.chips // self.pp

    @property
    def dp(self) -> int:
        return self.stage_chips // self.tp

    @property
    def expert_tp(self) -> int:
        """Chips that split each expert's matrices: (chips / pp) / ep."""
        return self.stage_chips // self.ep

    def check(self, spec: ModelSpec) -> Parallelism:
        """Raise InputError naming the degree that cannot split this model on these chips."""
        if self.chips % (self.tp * self.pp):
            raise InputError(
                f"tp × pp = {self.tp} × {self.pp} does not divide chips = {self.chips}",
                field="tp",
            )
        if self.stage_chips % self.ep:
            raise InputError(
                f"ep = {self.ep} does not divide the {self.stage_chips} chips of a pipeline "
                f"stage (chips / pp)",
                field="ep",
            )
        H = spec.attention.n_heads
        if H % self.tp:
            fits = [
                t
                for t in range(1, self.stage_chips + 1)
                if H % t == 0 and self.stage_chips % t == 0
            ]
            raise InputError(
                f"tp = {self.tp} does not divide the {H} query heads of {spec.name}; "
                f"tp that divide both the heads and the {self.stage_chips} chips of a stage: "
                f"{', '.join(map(str, fits))}",
                field="tp",
            )
        K = spec.attention.n_kv_heads if spec.attention.kind != "mla" else 1
        if spec.attention.kind != "mla" and K > self.tp and K % self.tp:
            raise InputError(
                f"tp = {self.tp} does not divide the {K} KV heads of {spec.name}", field="tp"
            )
        if spec.attention.kind != "mla" and self.tp > K and self.tp % K:
            raise InputError(
                f"tp = {self.tp} is not a multiple of the {K} KV heads of {spec.name} "
                f"(each KV head is copied to tp / K chips)",
                field="tp",
            )
        if self.pp > spec.n_layers:
            raise InputError(
                f"pp = {self.pp} exceeds the {spec.n_layers} layers of {spec.name}", field="pp"
            )
        experts = max((g.ffn.n_experts for g in spec.groups), default=0)
        if self.ep > 1 and not experts:
            raise InputError(f"ep = {self.ep} but {spec.name} has no experts", field="ep")
        if experts and self.ep > experts:
            raise InputError(
                f"ep = {self.ep} exceeds the {experts} experts of {spec.name}", field="ep"
            )
        # ep need not divide the experts: engines place ceil(E / ep) per chip (memory counts
        # the fullest chip) or add redundant copies (DeepSeek's 256 experts on 72 GPUs).
        return self

    def sequence_kv_chips(self, spec: ModelSpec) -> int:
        """Chips that hold parts of one sequence's KV cache: its pp stages × the TP ranks
        splitting its heads (one when every rank keeps a copy, MLA, or when the KV is
        sharded by sequence)."""
        return self.pp * (1 if self.kv_batch_shard else self.kv_shards(spec))

    def kv_shards(self, spec: ModelSpec) -> int:
        """How many ways a TP group splits its sequences' KV cache: by KV head, min(tp, K)
        (1 for MLA: one shared latent per token, copied to every TP rank); or, with
        `kv_batch_shard`, by sequence over all tp chips (ESTI's multiquery layout, at the cost
        of an all-to-all of queries and outputs per layer)."""
        if self.kv_batch_shard:
            return self.tp
        if spec.attention.kind == "mla":
            return 1
        return min(self.tp, spec.attention.n_kv_heads)


@dataclass(frozen=True)
class CommModel:
    """How collectives are costed (the `ideal` engine's defaults are lower bounds).

    `scale_up_latency_s` / `scale_out_latency_s`: α, the fixed time of one step of a
    collective on each kind of link (1 µs over NVLink/ICI and 5 µs over the network are at the
    low end of what NCCL and published all-reduce timings show for small messages).
    `allreduce_latency_s` replaces the latency part of every all-reduce when a source gives one
    (Epoch AI's `2 µs·(√n − 1) + 6 µs`). `allreduces_per_layer` replaces the 1 (parallel
    block) / 2 (serial block) count. `layout` chooses the ESTI layout on torus machines.

    `overlap`, the schedule that decides whether communication is hidden:

    - "none": one micro-batch; each layer's collectives feed the next layer, so they add to
      the step (Epoch's and kipply's examples count it so);
    - "two-batch": two micro-batches (DeepSeek's and SGLang's two-batch overlap): one's
      collectives run under the other's work, the step is max(work, communication), but each
      micro-batch reads the weights again (they do not fit on chip) and pays its collectives'
      latency again; needs at least 2 sequences (decode) or tokens (prefill) in the busiest
      data-parallel group, else it falls back to one micro-batch;
    - "auto" (the default): the better of the two, element by element, so the `ideal` engine
      is the fastest schedule it can name, and never a free lunch.
    """

    scale_up_latency_s: float = 1 * units.us
    scale_out_latency_s: float = 5 * units.us
    allreduce_latency_s: float | None = None
    allreduces_per_layer: int | None = None
    overlap: CommOverlap = "auto"
    layout: Layout = "auto"
    dispatch_bytes: float = 1.0  # MoE dispatch in FP8 (DeepEP); the combine returns 16 bits

    def __post_init__(self) -> None:
        for name in ("scale_up_latency_s", "scale_out_latency_s", "allreduce_latency_s"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise InputError(f"{name} must be zero or positive, got {v!r}", field=name)
        if self.allreduces_per_layer is not None:
            positive_int(self.allreduces_per_layer, "allreduces_per_layer")
        if self.overlap not in COMM_OVERLAP:
            raise InputError(
                f"comm overlap must be one of {', '.join(COMM_OVERLAP)}, got {self.overlap!r}",
                field="comm_overlap",
            )
        if self.layout not in LAYOUTS:
            raise InputError(
                f"layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}",
                field="layout",
            )
