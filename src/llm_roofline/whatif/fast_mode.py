"""Fast modes: what it costs to sell tokens F times faster to each user.

The lecture opens on a question: providers sell a "fast mode" (tokens some 2.5× faster per
user) at several times the price (6×); why? `fast_mode` answers it for a deployment at a base
batch and context: the cheapest way to raise tokens/s per user (1 / time per output token,
under the deployment's engine) by a factor F, among three options, and the price multiple it
implies ($ per million output tokens at the fast setting ÷ at the base):

- `batch`, a smaller batch on the same chips and split: the step reads the same weights for
  fewer sequences, so each pays a larger share of them;
- `chips`, more chips: every chip count above the deployment's, up to `max_chips` (powers of
  two and `max_chips` itself; by default twice the deployment's chips, at least the chip's
  scale-up domain; never more than MAX_CHIPS, 1,024, a limit on the search), every split the
  optimizer tries there (`optimize.splits`), every batch that fits: each chip reads a smaller
  share of the weights, and the split's communication is paid;
- `speculative`, speculative decoding (`speculative.py`) on the same chips at a batch up to the
  largest that fits: a draft proposes γ tokens, each accepted with probability α, and the
  target verifies them in one pass. `speculative.py` times the passes on the ideal engine; a
  calibrated engine's time per output token is taken as its decode step at that batch ÷ the
  ideal speed-up (the draft's and the verification's overheads are not timed apart). Its KV
  memory for the γ drafted tokens is not counted against the batch that fits.

The base decodes without speculation. Each option's answer is the cheapest setting that
reaches F (the largest batch that does, for each split: time per output token grows with batch
and $ per token falls), or, when none does, the fastest it gets. With no option reaching F the
answer says so and names what stops it: where the target is faster than the latency floor
(the weights one token reads, per chip, over the memory bandwidth: the floor of `report`), that
floor, which no batch passes; otherwise batch 1's own time on the fastest split tried (the
ideal step, and under a calibrated engine its efficiencies and fixed times per step). Each
option's frontier (speed-up against price multiple, every batch; for `chips` every split too)
is returned for plotting. Prefill is left out: the
question is the speed of decoding and the price of output tokens.

Default draft ("auto"): the model's own multi-token-prediction module when its config.json has
one (`num_nextn_predict_layers`, DeepSeek-V3's field: `mtp_layers`), γ = 1, accepted 85% of the
time: DeepSeek-V3's own figure for its MTP module, "85%–90%" acceptance of the second token
(DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv 2412.19437, §5.4.3). A model without one
(Llama 3.1 8B) has no draft to assume: speculation is then not tried (`not_tried` says why)
unless a draft is given: "mtp" (timed as if the model had one), a draft model, or "none" (a
free draft: the most speculation can give). A chip without a price (none in the catalog, or a
price of 0: hardware you own) is refused: a price multiple needs a price.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.errors import InputError
from llm_roofline._core.units import GB, TB, mega, ms, sig
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.report_table import engine_parts, fit_message
from llm_roofline.deploy.split import count
from llm_roofline.engine.cost import pareto_frontier
from llm_roofline.model.spec import ModelSpec
from llm_roofline.planning.optimize import powers, splits
from llm_roofline.serving.speculative import speculative_decode, tokens_per_verification
from llm_roofline.whatif.drafts import (
    check_mtp_layers,
    draft_name,
    model_mtp_layers,
    no_mtp_reason,
    resolve_draft,
)
from llm_roofline.whatif.sensitivity import (
    MAX_CHIPS,
    check_max_chips,
    largest_within,
    tpot,
    unpriced_reason,
)

__all__ = [
    "DEFAULT_ACCEPTANCE",
    "DEFAULT_GAMMA",
    "MAX_CHIPS",
    "OPTIONS",
    "FastMode",
    "OptionResult",
    "Setting",
    "batch_grid",
    "fast_mode",
]

OPTIONS: dict[str, str] = {
    "batch": "a smaller batch",
    "chips": "more chips",
    "speculative": "speculative decoding",
}
DEFAULT_GAMMA = 1  # DeepSeek-V3's MTP depth (arXiv 2412.19437, §2.2)
DEFAULT_ACCEPTANCE = 0.85  # the low end of its "85%-90%" (arXiv 2412.19437, §5.4.3)
CURVE_POINTS = 150  # the most points of an option's frontier returned


def batch_grid(top: int) -> NDArray[np.float64]:
    """Batches 1 .. `top`: every integer up to 64, then steps of 2%, and `top`."""
    ints = np.arange(1, min(top, 64) + 1, dtype=np.float64)
    if top <= 64:
        return ints
    k = np.arange(1, math.ceil(math.log(top / 64) / math.log(1.02)) + 1)
    geo = np.round(64 * 1.02**k)
    return np.unique(np.concatenate([ints, geo[geo < top], [float(top)]]))


@dataclass(frozen=True)
class Setting:
    """One way of serving: the chips, the split, the batch (and the speculation) and what it
    gives, under the deployment's engine; `speedup` and `price_multiple` against the base."""

    option: str  # "base" or a key of OPTIONS
    chips: int
    tp: int
    pp: int
    ep: int
    replicas: int
    split: str
    batch: int
    gamma: int | None
    acceptance: float | None
    tpot_s: float
    tokens_per_s_per_user: float
    tokens_per_s: float
    usd_per_million_tokens: float
    speedup: float
    price_multiple: float

    def text(self) -> str:
        """e.g. 'batch 21 on 1 chip (tp 1 · pp 1 · 1 replica)'."""
        s = f"batch {self.batch:,} on {self.chips} chip{'s' if self.chips > 1 else ''}"
        s += f" ({self.split})"
        if self.gamma is not None:
            s += f", γ {self.gamma}, α {self.acceptance:g}"
        return s


