"""A collective's calibrated efficiency follows its size, not the kind of pass it is in
(issue 27, section 5).

A mixed continuous-batching step (decode plus a prompt chunk) all-reduces the chunk's
activations in megabyte messages, yet its whole communication was divided by the decode
efficiency (kilobyte messages): Llama 3.1 70B fp8 on 8 H100 at 256 sequences of 2k -> 256
gave a TPOT of 129 ms, "bound: communication", against 39 ms decode-only and 28 ms ideal.
Now each collective's latency part runs at `comm_eff` and its bandwidth part at
`prefill_comm_eff`, in every pass.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import llm_roofline as lr
from llm_roofline.engine.roofline import mixed_step
from llm_roofline.engine.step_time import StepTime

from ..conftest import run_cli


def _case() -> lr.Deployment:
    d = lr.deployment("llama-3.1-70b", "h100-sxm", 8, weight_dtype="fp8")
    assert d.split_text().startswith("tp 8 · pp 1")
    return d


def _comm_part(d: lr.Deployment, s: StepTime, **kw: bool) -> float:
    """What a pass's communication adds to its calibrated time (one micro-batch)."""
    quiet = dataclasses.replace(
        s.one_batch,
        t_comm=np.zeros_like(s.t_comm),
        t_comm_latency=np.zeros_like(s.t_comm),
        single=None,
        double=None,
    )
    prof = d.profile
    assert prof is not None
    return float(prof.pass_time(s, **kw) - prof.pass_time(quiet, **kw))


def test_one_mixed_step_communicates_no_slower_than_its_two_halves_apart() -> None:
    # a mixed step's all-reduces carry its decode tokens and its prompt chunk together: one
    # message of their summed bytes, whose latency is paid once. Run apart, the decode step
    # and the chunk's prefill send the same bytes in two messages. Merging can only save
    # (each collective's latency once, the bytes the same): the calibrated communication of
    # the mixed step is at most the sum of the two. Dividing all of it by the decode
    # efficiency broke that: 84.6 ms against 13.0 + 55.0 = 68.0 ms.
    d = _case()
    mixed = mixed_step(
        d.model,
        d.instance,
        decode_batch=256.0,
        decode_contexts=np.arange(2048.0, 2304.0),
        prefill_seqs=1.0,
        prefill_len=2048.0,
        **{k: getattr(d, k) for k in ("weight_dtype", "kv_dtype", "overlap", "parallel", "comm")},
    )
    decode = d.decode(256.0, 2175.5)  # the mean of those contexts
    chunk = d.prefill(1.0, 2048.0)
    apart = _comm_part(d, decode) + _comm_part(d, chunk, prefill=True)
    assert _comm_part(d, mixed) <= apart


def test_issue_case_tpot_between_the_ideal_and_its_passes_apart() -> None:
    # the ideal is the floor; the ceiling is running each step's two halves as two passes:
    # the decode-only step plus a prefill of the prompt tokens a step carries (256 sequences
    # finishing every 256 steps bring 256 · 2,048 / 256 = 2,048 new prompt tokens a step)
    args = (
        "predict", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--chips", "8",
        "--weight-dtype", "fp8", "--mode", "continuous", "--batch", "256", "--input-len",
        "2k", "--output-len", "256", "--json",
    )  # fmt: skip
    r = run_cli(*args)
    assert r.code == 0, r.err
    tpot = float(r.json()["tpot_s"])
    ideal = run_cli(*args, "--engine", "ideal")
    floor = float(ideal.json()["tpot_s"])
    d = _case()
    decode_only = float(d.time(d.decode(256.0, 2048.0 + 128.0))[0])
    chunk = float(d.time(d.prefill(1.0, 2048.0), is_prefill=True)[0])
    assert floor < tpot < decode_only + chunk
