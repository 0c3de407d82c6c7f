"""A hardware record's schema (`hardware/record.py`), checked key by key: unknown keys with the
keys one probably meant, values of the wrong type, each error one line naming the key and where
the record came from; and `unscale`, which writes a figure back in the record's unit so that
a record written from a Chip loads back as the same Chip. (Whole files through the loader are
checked in tests/hardware/test_catalog.py.)"""

from __future__ import annotations

import random

import pytest

from llm_roofline._core.errors import ConfigError
from llm_roofline.hardware.record import (
    CHIP_CLASSES,
    DEFAULT_CLASS,
    KINDS,
    PEAK_KEYS,
    RECORD_KEYS,
    RecordSite,
    check_record,
    record_number,
    unscale,
)

FILE = RecordSite("mine", "my.toml")
CATALOG = RecordSite("h100-sxm", None)
GOOD = {"name": "x", "memory_capacity_gb": 80, "memory_bandwidth_tb_per_s": 3.35}


def _refused(rec: dict[str, object], where: RecordSite = FILE) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        check_record(rec, where)
    return e.value


def test_unknown_keys_suggest_what_was_meant() -> None:
    # the same first word: all four memory_* keys, sorted
    e = _refused({**GOOD, "memory_bw": 3})
    assert str(e) == (
        "my.toml: unknown key 'memory_bw' (did you mean memory_bandwidth_tb_per_s or "
        "memory_capacity_gb or memory_capacity_gib or memory_type?)"
    )
    assert e.field == "memory_bw"
    # else the closest by spelling; a catalog record is named by its id
    e = _refused({"bf16_tflops": 989}, CATALOG)
    assert (
        str(e) == "hardware 'h100-sxm': unknown key 'bf16_tflops' (did you mean bf16_dense_tflops?)"
    )
    e = _refused({"sources": {"pwer_w": "https://example.com"}})
    assert str(e) == "my.toml: unknown key 'sources.pwer_w' (did you mean sources.power_w?)"
    assert e.field == "sources.pwer_w"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("power_w", -1, "power_w must be a positive number, got -1"),
        ("power_w", True, "power_w must be a positive number, got True"),
        (
            "price_usd_per_hour",
            float("nan"),
            "price_usd_per_hour must be a positive number, got nan",
        ),
        (
            "memory_bandwidth_tb_per_s",
            "3.35",
            "memory_bandwidth_tb_per_s must be a positive number, got '3.35'",
        ),
        ("year", True, "year must be a positive integer, got True"),
        ("scale_up_domain_chips", 0, "scale_up_domain_chips must be a positive integer, got 0"),
        ("name", 7, "name must be a string, got 7"),
        ("kind", "fpga", "kind must be one of gpu, tpu, accelerator, soc, got 'fpga'"),
        ("memory_capacity_gib", 80, "give memory_capacity_gb or memory_capacity_gib, not both"),
        ("estimated", ["pwer_w"], "estimated names unknown key 'pwer_w'"),
    ],
)
def test_a_bad_value_is_one_line_naming_its_key(key: str, value: object, message: str) -> None:
    e = _refused({**GOOD, key: value})
    assert str(e) == f"my.toml: {message}"
    assert e.field == key


def test_a_good_record_passes_and_numbers_read_as_floats() -> None:
    check_record({**GOOD, "kind": "tpu", "class": "tpu", "estimated": ["power_w"]}, FILE)
    assert record_number({"power_w": 700}, "power_w", FILE) == 700.0
    # every peak key names a data type; every kind implies a class
    assert set(PEAK_KEYS) <= RECORD_KEYS and PEAK_KEYS["bf16_dense_tflops"] == "bf16"
    assert set(DEFAULT_CLASS) == set(KINDS) and set(DEFAULT_CLASS.values()) <= set(CHIP_CLASSES)


def test_unscale_gives_the_shortest_figure_that_scales_back_exactly() -> None:
    # H100 SXM's datasheet figures: 989.4 TFLOP/s dense bf16, 3.35 TB/s, 80 GB
    assert unscale(989.4e12, 1e12) == 989.4
    assert unscale(3.35e12, 1e12) == 3.35
    got = unscale(80e9, 1e9)
    assert got == 80 and isinstance(got, int)  # a whole number is written as one
    # any figure x a record could hold: x · scale scales back to itself exactly
    rng = random.Random(0)
    for _ in range(300):
        for scale in (1e9, 1e12, 2**30, 3600.0):
            si = rng.uniform(0.01, 1e5) * scale
            assert unscale(si, scale) * scale == si
