"""Helpers for the tests of one verb module (tests/cli/test_cmd_*.py): a parser holding only
that module's verbs, a refusal's one line, and a run through the module's own handler."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from llm_roofline.cli._common import Parser

AddParsers = Callable[[Any], None]


def parser_of(*add: AddParsers) -> Parser:
    """`llm-roofline` with only the verbs the given `add_parsers` functions add."""
    p = Parser(prog="llm-roofline")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for f in add:
        f(sub)
    return p


def parse(add: AddParsers, argv: Sequence[str]) -> argparse.Namespace:
    return parser_of(add).parse_args(list(argv))


def refusal(add: AddParsers, argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a bad command line is refused with (exit code 2, nothing on stdout)."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        parser_of(add).parse_args(list(argv))
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == ""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("llm-roofline: error: "), err
    return lines[0]


def run_verb(
    add: AddParsers, argv: Sequence[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """Parse `argv` with the module's parsers and call the handler it set (`args.func`): its
    return code, stdout and stderr."""
    args = parse(add, argv)
    capsys.readouterr()
    code = int(args.func(args))
    out, err = capsys.readouterr()
    return code, out, err
