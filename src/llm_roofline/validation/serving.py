"""Serving against published runs: each row of tests/data/serving_measurements.csv simulated.

A row (one published figure; tests/data/serving_measurements.md says how they were read) maps
to a `Setting`, the simulation that answers it, or to the reason it cannot be rebuilt:
deployment from model, hardware, chips, tp (pp, ep from their columns or `pp N` in the
notes; the chips left over are replicas) and data types (a KV type not stated is the
weights' 16-bit type); a `rate` row is a Poisson open loop, a `concurrency` row a closed loop
of that many clients, `load = inf` every request at t = 0; lengths fixed where stated, else
a dataset's (ShareGPT as the benchmark scripts filter it, or the tools' uniform `random`
lengths with their range ratio) at the means the source states or `_SHAREGPT`'s; the
requests as stated, capped for speed (`request_count`); the row's engine as `simulate`'s
serving engine where it takes one (`serving_knobs`). Rows of one setting share one
simulation (`Simulations`).

A row's simulated figure and the errors' statistics are in `serving_figures.py`; the fixed
costs' fit and the sources held out in `serving_fit.py`.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.errors import InputError, LlmRooflineError
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.sim.pools import kv_capacity
from llm_roofline.sim.serving_engines import (
    DEFAULT_ENGINE,
    ENGINES,
    ServingEngine,
    fixed_costs,
    serving_engine,
)
from llm_roofline.sim.simulate import SimResult, simulate
from llm_roofline.sim.workload import Workload, arrivals, make_workload
from llm_roofline.validation.serving_figures import metric_family

__all__ = [
    "DATA",
    "ServingRow",
    "Setting",
    "Simulations",
    "load_serving_rows",
    "map_row",
    "request_count",
    "serving_knobs",
    "shipped_costs",
]

# in a source checkout: the package is src/llm_roofline, the data tests/data
DATA = Path(__file__).resolve().parents[3] / "tests" / "data" / "serving_measurements.csv"

Costs = tuple[float, ...]  # an engine's fixed costs, in `serving_knobs()[1]`'s order
# the CSV's engines -> simulate's serving engine profiles (NIM serves its optimised
# profiles with TensorRT-LLM; LMDeploy's benchmarks here are its TurboMind backend)
_ENGINES = {"vllm": "vllm", "sglang": "sglang", "tensorrt-llm": "tensorrt-llm"}
_ENGINES |= {"nvidia-nim": "tensorrt-llm", "lmdeploy": "lmdeploy", "lmdeploy-turbomind": "lmdeploy"}
MIN_REQUESTS, CAP, STEP_BUDGET = 100, 1000, 8000
# A burst is simulated as at least this many times the sequences held at once: TensorRT-LLM's
# Llama 3.1 8B fp8 burst on one H100 (perf-overview, 128 -> 2,048, about 240 sequences held)
# gave 7,817 output tokens/s simulated as 1,000 requests (4 waves), 8,789 as 1,912 (8 waves)
# and 8,932 as 2,868 (12); at 128 -> 128, 28.8k at 2 waves, 22.9k at 3, 23.0k at 5 and 8
BURST_WAVES = 8


@dataclass(frozen=True)
class Setting:
    """One simulation: the deployment, the load, the lengths and the requests (hashable: the
    cache key of `Simulations`). `dataset` names a length distribution when the lengths are
    a dataset's; `stated_requests` is the run's count (None: not stated)."""

    model: str
    hardware: str
    chips: int
    tp: int
    pp: int
    ep: int | None
    weight_dtype: str
    kv_dtype: str
    engine: str | None
    loop: str
    load: float
    requests: int
    stated_requests: int | None
    input_len: float
    output_len: float
    dataset: str | None
    range_ratio: float = 0.0
    in_process: bool = False  # the benchmark drove the engine itself: no API server

    @property
    def replicas(self) -> int:
        return max(1, self.chips // (self.tp * self.pp))


@dataclass(frozen=True)
class ServingRow:
    """A row of the file: its line (1 = first data row), source, engine, metric and value,
    and its `setting`, or None with the `reason` it cannot be simulated."""

    line: int
    source: str
    engine: str
    metric: str
    value: float
    setting: Setting | None
    reason: str = ""

    @property
    def family(self) -> str | None:
        return metric_family(self.metric)


def _number(text: str, what: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise InputError(f"{what} {text!r} is not a number", field=what) from None
    if math.isnan(x) or x <= 0:
        raise InputError(f"{what} must be positive, got {text!r}", field=what)
    return x


def _degree(raw: Mapping[str, str], key: str) -> int | None:
    """pp or ep: its column when the file has one, else `pp N` / `ep N` in the notes."""
    text = (raw.get(key) or "").strip()
    if text:
        return int(_number(text, key))
    m = re.search(rf"\b{key}\s*=?\s*(\d+)\b", raw.get("notes") or "", re.IGNORECASE)
    return int(m.group(1)) if m else None


def _dataset(raw: Mapping[str, str]) -> str | None:
    note = (raw.get("length_note") or "").lower()
    return next((d for d in ("sharegpt", "random") if d in note), None)


_TOTALS = (  # how sources state a run's token totals: input, then output
    r"total[_ ]input[_ ]tokens\D{0,4}([\d,]+)\D+?"
    r"total[_ ](?:output|generated)[_ ]tokens\D{0,4}([\d,]+)",
    r"totals?\D{0,4}([\d,]+) input / ([\d,]+) (?:output|generated)",
)


def _stated_means(note: str, requests: str) -> tuple[float, float] | None:
    """Mean input and output lengths from the token totals a source states (`total_input_tokens
    X and total_output_tokens Y`, `totals X input / Y generated`) over its requests (`over N
    requests` or `prompts` in the note, else the row's count)."""
    m = next((m for p in _TOTALS if (m := re.search(p, note, re.IGNORECASE))), None)
    n = re.search(r"over ([\d,]+) (?:requests|prompts)", note)
    count = n.group(1) if n else requests
    if m is None or not count:
        return None
    i, o, c = (float(g.replace(",", "")) for g in (*m.groups(), count))
    return i / c, o / c


def _range_ratio(note: str) -> float:
    """The `random` dataset's range ratio r as `vllm bench serve` and the workload take it
    (lengths uniform in [mean·(1 − r), mean·(1 + r)]): 0 where the note says "fixed lengths
    requested"; sglang.bench_serving's ratio q draws from q × top to top, which is
    r = (1 − q) / (1 + q) about the same mean (its default q = 0: r = 1)."""
    if "fixed lengths requested" in note:
        return 0.0
    m = re.search(r"range[_ -]ratio\D{0,3}([\d.]+)", note)
    if "sglang.bench_serving" in note:
        q = float(m.group(1)) if m else 0.0
        return (1 - q) / (1 + q)
    return float(m.group(1)) if m else 0.0


def request_count(loop: str, load: float, stated: int | None, mean_out: float) -> int:
    """Requests simulated: the stated count, capped so that a run takes about STEP_BUDGET
    engine steps. An open loop at `rate` runs about requests / rate seconds of steps of 10 ms
    or more: STEP_BUDGET / 100 × rate requests at most, at least MIN_REQUESTS (percentiles
    of fewer are noise); at `inf`, all. A closed loop of C clients takes about requests ×
    output / C steps: at least two requests a client. Never more than CAP: a queue that grows
    (a burst, a rate past capacity) has the latencies of a run of that length."""
    top = stated if stated is not None else 10**9
    if loop == "rate":
        n = CAP if math.isinf(load) else int(STEP_BUDGET * load / 100)
        return min(top, max(MIN_REQUESTS, min(CAP, n)))
    c = int(load)
    steps = int(STEP_BUDGET * c / max(mean_out, 1.0))
    return max(1, min(top, max(2 * c, min(CAP, steps))))


def _lengths(raw: Mapping[str, str]) -> tuple[float, float, str | None, float]:
    """(input mean, output mean, dataset, range ratio): stated lengths, or a dataset's means
    (stated totals over the requests when the source gives them, else `_SHAREGPT`)."""
    i, o = (raw.get(k, "").strip() for k in ("input_len", "output_len"))
    if i and o:
        return _number(i, "input_len"), _number(o, "output_len"), None, 1.0
    note = raw.get("length_note") or ""
    dataset = _dataset(raw)
    stated = _stated_means(note, raw.get("requests") or "")
    means = stated or (_SHAREGPT if dataset == "sharegpt" else None)
    if dataset is None or means is None:
        why = "no dataset the tool draws" if dataset is None else "means not stated"
        raise InputError(f"lengths not stated, {why} ({note or 'no note'})", "lengths")
    return means[0], means[1], dataset, _range_ratio(note)


def _setting(raw: Mapping[str, str]) -> Setting:
    """The simulation a row asks for (module docstring); InputError says why there is none."""
    loop = raw["load_kind"].strip()
    if loop not in ("rate", "concurrency"):
        raise InputError(f"load_kind {loop!r} is neither rate nor concurrency", "load_kind")
    load = _number(raw["load"], "load")
    if loop == "concurrency" and (math.isinf(load) or load != int(load)):
        raise InputError(f"concurrency must be a whole number, got {raw['load']!r}", "load")
    stated = int(_number(raw["requests"], "requests")) if raw.get("requests") else None
    inp, out, dataset, ratio = _lengths(raw)
    weight = raw["weight_dtype"].strip() or "bf16"
    kv = [t.split("_")[0] for t in (raw.get("kv_dtype") or "").split()]  # fp8_e5m2: fp8
    sixteen = weight if weight in ("fp16", "bf16") else "bf16"
    engine = _ENGINES.get(raw["engine"].strip().lower())
    harness = (raw.get("harness") or "server").strip().lower()
    if harness not in ("server", "in-process"):
        raise InputError(f"harness {harness!r} is neither server nor in-process", "harness")
    return Setting(
        model=raw["model"].strip(),
        hardware=raw["hardware"].strip(),
        chips=int(_number(raw["chips"], "chips")),
        tp=int(_number(raw["tp"] or "1", "tp")),
        pp=_degree(raw, "pp") or 1,
        ep=_degree(raw, "ep"),
        weight_dtype=weight,
        kv_dtype=kv[0] if kv else sixteen,
        engine=engine if engine in serving_knobs()[0] else None,
        loop=loop,
        load=load,
        requests=request_count(loop, load, stated, out),
        stated_requests=stated,
        input_len=inp,
        output_len=out,
        dataset=dataset,
        range_ratio=ratio,
        in_process=harness == "in-process",
    )


def map_row(raw: Mapping[str, str], line: int) -> ServingRow:
    """One CSV row as a `ServingRow`: its setting, or the reason it has none."""
    source, engine, metric = raw["source_address"], raw["engine"], raw["metric"]
    value = float(raw["value"])
    if metric_family(metric) is None:
        why = f"metric {metric} has no simulated counterpart"
        return ServingRow(line, source, engine, metric, value, None, why)
    try:
        return ServingRow(line, source, engine, metric, value, _setting(raw))
    except (InputError, ValueError, KeyError) as e:
        return ServingRow(line, source, engine, metric, value, None, str(e))


def load_serving_rows(path: Path | None = None, source: str | None = None) -> list[ServingRow]:
    """Every row of the file (`DATA` by default), or those whose address contains `source`
    (refused when none does)."""
    path = DATA if path is None else path
    if not path.is_file():
        raise InputError(f"serving measurements not found at {path}", field="measurements")
    with path.open(encoding="utf-8") as fh:
        rows = [map_row(r, i) for i, r in enumerate(csv.DictReader(fh), 1)]
    if source is not None:
        rows = [r for r in rows if source in r.source]
        if not rows:
            raise InputError(f"no serving measurement's address contains {source!r}", "source")
    return rows


def serving_knobs() -> tuple[frozenset[str], tuple[str, ...]]:
    """The serving engine profiles `simulate` takes (`serving_engine=`, sim/serving_engines.py)
    and the names of their fixed costs."""
    costs = ("request_overhead_s", "step_overhead_s", "frontend_s")
    return frozenset(ENGINES) - {"roofline"}, costs


def shipped_costs(engine: str | None) -> Costs:
    """The fixed costs an engine's profile ships with (data/serving_costs.toml)."""
    return fixed_costs(engine if engine is not None else DEFAULT_ENGINE)[:3]


@dataclass
class Simulations:
    """The simulations of one run, each setting (at given fixed costs) simulated once.
    `costs`: the fixed costs' names `simulate` takes (`serving_knobs`)."""

    costs: tuple[str, ...] = field(default_factory=lambda: serving_knobs()[1])
    done: dict[tuple[Setting, Costs | None], SimResult | str] = field(default_factory=dict)
    works: dict[Setting, Workload] = field(default_factory=dict)
    tables: dict[Any, Any] = field(default_factory=dict)  # simulate's cache, by deployment
    deps: dict[tuple[Any, ...], Deployment] = field(default_factory=dict)

    def result(self, s: Setting, costs: Costs | None = None) -> SimResult | str:
        """The simulation of `s` (`costs` overriding its engine's fixed costs), or why it
        failed (a deployment that does not fit, a request past the context)."""
        key = (s, costs)
        if key not in self.done:
            try:
                self.done[key] = self._run(s, costs)
            except LlmRooflineError as e:
                self.done[key] = str(e)
        return self.done[key]

    def _run(self, s: Setting, costs: Costs | None) -> SimResult:
        fields = (s.model, s.hardware, s.chips, s.tp, s.pp, s.ep, s.weight_dtype, s.kv_dtype)
        if fields not in self.deps:  # one object a deployment: its step tables are reused
            self.deps[fields] = deployment(
                s.model,
                s.hardware,
                s.chips,
                tp=s.tp,
                pp=s.pp,
                ep=s.ep,
                replicas=s.replicas,
                weight_dtype=s.weight_dtype,
                kv_dtype=s.kv_dtype,
            )
        dep = self.deps[fields]
        over = dict(zip(self.costs, costs, strict=True)) if costs is not None else {}
        if s.in_process:  # no API server in front
            over["frontend_s"] = 0.0
        eng = serving_engine(s.engine or DEFAULT_ENGINE, dep, **over)  # its costs as given
        if s not in self.works:
            self.works[s] = _draw(s, dep.model.max_context, burst_requests(s, dep, eng))
        work = self.works[s]
        rate = None if s.loop == "concurrency" or math.isinf(s.load) else s.load
        return simulate(dep, work, with_capacity=False, timeline_points=0, rate=rate,
                        cache=self.tables, serving_engine=eng)  # fmt: skip

    def workload(self, s: Setting) -> Workload:
        """The requests of `s` as simulated (drawn once, seed 0, by `result`); before `s` is
        simulated, its `requests` drawn and not kept (the simulation draws its own, a burst's
        longer: `burst_requests`)."""
        return self.works[s] if s in self.works else _draw(s, None, s.requests)


def burst_requests(s: Setting, dep: Deployment, engine: ServingEngine) -> int:
    """Requests to simulate of a burst (every request sent at t = 0): enough to pass the
    sequences the engine holds at once, so that the run reaches the steady state in which a
    long burst spends most of its time. The `CAP` requests of a burst of 30,000 against an
    engine that runs 2,048 at once would all start together and finish together, a run of a
    shape the measured one never had. At least BURST_WAVES times the sequences the instance
    holds (the engine's `max_seqs`, or fewer where the KV cache of requests of the mean
    length fills first), times the replicas; never more than stated."""
    if not (s.loop == "rate" and math.isinf(s.load)) or s.stated_requests is None:
        return s.requests
    if s.stated_requests <= s.requests:
        return s.requests
    mean = max(1, int(s.input_len + s.output_len))
    try:
        held = kv_capacity(dep, mean, engine) // mean
    except LlmRooflineError:
        return s.requests
    at_once = max(1, min(engine.max_seqs, held)) * dep.replicas
    return min(s.stated_requests, max(s.requests, BURST_WAVES * at_once))


# ShareGPT as vLLM's and SGLang's benchmark scripts filter it, when a source states no totals:
# 229,711 prompt and 203,068 generated tokens over 1,000 requests of a `vllm bench serve` run on
# Aeala/ShareGPT_Vicuna_unfiltered (https://github.com/vllm-project/vllm/pull/18566)
_SHAREGPT = (229.711, 203.068)


def _draw(s: Setting, max_context: int | None, requests: int) -> Workload:
    """The workload of a setting: `requests` of its lengths (`_sizes`), arrivals by its loop."""
    s = replace(s, requests=requests)
    inp, out = _sizes(s, max_context)
    if s.loop == "concurrency":
        return Workload(
            inp, out, None, int(s.load), f"{s.requests} requests, {int(s.load)} clients"
        )
    at = (
        np.zeros(s.requests)
        if math.isinf(s.load)
        else arrivals(s.requests, s.load, rng=np.random.default_rng(0))
    )
    how = "all at t = 0" if math.isinf(s.load) else f"Poisson at {s.load:g} req/s"
    return Workload(inp, out, at, None, f"{s.requests} requests, {how}")


def _sizes(s: Setting, max_context: int | None) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Lengths (seed 0): fixed; ShareGPT's as the benchmark scripts filter it (the
    workload's "sharegpt"); or the tools' `random` dataset at its range ratio; each drawn at
    the means stated (the workload honours them)."""
    dist = "fixed" if s.dataset is None else s.dataset
    ratio = s.range_ratio if dist == "random" else None
    ctx = None if dist == "fixed" else max_context
    w = make_workload(requests=s.requests, concurrency=1, input_len=s.input_len,
                      output_len=s.output_len, length_dist=dist, max_context=ctx,
                      range_ratio=ratio)  # fmt: skip
    return w.input_len, w.output_len
