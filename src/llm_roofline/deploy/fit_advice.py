"""What does not fit in a chip's memory, and what would: one line every surface shows.

`fit_advice(dep, context_len, batch)` takes the memory model's own parts on the fullest chip
(weights, KV cache, activations: `memory.memory_use` through `Deployment.memory`) and, when they
exceed the chip, says which part overflows and computes, from the same memory model, the
nearest settings that fit:

- the weights alone exceed a chip: the fewest chips that hold this batch at this context, split
  by the deployment rule (`split.auto_split`) or, where the rule would add replicas (which do
  not spread a sequence's KV cache), as one instance over all the chips; and the weight type
  with the most bits per weight (the least precision lost) under which it fits on the split
  given;
- the weights fit but not with the KV cache (or the activations) of this batch at this
  context: the largest context that fits at this batch (memory never falls as the context
  grows, so a bisection finds it), the largest batch that fits at this context
  (`Deployment.max_batch`), the KV cache type with the most bits under which it fits (of the
  types serving engines keep a cache in, `KV_CACHE_DTYPES`), and the fewest chips as above.

No figure here is a formula of its own: each is a question put to the memory model.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_roofline._core.dtypes import get_dtype, list_dtypes
from llm_roofline._core.errors import LlmRooflineError
from llm_roofline._core.units import GB, GiB
from llm_roofline.engine.memory import held_bytes
from llm_roofline.engine.roofline import positive_array
from llm_roofline.serving.passes import PREFILL_CHUNK

__all__ = ["KV_CACHE_DTYPES", "FitAdvice", "fit_advice", "fit_message", "no_fit_reason"]

# Cache types serving engines keep a KV cache in, of the data types in data/dtypes.toml:
# - fp8: vLLM's kv_cache_dtype="fp8"
#   (https://docs.vllm.ai/en/latest/features/quantization/quantized_kvcache/);
# - int8, nvfp4: TensorRT-LLM's INT8 and NVFP4 KV caches
#   (https://nvidia.github.io/TensorRT-LLM/features/quantization.html);
# - q8_0, q4_0: llama.cpp's --cache-type-k/-v list `kv_cache_types`
#   (https://github.com/ggml-org/llama.cpp/blob/master/common/arg.cpp).
# GGUF K-quants and whole-file mixes (q6_k, q4_k_m, ...) are weight formats, never a cache.
KV_CACHE_DTYPES = ("fp8", "int8", "q8_0", "q4_0", "nvfp4")

MAX_CHIPS = 4096  # the chip search stops here at the latest (the API's largest deployment)
EVERY, COUNTS = 32, 96  # chip counts tried one by one from the least, and in all

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment


_UNSEARCHED = "predict this scenario alone to have them named"


@dataclass(frozen=True)
class FitAdvice:
    """Whether `batch` sequences at `context_len` fit on every chip, and what would.

    Bytes are per chip (the fullest chip of the busiest replica). `max_context` is None when
    the weights alone do not fit (no context would); `chips` and the two types are None when
    nothing of that kind fits (`chips_tried`: the most chips the search tried). When it fits,
    nothing is searched: the fields hold the request itself (its context, batch and chips).
    """

    batch: int
    context_len: int
    weights: float
    kv: float
    activations: float
    capacity: float
    max_context: int | None
    max_batch: int
    chips: int | None
    chips_split: str
    weight_dtype: str | None
    kv_dtype: str | None
    chips_tried: int = 0  # the most chips the search tried (0: it did not search)
    counts_tried: int = 0  # how many chip counts it tried (`_chip_counts`)
    searched: bool = True  # False: chips and data types were not searched (`advised` in bulk)

    @property
    def total(self) -> float:
        return self.weights + self.kv + self.activations

    @property
    def fits(self) -> bool:
        return self.total <= self.capacity

    @property
    def weights_alone(self) -> bool:
        """The weights by themselves exceed a chip's memory."""
        return self.weights > self.capacity

    @property
    def no_split(self) -> str:
        """What the chip search found when no split fitted."""
        if self.counts_tried:
            return f"no split of {self.counts_tried} chip counts up to {self.chips_tried:,}"
        return f"its bytes alone need more than {self.chips_tried:,} chips, the most searched"

    @property
    def message(self) -> str:
        """ "" when it fits; else one line: the parts against the capacity, the part that
        overflows, and the nearest settings that fit."""
        if self.fits:
            return ""
        return self._weights_line() if self.weights_alone else self._cache_line()

    @property
    def _parts(self) -> str:
        """The bytes per chip, part by part, against the capacity."""
        act = (
            f" + activations {self.activations / GB:,.1f} GB"
            if self.activations >= 0.05 * GB
            else ""
        )
        return (
            f"weights {self.weights / GB:,.1f} GB + KV cache {self.kv / GB:,.1f} GB{act} = "
            f"{self.total / GB:,.1f} GB per chip, {self.capacity / GB:,.1f} GB "
            f"({self.capacity / GiB:,.1f} GiB) per chip available"
        )

    @property
    def _here(self) -> str:
        return f"batch {self.batch:,} at context {self.context_len:,}"

    @property
    def _chips(self) -> str:
        return f"{self.chips} chips ({self.chips_split})" if self.chips else ""

    def _weights_line(self) -> str:
        """The weights alone exceed a chip: more chips or a smaller weight type."""
        if not self.searched:
            return (
                f"{self._parts}: the weights alone exceed a chip; try more chips or a smaller "
                f"--weight-dtype ({_UNSEARCHED})"
            )
        weight_type = f"--weight-dtype {self.weight_dtype}" if self.weight_dtype else ""
        tries = [t for t in (self._chips, weight_type) if t]
        fix = (
            f"try {' or '.join(tries)} (fits {self._here})"
            if tries
            else f"{self.no_split} and no smaller weight type fits {self._here}"
        )
        return f"{self._parts}: the weights alone exceed a chip; {fix}"

    def _cache_line(self) -> str:
        """The weights fit, the cache (or activations) does not: the largest context and
        batch that fit, and what to try."""
        B, S = self.batch, self.context_len
        part = "KV cache" if self.kv >= self.activations else "activations"
        longest = (
            f"the largest context that fits at batch {B:,} is {self.max_context:,}"
            if self.max_context
            else f"no context fits at batch {B:,}"
        )
        widest = (
            f"the largest batch at context {S:,} is {self.max_batch:,}"
            if self.max_batch
            else f"not one sequence fits at context {S:,}"
        )
        return (
            f"{self._parts}: the weights fit but not with the {part} of {self._here}; "
            f"{longest}, {widest}; try {self._cache_fix()}"
        )

    def _cache_fix(self) -> str:
        tries = [f"--kv-dtype {self.kv_dtype}"] if self.kv_dtype else []
        tries += ["a shorter context"] if self.max_context else []
        tries += ["a smaller batch"] if self.max_batch else []
        tries += [self._chips] if self._chips else []
        if not self.searched:
            tries += ["a smaller --kv-dtype", "more chips"]
        fix = (
            ", ".join(tries[:-1]) + (" or " if len(tries) > 1 else "") + tries[-1]
            if tries
            else "a smaller batch and a shorter context"
        )
        if not self.searched:
            fix += f" ({_UNSEARCHED})"
        elif not self.chips and self.chips_tried:
            fix += f" ({self.no_split})"
        return fix


