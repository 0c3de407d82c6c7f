"""The lecture's train against the simulator: the figures of docs/train.md.

Llama 3.1 8B on one H100 SXM, ideal and calibrated engines. For Poisson traffic of 64-token
prompts and 256-token answers at fractions of the capacity, each request's time to first
token against the step it waited through and the step that carried its prompt
(`llm_roofline.planning.train.rides`); the two counter-examples (a prompt longer than the step's
budget, more traffic than the slots serve); throughput against B / t_step in a closed loop;
and the chip's drain time against the step the run actually took.

Run: `.venv/bin/python benchmarks/train.py` (about 5 s). `tests/planning/test_train.py` asserts the
claims on the same runs (same lengths, seeds and loads).
"""

from __future__ import annotations

import numpy as np

from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.planning.train import Rides, rides
from llm_roofline.sim.simulate import SimResult, capacity_rps, simulate
from llm_roofline.sim.workload import Workload, make_workload

I, O, N = 64, 256, 2000
EVERY_STEP = 10**9
ROUNDING_S = 1e-12
LOADS = (0.5, 0.8, 0.9, 0.95, 1.2)


def run(
    dep: Deployment, w: Workload, *, rate: float | None = None, budget: int = 8192
) -> tuple[SimResult, Rides]:
    """One instance's run with every step on its timeline, and each request's wait and ride."""
    res = simulate(
        dep,
        w,
        max_batched_tokens=budget,
        with_capacity=False,
        timeline_points=EVERY_STEP,
        rate=rate,
    )
    return res, rides(res, w)


def row(label: str, res: SimResult, r: Rides, overhead_s: float | None) -> str:
    """One table row: the run's steps and its requests' times to first token in steps; `hand`
    is 1.5 steps plus the engine's extra time for a step that emits a first token (none for
    a run outside the train's conditions)."""
    step = r.step_s
    beyond = int(np.sum(r.extra_s > ROUNDING_S))
    running = res.timeline["running"]
    return (
        f"| {label} | {float(np.mean(running)):.0f} | {int(np.max(running))} "
        f"| {np.mean(step) * 1e3:.2f} | {np.max(step) * 1e3:.2f} "
        f"| {np.max(res.ttft_s) / np.max(step):.2f} | {np.mean(res.ttft_s) / np.mean(step):.2f} "
        f"| {'—' if overhead_s is None else f'{1.5 + overhead_s / np.mean(step):.2f}'} "
        f"| {np.mean(r.wait_s) / np.mean(r.waited_step_s):.3f} "
        f"| {beyond} of {res.ttft_s.size} |"
    )


HEAD = (
    "| run | mean batch | most aboard | mean step ms | longest step ms "
    "| max TTFT / longest step | mean TTFT / mean step | hand | mean wait / its step "
    "| beyond the bound |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    print("Llama 3.1 8B on one H100 SXM; prompts 64, answers 256 tokens; Poisson, 2000 requests")
    for engine in ("ideal", "calibrated"):
        dep = deployment("llama-3.1-8b", "h100-sxm", 1, engine=engine)
        cap = capacity_rps(
            dep, make_workload(requests=200, rate=1.0, input_len=I, output_len=O, seed=0)
        )
        prof = dep.profile
        over = prof.prefill_overhead_s if prof is not None else 0.0
        extra = f", prefill_overhead_s {over * 1e3:.2f} ms" if prof is not None else ""
        print(f"\n## engine {engine}: capacity {cap:.1f} requests/s{extra}\n")
        if prof is not None:
            print(
                f"profile: bw_eff {prof.bw_eff:.2f}, kv_eff {prof.kv_eff:.2f}, "
                f"gqa_share {prof.gqa_share:.2f}, flops_eff {prof.flops_eff:.2f}\n"
            )
        print(HEAD)
        for load in LOADS:
            w = make_workload(requests=N, rate=load * cap, input_len=I, output_len=O, seed=1)
            res, r = run(dep, w, rate=load * cap)
            idle = int(r.idle_before.sum()) - 1
            print(row(f"{load:g} × capacity (idle steps {idle})", res, r, over))
        w = make_workload(requests=300, rate=2.0, input_len=2048, output_len=64, seed=2)
        res, r = run(dep, w, budget=512)
        print(row("2048-token prompts, budget 512, 2 req/s", res, r, None))
        print(
            f"\nchunked: shortest TTFT / longest step {np.min(res.ttft_s) / np.max(r.step_s):.2f}"
        )

        print("\nclosed loop of B clients, 16-token prompts, 512-token answers:\n")
        print(
            "| B | tokens/s simulated | B / t_step | ratio | t_step ms | t_prefill(16 B) ms "
            "| ratio to B·512 / (511 t_step + t_prefill) |\n|---|---|---|---|---|---|---|"
        )
        for b in (16, 64, 128, 256):
            wl = make_workload(requests=2 * b, concurrency=b, input_len=16, output_len=512)
            got = simulate(dep, wl, with_capacity=False, timeline_points=0).summary[
                "output_tokens_per_s"
            ]
            t = float(dep.time(dep.decode(b, 16 + 256))[0])
            tp = float(dep.time(dep.prefill(1, 16 * b), is_prefill=True)[0])
            cycle = b * 512 / (511 * t + tp)
            print(
                f"| {b} | {got:,.0f} | {b / t:,.0f} | {got / (b / t):.4f} | {t * 1e3:.2f} "
                f"| {tp * 1e3:.1f} | {got / cycle:.4f} |"
            )

        drain = dep.chip.drain_time_s
        w = make_workload(requests=N, rate=0.5 * cap, input_len=I, output_len=O, seed=1)
        res, r = run(dep, w, rate=0.5 * cap)
        b_run = round(float(np.mean(res.timeline["running"])))
        t_run = float(dep.time(dep.decode(b_run, I + O / 2))[0])
        print(f"\ndrain time (HBM capacity / bandwidth): {drain * 1e3:.1f} ms")
        print(
            f"step at the 0.5-load run's batch {b_run}, context {I + O // 2}: {t_run * 1e3:.2f} ms"
        )
        for ctx in (2048, 8192):
            full = int(dep.max_batch(ctx))
            t_full = float(dep.time(dep.decode(full, ctx))[0])
            print(
                f"step with memory full of KV, context {ctx}: batch {full}, {t_full * 1e3:.1f} ms"
            )


if __name__ == "__main__":
    main()
