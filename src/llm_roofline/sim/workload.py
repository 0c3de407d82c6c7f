"""The traffic a serving simulator serves: how many requests, how long each is, when each arrives.

A workload is one list of requests. Each request has an input (prompt) length and an output
(generated) length in tokens, both at least 1. Requests reach the server in one of two ways:

* open loop: they arrive at times of their own, whatever the server does. The gaps between
  arrivals are random with mean 1/rate. "poisson" draws exponential gaps (independent arrivals);
  "gamma" draws gamma gaps with the same mean whose squared coefficient of variation is
  `burstiness`: 1 is Poisson, above 1 arrivals bunch into bursts, below 1 they come more evenly.
* closed loop: `concurrency` clients each send a request, wait for its answer, and send the next;
  there are no arrival times, the server's speed sets the pace.

Lengths are "fixed" (every request the same), "normal", "lognormal" (a long right tail, as real
prompts and answers have), "sharegpt-like" (lognormal with the spread measured on ShareGPT
conversations, scaled to the mean asked for), or one of the benchmark tools' datasets:
"random" (`vllm bench serve --dataset-name random`: whole numbers uniform in
[mean·(1 − r), mean·(1 + r)], r the range ratio, `--random-range-ratio`) and "sharegpt"
(ShareGPT as `vllm bench serve` samples it: its lengths, with a pair dropped when its prompt or
output is under 4 tokens, its prompt over 1,024 or prompt + output over 2,048; the
sharegpt-like spreads stand for the dataset's own lengths). Draws are rounded to whole tokens
and clipped to [1, max_len]; with a model's context window every request also fits it (input +
output <= it). Except for "fixed" and "normal", the drawn lengths are then scaled together
(rounded and clipped again) so that their own mean is the one asked for, within a token: a
long tail drawn a few hundred times otherwise averages well below its mean (sharegpt-like
prompts, 200 to 400 draws: 26–36% below), and a benchmark's prompts are the ones it sent.
Everything random comes from one `numpy.random.default_rng(seed)`, so a seed gives the same
workload every time. `read_trace` reads a recorded workload from a CSV file instead.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.errors import InputError
from llm_roofline.sim.lengths import (
    LARGEST,
    LENGTH_DISTS,
    SHAREGPT_CV,
    SHAREGPT_FILTER,
    SHAREGPT_STATS,
    lengths,
    sharegpt_pairs,
)
from llm_roofline.sim.lengths import choice as _choice
from llm_roofline.sim.lengths import count as _count
from llm_roofline.sim.lengths import need as _need
from llm_roofline.sim.lengths import real_number as _real

__all__ = [
    "ARRIVALS",
    "LENGTH_DISTS",
    "SHAREGPT_CV",
    "SHAREGPT_FILTER",
    "SHAREGPT_STATS",
    "Workload",
    "arrivals",
    "lengths",
    "make_workload",
    "read_trace",
]

ARRIVALS = ("poisson", "gamma")
_T = TypeVar("_T", bound=np.generic)


@dataclass(frozen=True, eq=False)
class Workload:
    """The requests to serve: their lengths and either arrival times or a client count.

    The arrays are stored read-only; lengths must be integers >= 1, one pair per request."""

    input_len: NDArray[np.int64]
    output_len: NDArray[np.int64]
    arrival_s: NDArray[np.float64] | None
    concurrency: int | None
    description: str

    def __post_init__(self) -> None:
        inp, out = np.asarray(self.input_len), np.asarray(self.output_len)
        for name, a in (("input_len", inp), ("output_len", out)):
            ok = a.ndim == 1 and a.size > 0 and a.dtype.kind in "iu" and a.min() >= 1
            _need(ok, name, f"{name} must be a non-empty 1-D array of integers >= 1")
        _need(inp.shape == out.shape, "output_len", "one output_len per input_len is needed")
        object.__setattr__(self, "input_len", _frozen(inp.astype(np.int64)))
        object.__setattr__(self, "output_len", _frozen(out.astype(np.int64)))
        one = (self.arrival_s is None) != (self.concurrency is None)
        _need(one, "rate", "a workload has arrival_s (open loop) or concurrency, not both")
        if self.arrival_s is not None:
            t = np.asarray(self.arrival_s, dtype=np.float64)
            ok = t.shape == inp.shape and bool(np.all(np.isfinite(t)) and t.min() >= 0)
            ok = ok and bool(np.all(np.diff(t) >= 0))
            _need(ok, "arrival_s", "arrival_s must be sorted finite times >= 0, one a request")
            object.__setattr__(self, "arrival_s", _frozen(t))
        else:
            _count(self.concurrency, "concurrency")

    @property
    def requests(self) -> int:
        """How many requests."""
        return int(self.input_len.size)

    @property
    def closed_loop(self) -> bool:
        """True for a closed loop of `concurrency` clients, False for timed arrivals."""
        return self.concurrency is not None


def _frozen(a: NDArray[_T]) -> NDArray[_T]:
    a = a.copy()
    a.setflags(write=False)
    return a


def arrivals(
    n: int,
    rate: float,
    *,
    kind: str = "poisson",
    burstiness: float = 1.0,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """`n` arrival times in seconds, after 0: the running sum of random gaps of mean 1/`rate`."""
    n = _count(n, "requests")
    rate = _real(rate, "rate", "a positive number of requests per second", low=0.0)
    kind = _choice(kind, ARRIVALS, "arrival")
    b = _real(burstiness, "burstiness", "a positive number (1 = Poisson)", low=0.0)
    _need(math.isfinite(1.0 / rate), "rate", f"rate {rate!r} req/s is too small to draw from")
    if kind == "poisson":
        gaps = rng.exponential(1.0 / rate, n)
    else:  # gamma: shape k = 1/b gives CV^2 = b; scale b/rate keeps the mean at 1/rate
        gaps = rng.gamma(1.0 / b, b / rate, n)
    times = np.cumsum(gaps, dtype=np.float64)
    _need(np.all(np.isfinite(times)), "rate", f"rate {rate!r} req/s is too small: times overflow")
    return times


# size: the traffic's settings, each by keyword, as the CLI's flags and the web's fields name them
def make_workload(
    *,
    requests: int,
    input_len: float,
    output_len: float,
    rate: float | None = None,
    concurrency: int | None = None,
    arrival: str = "poisson",
    burstiness: float = 1.0,
    length_dist: str = "fixed",
    input_spread: float | None = None,
    output_spread: float | None = None,
    max_context: int | None = None,
    seed: int = 0,
    range_ratio: float | None = None,
) -> Workload:
    """A random workload: open loop at `rate` req/s, or a closed loop of `concurrency` clients.

    One generator, `default_rng(seed)`, draws arrivals, then inputs, then outputs (sharegpt:
    the pairs). With `max_context` inputs are clipped to max_context - 1 and outputs to
    max_context - input. `range_ratio`: random lengths' r (`lengths`)."""
    n = _count(requests, "requests")
    which = "not both" if rate is not None else "one of them is needed"
    msg = f"give --rate (open loop) or --concurrency (closed loop), {which}"
    _need((rate is None) != (concurrency is None), "rate", msg)
    if concurrency is not None:
        concurrency = _count(concurrency, "concurrency")
        msg = "--arrival and --burstiness shape an open loop (--rate), not --concurrency"
        _need(arrival == "poisson" and burstiness == 1.0, "arrival", msg)
    seed = _count(seed, "seed", low=0)
    top = None
    if max_context is not None:
        ctx = _count(max_context, "max_context", low=2)
        inp_mean = _real(input_len, "input_len", "a number of tokens >= 1", low=1.0, strict=False)
        msg = f"input_len mean {inp_mean:g} does not fit the model's context of {ctx} tokens"
        _need(inp_mean < ctx, "input_len", msg + " (an output needs at least 1)")
        top = ctx - 1
    rng = np.random.default_rng(seed)
    times = None
    if rate is not None:
        times = arrivals(n, rate, kind=arrival, burstiness=burstiness, rng=rng)
    sides = (("input_len", input_len, input_spread), ("output_len", output_len, output_spread))
    if length_dist == "sharegpt":  # in pairs, as the benchmark filters them
        inp, out = sharegpt_pairs(n, sides, top, rng)
    else:
        inp, out = (
            lengths(n, m, dist=length_dist, spread=s, max_len=top, rng=rng, field=f, range_ratio=r)
            for f, m, s in sides
            for r in [range_ratio]
        )
    if max_context is not None:
        out = np.minimum(out, max_context - inp)
    how = f"closed loop of {concurrency} clients"
    if rate is not None:
        bursts = "" if arrival == "poisson" else f" (burstiness {burstiness:g})"
        how = f"{'Poisson' if arrival == 'poisson' else 'gamma'} at {rate:g} req/s{bursts}"
    ctx_note = f", context {max_context}" if max_context is not None else ""
    dist = length_dist if range_ratio is None else f"{length_dist}, range ratio {range_ratio:g}"
    text = f"{n} requests, {how}, {_sizes(inp, out)} ({dist}){ctx_note}, seed {seed}"
    return Workload(inp, out, times, concurrency, text)