def _chunk(dep: Deployment, batch: Any, prompt: Any) -> Any:
    """Tokens per sequence of the pass whose activations memory is sized by, as serving sizes
    it (`serving.PREFILL_CHUNK`): a prompt of `prompt` tokens prefilled in chunks over the
    busiest replica's sequences; 1 (a decode step) where there is no prompt."""
    per = np.ceil(np.asarray(batch, dtype=np.float64) / dep.replicas)
    return np.where(
        np.asarray(prompt) > 0, np.maximum(1.0, np.minimum(prompt, PREFILL_CHUNK / per)), 1.0
    )


def memory_at(dep: Deployment, batch: Any, context_len: Any, prompt: Any = 0) -> Any:
    return dep.memory(batch, context_len, tokens_per_seq=_chunk(dep, batch, prompt))


def _fits(dep: Deployment, batch: int, context_len: int, prompt: int = 0) -> bool:
    return bool(np.all(memory_at(dep, batch, context_len, prompt).fits))


def _largest_context(dep: Deployment, batch: int, below: int, prompt: int = 0) -> int:
    """The largest context under `below` at which `batch` sequences fit (0: none). Memory is
    non-decreasing in the context (a window or chunk only caps it), so a bisection finds it.
    (A shorter context than the prompt is counted with the prompt's chunk: on the safe side.)"""
    if below <= 1 or not _fits(dep, batch, 1, prompt):
        return 0
    lo, hi = 1, below - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _fits(dep, batch, mid, prompt) else (lo, mid - 1)
    return lo


