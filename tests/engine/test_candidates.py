"""The one candidate (chips, split) set of the searches (`engine.candidates`): a split the
chip's links cannot carry is left out by every sweep alike (optimize, the latency–cost grid of
`curves`, fast-mode's more chips), none aborting where the others go on.

The chip: `make_chip`, whose scale-up domain is one chip, with no scale-up and no scale-out
link. Any group of 2 or more chips that exchanges data (tensor parallel, an expert group, a
pipeline hop) has no link to cross (`collectives.link` refuses it), so by hand the only
splits such a chip can serve on n chips are the data-parallel one, tp = pp = ep = 1 (dp = n:
each chip holds the whole model and serves its own sequences; no collective at all).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from llm_roofline.deploy.curves import latency_cost_grid
from llm_roofline.deploy.deployment import Deployment, deployment
from llm_roofline.engine.candidates import candidates, connects, splits
from llm_roofline.engine.parallel import CommModel, Parallelism
from llm_roofline.planning.optimize import search
from llm_roofline.whatif.fast_mode import fast_mode
from tests.conftest import make_chip


@pytest.fixture(scope="module")
def lonely() -> Deployment:
    # Llama 3.1 8B in bf16 (16 GB) fits on one 80 GB chip: every chip count has a split
    chip = make_chip()
    assert chip.scale_up_domain == 1 and chip.scale_up_bw == 0 and chip.scale_out_bw == 0
    return deployment("llama-3.1-8b", chip, 1, engine="ideal")


def test_the_generator_keeps_only_the_data_parallel_split(lonely: Deployment) -> None:
    found = list(candidates(lonely.model, lonely.chip, CommModel(), [1, 2, 4]))
    assert [(n, p.tp, p.pp, p.ep, p.dp) for n, p in found] == [
        (1, 1, 1, 1, 1),
        (2, 1, 1, 1, 2),
        (4, 1, 1, 1, 4),
    ]
    # the model takes more splits of 2 chips (tp 2; pp 2): they exist, the links do not
    offered = splits(lonely.model, 2)
    assert len(offered) > 1
    assert not connects(lonely.model, lonely.chip, Parallelism(2, 2), CommModel())
    assert not connects(lonely.model, lonely.chip, Parallelism(2, 1, 2), CommModel())
    # with a scale-out link the same tp-2 split connects
    linked = replace(make_chip(), scale_out_bw=50e9)
    assert connects(lonely.model, linked, Parallelism(2, 2), CommModel())


def test_optimize_skips_what_it_once_aborted_on(lonely: Deployment) -> None:
    res = search(lonely, 4)
    p = res.points
    assert set(p["chips"]) == {1.0, 2.0, 4.0}
    assert set(p["tp"]) == {1.0} and set(p["pp"]) == {1.0} and set(p["ep"]) == {1.0}
    assert res.configs_tried == 3  # one split for each of 1, 2, 4 chips


def test_the_latency_cost_grid_agrees(lonely: Deployment) -> None:
    g = latency_cost_grid(lonely, 4096, 4)
    assert set(g["chips"]) == {1.0, 2.0, 4.0}
    # the deployment rule's split of each count, as replicas or data parallel: no collective
    assert set(g["tp"]) == {1.0} and set(g["pp"]) == {1.0} and set(g["ep"]) == {1.0}


def test_fast_modes_more_chips_agree(lonely: Deployment) -> None:
    r = fast_mode(lonely, batch=8, speedup=50.0, max_chips=4)  # out of reach: the fastest
    o = r.option("chips")
    assert o.setting is not None
    assert (o.setting.tp, o.setting.pp, o.setting.ep) == (1, 1, 1)
    assert set(o.curve["chips"]) <= {2.0, 4.0}
    # 2 and 4 chips, one (data-parallel) split each
    assert "the fastest of 2 splits on 2–4 chips" in o.note