def _sizes(inp: NDArray[np.int64], out: NDArray[np.int64]) -> str:
    return f"input {inp.mean():.0f} ±{inp.std():.0f}, output {out.mean():.0f} ±{out.std():.0f}"


_COLUMNS = ("arrival_s", "input_len", "output_len")


def read_trace(path: str | os.PathLike[str], *, max_context: int | None = None) -> Workload:
    """A recorded open-loop workload: a CSV with header `arrival_s,input_len,output_len`.

    Rows may come in any order (they are sorted by arrival, stably); blank lines are skipped.
    A request longer than `max_context` is refused, not clipped."""
    name = (Path(path).name or os.fspath(path)).encode("unicode_escape").decode()
    ctx = None if max_context is None else _count(max_context, "max_context", low=2)
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)  # line_num: the file line a row ends on (1-based)
            rows = [(row, reader.line_num) for row in reader if any(c.strip() for c in row)]
    except FileNotFoundError:
        raise InputError(f"trace file {os.fspath(path)!r} does not exist", "trace") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        cause = e.strerror if isinstance(e, OSError) else str(e).splitlines()[0]
        raise InputError(f"cannot read trace file {name}: {cause}", field="trace") from None
    _need(rows, "trace", f"{name} has no requests")
    header = [h.strip() for h in rows[0][0]]
    extra = [h for h in header if h not in _COLUMNS]
    missing = [c for c in _COLUMNS if c not in header]
    why = [f"unknown column(s) {', '.join(map(repr, extra))}"] if extra else []
    why += [f"missing column(s) {', '.join(missing)}"] if missing else []
    why += [] if why or len(header) == len(_COLUMNS) else ["a column appears twice"]
    msg = f"{name} line {rows[0][1]}: {'; '.join(why)}; the header must be {','.join(_COLUMNS)}"
    _need(not why, "trace", msg)
    _need(len(rows) > 1, "trace", f"{name} has no requests")
    at = [header.index(c) for c in _COLUMNS]
    times: list[float] = []
    sizes: list[tuple[int, int]] = []
    for row, line in rows[1:]:
        where = f"{name} line {line}: "
        msg = f"{where}expected 3 fields ({','.join(_COLUMNS)}), got {len(row)}"
        _need(len(row) == 3, "trace", msg)
        t, i, o = (row[j].strip() for j in at)
        arr = _number(t)
        msg = f"{where}arrival_s must be a finite number of seconds >= 0, got {t!r}"
        _need(math.isfinite(arr) and arr >= 0, "trace", msg)
        ni, no = _tokens(i), _tokens(o)
        _need(ni, "trace", f"{where}input_len must be a positive integer, got {i!r}")
        _need(no, "trace", f"{where}output_len must be a positive integer, got {o!r}")
        msg = f"{where}input_len + output_len = {ni + no} exceeds the model's context of {ctx}"
        _need(ctx is None or ni + no <= ctx, "trace", msg)
        times.append(arr)
        sizes.append((ni, no))
    order = np.argsort(np.array(times), kind="stable")
    arrive = np.array(times, dtype=np.float64)[order]
    inp, out = np.array(sizes, dtype=np.int64)[order].T
    text = f"{inp.size} requests from {name} over {arrive[-1] - arrive[0]:.3g} s"
    return Workload(inp, out, arrive, None, f"{text}, {_sizes(inp, out)} (trace)")


def _number(s: str) -> float:
    try:
        return float(s)
    except ValueError:
        return math.nan


def _tokens(s: str) -> int:
    """A positive whole token count from "12" or "12.0"; 0 (refused) for anything else."""
    v = _number(s)
    return int(v) if math.isfinite(v) and v.is_integer() and 1 <= v <= LARGEST else 0
