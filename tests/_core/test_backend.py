"""The two backends (`backend.py`): SCALAR on Python floats, ARRAY on numpy arrays, the same
answers for every operation a formula may call, including the awkward cases (negative numbers
under ceil, mod and floor division, ties under minimum and maximum)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from llm_roofline._core.backend import ARRAY, SCALAR

POINTS = (-7.5, -7.0, -2.5, -0.0, 0.0, 0.5, 2.0, 2.1, 3.0, 1e6 + 0.25)


def test_scalar_and_array_agree_point_by_point() -> None:
    for x, y in itertools.product(POINTS, POINTS):
        for op in ("minimum", "maximum"):
            s, a = getattr(SCALAR, op)(x, y), getattr(ARRAY, op)(np.float64(x), np.float64(y))
            assert s == float(a), (op, x, y)
        assert SCALAR.where(x < y, x, y) == float(ARRAY.where(x < y, x, y))
    for x in POINTS:
        assert SCALAR.ceil(x) == float(ARRAY.ceil(np.float64(x))), x
        for b in (2.0, 3.0, -3.0):
            assert SCALAR.mod(x, b) == float(ARRAY.mod(np.float64(x), b)), (x, b)
            assert SCALAR.floor_divide(x, b) == float(ARRAY.floor_divide(np.float64(x), b))


def test_hand_values_of_the_awkward_cases() -> None:
    # ceil: 2.1 -> 3, −2.5 -> −2; a float, as np.ceil gives (math.ceil would give an int)
    assert SCALAR.ceil(2.1) == 3.0 and isinstance(SCALAR.ceil(2.1), float)
    assert SCALAR.ceil(-2.5) == -2.0
    # floored division and modulo: −7 = 3 · (−3) + 2, so −7 // 3 = −3 and −7 mod 3 = 2
    # (the remainder takes the divisor's sign, as np.mod and a chunk position need)
    assert SCALAR.floor_divide(-7.0, 3.0) == -3.0 and SCALAR.mod(-7.0, 3.0) == 2.0
    assert list(ARRAY.mod(np.array([-7.0, 7.0]), 3.0)) == [2.0, 1.0]


def test_finite_zeros_and_fills() -> None:
    assert SCALAR.all_finite(1.0) and not SCALAR.all_finite(math.inf)
    assert ARRAY.all_finite(np.array([1.0, 2.0]))
    assert not ARRAY.all_finite(np.array([1.0, np.nan]))
    assert SCALAR.zeros_like(5.0) == 0.0 and SCALAR.full_like(5.0, 7.0) == 7.0
    z = ARRAY.full_like(np.array([1, 2, 3]), 7.5)  # an int array in, floats out
    assert z.dtype == np.float64 and list(z) == [7.5, 7.5, 7.5]
    assert SCALAR.any(0.0) is False and ARRAY.any(np.array([0.0, 1.0])) is True


def test_shapes_and_the_output_grid() -> None:
    # a (3, 1) batch against a (1, 4) context: the grid is (3, 4); floats have no grid
    b, s = np.ones((3, 1)), np.ones((1, 4))
    assert ARRAY.shape(b, s, 2.0) == (3, 4)
    assert SCALAR.shape(1.0, 2.0) == ()
    fit = ARRAY.out((3, 4))
    assert fit(2.0).shape == (3, 4) and fit(b).shape == (3, 4)
    assert float(fit(2.0)[2, 3]) == 2.0
    one = SCALAR.out(())(2.5)
    assert one.shape == () and float(one) == 2.5
    bound = ARRAY.out_bound(np.array([0, 1]), (3, 2))
    assert bound.dtype == np.int8 and bound.shape == (3, 2)
    assert SCALAR.out_bound(2, ()).dtype == np.int8


def test_scalar_flag_tells_them_apart() -> None:
    assert SCALAR.scalar is True and ARRAY.scalar is False
    with pytest.raises(ValueError):  # the numpy backend refuses shapes that do not broadcast
        ARRAY.shape(np.ones(3), np.ones(4))
