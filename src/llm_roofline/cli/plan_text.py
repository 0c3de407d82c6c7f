"""`plan`'s answer in words for the command line: a time against its target, a fleet's
instances, and a fleet of the answer with its draws, where it stands and its `simulate`
command (`cmd_plan.py` prints them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llm_roofline._core import units
from llm_roofline.cli._common import fmt_money, plural

if TYPE_CHECKING:
    from llm_roofline.planning.fleet_plan import Fleet, PlanResult

__all__ = ["fleet_text", "ms_text", "print_fleet"]


def ms_text(t: float | None, target_ms: float) -> str:
    """A time in ms, with as many decimals (one at least) as it takes to show which side of
    the target it is on: 30.04 against 30 reads 30.04, not 30."""
    if t is None:
        return "—"
    v = t / units.ms
    for decimals in range(1, 7):
        text = f"{v:,.{decimals}f}"
        if (float(text.replace(",", "")) > target_ms) == (v > target_ms):
            return text
    return text


def fleet_text(r: Fleet) -> str:
    """A fleet in words: '6 × h100-sxm, 6 instances of 1 chip' or its two pools."""
    ps, ds = r.prefill_split, r.decode_split
    if ps is not None and ds is not None:
        return (
            f"{r.chips} × {r.hardware}: "
            f"{plural(r.prefill_instances or 0, 'prefill instance')} of "
            f"{plural(ps.chips, 'chip')} (tp {ps.tp} · pp {ps.pp}) + "
            f"{plural(r.decode_instances or 0, 'decode instance')} of "
            f"{plural(ds.chips, 'chip')} (tp {ds.tp} · pp {ds.pp})"
        )
    dp = f" · dp {r.dp}" if r.dp > 1 else ""
    return (
        f"{r.chips} × {r.hardware}: {plural(r.replicas, 'instance')} of "
        f"{plural(r.instance_chips, 'chip')} (tp {r.tp} · pp {r.pp} · ep {r.ep}{dp})"
    )


def print_fleet(label: str, f: Fleet, res: PlanResult, ttft_ms: float, tpot_ms: float) -> None:
    """A fleet of the answer: its cost, its percentiles (the worst of the draws, then each
    draw's), where it stands against the targets, and the command that simulates it."""
    from llm_roofline.planning.fleet_result import simulate_command, standing

    st = standing(f, res.request)
    print(f"{label}: {fleet_text(f)}")
    print(
        f"  {fmt_money(f.usd_per_hour)}/hour, "
        f"{fmt_money(f.usd_per_million_output_tokens)} per million output tokens; "
        f"TTFT p90 {ms_text(f.ttft_p90_s, ttft_ms)} ms, "
        f"TPOT p99 {ms_text(f.tpot_p99_s, tpot_ms)} ms (the worst of {len(f.draws)} draws: "
        + ", ".join(
            f"seed {d.seed} {ms_text(d.ttft_p90_s, ttft_ms)} / {ms_text(d.tpot_p99_s, tpot_ms)}"
            for d in f.draws
        )
        + ")"
    )
    names = {"ttft_p90": "TTFT p90", "tpot_p99": "TPOT p99"}
    margins = ", ".join(f"{names[k]} {v:.0%}" for k, v in st["margins"].items() if v is not None)
    util = st["utilisation"]
    print(
        f"  capacity {units.sig(f.capacity_rps or 0.0)} requests/s"
        + (f", running at {util:.0%} of it" if util is not None else "")
        + f"; margin to the targets: {margins}; binding: {names.get(st['binding'], '—')}"
    )
    print(f"  {simulate_command(f, res.request, res.engine)}")
