"""plots/fig_simulation.py: latency percentiles against load (in ms, a missing percentile left
out) and the first instance's queue and KV memory over the run: two figures, four files."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from llm_roofline.plots import fig_simulation
from llm_roofline.plots.fig_simulation import write_simulation_figures
from llm_roofline.sim import simulate


def _row(rate: float, ttft: float, tpot: float, p99: float | None) -> dict[str, Any]:
    row: dict[str, Any] = {"rate_rps": rate, "capacity_rps": 10.0}
    for metric, base in (("ttft", ttft), ("tpot", tpot)):
        row |= {f"{metric}_p50_s": base, f"{metric}_p90_s": 2 * base, f"{metric}_p99_s": p99}
    return row


def test_two_figures_from_the_rows_and_the_timeline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked: dict[str, Any] = {}

    def rows(dep: Any, work: Any, **kw: Any) -> list[dict[str, Any]]:
        asked.update(kw)
        # at 2 requests/s no p99 (too few requests): that point is left out of the p99 line
        return [_row(2.0, 0.05, 0.01, None), _row(9.0, 0.2, 0.02, 0.5)]

    figures: list[Any] = []

    def keep(fig: Any, stem: Path) -> list[Path]:
        figures.append(fig)
        return [Path(f"{stem}.png"), Path(f"{stem}.svg")]

    monkeypatch.setattr(simulate, "latency_against_load", rows)
    monkeypatch.setattr(fig_simulation, "save", keep)
    timeline = {
        "t_s": np.array([0.0, 1.0, 2.0]),
        "waiting": np.array([0, 3, 1]),
        "running": np.array([2, 4, 4]),
        "kv_share": np.array([0.1, 0.5, 0.25]),
    }
    res = SimpleNamespace(summary={"capacity_rps": 10.0}, timeline=timeline)
    paths = write_simulation_figures("dep", "work", res, tmp_path, {"max_seqs": 8})
    assert [p.name for p in paths] == [
        "simulate_latency_vs_load.png",
        "simulate_latency_vs_load.svg",
        "simulate_timeline.png",
        "simulate_timeline.svg",
    ]
    assert asked == {"capacity": 10.0, "max_seqs": 8}  # the run's capacity, the server's limits
    load, timeline_fig = figures
    ttft, tpot = load.axes
    assert ttft.get_ylabel() == "time to first token (ms)"
    assert tpot.get_title() == "time per output token against load"
    p50, p90, p99, cap = ttft.lines
    assert list(p50.get_ydata()) == [50.0, 200.0]  # 0.05 s and 0.2 s in ms
    assert list(p90.get_ydata()) == [100.0, 400.0]
    assert list(p99.get_xdata()) == [9.0]  # the point without a p99 left out
    assert cap.get_label() == "capacity (10 requests/s)"
    queue, kv = timeline_fig.axes
    assert [ln.get_label() for ln in queue.lines] == ["waiting", "running"]
    assert list(kv.lines[0].get_ydata()) == [10.0, 50.0, 25.0]  # shares as percentages
    assert kv.get_ylim() == (0.0, 105.0)
