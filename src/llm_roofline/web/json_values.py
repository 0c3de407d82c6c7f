"""A library answer as JSON: numpy numbers as Python ones, a non-finite number as null."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["json_body"]


def json_body(x: Any) -> Any:
    """A value for JSON: numpy scalars and arrays as Python numbers and lists, a non-finite
    number (an unstable run's figure, an unbounded capacity) as null."""
    if isinstance(x, dict):
        return {str(k): json_body(v) for k, v in x.items()}
    if isinstance(x, list | tuple | np.ndarray):
        return [json_body(v) for v in x]
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating):
        return float(x) if math.isfinite(x) else None
    return x
