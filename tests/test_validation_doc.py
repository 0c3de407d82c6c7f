"""docs/validation.md quotes `llm-roofline validate`: re-run it and compare every number."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import run_cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "validation.md"


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
    from llm_roofline.validate import load_rows

    added = [r for r in load_rows() if r.row > 1000]
    assert f"and {len(added)} added from five further sources" in text
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


@pytest.mark.slow  # leave-one-source-out refits every profile once per source: ~40 s
def test_calibrated_and_cross_validation_numbers(text: str, ideal: dict) -> None:  # type: ignore[type-arg]
    out = _validate("--engine", "calibrated", "--cv")
    s, cv = out["summary"], out["cross_validation"]
    scored = int(s["overall"]["rows"])
    assert (
        f"| all {scored} scored rows (fitted on them) | **{s['overall']['median']:.3f}** | "
        f"**{s['overall']['p90']:.3f}** |" in text
    )
    h = cv["held_out"]
    # issue #5's targets on held-out sources: median |ln error| <= 0.15, 90th pct <= 0.40
    assert h["median"] <= 0.15 and h["p90"] <= 0.40
    assert (
        f"| held out: leave-one-source-out | **{h['median']:.3f}** | **{h['p90']:.3f}** |" in text
    )
    assert f"each of the {len(cv['sources'])} sources" in text
    # the two sources the page names: SGLang's expert parallelism, TensorRT-LLM's DeepSeek-R1
    src = cv["sources"]
    sglang = next(v for k, v in src.items() if "large-scale-ep" in k)
    r1 = next(v for k, v in src.items() if "DeepSeek-R1" in k)
    assert f"held-out median **{sglang['median']:.3f}**" in text
    assert f"comes next at **{r1['median']:.3f}** held out" in text
    # and rows 1053 and 1055, quoted against their measured time per output token
    from llm_roofline.validate import load_rows, validate

    rows = [r for r in load_rows() if r.row in (1053, 1055)]
    res = {x.row.row: x for x in validate("calibrated", rows)[0]}
    assert f"**{res[1053].ratio:.2f}×** and **{res[1055].ratio:.2f}×** of the measured" in text
    assert f"{res[1053].predicted * 1e3:.1f} ms against 38.75 ms" in text
    assert f"{res[1055].predicted * 1e3:.1f} ms against 59.73 ms" in text
    import statistics

    per_source = [v["median"] for v in cv["sources"].values()]
    assert f"held-out medians is **{statistics.median(per_source):.3f}**" in text
    over = sum(m > 0.15 for m in per_source)
    assert f"**{over} of {len(per_source)}** sources are above 0.15 held out" in text
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
    from llm_roofline.validate import load_rows

    shared_rows = [r for r in load_rows() if r.row < 1000]
    # every row of tests/data/measurements.csv is mapped or listed
    assert n + len(shared_rows) == 329
