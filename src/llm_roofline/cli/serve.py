"""Verb `serve`: the interactive page and its JSON API (extra `web`)."""

from __future__ import annotations

import argparse
import sys

from ._common import Parser, positive_int


def cmd_serve(args: argparse.Namespace) -> int:
    from ..errors import InputError

    try:
        import uvicorn
    except ImportError:
        raise InputError(
            "the web page needs: pip install 'llm-roofline[web]'", field="serve"
        ) from None
    from ..web import create_app

    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"llm-roofline: warning: serving on {args.host}, reachable beyond this machine",
            file=sys.stderr,
        )
    print(f"llm-roofline: http://{args.host}:{args.port}/ (API docs at /docs)", file=sys.stderr)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    return 0


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    sv = sub.add_parser("serve", help="the interactive page and its JSON API (extra `web`)")
    sv.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    sv.add_argument("--port", type=positive_int, default=8000, help="TCP port (default 8000)")
    sv.set_defaults(func=cmd_serve)
