"""Request lengths (`lengths`): the distributions a workload's prompts and outputs are drawn
from (`workload.py`'s docstring says which), their sources, and the checks every workload
setting goes through (`need`, `real_number`, `count`, `choice`: one clear InputError)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.errors import InputError

__all__ = [
    "LARGEST",
    "LENGTH_DISTS",
    "SHAREGPT_CV",
    "SHAREGPT_FILTER",
    "SHAREGPT_STATS",
    "choice",
    "count",
    "lengths",
    "need",
    "real_number",
    "sharegpt_pairs",
]

LARGEST = 2**53  # the largest length kept exactly as a float: the clip when max_len is None
LENGTH_DISTS = ("fixed", "normal", "lognormal", "sharegpt-like", "random", "sharegpt")
# vllm bench serve's --random-range-ratio (default 0: every length the mean). Source: vLLM,
# "vllm bench serve" (https://docs.vllm.ai/en/latest/cli/bench/serve/) and
# vllm.benchmarks.datasets.utils.get_sampling_params ("lengths are drawn uniformly from
# integer ranges around the configured means", https://docs.vllm.ai/en/stable/api/vllm/
# benchmarks/datasets/utils/).
# ShareGPT as vLLM's benchmark samples it (sample_sharegpt_requests in vLLM's
# benchmarks/benchmark_serving.py, is_valid_sequence in vllm/benchmarks/datasets): pairs with
# a prompt or output under 4 tokens are dropped ("too short"), and those with a prompt over
# 1,024 tokens or prompt + output over 2,048 ("too long").
SHAREGPT_FILTER = {"min_len": 4, "max_prompt": 1024, "max_total": 2048}

# Mean and standard deviation, in tokens (Llama-2 tokenizer), of one ShareGPT turn: the user's
# message (our input) and ChatGPT's answer (our output), over 94,145 conversations (3.51 turns
# each). Source: Zhao et al., "WildChat: 1M ChatGPT Interaction Logs in the Wild", ICLR 2024,
# https://arxiv.org/abs/2405.01470, Table 1 (row ShareGPT, columns #User Tok and #Chatbot Tok;
# read from a transcription of the table, not from the PDF itself).
# The vLLM paper (Kwon et al., SOSP 2023, https://arxiv.org/abs/2309.06180, Fig. 11) gives
# other means (input 161.31, output 337.99 tokens) and only says the spread is large.
# Only the coefficient of variation (sd / mean) is used; the mean is the caller's. Prompts are
# very spread (sd 6.6 times the mean: many short, a few very long): a lognormal with that CV has
# its median at mean / 6.7, and clipping it to a context window removes much of its mean.
SHAREGPT_STATS = {"input_len": (94.46, 626.39), "output_len": (348.45, 269.93)}
SHAREGPT_CV = {k: sd / mean for k, (mean, sd) in SHAREGPT_STATS.items()}


def need(ok: object, field: str, message: str) -> None:
    if not ok:
        raise InputError(message, field=field)


def real_number(value: object, field: str, what: str, *, low: float, strict: bool = True) -> float:
    """`value` as a finite float above `low` (or at least `low`), else one clear InputError."""
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    try:
        x = float(value) if ok else math.nan  # type: ignore[arg-type]
    except OverflowError:  # an int beyond any float
        x = math.inf
    msg = f"{field} must be {what}, got {value!r}"
    need(math.isfinite(x) and (x > low if strict else x >= low), field, msg)
    return x


def count(value: object, field: str, low: int = 1) -> int:
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= low
    need(ok, field, f"{field} must be an integer >= {low}, got {value!r}")
    return int(value)  # type: ignore[call-overload,no-any-return]


def choice(value: object, allowed: tuple[str, ...], field: str) -> str:
    need(value in allowed, field, f"{field} must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


# size: the draw's settings, each by keyword, as `make_workload` passes them
def lengths(
    n: int,
    mean: float,
    *,
    dist: str = "fixed",
    spread: float | None = None,
    max_len: int | None = None,
    rng: np.random.Generator,
    field: str = "input_len",
    range_ratio: float | None = None,
) -> NDArray[np.int64]:
    """`n` token counts of mean `mean`, rounded and clipped to [1, max_len] (module docstring:
    all but fixed and normal lengths are scaled to `mean` over the draws).

    `spread` is the standard deviation in tokens (normal: default mean/4; lognormal: default
    mean). `range_ratio`: random's r (default 0). `field` ("input_len" or "output_len") names
    the lengths in errors and picks the ShareGPT spread. For "sharegpt" (drawn in pairs, see
    `sharegpt_pairs`) this draws one side unfiltered."""
    n = count(n, "requests")
    mean = real_number(mean, field, "a number of tokens >= 1", low=1.0, strict=False)
    dist = choice(dist, LENGTH_DISTS, "length_dist")
    sfield = field.removesuffix("_len") + "_spread"
    sd = (
        None
        if spread is None
        else real_number(spread, sfield, "tokens >= 0", low=0.0, strict=False)
    )
    r = _ratio(range_ratio, dist)
    top = LARGEST if max_len is None else count(max_len, "max_len")
    need(mean <= top, field, f"{field} mean {mean:g} exceeds the longest allowed, {top}")
    need(dist != "fixed" or not sd, sfield, f"{sfield} must be 0 or unset with fixed lengths")
    if dist in ("sharegpt-like", "sharegpt"):
        need(sd is None, sfield, f"{sfield} cannot be set with {dist} lengths")
        need(field in SHAREGPT_CV, "length_dist", f"{dist} is for input_len, output_len")
        sd = SHAREGPT_CV[field] * mean
    need(dist != "random" or sd is None, sfield, f"{sfield} cannot be set with random lengths")
    low = 1
    if dist == "fixed":
        return np.full(n, min(max(round(mean), 1), top), dtype=np.int64)
    if dist == "normal":
        x = rng.normal(mean, mean / 4 if sd is None else sd, n)
        return np.clip(np.rint(x), 1, top).astype(np.int64)
    if dist == "random":  # stratified: one draw in each n-th of [low, high + 1)
        low, high = max(1, math.floor(mean * (1 - r))), min(top, max(1, math.ceil(mean * (1 + r))))
        u = (rng.permutation(n) + rng.random(n)) / n
        x = np.floor(low + u * (high - low + 1))
        top = high
    else:  # lognormal with arithmetic mean `mean` and standard deviation `sd`
        sigma2 = math.log1p(((mean if sd is None else sd) / mean) ** 2)
        x = rng.lognormal(math.log(mean) - sigma2 / 2, math.sqrt(sigma2), n)
    return _match_mean(x, mean, low, np.full(n, top, dtype=np.float64))


def _ratio(value: float | None, dist: str) -> float:
    """random's range ratio, in [0, 1] (0 when unset); refused with any other distribution."""
    if value is None:
        return 0.0
    need(dist == "random", "range_ratio", "range_ratio is for random lengths (length_dist)")
    r = real_number(value, "range_ratio", "a number in [0, 1]", low=0.0, strict=False)
    need(r <= 1, "range_ratio", f"range_ratio must be a number in [0, 1], got {value!r}")
    return r


