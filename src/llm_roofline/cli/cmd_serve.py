"""Verb `serve`: the interactive page and its JSON API (extra `web`)."""

from __future__ import annotations

import argparse
import sys

from llm_roofline.cli._args import port
from llm_roofline.cli._common import Parser, examples


def cmd_serve(args: argparse.Namespace) -> int:
    from llm_roofline._core.errors import InputError

    try:
        import uvicorn
    except ImportError:
        raise InputError(
            "the web page needs: pip install 'llm-roofline[web]'", field="serve"
        ) from None
    from llm_roofline.web import create_app

    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"llm-roofline: warning: serving on {args.host}, reachable beyond this machine",
            file=sys.stderr,
        )
    print(f"llm-roofline: http://{args.host}:{args.port}/ (API docs at /docs)", file=sys.stderr)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    return 0


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    sv = sub.add_parser(
        "serve",
        help="the interactive page and its JSON API (extra `web`)",
        description="A page in the browser that answers what the verbs answer (report, "
        "predict, sweep, optimize, simulate, plan, pricing, cache-tiers, sensitivity, "
        "fast-mode) as a form with interactive plots, and the JSON API it calls (/api/..., "
        "documented at /docs). Needs the `web` extra: pip install 'llm-roofline[web]'.",
        epilog=examples("llm-roofline serve    (then open http://127.0.0.1:8000/)"),
    )
    sv.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    sv.add_argument("--port", type=port, default=8000, help="TCP port, 1 to 65535 (default 8000)")
    sv.set_defaults(func=cmd_serve)
