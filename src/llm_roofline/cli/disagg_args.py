"""`simulate`'s disaggregated pools from the command line: `--disagg P:D` with each pool's own
instance shape. The decode pool's instance is the deployment's flags' (`--chips` over
`--replicas`, `--tp`, `--pp`, `--ep`); the prefill pool's is `--prefill-chips`, `--prefill-tp`,
`--prefill-pp` and `--prefill-ep` (by default the same as the decode pool's), so that a fleet
`plan` chose, with pools of different shapes, can be simulated as it stands (its
`simulate_command`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from llm_roofline.cli._common import positive_int

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

__all__ = ["PREFILL_FLAGS", "add_prefill_flags", "pools_from_args", "pools_text"]

PREFILL_FLAGS = ("prefill_chips", "prefill_tp", "prefill_pp", "prefill_ep")


def add_prefill_flags(g: argparse._ArgumentGroup) -> None:
    """--prefill-chips/-tp/-pp/-ep: one prefill instance's chips and split, with --disagg."""
    g.add_argument(
        "--prefill-chips",
        type=positive_int,
        metavar="N",
        help="with --disagg: chips of one prefill instance (default: the decode instance's, "
        "--chips over --replicas)",
    )
    for name, what in (("tp", "tensor parallel degree"), ("pp", "pipeline stages")):
        g.add_argument(
            f"--prefill-{name}",
            type=positive_int,
            metavar="N",
            help=f"with --disagg: a prefill instance's {what} (default: as --{name} chooses "
            "for --prefill-chips)",
        )
    g.add_argument(
        "--prefill-ep",
        type=positive_int,
        metavar="N",
        help="with --disagg: a prefill instance's expert parallel degree",
    )


def pools_from_args(
    args: argparse.Namespace, dep: Deployment
) -> tuple[Deployment | None, Deployment]:
    """(the prefill pool, the decode pool) of --disagg P:D, each instance of its own shape
    (`sim.pool_shapes.shaped_pools`, as the web's /api/simulate builds them); (None, `dep`)
    without --disagg. A prefill flag without --disagg is refused, naming it."""
    from llm_roofline.sim.pool_shapes import pools_of

    shape = {f: getattr(args, f, None) for f in PREFILL_FLAGS}
    return pools_of(dep, args.disagg, shape, say=lambda f: "--" + f.replace("_", "-"))


def pools_text(dep: Deployment, pf: Deployment) -> str:
    """The two pools in words: '12 prefill instances of 1 chip (tp 1 · pp 1) and 6 decode
    instances of 2 chips (tp 2 · pp 1)'."""

    def one(d: Deployment, role: str) -> str:
        n, c = d.replicas, d.instance_chips
        return (
            f"{n} {role} instance{'s' if n > 1 else ''} of {c} chip{'s' if c > 1 else ''} "
            f"(tp {d.tp} · pp {d.pp}" + (f" · ep {d.ep}" if d.ep > 1 else "") + ")"
        )

    return f"{one(pf, 'prefill')} and {one(dep, 'decode')}"
