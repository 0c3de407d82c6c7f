"""Shared protocol for the peer adapters (runs inside each peer's own virtual environment).

An adapter defines ``predict(scenario) -> (seconds_per_output_token, note)`` and calls
``main(peer, dist, predict)``. The harness (``benchmarks/peers/run.py``) writes the scenarios as
JSON on stdin; the adapter prints one JSON object as the last line of stdout. Anything the peer
itself prints goes to stderr, so stdout stays machine-readable.

Per scenario the result is ``{"t_token_s", "note", "first_call_s", "median_s", "repeats"}``, or
``{"unsupported": reason}`` when the peer's API cannot express the scenario, or
``{"error": "Type: message"}`` when it raised.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from importlib import metadata
from typing import Any


class Unsupported(Exception):  # noqa: N818 - reads better at the raise site
    """The peer's public API has no way to express this scenario."""


SIXTEEN_BIT = ("bf16", "fp16")  # same bytes per value; the peers' presets treat them alike

Predict = Callable[[dict[str, Any]], tuple[float, str]]


def _one(predict: Predict, scenario: dict[str, Any], repeats: int, budget_s: float) -> dict:
    try:
        with contextlib.redirect_stdout(sys.stderr):
            t0 = time.perf_counter()
            value, note = predict(scenario)
            first = time.perf_counter() - t0
            times: list[float] = []
            spent = 0.0
            # repeats == 0: prediction only (the accuracy section), no timing
            while 0 < repeats and len(times) < repeats and (len(times) < 3 or spent < budget_s):
                t0 = time.perf_counter()
                predict(scenario)
                dt = time.perf_counter() - t0
                times.append(dt)
                spent += dt
    except Unsupported as exc:
        return {"unsupported": str(exc)}
    except Exception as exc:  # a peer failing is a result to report, not a crash
        traceback.print_exc(file=sys.stderr)
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "t_token_s": float(value),
        "note": note,
        "first_call_s": first,
        "median_s": statistics.median(times) if times else None,
        "repeats": len(times),
    }


# Feature probes (the feature table of docs/comparison.md). Per feature an adapter gives either
# a callable ``probe(job) -> (status, note)`` that really calls the peer to find out ("probe"),
# or a ``(status, note)`` pair decided from reading its API and docs ("API"). status is
# yes / no / partial. A probe that raises counts as "no", with the error as the note.
Probe = Callable[[dict[str, Any]], tuple[str, str]] | tuple[str, str]


def _probe(probe: Probe | None, job: dict[str, Any]) -> dict[str, str]:
    if probe is None:
        return {"status": "?", "how": "", "note": "not checked"}
    if isinstance(probe, tuple):
        return {"status": probe[0], "how": "API", "note": probe[1]}
    try:
        with contextlib.redirect_stdout(sys.stderr):
            status, note = probe(job)
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        status, note = "no", f"probe raised {type(exc).__name__}: {str(exc)[:160]}"
    return {"status": status, "how": "probe", "note": note}


def main(peer: str, dist: str, predict: Predict, probes: dict[str, Probe] | None = None) -> None:
    job = json.load(sys.stdin)
    if "probes" in job:  # feature table: no predictions
        feats = {f: _probe((probes or {}).get(f), job) for f in job["probes"]}
        print(json.dumps({"peer": peer, "version": metadata.version(dist), "features": feats}))
        return
    results = {
        sc["id"]: _one(predict, sc, int(job.get("repeats", 20)), float(job.get("budget_s", 5.0)))
        for sc in job["scenarios"]
    }
    out = {
        "peer": peer,
        "dist": dist,
        "version": metadata.version(dist),
        "python": sys.version.split()[0],
        "results": results,
    }
    print(json.dumps(out))
