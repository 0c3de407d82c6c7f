"""Typed readers of config.json fields (`model/hf/fields.py`): aliases, integers that are
integers, flags that are JSON booleans, and one ConfigError naming the field and the file."""

from __future__ import annotations

import pytest

from llm_roofline._core.errors import ConfigError
from llm_roofline.model.hf.fields import (
    Noted,
    first,
    flag,
    int_field,
    int_list,
    opt_int,
    positive_int,
)

SRC = "config.json"


def test_aliases_first_present_and_not_null() -> None:
    cfg = {"n_embd": None, "d_model": 512, "hidden_size": 1024}
    assert first(cfg, ("n_embd", "d_model", "hidden_size")) == 512  # null skipped
    assert first(cfg, ("hidden_size", "d_model")) == 1024  # first match wins
    assert first(cfg, ("absent",)) is None
    assert opt_int(cfg, ("absent",), SRC) is None
    assert int_field({"n_layer": 12.0}, ("num_hidden_layers", "n_layer"), "layers", SRC) == 12


def test_a_missing_field_names_its_aliases() -> None:
    with pytest.raises(ConfigError) as e:
        int_field({}, ("num_hidden_layers", "n_layer", "num_layers"), "layers", SRC)
    assert str(e.value) == (
        "config.json: missing field 'num_hidden_layers' (layers; also accepted: n_layer, "
        "num_layers)"
    )
    assert (e.value.field, e.value.source) == ("num_hidden_layers", SRC)


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (True, "must be a positive integer, got True"),  # a bool is not 1
        (1.5, "must be a positive integer, got 1.5"),
        (float("nan"), "must be a positive integer, got nan"),
        (0, "must be a positive integer, got 0"),
        ("8", "must be a positive integer, got '8'"),
        (2**41, "= 2199023255552 is larger than any model has (> 2^40)"),
    ],
)
def test_integers_must_be_integers(bad: object, words: str) -> None:
    with pytest.raises(ConfigError) as e:
        positive_int(bad, "hidden_size", SRC)
    assert str(e.value) == f"config.json: field 'hidden_size' {words}"
    assert e.value.field == "hidden_size"


def test_zero_where_allowed_and_flags_and_lists() -> None:
    assert positive_int(0, "first_k_dense_replace", SRC, zero_ok=True) == 0
    with pytest.raises(ConfigError, match=r"must be a non-negative integer, got -1$"):
        positive_int(-1, "first_k_dense_replace", SRC, zero_ok=True)
    assert flag({}, "tie_word_embeddings", True, SRC) is True
    assert flag({"tie_word_embeddings": False}, "tie_word_embeddings", True, SRC) is False
    with pytest.raises(
        ConfigError, match=r"field 'tie_word_embeddings' must be true or false, got 'false'$"
    ):
        flag({"tie_word_embeddings": "false"}, "tie_word_embeddings", True, SRC)
    assert int_list({"no_rope_layers": [1, 0, 1]}, "no_rope_layers", SRC) == [1, 0, 1]
    assert int_list({}, "no_rope_layers", SRC) is None
    with pytest.raises(ConfigError, match=r"must be a list of integers, got 3$"):
        int_list({"no_rope_layers": 3}, "no_rope_layers", SRC)


def test_noted_records_the_fields_a_reading_relied_on() -> None:
    cfg = Noted({"hidden_size": 64, "n_embd": None, "num_hidden_layers": 2, "unused": 1})
    int_field(cfg, ("n_embd", "hidden_size"), "width", SRC)  # null alias: not relied on
    int_field(cfg, ("num_hidden_layers",), "layers", SRC)
    int_field(cfg, ("hidden_size",), "width", SRC)  # read again: noted once
    assert cfg.used == ["hidden_size", "num_hidden_layers"]
    assert len(cfg) == 4 and set(cfg) == {"hidden_size", "n_embd", "num_hidden_layers", "unused"}
