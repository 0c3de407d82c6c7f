"""Figures quoted in the docs are re-computed here, so a doc cannot drift from the tool."""

from __future__ import annotations

from pathlib import Path

import llm_roofline as lr

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_design_md_lecture_differences() -> None:
    text = " ".join((DOCS / "design.md").read_text().split())
    s = lr.get_model("deepseek-v3")
    ratio = f"{s.params_stored / 1e9:.1f}B / {s.params_multiplied / 1e9:.1f}B = "
    ratio += f"{s.params_stored / s.params_multiplied:.1f}"
    assert ratio in text
    assert f"is {lr.balance_batch('deepseek-v3', 'h100-sxm'):,.0f}, not 2,400" in text
    assert f"(drain {lr.get_hardware('rubin').drain_time_s * 1e3:.1f} ms)" in text


def test_readme_balance_batch() -> None:
    text = (DOCS.parent / "README.md").read_text()
    assert "≈ 5,400" in text
    assert round(lr.balance_batch("deepseek-v3", "h100-sxm"), -2) == 5400


def test_catalog_md_provenance_counts_and_table() -> None:
    from collections import Counter

    from llm_roofline.model.checkpoints import model_entry

    text = (DOCS / "catalog.md").read_text()
    counts = Counter(model_entry(m).meta["config_provenance"] for m in lr.list_models())
    assert f"`verbatim` ({counts['verbatim']} models)" in text
    assert f"`verbatim-edited` ({counts['verbatim-edited']})" in text
    assert f"`assembled` ({counts['assembled']})" in text
    for m in lr.list_models():
        prov = model_entry(m).meta["config_provenance"]
        if prov != "verbatim":
            assert f"| {m} | {prov} |" in text, m
    assert f"({lr.get_model('llama-4-scout').params_vision:,} parameters)" in text
