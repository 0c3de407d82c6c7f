"""The figures: their data, drawing them on more than one core, and what a reader sees in them
as drawn (tick labels apart, words clear of lines, bands named, a legend and units on every
panel). That the commands write them is tested in tests/cli/test_commands.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline.plots import PlotSpec, context_crossover


def test_context_figure_marks_where_the_step_turns_memory_bound() -> None:
    # Llama 3.1 8B on an RTX 4090 at batch 351: the mark is the first context at which the
    # step is memory-bound; 3% shorter, it is still compute-bound
    p = PlotSpec(lr.deployment("llama-3.1-8b", "rtx-4090", 1))
    S = np.geomspace(64, 131072, 400)
    cross = context_crossover(p, 351, S)
    assert cross is not None
    before = lr.decode_step("llama-3.1-8b", "rtx-4090", batch=351, context_len=cross * 0.97)
    after = lr.decode_step("llama-3.1-8b", "rtx-4090", batch=351, context_len=cross)
    assert list(np.atleast_1d(before.bound_names)) == ["compute"]
    assert list(np.atleast_1d(after.bound_names)) == ["memory"]


def _blocked_png(path: str) -> None:
    raise IsADirectoryError(21, "Is a directory", path)


def test_a_figure_worker_failure_is_the_error_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A figure drawn in a forked child fails as it would in this process: the command line
    then prints one line and exits 2, whichever process drew the figure."""
    import sys

    from llm_roofline._core.errors import InputError
    from llm_roofline.plots import workers

    if sys.platform != "linux":
        pytest.skip("figures are drawn in forked children on Linux only")
    monkeypatch.setattr(workers, "_can_fork", lambda: True)
    done = tmp_path / "parent-share"
    with pytest.raises(OSError) as info:
        workers.run_split([done.touch, lambda: _blocked_png("child.png")], workers=2)
    assert (info.value.strerror, info.value.filename) == ("Is a directory", "child.png")
    assert done.exists()  # this process's share ran

    def refuse() -> None:
        raise InputError("batch must be positive", field="batch")

    with pytest.raises(lr.LlmRooflineError, match="batch must be positive"):
        workers.run_split([done.touch, refuse], workers=2)
    # every job runs once when nothing fails, in two processes
    marks = [tmp_path / f"m{k}" for k in range(5)]
    workers.run_split([m.touch for m in marks], workers=2)
    assert all(m.exists() for m in marks)


# ---- what a reader sees: the figures as the commands write them ------------------------------
#
# Each command below is run in this process with `Figure.savefig` replaced by a recorder, so the
# figures are caught in the state they would be written in (margins, ticks and labels final) and
# nothing is written. Each is then drawn with Agg and measured: tick labels that run into each
# other, words inside the axes that a line crosses or that leave the axes, shaded bands that
# nothing names, panels without a legend, axis titles without units, log axes with major ticks
# between the powers of ten.

SPARSE = str(Path(__file__).parents[2] / "docs" / "examples" / "deepseek-v3.2-sparse.config.json")
# the report's five figures (`report --out`, drawn by `plots.write_figures`) for deployments
REPORTS: dict[str, tuple[str, str, int, dict[str, Any]]] = {
    # the ones docs/ shows
    "lecture": ("deepseek-v3", "gb200", 72, {"weight_dtype": "fp8", "engine": "ideal"}),
    "dense h200": (
        "deepseek-v3",
        "h200",
        8,
        {"weight_dtype": "fp8", "kv_dtype": "fp8", "engine": "ideal"},
    ),
    "sparse h200": (
        SPARSE,
        "h200",
        8,
        {"weight_dtype": "fp8", "kv_dtype": "fp8", "engine": "ideal"},
    ),
    # a calibrated engine (its range shaded), a small dense model, a small mixture of experts
    "llama 70b": ("llama-3.1-70b", "h100-sxm", 8, {}),
    "qwen3 8b": ("qwen3-8b", "l40s", 1, {}),
    "mixtral": ("mixtral-8x7b", "h100-sxm", 2, {}),
    # latencies over two decades: the log axis whose every minor tick was once labelled
    "llama 8b mi300x": ("llama-3.1-8b", "mi300x", 8, {}),
}
CONTEXTS = {"llama 70b": 8192, "qwen3 8b": 2048, "mixtral": 8192}
# the other commands that draw figures (those docs/ shows with the commands that made them)
FIGURE_COMMANDS = {
    "pricing": "pricing --input-price 3 --output-price 15 --long-context-threshold 200000 "
    "--long-output-price 22.5 --ratio 600 --model llama-3.1-70b --chips 8 --engine ideal",
    "cache tiers": "cache-tiers --model llama-3.1-70b --hardware h100-sxm --chips 8 "
    "--context 100000 --engine ideal",
    "validate": "validate --engine calibrated",
    "optimize": "optimize --model llama-3.1-8b --hardware h100-sxm --max-chips 8 --tpot-ms 20",
    "simulate": "simulate --model llama-3.1-8b --hardware h100-sxm --rate 10 --requests 300 "
    "--input-len 512 --output-len 128",
}


