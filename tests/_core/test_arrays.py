"""`FloatArray`, the one array type of the engine: float64 arrays, whatever the input's type."""

from __future__ import annotations

import typing

import numpy as np

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.backend import ARRAY, SCALAR
from llm_roofline.model.weights_read import experts_touched


def _dtype_of_alias() -> type:
    # NDArray[X] is np.ndarray[shape, np.dtype[X]]: the scalar type sits two levels down
    dtype_arg = typing.get_args(FloatArray)[1]
    return typing.get_args(dtype_arg)[0]


def test_the_alias_names_float64_arrays() -> None:
    assert typing.get_origin(FloatArray) is np.ndarray
    assert _dtype_of_alias() is np.float64


def test_what_the_backends_and_formulas_give_is_what_the_alias_names() -> None:
    # integer inputs come back as float64 arrays: a formula never hands out an int array
    want = np.dtype(_dtype_of_alias())
    assert SCALAR.out(())(3.0).dtype == want
    assert ARRAY.out((2,))(np.array([1, 2])).dtype == want
    # E = 4, k = 1, two tokens: 4 · (1 − 0.75²) = 1.75, from integers in
    got = experts_touched(4, 1, np.array([2]))
    assert got.dtype == want and got[0] == 1.75
