"""The validation figure (`llm-roofline validate --out`): predicted against measured, log-log,
one colour per hardware, times and throughputs side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .canvas import new_figure, save, set_title

__all__ = ["write_validation_figure"]


def write_validation_figure(results: Any, title: str, path_stem: str | Path) -> list[Path]:
    """Log-log scatter of predicted against measured, one colour per hardware, for each
    metric kind (times, throughputs); the diagonal is perfect agreement."""
    from matplotlib import colormaps

    from ..validate import METRICS

    fig, axes = new_figure(13, 6, ncols=2)
    hws = sorted({r.row.hardware for r in results})
    cmap = colormaps["tab20"].resampled(max(len(hws), 1))
    for ax, throughput in zip(axes, (False, True), strict=True):
        rs = [r for r in results if METRICS[r.row.metric] is throughput]
        for i, hw in enumerate(hws):
            pts = [r for r in rs if r.row.hardware == hw]
            if not pts:
                continue
            ax.scatter(
                [r.row.measured for r in pts],
                [r.predicted for r in pts],
                s=14,
                color=cmap(i),
                label=hw,
            )
        if rs:
            lo = min(min(r.row.measured, r.predicted) for r in rs) / 1.5
            hi = max(max(r.row.measured, r.predicted) for r in rs) * 1.5
            ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="predicted = measured")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
        kind = "throughput (tokens/s)" if throughput else "time (s)"
        ax.set_xlabel(f"measured {kind}")
        ax.set_ylabel(f"predicted {kind}")
        set_title(
            ax,
            (
                "throughputs: above the line is faster than measured"
                if throughput
                else "times: below the line is faster than measured"
            ),
            fontsize=9,
        )
    axes[1].legend(fontsize=6, ncol=2, loc="upper left")
    fig.suptitle(title, fontsize=10)
    return save(fig, path_stem)