@pytest.fixture
def saved_figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the code under test saves, in the order saved (each once), unwritten."""
    from matplotlib.figure import Figure

    from llm_roofline.plots import workers

    figures: list[Any] = []

    def record(self: Any, *args: Any, **kwargs: Any) -> None:
        if not any(f is self for f in figures):
            figures.append(self)

    monkeypatch.setattr(Figure, "savefig", record)
    monkeypatch.setattr(workers, "_can_fork", lambda: False)  # drawn here, where recorded
    return figures


def _shown(artist: Any) -> bool:
    return bool(artist.get_visible()) and bool(getattr(artist, "get_text", lambda: "x")())


def _visible_tick_labels(axis: Any) -> list[Any]:
    """The tick labels drawn on an axis: ticks inside the view, with text."""
    lo, hi = sorted(axis.get_view_interval())
    span = hi - lo
    out = []
    for minor in (False, True):
        locs = axis.get_minorticklocs() if minor else axis.get_majorticklocs()
        ticks = axis.get_minor_ticks(len(locs)) if minor else axis.get_major_ticks(len(locs))
        for loc, tick in zip(locs, ticks, strict=True):
            if lo - 1e-9 * span <= loc <= hi + 1e-9 * span and _shown(tick.label1):
                out.append(tick.label1)
    return out


def _is_grid(line: Any) -> bool:
    """Grid lines or tick marks drawn as one line (segments separated by NaN), or a line of
    markers only: nothing a word on the plot must keep clear of."""
    xy = np.asarray(line.get_xydata(), dtype=np.float64)
    if line.get_linestyle() in ("None", "", " ") or line.get_linewidth() == 0:
        return True
    return len(xy) >= 3 and bool(np.isnan(xy[2::3]).any(axis=1).all())


def _line_in_display(line: Any) -> Any:
    """A drawn line as a path in display coordinates (its steps included)."""
    from matplotlib.path import Path as MplPath

    verts = line.get_transform().transform(line.get_path().vertices)
    keep = np.all(np.isfinite(verts), axis=1)
    codes = np.full(len(verts), MplPath.LINETO)
    starts = keep & ~np.concatenate([[False], keep[:-1]])  # the first point after a gap
    codes[starts] = MplPath.MOVETO
    return MplPath(verts[keep], codes[keep])


def _is_band(artist: Any) -> bool:
    """A shaded region: a filled polygon or a span with some area."""
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Polygon, Rectangle

    if isinstance(artist, PolyCollection):
        return any(len(p.vertices) > 2 for p in artist.get_paths())
    return isinstance(artist, (Polygon, Rectangle)) and artist.get_visible()


def _problems(fig: Any, name: str) -> list[str]:
    """What a reader would stumble on in a figure as drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    out: list[str] = []
    for i, ax in enumerate(fig.axes):
        where = f"{name}, panel {i} ({ax.get_title().splitlines()[0] if ax.get_title() else ''})"
        colorbar = ax.get_label() == "<colorbar>"
        # tick labels: none runs into its neighbour
        for axis, letter in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            boxes = [
                (t.get_text(), t.get_window_extent(renderer)) for t in _visible_tick_labels(axis)
            ]
            for a, (ta, ba) in enumerate(boxes):
                for tb, bb in boxes[a + 1 :]:
                    if ba.shrunk(0.98, 0.98).overlaps(bb.shrunk(0.98, 0.98)):
                        out.append(f"{where}: {letter} tick labels {ta!r} and {tb!r} overlap")
            if axis.get_scale() == "log":
                if len(boxes) < 2:  # readable: not cleared of labels to keep them apart
                    out.append(f"{where}: the log {letter} axis has {len(boxes)} tick labels")
                lo, hi = sorted(axis.get_view_interval())
                for v in axis.get_majorticklocs():
                    if lo <= v <= hi and abs(np.log10(v) - round(np.log10(v))) > 1e-9:
                        out.append(f"{where}: {letter} major tick at {v:g}, not a power of ten")
        if colorbar:
            continue
        # axis titles, with units
        for letter, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())):
            if not label or not ("(" in label or "$" in label):
                out.append(f"{where}: {letter} axis title {label!r} has no unit")
        # a legend that names what the panel draws
        legend = ax.get_legend()
        names = [t.get_text() for t in legend.get_texts()] if legend is not None else []
        if not names:
            out.append(f"{where}: no legend")
        else:  # on the page, clear of the axis titles and tick labels
            lbox = legend.get_window_extent(renderer)
            page = fig.bbox.padded(1)
            if not (page.contains(lbox.x0, lbox.y0) and page.contains(lbox.x1, lbox.y1)):
                out.append(f"{where}: the legend runs off the figure")
            titles = [ax.xaxis.label, ax.yaxis.label, ax.title]
            ticks = _visible_tick_labels(ax.xaxis) + _visible_tick_labels(ax.yaxis)
            for t in [*titles, *ticks]:
                if _shown(t) and lbox.overlaps(t.get_window_extent(renderer)):
                    out.append(f"{where}: the legend covers {t.get_text()!r}")
        # every shaded band named in the legend
        for band in [*ax.collections, *ax.patches]:
            if _is_band(band) and band.get_label() not in names:
                out.append(f"{where}: shaded band {band.get_label()!r} is not in the legend")
        # words on the plot: inside the axes, clear of every line, of each other, of the legend
        texts = [t for t in ax.texts if _shown(t)]
        texts = [t for t in texts if getattr(t, "_check_xy", lambda r: True)(renderer)]
        lines = [ln for ln in ax.lines if ln.get_visible() and not _is_grid(ln)]
        paths = [(ln, _line_in_display(ln)) for ln in lines]
        frame = ax.bbox.padded(1)
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
        for k, (text, box) in enumerate(boxes):
            if not (frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)):
                out.append(f"{where}: {text!r} runs out of the axes")
            for ln, path in paths:
                if path.intersects_bbox(box, filled=False):
                    out.append(f"{where}: {text!r} is crossed by the line {ln.get_label()!r}")
            for other, obox in boxes[k + 1 :]:
                if box.overlaps(obox):
                    out.append(f"{where}: {text!r} overlaps {other!r}")
            if legend is not None and box.overlaps(legend.get_window_extent(renderer)):
                out.append(f"{where}: {text!r} is under the legend")
    return out


