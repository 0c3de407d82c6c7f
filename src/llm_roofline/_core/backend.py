"""One point or a grid: the few non-linear operations of the engine's formulas, two ways.

Each formula is written once, with plain operators for + − · / and `xp.<op>` for the rest
(ceil, minimum, maximum, where, mod, ...). `SCALAR` runs them on Python floats (math, a
comparison, a conditional), `ARRAY` on numpy arrays (ufuncs with broadcasting): a single point
costs microseconds, a million-point sweep one vectorised pass, and both run the same formula
code. The engine picks `SCALAR` when every per-point input is a plain Python number.

`Num` is what a formula takes and gives: a float, or an array on the broadcast grid.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from llm_roofline._core.arrays import FloatArray

__all__ = ["ARRAY", "SCALAR", "Backend", "Num"]

Num = float | FloatArray


class Backend(Protocol):
    """The operations a formula may call besides + − · / and ** (see the module docstring),
    and the conversion of its results to arrays on the output grid (`shape`, `out`)."""

    @property
    def scalar(self) -> bool: ...

    def ceil(self, x: Num) -> Num: ...
    def floor_divide(self, a: Num, b: float) -> Num: ...
    def mod(self, a: Num, b: float) -> Num: ...
    def minimum(self, a: Num, b: Num) -> Num: ...
    def maximum(self, a: Num, b: Num) -> Num: ...
    def where(self, cond: Any, a: Num, b: Num) -> Num: ...
    def any(self, x: Any) -> bool: ...
    def all_finite(self, x: Num) -> bool: ...
    def zeros_like(self, x: Num) -> Num: ...
    def full_like(self, x: Num, value: float) -> Num: ...
    def shape(self, *xs: Any) -> tuple[int, ...]: ...
    def out(self, shape: tuple[int, ...]) -> Callable[[Num], FloatArray]: ...
    def out_bound(self, x: Any, shape: tuple[int, ...]) -> NDArray[np.int8]: ...


class _Scalar:
    """Python floats: builtins and conditionals, no numpy until `out` wraps a result."""

    scalar = True

    @staticmethod
    def ceil(x: Num) -> Num:
        return -(-x // 1.0)  # a float, as np.ceil gives (math.ceil gives an int)

    @staticmethod
    def floor_divide(a: Num, b: float) -> Num:
        return a // b

    @staticmethod
    def mod(a: Num, b: float) -> Num:
        return a % b  # Python's float modulo takes the divisor's sign, as np.mod does

    @staticmethod
    def minimum(a: Num, b: Num) -> Num:
        return a if a <= b else b

    @staticmethod
    def maximum(a: Num, b: Num) -> Num:
        return a if a >= b else b

    @staticmethod
    def where(cond: Any, a: Num, b: Num) -> Num:
        return a if cond else b

    @staticmethod
    def any(x: Any) -> bool:
        return bool(x)

    @staticmethod
    def all_finite(x: Num) -> bool:
        return math.isfinite(x)

    @staticmethod
    def zeros_like(x: Num) -> Num:
        return 0.0

    @staticmethod
    def full_like(x: Num, value: float) -> Num:
        return value

    @staticmethod
    def shape(*xs: Any) -> tuple[int, ...]:
        return ()

    @staticmethod
    def out(shape: tuple[int, ...]) -> Callable[[Num], FloatArray]:
        return np.asarray  # a float in, a new 0-d float64 array out

    @staticmethod
    def out_bound(x: Any, shape: tuple[int, ...]) -> NDArray[np.int8]:
        return np.asarray(x, dtype=np.int8)


class _Array:
    """numpy: ufuncs over the broadcast grid of the inputs."""

    scalar = False

    @staticmethod
    def ceil(x: Num) -> Num:
        return np.ceil(x)

    @staticmethod
    def floor_divide(a: Num, b: float) -> Num:
        return np.floor_divide(a, b)

    @staticmethod
    def mod(a: Num, b: float) -> Num:
        return np.asarray(np.mod(a, b), dtype=np.float64)

    @staticmethod
    def minimum(a: Num, b: Num) -> Num:
        return np.asarray(np.minimum(a, b), dtype=np.float64)

    @staticmethod
    def maximum(a: Num, b: Num) -> Num:
        return np.asarray(np.maximum(a, b), dtype=np.float64)

    @staticmethod
    def where(cond: Any, a: Num, b: Num) -> Num:
        return np.where(cond, a, b)

    @staticmethod
    def any(x: Any) -> bool:
        return bool(np.any(x))

    @staticmethod
    def all_finite(x: Num) -> bool:
        return bool(np.all(np.isfinite(x)))

    @staticmethod
    def zeros_like(x: Num) -> Num:
        return np.zeros_like(x, dtype=np.float64)

    @staticmethod
    def full_like(x: Num, value: float) -> Num:
        return np.full_like(x, value, dtype=np.float64)

    @staticmethod
    def shape(*xs: Any) -> tuple[int, ...]:
        return np.broadcast_shapes(*(np.shape(x) for x in xs))

    @staticmethod
    def out(shape: tuple[int, ...]) -> Callable[[Num], FloatArray]:
        def fit(x: Num) -> FloatArray:
            a = np.asarray(x, dtype=np.float64)
            return a if a.shape == shape else np.broadcast_to(a, shape)

        return fit

    @staticmethod
    def out_bound(x: Any, shape: tuple[int, ...]) -> NDArray[np.int8]:
        a = np.asarray(x, dtype=np.int8)
        return a if a.shape == shape else np.broadcast_to(a, shape)


SCALAR: Backend = _Scalar()
ARRAY: Backend = _Array()
