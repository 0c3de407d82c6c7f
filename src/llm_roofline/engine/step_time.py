"""StepTime, the result of every pass, and how its terms combine into a time.

    overlap "full"   : max(t_matmul + t_attn, t_weights + t_kv) [+ t_comm]   (the lecture's)
    overlap "per-op" : max(t_matmul, t_weights) + max(t_attn, t_kv) [+ t_comm]
    overlap "none"   : t_matmul + t_attn + t_weights + t_kv [+ t_comm]

"full" is the default because it is the lowest of the three: the `ideal` engine is a lower
bound, and any real schedule is at least as slow. Communication is added with one
micro-batch, or hidden with two (`max(work, t_comm)`): `combine` takes the choice element by
element, `schedule.py` makes it. Also here: the checks of the per-point inputs (batch,
context, ...), shared by every entry point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY, Backend, Num
from llm_roofline._core.errors import InputError
from llm_roofline.engine.options import OVERLAP_MODES, Overlap
from llm_roofline.engine.parallel import CommOverlap
from llm_roofline.hardware.chip import System

__all__ = [
    "BOUND_NAMES",
    "MAX_SIZE",
    "OVERLAP_MODES",
    "Overlap",
    "StepTime",
    "bound_index",
    "check_overlap",
    "combine",
    "new_step_time",
    "nonneg_array",
    "positive_array",
]

MAX_SIZE = 1e12  # no batch, context or token count of a real deployment comes near this
BOUND_NAMES = ("compute", "memory", "communication")


def positive_array(value: ArrayLike, name: str) -> FloatArray:
    """`value` as a float array, every element finite and > 0, else an InputError naming it."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a positive number, got {value!r}", field=name) from None
    if a.size == 0:
        raise InputError(f"{name} is empty", field=name)
    if not (np.all(np.isfinite(a)) and np.all(a > 0)):
        bad = float(a[~(np.isfinite(a) & (a > 0))].flat[0])  # a plain float: 0.0, not np.float64
        raise InputError(f"{name} must be positive and finite, got {bad!r}", field=name)
    if np.any(a > MAX_SIZE):
        raise InputError(
            f"{name} must be at most {MAX_SIZE:.0e}, got {float(a.max()):.3g}", field=name
        )
    return a