def largest_batches(dep: Deployment, context_len: Any, prompt: Any) -> Any:
    """The largest batch that fits at each context (0: none), with each scenario's prompt
    prefilled in chunks: `Deployment.max_batch` bounds it (a decode step's activations are the
    least), and memory never falls as the batch grows (the chunk shrinks as sequences are
    added, but the tokens of a pass do not), so a bisection run on all at once finds it."""
    hi = np.atleast_1d(dep.max_batch(context_len)).astype(np.int64)
    P = np.broadcast_to(np.asarray(prompt), hi.shape)
    S = np.broadcast_to(np.asarray(context_len), hi.shape)
    if not np.any(P > 0):
        return hi
    lo = np.zeros_like(hi)
    while np.any(lo < hi):
        mid = (lo + hi + 1) // 2
        ok = memory_at(dep, np.maximum(mid, 1), S, P).fits
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid - 1)
    return lo


def _splits(dep: Deployment, n: int) -> list[Deployment]:
    """The deployment on n chips as the split rule chooses, then as one instance over all n
    (the rule adds replicas once the weights fit, which does not spread a sequence's KV)."""
    out = []
    for replicas in (None, 1):
        try:
            out.append(dep.on(dep.chip, n, replicas=replicas))
        except LlmRooflineError:  # no split of n chips divides the model
            continue
    return out


