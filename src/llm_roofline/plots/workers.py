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

import os
import sys
import threading
import traceback
from collections.abc import Callable, Sequence

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
    to `workers` processes, this one and forked children; raises when a child fails."""
    workers = min(workers, len(jobs))
    if workers <= 1 or not _can_fork():
        for job in jobs:
            job()
        return
    sys.stdout.flush()  # nothing buffered is written twice
    sys.stderr.flush()
    children = []
    for k in range(1, workers):
        pid = os.fork()
        if pid == 0:  # the child: its share, then leave without running the parent's cleanup
            code = 0
            try:
                for job in jobs[k::workers]:
                    job()
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        children.append(pid)
    try:
        for job in jobs[0::workers]:
            job()
    finally:
        failed = [pid for pid in children if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])]
    if failed:
        raise RuntimeError(f"{len(failed)} figure worker(s) failed; see the messages above")
