"""Fast-mode's options (`whatif/fast_options.py`): the deployment a setting names, and the
price multiple against the base computed from the one $-per-token arithmetic."""

from __future__ import annotations

import pytest

from llm_roofline.deploy.deployment import deployment
from llm_roofline.engine.parallel import Parallelism
from llm_roofline.whatif.fast_options import Baseline, on_split
from tests.conftest import make_chip


def test_on_split_names_the_split_as_given() -> None:
    dep = deployment("llama-3.1-8b", "h100-sxm", 1, engine="ideal")
    assert on_split(dep, 1, Parallelism(1, 1)) is dep  # the deployment's own split
    d = on_split(dep, 4, Parallelism(4, 2, 2))
    assert (d.chips, d.tp, d.pp, d.ep, d.replicas, d.dp) == (4, 2, 2, 1, 1, 1)
    assert d.split_rule == "given" and d.given == ("tp", "pp", "ep", "replicas")


def test_a_setting_prices_by_the_chips_time() -> None:
    # make_chip: $3.60 an hour = $0.001 a second. A setting of batch B taking t seconds per
    # step on n chips costs n · 0.001 · t / B per token, × 1e6 per million.
    dep = deployment("llama-3.1-8b", make_chip(), 1, engine="ideal")
    base = Baseline(dep, 8, 1024)
    assert base.usd == pytest.approx(0.001 * base.t / 8 * 1e6, rel=1e-12)
    two = on_split(dep, 2, Parallelism(2, 1))  # two data-parallel chips
    s = base.setting("chips", two, 16, base.t)  # twice the batch in the same time
    assert s.usd_per_million_tokens == pytest.approx(2 * 0.001 * base.t / 16 * 1e6, rel=1e-12)
    assert (
        s.price_multiple == pytest.approx(1.0) and s.speedup == 1.0
    )  # the same cost per token and speed
