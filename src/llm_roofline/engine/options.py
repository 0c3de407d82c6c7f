"""The choices every pass takes beside the model, the chips and its own sizes (data types, the
overlap of its terms, the split and the collectives' model), declared once as a TypedDict:
the engine's entry points and the serving modes take them as `**options` (PEP 692), so a new
choice is one line here, and a misspelt one is refused at run time (TypeError) as Python
refuses an unknown keyword argument."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, TypedDict

if TYPE_CHECKING:
    from llm_roofline.engine.parallel import CommModel, Parallelism

__all__ = [
    "OVERLAP_MODES",
    "PASS_OPTIONS",
    "MemoryOptions",
    "Overlap",
    "PassOptions",
    "check_options",
    "memory_options",
]

# How a pass's terms combine (`step_time.combine`): the lecture's max of compute and memory
# ("full"), per operation ("per-op"), or their sum ("none"). Here, with no numpy, so that the
# command line can offer them without loading the engine.
Overlap = Literal["full", "per-op", "none"]
OVERLAP_MODES: tuple[Overlap, ...] = ("full", "per-op", "none")


class PassOptions(TypedDict, total=False):
    """Keywords of decode_step, prefill, mixed_step and the serving modes (all optional)."""

    weight_dtype: str  # the weights' stored type (default bf16)
    kv_dtype: str  # the KV cache's type (default bf16)
    compute_dtype: str | None  # the matmuls' type; None: the chip's for the weights' type
    overlap: str  # how a pass's terms combine: "full" (the lecture's max), "none" (a sum), ...
    parallel: Parallelism | None  # tp, pp, ep over the chips; None: an even spread, no comm
    comm: CommModel | None  # the collectives' latency and overlap; None: the default model


PASS_OPTIONS = frozenset(PassOptions.__annotations__)


class MemoryOptions(TypedDict, total=False):
    """The pass options memory depends on (`memory.memory_use`, `memory.max_batch`)."""

    weight_dtype: str
    kv_dtype: str
    parallel: Parallelism | None


def memory_options(options: PassOptions) -> MemoryOptions:
    """The options of a pass that memory depends on: the data types and the split."""
    out: MemoryOptions = {}
    if "weight_dtype" in options:
        out["weight_dtype"] = options["weight_dtype"]
    if "kv_dtype" in options:
        out["kv_dtype"] = options["kv_dtype"]
    if "parallel" in options:
        out["parallel"] = options["parallel"]
    return out


def check_options(options: Mapping[str, object], where: str) -> None:
    """Refuse a keyword that is not a pass option (as Python refuses an unknown keyword)."""
    if options.keys() <= PASS_OPTIONS:
        return
    odd = sorted(set(options) - PASS_OPTIONS)
    raise TypeError(
        f"{where}() got an unexpected keyword argument {odd[0]!r} "
        f"(its options are {', '.join(sorted(PASS_OPTIONS))})"
    )
