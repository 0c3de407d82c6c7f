"""A planning question (`FleetRequest`): the model, the chips to choose from, the traffic and
its two latency targets, and how to search; checked and resolved (model spec, priced chips,
engine name) when it is built, so that `fleet_plan.plan`, the command line and the web ask
the same question the same way. `priced_chips` sets the price of each chip to plan on."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from llm_roofline._core import units
from llm_roofline._core.checks import batched_tokens, positive_int, positive_number
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import InputError, LlmRooflineError, UnknownIdError
from llm_roofline.deploy.inputs import engine_name
from llm_roofline.engine.cost import is_priced
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec
from llm_roofline.sim.serving_engines import DEFAULT_ENGINE, ENGINES

__all__ = ["DISAGG_CHOICES", "FleetRequest", "priced_chips"]

DISAGG_CHOICES = ("auto", "yes", "no")
# the targets as the web and the command line take them (ms), and the request's own (seconds)
_IN_MS = {"ttft_p90_ms": "ttft_p90_s", "tpot_p99_ms": "tpot_p99_s"}


@dataclass(frozen=True)
class FleetRequest:
    """The cheapest fleet of `hardware` (catalog ids, FILE.toml records or Chips; a string is
    split at commas) serving `rate` requests per second (Poisson) of `input_len` prompt and
    `output_len` output tokens (means, spread by `length_dist`) within TTFT p90 `ttft_p90_s`
    and TPOT p99 `tpot_p99_s`. `max_chips`: the most chips the whole fleet may use; `disagg`:
    "no" (aggregated only), "yes" (disaggregated only) or "auto" (both); `requests`: how many
    each simulation serves (seeded draws from `seed`); `time_limit_s`: stop the search with
    TimeLimitError (field `requests`) past this many seconds.

    Built checked (InputError naming the field, UnknownIdError for an engine) and resolved:
    `spec`, `model_id` (the id asked, or the spec's name), `chips` (each once, priced),
    `engine` (its checked name). `from_fields` builds one from the web's field names."""

    model: str | ModelSpec
    hardware: Sequence[str | Chip] | str
    rate: float
    input_len: int
    output_len: int
    ttft_p90_s: float
    tpot_p99_s: float
    max_chips: int = 64
    disagg: str = "auto"
    engine: str | None = None
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    length_dist: str = "fixed"
    requests: int = 2000
    seed: int = 0
    max_seqs: int = 256
    max_batched_tokens: int = 8192
    time_limit_s: float | None = None
    serving_engine: str = DEFAULT_ENGINE
    spec: ModelSpec = field(init=False, repr=False, compare=False)
    model_id: str = field(init=False)
    chips: tuple[Chip, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._check_numbers()
        object.__setattr__(self, "engine", engine_name(self.engine))
        for name, value in (("weight_dtype", self.weight_dtype), ("kv_dtype", self.kv_dtype)):
            try:
                get_dtype(value)
            except UnknownIdError as exc:
                raise InputError(str(exc), field=name) from None
        if self.serving_engine not in ENGINES:
            raise InputError(
                f"serving_engine must be one of {', '.join(ENGINES)}, got {self.serving_engine!r}",
                field="serving_engine",
            )
        if self.disagg not in DISAGG_CHOICES:
            raise InputError(
                f"disagg must be one of {', '.join(DISAGG_CHOICES)}, got {self.disagg!r}",
                field="disagg",
            )
        hardware = self.hardware
        if isinstance(hardware, str):
            hardware = [h for h in hardware.split(",") if h.strip()]
        if not hardware:
            raise InputError("give at least one hardware id", field="hardware")
        spec = get_model(self.model)
        object.__setattr__(self, "spec", spec)
        object.__setattr__(
            self, "model_id", self.model if isinstance(self.model, str) else spec.name
        )
        object.__setattr__(self, "chips", _chips(hardware))

    def _check_numbers(self) -> None:
        if self.time_limit_s is not None:
            positive_number(self.time_limit_s, "time_limit_s")
        positive_number(self.rate, "rate")
        for name in ("input_len", "output_len"):
            positive_int(getattr(self, name), name)
        positive_number(self.ttft_p90_s, "ttft_p90_s")
        positive_number(self.tpot_p99_s, "tpot_p99_s")
        for name in ("max_chips", "requests", "max_seqs", "max_batched_tokens"):
            positive_int(getattr(self, name), name)
        batched_tokens(self.max_seqs, self.max_batched_tokens)

    @classmethod
    def from_fields(cls, given: Mapping[str, Any], **override: Any) -> FleetRequest:
        """A request from the field names of the web's PlanRequest: the targets in ms
        (`ttft_p90_ms`, `tpot_p99_ms`; the `_s` names are taken too), `prices` as {chip id: USD
        per chip-hour} over `hardware` (`priced_chips`, refused naming `prices`), every other
        field by its own name; `override` replaces any of them (e.g. `model=` a spec built from
        an uploaded config, `hardware=` chips already read). An unknown name is refused."""
        values = {**given, **override}
        own = {f.name for f in fields(cls) if f.init}
        unknown = sorted(k for k in values if k not in own and k not in _IN_MS and k != "prices")
        if unknown:
            raise InputError(f"unknown field {unknown[0]!r} for a plan", field=unknown[0])
        for ms_name, s_name in _IN_MS.items():
            if ms_name in values:
                values[s_name] = values.pop(ms_name) * units.ms
        prices = values.pop("prices", None)
        if prices:
            hardware = values.get("hardware") or ()
            if isinstance(hardware, str):
                hardware = [h for h in hardware.split(",") if h.strip()]
            values["hardware"] = priced_chips(_read(hardware), prices)
        return cls(**values)

    def as_dict(self, engine: str | None = None) -> dict[str, Any]:
        """The question as `plan`'s answer echoes it (`request`): ids, not objects; `engine`
        the one its fleets were timed with (by default the one asked)."""
        return {
            "model": self.model_id,
            "hardware": [c.id for c in self.chips],
            "rate_rps": self.rate,
            "input_len": self.input_len,
            "output_len": self.output_len,
            "length_dist": self.length_dist,
            "ttft_p90_s": self.ttft_p90_s,
            "tpot_p99_s": self.tpot_p99_s,
            "max_chips": self.max_chips,
            "disagg": self.disagg,
            "engine": self.engine if engine is None else engine,
            "requests_per_simulation": self.requests,
        }


def _read(hardware: Sequence[str | Chip]) -> list[Chip]:
    """Each chip of `hardware`, read (a bad id or file is refused naming `hardware`)."""
    out = []
    for h in hardware:
        try:
            out.append(get_hardware(h.strip() if isinstance(h, str) else h))
        except LlmRooflineError as exc:
            raise InputError(str(exc), field="hardware") from None
    return out


def _chips(hardware: Sequence[str | Chip]) -> tuple[Chip, ...]:
    """The chips to plan on, each once (named twice: searched once), each with a price."""
    chips: list[Chip] = []
    for c in _read(hardware):
        same = [k for k in chips if k.id == c.id]
        if same and same[0] != c:
            raise InputError(f"two different chips are called {c.id!r}", field="hardware")
        if same:
            continue
        if not is_priced(c):
            raise InputError(
                f"{c.id} has no price in the catalog; plan ranks fleets by cost (give a chip "
                "record with price_usd_per_hour)",
                field="hardware",
            )
        chips.append(c)
    return tuple(chips)


def priced_chips(
    chips: Sequence[Chip],
    prices: Mapping[str, float] | Sequence[tuple[str, float]] | None,
    *,
    field: str = "prices",
) -> list[Chip]:
    """The chips to plan on, each at the price given for it, keyed by chip id (case ignored),
    as a mapping or as (id, price) pairs in the order given; the others at their own. Refused
    naming `field`: a price for a chip not among them, two prices for one chip (`h100-sxm` and
    `H100-SXM` are one), or one that is not over 0 and at most 1,000 $ per chip-hour (a plan
    ranks fleets by cost, so hardware you own, price 0, cannot be planned)."""
    out = list(chips)
    at = {c.id.lower(): i for i, c in enumerate(out)}
    pairs = list(prices.items() if isinstance(prices, Mapping) else prices or ())
    seen: dict[int, object] = {}  # chip index -> the price given for it first
    for key, usd in pairs:
        i = at.get(str(key).strip().lower())
        if i is None:
            raise InputError(
                f"a price for {key!r}, which is not among the hardware to plan on "
                f"({', '.join(c.id for c in out)})",
                field=field,
            )
        if i in seen:  # the later would silently win
            a, b = (f"{x:g}" if isinstance(x, (int, float)) else repr(x) for x in (seen[i], usd))
            raise InputError(
                f"two prices for {out[i].id}, {a} and {b} $ per chip-hour: give one", field=field
            )
        seen[i] = usd
        ok = isinstance(usd, (int, float)) and not isinstance(usd, bool) and math.isfinite(usd)
        if not (ok and 0 < usd <= 1000):
            raise InputError(
                f"the price of {out[i].id} must be over 0 and at most 1000 $ per chip-hour, got "
                f"{usd!r}"
                + (
                    ": a plan ranks fleets by cost, so hardware you own (price 0) cannot be "
                    "planned; leave the price out for the catalog's"
                    if ok and usd == 0
                    else ""
                ),
                field=field,
            )
        out[i] = out[i].with_price(float(usd))
    return out
