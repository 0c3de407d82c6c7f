"""docs/lecture.md quotes the tool: re-run the commands and compare every number it prints."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import llm_roofline as lr

from ..conftest import run_cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "lecture.md"


@pytest.fixture(scope="module")
def text() -> str:
    return " ".join(DOC.read_text().split())


@pytest.fixture(scope="module")
def report() -> dict[str, object]:
    r = run_cli(
        "report", "--model", "deepseek-v3", "--hardware", "gb200", "--chips", "72",
        "--weight-dtype", "fp8", "--engine", "ideal", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    return dict(r.json())


def _row(report: dict[str, object], batch: int) -> dict[str, float]:
    rows = report["rows"]
    assert isinstance(rows, list)
    return next(r for r in rows if r["batch"] == batch)


def test_headline_figures(text: str, report: dict[str, object]) -> None:
    assert f"**{float(report['latency_floor_s']) * 1e6:.1f} µs**" in text  # type: ignore[arg-type]
    assert f"**{float(report['all_weights_time_s']) * 1e3:.2f} ms**" in text  # type: ignore[arg-type]
    assert f"**{float(report['balance_batch']):,.0f}**" in text  # type: ignore[arg-type]
    assert f"**{float(report['drain_time_s']) * 1e3:.1f} ms**" in text  # type: ignore[arg-type]
    assert f"**{int(report['max_batch']):,}** sequences" in text  # type: ignore[call-overload]


def test_step_times_by_batch(text: str, report: dict[str, object]) -> None:
    assert f"batch 1 takes **{_row(report, 1)['t_step_s'] * 1e3:.3f} ms**" in text
    assert f"batch 64 takes **{_row(report, 64)['t_step_s'] * 1e3:.2f} ms**" in text
    assert f"batch 2,048 takes **{_row(report, 2048)['t_step_s'] * 1e3:.2f} ms**" in text
    assert all(r["bound"] == "memory" for r in report["rows"])  # type: ignore[attr-defined]
    # by batch 128 the weight fetch is within 5% of every expert read every step
    assert _row(report, 128)["t_weights_s"] >= 0.95 * float(report["all_weights_time_s"])  # type: ignore[arg-type]


def test_balance_batch_section(text: str) -> None:
    assert f"**{lr.balance_batch_formula(300, 2, 8, 1):,.0f}**" in text
    assert f"ratio **{lr.get_hardware('h100-sxm').ops_per_byte:.0f}**" in text
    s = lr.get_model("deepseek-v3")
    assert f"= **{s.params_stored / s.params_multiplied:.1f}**, not 8" in text
    assert f"B* is **{lr.balance_batch('deepseek-v3', 'h100-sxm'):,.0f}**" in text
    assert f"GB200 ({lr.get_hardware('gb200').ops_per_byte:.1f} in bf16)" in text


def test_context_section(text: str) -> None:
    s_bal = lr.balanced_context("deepseek-v3", "gb200", weight_dtype="fp8")
    assert f"is **{s_bal:,.0f}** tokens" in text
    st = lr.decode_step(
        "deepseek-v3", "gb200", 72, batch=40000, context_len=[s_bal, 2 * s_bal], weight_dtype="fp8"
    )
    share = st.t_matmul / st.t_step
    assert f"**{share[0]:.0%}** at the balanced context to **{share[1]:.0%}**" in text


def test_cost_section(text: str, report: dict[str, object]) -> None:
    one = _row(report, 1)["usd_per_million_tokens"]
    best = _row(report, int(report["max_batch"]))["usd_per_million_tokens"]  # type: ignore[call-overload]
    assert f"**${one:.1f}** per million tokens at batch 1" in text
    assert f"**${best:.3f}** at the largest batch" in text
    assert f"**{one / best:.0f}×** less" in text
    assert f"${lr.get_hardware('gb200').price_usd_per_s * 3600:.2f} per GPU-hour" in text


def test_drain_times_and_throughput(text: str, report: dict[str, object]) -> None:
    assert f"**{lr.get_hardware('h100-sxm').drain_time_s * 1e3:.1f} ms** on an H100" in text
    assert f"**{lr.get_hardware('rubin').drain_time_s * 1e3:.1f} ms**" in text
    assert f"**{288e9 / 20e12 * 1e3:.1f} ms**" in text
    assert f"**{2000 * 64:,}** tokens/s" in text
    r = _row(report, 2048)
    assert f"step is **{r['t_step_s'] * 1e3:.2f} ms**" in text
    assert f"give **{r['tokens_per_s']:,.0f}** tokens/s" in text
    assert np.isfinite(r["tokens_per_s"])


def test_figures_exist() -> None:
    for name in (
        "step_vs_batch",
        "step_vs_context",
        "cost_vs_batch",
        "cost_vs_tokens_per_pass",
        "latency_vs_cost",
    ):
        path = DOC.parent / "figures" / f"deepseek-v3_gb200_x72_{name}.png"
        assert path.stat().st_size > 10_000, path


def test_balance_batch_on_the_split(text: str) -> None:
    """B* on the rack's split, by hand from the weights on the fullest GPU (fp8: a byte each)."""
    dep = lr.deployment("deepseek-v3", "gb200", 72, weight_dtype="fp8", engine="ideal")
    w_chip = dep.weights_per_chip_bytes() / 1.0  # fp8: parameters = bytes
    n_active = dep.model.params_multiplied
    assert f"plus its four experts a layer, **{w_chip / 1e9:.1f}** billion" in text
    chip = dep.chip
    per_seq = chip.flops(chip.compute_dtype_for("fp8")) / chip.memory_bw * (1.0 / 2)
    assert f"(bytes / 2) = {per_seq:.1f} sequences" in text
    ratio = 72 * w_chip / n_active
    assert f"72 × {w_chip / 1e9:.1f} / {n_active / 1e9:.1f} = **{ratio:.1f}**" in text
    assert f"is about {round(per_seq * ratio, -2):,.0f}" in text
    assert per_seq * ratio == pytest.approx(dep.balance_batch, rel=0.05)
    # two micro-batches from about 22,000 sequences: at 2 B* the shortest context is still
    # memory-bound, at 3 B* compute-bound (the figure's batch)
    B = np.arange(20_000, 24_000, 100.0)
    first_two = B[np.argmax(dep.decode(B, 4096).micro_batches > 1)]
    assert 21_000 <= first_two <= 23_000
    assert "past about 22,000 sequences" in text
    b = dep.balance_batch
    assert list(np.atleast_1d(dep.decode(round(2 * b), 64).bound_names)) == ["memory"]
    assert list(np.atleast_1d(dep.decode(round(3 * b), 64).bound_names)) == ["compute"]