def _chip_counts(start: int, last: int) -> list[int]:
    """The chip counts the search tries: every count of the first `EVERY` from `start`, then
    multiples of 8 (a server's GPUs) up to `last`, `COUNTS` at most (each costs the split rule
    a few milliseconds)."""
    first = list(range(start, min(start + EVERY, last + 1)))
    eights = range(-(-(start + EVERY) // 8) * 8, last + 1, 8)
    return (first + list(eights))[:COUNTS]


def _fewest_chips(
    dep: Deployment, batch: int, context_len: int, prompt: int = 0
) -> tuple[int | None, str, int, int]:
    """The fewest chips (the deployment's own count included: another split of them may do)
    whose split (`_splits`) holds `batch` sequences at `context_len`, that split, the most
    chips tried and how many counts were tried (`_chip_counts`). The search starts from the
    count whose memory could hold every byte (the weights once, every sequence's KV cache: no
    split holds them on fewer chips) and stops at twice that (or 16 more)."""
    spec, chip = dep.model, dep.chip
    w_bytes, kv_bytes = get_dtype(dep.weight_dtype).bytes, get_dtype(dep.kv_dtype).bytes
    weights, kv = held_bytes(spec, w_bytes, kv_bytes, context_len, seqs=batch)  # on one chip
    whole = weights + float(kv)
    start = max(dep.chips, math.ceil(whole / chip.memory_bytes))
    if start > MAX_CHIPS:  # its bytes alone need more chips than the search goes to
        return None, "", MAX_CHIPS, 0
    counts = _chip_counts(start, min(MAX_CHIPS, max(2 * start, start + 16)))
    for n in counts:
        for d in _splits(dep, n):
            if _fits(d, batch, context_len, prompt):
                return n, dataclasses.replace(d, split_rule="given").split_text(), n, len(counts)
    return None, "", counts[-1], len(counts)


def _smaller_type(
    now: str,
    names: list[str],
    using: Callable[[str], Deployment],
    batch: int,
    S: int,
    prompt: int = 0,
) -> str | None:
    """Of the types `names` with fewer bits than `now`, the one with the most bits (ties:
    catalog order) under which `batch` sequences at `S` fit on the deployment `using(type)`
    gives (the same split)."""
    smaller = [get_dtype(n) for n in names if get_dtype(n).bits < get_dtype(now).bits]
    for dt in sorted(smaller, key=lambda t: -t.bits):  # sorted() keeps catalog order on ties
        if _fits(using(dt.name), batch, S, prompt):
            return dt.name
    return None


def fit_advice(
    dep: Deployment, context_len: int, batch: int = 1, *, prompt_len: int = 0
) -> FitAdvice:
    """Whether `batch` sequences (all replicas) at `context_len` fit, and, when they do not,
    the part that overflows and the nearest settings that fit (module docstring). With
    `prompt_len`, memory counts the activations of that prompt's prefill in chunks, as
    serving's check does (`serving.PREFILL_CHUNK`); without, those of a decode step."""
    S = int(positive_array(context_len, "context_len"))
    B = int(positive_array(batch, "batch"))
    P = int(prompt_len)
    mem = memory_at(dep, B, S, P)
    w, kv, act = (float(np.max(x)) for x in (mem.weights, mem.kv, mem.activations))
    advice = FitAdvice(B, S, w, kv, act, float(mem.capacity), S, B, dep.chips, "", None, None)
    if advice.fits:
        return advice
    chips, split, tried, counts = _fewest_chips(dep, B, S, P)
    advice = dataclasses.replace(
        advice, chips=chips, chips_split=split, chips_tried=tried, counts_tried=counts
    )
    if advice.weights_alone:
        return dataclasses.replace(
            advice,
            max_context=None,
            max_batch=0,
            weight_dtype=_smaller_type(
                dep.weight_dtype,
                [t.name for t in list_dtypes()],
                lambda t: dataclasses.replace(dep, weight_dtype=t),
                B,
                S,
                P,
            ),
        )
    return dataclasses.replace(
        advice,
        max_context=_largest_context(dep, B, S, P),
        max_batch=int(largest_batches(dep, S, P)[0]),
        kv_dtype=_smaller_type(
            dep.kv_dtype,
            list(KV_CACHE_DTYPES),
            lambda t: dataclasses.replace(dep, kv_dtype=t),
            B,
            S,
            P,
        ),
    )


def fit_message(dep: Deployment, context_len: int, batch: int = 1, *, prompt_len: int = 0) -> str:
    """`fit_advice(...).message`: "" when it fits, else the one line."""
    return fit_advice(dep, context_len, batch, prompt_len=prompt_len).message


def no_fit_reason(line: str, context_len: int, largest: int) -> str:
    """The reason a caller that already knows `batch` does not fit prints: `fit_message`'s
    line, or, should it be empty (the memory model's two checks disagreeing: never expected,
    since `memory_use` counts whole sequences per data-parallel group as `max_batch` does),
    a line from the largest batch itself, so that no message ends on an empty reason."""
    if line:
        return line
    if largest < 1:
        return f"not one sequence fits at context {context_len:,} (the largest batch is 0)"
    return f"the largest batch that fits at context {context_len:,} is {largest:,}"
