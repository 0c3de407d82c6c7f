"""The bounds of the what-if questions, with no numpy and nothing of the engine, so that the
command line and the page's schemas can state them without loading the questions' modules."""

from __future__ import annotations

__all__ = ["DEFAULT_STEP", "MAX_CHIPS", "MAX_STEP", "MIN_STEP"]

DEFAULT_STEP = 0.10  # a chip figure's change in `sensitivity`: +10%
# the steps allowed, as shares: below +0.1% the change of a step time is lost in rounding
# (a step of 1e-15 gave an elasticity of 1.33 where it is exactly 1); above +100%, no longer
# a small change
MIN_STEP, MAX_STEP = 0.001, 1.0
MAX_CHIPS = 1024  # the most chips a search may try (the catalog's ranking, fast-mode's chips)
