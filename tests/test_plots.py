"""The figures' data (the figures themselves are written by the commands in test_cli.py)."""

from __future__ import annotations

import numpy as np

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