def _match_mean(
    x: NDArray[np.float64], mean: float, low: int, high: NDArray[np.float64]
) -> NDArray[np.int64]:
    """`x` scaled by the factor s whose rounded lengths, clipped to [low, high] (one bound a
    draw), average `mean` (bisection on s: the mean grows with it); the closest there is
    when the bounds leave `mean` out of reach."""
    x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)

    def at(s: float) -> NDArray[np.float64]:
        return np.clip(np.rint(s * x), low, high)

    lo_s, hi_s = 0.0, 1.0
    for _ in range(64):  # a factor above the one wanted
        if float(np.mean(at(hi_s))) >= mean:
            break
        lo_s, hi_s = hi_s, hi_s * 2
    for _ in range(60):
        mid = (lo_s + hi_s) / 2
        got = float(np.mean(at(mid)))
        if abs(got - mean) <= 1e-4 * mean:
            return at(mid).astype(np.int64)
        lo_s, hi_s = (mid, hi_s) if got < mean else (lo_s, mid)
    best = min((lo_s, hi_s), key=lambda s: abs(float(np.mean(at(s))) - mean))
    return at(best).astype(np.int64)


def sharegpt_pairs(
    n: int,
    sides: tuple[tuple[str, float, float | None], ...],
    top: int | None,
    rng: np.random.Generator,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """`n` (prompt, output) pairs as `vllm bench serve` samples ShareGPT (`SHAREGPT_FILTER`,
    within a context of `top` + 1 tokens): sharegpt-like pairs, those the filter drops drawn
    again, then each side scaled to its mean within the filter's bounds. `sides`: (field,
    mean, spread) of the input and of the output (a spread is refused: ShareGPT's is used)."""
    for field, _, spread in sides:
        sfield = field.removesuffix("_len") + "_spread"
        need(spread is None, sfield, f"{sfield} cannot be set with sharegpt lengths")
    mi, mo = (
        real_number(m, f, "a number of tokens >= 1", low=1.0, strict=False) for f, m, _ in sides
    )
    f = SHAREGPT_FILTER
    total = f["max_total"] if top is None else min(f["max_total"], top + 1)
    prompt_top = min(f["max_prompt"], total - f["min_len"])
    need(
        f["min_len"] <= mi <= prompt_top,
        "input_len",
        f"sharegpt prompts are {f['min_len']} to {prompt_top} tokens (vllm bench serve's "
        f"filter): input_len mean {mi:g} is out of reach",
    )
    need(
        f["min_len"] <= mo <= total - mi,
        "output_len",
        f"sharegpt requests are at most {total} tokens (vllm bench serve's filter): "
        f"output_len mean {mo:g} with input_len mean {mi:g} is out of reach",
    )
    kept_i: list[NDArray[np.float64]] = []
    kept_o: list[NDArray[np.float64]] = []
    have = 0
    for _ in range(100):
        m = 2 * (n - have) + 16
        i = np.rint(_lognormal(m, mi, SHAREGPT_CV["input_len"], rng))
        o = np.rint(_lognormal(m, mo, SHAREGPT_CV["output_len"], rng))
        ok = (np.minimum(i, o) >= f["min_len"]) & (i <= prompt_top) & (i + o <= total)
        kept_i.append(i[ok])
        kept_o.append(o[ok])
        have += int(ok.sum())
        if have >= n:
            break
    i = np.concatenate(kept_i)[:n]
    o = np.concatenate(kept_o)[:n]
    if i.size < n:  # a filter that keeps almost nothing: the rest clipped into it
        i = np.concatenate([i, np.full(n - i.size, mi)])
        o = np.concatenate([o, np.full(n - o.size, mo)])
    inp = _match_mean(i, mi, f["min_len"], np.full(n, prompt_top, dtype=np.float64))
    out = _match_mean(o, mo, f["min_len"], (total - inp).astype(np.float64))
    return inp, out


def _lognormal(n: int, mean: float, cv: float, rng: np.random.Generator) -> NDArray[np.float64]:
    """`n` lognormal draws of arithmetic mean `mean` and coefficient of variation `cv`."""
    sigma2 = math.log1p(cv * cv)
    return rng.lognormal(math.log(mean) - sigma2 / 2, math.sqrt(sigma2), n)
