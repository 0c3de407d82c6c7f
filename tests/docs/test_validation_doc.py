"""docs/validation.md quotes `llm-roofline validate`: re-run it and compare every number."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import run_cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "validation.md"


def _validate(*args: str) -> dict:  # type: ignore[type-arg]
    r = run_cli("validate", "--json", *args)
    assert r.code == 0, r.err
    return dict(r.json())


@pytest.fixture(scope="module")
def text() -> str:
    return " ".join(DOC.read_text().split())


@pytest.fixture(scope="module")
def ideal() -> dict:  # type: ignore[type-arg]
    """`validate --json`: the ideal engine on every row (the two tests below read it)."""
    return _validate()


def test_ideal_numbers(text: str, ideal: dict) -> None:  # type: ignore[type-arg]
    s = ideal["summary"]
    assert f"holds **{s['rows']}** rows" in text
    from llm_roofline.validation.validate import load_rows

    added = [r for r in load_rows() if r.row > 1000]
    assert f"and {len(added)} added from further sources" in text
    assert f"**{s['ceiling_rows']}** rows come from max-throughput tables" in text
    scored = int(s["overall"]["rows"])
    assert f"leaves **{scored}** scored rows" in text
    assert (
        f"| all {scored} scored rows | **{s['overall']['median']:.3f}** | "
        f"**{s['overall']['p90']:.3f}** |" in text
    )
    hw = s["by_hardware"]
    assert f"**{hw['rtx-4090']['median']:.3f}** (RTX 4090" in text
    assert f"**{hw['b200']['median']:.3f}** (B200" in text
    assert (
        f"**Predicted slower than measured: {s['slower_than_measured']} of {s['rows']} rows "
        f"({s['slower_than_measured_share']:.1%}).**" in text
    )


@pytest.mark.slow
def test_calibrated_and_cross_validation_numbers(text: str, ideal: dict) -> None:  # type: ignore[type-arg]
    # validate --cv runs in about 3 s (issue 14): no longer a slow test
    out = _validate("--engine", "calibrated", "--cv")
    s, cv = out["summary"], out["cross_validation"]
    scored = int(s["overall"]["rows"])
    assert (
        f"| all {scored} scored rows (fitted on them) | **{s['overall']['median']:.3f}** | "
        f"**{s['overall']['p90']:.3f}** |" in text
    )
    for by, label in (("source", "leave-one-source-out"), ("kind", "leave-one-hardware-kind-out")):
        c, h = cv[by], cv[by]["held_out"]
        assert f"| held out: {label} | **{h['median']:.3f}** | **{h['p90']:.3f}** |" in text
        n, ok = len(c["groups"]), c["groups_within_0_15"]
        assert f"**{ok} of {n}**" in text
        assert f"**{c['median_of_group_medians']:.3f}**" in text
        assert f"**{c['coverage_80']:.1%}**" in text
        # the range target: the nominal 80% range holds 70-90% of held-out rows
        assert 0.7 <= c["coverage_80"] <= 0.9
        for name, v in c["groups"].items():  # every group's row in its table
            row = f"| {int(v['rows'])} | {v['median']:.3f} | {v['p90']:.3f} | "
            assert row + f"{v['coverage_80']:.0%} |" in text, name
    assert f"each of the {len(cv['source']['groups'])} sources" in text
    # the constants' table: each shared constant, its prior's range and its standard error
    from llm_roofline.calibration.fitting import PARAMETERS, from_z, load_priors
    from llm_roofline.calibration.profile import shipped

    fitted, priors = shipped().fitted, load_priors()  # type: ignore[union-attr]

    def fmt(name: str, v: float) -> str:
        if name.endswith("_s"):
            return f"{v * 1e3:.3g} ms" if v >= 1e-4 else f"{v * 1e6:.3g} µs"
        return f"{v:.3f}"

    for k in PARAMETERS:
        z, sd = fitted.shared[k], fitted.shared_sd[k]
        lo, hi = sorted((float(from_z(k, z - sd)), float(from_z(k, z + sd))))
        prior = f"{fmt(k, priors[k].low)} – {fmt(k, priors[k].high)}"
        value = f"{fmt(k, float(from_z(k, z)))} ({fmt(k, lo)} – {fmt(k, hi)})"
        assert f"| `{k}` | {prior} | {value} |" in text, k
    assert f"estimated from them (**{fitted.sigma:.3f}**)" in text
    fam = s["by_engine_family"]
    assert f"LMDeploy **{fam['lmdeploy']['median']:.3f}**" in text
    assert f"llama.cpp **{fam['llama.cpp']['median']:.3f}**" in text
    assert f"TensorRT-LLM **{fam['tensorrt-llm']['median']:.3f}**" in text
    assert f"vLLM **{fam['vllm']['median']:.3f}**" in text
    mi300x = ideal["summary"]["by_hardware"]["mi300x"]["median"]
    assert f"MI300X with vLLM sits at **{mi300x:.3f}**" in text


def test_unmapped_rows_are_listed(text: str) -> None:
    unmapped = (DOC.parent / "validation-unmapped.md").read_text()
    n = sum(
        1
        for line in unmapped.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().isdigit()
    )
    assert f"The **{n}** rows that could not be mapped" in text
    from llm_roofline.validation.validate import load_rows

    shared_rows = [r for r in load_rows() if r.row < 1000]
    # every row of tests/data/measurements.csv is mapped or listed
    assert n + len(shared_rows) == 329
