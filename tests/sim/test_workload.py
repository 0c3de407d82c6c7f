"""Workloads: arrival processes, length distributions, make_workload and read_trace.

Expected values are worked out by hand in the comments, or are statistics with a tolerance of
about four standard errors derived from the distribution (so a correct generator fails with a
probability far below 1e-3, whatever the seed).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.sim.workload import (
    ARRIVALS,
    LENGTH_DISTS,
    SHAREGPT_CV,
    Workload,
    arrivals,
    lengths,
    make_workload,
    read_trace,
)

N = 200_000


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def cv(x: np.ndarray) -> float:
    return float(np.std(x) / np.mean(x))


def sd_rel_se(kurtosis: float, n: int) -> float:
    """Relative standard error of a sample standard deviation: Var(s^2) ~ (m4 - s^4)/n, so
    se(s)/s ~ sqrt((kurtosis - 1) / (4 n)), kurtosis = m4 / s^4 (3 for a normal)."""
    return math.sqrt((kurtosis - 1) / (4 * n))


def lognormal_kurtosis(sigma2: float) -> float:
    """Kurtosis m4/s^4 of a lognormal: e^{4s2} + 2 e^{3s2} + 3 e^{2s2} - 3."""
    return math.exp(4 * sigma2) + 2 * math.exp(3 * sigma2) + 3 * math.exp(2 * sigma2) - 3


def one_line_error(call: Callable[[], object]) -> InputError:
    with pytest.raises(InputError) as exc:
        call()
    assert "\n" not in str(exc.value) and str(exc.value).strip() == str(exc.value)
    return exc.value


# --- reproducibility -----------------------------------------------------------------------


def test_same_seed_same_workload_other_seed_other_workload() -> None:
    kw = dict(
        requests=500, input_len=400, output_len=200, rate=3.0, arrival="gamma", burstiness=2.0
    )
    a = make_workload(**kw, length_dist="lognormal", seed=7)  # type: ignore[arg-type]
    b = make_workload(**kw, length_dist="lognormal", seed=7)  # type: ignore[arg-type]
    c = make_workload(**kw, length_dist="lognormal", seed=8)  # type: ignore[arg-type]
    assert a.arrival_s is not None and b.arrival_s is not None and c.arrival_s is not None
    assert np.array_equal(a.arrival_s, b.arrival_s)
    assert np.array_equal(a.input_len, b.input_len)
    assert np.array_equal(a.output_len, b.output_len)
    assert a.description == b.description
    assert not np.array_equal(a.arrival_s, c.arrival_s)
    assert not np.array_equal(a.input_len, c.input_len)
    assert not np.array_equal(a.output_len, c.output_len)


def test_arrivals_are_drawn_before_lengths() -> None:
    # One generator in a fixed order: arrivals, then inputs, then outputs.
    w = make_workload(requests=50, input_len=100, output_len=50, rate=2.0, length_dist="normal")
    g = rng(0)
    t = arrivals(50, 2.0, rng=g)
    i = lengths(50, 100, dist="normal", rng=g, field="input_len")
    o = lengths(50, 50, dist="normal", rng=g, field="output_len")
    assert w.arrival_s is not None
    assert np.array_equal(w.arrival_s, t)
    assert np.array_equal(w.input_len, i) and np.array_equal(w.output_len, o)


# --- arrivals ------------------------------------------------------------------------------


def test_poisson_gaps_mean_and_cv() -> None:
    rate = 2.0
    t = arrivals(N, rate, rng=rng(1))
    assert t.dtype == np.float64 and t.shape == (N,)
    assert t[0] > 0 and np.all(np.diff(t) >= 0)
    gaps = np.diff(np.concatenate([[0.0], t]))
    # Exponential gaps, mean 1/rate = 0.5 s, sd 0.5 s: se of the mean = 0.5/sqrt(N) ~ 0.00112.
    assert abs(gaps.mean() - 0.5) < 4 * 0.5 / math.sqrt(N)
    # CV = 1. Exponential kurtosis 9: se(s)/s ~ sqrt(8/(4N)); the mean adds 1/sqrt(N).
    assert abs(cv(gaps) - 1.0) < 4 * (sd_rel_se(9, N) + 1 / math.sqrt(N))


def test_gamma_burstiness_4_has_cv_2() -> None:
    rate, b = 2.0, 4.0
    gaps = np.diff(
        np.concatenate([[0.0], arrivals(N, rate, kind="gamma", burstiness=b, rng=rng(2))])
    )
    # Shape k = 1/4, scale 4/2 = 2: mean k*scale = 0.5 s, sd sqrt(k)*scale = 1 s, CV 2.
    assert abs(gaps.mean() - 0.5) < 4 * 1.0 / math.sqrt(N)
    # Gamma kurtosis 3 + 6/k = 27.
    tol = 2.0 * 4 * (sd_rel_se(27, N) + 2.0 / math.sqrt(N))  # ~0.08
    assert abs(cv(gaps) - 2.0) < tol


def test_gamma_burstiness_below_one_is_smoother() -> None:
    gaps = np.diff(arrivals(N, 1.0, kind="gamma", burstiness=0.25, rng=rng(3)))
    # k = 4: CV = 1/2; kurtosis 3 + 6/4 = 4.5.
    assert abs(cv(gaps) - 0.5) < 0.5 * 4 * (sd_rel_se(4.5, N) + 0.5 / math.sqrt(N))


def test_gamma_burstiness_1_matches_poisson() -> None:
    gaps = np.diff(np.concatenate([[0.0], arrivals(N, 4.0, kind="gamma", rng=rng(4))]))
    assert abs(gaps.mean() - 0.25) < 4 * 0.25 / math.sqrt(N)
    assert abs(cv(gaps) - 1.0) < 4 * (sd_rel_se(9, N) + 1 / math.sqrt(N))
    # Memoryless: P(gap > mean) = e^-1 = 0.3679, binomial se sqrt(p(1-p)/N) ~ 0.00108.
    p = math.exp(-1)
    assert abs(np.mean(gaps > 0.25) - p) < 4 * math.sqrt(p * (1 - p) / N)


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        (dict(n=0, rate=1.0), "requests"),
        (dict(n=2.5, rate=1.0), "requests"),
        (dict(n=10, rate=0.0), "rate"),
        (dict(n=10, rate=-1.0), "rate"),
        (dict(n=10, rate=math.inf), "rate"),
        (dict(n=10, rate=math.nan), "rate"),
        (dict(n=10, rate="2"), "rate"),
        (dict(n=10, rate=1.0, kind="uniform"), "arrival"),
        (dict(n=10, rate=1.0, kind="gamma", burstiness=0.0), "burstiness"),
        (dict(n=10, rate=1.0, kind="gamma", burstiness=math.inf), "burstiness"),
    ],
)
def test_arrivals_refuse_bad_input(kw: dict[str, object], field: str) -> None:
    err = one_line_error(lambda: arrivals(**kw, rng=rng()))  # type: ignore[arg-type]
    assert err.field == field
    if field == "arrival":
        assert all(k in str(err) for k in ARRIVALS)


# --- lengths -------------------------------------------------------------------------------


def test_fixed_lengths_are_exact() -> None:
    x = lengths(1000, 99.6, rng=rng())  # round(99.6) = 100
    assert x.dtype == np.int64 and np.all(x == 100)
    assert np.all(lengths(5, 1, dist="fixed", spread=0, rng=rng()) == 1)


def test_lognormal_mean_and_sd() -> None:
    mean, sd = 500.0, 300.0
    x = lengths(N, mean, dist="lognormal", spread=sd, max_len=10**9, rng=rng(5))
    assert x.dtype == np.int64 and x.min() >= 1
    # se of the mean = 300/sqrt(N) ~ 0.67 tokens (rounding to integers adds no bias).
    assert abs(x.mean() - mean) < 4 * sd / math.sqrt(N)
    # sigma^2 = ln(1 + 0.6^2) = 0.3075; kurtosis ~ 11. Clipping at 1 would need a 12-sigma draw.
    tol = 4 * sd * sd_rel_se(lognormal_kurtosis(math.log(1.36)), N)  # ~4.2 tokens
    assert abs(x.std() - sd) < tol


def test_lognormal_default_spread_is_the_mean() -> None:
    x = lengths(N, 1000, dist="lognormal", rng=rng(6))
    # CV 1: sigma^2 = ln 2.
    tol = 4 * 1000 * (sd_rel_se(lognormal_kurtosis(math.log(2)), N) + 1 / math.sqrt(N))
    assert abs(x.std() - 1000) < tol


def test_normal_mean_and_default_spread() -> None:
    x = lengths(N, 1000, dist="normal", rng=rng(7))
    # Default sd = 1000/4 = 250; 4 sigma below the mean is still 0, so clipping never acts.
    assert abs(x.mean() - 1000) < 4 * 250 / math.sqrt(N)
    assert abs(x.std() - 250) < 4 * 250 * sd_rel_se(3, N)


def test_lengths_are_clipped_to_1_and_max_len() -> None:
    x = lengths(N, 1000, dist="lognormal", spread=2000, max_len=1500, rng=rng(8))
    assert x.max() == 1500 and x.min() >= 1
    y = lengths(N, 5, dist="normal", spread=20, rng=rng(9))
    # N(5, 20) gives 1 for every draw below 1.5 (rounded to 1, or clipped up to it):
    # P = Phi((1.5 - 5)/20) = Phi(-0.175) = 0.4305; binomial se sqrt(.43 * .57 / N) ~ 0.0011.
    assert y.min() == 1 and abs(np.mean(y == 1) - 0.4305) < 4 * 0.0011 + 1e-4
    assert y.dtype == np.int64


def test_sharegpt_constants_are_the_papers_ratios() -> None:
    # WildChat Table 1, ShareGPT row: user 94.46 +- 626.39, chatbot 348.45 +- 269.93 tokens.
    assert SHAREGPT_CV["input_len"] == pytest.approx(6.6313, abs=1e-4)  # 626.39 / 94.46
    assert SHAREGPT_CV["output_len"] == pytest.approx(0.77466, abs=1e-5)  # 269.93 / 348.45


def test_sharegpt_like_output_mean_and_cv() -> None:
    c = 269.93 / 348.45
    x = lengths(N, 300, dist="sharegpt-like", field="output_len", rng=rng(10))
    assert abs(x.mean() - 300) < 4 * c * 300 / math.sqrt(N)  # se ~ 0.52 tokens
    sigma2 = math.log(1 + c * c)  # 0.470; kurtosis ~ 19.4
    tol = c * 4 * (sd_rel_se(lognormal_kurtosis(sigma2), N) + c / math.sqrt(N))  # ~0.02
    assert abs(cv(x) - c) < tol


def test_sharegpt_like_input_spread() -> None:
    # CV 6.63 is too heavy-tailed to check the sample sd directly (kurtosis ~ 4e6), so the
    # check is on log lengths, normal with sigma^2 = ln(1 + CV^2) = 3.806, mu = ln(mean) - s2/2.
    # A mean of 1e6 keeps rounding and clipping at 1 out of the logs (P(x < 10) ~ 1e-6).
    c = 626.39 / 94.46
    n = 1_000_000
    x = lengths(n, 1e6, dist="sharegpt-like", field="input_len", rng=rng(11))
    logs = np.log(x)
    sigma2 = math.log(1 + c * c)
    sigma = math.sqrt(sigma2)
    assert abs(logs.std() - sigma) < 4 * sigma / math.sqrt(2 * n)  # se ~ 0.0014
    assert abs(logs.mean() - (math.log(1e6) - sigma2 / 2)) < 4 * sigma / math.sqrt(n)
    # The mean itself: se = CV * mean / sqrt(n) = 0.66%; skewed, so 5 se.
    assert abs(x.mean() / 1e6 - 1) < 5 * c / math.sqrt(n)


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        (dict(mean=0.5), "input_len"),
        (dict(mean=math.nan), "input_len"),
        (dict(mean=math.inf, field="output_len"), "output_len"),
        (dict(mean=100, dist="zipf"), "length_dist"),
        (dict(mean=100, dist="normal", spread=-1), "input_spread"),
        (dict(mean=100, dist="lognormal", spread=math.inf), "input_spread"),
        (dict(mean=100, dist="fixed", spread=10), "input_spread"),
        (dict(mean=100, dist="sharegpt-like", spread=10, field="output_len"), "output_spread"),
        (dict(mean=100, max_len=0), "max_len"),
        (dict(mean=100, max_len=50), "input_len"),
        (dict(mean=100, dist="sharegpt-like", field="prompt"), "length_dist"),
    ],
)
def test_lengths_refuse_bad_input(kw: dict[str, object], field: str) -> None:
    err = one_line_error(lambda: lengths(10, rng=rng(), **kw))  # type: ignore[arg-type]
    assert err.field == field
    if field == "length_dist" and "zipf" in str(err):
        assert all(d in str(err) for d in LENGTH_DISTS)


# --- make_workload -------------------------------------------------------------------------


def test_open_loop_workload() -> None:
    w = make_workload(requests=1000, input_len=512, output_len=128, rate=2)
    assert w.requests == 1000 and not w.closed_loop and w.concurrency is None
    assert w.arrival_s is not None and w.arrival_s.shape == (1000,)
    assert np.all(w.input_len == 512) and np.all(w.output_len == 128)
    assert w.description == (
        "1000 requests, Poisson at 2 req/s, input 512 ±0, output 128 ±0 (fixed), seed 0"
    )
    assert not w.input_len.flags.writeable  # frozen means frozen


def test_closed_loop_workload() -> None:
    w = make_workload(requests=64, input_len=100, output_len=20, concurrency=8, seed=3)
    assert w.closed_loop and w.concurrency == 8 and w.arrival_s is None and w.requests == 64
    assert "closed loop of 8 clients" in w.description and "\n" not in w.description


def test_gamma_description_names_burstiness() -> None:
    w = make_workload(
        requests=10, input_len=10, output_len=10, rate=0.5, arrival="gamma", burstiness=4
    )
    assert "gamma at 0.5 req/s (burstiness 4)" in w.description


@pytest.mark.parametrize(("rate", "concurrency"), [(None, None), (2.0, 4)])
def test_rate_xor_concurrency(rate: float | None, concurrency: int | None) -> None:
    err = one_line_error(
        lambda: make_workload(
            requests=10, input_len=10, output_len=10, rate=rate, concurrency=concurrency
        )
    )
    assert err.field == "rate" and "--rate" in str(err) and "--concurrency" in str(err)


@pytest.mark.parametrize("dist", LENGTH_DISTS)
def test_max_context_is_respected(dist: str) -> None:
    ctx = 4096
    # sharegpt's filter keeps prompts to 1,024 tokens and requests to 2,048: means within it
    i, o = (600, 1200) if dist == "sharegpt" else (2000, 1500)
    w = make_workload(
        requests=20_000,
        input_len=i,
        output_len=o,
        rate=10.0,
        length_dist=dist,
        max_context=ctx,
        seed=1,
    )
    assert np.all(w.input_len + w.output_len <= ctx)
    assert w.input_len.max() <= ctx - 1 and w.input_len.min() >= 1 and w.output_len.min() >= 1


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        (dict(requests=0, rate=1.0), "requests"),
        (dict(requests=2.0, rate=1.0), "requests"),
        (dict(requests=True, rate=1.0), "requests"),
        (dict(concurrency=0), "concurrency"),
        (dict(concurrency=2.5), "concurrency"),
        (dict(concurrency=2, arrival="gamma"), "arrival"),
        (dict(rate=1.0, input_len=8192, max_context=8192), "input_len"),
        (dict(rate=1.0, max_context=1), "max_context"),
        (dict(rate=1.0, seed=-1), "seed"),
        (dict(rate=1.0, output_len=0), "output_len"),
        (dict(rate=10**400), "rate"),
    ],
)
def test_make_workload_refuses_bad_input(kw: dict[str, object], field: str) -> None:
    args: dict[str, object] = dict(requests=10, input_len=100, output_len=10) | kw
    err = one_line_error(lambda: make_workload(**args))  # type: ignore[arg-type]
    assert err.field == field
    if field == "input_len":
        assert "8192" in str(err) and "context" in str(err)


def test_workload_checks_what_it_is_given() -> None:
    one = np.array([1, 2], dtype=np.int64)
    with pytest.raises(InputError) as exc:
        Workload(one, one, np.array([2.0, 1.0]), None, "unsorted")
    assert exc.value.field == "arrival_s"
    with pytest.raises(InputError):
        Workload(one, np.array([1, 0]), None, 2, "zero output")
    with pytest.raises(InputError):
        Workload(one, one, None, None, "neither")


# --- read_trace ----------------------------------------------------------------------------

HEADER = "arrival_s,input_len,output_len\n"


def write(tmp_path: Path, text: str, name: str = "trace.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_read_good_trace_sorted_stably(tmp_path: Path) -> None:
    p = write(tmp_path, HEADER + "2.5,100,10\n0,12.0,7\n1.0,30,3\n1.0,31,4\n\n")
    w = read_trace(p)
    assert w.arrival_s is not None
    assert w.arrival_s.tolist() == [0.0, 1.0, 1.0, 2.5]
    assert w.input_len.tolist() == [12, 30, 31, 100]  # the two 1.0 rows keep file order
    assert w.output_len.tolist() == [7, 3, 4, 10]
    assert w.input_len.dtype == np.int64 and w.concurrency is None and not w.closed_loop
    assert "4 requests" in w.description and "trace.csv" in w.description


def test_read_trace_columns_in_any_order(tmp_path: Path) -> None:
    w = read_trace(write(tmp_path, "output_len, input_len ,arrival_s\n5,50,0.5\n"))
    assert w.input_len.tolist() == [50] and w.output_len.tolist() == [5]


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        ("0,10,5\nabc,10,5\n", 3, "arrival_s must be"),
        ("-1,10,5\n", 2, "arrival_s must be"),
        ("nan,10,5\n", 2, "arrival_s must be"),
        ("0,10,5\n1,10,5\n2,0,5\n", 4, "input_len must be a positive integer, got '0'"),
        ("0,1.5,5\n", 2, "input_len must be a positive integer, got '1.5'"),
        ("0,10,ten\n", 2, "output_len must be a positive integer, got 'ten'"),
        ("0,10,-3\n", 2, "output_len must be a positive integer"),
        ("0,10\n", 2, "expected 3 fields"),
        ("0,10,5\n\n1,10,5,7\n", 4, "expected 3 fields"),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path: Path, body: str, line: int, words: str) -> None:
    err = one_line_error(lambda: read_trace(write(tmp_path, HEADER + body)))
    assert err.field == "trace"
    assert str(err).startswith(f"trace.csv line {line}: ")
    assert words in str(err)


def test_missing_and_extra_columns_are_named(tmp_path: Path) -> None:
    err = one_line_error(lambda: read_trace(write(tmp_path, "arrival_s,input_len\n0,10\n")))
    assert "trace.csv line 1" in str(err) and "missing column(s) output_len" in str(err)
    err = one_line_error(
        lambda: read_trace(write(tmp_path, "arrival_s,input_len,output_len,user\n0,1,2,a\n"))
    )
    assert "trace.csv line 1" in str(err) and "'user'" in str(err)


@pytest.mark.parametrize("text", ["", "\n\n", HEADER, HEADER + "\n"])
def test_empty_trace(tmp_path: Path, text: str) -> None:
    err = one_line_error(lambda: read_trace(write(tmp_path, text)))
    assert str(err) == "trace.csv has no requests" and err.field == "trace"


def test_missing_file_is_named(tmp_path: Path) -> None:
    err = one_line_error(lambda: read_trace(tmp_path / "nowhere.csv"))
    assert "nowhere.csv" in str(err) and "does not exist" in str(err)


def test_over_context_row_is_refused_with_its_line(tmp_path: Path) -> None:
    p = write(tmp_path, HEADER + "0,100,100\n1,8000,1000\n")
    err = one_line_error(lambda: read_trace(p, max_context=8192))
    assert str(err) == (
        "trace.csv line 3: input_len + output_len = 9000 exceeds the model's context of 8192"
    )
    assert read_trace(p, max_context=9000).requests == 2  # 9000 <= 9000 fits exactly
