"""The validation figure (`llm-roofline validate --out`): predicted against measured, log-log,
one colour per hardware, times and throughputs side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llm_roofline.plots.canvas import new_figure, save, set_title
from llm_roofline.plots.layout import Spot, label, legend

__all__ = ["write_residual_figure", "write_validation_figure"]


def write_validation_figure(results: Any, title: str, path_stem: str | Path) -> list[Path]:
    """Log-log scatter of predicted against measured, one colour per hardware, for each
    metric kind (times, throughputs); the diagonal is perfect agreement."""
    from matplotlib import colormaps

    from llm_roofline.validation.validate import METRICS

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
        legend(ax, "upper left", fontsize=6, ncol=2)
    fig.suptitle(title, fontsize=10)
    return save(fig, path_stem)


def write_residual_figure(cv: dict[str, Any], title: str, path_stem: str | Path) -> list[Path]:
    """Held-out errors ln(measured time / predicted time) of `validate.cross_validate` against
    the batch, the context, the chips, the model's size and the hardware kind: where a
    pattern shows, the calibrated engine's form misses something physical."""
    import numpy as np

    from llm_roofline.model.checkpoints import get_model
    from llm_roofline.validation.crossval import hardware_kind
    from llm_roofline.validation.validate import load_rows

    by_row = {r.row: r for r in load_rows()}
    rows = [by_row[i] for i in cv["rows"]]
    err = np.asarray(cv["errors"])
    panels = (
        ("batch (sequences)", [float(r.batch or 1) for r in rows]),
        ("context: input + output (tokens)", [float(r.input_len + r.output_len) for r in rows]),
        ("chips (accelerators)", [float(r.chips) for r in rows]),
        ("model size (parameters)", [float(get_model(r.model).params_stored) for r in rows]),
    )
    error = "ln(measured / predicted time), held out"
    fig, axes = new_figure(24, 5, ncols=5)
    flat = list(axes)
    for ax, (name, x) in zip(flat, panels, strict=False):
        ax.scatter(x, err, s=10, alpha=0.6, label="one row")
        ax.axhline(0.0, color="black", lw=1, label="predicted = measured")
        ax.set_xscale("log")
        ax.set_xlabel(name)
        ax.set_ylabel(error)
        ax.grid(alpha=0.3, which="both")
        legend(ax, "lower left", fontsize=7)
    kinds = sorted({hardware_kind(r.hardware) for r in rows})
    ax = flat[4]
    data = [err[[hardware_kind(r.hardware) == k for r in rows]] for k in kinds]
    import matplotlib

    version = tuple(int(v) for v in matplotlib.__version__.split(".")[:2])
    flat_boxes = {"orientation": "horizontal"} if version >= (3, 10) else {"vert": False}
    boxes = ax.boxplot(data, **flat_boxes)
    boxes["boxes"][0].set_label("middle half of the rows")
    boxes["medians"][0].set_label("median")
    ax.set_yticks(range(1, len(kinds) + 1), [""] * len(kinds))
    ax.set_ylim(0.5, len(kinds) + 2.0)  # room above the boxes for the legend
    ax.axvline(0.0, color="black", lw=1, label="predicted = measured")
    for i, k in enumerate(kinds, 1):  # each kind named above its box, inside the axes
        label(
            ax,
            k,
            [Spot(0.0, i + 0.27, "left", "bottom"), Spot(1.0, i + 0.27, "right", "bottom")],
            coords=("axes fraction", "data"),
            fontsize=7,
        )
    ax.set_xlabel(error)
    ax.set_ylabel("hardware kind (named over its box)")
    legend(ax, "upper right", fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    return save(fig, path_stem)
