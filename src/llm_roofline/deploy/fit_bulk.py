"""The fit advice of `fit_advice.py` for serving scenarios, many at a time: the line a
"does not fit" warning of `predict`, a scenario CSV and /api/predict gives.

`bulk_advice` answers many (batch, context, prompt) scenarios with a few memory calls on arrays
(the parts, the part that overflows, the largest context and the largest batch: bisections run
on every scenario together), leaving the searches over chips and data types, milliseconds a
scenario, to `fit_advice`; `advised` puts the line in a serving result's warnings.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline.deploy.fit_advice import FitAdvice, fit_message, largest_batches, memory_at
from llm_roofline.engine.roofline import positive_array
from llm_roofline.serving.passes import NO_FIT
from llm_roofline.serving.results import ServingColumns, ServingResult

__all__ = ["advised", "bulk_advice"]

Result = TypeVar("Result", ServingResult, ServingColumns)

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment


def _largest_contexts(
    dep: Deployment, batch: np.ndarray, below: np.ndarray, prompt: Any = 0
) -> np.ndarray:
    """`_largest_context` for many (batch, context) pairs at once: one memory call a round of a
    bisection run on every pair together."""
    lo = np.where(memory_at(dep, batch, 1, prompt).fits & (below > 1), 1, 0).astype(np.int64)
    hi = np.where(lo > 0, below - 1, 0).astype(np.int64)
    while np.any(lo < hi):
        mid = (lo + hi + 1) // 2
        ok = memory_at(dep, batch, np.maximum(mid, 1), prompt).fits
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid - 1)
    return lo


def bulk_advice(
    dep: Deployment, batch: ArrayLike, context_len: ArrayLike, prompt_len: ArrayLike = 0
) -> list[FitAdvice]:
    """`fit_advice` for many scenarios at once, without the searches over chips and data types
    (those take milliseconds a scenario; the message says how to have them named): the parts,
    the part that overflows, the largest context at each batch and the largest batch at each
    context, from a few memory calls on arrays."""
    B = np.atleast_1d(positive_array(batch, "batch")).astype(np.int64)
    S = np.atleast_1d(positive_array(context_len, "context_len")).astype(np.int64)
    B, S, P = np.broadcast_arrays(B, S, np.asarray(prompt_len, dtype=np.int64))
    mem = memory_at(dep, B, S, P)
    parts = [np.broadcast_to(x, B.shape) for x in (mem.weights, mem.kv, mem.activations)]
    weights_alone = parts[0] > mem.capacity
    longest = _largest_contexts(dep, B, np.where(weights_alone, 0, S), P)
    widest = largest_batches(dep, S, P)
    return [
        FitAdvice(
            int(B[i]),
            int(S[i]),
            float(parts[0][i]),
            float(parts[1][i]),
            float(parts[2][i]),
            float(mem.capacity),
            None if weights_alone[i] else int(longest[i]),
            0 if weights_alone[i] else int(widest[i]),
            None,
            "",
            None,
            None,
            searched=False,
        )
        for i in range(B.size)
    ]


def _with_line(warnings: tuple[str, ...], line: str) -> tuple[str, ...]:
    return tuple(NO_FIT + line if line and w.startswith(NO_FIT) else w for w in warnings)


def advised(
    dep: Deployment,
    res: Result,
    batch: Any,
    input_len: Any,
    output_len: Any,
    mode: str,
    *,
    search: bool = False,
) -> Result:
    """Serving figures whose "does not fit" warnings say what overflows and what would fit,
    in place of the engine's bytes-only line: at the batch, the longest context each scenario
    reaches (input + output) and with its prompt's prefill chunk, as the engine checked them.
    `bulk_advice`'s line, the same for a scenario alone or among many; with `search` (one
    scenario: milliseconds), `fit_message`'s, which also names the chips and the data types
    that would fit. Continuous batching is checked on the mean cache of sequences spread over
    their contexts, which this advice does not model: its line stays the engine's."""
    if mode == "continuous":
        return res
    if isinstance(res, ServingResult):
        if not any(w.startswith(NO_FIT) for w in res.warnings):
            return res
        B, S, P = int(batch), int(input_len) + int(output_len), int(input_len)
        line = (
            fit_message(dep, S, B, prompt_len=P) if search else bulk_advice(dep, B, S, P)[0].message
        )
        return dataclasses.replace(res, warnings=_with_line(res.warnings, line))
    rows = [i for i, w in enumerate(res.warnings) if any(x.startswith(NO_FIT) for x in w)]
    if not rows:
        return res
    n = len(res.warnings)
    B, I, O = (
        np.broadcast_to(np.asarray(x, dtype=np.int64), (n,))[rows]
        for x in (batch, input_len, output_len)
    )
    warnings = list(res.warnings)
    for i, advice in zip(rows, bulk_advice(dep, B, I + O, I), strict=True):
        warnings[i] = _with_line(warnings[i], advice.message)
    return dataclasses.replace(res, warnings=tuple(warnings))
