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
  optimizer tries there (`engine.candidates`), every batch that fits: each chip reads a smaller
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
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from llm_roofline._core import checks
from llm_roofline._core.errors import InputError
from llm_roofline._core.units import GB, TB, ms, sig
from llm_roofline.deploy.deployment import Deployment
from llm_roofline.deploy.report_table import engine_parts, fit_message, split_latency_floor
from llm_roofline.engine.cost import require_price
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.model.spec import ModelSpec
from llm_roofline.serving.speculative import tokens_per_verification
from llm_roofline.whatif.batches import tpot
from llm_roofline.whatif.drafts import (
    check_mtp_layers,
    draft_name,
    model_mtp_layers,
    no_mtp_reason,
    resolve_draft,
)
from llm_roofline.whatif.fast_options import (
    OPTIONS,
    Baseline,
    OptionResult,
    Setting,
    batch_grid,
    batch_option,
    chips_option,
    on_split,
    speculative_option,
)
from llm_roofline.whatif.limits import MAX_CHIPS
from llm_roofline.whatif.sensitivity import check_max_chips

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

DEFAULT_GAMMA = 1  # DeepSeek-V3's MTP depth (arXiv 2412.19437, §2.2)
DEFAULT_ACCEPTANCE = 0.85  # the low end of its "85%-90%" (arXiv 2412.19437, §5.4.3)


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


def _what_stops_batch_one(dep: Deployment, options: tuple[OptionResult, ...], S: int) -> str:
    """Why no setting reaches a target slower than the latency floor: batch 1's time on the
    fastest split tried (without speculation), as the ideal step's parts and, under a
    calibrated engine, its efficiencies and fixed times."""
    tried = [dep]
    for o in options:
        if o.option == "chips" and (s := o.setting) is not None:
            par = Parallelism(s.chips, s.tp, s.pp, s.ep)
            tried.append(on_split(dep, s.chips, par, s.replicas))
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


def _question(context_len: int, batch: int, speedup: float) -> tuple[int, int]:
    """The context and the base batch as ints, and the factor, checked."""
    S = checks.positive_int(context_len, "context_len")
    B = checks.positive_int(batch, "batch")
    ok = isinstance(speedup, (int, float)) and not isinstance(speedup, bool)
    if not (ok and math.isfinite(speedup) and 1 <= speedup <= 1e6):
        raise InputError(
            f"speedup must be a number of at least 1 (×1.0: the base), got {speedup!r}",
            field="speedup",
        )
    return S, B


def _check_base(dep: Deployment, S: int, B: int) -> None:
    """A chip without a price is refused (a price multiple needs a price), and a base batch
    that does not fit."""
    require_price(dep.chip, ", so a price multiple is undefined")
    fit = int(dep.max_batch(S))
    if B > fit:
        why = fit_message(dep, S, B) or f"does not fit (the largest batch that fits is {fit:,})"
        raise InputError(f"the base batch {B:,} at context {S:,} {why}", field="batch")


def _floor_text(dep: Deployment, floor: float) -> str:
    return (
        f"the latency floor: the weights one token reads, {sig(floor * dep.chip.memory_bw / GB)} "
        f"GB per chip, over {sig(dep.chip.memory_bw / TB)} TB/s = {sig(floor / ms)} ms per token "
        f"({1 / floor:,.1f} tokens/s per user) on {dep.split_text()}"
    )


def _message(
    base: Baseline, speedup: float, options: list[OptionResult], best: OptionResult | None
) -> str:
    """One line: the cheapest option reaching the factor and its price multiple, or the fastest
    setting found and what stops the rest (the latency floor, or batch 1's own time)."""
    dep, S = base.dep, base.S
    target = base.t / speedup
    u0, u1 = 1 / base.t, speedup / base.t
    if best is not None and best.setting is not None:
        s = best.setting
        return (
            f"×{speedup:g} tokens/s per user ({u0:,.1f} → {u1:,.1f}, from the base decoding "
            f"without speculation) costs ×{sig(s.price_multiple)} per token at the cheapest, "
            f"{best.label}: {s.text()}"
        )
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
    floor = split_latency_floor(dep)
    if target < floor:
        return head + f"No batch passes {_floor_text(dep, floor)}"
    return head + (
        f"The target, {sig(target / ms)} ms per token, is above {_floor_text(dep, floor)}; what "
        f"stops it: {_what_stops_batch_one(dep, tuple(options), S)}"
    )


def _draft(
    dep: Deployment, draft: str | ModelSpec | None, mtp_layers: int | None
) -> tuple[str | ModelSpec | None, int, dict[str, str]]:
    """The draft to speculate with, the model's MTP layers, and the options not tried (with
    why): "auto" is the model's own MTP module, or no speculation for a model without one."""
    spec_draft = resolve_draft(draft)
    mtp = model_mtp_layers(dep) if mtp_layers is None else check_mtp_layers(mtp_layers)
    not_tried: dict[str, str] = {}
    if spec_draft == "auto":
        spec_draft = "mtp"
        if not mtp:
            not_tried["speculative"] = no_mtp_reason(dep)
    return spec_draft, mtp, not_tried


# size: 9 keywords: the question's (context, batch, speed-up, chips) and the draft's, by name
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
    S, B = _question(context_len, batch, speedup)
    tokens_per_verification(gamma, acceptance)  # checks gamma and acceptance
    spec_draft, mtp, not_tried = _draft(dep, draft, mtp_layers)
    if max_chips is None:
        limit = min(max(2 * dep.chips, dep.chip.scale_up_domain), MAX_CHIPS)
    else:
        limit = check_max_chips(max_chips)
    _check_base(dep, S, B)
    base = Baseline(dep, B, S)
    target = base.t / speedup
    options = [batch_option(base, B, target), chips_option(base, target, limit)]
    if "speculative" not in not_tried:
        spec = speculative_option(base, target, gamma, acceptance, spec_draft)
        if spec_draft == "mtp" and not mtp:  # asked for, though the model has none
            assumed = f"assumed: {dep.spec.name} has no MTP layer; timed as if it had one"
            spec = replace(spec, note="; ".join(x for x in (assumed, spec.note) if x))
        options.append(spec)
    reaching = [o for o in options if o.reaches and o.setting is not None]
    best = min(reaching, key=lambda o: o.setting.price_multiple if o.setting else 0.0, default=None)
    floor = split_latency_floor(dep)
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
        latency_floor=_floor_text(dep, floor),
        message=_message(base, speedup, options, best),
        draft="" if "speculative" in not_tried else draft_name(spec_draft),
        mtp_layers=mtp,
        not_tried=not_tried,
    )
