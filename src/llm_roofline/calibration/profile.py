"""Calibrated predictions: the ideal terms under fitted efficiencies, plus fixed times.

A `Profile` holds nine constants, each with a physical meaning and a plausible range
(`data/priors.toml`):

- `flops_eff`: fraction of dense peak FLOP/s that decode tokens' matmuls and attention reach;
- `prefill_eff`: the same for prompt tokens (large matmuls run closer to peak): a prefill pass,
  and the prefill share a continuous-batching step carries (`StepTime.t_matmul_prefill`,
  `t_attn_prefill`);
- `bw_eff`: fraction of memory bandwidth reached streaming the weights;
- `kv_eff`: the same for the attention kernel's KV-cache reads;
- `gqa_share`: the share of grouped-query attention's saving on KV reads the kernel gets (a
  kernel that reads each KV head once per query head reads g = `StepTime.kv_group` times more);
- `comm_eff`, `prefill_comm_eff`: fraction of the ideal speed a collective's latency part
  reaches (`StepTime.t_comm_latency`: launches and synchronisation, what a decode step's
  kilobyte messages are made of), and its bandwidth part (the bytes over the link: a
  prefill's, or a mixed step's prompt chunk's, megabytes), in every pass alike;
- `overhead_s`: a fixed time per pass (scheduler, sampling, host synchronisation);
- `prefill_overhead_s`: a further fixed time for a request's first token (its prefill, or the
  mixed step carrying its prompt: request setup, a context phase outside CUDA graphs);
- `layer_s`: a fixed time per layer and pass (kernel launches; `StepTime.layers`).

A pass takes `combine(t_compute / eff, t_weights / bw_eff + t_kv · (1 + (g − 1)(1 −
gqa_share)) / kv_eff) + t_comm_latency / comm_eff + (t_comm − t_comm_latency) /
prefill_comm_eff + overhead_s + layers · layer_s` (+
`prefill_overhead_s`), with the ideal engine's overlap of compute and memory and
communication on the critical path with one micro-batch (the StepTime's `one_batch` terms),
except in a prefill on an expert-parallel split (`comm_overlap` "expert", `pass_time`).

The constants are fitted once to every scored validation row (`fitting.py`): shared values plus
effects of the engine family, the chip's vendor and its memory kind, and `data/profiles.toml`
keeps them. `get_profile(engine, chip)` puts together the profile of an engine family (or of
no named engine: "calibrated") on a chip, from what was measured of each; a chip or engine
never measured takes the shared values. Its range (`low`, `high`: a time's 10th and 90th
percentile as multiples of the prediction) is what held-out validation found: leave one source
out where the chip's hardware kind (`HARDWARE_KINDS`) was measured; further from the measured
hardware, a range that widens with the chip's distance from it (`hardware_distance`), fitted to
the errors of whole kinds held out.
"""

from __future__ import annotations

import functools
import json
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.errors import ConfigError, UnknownIdError
from llm_roofline.calibration.fitting import EFFECTS, PARAMETERS, Fitted
from llm_roofline.calibration.hardware_distance import (
    HARDWARE_KINDS,
    RangeLaw,
    chip_kind,
    chip_labels,
    memory_kind,
    missing,
    why_wider,
    widened,
)
from llm_roofline.engine.roofline import StepTime, combine_terms
from llm_roofline.hardware.chip import Chip

__all__ = [
    "ENGINE_ALIASES",
    "HARDWARE_KINDS",
    "IDEAL",
    "PARAMETERS",
    "Profile",
    "chip_kind",
    "get_profile",
    "list_profiles",
    "memory_kind",
    "pass_time",
]

# names people use for an engine family -> the family's name in the validation set
ENGINE_ALIASES = {
    "trtllm": "tensorrt-llm",
    "trt-llm": "tensorrt-llm",
    "llamacpp": "llama.cpp",
    "llama-cpp": "llama.cpp",
    "habana": "optimum-habana",
    "mlx-lm": "mlx",
}


