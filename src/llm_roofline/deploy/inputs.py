"""A deployment's inputs checked one by one, each error naming its field: the chip (a catalog id
or a record file, at a price of its own), the data types, the overlap mode, the engine, and the
words that say how the split was chosen."""

from __future__ import annotations

from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.errors import ConfigError, InputError, UnknownIdError
from llm_roofline.calibration.profile import list_profiles
from llm_roofline.engine.roofline import OVERLAP_MODES
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.hardware.chip import Chip

__all__ = [
    "DEFAULT_ENGINE",
    "checked_chip",
    "checked_dtypes",
    "checked_overlap",
    "engine_name",
    "split_rule_text",
]

DEFAULT_ENGINE = "calibrated"


def engine_name(engine: str | None) -> str:
    """The engine `engine` names, checked (None: the default); UnknownIdError otherwise."""
    name = (engine or DEFAULT_ENGINE).strip().lower()
    known = list_profiles()
    if name not in known:
        raise UnknownIdError("engine", name, known)
    return name


def checked_chip(hardware: str | Chip, price_usd_per_hour: float | None) -> Chip:
    """The chip `hardware` names, at `price_usd_per_hour` when given; a bad record file is an
    error of the field `hardware`."""
    try:
        chip = get_hardware(hardware)
    except ConfigError as exc:  # a chip record FILE.toml: the field is the hardware
        raise ConfigError(str(exc), field="hardware") from None
    return chip if price_usd_per_hour is None else chip.with_price(price_usd_per_hour)


def checked_dtypes(weight_dtype: str, kv_dtype: str) -> None:
    """Both data types exist; an unknown one is an error of its own field."""
    for name, value in (("weight_dtype", weight_dtype), ("kv_dtype", kv_dtype)):
        try:
            get_dtype(value)
        except UnknownIdError as exc:  # name the field it came from
            raise InputError(str(exc), field=name) from None


def checked_overlap(overlap: str) -> None:
    if overlap not in OVERLAP_MODES:
        raise InputError(
            f"overlap must be one of {', '.join(OVERLAP_MODES)}, got {overlap!r}", field="overlap"
        )


def split_rule_text(given: list[str]) -> str:
    """How the split was chosen, from the degrees the user gave (of tp, pp, ep, replicas)."""
    if len(given) == 4:
        return "given"
    if given:
        return f"auto, keeping the given {', '.join(given)}"
    return "auto"
