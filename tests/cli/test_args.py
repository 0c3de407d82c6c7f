"""The command line's argument types (`llm_roofline.cli._args`): counts as people write them
(binary suffixes, docs/cli.md "Counts as people write them"), lists and ranges of powers of two,
prices, and a number that must be written out. Each refusal is argparse's one line."""

from __future__ import annotations

import argparse
import math

import pytest

from llm_roofline.cli._args import (
    float_list,
    int_list,
    nonneg_int,
    positive_float,
    positive_int,
    price,
    written_out,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4096", 4096),
        ("16k", 16 * 1024),  # 16,384: k = 2**10 (docs/cli.md)
        ("128k", 128 * 1024),  # 131,072: Llama 3.1's max_position_embeddings
        ("1M", 2**20),  # 1,048,576
        ("10M", 10 * 2**20),  # 10,485,760: Llama 4 Scout's context
        ("1G", 2**30),
        ("1.5k", 1536),  # 1.5 * 1,024
        ("1e3", 1000),  # plain scientific notation: no suffix, decimal
        ("16_384", 16384),
    ],
)
def test_positive_int_reads_binary_sizes(text: str, value: int) -> None:
    assert positive_int(text) == value


def test_counts_refuse_fractions_and_zero_with_what_to_write() -> None:
    # 0.3 * 1,024 = 307.2 tokens: not a whole number
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        positive_int("0.3k")
    assert str(exc.value) == (
        "expected a positive integer, got '0.3k' "
        "(sizes like 16k or 1M (k = 1,024, M = 1,048,576: 16k = 16,384))"
    )
    with pytest.raises(argparse.ArgumentTypeError, match=r"^expected a positive integer, got '0'$"):
        positive_int("0")
    # 0 is a count for nonneg_int (predict's --output-len in decode mode), a negative is not
    assert nonneg_int("0") == 0
    assert nonneg_int("2k") == 2048
    with pytest.raises(argparse.ArgumentTypeError, match="0 or a positive integer, got '-1'"):
        nonneg_int("-1")


def test_int_list_lists_and_power_of_two_ranges() -> None:
    assert int_list("1,2,4") == [1, 2, 4]
    assert int_list("1,8,64") == [1, 8, 64]
    assert int_list("2k,16k") == [2048, 16384]
    # 1..256: 2**0 .. 2**8, nine values
    assert int_list("1..256") == [2**i for i in range(9)]
    # 1k..128k: 2**10 .. 2**17, eight values, the last 131,072
    assert int_list("1k..128k") == [2**i for i in range(10, 18)]
    # a range whose end is not a power of two stops at the last doubling within it
    assert int_list("3..20") == [3, 6, 12]
    assert int_list("5..5") == [5]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("8..4", "expected positive integers like 1,8,64 or 1..4096, got '8..4' (A..B: powers"),
        ("0..4", "expected positive integers like 1,8,64 or 1..4096, got '0..4'"),
        ("a,b", "expected positive integers like 1,8,64 or 1..4096, got 'a,b'"),
        ("0,1", "expected positive integers, got '0,1'"),
        (",", "expected positive integers, got ','"),
    ],
)
def test_int_list_refusals(text: str, words: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        int_list(text)
    assert str(exc.value).startswith(words)


def test_written_out_refuses_a_suffix_naming_the_decimal_number() -> None:
    tokens = written_out("tokens")
    assert tokens("200000") == 200000.0
    assert tokens("2e5") == 200000.0
    # a provider's "200k" is 200,000 tokens; k = 1,024 would read 200 * 1,024 = 204,800
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        tokens("200k")
    assert str(exc.value) == "write 200000 (200k reads as 204,800 tokens: k = 1,024)"
    # 1M: 1,000,000 written out; binary M = 2**20 = 1,048,576
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        written_out("tokens/s")("1M")
    assert str(exc.value) == "write 1000000 (1M reads as 1,048,576 tokens/s: M = 1,048,576)"
    with pytest.raises(argparse.ArgumentTypeError, match="expected a positive number, got '0'"):
        tokens("0")


def test_prices_and_positive_floats() -> None:
    assert price("2.5") == 2.5
    assert price("0") == 0.0  # hardware you own: no $ per token
    for bad in ("-1", "nan", "inf", "two"):
        with pytest.raises(argparse.ArgumentTypeError) as exc:
            price(bad)
        assert str(exc.value) == f"expected a positive number, got {bad!r} (or 0: hardware you own)"
    assert positive_float("0.85") == 0.85
    for bad in ("0", "-2", "inf", "nan", "x"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected a positive number"):
            positive_float(bad)
    hold = float_list("1,60,3600")
    assert hold == [1.0, 60.0, 3600.0] and all(isinstance(x, float) for x in hold)
    with pytest.raises(argparse.ArgumentTypeError, match="numbers separated by commas"):
        float_list(",")
    assert math.isclose(float_list("1e-3")[0], 0.001)
