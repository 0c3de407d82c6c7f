"""One pass, scheduled: its load shared over the split, its micro-batches, its StepTime.

`run_pass` shares the pass's sequences over the data-parallel groups (whole sequences, or
averaged fractions under continuous batching), costs the busiest chip's terms
(`pass_terms.py`) with one micro-batch and, where communication is costed, with two, and
`schedule` picks per element: one micro-batch (communication added), or two where allowed and
(`CommModel.overlap` "auto") faster: `max(work, t_comm)`, the weights read twice and each
collective's latency paid twice. The two-micro-batch terms stay in `StepTime.double` wherever
two are possible, for a calibrated engine to choose under its own efficiencies. With pp
stages a decode step is pp stage times.
"""

from __future__ import annotations

from typing import Any

from llm_roofline._core.backend import Backend, Num
from llm_roofline.engine.parallel import CommOverlap
from llm_roofline.engine.pass_terms import TERMS, Load, Plan, Terms, pass_terms
from llm_roofline.engine.step_time import Overlap, StepTime, combine, new_step_time
from llm_roofline.hardware.chip import System

__all__ = ["run_pass", "schedule"]


# size: the hot path of every engine call (a scalar decode step is ~8 µs, docs/performance.md):
# a pass's sizes and flags travel as keywords, not as an object built for each call
def run_pass(
    xp: Backend,
    p: Plan,
    *,
    decode_seqs: Num = 0.0,
    decode_context: Num = 1.0,
    prefill_seqs: Num = 0.0,
    prefill_len: Num = 1.0,
    cached_len: Num = 0.0,
    pipeline_fill: bool = True,
    all_logits: bool = False,
    whole_sequences: bool = True,
    whole_prefill: bool = False,
    in_flight: Num | None = None,
    tokens_per_pass: Num | None = None,
    per_seq: tuple[Num, Num] | None = None,
    groups: tuple[Num, Num] | None = None,
) -> StepTime:
    """The terms of the busiest chip of one pipeline stage, times pp (decode), and its time.

    Without a split (`Plan.split`) the model spreads evenly over the system's chips: one
    "chip" with the system's summed FLOP/s and bandwidth, no communication.

    With `whole_sequences`, a dp group holds a whole number of sequences: the busiest holds
    ceil(seqs / dp) (one request's prefill runs on one group however many there are). Averaged
    loads (continuous batching) pass fractions and `whole_sequences=False`; `whole_prefill`
    then gives the busiest group at least one whole prompt (a new request's first step).

    One stage pass carries `decode_seqs` sequences decoding one token each at `decode_context`
    and `prefill_seqs` prompts of `prefill_len` tokens after `cached_len` cached. `per_seq`:
    a decode sequence's attention FLOPs and KV elements read, given instead of its context
    (e.g. their means over the spread of contexts of a continuous batch; `Load`). `groups`:
    the decode sequences and prompts of the busiest data-parallel group, given (instead of
    shared by the rules above).
    """
    whole = whole_sequences and p.split
    dp = p.dp
    nd, npf = decode_seqs, prefill_seqs
    nd_g, npf_g = nd / dp, npf / dp
    if whole:
        nd_g, npf_g = xp.ceil(nd_g), xp.ceil(npf_g)
    elif whole_prefill:  # averaged load, but the busiest group holds one whole prompt at least
        npf_g = xp.where(npf_g > 0, xp.maximum(npf_g, 1.0), 0.0)
    if groups is not None:
        nd_g, npf_g = groups
    ld = Load(nd, decode_context, npf, prefill_len, cached_len, nd_g, npf_g, all_logits, per_seq)
    one, two, possible = pass_terms(xp, p, ld, whole=whole, share_kv=whole)
    seqs = nd + npf
    stages = p.par.pp if pipeline_fill else 1
    if in_flight is None:
        in_flight = seqs * stages
    if tokens_per_pass is None:
        tokens_per_pass = ld.tokens / xp.maximum(seqs, 1e-300)
    return schedule(
        xp,
        one,
        two,
        possible,
        p.mode,
        "none" if p.comm is None else p.comm.overlap,
        stages=stages,
        batch=in_flight,
        tokens_per_pass=tokens_per_pass,
        system=p.system,
        layers=float(p.spec.n_layers),
        ep=float(p.par.ep),
        kv_group=_kv_group(p),
    )


