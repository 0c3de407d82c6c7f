"""The names of the scenario contract (docs/cli.md, "The scenario contract"), with no numpy and
nothing of the engine, so that the command line can offer them without loading it."""

from __future__ import annotations

__all__ = ["MODES"]

MODES = ("decode", "static", "continuous")  # how a scenario is served (`modes.py`'s docstring)
