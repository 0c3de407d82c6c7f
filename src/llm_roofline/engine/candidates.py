"""The (chips, split) pairs a search tries: one generator for every sweep over chips × splits.

`optimize.search`, the latency–cost grid of `curves` and fast-mode's `chips` option each walk
chip counts and splits; they take them from `candidates`, which leaves out a split the
hardware cannot connect: a group of chips (tensor or expert parallel, a pipeline hop) that
leaves the chip's scale-up domain when the chip has no scale-out link. Such a split has no
time at all (`collectives.link` refuses it), so every search skips it the same way, rather
than one aborting where the others go on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from llm_roofline._core.errors import InputError
from llm_roofline.engine.collectives import comm_plan
from llm_roofline.engine.parallel import CommModel, Parallelism
from llm_roofline.hardware.chip import Chip
from llm_roofline.model.spec import ModelSpec

__all__ = ["candidates", "connects", "powers", "splits"]


def powers(limit: int) -> list[int]:
    """Powers of two from 1 up to `limit`."""
    out, v = [], 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


def splits(spec: ModelSpec, chips: int) -> list[Parallelism]:
    """Every split of `chips` chips the model takes: pp and tp over powers of two (tp also
    the whole stage up to 16), ep over the divisors of a stage up to the experts."""
    experts = max((g.ffn.n_experts for g in spec.groups), default=0)
    found = []
    for pp in powers(min(chips, 8)):
        if chips % pp:
            continue
        stage = chips // pp
        for tp in sorted(set(powers(stage)) | ({stage} if stage <= 16 else set())):
            if stage % tp:
                continue
            eps = [1]
            if experts:
                eps = sorted(
                    {e for e in [*powers(stage), stage] if stage % e == 0 and e <= experts}
                )
            for ep in eps:
                par = Parallelism.of(chips, tp, pp, ep)
                try:
                    par.check(spec)
                except InputError:
                    continue
                found.append(par)
    return found


def connects(spec: ModelSpec, chip: Chip, par: Parallelism, comm: CommModel) -> bool:
    """The chip's links carry every collective of the split (a group beyond the scale-up
    domain needs a scale-out link). The collectives' plan is resolved only to see that its
    links exist: the weight bytes it is given change no link."""
    try:
        comm_plan(spec, chip, par, comm, 1.0)
    except InputError:
        return False
    return True


def candidates(
    spec: ModelSpec,
    chip: Chip,
    comm: CommModel,
    counts: Iterable[int],
    splits_of: Callable[[int], Iterable[Parallelism]] | None = None,
) -> Iterator[tuple[int, Parallelism]]:
    """Each chip count of `counts` with each split `splits_of(n)` offers (default: every
    split the model takes, `splits`), less the splits the chip's links cannot carry."""
    offer = splits_of or (lambda n: splits(spec, n))
    for n in counts:
        for par in offer(n):
            if connects(spec, chip, par, comm):
                yield n, par
