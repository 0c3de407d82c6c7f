"""The validation figure (`llm-roofline validate --out`): predicted against measured, log-log,
one colour per hardware, times and throughputs side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .canvas import new_figure, save, set_title

__all__ = ["write_residual_figure", "write_validation_figure"]


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


def write_residual_figure(cv: dict[str, Any], title: str, path_stem: str | Path) -> list[Path]:
    """Held-out errors ln(measured time / predicted time) of `validate.cross_validate` against
    the batch, the context, the chips, the model's size and the hardware kind: where a
    pattern shows, the calibrated engine's form misses something physical."""
    import numpy as np

    from ..catalog import get_model
    from ..crossval import hardware_kind
    from ..validate import load_rows

    by_row = {r.row: r for r in load_rows()}
    rows = [by_row[i] for i in cv["rows"]]
    err = np.asarray(cv["errors"])
    panels = (
        ("batch (sequences)", [float(r.batch or 1) for r in rows], True),
        (
            "context: input + output (tokens)",
            [float(r.input_len + r.output_len) for r in rows],
            True,
        ),
        ("chips", [float(r.chips) for r in rows], True),
        ("model parameters", [float(get_model(r.model).params_stored) for r in rows], True),
    )
    fig, axes = new_figure(24, 5, ncols=5)
    flat = list(axes)
    for ax, (label, x, log) in zip(flat, panels, strict=False):
        ax.scatter(x, err, s=10, alpha=0.6)
        ax.axhline(0.0, color="black", lw=1)
        ax.set_xscale("log" if log else "linear")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3, which="both")
    flat[0].set_ylabel("ln(measured / predicted time), held out")
    kinds = sorted({hardware_kind(r.hardware) for r in rows})
    ax = flat[4]
    data = [err[[hardware_kind(r.hardware) == k for r in rows]] for k in kinds]
    ax.boxplot(data, vert=False)
    ax.set_yticks(range(1, len(kinds) + 1), [""] * len(kinds))
    for i, k in enumerate(kinds, 1):  # each kind named above its box, inside the axes
        ax.text(0.02, i + 0.3, k, transform=ax.get_yaxis_transform(), fontsize=7, va="bottom")
    ax.set_ylim(0.5, len(kinds) + 0.8)
    ax.axvline(0.0, color="black", lw=1)
    ax.set_xlabel("ln(measured / predicted time), held out")
    fig.suptitle(title, fontsize=10)
    return save(fig, path_stem)