@dataclass(frozen=True)
class Profile:
    """Efficiencies and fixed times of one engine on one kind of chip."""

    name: str
    flops_eff: float = 1.0
    prefill_eff: float = 1.0
    bw_eff: float = 1.0
    kv_eff: float = 1.0
    comm_eff: float = 1.0
    overhead_s: float = 0.0
    prefill_overhead_s: float = 0.0
    layer_s: float = 0.0
    prefill_comm_eff: float = 1.0
    gqa_share: float = 1.0  # the share of GQA's saving on KV reads the attention kernel gets
    # a predicted time times `low` and `high` is its range: the 10th and 90th percentiles of
    # measured / predicted time on held-out rows (a throughput is divided by them)
    low: float = 1.0
    high: float = 1.0
    fitted_on: tuple[int, ...] = ()  # validation rows (`row` of data/validation.csv)
    note: str = ""
    # real engines wait for their tensor-parallel all-reduces (they feed the next layer) but
    # overlap a prefill's expert-parallel all-to-alls: "expert" hides all of an
    # expert-parallel prefill's communication where two micro-batches are faster (with tp > 1
    # too, which is optimistic: the ideal stays the floor); "none" always times one
    # micro-batch, "all" the ideal's schedule
    comm_overlap: str = "expert"
    stats: dict[str, float] = field(default_factory=dict)

    def values(self) -> FloatArray:
        return np.asarray([getattr(self, p) for p in PARAMETERS], dtype=np.float64)

    def with_values(self, values: dict[str, Any]) -> Profile:
        """This profile with other constants (floats, or arrays: one value per pass)."""
        return replace(self, **{k: values[k] for k in PARAMETERS if k in values})

    def pass_time(
        self, step: StepTime, *, prefill: bool = False, first_token: bool = False
    ) -> FloatArray:
        """A pass under this profile (`pass_time`): how serving times a calibrated engine."""
        return pass_time(step, self, prefill=prefill, first_token=first_token)


IDEAL = Profile(name="ideal", note="datasheet peaks, no overheads: a lower bound on time")


def pass_time(
    step: StepTime, profile: Profile | None, *, prefill: bool = False, first_token: bool = False
) -> FloatArray:
    """The time of a pass under a profile (its ideal time when `profile` is None).

    The profile keeps communication on the critical path: it times the one-micro-batch
    schedule (`StepTime.one_batch`), except that a prefill on an expert-parallel split takes
    two micro-batches wherever they are possible and faster under the profile
    (`comm_overlap` "expert": engines split a long prompt's tokens and overlap its expert
    dispatch and combine with the other half's compute). It chooses under its own
    efficiencies (`StepTime.double`), not where the ideal chose: an engine keeps the cheaper
    schedule, so a prefill's time never falls as its prompt grows (Mixtral on 2 H100 took
    54.0 ms at 1,906 prompt tokens and 47.1 at 1,913 when the profile followed the ideal's
    choice). Decode and mixed steps keep one micro-batch (two-batch overlap of decode is an
    opt-in of SGLang and vLLM); docs/validation.md has the fit of each choice. Prompt
    tokens' matmuls and attention run at `prefill_eff` (all of a pass with `prefill=True`; a
    mixed step's prefill share otherwise), decode tokens' at `flops_eff`. A prefill, and a
    mixed step that gives a new request its first token (`first_token`), pay
    `prefill_overhead_s` besides.
    """
    if profile is None:
        return step.t_step
    if profile.comm_overlap == "all":  # the ideal's schedule
        t = _timed(step, profile, prefill, step.micro_batches > 1)
    else:
        t = _timed(step.one_batch, profile, prefill, False)
        double = step.double
        if profile.comm_overlap == "expert" and prefill and double is not None:
            two = np.flatnonzero((double.micro_batches > 1) & (np.asarray(step.ep) > 1))
            if two.size:  # only those points: most passes of a stack have one micro-batch
                t = np.array(t, copy=True)
                t2 = _timed(_points(double, two), _points(profile, two), prefill, True)
                t.flat[two] = np.minimum(t.flat[two], t2)
    fixed = profile.overhead_s + profile.layer_s * step.layers
    if prefill or first_token:
        fixed = fixed + profile.prefill_overhead_s
    return np.asarray(t + fixed, dtype=np.float64)


def _points(obj: Any, idx: Any) -> Any:
    """A StepTime or Profile at the points `idx` of its arrays (numbers stay as they are)."""
    values = {
        k: v.ravel()[idx] if isinstance(v, np.ndarray) and v.ndim > 0 else v
        for k, v in obj.__dict__.items()
    }
    out = object.__new__(type(obj))
    out.__dict__.update(values)
    return out


