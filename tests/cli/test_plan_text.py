"""`cli.plan_text`: a time shown to the digits that say which side of its target it falls."""

from __future__ import annotations

from llm_roofline.cli.plan_text import ms_text


def test_a_time_shows_its_side_of_the_target() -> None:
    assert ms_text(0.03004, 30.0) == "30.04"  # 30.0 would read as met
    assert ms_text(0.0251, 30.0) == "25.1"
    assert ms_text(None, 30.0) == "—"
