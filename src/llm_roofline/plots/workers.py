"""Drawing figures on more than one core: a forked child draws a share of the figures while
this process draws the rest (Linux only; elsewhere, or with one core, everything is drawn
here).

Why: a figure is matplotlib's work, not the engine's (drawing and writing a PNG and an SVG
take about 0.15 s of one core, the curves under 0.01 s), and figures share nothing, so two
cores halve the wall time of `report --out` and `demo` (issue #13). Why fork rather than a
process pool: the child starts with matplotlib imported and the deployment built, so it pays
for none of that again, and nothing needs pickling. Only the command line asks for workers: a
library caller (a notebook, a server with threads) gets the plain serial loop.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from llm_roofline._core.errors import LlmRooflineError

__all__ = ["available_cores", "run_split"]


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _can_fork() -> bool:
    # never with other threads alive: a child would start with whatever locks they held
    # (a command line has none; a test runner or a server embedding the CLI may)
    return sys.platform == "linux" and hasattr(os, "fork") and threading.active_count() == 1


def run_split(jobs: Sequence[Callable[[], object]], workers: int) -> None:
    """Run every job once: with `workers` > 1 (and fork available), jobs are dealt round-robin
    to `workers` processes, this one and forked children. A child's failure is raised here as
    the error it was (an OSError or a library error: the command line's one line and exit 2,
    whichever process drew the figure), after every child has finished."""
    workers = min(workers, len(jobs))
    if workers <= 1 or not _can_fork():
        for job in jobs:
            job()
        return
    sys.stdout.flush()  # nothing buffered is written twice
    sys.stderr.flush()
    children = []
    for k in range(1, workers):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its share, then leave without running the parent's cleanup
            os.close(read_end)
            _child(jobs[k::workers], write_end)
        os.close(write_end)
        children.append((pid, read_end))
    try:
        for job in jobs[0::workers]:
            job()
    finally:
        reports = [_reap(pid, read_end) for pid, read_end in children]
    for report in reports:
        if report is not None:
            raise _error(report)


def _child(jobs: Sequence[Callable[[], object]], out: int) -> NoReturn:
    """Run `jobs`; on failure, write what went wrong to `out` (JSON) and exit 1."""
    report: dict[str, Any] | None = None
    try:
        for job in jobs:
            job()
    except OSError as exc:
        report = {
            "kind": "os",
            "errno": exc.errno,
            "strerror": exc.strerror,
            "filename": exc.filename,
        }
        report["message"] = str(exc)
    except LlmRooflineError as exc:
        report = {"kind": "library", "message": str(exc)}
    except BaseException as exc:  # a bug: its traceback, for whoever reports it
        traceback.print_exc()
        report = {"kind": "bug", "message": f"{type(exc).__name__}: {exc}"}
    finally:
        if report is not None:
            os.write(out, json.dumps(report, default=str).encode())
        os._exit(0 if report is None else 1)


def _reap(pid: int, read_end: int) -> dict[str, Any] | None:
    """Wait for a child; what it reported, or None when it succeeded."""
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    with os.fdopen(read_end, "rb") as fh:
        text = fh.read()
    if code == 0:
        return None
    try:
        return dict(json.loads(text))
    except ValueError:  # killed before it could say (a signal: the code is its negative)
        return {"kind": "bug", "message": f"a figure worker ended with code {code}"}


def _error(report: dict[str, Any]) -> BaseException:
    if report["kind"] == "os" and report.get("strerror"):
        return OSError(report["errno"], report["strerror"], report["filename"])
    if report["kind"] in ("os", "library"):
        return LlmRooflineError(report["message"])
    return RuntimeError(f"a figure worker failed: {report['message']}")
