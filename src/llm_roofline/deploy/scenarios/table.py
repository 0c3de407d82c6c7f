"""Scenario rows by column: a CSV read into one list of cells a column, or rows from Python."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_roofline.deploy.scenarios.rows import EXTRA_CELLS, INPUT_COLUMNS, open_scenarios

__all__ = ["Table", "gc_paused", "read_table"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (a decorator too): 10^5 rows are 10^6 objects, none
    in a cycle, and each collection would walk them all (a third of the time to read a file)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@dataclass
class Table:
    """Scenario rows by column: `cells[name][k]`, the text of row k in that column ("" where
    the row is short); `lines[k]`, the line row k starts on; `extra[k]`, the count of non-empty
    cells beyond the header; `odd[k]`, a row given whole (its cells here are ""), for
    `normalise_row` alone. Blank lines of a file are left out."""

    cells: dict[str, Sequence[str]]
    lines: list[int]
    extra: dict[int, int] = field(default_factory=dict)
    odd: dict[int, Mapping[str, Any]] = field(default_factory=dict)

    def row(self, k: int) -> Mapping[str, Any]:
        """Row k as `scenarios.read_scenarios` (or the caller of `of_rows`) gave it."""
        if k in self.odd:
            return self.odd[k]
        row: dict[str, Any] = {c: col[k] for c, col in self.cells.items()}
        if k in self.extra:
            row[EXTRA_CELLS] = str(self.extra[k])
        return row

    @classmethod
    @gc_paused()
    def of_rows(cls, rows: Iterable[tuple[int, Mapping[str, Any]]]) -> Table:
        """Rows as `columns.predict_rows` takes them: a cell None is "" (as `normalise_row` reads
        it); a row with a cell of another type than text, or cells beyond a header, is `odd`."""
        pairs = list(rows)
        raws = [raw for _, raw in pairs]
        odd = {k: raw for k, raw in enumerate(raws) if raw.get(EXTRA_CELLS)}
        cells: dict[str, Any] = {c: [raw.get(c) for raw in raws] for c in INPUT_COLUMNS}
        for col in cells.values():
            if not set(map(type, col)) <= {str}:
                other = (k for k, v in enumerate(col) if v is not None and type(v) is not str)
                odd.update((k, raws[k]) for k in other)
                col[:] = [v if type(v) is str else "" for v in col]
        return cls(cells, [line for line, _ in pairs], odd=odd)


@gc_paused()
def read_table(path: str | Path) -> Table:
    """A scenario CSV by column (the rows, lines and errors of `scenarios.read_scenarios`)."""
    reader, header = open_scenarios(path)
    width = len(header)
    records: list[list[str]] = []
    ends: list[int] = []
    start = reader.line_num + 1
    for cells in reader:
        records.append(cells)
        ends.append(reader.line_num)
    lines = [start, *(e + 1 for e in ends[:-1])][: len(records)]
    blank, extra = set(), {}
    for k, cells in enumerate(records):
        if len(cells) != width:
            if not any(c.strip() for c in cells):
                blank.add(k)
            elif more := sum(1 for c in cells[width:] if c.strip()):
                extra[k] = more
            records[k] = (cells + [""] * width)[:width]
    columns = list(zip(*records, strict=True)) if records else [()] * width
    model = columns[header.index("model")]
    if any(not v.strip() for v in set(model)):  # a row of empty cells is a blank line too
        empty = (k for k, v in enumerate(model) if not v.strip())
        blank.update(k for k in empty if not any(map(str.strip, records[k])))
    if blank:
        keep = [k for k in range(len(records)) if k not in blank]
        extra = {i: extra[k] for i, k in enumerate(keep) if k in extra}
        lines = [lines[k] for k in keep]
        columns = [tuple(col[k] for k in keep) for col in columns]
    cells = {h: col for h, col in zip(header, columns, strict=True) if h}
    return Table(cells, lines, extra)