def _timed(s: StepTime, profile: Profile, prefill: bool, hidden: Any) -> FloatArray:
    """A schedule's terms under the profile's efficiencies, communication added or hidden."""
    if prefill:
        mm_pre, at_pre = s.t_matmul, s.t_attn
    else:
        mm_pre, at_pre = s.t_matmul_prefill, s.t_attn_prefill
    t_matmul = (s.t_matmul - mm_pre) / profile.flops_eff + mm_pre / profile.prefill_eff
    t_attn = (s.t_attn - at_pre) / profile.flops_eff + at_pre / profile.prefill_eff
    t, _ = combine_terms(
        t_matmul,
        t_attn,
        s.t_weights / profile.bw_eff,
        s.t_kv * (1.0 + (s.kv_group - 1.0) * (1.0 - profile.gqa_share)) / profile.kv_eff,
        s.t_comm_latency / profile.comm_eff
        + (s.t_comm - s.t_comm_latency) / profile.prefill_comm_eff,
        s.overlap,
        comm_hidden=hidden,
    )
    return np.asarray(t, dtype=np.float64)


# ---- the shipped constants -----------------------------------------------------------------


@dataclass(frozen=True)
class Shipped:
    """data/profiles.toml: the fitted constants, their ranges and the rows they came from."""

    fitted: Fitted
    band_known: tuple[float, float]
    range_law: RangeLaw  # the half-width beyond the measured kinds (`hardware_distance`)
    fitted_on: tuple[int, ...]
    families: tuple[str, ...]
    label_rows: dict[str, dict[str, int]]  # kind -> label -> rows fitted with it


@functools.cache
def shipped() -> Shipped | None:
    path = resources.files("llm_roofline").joinpath("data/profiles.toml")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    try:
        rec = raw["calibrated"]
        fitted = Fitted(
            shared={p: float(rec["z"][p]) for p in PARAMETERS},
            shared_sd={p: float(rec["z_sd"][p]) for p in PARAMETERS},
            effects={
                kind: {lab: {k: float(v) for k, v in e.items()} for lab, e in labels.items()}
                for kind, labels in rec.get("effects", {}).items()
            },
            rows=int(rec["rows"]),
            iterations=int(rec.get("iterations", 0)),
            sigma=float(rec.get("sigma", 1.0)),
        )
        _check_fitted(fitted)
        lo_k, hi_k = (float(x) for x in rec["band_known"])
        width, growth = (float(x) for x in rec["range_law"])
        return Shipped(
            fitted=fitted,
            band_known=(lo_k, hi_k),
            range_law=RangeLaw(width=width, growth=growth),
            fitted_on=tuple(int(r) for r in rec["fitted_on"]),
            families=tuple(sorted(fitted.effects.get("family", {}))),
            label_rows={
                k: {lab: int(n) for lab, n in v.items()} for k, v in rec["label_rows"].items()
            },
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"profiles.toml is malformed: {exc}", field="calibrated") from None


def _check_fitted(f: Fitted) -> None:
    """Every constant and effect of profiles.toml known and finite (else a ConfigError)."""
    values = [*f.shared.values(), *f.shared_sd.values()]
    for kind, labels in f.effects.items():
        if kind not in EFFECTS:
            raise ValueError(f"effects of an unknown kind {kind!r}")
        for label, eff in labels.items():
            odd = set(eff) - set(EFFECTS[kind])
            if odd:
                raise ValueError(f"{kind} {label!r} moves {sorted(odd)}, not {EFFECTS[kind]}")
            values += eff.values()
    if not all(np.isfinite(values)):
        raise ValueError("a constant or effect is not a finite number")


def list_profiles() -> list[str]:
    """Engines by name: ideal, calibrated (no engine named), each fitted engine family and
    the aliases people use for them (trtllm, llamacpp, ...)."""
    s = shipped()
    if s is None:
        return ["ideal"]
    aliases = [a for a, fam in ENGINE_ALIASES.items() if fam in s.families]
    return sorted({"ideal", "calibrated", *s.families, *aliases} - {"other"})