def _assert_reads_cleanly(figures: list[Any], case: str) -> None:
    assert figures, "nothing was drawn"
    problems = [p for k, fig in enumerate(figures) for p in _problems(fig, f"{case} #{k}")]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(REPORTS))
def test_every_report_figure_reads_cleanly(
    case: str, saved_figures: list[Any], tmp_path: Path
) -> None:
    from llm_roofline.plots import write_figures

    model, hardware, chips, kw = REPORTS[case]
    dep = lr.deployment(model, hardware, chips, **kw)
    write_figures(dep, tmp_path, context_len=CONTEXTS.get(case, 4096))
    assert len(saved_figures) == 5
    _assert_reads_cleanly(saved_figures, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(FIGURE_COMMANDS))
def test_every_other_figure_reads_cleanly(
    case: str, saved_figures: list[Any], tmp_path: Path
) -> None:
    from ..conftest import run_cli

    run = run_cli(*FIGURE_COMMANDS[case].split(), "--out", str(tmp_path))
    assert run.code == 0, run.err
    _assert_reads_cleanly(saved_figures, case)


def test_the_residual_figure_reads_cleanly(saved_figures: list[Any], tmp_path: Path) -> None:
    """The held-out residuals of `validate --cv --out` (the errors made up here: the figure's
    layout is under test, and the cross-validation takes seconds)."""
    from llm_roofline.plots import write_residual_figure
    from llm_roofline.validation.validate import load_rows

    rows = [r.row for r in load_rows()]
    errors = np.random.default_rng(0).normal(0.0, 0.2, len(rows))
    write_residual_figure({"rows": rows, "errors": errors}, "each source held out", tmp_path / "r")
    assert len(saved_figures) == 1
    _assert_reads_cleanly(saved_figures, "residuals")
