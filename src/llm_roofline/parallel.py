"""How a model is split over chips: tensor (TP), pipeline (PP) and expert (EP) parallel degrees.

This version checks that a split is possible; the ideal engine then spreads the work evenly over
the n chips with no communication. Costing the collectives each split needs is issue #4.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InputError
from .model import ModelSpec

__all__ = ["Parallelism"]


def _degree(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}", field=name)
    return value


@dataclass(frozen=True)
class Parallelism:
    """Degrees of parallelism over `chips` chips. Data parallel = chips / (tp · pp)."""

    chips: int
    tp: int
    pp: int = 1
    ep: int = 1

    @classmethod
    def of(
        cls, chips: int, tp: int | None = None, pp: int | None = None, ep: int | None = None
    ) -> Parallelism:
        """Defaults: tp = chips (the contract's), pp = 1, ep = 1."""
        n = _degree(chips, "chips")
        return cls(
            n,
            _degree(tp if tp is not None else n, "tp"),
            _degree(pp or 1, "pp"),
            _degree(ep or 1, "ep"),
        )

    @property
    def dp(self) -> int:
        return self.chips // (self.tp * self.pp)

    def check(self, spec: ModelSpec) -> Parallelism:
        """Raise InputError naming the degree that cannot split this model on these chips."""
        if self.chips % (self.tp * self.pp):
            raise InputError(
                f"tp × pp = {self.tp * self.pp} does not divide chips = {self.chips}", field="tp"
            )
        if self.chips % self.ep:
            raise InputError(f"ep = {self.ep} does not divide chips = {self.chips}", field="ep")
        H = spec.attention.n_heads
        if H % self.tp:
            raise InputError(
                f"tp = {self.tp} does not divide the {H} query heads of {spec.name}", field="tp"
            )
        if self.pp > spec.n_layers:
            raise InputError(
                f"pp = {self.pp} exceeds the {spec.n_layers} layers of {spec.name}", field="pp"
            )
        experts = max((g.ffn.n_experts for g in spec.groups), default=0)
        if self.ep > 1 and not experts:
            raise InputError(f"ep = {self.ep} but {spec.name} has no experts", field="ep")
        if experts and self.ep > experts:
            raise InputError(
                f"ep = {self.ep} exceeds the {experts} experts of {spec.name}", field="ep"
            )
        # ep need not divide the experts: engines place ceil(E / ep) per chip, or add
        # redundant copies (DeepSeek's 256 experts on 72 GPUs); issue #4 costs the imbalance.
        return self
