"""What a deployment's figures draw: `PlotSpec`, a deployment at a context, with the titles
and the balance batch the figures share."""

from __future__ import annotations

from dataclasses import dataclass

from llm_roofline.deploy.deployment import Deployment
from llm_roofline.hardware.chip import System
from llm_roofline.model.spec import ModelSpec

__all__ = ["PlotSpec"]


@dataclass(frozen=True)
class PlotSpec:
    """What to draw: a deployment at a context."""

    dep: Deployment
    context_len: int = 4096

    @property
    def model(self) -> ModelSpec:
        return self.dep.model

    @property
    def system(self) -> System:
        return self.dep.system

    @property
    def weight_dtype(self) -> str:
        return self.dep.weight_dtype

    @property
    def kv_dtype(self) -> str:
        return self.dep.kv_dtype

    @property
    def overlap(self) -> str:
        return self.dep.overlap

    @property
    def title(self) -> str:
        return (
            f"{self.model.name} on {self.dep.chips} × {self.dep.chip.id} "
            f"({self.weight_dtype} weights, {self.kv_dtype} KV)\n{self.dep.split_text()}"
        )

    def b_star(self) -> float:
        """B* of the deployment on its split, as a batch of all its groups."""
        return self.dep.balance_batch
