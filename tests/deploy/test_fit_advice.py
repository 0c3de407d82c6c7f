"""What does not fit, and what would (`fit_advice`): the part that overflows is named, and the
suggestions are the memory model's own answers, checked here by hand arithmetic.

Llama 3.1 8B (its config.json: 32 layers, D 4096, 32 heads, 8 KV heads of 128, F 14336,
V 128,256, untied embeddings) has 32 x (attention 4096 x 4096 x 2 + 4096 x 1024 x 2 =
41,943,040; MLP 3 x 4096 x 14336 = 176,160,768; two norms 8,192) = 6,979,584,000 parameters in
its layers, + embedding and LM head 2 x 128,256 x 4096 = 1,050,673,152, + final norm 4,096 =
8,030,261,248. In bf16: 16,060,522,496 B. KV per token in bf16: 32 x 2 x 8 x 128 x 2 B =
131,072 B. Activations of one sequence's decode token: (3 x 4096 + 2 x 14336) x 2 B = 81,920 B
of 16-bit values + 4 x 128,256 = 513,024 B of fp32 logits = 594,944 B. The RTX 4090's "24 GB"
are 24 GiB: nvidia-smi reports 24,564 MiB = 25,757,220,864 B, which the catalog holds as
memory_capacity_gb = 25.76, i.e. 25.76e9 B; beside the weights 25.76e9 - 16,060,522,496 =
9,699,477,504 B are free.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from llm_roofline import InputError
from llm_roofline.deploy.deployment import deployment
from llm_roofline.deploy.fit_advice import fit_advice, fit_message
from llm_roofline.deploy.report_table import decode_report
from llm_roofline.economics.cache_tiers import cache_costs

WEIGHTS = 16_060_522_496  # Llama 3.1 8B in bf16
KV_TOKEN = 131_072  # bf16 KV bytes per token
ACT = 594_944  # one sequence's decode activations
CAP = 25.76e9  # the RTX 4090 in the catalog
FREE = CAP - WEIGHTS


def test_the_catalog_holds_a_24_gib_rtx_4090() -> None:
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    assert dep.chip.memory_bytes == CAP and abs(CAP - 24_564 * 2**20) < 0.01e9
    assert dep.model.params_stored * 2 == WEIGHTS


def test_fits_gives_no_message() -> None:
    # 16,060,522,496 + 4096 x 131,072 = 536,870,912 + 594,944 = 16,597,988,352 <= 25.76e9
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    advice = fit_advice(dep, 4096)
    assert advice.fits and advice.message == "" and fit_message(dep, 4096) == ""
    assert advice.total == WEIGHTS + 4096 * KV_TOKEN + ACT


def test_kv_overflow_names_the_kv_cache_and_what_would_fit() -> None:
    # At 131,072 tokens the KV cache is 131,072 x 131,072 = 17,179,869,184 B: with the weights
    # 33,240,986,624 B > 25.76e9, though the weights alone (16.06 GB) fit.
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    advice = fit_advice(dep, 131_072)
    assert not advice.fits and not advice.weights_alone
    assert advice.kv == 131_072 * KV_TOKEN
    # largest context at batch 1: 131,072 S + 594,944 <= 9,699,477,504, S <= 73,996.6
    assert advice.max_context == math.floor((FREE - ACT) / KV_TOKEN) == 73_996
    # not one sequence of 131,072 tokens fits beside the weights
    assert advice.max_batch == 0
    # KV types, most bits first: q8_0 (8.5 bits: 65,536 x 1.0625 = 69,632 B/token x 131,072 =
    # 9,126,805,504 B, + 594,944 = 9,127,400,448 B) fits in the 9,699,477,504 B free
    assert advice.kv_dtype == "q8_0"
    assert 69_632 * 131_072 + ACT <= FREE
    # two chips as one instance of two pipeline stages: 8,030,261,248 B of weights, 8,589,934,592
    # B of KV and 297,472 B of activations per chip = 16,620,493,312 B <= 25.76e9; the rule's own
    # split of two chips (two replicas) keeps the whole sequence on one chip
    assert (advice.chips, advice.chips_split) == (2, "tp 1 · pp 2 · 1 replica")
    assert WEIGHTS / 2 + 131_072 * KV_TOKEN / 2 + ACT / 2 <= CAP
    msg = advice.message
    assert "\n" not in msg
    assert msg.startswith(
        # 25.76e9 B = 25.8 GB = 25.76e9 / 2**30 = 23.99 GiB: the card's "24GB"
        "weights 16.1 GB + KV cache 17.2 GB = 33.2 GB per chip, 25.8 GB (24.0 GiB) per chip "
        "available: the weights fit but not with the KV cache of batch 1 at context 131,072"
    )
    for words in (
        "the largest context that fits at batch 1 is 73,996",
        "not one sequence fits at context 131,072",
        "--kv-dtype q8_0",
        "a shorter context",
        "2 chips (tp 1 · pp 2 · 1 replica)",
    ):
        assert words in msg, words
    assert "weights alone" not in msg


def test_batch_overflow_gives_the_largest_batch_and_context() -> None:
    # 64 sequences at 4096: KV 64 x 536,870,912 = 34,359,738,368 B. Largest batch at 4096:
    # 9,699,477,504 / (536,870,912 + 594,944) = 18.05 -> 18. Largest context at batch 64:
    # 64 (131,072 S + 594,944) <= 9,699,477,504 -> S <= (151,554,336 - 594,944) / 131,072
    # = 1151.7 -> 1151.
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    advice = fit_advice(dep, 4096, batch=64)
    assert advice.max_batch == math.floor(FREE / (4096 * KV_TOKEN + ACT)) == 18
    assert advice.max_context == math.floor((FREE / 64 - ACT) / KV_TOKEN) == 1151
    msg = advice.message
    assert "the largest context that fits at batch 64 is 1,151" in msg
    assert "the largest batch at context 4,096 is 18" in msg
    assert "a smaller batch" in msg
    # no KV type fits 64 x 4096 tokens in the 9,699,477,504 B free: q8_0 64 x 4096 x 69,632 =
    # 18,253,611,008 B, fp8 and int8 17,179,869,184 B, q4_0 and nvfp4 64 x (4096 x 36,864 +
    # 594,944) = 9,701,752,832 B (2.3 MB over); none is named
    assert 64 * (4096 * 36_864 + ACT) > FREE
    assert advice.kv_dtype is None and "--kv-dtype" not in msg


def test_weights_alone_overflow_says_so_and_gives_chips_and_a_weight_type() -> None:
    # fp32 weights: 8,030,261,248 x 4 = 32,121,044,992 B > 25.76e9 on their own.
    dep = deployment("llama-3.1-8b", "rtx-4090", weight_dtype="fp32", engine="ideal")
    advice = fit_advice(dep, 4096)
    assert advice.weights_alone and advice.weights == 4 * WEIGHTS / 2
    assert advice.max_context is None  # no context fits while the weights do not
    # two chips: the rule splits the RTX 4090's one-card domain into two pipeline stages,
    # 16,060,522,496 B of weights + 268,435,456 B of KV + 297,472 B a chip <= 25.76e9
    assert (advice.chips, advice.chips_split) == (2, "tp 1 · pp 2 · 1 replica")
    # in bf16 (the first 16-bit type, the most bits below fp32) it fits one chip (above)
    assert advice.weight_dtype == "bf16"
    msg = advice.message
    assert msg.startswith(
        "weights 32.1 GB + KV cache 0.5 GB = 32.7 GB per chip, 25.8 GB (24.0 GiB) per chip "
        "available: the weights alone exceed a chip; try 2 chips (tp 1 · pp 2 · 1 replica) or "
        "--weight-dtype bf16 (fits batch 1 at context 4,096)"
    )
    assert "KV cache of batch" not in msg


def test_weights_of_the_split_given_name_the_chips_as_one_instance() -> None:
    # tp 1, pp 1 on 8 H100 = 8 copies of Llama 3.1 70B: 70,553,706,496 x 2 = 141.1 GB a chip >
    # 85.5 GB (tests/deploy/test_deployment.py has the count). The same 8 chips split tp 8 hold
    # 17.6 GB of weights each: the fewest chips is the deployment's own count, split another way.
    dep = deployment("llama-3.1-70b", "h100-sxm", 8, tp=1, pp=1, ep=1, replicas=1)
    advice = fit_advice(dep, 4096)
    assert advice.weights_alone and advice.weights == 70_553_706_496 * 2
    assert (advice.chips, advice.chips_split) == (8, "tp 8 · pp 1 · 1 replica")


def test_every_surface_shows_the_same_line() -> None:
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    line = fit_message(dep, 131_072)
    assert decode_report(dep, context_len=131_072).fit_message == f"does not fit: {line}"
    res = cache_costs(dep, context_len=131_072, hold_s=[1.0])
    assert res["fits"] is False
    assert res["warning"] == (
        f"Llama 3.1 8B does not fit on 1 × rtx-4090 ({dep.split_text()}): {line} "
        "(costs computed as if it did)"
    )


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_sizes_are_refused(bad: float) -> None:
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    with pytest.raises(InputError):
        fit_advice(dep, bad)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        fit_advice(dep, 4096, batch=bad)  # type: ignore[arg-type]


def test_numbers_are_finite() -> None:
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    a = fit_advice(dep, 131_072)
    assert np.all(np.isfinite([a.weights, a.kv, a.activations, a.capacity, a.total]))


def test_docs_quote_the_current_lines() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "deployment.md").read_text("utf-8")
    kv = fit_message(deployment("llama-3.1-8b", "rtx-4090", engine="ideal"), 131_072)
    w = fit_message(deployment("llama-3.1-8b", "rtx-4090", weight_dtype="fp32"), 4096)
    assert f"\n{kv}\n" in doc and f"\n{w}\n" in doc


# ---- data-parallel groups hold whole sequences ------------------------------------------------
#
# The H100 SXM holds 85,520,000,000 B (the catalog's memory_capacity_gb = 85.52); beside Llama
# 3.1 8B's weights 85,520,000,000 - 16,060,522,496 = 69,459,477,504 B are free on each chip.
# At context 110,000 one sequence needs 110,000 x 131,072 + 594,944 = 14,418,514,944 B, so one
# chip holds 69,459,477,504 / 14,418,514,944 = 4.82 -> 4 sequences.

H100 = 85_520_000_000
SEQ_110K = 110_000 * KV_TOKEN + ACT


def test_a_data_parallel_group_holds_whole_sequences() -> None:
    # Two H100 as one instance, tp 1 · pp 1 · dp 2: each group (one chip) holds 4 sequences at
    # 110,000 tokens, so the largest batch is 2 x 4 = 8. Batch 9 puts 5 sequences on the
    # busiest chip: 16,060,522,496 + 5 x 14,418,514,944 = 88,153,097,216 B > 85.52e9: it does
    # not fit (counted as 9 / 2 = 4.5 sequences a chip it came to 80,943,839,744 B and "fit",
    # while max_batch said 8).
    dep = deployment("llama-3.1-8b", "h100-sxm", 2, tp=1, pp=1, replicas=1, engine="ideal")
    assert dep.dp == 2 and dep.chip.memory_bytes == H100
    assert math.floor((H100 - WEIGHTS) / SEQ_110K) == 4
    assert int(dep.max_batch(110_000)) == 8
    mem = dep.memory(9, 110_000)
    assert float(mem.kv) == 5 * 110_000 * KV_TOKEN
    assert float(mem.total) == WEIGHTS + 5 * SEQ_110K == 88_153_097_216
    assert not bool(mem.fits)
    assert bool(dep.memory(8, 110_000).fits)  # 4 a chip: 73,734,582,272 B
    advice = fit_advice(dep, 110_000, 9)
    assert not advice.fits and advice.max_batch == 8
    assert "the largest batch at context 110,000 is 8" in advice.message


def test_the_chips_suggested_hold_the_batch() -> None:
    # Llama 3.1 8B, batch 8 at 1,048,576 tokens: one sequence's KV is 1,048,576 x 131,072 =
    # 137,438,953,472 B. The search once offered 15 chips as tp 1 · pp 3 · dp 5, whose groups
    # of 3 chips hold ⌈8 / 5⌉ = 2 sequences: 2 x 137.4 GB / 3 = 91.6 GB of KV a chip > 85.52 GB
    # (its own max_batch at that context is 5). Whatever split it names now holds the batch.
    dep = deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal")
    advice = fit_advice(dep, 2**20, 8)
    assert advice.chips is not None
    assert 2 * 2**20 * KV_TOKEN / 3 > H100
    tp, pp, r = (
        int(re.search(pattern, advice.chips_split).group(1))  # type: ignore[union-attr]
        for pattern in (r"tp (\d+)", r"pp (\d+)", r"(\d+) replica")
    )
    named = deployment(
        "llama-3.1-8b", "h100-sxm", advice.chips, tp=tp, pp=pp, replicas=r, engine="ideal"
    )
    assert named.split_text().startswith(advice.chips_split)
    assert int(named.max_batch(2**20)) >= 8 and bool(named.memory(8, 2**20).fits)


@pytest.mark.parametrize(
    ("model", "chips", "kw", "contexts"),
    [
        ("llama-3.1-8b", 2, {"tp": 1, "pp": 1, "replicas": 1}, [4096, 110_000, 131_072]),
        ("llama-3.1-8b", 6, {"tp": 1, "pp": 2, "replicas": 1}, [8192, 300_000, 2**20]),
        ("llama-4-scout", 8, {"tp": 1, "ep": 8}, [4096, 65_536, 2**20]),
        ("llama-3.1-70b", 8, {"tp": 2, "replicas": 2}, [4096, 32_768, 131_072]),
        ("deepseek-v3", 64, {"tp": 1, "ep": 64}, [4096, 65_536]),
    ],
)
def test_memory_fits_exactly_up_to_max_batch(
    model: str, chips: int, kw: dict[str, Any], contexts: list[int]
) -> None:
    """The memory model's two checks agree: `memory(B, S).fits` iff B <= `max_batch(S)`, for
    B around the largest batch (every replica and data-parallel group counted)."""
    dep = deployment(model, "h100-sxm", chips, weight_dtype="fp8", engine="ideal", **kw)
    for S in contexts:
        top = int(dep.max_batch(S))
        for B in range(max(1, top - 3 * dep.groups), top + 3 * dep.groups + 1):
            assert bool(dep.memory(B, S).fits) == (B <= top), (dep.split_text(), S, B, top)
        if top < 1:
            assert fit_message(dep, S, 1) != ""


def test_no_reason_is_ever_empty() -> None:
    from llm_roofline.deploy.fit_advice import no_fit_reason

    assert no_fit_reason("the line", 4096, 0) == "the line"
    assert no_fit_reason("", 4096, 0) == (
        "not one sequence fits at context 4,096 (the largest batch is 0)"
    )
    assert no_fit_reason("", 4096, 3) == "the largest batch that fits at context 4,096 is 3"


def _empty_line(*_: object) -> str:
    return ""


def test_callers_never_print_an_empty_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the fit line ever be empty where the largest batch is 0, every caller still says
    why (pricing's cost floor, the simulator's admission, report's DOES NOT FIT line)."""
    import llm_roofline.deploy.fit_advice as fa
    from llm_roofline.economics.pricing import cost_floor
    from llm_roofline.sim.simulate import kv_capacity
    from tests.conftest import run_cli

    # every module that took the function by name (`from ... import fit_message`) gets the
    # empty line too, whatever name it bound it to
    for module in [m for name, m in sys.modules.items() if name.startswith("llm_roofline")]:
        for attr, value in list(vars(module).items()):
            if value is fa.fit_message and module is not fa:
                monkeypatch.setattr(module, attr, _empty_line)
    monkeypatch.setattr(fa, "fit_message", _empty_line)
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")  # 131,072 tokens: none fit
    with pytest.raises(InputError) as e:
        cost_floor(dep, context_len=131_072)
    none_fit = "not one sequence fits at context 131,072 (the largest batch is 0)"
    assert str(e.value).endswith(f"no batch to price: {none_fit}")
    with pytest.raises(InputError) as e:
        kv_capacity(dep, 131_072)
    assert str(e.value).endswith(f"does not fit one instance: {none_fit}")
    r = run_cli("report", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--context", "128k")
    assert r.code == 0, r.err
    assert f"DOES NOT FIT at batch 1: {none_fit}." in r.out


def test_predict_csv_and_api_give_the_same_advice(tmp_path: Path) -> None:
    """`predict` (flags and a CSV's warning column) and /api/predict say what overflows and
    what would fit, not bytes alone, with memory counted as the engine counts it. 16 sequences
    reaching 32,768 + 1,024 = 33,792 tokens: KV 16 x 33,792 x 131,072 B = 70.9 GB beside
    16.1 GB of weights on a 25.76e9 B chip; the 32,768-token prompts prefill in chunks of
    8,192 / 16 = 512 tokens a sequence: activations 16 x 512 x 81,920 B (3 x 4096 + 2 x 14336
    16-bit values a token) + 16 x 513,024 B of logits = 679,297,024 B = 0.7 GB."""
    from ..conftest import run_cli

    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    line = fit_message(dep, 33_792, 16, prompt_len=32_768)
    assert "KV cache 70.9 GB + activations 0.7 GB" in line
    assert f"{16 * 33_792 * KV_TOKEN / 1e9:.1f}" == "70.9"
    prefill_act = 16 * 512 * 81_920 + 16 * 513_024
    assert prefill_act == 679_297_024
    # the largest context at batch 16, the chunk's activations kept: 16 x 131,072 S +
    # 679,297,024 <= 9,699,477,504 -> S <= 4,301.1
    assert math.floor((FREE - prefill_act) / (16 * KV_TOKEN)) == 4_301
    assert "the largest context that fits at batch 16 is 4,301" in line
    # the largest batch at 33,792: a pass prefills 8,192 tokens whatever the batch, so
    # b (4,429,185,024 + 513,024) + 671,088,640 <= 9,699,477,504 -> b <= 2.04 -> 2
    assert math.floor((FREE - 8192 * 81_920) / (33_792 * KV_TOKEN + 513_024)) == 2
    assert "the largest batch at context 33,792 is 2" in line
    flags = ["--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--engine", "ideal"]
    lengths = ["--batch", "16", "--input-len", "32k", "--output-len", "1k"]
    run = run_cli("predict", *flags, *lengths)
    assert run.code == 0, run.err
    assert f"does not fit: {line}" in " ".join((run.out + run.err).split())

    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(
        "model,hardware,chips,weight_dtype,engine,mode,batch,input_len,output_len\n"
        "llama-3.1-8b,rtx-4090,1,bf16,ideal,decode,16,32768,1024\n"
        "llama-3.1-8b,rtx-4090,1,bf16,ideal,decode,1,1024,1024\n"
    )
    run = run_cli("predict", "--scenarios", str(src), "--out", str(out))
    assert run.code == 0, run.err
    import csv

    rows = list(csv.DictReader(out.open()))
    # a CSV's rows are advised together (`bulk_advice`): the same parts and the same largest
    # context and batch as the one-scenario advice, the chip and type searches left to it
    warning = rows[0]["warning"]
    assert warning.startswith(f"does not fit: {line.split(': the weights fit')[0]}")
    for words in (
        "the largest context that fits at batch 16 is 4,301",
        "the largest batch at context 33,792 is 2",
        "a smaller --kv-dtype or more chips (predict this scenario alone to have them named)",
    ):
        assert words in warning, words
    assert rows[1]["warning"] == ""  # 1 x 2,048 tokens fits: no warning

    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from llm_roofline.web import create_app

    body = {"model": "llama-3.1-8b", "hardware": "rtx-4090", "engine": "ideal"}
    body |= {"batch": 16, "input_len": 32768, "output_len": 1024}
    r = TestClient(create_app()).post("/api/predict", json=body)
    assert r.status_code == 200
    assert r.json()["warning"] == f"does not fit: {line}"


def test_bulk_advice_agrees_with_the_one_scenario_advice() -> None:
    """The vectorised bisection of `bulk_advice` finds the same largest context and batch as
    `fit_advice`'s scalar one, pair by pair; weights that alone overflow are said so."""
    from llm_roofline.deploy.fit_bulk import bulk_advice

    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    pairs = [(1, 131_072), (16, 33_792), (64, 4096), (400, 4096), (3, 100_000)]
    bulk = bulk_advice(dep, [b for b, _ in pairs], [s for _, s in pairs])
    for (b, s), got in zip(pairs, bulk, strict=True):
        one = fit_advice(dep, s, b)
        assert (got.max_context, got.max_batch) == (one.max_context, one.max_batch), (b, s)
        assert got.message.startswith(one.message.split(": the weights fit")[0])
    # 70B in bf16 is 141 GB: the weights alone exceed one 85.5 GB H100
    big = deployment("llama-3.1-70b", "h100-sxm", 1, engine="ideal")
    (got,) = bulk_advice(big, [1], [4096])
    assert got.weights_alone and "the weights alone exceed a chip; try more chips" in got.message


def test_following_the_advice_fits() -> None:
    """What the advice says fits does fit when predicted: the largest context and batch it
    names for a prompt are checked with the prompt's prefill chunk, as `predict` checks them."""
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    for b, i, o in ((16, 32_768, 1024), (1, 131_072, 1), (4, 100_000, 1000)):
        advice = fit_advice(dep, i + o, b, prompt_len=i)
        assert not advice.fits
        assert advice.max_context
        ctx = advice.max_context  # the prompt shortened to fit, one output token
        res = dep.serve(batch=b, input_len=ctx - 1, output_len=1)
        assert res.fits, (b, ctx)
        if advice.max_batch:
            res = dep.serve(batch=advice.max_batch, input_len=i, output_len=o)
            assert res.fits, (advice.max_batch, i, o)
            res = dep.serve(batch=advice.max_batch + 1, input_len=i, output_len=o)
            assert not res.fits


def test_continuous_batching_keeps_the_engines_line() -> None:
    """Continuous batching is checked on the mean cache of sequences spread over their
    contexts, which the advice does not model: its warning stays the engine's bytes line."""
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    res = dep.serve(batch=5, input_len=1024, output_len=32_768, mode="continuous")
    (line,) = [w for w in res.warnings if w.startswith("does not fit")]
    assert "GB per chip needed" in line and "largest" not in line


@pytest.mark.slow
def test_the_chip_search_is_bounded() -> None:
    """A scenario nothing near fits tries at most 96 chip counts (32 one by one, then
    multiples of 8) and says how many it tried, not that every count up to the last was."""
    from llm_roofline.deploy.fit_advice import COUNTS, _chip_counts

    assert _chip_counts(10, 40) == list(range(10, 41))
    counts = _chip_counts(1544, 3088)
    assert counts[:32] == list(range(1544, 1576)) and counts[32] == 1576
    assert all(n % 8 == 0 for n in counts[32:]) and len(counts) == COUNTS == 96
    dep = deployment("kimi-k2", "rtx-3090", 8, engine="ideal")
    advice = fit_advice(dep, 131_072, 4096)
    assert advice.chips is None and advice.counts_tried == 96
    assert f"no split of 96 chip counts up to {counts[-1]:,}" in advice.message


def test_more_chips_than_the_search_goes_to() -> None:
    """9,999,999 sequences of 4,096 tokens: 9,999,999 x 4,096 x 131,072 B = 5.4e15 B of KV
    cache, over 60,000 H100s of 85.52e9 B: past the 4,096 chips the search goes to, said so
    (this once raised an IndexError on /api/report)."""
    from llm_roofline.deploy.fit_advice import MAX_CHIPS

    assert 9_999_999 * 4096 * KV_TOKEN / 85.52e9 > MAX_CHIPS
    dep = deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal")
    advice = fit_advice(dep, 4096, 9_999_999)
    assert advice.chips is None and advice.counts_tried == 0
    assert advice.message.endswith(
        "try a smaller batch (its bytes alone need more than 4,096 chips, the most searched)"
    )


def test_weights_read_in_another_type_than_released_are_noted() -> None:
    """DeepSeek-V3's config.json names quantization_config.quant_method "fp8" (the shipped
    config in the catalog); read in bf16 its report says so and names the flag; read in fp8,
    nothing. A config that names no format (Llama 3.1 8B's) gets no note."""
    from fastapi.testclient import TestClient

    from llm_roofline.deploy.deployment import deployment
    from llm_roofline.deploy.report_table import released_dtype_note
    from llm_roofline.model.checkpoints import get_model
    from llm_roofline.web import create_app

    assert get_model("deepseek-v3").released_dtype == "fp8"
    assert get_model("gpt-oss-120b").released_dtype == "mxfp4"
    assert get_model("llama-3.1-8b").released_dtype is None
    note = released_dtype_note(deployment("deepseek-v3", "gb200", 72))
    assert note is not None and note.startswith("DeepSeek-V3 is released with fp8 weights")
    assert "read them in bf16: --weight-dtype fp8" in note
    assert released_dtype_note(deployment("deepseek-v3", "gb200", 72, weight_dtype="fp8")) is None
    assert released_dtype_note(deployment("llama-3.1-8b", "h100-sxm", 1)) is None
    # the page gets the same line among its report's warnings
    body = {"model": "deepseek-v3", "hardware": "gb200", "chips": 72, "batch": 1}
    warned = TestClient(create_app()).post("/api/report", json=body).json()["warnings"]
    assert note in warned