def nonneg_array(value: ArrayLike, name: str) -> FloatArray:
    """`value` as a float array, every element finite and >= 0, else an InputError naming it."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be zero or positive, got {value!r}", field=name) from None
    if a.size == 0 or not (np.all(np.isfinite(a)) and np.all(a >= 0)):
        raise InputError(f"{name} must be zero or positive and finite, got {value!r}", field=name)
    return a


def grid(*arrays: FloatArray, names: tuple[str, ...]) -> tuple[int, ...]:
    """The broadcast shape of the inputs, or an InputError naming them."""
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrays, strict=True))
        raise InputError(f"shapes do not broadcast: {shapes}", field=names[0]) from None


def check_overlap(mode: str) -> Overlap:
    """`mode` if it is one of OVERLAP_MODES, else an InputError."""
    if mode not in OVERLAP_MODES:
        raise InputError(
            f"overlap must be one of {', '.join(OVERLAP_MODES)}, got {mode!r}", field="overlap"
        )
    return mode


def _zero() -> FloatArray:
    return np.zeros(())


def _one() -> FloatArray:
    return np.ones(())


@dataclass(frozen=True)
class StepTime:
    """The terms of one pass (a decode step or a prefill) and its time, in seconds.

    Arrays share the broadcast shape of the inputs. `bound` holds indices into BOUND_NAMES.

    The terms are those of the schedule the pass runs (`micro_batches`: 1, or 2 where two
    micro-batches hide the communication; then `t_weights` counts both weight reads and
    `t_comm` both micro-batches' collectives). `single` holds the one-micro-batch terms when
    any element chose two (a calibrated profile, which keeps communication on the critical
    path, recombines those). `t_comm_latency` is the latency part of `t_comm`;
    `t_matmul_prefill` and `t_attn_prefill` the part of `t_matmul` and `t_attn` spent on
    prompt tokens (a mixed step's prefill share; all of a prefill's); `layers` the model's
    layers one pass runs through (a calibrated engine pays a fixed time on each). `double`
    holds the two-micro-batch terms at every element where two are possible, whichever the
    ideal chose (`micro_batches` 2 there, the one-micro-batch terms elsewhere; None where
    communication is not costed): a calibrated engine can keep whichever schedule is faster
    under its own efficiencies, so its time does not jump where the ideal's choice flips.
    """

    t_matmul: FloatArray
    t_attn: FloatArray
    t_weights: FloatArray
    t_kv: FloatArray
    t_comm: FloatArray
    t_step: FloatArray
    bound: NDArray[np.int8]
    batch: FloatArray
    tokens_per_pass: FloatArray  # per sequence: 1 in decode, T in prefill
    overlap: Overlap
    system: System
    comm_overlap: CommOverlap = "none"
    micro_batches: FloatArray = field(default_factory=_one)
    t_comm_latency: FloatArray = field(default_factory=_zero)
    t_matmul_prefill: FloatArray = field(default_factory=_zero)
    t_attn_prefill: FloatArray = field(default_factory=_zero)
    layers: float = 0.0  # the model's layers a pass runs through (pp stages in turn)
    ep: float = 1.0  # the split's expert parallelism (a calibrated engine overlaps its all-to-alls)
    kv_group: float = 1.0  # query heads per KV head (GQA's H / K; 1 for MHA and MLA)
    single: StepTime | None = None
    double: StepTime | None = None

    @property
    def t_compute(self) -> FloatArray:
        return self.t_matmul + self.t_attn

    @property
    def t_memory(self) -> FloatArray:
        return self.t_weights + self.t_kv

    @property
    def bound_names(self) -> NDArray[np.str_]:
        return np.asarray(BOUND_NAMES)[self.bound]

    @property
    def tokens(self) -> FloatArray:
        """Tokens produced (decode) or processed (prefill) by the pass, all sequences."""
        return self.batch * self.tokens_per_pass

    @property
    def tokens_per_s(self) -> FloatArray:
        return self.tokens / self.t_step

    @property
    def one_batch(self) -> StepTime:
        """The pass with one micro-batch (communication on the critical path)."""
        return self if self.single is None else self.single


def new_step_time(values: dict[str, Any]) -> StepTime:
    """A StepTime of `values` (every field, by name), built without the frozen dataclass's
    per-field `object.__setattr__`: the same object `StepTime(**values)` gives, for a fraction
    of its cost (it dominates a single-point call otherwise)."""
    step = object.__new__(StepTime)
    step.__dict__.update(values)
    return step


def combine(
    xp: Backend,
    t_matmul: Num,
    t_attn: Num,
    t_weights: Num,
    t_kv: Num,
    t_comm: Num,
    overlap: str,
    comm_hidden: object = False,
) -> tuple[Num, Any]:
    """The pass time under `overlap`, with communication added, or hidden (max) where
    `comm_hidden` (two micro-batches); and the bound (0, 1, 2: an index into BOUND_NAMES)."""
    t_compute = t_matmul + t_attn
    t_memory = t_weights + t_kv
    if overlap == "full":
        t = xp.maximum(t_compute, t_memory)
    elif overlap == "per-op":
        t = xp.maximum(t_matmul, t_weights) + xp.maximum(t_attn, t_kv)
    else:
        t = t_compute + t_memory
    t = xp.where(comm_hidden, xp.maximum(t, t_comm), t + t_comm)
    if not xp.all_finite(t):
        raise InputError(
            "the inputs are too large: a step time overflows (batch or context beyond any "
            "real deployment)",
            field="batch",
        )
    return t, bound_index(xp, t_compute, t_memory, t_comm)


def bound_index(xp: Backend, t_compute: Num, t_memory: Num, t_comm: Num) -> Any:
    """Which term bounds a step, as an index into BOUND_NAMES: compute when it is at least
    the memory term, else memory; communication only when it exceeds both."""
    bound = xp.where(t_compute >= t_memory, 0, 1)
    return xp.where((t_comm > t_compute) & (t_comm > t_memory), 2, bound)


def combine_terms(
    t_matmul: FloatArray,
    t_attn: FloatArray,
    t_weights: FloatArray,
    t_kv: FloatArray,
    t_comm: FloatArray,
    overlap: str,
    comm_hidden: ArrayLike = False,
) -> tuple[FloatArray, NDArray[np.int8]]:
    """`combine` on arrays (what a calibrated profile recombines)."""
    t, bound = combine(ARRAY, t_matmul, t_attn, t_weights, t_kv, t_comm, overlap, comm_hidden)
    return np.asarray(t, dtype=np.float64), np.asarray(bound, dtype=np.int8)