@dataclass(frozen=True)
class OptionResult:
    """One option: the cheapest setting reaching the factor (`reaches`), else the fastest it
    gets (None when it has no setting at all, with a note), and its frontier: `curve` holds
    `speedup`, `price_multiple`, `batch` and `chips`, fastest last."""

    option: str
    label: str
    reaches: bool
    setting: Setting | None
    note: str
    curve: dict[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class FastMode:
    """The answer of `fast_mode`: the base (decoding without speculation), each option tried,
    the cheapest reaching the factor (None when none does) and one line saying so; `draft`
    is the draft speculation used ("mtp", "none" or the draft model's name; "" when not
    tried), `mtp_layers` the model's own MTP layers, and `not_tried` each option left out,
    with why."""

    deployment: dict[str, Any]
    engine: str
    context_len: int
    batch: int
    speedup: float
    target_tpot_s: float
    max_chips: int
    base: Setting
    options: tuple[OptionResult, ...]
    cheapest: str | None
    reachable: bool
    latency_floor_s: float
    latency_floor: str
    message: str
    draft: str = ""
    mtp_layers: int = 0
    not_tried: dict[str, str] = field(default_factory=dict)

    def option(self, name: str) -> OptionResult:
        """The option `name` (a key of OPTIONS); KeyError, with why, for one not tried."""
        for o in self.options:
            if o.option == name:
                return o
        raise KeyError(f"{name}: {self.not_tried.get(name, 'not an option')}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Base:
    """What every setting is measured against."""

    def __init__(self, dep: Deployment, batch: int, context_len: int) -> None:
        self.dep, self.S = dep, context_len
        self.t = tpot(dep, batch, context_len)
        self.usd = dep.system.price_usd_per_s * self.t / batch * mega

    def setting(
        self,
        option: str,
        d: Deployment,
        batch: int,
        t: float,
        gamma: int | None = None,
        acceptance: float | None = None,
    ) -> Setting:
        usd = d.system.price_usd_per_s * t / batch * mega
        return Setting(
            option=option,
            chips=d.chips,
            tp=d.tp,
            pp=d.pp,
            ep=d.ep,
            replicas=d.replicas,
            split=d.split_text(),
            batch=int(batch),
            gamma=gamma,
            acceptance=acceptance,
            tpot_s=t,
            tokens_per_s_per_user=1.0 / t,
            tokens_per_s=batch / t,
            usd_per_million_tokens=usd,
            speedup=self.t / t,
            price_multiple=usd / self.usd,
        )

    def curve(
        self,
        t: NDArray[np.float64],
        usd: NDArray[np.float64],
        batch: NDArray[np.float64],
        chips: Any,
    ) -> dict[str, list[float]]:
        """The frontier of (time, $) points as speed-up and price multiple, fastest last."""
        idx = pareto_frontier(t, usd)[::-1]
        if idx.size > CURVE_POINTS:
            idx = idx[np.unique(np.linspace(0, idx.size - 1, CURVE_POINTS).round().astype(int))]
        n = np.broadcast_to(np.asarray(chips, dtype=np.float64), t.shape)
        return {
            "speedup": [float(x) for x in self.t / t[idx]],
            "price_multiple": [float(x) for x in usd[idx] / self.usd],
            "batch": [float(x) for x in batch[idx]],
            "chips": [float(x) for x in n[idx]],
        }


def _timer(d: Deployment, context_len: int) -> Callable[[int], float]:
    """Seconds per output token against batch, for `largest_within`."""
    return lambda b: tpot(d, b, context_len)


def _engine_times(d: Deployment, batches: NDArray[np.float64], context_len: int) -> Any:
    t, _, _ = d.time(d.decode(batches, context_len))
    return np.asarray(t, dtype=np.float64)


def _batch_option(base: _Base, batch: int, target: float) -> OptionResult:
    dep, S = base.dep, base.S
    grid = batch_grid(int(dep.max_batch(S)))
    t = _engine_times(dep, grid, S)
    curve = base.curve(t, dep.system.price_usd_per_s * t / grid * mega, grid, dep.chips)
    b = largest_within(lambda x: tpot(dep, x, S), 1, batch, target)
    if b >= 1:
        return OptionResult(
            "batch",
            OPTIONS["batch"],
            True,
            base.setting("batch", dep, b, tpot(dep, b, S)),
            "",
            curve,
        )
    one = base.setting("batch", dep, 1, tpot(dep, 1, S))
    note = f"batch 1 is the fastest this split gets: ×{sig(one.speedup)}"
    return OptionResult("batch", OPTIONS["batch"], False, one, note, curve)


def _chips_option(base: _Base, target: float, max_chips: int) -> OptionResult:
    dep, S = base.dep, base.S
    counts = sorted({n for n in [*powers(max_chips), max_chips] if n > dep.chips})
    if not counts:
        note = f"no chip count above {dep.chips} up to max_chips = {max_chips}"
        return OptionResult("chips", OPTIONS["chips"], False, None, note)
    span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    pts: dict[str, list[float]] = {"t": [], "usd": [], "batch": [], "chips": []}
    best: Setting | None = None
    fastest: tuple[float, Deployment] | None = None
    tried = 0
    for n in counts:
        for par in splits(dep.model, n):
            d = replace(
                dep,
                chips=n,
                tp=par.tp,
                pp=par.pp,
                ep=par.ep,
                replicas=1,
                split_rule="given",
                given=("tp", "pp", "ep", "replicas"),
            )
            fit = int(d.max_batch(S))
            if fit < 1:
                continue
            grid = batch_grid(fit)
            try:
                t = _engine_times(d, grid, S)
            except InputError:  # a split the chip's links cannot carry (no scale-out)
                continue
            tried += 1
            usd = d.system.price_usd_per_s * t / grid * mega
            for k, v in (("t", t), ("usd", usd), ("batch", grid), ("chips", np.full(t.shape, n))):
                pts[k] += [float(x) for x in v]
            if fastest is None or t[0] < fastest[0]:
                fastest = (float(t[0]), d)
            if t[0] > target:
                continue
            i = int(np.flatnonzero(t <= target)[-1])  # the grid's largest batch within it
            hi = int(grid[i + 1]) - 1 if i + 1 < grid.size else fit
            b = largest_within(_timer(d, S), int(grid[i]), hi, target)
            s = base.setting("chips", d, b, tpot(d, b, S))
            if best is None or s.usd_per_million_tokens < best.usd_per_million_tokens:
                best = s
    if fastest is None:
        note = f"the model fits on no split of {span} chips at context {S:,}"
        return OptionResult("chips", OPTIONS["chips"], False, None, note)
    arrays = {k: np.asarray(v, dtype=np.float64) for k, v in pts.items()}
    curve = base.curve(arrays["t"], arrays["usd"], arrays["batch"], arrays["chips"])
    if best is not None:
        return OptionResult("chips", OPTIONS["chips"], True, best, "", curve)
    s = base.setting("chips", fastest[1], 1, fastest[0])
    note = f"the fastest of {tried} splits on {span} chips gets ×{sig(s.speedup)}"
    return OptionResult("chips", OPTIONS["chips"], False, s, note, curve)


def _speculative_option(
    base: _Base, target: float, gamma: int, acceptance: float, draft: str | ModelSpec | None
) -> OptionResult:
    dep, S = base.dep, base.S

    def spec_tpot(b: int) -> float:
        per = -(-b // dep.replicas)
        r = speculative_decode(
            dep.model,
            dep.instance,
            batch=per,
            context_len=S,
            gamma=gamma,
            acceptance=acceptance,
            draft=draft,
            weight_dtype=dep.weight_dtype,
            kv_dtype=dep.kv_dtype,
            overlap=dep.overlap,
            parallel=dep.parallel,
            comm=dep.comm,
        )
        return tpot(dep, b, S) / r.speedup  # the engine's step ÷ the ideal speed-up

    fit = int(dep.max_batch(S))
    grid = batch_grid(fit)
    t = np.asarray([spec_tpot(int(b)) for b in grid], dtype=np.float64)
    usd = dep.system.price_usd_per_s * t / grid * mega
    curve = base.curve(t, usd, grid, dep.chips)
    ok = np.flatnonzero(t <= target)
    if ok.size:
        i = int(ok[-1])
        hi = int(grid[i + 1]) - 1 if i + 1 < grid.size else fit
        b = largest_within(spec_tpot, int(grid[i]), hi, target)
        s = base.setting("speculative", dep, b, spec_tpot(b), gamma, acceptance)
        return OptionResult("speculative", OPTIONS["speculative"], True, s, "", curve)
    s = base.setting("speculative", dep, 1, float(t[0]), gamma, acceptance)
    note = f"at batch 1 speculation (γ {gamma}, α {acceptance:g}) gets ×{sig(s.speedup)}"
    return OptionResult("speculative", OPTIONS["speculative"], False, s, note, curve)


def _split_of(dep: Deployment, s: Setting) -> Deployment:
    """The deployment a setting names (its chips and split, one instance)."""
    if (s.chips, s.tp, s.pp, s.ep, s.replicas) == (dep.chips, dep.tp, dep.pp, dep.ep, dep.replicas):
        return dep
    return replace(
        dep,
        chips=s.chips,
        tp=s.tp,
        pp=s.pp,
        ep=s.ep,
        replicas=s.replicas,
        split_rule="given",
        given=("tp", "pp", "ep", "replicas"),
    )


def _what_stops_batch_one(dep: Deployment, options: tuple[OptionResult, ...], S: int) -> str:
    """Why no setting reaches a target slower than the latency floor: batch 1's time on the
    fastest split tried (without speculation), as the ideal step's parts and, under a
    calibrated engine, its efficiencies and fixed times."""
    tried = [dep]
    for o in options:
        if o.option == "chips" and o.setting is not None:
            tried.append(_split_of(dep, o.setting))
    d = min(tried, key=lambda x: tpot(x, 1, S))
    t = tpot(d, 1, S)
    step = d.decode(1, S)
    ideal = float(np.asarray(step.t_step).flat[0])
    terms = (
        ("the weights", step.t_weights),
        (f"the KV cache of {S:,} tokens", step.t_kv),
        ("compute", step.t_compute),
        ("communication", step.t_comm),
    )
    secs = [(what, float(np.asarray(v).flat[0])) for what, v in terms]
    named = ", ".join(f"{what} {sig(x / ms)} ms" for what, x in secs if x > 0)
    text = (
        f"batch 1 takes {sig(t / ms)} ms per token on the fastest split tried "
        f"({d.chips} chip{'s' if d.chips > 1 else ''}, {d.split_text()}): the ideal step "
        f"{sig(ideal / ms)} ms (its terms: {named})"
    )
    if d.profile is None:
        return text
    parts = engine_parts(d, ideal, t)
    return (
        f"{text}, {sig(parts['efficiency_s'] / ms)} ms more at the {d.engine} engine's measured "
        f"efficiencies and {sig(parts['fixed_s'] / ms)} ms of its fixed times per step "
        "(scheduler, sampling, kernel launches)"
    )


def fast_mode(
    dep: Deployment,
    *,
    context_len: int = 4096,
    batch: int,
    speedup: float,
    gamma: int = DEFAULT_GAMMA,
    acceptance: float = DEFAULT_ACCEPTANCE,
    draft: str | ModelSpec | None = "auto",
    max_chips: int | None = None,
    mtp_layers: int | None = None,
) -> FastMode:
    """The cheapest way to serve `dep` at `batch` and `context_len` with `speedup` times the
    tokens/s per user, and its price multiple (see the module docstring). `draft` is "auto"
    (the model's own MTP module when it has one, else speculation is not tried), "mtp" (a
    multi-token-prediction module, assumed), None or "none" (a free draft: the most
    speculation can give) or a draft model; `mtp_layers` the model's MTP layers when known
    otherwise (an uploaded config.json; default: read from the model's config by its id).
    `max_chips` (default: twice the deployment's chips, at least the chip's scale-up domain;
    at most MAX_CHIPS) bounds the `chips` option."""
    S = count(context_len, "context_len")
    B = count(batch, "batch")
    ok = isinstance(speedup, (int, float)) and not isinstance(speedup, bool)
    if not (ok and math.isfinite(speedup) and 1 <= speedup <= 1e6):
        raise InputError(
            f"speedup must be a number of at least 1 (×1.0: the base), got {speedup!r}",
            field="speedup",
        )
    tokens_per_verification(gamma, acceptance)  # checks gamma and acceptance
    spec_draft = resolve_draft(draft)
    mtp = model_mtp_layers(dep) if mtp_layers is None else check_mtp_layers(mtp_layers)
    not_tried: dict[str, str] = {}
    if spec_draft == "auto":
        spec_draft = "mtp"
        if not mtp:
            not_tried["speculative"] = no_mtp_reason(dep)
    if max_chips is None:
        limit = min(max(2 * dep.chips, dep.chip.scale_up_domain), MAX_CHIPS)
    else:
        limit = check_max_chips(max_chips)
    if not dep.chip.price_usd_per_s > 0:
        raise InputError(
            f"{dep.chip.id}: {unpriced_reason(dep.chip)}, so a price multiple is undefined: "
            "fast-mode needs a price (USD per chip-hour)",
            field="price_usd_per_hour",
        )
    fit = int(dep.max_batch(S))
    if B > fit:
        why = fit_message(dep, S, B) or f"does not fit (the largest batch that fits is {fit:,})"
        raise InputError(f"the base batch {B:,} at context {S:,} {why}", field="batch")
    base = _Base(dep, B, S)
    target = base.t / speedup
    options = [_batch_option(base, B, target), _chips_option(base, target, limit)]
    if "speculative" not in not_tried:
        spec = _speculative_option(base, target, gamma, acceptance, spec_draft)
        if spec_draft == "mtp" and not mtp:  # asked for, though the model has none
            assumed = f"assumed: {dep.spec.name} has no MTP layer; timed as if it had one"
            spec = replace(spec, note="; ".join(x for x in (assumed, spec.note) if x))
        options.append(spec)
    reaching = [o for o in options if o.reaches and o.setting is not None]
    best = min(reaching, key=lambda o: o.setting.price_multiple if o.setting else 0.0, default=None)
    floor = float(np.asarray(dep.decode(1, 1).t_weights).flat[0])
    floor_text = (
        f"the latency floor: the weights one token reads, {sig(floor * dep.chip.memory_bw / GB)} "
        f"GB per chip, over {sig(dep.chip.memory_bw / TB)} TB/s = {sig(floor / ms)} ms per token "
        f"({1 / floor:,.1f} tokens/s per user) on {dep.split_text()}"
    )
    u0, u1 = 1 / base.t, speedup / base.t
    if best is not None and best.setting is not None:
        s = best.setting
        message = (
            f"×{speedup:g} tokens/s per user ({u0:,.1f} → {u1:,.1f}, from the base decoding "
            f"without speculation) costs ×{sig(s.price_multiple)} per token at the cheapest, "
            f"{best.label}: {s.text()}"
        )
    else:
        top = max(
            (o for o in options if o.setting is not None),
            key=lambda o: o.setting.speedup if o.setting else 0.0,
        )
        assert top.setting is not None  # the batch option always has one
        head = (
            f"×{speedup:g} ({u1:,.1f} tokens/s per user, from the base's {u0:,.1f} decoding "
            f"without speculation) is out of reach: the fastest setting found, {top.label} at "
            f"{top.setting.text()}, gives ×{sig(top.setting.speedup)}. "
        )
        if target < floor:
            message = head + f"No batch passes {floor_text}"
        else:
            message = head + (
                f"The target, {sig(target / ms)} ms per token, is above {floor_text}; what "
                f"stops it: {_what_stops_batch_one(dep, tuple(options), S)}"
            )
    return FastMode(
        deployment=dep.as_dict(),
        engine=dep.engine,
        context_len=S,
        batch=B,
        speedup=float(speedup),
        target_tpot_s=target,
        max_chips=limit,
        base=base.setting("base", dep, B, base.t),
        options=tuple(options),
        cheapest=best.option if best is not None else None,
        reachable=best is not None,
        latency_floor_s=floor,
        latency_floor=floor_text,
        message=message,
        draft="" if "speculative" in not_tried else draft_name(spec_draft),
        mtp_layers=mtp,
        not_tried=not_tried,
    )
