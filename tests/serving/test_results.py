"""`serving.results`: the figures of a scenario and of columns of them, a calibrated range
(times scale with it, throughputs inversely, never past the ideal figure), the scenarios of
several parts joined in order, and one instance restated for replicas. Round numbers by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llm_roofline.engine.roofline import BOUND_NAMES
from llm_roofline.serving.results import ServingColumns, ServingResult, join, replicated


def _result(**over: object) -> ServingResult:
    base: dict[str, object] = {
        "tpot_s": 0.01,
        "ttft_s": 0.2,
        "request_latency_s": 1.2,
        "output_tokens_per_s": 1000.0,
        "output_tokens_per_s_per_chip": 500.0,
        "fits": True,
        "bound": "memory",
        "t_compute_s": 0.002,
        "t_weights_s": 0.006,
        "t_kv_s": 0.002,
        "t_comm_s": 0.0,
        "usd_per_million_output_tokens": 2.0,
        "memory_per_chip_bytes": 4e10,
        "queue_delay_bound_s": 0.01,
    }
    base.update(over)
    return ServingResult(**base)  # type: ignore[arg-type]


def _columns(tpot: list[float], warnings: tuple[tuple[str, ...], ...]) -> ServingColumns:
    n = len(tpot)
    a = np.asarray(tpot, dtype=np.float64)
    return ServingColumns(
        tpot_s=a,
        ttft_s=10 * a,
        request_latency_s=100 * a,
        output_tokens_per_s=1 / a,
        output_tokens_per_s_per_chip=0.5 / a,
        fits=np.ones(n, dtype=bool),
        bound=np.zeros(n, dtype=np.int8),
        t_compute_s=a,
        t_weights_s=a,
        t_kv_s=a,
        t_comm_s=a,
        usd_per_million_output_tokens=None,
        memory_per_chip_bytes=np.full(n, 1e9),
        queue_delay_bound_s=a,
        warnings=warnings,
    )


def test_a_calibrated_range_scales_times_and_rates_and_stops_at_the_ideal() -> None:
    ideal = _result(tpot_s=0.008, output_tokens_per_s=1100.0, output_tokens_per_s_per_chip=550.0)
    res = _result(time_range=(0.7, 1.5), ideal=ideal)
    d = res.as_dict()
    # tpot 10 ms × 0.7 = 7 ms, below the ideal 8 ms: held at 8; × 1.5 = 15 ms
    assert (d["tpot_s_low"], d["tpot_s_high"]) == pytest.approx((0.008, 0.015))
    # ttft 200 ms × 0.7 = 140 ms, held at the ideal's 200 ms; × 1.5 = 300 ms
    assert (d["ttft_s_low"], d["ttft_s_high"]) == pytest.approx((0.2, 0.3))
    # tokens/s 1,000 / 1.5 = 666.7 and 1,000 / 0.7 = 1,428.6, held at the ideal's 1,100
    assert (d["output_tokens_per_s_low"], d["output_tokens_per_s_high"]) == pytest.approx(
        (1000 / 1.5, 1100.0)
    )
    assert "time_range" not in d and "ideal" not in d
    # the ideal engine has no range
    assert "tpot_s_low" not in _result().as_dict()


def test_warnings_join_into_one_cell() -> None:
    d = _result(warnings=("does not fit: a", "beyond: b")).as_dict()
    assert d["warnings"] == "does not fit: a; beyond: b"


def test_replicated_by_hand() -> None:
    one = _result(ideal=_result())
    # 9 sequences over 2 replicas: 5 on the busiest, which served 5 per instance-worth of
    # time: tokens/s × 9 / 5 = 1,800; per chip (twice the chips) 500 × 1.8 / 2 = 450;
    # $ per token pays for both: 2.0 × 2 / 1.8 = 2.222
    two = replicated(one, batch=9, per_replica=5, replicas=2)
    assert two.output_tokens_per_s == pytest.approx(1800.0)
    assert two.output_tokens_per_s_per_chip == pytest.approx(450.0)
    assert two.usd_per_million_output_tokens == pytest.approx(2.0 * 2 / 1.8)
    assert two.tpot_s == one.tpot_s and two.ttft_s == one.ttft_s  # the busiest instance's
    assert two.ideal is not None and two.ideal.output_tokens_per_s == pytest.approx(1800.0)
    # a batch that divides evenly: exactly replicas × one instance, same $ per token
    even = replicated(one, batch=10, per_replica=5, replicas=2)
    assert even.output_tokens_per_s == pytest.approx(2000.0)
    assert even.usd_per_million_output_tokens == pytest.approx(2.0)
    assert replicated(one, batch=9, per_replica=9, replicas=1) is one


def test_join_puts_parts_end_to_end_then_in_order() -> None:
    a = _columns([0.1, 0.2], (("a0",), ()))
    b = _columns([0.3], (("b0",),))
    joined = join([a, b], np.array([2, 0, 1]))
    assert joined.tpot_s.tolist() == [0.3, 0.1, 0.2]
    assert joined.ttft_s.tolist() == pytest.approx([3.0, 1.0, 2.0])
    assert joined.warnings == (("b0",), ("a0",), ())
    assert joined.usd_per_million_output_tokens is None
    row = joined.row(0)
    assert row.tpot_s == 0.3 and row.bound == BOUND_NAMES[0] and row.warnings == ("b0",)
    assert row.usd_per_million_output_tokens is None


def test_columns_ranges_match_the_row() -> None:
    cols = dataclasses.replace(
        _columns([0.1, 0.2], ((), ())),
        time_range=(0.5, 2.0),
        ideal=_columns([0.08, 0.25], ((), ())),
    )
    r = cols.ranges()
    # tpot × 0.5 = (0.05, 0.1) held at the ideal (0.08, 0.25); × 2 = (0.2, 0.4)
    assert r["tpot_s_low"].tolist() == pytest.approx([0.08, 0.25])
    assert r["tpot_s_high"].tolist() == pytest.approx([0.2, 0.4])
    row = cols.row(1).as_dict()
    assert row["tpot_s_low"] == pytest.approx(0.25) and row["tpot_s_high"] == pytest.approx(0.4)