def get_profile(name: str | Profile | None, chip: Chip | None = None) -> Profile | None:
    """The calibrated engine `name` (a family, an alias, or "calibrated": none named) on
    `chip` ("ideal" gives None: the ideal engine). Without a chip: the shared constants with
    the family's effect."""
    if name is None or isinstance(name, Profile):
        return None if name is IDEAL else name
    key = name.strip().lower()
    known = list_profiles()
    s = shipped()
    fitted = s.families if s is not None else ()  # "other" too: validation scores its rows
    if key not in known and key not in fitted:
        raise UnknownIdError("engine profile", name, known)
    if key == "ideal":
        return None
    family = None if key == "calibrated" else ENGINE_ALIASES.get(key, key)
    if chip is None:
        return _profile(key, family, None)
    return _profile(key, family, tuple(sorted(chip_labels(chip).items())))


@functools.cache
def _profile(name: str, family: str | None, chip: tuple[tuple[str, str], ...] | None) -> Profile:
    s = shipped()
    assert s is not None  # list_profiles() has only "ideal" without the file
    on = dict(chip or ())
    labels = {"family": family, "vendor": on.get("vendor"), "memory": on.get("memory")}
    seen = {k: v for k, v in labels.items() if v and v in s.label_rows.get(k, {})}
    unseen = [f"{k} {v}" for k, v in labels.items() if v and k not in seen]
    # the range widens with the chip's distance from the measured hardware: the labels (kind,
    # vendor, chip class, memory kind) no measured row shares (`hardware_distance`)
    gaps = missing(on, s.label_rows) if on else ()
    low, high = widened(s.band_known, s.range_law, len(gaps))
    used = ", ".join(f"{k} {v} ({s.label_rows[k][v]} rows)" for k, v in seen.items())
    note = f"fitted constants, shared by {s.fitted.rows} rows" + (f", with {used}" if used else "")
    if unseen:
        note += f"; not measured, so shared values for: {', '.join(unseen)}"
    if gaps:
        note += f"; {why_wider(gaps)} (80% range ×{low:.2f}–{high:.2f})"
    return Profile(
        name=name,
        low=low,
        high=high,
        fitted_on=s.fitted_on,
        note=note,
    ).with_values(s.fitted.values_for(labels))


def profiles_toml(shipped_fit: dict[str, Any]) -> str:
    """data/profiles.toml's text for `validate.fit_shipped`'s result (what `shipped` reads)."""
    f: Fitted = shipped_fit["fitted"]

    def num(x: float) -> str:
        return f"{x:.6g}"

    def table(name: str, values: dict[str, Any]) -> list[str]:
        return [f"[{name}]", *(f"{json.dumps(k)} = {num(v)}" for k, v in values.items()), ""]

    held = shipped_fit["held_out"]
    lines = [
        "# The calibrated engine's constants, fitted by `llm-roofline calibrate` to the scored",
        "# rows of data/validation.csv (fitting.py). Do not edit by hand.",
        "# z: each constant in the fit's unbounded space (calibrate.py), z_sd its standard",
        "# error; effects add to z for a row's engine family, chip vendor and memory kind.",
        "# Ranges: 10th and 90th percentiles of measured / predicted time held out, leaving",
        f"# each source out (median |ln error| {held['source']['median']:.3f}) for band_known;",
        "# range_law: [width, growth], the half-width in ln(time) at distance d from the",
        "# measured hardware, width * exp(growth * (d - 1)), fitted to the errors of each",
        f"# hardware kind held out ({held['kind']['median']:.3f}; hardware_distance.py).",
        "",
        '["calibrated"]',
        f"rows = {f.rows}",
        f"iterations = {f.iterations}",
        f"sigma = {num(f.sigma)}",
        "band_known = [" + ", ".join(num(x) for x in shipped_fit["band_known"]) + "]",
        "range_law = [" + ", ".join(num(x) for x in shipped_fit["range_law"]) + "]",
        f"fitted_on = {json.dumps(shipped_fit['fitted_on'])}",
        "",
        *table('"calibrated".z', f.shared),
        *table('"calibrated".z_sd', f.shared_sd),
    ]
    for kind, counts in sorted(shipped_fit["label_rows"].items()):
        lines += table(f'"calibrated".label_rows.{kind}', dict(sorted(counts.items())))
    for kind, labels in sorted(f.effects.items()):
        for label, eff in sorted(labels.items()):
            lines += table(f'"calibrated".effects.{kind}.{json.dumps(label)}', eff)
    return "\n".join(lines)
