"""`deploy.scenarios.table`: a scenario CSV read by column gives the rows, the lines they start
on and the extra cells that `read_scenarios` gives row by row; `Table.of_rows` keeps rows from
Python that are not all text whole; `gc_paused` restores the collector as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.deploy.scenarios.rows import EXTRA_CELLS, INPUT_COLUMNS, read_scenarios
from llm_roofline.deploy.scenarios.table import Table, gc_paused, read_table

HEADER = "model,hardware,chips,weight_dtype,batch,input_len,mode"
# line 1 the header; 2 a row; 3 blank; 4 a short row; 5 two cells past the header; 6 empty
# cells (a blank line too); 7-8 one row whose quoted model spans two lines; 9 a row
TEXT = (
    f"{HEADER}\n"
    "llama-3.1-8b,h100-sxm,1,bf16,8,1024,decode\n"
    "\n"
    "llama-3.1-8b,h100-sxm,2,bf16\n"
    "llama-3.1-70b,h100-sxm,8,bf16,1,1,static,x,y\n"
    ",,,,,,\n"
    '"two\nlines",a100-80gb,1,fp8,4,512,continuous\n'
    "qwen,h200,1,bf16,2,64,decode\n"
)


def _csv(tmp_path: Path, text: str = TEXT) -> Path:
    path = tmp_path / "scenarios.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_rows_and_lines_by_hand(tmp_path: Path) -> None:
    table = read_table(_csv(tmp_path))
    assert table.lines == [2, 4, 5, 7, 9]
    assert list(table.cells["model"]) == ["llama-3.1-8b"] * 2 + ["llama-3.1-70b", "two\nlines"] + [
        "qwen"
    ]
    # the short row's missing cells are empty; the row with 2 cells too many says so
    assert list(table.cells["mode"]) == ["decode", "", "static", "continuous", "decode"]
    assert table.extra == {2: 2}
    assert table.row(2)[EXTRA_CELLS] == "2"
    assert EXTRA_CELLS not in table.row(0)


def test_the_same_rows_as_read_scenarios(tmp_path: Path) -> None:
    """By column or row by row, one file reads the same (a missing cell is an empty one)."""
    path = _csv(tmp_path)
    table, rows = read_table(path), read_scenarios(path)
    assert table.lines == [line for line, _ in rows]
    header = HEADER.split(",")
    for k, (_, row) in enumerate(rows):
        assert table.row(k) == {**dict.fromkeys(header, ""), **row}


def test_a_bad_header_is_refused_as_read_scenarios_refuses_it(tmp_path: Path) -> None:
    path = _csv(tmp_path, "model,hardware,chips\nx,y,1\n")
    with pytest.raises(InputError) as exc:
        read_table(path)
    assert exc.value.field == "weight_dtype"  # the first required column missing
    assert str(exc.value).startswith(f"{path}: missing column(s) weight_dtype, batch")


def test_of_rows_keeps_rows_that_are_not_all_text_whole() -> None:
    text = {"model": "m", "hardware": "h100-sxm", "chips": "8", "batch": None}
    typed = {"model": "m", "hardware": "h100-sxm", "chips": 8}  # an int, as Python gives it
    extra = {"model": "m", EXTRA_CELLS: "1"}
    table = Table.of_rows([(2, text), (3, typed), (5, extra)])
    assert table.lines == [2, 3, 5]
    assert set(table.cells) == set(INPUT_COLUMNS)
    # a cell None is "" (as normalise_row reads it); a row of text is read from the columns
    assert table.row(0)["batch"] == "" and table.row(0)["chips"] == "8"
    assert table.odd.keys() == {1, 2}
    assert table.row(1) is typed and table.row(2) is extra
    assert table.cells["chips"][1] == ""  # its cell in the column is blank; the row is whole


def test_gc_paused_restores_the_collector() -> None:
    was = gc.isenabled()
    try:
        gc.enable()
        with gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled()
        gc.disable()  # paused by someone else: left paused
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
