"""Array types shared by every module (one definition: `FloatArray`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["FloatArray"]

FloatArray = NDArray[np.float64]
