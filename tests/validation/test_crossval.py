"""Fitting and cross-validating the calibrated engine (crossval.py, fitting.py) and the
profiles put together from the fit (calibrate.get_profile).

Every expected number is either recomputed here by an independent route (row by row through
`validate.predict_row`, numpy's percentiles over the held-out errors, the shipped
data/profiles.toml and data/priors.toml read with tomllib) or worked out by hand in a comment.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from importlib import resources
from typing import Any

import numpy as np
import pytest

import llm_roofline as lr
from llm_roofline._core.errors import InputError
from llm_roofline.calibration.fitting import (
    EFFECTS,
    EFFICIENCIES,
    PARAMETERS,
    Prior,
    fit,
    from_z,
    load_priors,
    to_z,
)
from llm_roofline.calibration.profile import Profile, chip_kind, get_profile, memory_kind
from llm_roofline.serving.modes import compose, serving_terms
from llm_roofline.validation import crossval, validate
from llm_roofline.validation.crossval import Stack, _select, log_time_ratio

from .test_validate import METRIC_SET, TRUTH, _scenarios

LN3 = math.log(3.0)  # 1.0986122886681098


# ---- shared inputs ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rows() -> list[validate.ValidationRow]:
    out = validate.scored_rows()
    assert len(out) >= 200
    return out


@pytest.fixture(scope="module")
def terms(rows: list[validate.ValidationRow]) -> list[Any]:
    return [validate._terms(r) for r in rows]


def _stack(rows: list[validate.ValidationRow], terms: list[Any], **kw: Any) -> Stack:
    return Stack.of(terms, [r.metric for r in rows], [r.chips for r in rows], **kw)


@pytest.fixture(scope="module")
def full_stack(rows: list[validate.ValidationRow], terms: list[Any]) -> Stack:
    return _stack(rows, terms, points=None)


@pytest.fixture(scope="module")
def sampled_stack(rows: list[validate.ValidationRow], terms: list[Any]) -> Stack:
    return _stack(rows, terms)


# a profile whose every constant is off its default (1 or 0), so that each term of a pass is
# scaled and a mistake in any one of them shows
OTHER = dict(
    flops_eff=0.31,
    prefill_eff=0.57,
    bw_eff=0.66,
    kv_eff=0.43,
    comm_eff=0.37,
    overhead_s=4.5e-3,
    layer_s=2.5e-5,
)


def _other_profile() -> Profile:
    values: dict[str, float] = {k: v for k, v in OTHER.items() if k in PARAMETERS}
    # any constant added to PARAMETERS later: a value away from the neutral default too
    for p in PARAMETERS:
        if p not in values:
            values[p] = 0.5 if p in EFFICIENCIES else 3.0 * float(getattr(Profile("d"), p) or 1e-3)
    return Profile("other").with_values(values)


# ---- 1. the stack predicts what predict_row predicts --------------------------------------------


def _vllm_h100() -> Profile:
    p = get_profile("vllm", lr.get_hardware("h100-sxm"))
    assert p is not None
    return p


def test_stack_of_every_context_equals_predict_row(
    rows: list[validate.ValidationRow], full_stack: Stack
) -> None:
    vllm = _vllm_h100()
    assert full_stack.rows == len(rows)
    for profile in (vllm, _other_profile()):
        want = np.asarray([validate.predict_row(r, profile) for r in rows])
        assert np.all(np.isfinite(want)) and np.all(want > 0)
        np.testing.assert_allclose(full_stack.predict(profile), want, rtol=1e-12, atol=0)
    # and the profile matters: the ideal engine's figures are not what a profile gives
    ideal = np.asarray([validate.predict_row(r, None) for r in rows])
    assert not np.allclose(ideal, full_stack.predict(vllm), rtol=1e-3)


def test_sampled_contexts_keep_each_row_sampled_with_its_first_and_last_context(
    sampled_stack: Stack, full_stack: Stack
) -> None:
    # the sampling keeps `POINTS` contexts of a row with more, evenly spaced from the first
    # to the last, and every context of a shorter row
    assert sampled_stack.step.batch.size < full_stack.step.batch.size
    full_n = np.bincount(full_stack.point_row, minlength=full_stack.rows)
    kept = np.bincount(sampled_stack.point_row, minlength=sampled_stack.rows)
    np.testing.assert_array_equal(kept, np.minimum(full_n, crossval.POINTS))
    assert np.any(full_n > crossval.POINTS)
    # the first and the last context of each row are kept (the KV read grows with the context)
    for st_ in (full_stack, sampled_stack):
        assert np.all(np.diff(st_.point_row) >= 0)  # each row's points together, in order
    f_end, s_end = np.cumsum(full_n) - 1, np.cumsum(kept) - 1
    f_kv, s_kv = full_stack.step.t_kv, sampled_stack.step.t_kv
    np.testing.assert_array_equal(s_kv[s_end - kept + 1], f_kv[f_end - full_n + 1])
    np.testing.assert_array_equal(s_kv[s_end], f_kv[f_end])
    assert np.any(f_kv[f_end] > f_kv[f_end - full_n + 1])
    # each row's weights are its share of that row's mean: they add up to 1
    np.testing.assert_allclose(
        np.bincount(sampled_stack.point_row, weights=sampled_stack.point_weight), 1.0, rtol=1e-12
    )


def test_sampled_contexts_are_within_0_1_percent_of_every_context(
    rows: list[validate.ValidationRow], full_stack: Stack, sampled_stack: Stack
) -> None:
    for profile in (_vllm_h100(), _other_profile()):
        want = full_stack.predict(profile)  # = predict_row (the test above)
        worst = float(np.max(np.abs(sampled_stack.predict(profile) / want - 1.0)))
        assert worst <= 1e-3, (profile.name, worst)


# ---- 2. per-row constants -----------------------------------------------------------------------


def test_predict_constants_with_one_profile_values_equals_predict(sampled_stack: Stack) -> None:
    st = sampled_stack
    profile = _vllm_h100()
    values = {p: np.full(st.rows, float(getattr(profile, p))) for p in PARAMETERS}
    np.testing.assert_allclose(st.predict_constants(values), st.predict(profile), rtol=1e-12)


def test_predict_constants_two_halves_each_equals_its_own_stack(
    rows: list[validate.ValidationRow], terms: list[Any], sampled_stack: Stack
) -> None:
    st = sampled_stack
    p1 = _vllm_h100()
    p2 = _other_profile()
    # interleaved halves: the point -> row bookkeeping is exercised, not just a cut in two
    even, odd = np.arange(0, st.rows, 2), np.arange(1, st.rows, 2)
    values = {p: np.empty(st.rows) for p in PARAMETERS}
    for p in PARAMETERS:
        values[p][even] = getattr(p1, p)
        values[p][odd] = getattr(p2, p)
    got = st.predict_constants(values)
    half1, half2 = _select(st, even).predict(p1), _select(st, odd).predict(p2)
    np.testing.assert_allclose(got[even], half1, rtol=1e-12)
    np.testing.assert_allclose(got[odd], half2, rtol=1e-12)
    # the two constant sets give different figures (so a row given the other half's
    # constants would fail the check above)
    assert np.median(np.abs(np.log(st.predict(p1)[odd] / half2))) > 0.05
    # a selection is the stack of those rows alone, in the order asked for
    alone = _stack([rows[i] for i in odd], [terms[i] for i in odd])
    np.testing.assert_allclose(alone.predict(p2), half2, rtol=1e-12)
    rev = odd[::-1]
    np.testing.assert_allclose(_select(st, rev).predict(p2), half2[::-1], rtol=1e-12)


# ---- 3. a held-out group is never seen ----------------------------------------------------------

# four small sources: TTFT, TPOT, request latency and throughputs, on NVIDIA and Apple chips
_SOURCES = ("nim/benchmarking", "H100vsA100", "mlx_lm/BENCHMARKS", "buildkite.com/vllm")
_CHANGED = "nim/benchmarking"  # its rows: TPOT (a time) and output tokens/s (a throughput)


def _source_of(r: validate.ValidationRow) -> str:
    for s in _SOURCES:
        if s in r.publication:
            return s
    raise AssertionError(r.publication)


@pytest.fixture(scope="module")
def small_rows(rows: list[validate.ValidationRow]) -> list[validate.ValidationRow]:
    out = [r for r in rows if any(s in r.publication for s in _SOURCES)]
    assert {_source_of(r) for r in out} == set(_SOURCES)
    return out


def test_log_time_ratio_turns_a_throughput_round() -> None:
    base = validate.load_rows()[0]
    t = dataclasses.replace(base, metric="tpot_s", measured=2.0)
    rate = dataclasses.replace(base, metric="output_tokens_per_s", measured=2.0)
    per_chip = dataclasses.replace(base, metric="output_tokens_per_s_per_chip", measured=2.0)
    # measured 2, predicted 1: a time took twice the prediction, ln 2 = 0.6931; a throughput
    # measured at twice the prediction means the time was half of it, -ln 2
    got = log_time_ratio([t, rate, per_chip], np.asarray([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(got, [math.log(2), -math.log(2), -math.log(2)], rtol=1e-15)


def test_cross_validation_never_sees_the_held_out_rows(
    small_rows: list[validate.ValidationRow],
) -> None:
    rows = small_rows
    keys = np.asarray([_source_of(r) for r in rows])
    base = crossval.cross_validate(rows, validate._terms, _source_of)
    changed = keys == _CHANGED
    metrics = {r.metric for r, c in zip(rows, changed, strict=True) if c}
    assert "tpot_s" in metrics and "output_tokens_per_s" in metrics  # both signs are checked

    moved = [
        dataclasses.replace(r, measured=3.0 * r.measured) if c else r
        for r, c in zip(rows, changed, strict=True)
    ]
    new = crossval.cross_validate(moved, validate._terms, _source_of)

    # the group held out: fitted on the same (unchanged) other rows, so the same predictions;
    # measured ×3 moves ln(measured / predicted) by ln 3 = 1.0986 for a time, and a
    # throughput's turned-round ratio by -ln 3
    rate = np.asarray([r.metric.startswith("output_tokens_per_s") for r in rows])
    shift = np.where(rate, -LN3, LN3)
    np.testing.assert_allclose(
        new["errors"][changed] - base["errors"][changed], shift[changed], rtol=0, atol=1e-9
    )
    # the other groups' fits did use the changed rows: their held-out errors moved
    assert np.max(np.abs(new["errors"][~changed] - base["errors"][~changed])) > 1e-6
    # the groups and their sizes are the same
    assert {k: v["rows"] for k, v in new["groups"].items()} == {
        k: v["rows"] for k, v in base["groups"].items()
    }

    # recomputed by another route: fit on the other sources alone (`fit_rows`), predict the
    # held-out source with its labels' constants
    train = [r for r, c in zip(rows, changed, strict=True) if not c]
    test = [r for r, c in zip(rows, changed, strict=True) if c]
    fitted = crossval.fit_rows(train, validate._terms)
    lab = crossval.labels(test)
    per = [fitted.values_for({k: v[i] for k, v in lab.items()}) for i in range(len(test))]
    values = {p: np.asarray([x[p] for x in per]) for p in PARAMETERS}
    pred = _stack(test, [validate._terms(r) for r in test]).predict_constants(values)
    np.testing.assert_allclose(
        log_time_ratio(test, pred), base["errors"][changed], rtol=0, atol=1e-9
    )


# ---- 4. coverage leaves a row's own group out ---------------------------------------------------


def test_coverage_by_hand_uses_only_the_other_groups(
    small_rows: list[validate.ValidationRow], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = small_rows[:10]
    names = ["A"] * 2 + ["B"] * 4 + ["C"] * 4
    group = {r.row: g for r, g in zip(rows, names, strict=True)}
    hand = [0.0, 5.0, 0.1, 0.2, 0.3, 0.4, -0.1, -0.2, -0.3, -0.4]
    err_of = {r.row: e for r, e in zip(rows, hand, strict=True)}

    def fake_ratio(rs: list[validate.ValidationRow], predicted: np.ndarray) -> np.ndarray:
        assert len(rs) == len(predicted)
        return np.asarray([err_of[r.row] for r in rs])

    monkeypatch.setattr(crossval, "log_time_ratio", fake_ratio)
    out = crossval.cross_validate(rows, validate._terms, lambda r: group[r.row])
    np.testing.assert_array_equal(out["errors"], hand)
    # np.percentile interpolates linearly: the q-th percentile of n sorted values sits at
    # index q/100·(n−1).
    # A (0.0, 5.0): the others are -0.4 -0.3 -0.2 -0.1 0.1 0.2 0.3 0.4 (n=8): p10 at index
    #   0.7 = -0.4 + 0.7·0.1 = -0.33, p90 at 6.3 = 0.3 + 0.3·0.1 = 0.33: 0.0 in, 5.0 out -> 1
    # B (0.1..0.4): the others are -0.4 -0.3 -0.2 -0.1 0.0 5.0 (n=6): p10 at 0.5 = -0.35,
    #   p90 at 4.5 = 0.0 + 0.5·5.0 = 2.5: all four in -> 4
    # C (-0.1..-0.4): the others are 0.0 0.1 0.2 0.3 0.4 5.0: p10 at 0.5 = 0.05, p90 at 4.5 =
    #   0.4 + 0.5·4.6 = 2.7: all four out -> 0
    # coverage (1 + 4 + 0) / 10 = 0.5. (Over all ten errors, own group included, the range
    # would be -0.31..0.86 and the coverage 0.8: 0.0, 0.1-0.4 and -0.1..-0.3.)
    assert out["coverage_80"] == pytest.approx(0.5, abs=1e-12)
    # the band is over every held-out error: p10 at index 0.9 = -0.4 + 0.9·0.1 = -0.31,
    # p90 at 8.1 = 0.4 + 0.1·4.6 = 0.86
    assert out["band"] == pytest.approx([math.exp(-0.31), math.exp(0.86)], rel=1e-12)
    # |e| sorted 0 .1 .1 .2 .2 .3 .3 .4 .4 5: median (0.2 + 0.3)/2 = 0.25; groups' medians
    # A 2.5, B 0.25, C 0.25 -> 0.25, none within 0.15
    assert out["held_out"]["median"] == pytest.approx(0.25, abs=1e-12)
    assert out["groups"]["A"]["median"] == pytest.approx(2.5, abs=1e-12)
    assert out["median_of_group_medians"] == pytest.approx(0.25, abs=1e-12)
    assert out["groups_within_0_15"] == 0


@pytest.mark.slow
def test_coverage_on_the_shipped_rows_is_recomputed_from_the_errors(
    rows: list[validate.ValidationRow],
) -> None:
    def kind(r: validate.ValidationRow) -> str:
        return crossval.hardware_kind(r.hardware)

    out = crossval.cross_validate(rows, validate._terms, kind)
    err = np.asarray(out["errors"], dtype=np.float64)
    keys = np.asarray([kind(r) for r in rows])
    assert err.shape == (len(rows),) and np.all(np.isfinite(err))
    inside = 0
    for name in sorted(set(keys.tolist())):
        own = keys == name
        others = np.sort(err[~own])
        lo, hi = np.percentile(others, 10), np.percentile(others, 90)
        inside += int(np.sum((err[own] >= lo) & (err[own] <= hi)))
    assert out["coverage_80"] == pytest.approx(inside / len(rows), abs=1e-12)
    p10, p90 = np.percentile(err, [10, 90])
    assert out["band"] == pytest.approx([math.exp(p10), math.exp(p90)], rel=1e-12)
    assert out["held_out"]["median"] == pytest.approx(float(np.median(np.abs(err))), rel=1e-12)
    assert set(out["groups"]) == set(keys.tolist())


# ---- 5. fitting label effects -------------------------------------------------------------------


def _fit_scenarios() -> list[Any]:
    """test_validation's scenarios (every constant shows in one of them) and two more weight
    sizes read at batch 1 (26 and 64 GB): the time per token against the bytes read separates
    the bandwidth from the fixed times."""
    return [
        *_scenarios(),
        serving_terms("llama-2-13b", "h100-sxm", batch=1, input_len=512, output_len=128),
        serving_terms("qwen3-32b", "h200", batch=1, input_len=512, output_len=128),
    ]


_FIT_METRICS = METRIC_SET
_BW = {"a": 0.8, "b": 0.5}


@pytest.mark.slow
def test_fit_recovers_two_labels_effects_and_an_unseen_label_gets_the_shared_values() -> None:
    scen = _fit_scenarios()
    block = [(s, m) for s in scen for m in _FIT_METRICS]
    # each figure measured twice per label; exact synthetic figures leave residuals near zero,
    # so the fit's estimated spread (at its floor, fitting.SIGMA_FLOOR) makes the data, not the
    # effects' prior (sd 1/sqrt(SHRINK) in z), decide; the two labels' bandwidths lie 1.39
    # apart in z (ln(1/0.8 - 1) = -1.386 against ln(1/0.5 - 1) = 0)
    tiles = 2
    labels = ["a"] * (len(block) * tiles) + ["b"] * (len(block) * tiles)
    n = len(labels)

    def figures(values: dict[str, float]) -> np.ndarray:
        p = Profile("x").with_values(values)
        return np.asarray([float(getattr(compose(s, p), m)) for s, m in block])

    def predict(values: dict[str, np.ndarray]) -> np.ndarray:
        """Each row's figure under its own constants. The rows of a label are one block (the
        fit gives every row of a label the same constants: checked), evaluated once."""
        out = np.empty(n)
        for start in (0, n // 2):
            sl = slice(start, start + n // 2)
            one = {k: float(np.broadcast_to(v, (n,))[start]) for k, v in values.items()}
            for k, v in values.items():
                assert np.all(np.broadcast_to(v, (n,))[sl] == one[k]), k
            out[sl] = np.tile(figures(one), tiles)
        return out

    truth = dict(TRUTH)  # test_validation's constants, every one of PARAMETERS
    measured = np.concatenate(
        [np.tile(figures({**truth, "bw_eff": _BW[lab]}), tiles) for lab in ("a", "b")]
    )
    assert measured.size == n
    f = fit(predict, measured, {"memory": labels})
    assert set(f.effects) == {"memory"} and set(f.effects["memory"]) == {"a", "b"}
    assert set(f.effects["memory"]["a"]) == set(EFFECTS["memory"])
    a, b = f.values_for({"memory": "a"}), f.values_for({"memory": "b"})
    assert a["bw_eff"] == pytest.approx(0.8, rel=0.05)
    assert b["bw_eff"] == pytest.approx(0.5, rel=0.05)
    # the fitted constants reproduce the measurements of each label
    for lab, vals in (("a", a), ("b", b)):
        sel = np.asarray(labels) == lab
        got = np.tile(figures(vals), tiles)
        assert np.max(np.abs(np.log(got / measured[sel]))) < 0.02, lab
    # a label never fitted adds nothing: the shared values, as with no label at all
    shared = {k: float(from_z(k, z)) for k, z in f.shared.items()}
    for unseen in ({"memory": "c"}, {"memory": None}, {}, {"vendor": "a"}):
        assert f.values_for(unseen) == shared, unseen
    assert a["bw_eff"] != shared["bw_eff"] and b["bw_eff"] != shared["bw_eff"]


# ---- 6. priors ----------------------------------------------------------------------------------


def test_every_constant_has_a_valid_prior_as_the_file_says() -> None:
    text = resources.files("llm_roofline").joinpath("data/priors.toml").read_text("utf-8")
    raw = tomllib.loads(text)
    priors = load_priors()
    assert set(priors) == set(PARAMETERS)
    for name in PARAMETERS:
        pr = priors[name]
        assert pr.name == name and pr.why.strip()
        assert (pr.low, pr.high) == (float(raw[name]["low"]), float(raw[name]["high"]))
        assert 0 < pr.low < pr.high, name
        if name in EFFICIENCIES:
            assert pr.high <= 1, name
        assert pr.sd_z > 0 and math.isfinite(pr.centre_z), name
        # z and back
        for v in (pr.low, pr.high):
            assert float(from_z(name, to_z(name, v))) == pytest.approx(v, rel=1e-9), name


def test_a_priors_centre_and_spread_by_hand() -> None:
    # an efficiency e is exp(-softplus(z)): softplus(z) = -ln e, z = ln(expm1(-ln e)) =
    # ln(1/e - 1). e = 0.5: ln(1) = 0. e = 0.95: ln(1/0.95 - 1) = ln(1/19) = -2.9444389792
    assert float(to_z("bw_eff", 0.5)) == pytest.approx(0.0, abs=1e-12)
    assert float(to_z("bw_eff", 0.95)) == pytest.approx(-2.9444389792, abs=1e-9)
    pr = Prior("bw_eff", 0.5, 0.95, "")
    # centre: (0 + -2.9444389792) / 2 = -1.4722194896
    # sd: |-2.9444389792 - 0| / (2·1.6449) = 2.9444389792 / 3.2898 = 0.8950206636
    assert pr.centre_z == pytest.approx(-1.4722194896, abs=1e-9)
    assert pr.sd_z == pytest.approx(0.8950206636, abs=1e-9)
    # a time t is z = ln(t / 1 ms): 0.1 ms -> ln 0.1 = -2.3025850930, 20 ms -> ln 20 =
    # 2.9957322736; centre (ln 0.1 + ln 20)/2 = ln(2)/2 = 0.3465735903, sd ln(200)/3.2898 =
    # 5.2983173665 / 3.2898 = 1.6105287150
    t = Prior("overhead_s", 1e-4, 0.02, "")
    assert t.centre_z == pytest.approx(0.3465735903, abs=1e-9)
    assert t.sd_z == pytest.approx(1.6105287150, abs=1e-9)


# ---- 7. profiles put together for a chip --------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_toml() -> dict[str, Any]:
    text = resources.files("llm_roofline").joinpath("data/profiles.toml").read_text("utf-8")
    rec: dict[str, Any] = tomllib.loads(text)["calibrated"]
    return rec


# distance from the measured hardware by hand: a TPU shares only HBM with the rows (kind,
# vendor google, chip class "tpu" unmeasured: 3); Trainium's class "accelerator" is Gaudi's (2)
@pytest.mark.parametrize(
    ("chip", "gaps"),
    [("tpu-v5e", "hardware kind, vendor, chip class"), ("trn2", "hardware kind, vendor")],
)
def test_a_chip_of_an_unmeasured_vendor_gets_the_widened_range(
    chip: str, gaps: str, shipped_toml: dict[str, Any]
) -> None:
    hw = lr.get_hardware(chip)
    vendors = shipped_toml["label_rows"]["vendor"]
    assert hw.vendor.casefold() not in vendors  # the premise: no row of this vendor was fitted
    assert chip_kind(hw) not in shipped_toml["label_rows"]["kind"]
    p = get_profile("vllm", hw)
    assert p is not None
    # half-width width * exp(growth * (d - 1)), never inside the measured kinds' band
    width, growth = shipped_toml["range_law"]
    lo, hi = shipped_toml["band_known"]
    w = max(width * math.exp(growth * (gaps.count(",") + 1 - 1)), -math.log(lo), math.log(hi))
    assert (p.low, p.high) == pytest.approx((math.exp(-w), math.exp(w)), rel=1e-12)
    assert p.high / p.low > hi / lo  # wider than a measured chip's
    assert "not measured" in p.note and f"vendor {hw.vendor.casefold()}" in p.note
    assert f"range widened: no measurements of this {gaps} (" in p.note
    mem = memory_kind(hw)
    n_mem = shipped_toml["label_rows"]["memory"][mem]
    n_fam = shipped_toml["label_rows"]["family"]["vllm"]
    assert f"memory {mem} ({n_mem} rows)" in p.note
    assert f"family vllm ({n_fam} rows)" in p.note
    # the constants: shared z plus the family's and the memory kind's effects, none for the
    # vendor (recomputed from the file)
    eff = shipped_toml.get("effects", {})
    for name in PARAMETERS:
        z = float(shipped_toml["z"][name])
        z += float(eff.get("family", {}).get("vllm", {}).get(name, 0.0))
        z += float(eff.get("memory", {}).get(mem, {}).get(name, 0.0))
        assert getattr(p, name) == pytest.approx(float(from_z(name, z)), rel=1e-9), name


def test_a_measured_chip_gets_the_held_out_source_range(shipped_toml: dict[str, Any]) -> None:
    hw = lr.get_hardware("h100-sxm")
    p = get_profile("vllm", hw)
    assert p is not None
    assert (p.low, p.high) == pytest.approx(tuple(shipped_toml["band_known"]), rel=1e-12)
    counts = shipped_toml["label_rows"]
    assert "not measured" not in p.note and "widened" not in p.note
    assert f"vendor nvidia ({counts['vendor']['nvidia']} rows)" in p.note
    assert f"memory hbm ({counts['memory']['hbm']} rows)" in p.note
    assert f"family vllm ({counts['family']['vllm']} rows)" in p.note


@pytest.mark.parametrize(
    ("chip", "kind"),
    [("h100-sxm", "hbm"), ("rtx-4090", "gddr"), ("l40s", "gddr"), ("apple-m4-max", "unified")],
)
def test_memory_kind(chip: str, kind: str) -> None:
    assert memory_kind(lr.get_hardware(chip)) == kind


# ---- 8. validate.cross_validate's arguments -----------------------------------------------------


def test_cross_validate_by_an_unknown_field_is_an_input_error() -> None:
    with pytest.raises(InputError, match="source") as info:
        validate.cross_validate(by="bogus")
    assert info.value.field == "by"


@pytest.mark.slow
def test_cross_validate_reports_progress_once_per_kind(
    rows: list[validate.ValidationRow],
) -> None:
    calls: list[tuple[int, int]] = []
    out = validate.cross_validate("kind", lambda i, n: calls.append((i, n)))
    n = len({crossval.hardware_kind(r.hardware) for r in rows})
    assert n >= 3
    assert calls == [(i, n) for i in range(1, n + 1)]
    assert out["by"] == "kind" and len(out["groups"]) == n
    assert out["rows"] == [r.row for r in rows] and len(out["errors"]) == len(rows)
