"""The scenario contract's names (serving/contract.py): the three modes of docs/cli.md, which
the command line offers and the serving modes take."""

from __future__ import annotations

import pytest

from llm_roofline import InputError
from llm_roofline.serving.contract import MODES
from llm_roofline.serving.modes import serve


def test_the_three_modes_of_the_contract() -> None:
    assert MODES == ("decode", "static", "continuous")


def test_another_mode_is_refused_naming_them() -> None:
    with pytest.raises(InputError) as e:
        serve("llama-3.1-8b", "h100-sxm", batch=1, input_len=8, output_len=8, mode="chunked")
    assert str(e.value) == "mode must be one of decode, static, continuous, got 'chunked'"
    assert e.value.field == "mode"
