"""Verb `serve` (`llm_roofline.cli.cmd_serve`): its parser's documented defaults (127.0.0.1,
port 8000), a bad port refused before anything starts, and what the handler hands uvicorn,
with `uvicorn.run` replaced so that no server ever starts."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import cmd_serve

from .verb_parsers import parse, refusal

add = cmd_serve.add_parsers


def test_defaults_are_the_documented_ones() -> None:
    a = parse(add, ["serve"])
    # "address to listen on (default 127.0.0.1: this machine only)", "TCP port (default 8000)"
    assert (a.host, a.port, a.func) == ("127.0.0.1", 8000, cmd_serve.cmd_serve)
    assert parse(add, ["serve", "--port", "8080", "--host", "::1"]).port == 8080


@pytest.mark.parametrize(
    ("port", "words"),
    [
        ("0", "argument --port: must be a port number from 1 to 65535, got 0"),
        ("-1", "argument --port: must be a port number from 1 to 65535, got -1"),
        ("http", "argument --port: must be a port number from 1 to 65535, got 'http'"),
    ],
)
def test_a_bad_port_is_refused_before_starting(
    port: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refusal(add, ["serve", "--port", port], capsys).startswith(
        f"llm-roofline: error: {words}"
    )


def test_a_port_beyond_65535_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # TCP ports are 16-bit: 1 to 65,535 (RFC 793)
    line = refusal(add, ["serve", "--port", "70000"], capsys)
    assert "--port" in line and "1 to 65535" in line, line


def test_the_handler_hands_uvicorn_the_host_and_port(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append({"app": app, **kw}))
    # the app itself is the web wing's (tests/web/); a stand-in spares importing FastAPI
    app = object()
    monkeypatch.setitem(sys.modules, "llm_roofline.web", SimpleNamespace(create_app=lambda: app))
    args = parse(add, ["serve", "--port", "8123"])
    capsys.readouterr()
    assert args.func(args) == 0
    assert calls == [{"app": app, "host": "127.0.0.1", "port": 8123, "log_level": "warning"}]
    err = capsys.readouterr().err
    assert err == "llm-roofline: http://127.0.0.1:8123/ (API docs at /docs)\n"
    # an address beyond this machine is served, with a warning first
    args = parse(add, ["serve", "--host", "0.0.0.0"])
    assert args.func(args) == 0 and calls[-1]["host"] == "0.0.0.0"
    err = capsys.readouterr().err
    assert err.startswith(
        "llm-roofline: warning: serving on 0.0.0.0, reachable beyond this machine\n"
    )


def test_without_the_web_extra_it_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` raises ImportError
    args = parse(add, ["serve"])
    with pytest.raises(InputError, match=r"the web page needs: pip install 'llm-roofline\[web\]'"):
        args.func(args)