def _kv_group(p: Plan) -> float:
    """Query heads per KV head on one chip: H/tp query heads over the K/kv_shards KV heads it
    holds (GQA's H / K on one chip; fewer when tp splits past the KV heads, which each chip
    then holds one of), 1 for MHA and for MLA (whose heads share one latent)."""
    a = p.spec.attention
    if a.kind == "mla":
        return 1.0
    return max(1.0, a.n_heads * p.kv_shards / (max(a.n_kv_heads, 1) * p.par.tp))


# size: on the hot path, as run_pass: the terms, the split's counts and the modes as arguments;
# the choice between one and two micro-batches reads best as one function
def schedule(
    xp: Backend,
    one: Terms,
    two: Terms | None,
    possible: Any,
    mode: Overlap,
    comm_mode: CommOverlap,
    *,
    stages: int,
    batch: Num,
    tokens_per_pass: Num,
    system: System,
    layers: float = 0.0,
    ep: float = 1.0,
    kv_group: float = 1.0,
) -> StepTime:
    """Scale the terms by `stages`, pick the schedule element by element and build the
    StepTime on the broadcast grid: one micro-batch, or two where allowed and ("auto") faster."""
    shape: tuple[int, ...] = ()
    if not xp.scalar:
        sets = (one,) if two is None else (one, two)
        shape = xp.shape(batch, possible, *(t[k] for t in sets for k in TERMS))
    if stages != 1:
        one = {k: v * stages for k, v in one.items()}
        two = None if two is None else {k: v * stages for k, v in two.items()}
    t1, b1 = combine(
        xp, one["t_matmul"], one["t_attn"], one["t_weights"], one["t_kv"], one["t_comm"], mode
    )
    out = xp.out(shape)
    # read-only views on a grid: batch and tokens_per_pass may be the caller's own arrays
    B, tpp = out(batch), out(tokens_per_pass)

    def make(
        g: Terms, t: Num, b: Any, mb: Num, single: StepTime | None, double: StepTime | None = None
    ) -> StepTime:
        return new_step_time(
            {
                "t_matmul": out(g["t_matmul"]),
                "t_attn": out(g["t_attn"]),
                "t_weights": out(g["t_weights"]),
                "t_kv": out(g["t_kv"]),
                "t_comm": out(g["t_comm"]),
                "t_step": out(t),
                "bound": xp.out_bound(b, shape),
                "batch": B,
                "tokens_per_pass": tpp,
                "overlap": mode,
                "system": system,
                "comm_overlap": comm_mode,
                "micro_batches": out(mb),
                "t_comm_latency": out(g["t_comm_latency"]),
                "t_matmul_prefill": out(g["t_matmul_prefill"]),
                "t_attn_prefill": out(g["t_attn_prefill"]),
                "layers": layers,
                "ep": ep,
                "kv_group": kv_group,
                "single": single,
                "double": double,
            }
        )

    if two is None:
        return make(one, t1, b1, 1.0, None)
    t2, b2 = combine(
        xp,
        two["t_matmul"],
        two["t_attn"],
        two["t_weights"],
        two["t_kv"],
        two["t_comm"],
        mode,
        comm_hidden=True,
    )
    where = xp.where

    def pick(use: Any, single: StepTime | None, double: StepTime | None) -> StepTime:
        g = {k: where(use, two[k], one[k]) for k in TERMS}
        t, b, mb = where(use, t2, t1), where(use, b2, b1), where(use, 2.0, 1.0)
        return make(g, t, b, mb, single, double)

    double = pick(possible, None, None)  # two wherever possible: what a profile may keep
    use = possible if comm_mode == "two-batch" else possible & (t2 < t1)
    if not xp.any(use):
        return make(one, t1, b1, 1.0, None, double)
    return pick(use, make(one, t1, b1, 1.0, None), double)
