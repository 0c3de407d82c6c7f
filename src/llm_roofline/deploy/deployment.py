"""A deployment: one description of how a model is served, passed to every surface.

A `Deployment` holds the model, one chip (a catalog id, a record of your own, a price of your
own), the chip count, the split (`tp`, `pp`, `ep` and `replicas`), the data types, the overlap,
the communication model and the engine. It is built once (from flags, a CSV row, JSON or
Python) and every surface (report, predict, sweep, optimize, the economics verbs, the page and
the API) asks it for its numbers, so the same deployment gives the same numbers everywhere.

Replicas are independent instances that never talk; `batch` counts sequences across the whole
deployment and the busiest replica holds ⌈B / replicas⌉. Degrees not given are chosen by
`split.auto_split` (docs/deployment.md), and the deployment says which split it used.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from llm_roofline._core.arrays import FloatArray
from llm_roofline._core.checks import positive_int
from llm_roofline._core.dtypes import get_dtype
from llm_roofline._core.units import hour
from llm_roofline.calibration.profile import Profile, get_profile, pass_time
from llm_roofline.deploy.fit_bulk import advised
from llm_roofline.deploy.inputs import (
    DEFAULT_ENGINE,
    checked_chip,
    checked_dtypes,
    checked_overlap,
    engine_name,
    split_rule_text,
)
from llm_roofline.deploy.split import auto_split, max_experts, pad_heads
from llm_roofline.deploy.split_balance import deployment_balance_batch
from llm_roofline.engine.memory import MemoryUse, max_batch, memory_use, weights_per_chip
from llm_roofline.engine.parallel import CommModel, Parallelism
from llm_roofline.engine.roofline import (
    StepTime,
    decode_step,
    positive_array,
    prefill,
)
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import ModelSpec
from llm_roofline.serving.modes import replicated, serve, serve_many, valid_rows
from llm_roofline.serving.results import ServingColumns, ServingResult

__all__ = ["DEPLOYMENT_FIELDS", "Deployment", "PassTime", "auto_split", "deployment", "pad_heads"]

# The fields a deployment is described by (flags, CSV columns, JSON keys), in this order.
DEPLOYMENT_FIELDS: tuple[str, ...] = ("model", "hardware", "chips", "tp", "pp", "ep", "replicas")
DEPLOYMENT_FIELDS += ("pad_heads", "weight_dtype", "kv_dtype", "overlap", "engine")
DEPLOYMENT_FIELDS += ("price_usd_per_hour",)


class PassTime(NamedTuple):
    """A pass's time under an engine, seconds: the prediction and its range (`low` never below
    the ideal time, the lower bound; for `ideal` all three are the ideal time)."""

    t: FloatArray
    low: FloatArray
    high: FloatArray


@dataclass(frozen=True)
class Deployment:
    """A model served on `chips` chips split as tp × pp × (dp) per instance, × replicas.

    Build it with `deployment(...)` (which checks everything and picks a split when none is
    given), `scenarios.deployment_from(row)` (a CSV row or JSON object) or `dataclasses.replace`.
    """

    spec: ModelSpec
    chip: Chip
    chips: int
    tp: int
    pp: int
    ep: int
    replicas: int
    model_id: str = ""
    pad_heads: bool = False
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    overlap: str = "full"
    engine: str = DEFAULT_ENGINE
    comm: CommModel = field(default_factory=CommModel)
    split_rule: str = "given"  # "given", or "auto: ..." saying what the rule chose
    given: tuple[str, ...] = ("tp", "pp", "ep", "replicas")  # the degrees the user gave

    # ---- what it is ----------------------------------------------------------------------

    @property
    def instance_chips(self) -> int:
        """Chips of one replica."""
        return self.chips // self.replicas

    @cached_property  # one object per deployment: the engine caches its plan by identity
    def model(self) -> ModelSpec:
        """The model as served (query heads padded when `pad_heads`)."""
        return pad_heads(self.spec, self.tp) if self.pad_heads else self.spec

    @cached_property
    def parallel(self) -> Parallelism:
        """The split of one instance."""
        return Parallelism(self.instance_chips, self.tp, self.pp, self.ep)

    @cached_property
    def instance(self) -> System:
        """One replica's chips."""
        return System(self.chip, self.instance_chips)

    @cached_property
    def system(self) -> System:
        """All the deployment's chips (what is paid for)."""
        return System(self.chip, self.chips)

    @property
    def dp(self) -> int:
        return self.parallel.dp

    @property
    def groups(self) -> int:
        """Groups that serve sequences independently of each other: replicas × data-parallel
        groups. The fewest sequences that keep every chip busy."""
        return self.replicas * self.dp

    @cached_property
    def balance_batch(self) -> float:
        """B* for this split, counting every group's batch (`deployment_balance_batch`)."""
        return deployment_balance_batch(self)

    @property
    def profile(self) -> Profile | None:
        """The calibrated engine on this deployment's chip (None for `ideal`): how serving
        times it. Its `note` says which measured constants it took."""
        return get_profile(self.engine, self.chip)

    def split_text(self) -> str:
        """One line: the split and how it was chosen."""
        parts = [f"tp {self.tp}", f"pp {self.pp}"]
        if max_experts(self.spec):
            parts.append(f"ep {self.ep}")
        if self.dp > 1:
            parts.append(f"dp {self.dp}")
        parts.append(f"{self.replicas} replica" + ("s" if self.replicas > 1 else ""))
        if self.pad_heads and self.model.attention.n_heads != self.spec.attention.n_heads:
            parts.append(f"heads padded to {self.model.attention.n_heads}")
        return " · ".join(parts) + ("" if self.split_rule == "given" else f" ({self.split_rule})")

    def as_dict(self) -> dict[str, Any]:
        """The deployment's fields (JSON-ready), and how its split was chosen."""
        return {
            "model": self.model_id or self.spec.name,
            "hardware": self.chip.id,
            "chips": self.chips,
            "tp": self.tp,
            "pp": self.pp,
            "ep": self.ep,
            "replicas": self.replicas,
            "dp": self.dp,
            "pad_heads": self.pad_heads,
            "weight_dtype": self.weight_dtype,
            "kv_dtype": self.kv_dtype,
            "overlap": self.overlap,
            "engine": self.engine,
            "engine_profile": self.profile.note if self.profile is not None else "ideal",
            "price_usd_per_hour": self.chip.price_usd_per_s * hour or None,
            "split_rule": self.split_rule,
        }

    def with_engine(self, engine: str) -> Deployment:
        return dataclasses.replace(self, engine=engine_name(engine))

    def instance_deployment(self) -> Deployment:
        """One replica of this deployment, as a deployment of its own."""
        return dataclasses.replace(self, chips=self.instance_chips, replicas=1)

    def with_chips(self, chips: int, *, keep_split: bool = True) -> Deployment:
        """The same deployment on another chip count: the degrees the user gave are kept
        (an error naming the degree when they cannot split `chips`), the others chosen by the
        rule; with `keep_split=False` the rule chooses them all."""
        kept = {k: getattr(self, k) for k in self.given} if keep_split else {}
        return self.on(self.chip, chips, **kept)

    def on(self, chip: Chip, chips: int, **split: Any) -> Deployment:
        """The same model, data types, overlap, engine and collectives on `chips` of `chip`,
        split by the degrees in `split` (tp, pp, ep, replicas) and the rule for the rest."""
        return deployment(
            self.spec,
            chip,
            chips,
            **split,
            pad_heads=self.pad_heads,
            weight_dtype=self.weight_dtype,
            kv_dtype=self.kv_dtype,
            overlap=self.overlap,
            engine=self.engine,
            comm=self.comm,
            model_id=self.model_id,
        )

    # ---- the engine, for the whole deployment --------------------------------------------

    def _bytes_kw(self) -> dict[str, Any]:
        """What memory counts beside the model and chips: the data types and the split."""
        return {k: getattr(self, k) for k in ("weight_dtype", "kv_dtype", "parallel")}

    def _kw(self) -> dict[str, Any]:
        keys = ("weight_dtype", "kv_dtype", "overlap", "parallel", "comm")
        return {k: getattr(self, k) for k in keys}

    def per_replica(self, batch: ArrayLike) -> np.ndarray:
        """Sequences on the busiest replica: ⌈B / replicas⌉."""
        B = positive_array(batch, "batch")
        return np.ceil(B / self.replicas)

    def _whole(self, step: StepTime, batch: np.ndarray) -> StepTime:
        """An instance's pass restated for the whole deployment: its time, all the batch, all
        the chips (so tokens/s and $/token count every replica)."""
        if self.replicas == 1:
            return step
        shape = step.t_step.shape
        single = None if step.single is None else self._whole(step.single, batch)
        return dataclasses.replace(
            step,
            batch=np.broadcast_to(batch, shape).astype(np.float64),
            system=self.system,
            single=single,
        )

    def decode(self, batch: ArrayLike, context_len: ArrayLike) -> StepTime:
        """The ideal decode step of `batch` sequences (all replicas) at `context_len`."""
        B = positive_array(batch, "batch")
        step = decode_step(
            self.model,
            self.instance,
            batch=self.per_replica(B),
            context_len=context_len,
            **self._kw(),
        )
        return self._whole(step, B)

    def prefill(self, batch: ArrayLike, prompt_len: ArrayLike) -> StepTime:
        """The ideal prefill of `batch` prompts (all replicas) of `prompt_len` tokens."""
        B = positive_array(batch, "batch")
        step = prefill(
            self.model,
            self.instance,
            batch=self.per_replica(B),
            prompt_len=prompt_len,
            **self._kw(),
        )
        return self._whole(step, B)

    def time(
        self, step: StepTime, *, is_prefill: bool = False, engine: str | None = None
    ) -> PassTime:
        """A pass's time under an engine (the deployment's by default): (t, low, high) arrays;
        for `ideal` low = high = t. A range never reaches below the ideal time, the lower
        bound (a profile's 10th percentile can: its fitted rows are other deployments)."""
        prof = self.profile if engine is None else get_profile(engine, self.chip)
        t = pass_time(step, prof, prefill=is_prefill)
        if prof is None:
            return PassTime(t, t, t)
        low, high = np.maximum(t * prof.low, step.t_step), np.maximum(t * prof.high, step.t_step)
        return PassTime(t, low, high)

    def memory(
        self, batch: ArrayLike, context_len: ArrayLike, tokens_per_seq: ArrayLike = 1
    ) -> MemoryUse:
        """Memory per chip (the fullest chip of the busiest replica)."""
        return memory_use(
            self.model,
            self.instance,
            batch=self.per_replica(batch),
            context_len=context_len,
            tokens_per_seq=tokens_per_seq,
            **self._bytes_kw(),
        )

    def max_batch(self, context_len: ArrayLike) -> np.ndarray:
        """The largest batch (all replicas) that fits at `context_len`."""
        one = max_batch(self.model, self.instance, context_len=context_len, **self._bytes_kw())
        return np.asarray(one * self.replicas, dtype=np.int64)

    def weights_per_chip_bytes(self) -> float:
        """Weight bytes on the fullest chip, for this split."""
        return weights_per_chip(self.model, self.parallel) * get_dtype(self.weight_dtype).bytes

    def serve(
        self,
        *,
        batch: int,
        input_len: int,
        output_len: int,
        mode: str = "decode",
        search_fit: bool = False,
    ) -> ServingResult:
        """The scenario contract's figures for this deployment (see `serving.serve`); with
        `search_fit`, a "does not fit" warning also names the chips and data types that would
        fit (`fit_advice.advised`)."""
        B = positive_int(batch, "batch")
        per = -(-B // self.replicas)
        kw: dict[str, Any] = {"input_len": input_len, "output_len": output_len, "mode": mode}

        res = serve(self.model, self.instance, batch=per, profile=self.profile, **kw, **self._kw())
        whole = replicated(res, batch=B, per_replica=per, replicas=self.replicas)
        return advised(self, whole, B, input_len, output_len, mode, search=search_fit)

    def serve_many(
        self, batch: ArrayLike, input_len: ArrayLike, output_len: ArrayLike, mode: str = "decode"
    ) -> ServingColumns:
        """`serve` for many scenarios at once (arrays, one element a scenario; each pass one
        engine call over them all): `serve`'s figures as `serving.ServingColumns`."""
        B, I, O = (np.asarray(x).ravel() for x in (batch, input_len, output_len))
        for i in np.flatnonzero(~valid_rows(B, I, O, mode))[:1]:  # refused: `serve`'s error
            self.serve(batch=B[i].item(), input_len=I[i].item(), output_len=O[i].item(), mode=mode)
        whole = B.astype(np.int64)
        per = -(-whole // self.replicas)
        kw = {"input_len": I, "output_len": O, "mode": mode, **self._kw()}
        res = serve_many(self.model, self.instance, batch=per, profile=self.profile, **kw)
        res = replicated(res, batch=whole, per_replica=per, replicas=self.replicas)
        return advised(self, res, whole, I, O, mode)


# size: one keyword a field of the deployment contract (DEPLOYMENT_FIELDS, docs/deployment.md)
def deployment(
    model: str | ModelSpec,
    hardware: str | Chip,
    chips: int = 1,
    *,
    tp: int | None = None,
    pp: int | None = None,
    ep: int | None = None,
    replicas: int | None = None,
    pad_heads: bool = False,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    overlap: str = "full",
    engine: str | None = None,
    price_usd_per_hour: float | None = None,
    comm: CommModel | None = None,
    model_id: str | None = None,
) -> Deployment:
    """Build and check a deployment; the split degrees not given are chosen by `auto_split`.

    >>> d = deployment("deepseek-v3", "gb200", 72, weight_dtype="fp8")
    >>> (d.tp, d.ep, d.replicas)
    (1, 72, 1)
    """
    spec = get_model(model)
    chip = checked_chip(hardware, price_usd_per_hour)
    n = positive_int(chips, "chips")
    checked_dtypes(weight_dtype, kv_dtype)
    checked_overlap(overlap)
    t, p, e, r = auto_split(
        spec,
        chip,
        n,
        weight_dtype=weight_dtype,
        tp=tp,
        pp=pp,
        ep=ep,
        replicas=replicas,
        padded=bool(pad_heads),
    )
    given = [k for k, v in (("tp", tp), ("pp", pp), ("ep", ep), ("replicas", replicas)) if v]
    dep = Deployment(
        spec=spec,
        chip=chip,
        chips=n,
        tp=t,
        pp=p,
        ep=e,
        replicas=r,
        model_id=model_id if model_id is not None else (model if isinstance(model, str) else ""),
        pad_heads=bool(pad_heads),
        weight_dtype=get_dtype(weight_dtype).name,
        kv_dtype=get_dtype(kv_dtype).name,
        overlap=overlap,
        engine=engine_name(engine),
        comm=comm or CommModel(),
        split_rule=split_rule_text(given),
        given=tuple(given),
    )
    dep.parallel.check(dep.model)
    return dep
