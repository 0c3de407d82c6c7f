"""The figures' data (the figures themselves are written by the commands in test_cli.py)."""

from __future__ import annotations

from pathlib import Path

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

    from llm_roofline.errors import InputError
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
