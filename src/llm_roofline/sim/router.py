"""Routers: which instance of a pool a request joins. One router per pool (a disaggregated
run routes arrivals to its prefill pool and hand-offs to its decode pool), a class
registered by name in `ROUTERS`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from llm_roofline._core.errors import InputError
from llm_roofline.sim.entities import Instance

__all__ = ["ROUTERS", "LeastLoaded", "RoundRobin", "Router", "make_router"]


class Router(ABC):
    """Chooses the instance of `group` a request arriving at `t` joins."""

    name: ClassVar[str]

    @abstractmethod
    def route(self, group: list[Instance], t: float) -> Instance: ...


class RoundRobin(Router):
    """Each instance in turn."""

    name = "round-robin"

    def __init__(self) -> None:
        self.sent = 0

    def route(self, group: list[Instance], t: float) -> Instance:
        ins = group[self.sent % len(group)]
        self.sent += 1
        return ins


class LeastLoaded(Router):
    """The instance with the fewest requests (running and waiting), and among equals one not
    in the middle of a step (a step's finishes are booked when it starts: its load is the
    step's end's); among those, the first."""

    name = "least-loaded"

    def route(self, group: list[Instance], t: float) -> Instance:
        return min(group, key=lambda i: (i.load(), i.t > t))


ROUTERS: dict[str, type[Router]] = {c.name: c for c in (RoundRobin, LeastLoaded)}


def make_router(name: str) -> Router:
    """A fresh router of the kind registered as `name`."""
    if name not in ROUTERS:
        raise InputError(
            f"router must be one of {', '.join(ROUTERS)}, got {name!r}", field="router"
        )
    return ROUTERS[name]()
