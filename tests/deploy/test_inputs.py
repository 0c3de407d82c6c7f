"""`deploy.inputs`: each input of a deployment checked on its own, every refusal naming the
field it came from (docs/deployment.md, "the contract"), and the words for how a split was
chosen."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_roofline._core.errors import ConfigError, InputError, UnknownIdError
from llm_roofline.deploy.inputs import (
    DEFAULT_ENGINE,
    checked_chip,
    checked_dtypes,
    checked_overlap,
    engine_name,
    split_rule_text,
)
from llm_roofline.hardware.catalog import get_hardware


def test_engine_name_defaults_cleans_and_refuses() -> None:
    assert engine_name(None) == DEFAULT_ENGINE == "calibrated"
    assert engine_name("") == "calibrated"  # an empty field is no engine named
    assert engine_name("  IDEAL ") == "ideal"
    with pytest.raises(UnknownIdError) as exc:
        engine_name("warp-drive")
    assert exc.value.kind == "engine"


def test_checked_chip_takes_a_price_of_its_own(tmp_path: Path) -> None:
    catalog = get_hardware("h100-sxm")
    assert checked_chip("h100-sxm", None) == catalog  # no price given: the catalog's
    # $2.00 per chip-hour is 2 / 3,600 $ per second
    assert checked_chip("h100-sxm", 2.0).price_usd_per_s == pytest.approx(2.0 / 3600)
    # a record file with a bad figure is an error of the field `hardware`, naming the file
    bad = tmp_path / "mine.toml"
    bad.write_text("[mine]\nmemory_bandwidth_tb_per_s = -1\n", encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        checked_chip(str(bad), None)
    assert exc.value.field == "hardware"
    assert str(exc.value).startswith(f"{bad}: memory_bandwidth_tb_per_s must be a positive")


def test_checked_dtypes_names_the_field_of_the_unknown_one() -> None:
    checked_dtypes("bf16", "fp8")  # both known: nothing to say
    for weight, kv, field in (("fp7", "bf16", "weight_dtype"), ("bf16", "int3", "kv_dtype")):
        with pytest.raises(InputError) as exc:
            checked_dtypes(weight, kv)
        assert exc.value.field == field


def test_checked_overlap_lists_the_three_modes() -> None:
    for mode in ("full", "per-op", "none"):
        checked_overlap(mode)
    with pytest.raises(InputError) as exc:
        checked_overlap("partial")
    assert exc.value.field == "overlap"
    assert str(exc.value) == "overlap must be one of full, per-op, none, got 'partial'"


def test_split_rule_text_says_what_was_given() -> None:
    assert split_rule_text([]) == "auto"
    assert split_rule_text(["tp"]) == "auto, keeping the given tp"
    assert split_rule_text(["tp", "replicas"]) == "auto, keeping the given tp, replicas"
    assert split_rule_text(["tp", "pp", "ep", "replicas"]) == "given"
