"""Input checks: one helper per kind of value, each raising InputError that names the field.

Every message is the one the project has always given (the error corpus and the bad-input
tests pin them): `batch must be a positive integer, got 0`, `n_total must be positive, got
-1`, `price must be a positive number, got nan`. Python and numpy integers count as integers;
a bool is never a number here (True would read as 1).
"""

from __future__ import annotations

import math

import numpy as np

from llm_roofline._core.errors import InputError

__all__ = [
    "batched_tokens",
    "is_positive",
    "positive",
    "positive_int",
    "positive_number",
    "positives",
]


def is_positive(value: object) -> bool:
    """A real number (not a bool), finite and above 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    return bool(math.isfinite(value) and value > 0)


def positive_int(value: object, name: str, field: str | None = None) -> int:
    """`value` as an int: a Python or numpy integer of at least 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}", field=field or name)
    return int(value)


def positive(value: object, name: str, field: str | None = None) -> float:
    """`value` as a float: a finite number above 0 ("... must be positive, got ...")."""
    if not is_positive(value):
        raise InputError(f"{name} must be positive, got {value!r}", field=field or name)
    return float(value)  # type: ignore[arg-type]  # is_positive checked it is a number


def positives(**values: object) -> None:
    """Each keyword's value a finite number above 0, named by its keyword (`positive`)."""
    for name, v in values.items():
        positive(v, name)


def positive_number(value: object, name: str, field: str | None = None) -> float:
    """`value` as a float: a finite number above 0 ("... must be a positive number, ...")."""
    if not is_positive(value):
        raise InputError(f"{name} must be a positive number, got {value!r}", field=field or name)
    return float(value)  # type: ignore[arg-type]  # is_positive checked it is a number


def batched_tokens(max_seqs: int, max_batched_tokens: int) -> None:
    """A step's token budget holds every sequence in flight: each decodes a token per step."""
    if max_batched_tokens < max_seqs:
        raise InputError(
            f"max_batched_tokens ({max_batched_tokens}) must be at least max_seqs ({max_seqs}):"
            " every sequence in flight decodes a token each step",
            field="max_batched_tokens",
        )
