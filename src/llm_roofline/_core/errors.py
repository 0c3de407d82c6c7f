"""Typed errors: every bad input a user can give raises one of these, with one clear line.

The command line turns them into exit code 2 and that line; nothing else is ever shown to a user
as a traceback. Warnings (`LlmRooflineWarning`: the input was read, with an assumption the user
should check) go through Python's `warnings`; the command line prints each as one line
`llm-roofline: warning: ...` and the API returns them in a `warnings` list.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "ConfigError",
    "InputError",
    "LlmRooflineError",
    "LlmRooflineWarning",
    "TimeLimitError",
    "UnknownIdError",
    "UnknownModelTypeWarning",
    "closest_ids",
    "unknown_catalog_id",
]


def closest_ids(given: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Ids a user probably meant: those that start with what they typed, then those that
    contain it, then the closest by spelling."""
    g = given.strip().lower()
    ids = sorted(known)
    ranked = [k for k in ids if k.startswith(g)] if g else []
    ranked += [k for k in ids if g and g in k and k not in ranked]
    ranked += [k for k in difflib.get_close_matches(g, ids, n=n, cutoff=0.5) if k not in ranked]
    return ranked[:n]


class LlmRooflineError(Exception):
    """Base class of every error the library raises on purpose."""


class UnknownIdError(LlmRooflineError, KeyError):
    """A catalog id (model, hardware, data type) that does not exist."""

    def __init__(self, kind: str, given: str, known: Iterable[str]) -> None:
        self.kind = kind
        self.given = given
        known = sorted(known)
        self.closest = closest_ids(given, known)
        hint = f"; closest: {', '.join(self.closest)}" if self.closest else ""
        where = (
            f"one of {', '.join(known)}"
            if len(known) <= 20  # a short list (engines, data types): name them all
            else f"see the catalog: {len(known)} ids"
        )
        msg = f"unknown {kind} {given!r}{hint} ({where})"
        super().__init__(msg)
        self.message = msg

    def __str__(self) -> str:  # KeyError would otherwise print the repr of the message
        return self.message


class ConfigError(LlmRooflineError, ValueError):
    """A model config.json (or a catalog record) that is malformed or lacks a needed field."""

    def __init__(self, message: str, field: str | None = None, source: str | None = None) -> None:
        self.field = field
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{message}")


class InputError(LlmRooflineError, ValueError):
    """A bad argument: a size that is not positive, an unknown option, an impossible setting."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


class TimeLimitError(InputError):
    """A computation that ran past the time its caller allowed (a web request's search): the
    request asked for too much work; `field` names what to ask less of."""


class LlmRooflineWarning(UserWarning):
    """Base class of every warning the library gives on purpose: the input was read, under an
    assumption the message names."""


class UnknownModelTypeWarning(LlmRooflineWarning):
    """A config.json whose `model_type` is not in the architecture table, read as a Llama-style
    decoder from its standard fields (the message names the fields it relied on)."""


# the command that lists each catalog, named where an id is not found in it
_LISTED_BY = {"model": "llm-roofline models", "hardware": "llm-roofline hardware"}


def unknown_catalog_id(
    kind: str, given: str, known: list[str], close: list[str] | None = None
) -> UnknownIdError:
    """UnknownIdError for a model or hardware id: the closest ids (`close`, else those of
    `closest_ids`), and the command that lists the whole catalog."""
    exc = UnknownIdError(kind, given, known)
    if close is not None:
        exc.closest = close
    hint = f"; closest: {', '.join(exc.closest)}" if exc.closest else ""
    exc.message = (
        f"unknown {kind} {given!r}{hint} (see the catalog: {len(known)} ids, "
        f"`{_LISTED_BY[kind]}` lists them)"
    )
    exc.args = (exc.message,)
    return exc
