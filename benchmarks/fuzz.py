"""Fuzz the two readers that take outside input: config.json and the scenario CSV.

Each input goes all the way through: a config is read, turned into a ModelSpec and run through a
decode step and a memory fit; a CSV is read and every row predicted. The only allowed way out
is a typed `LlmRooflineError`; any other exception, or a non-finite number in an output, is a
failure. Inputs come from hypothesis: real catalog configs with fields deleted or overwritten
by arbitrary JSON values, truncated or mangled JSON text, and CSVs with shuffled, missing and
foreign columns and arbitrary cells.

    python benchmarks/fuzz.py 100000      # `make fuzz`; the result goes in docs/reliability.md

`tests/errors/test_fuzz.py` runs a short version of the same harness in `make test-slow`.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from llm_roofline._core.errors import LlmRooflineError
from llm_roofline.deploy.scenarios.columns import predict_rows
from llm_roofline.deploy.scenarios.rows import INPUT_COLUMNS, read_scenarios
from llm_roofline.engine.memory import memory_use
from llm_roofline.engine.roofline import decode_step
from llm_roofline.model.hf.config import load_config, spec_from_config

MODELS = resources.files("llm_roofline").joinpath("data/models")
BASES = sorted(
    (p.name, json.loads(p.read_text("utf-8")))
    for p in MODELS.iterdir()
    if p.name.endswith(".config.json")
)
KEYS = sorted({k for _, c in BASES for k in c} | {"text_config", "layer_types", "index_topk"})

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([0, 1, -1, 2, 3, 7, 64, 128, 4096, 10**9])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)

CONFIGS = st.tuples(
    st.sampled_from(BASES),
    st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), JSON_VALUES, max_size=4),
    st.lists(st.sampled_from(KEYS), max_size=4),
)

CELLS = (
    st.sampled_from(
        ["llama-3.1-8b", "qwen3-30b-a3b", "h100-sxm", "gb200", "bf16", "fp8", "int4", "1", "8",
         "0", "-1", "nan", "inf", "1e30", "2.5", "", "decode", "static", "continuous",
         "ideal", "calibrated", "llama-9", " 4 ", '"8"']
    )
    | st.text(max_size=6)
)  # fmt: skip
VALID_ROW = {
    "model": "llama-3.1-8b", "hardware": "h100-sxm", "chips": "1", "tp": "", "pp": "", "ep": "",
    "weight_dtype": "bf16", "kv_dtype": "bf16", "batch": "8", "input_len": "512",
    "output_len": "128", "mode": "decode", "engine": "ideal",
}  # fmt: skip
# mostly the contract's columns in any order (sometimes one dropped or a stranger added),
# sometimes anything
HEADERS = st.one_of(
    st.permutations(INPUT_COLUMNS),
    st.builds(
        lambda cols, drop, extra: [c for c in cols if c != drop] + extra,
        st.permutations(INPUT_COLUMNS),
        st.sampled_from(INPUT_COLUMNS),
        st.lists(st.text(max_size=5), max_size=1),
    ),
    st.lists(st.sampled_from(INPUT_COLUMNS) | st.text(max_size=5), min_size=1, max_size=14),
)
# a valid row with up to three cells replaced, or cells of nothing in particular
ROW_EDITS = st.dictionaries(st.sampled_from(INPUT_COLUMNS), CELLS, max_size=3)


def _finite(x: Any) -> bool:
    if isinstance(x, float):
        return math.isfinite(x)
    if hasattr(x, "flat"):
        return all(math.isfinite(float(v)) for v in x.flat)
    return True


class FuzzFailureError(Exception):
    pass


def check_config(base: tuple[str, dict[str, Any]], changes: dict[str, Any], drop: list[str]) -> str:
    """One mutated config through the whole path; returns how it ended."""
    cfg = {k: v for k, v in base[1].items() if k not in drop}
    cfg.update(changes)
    try:
        spec = spec_from_config(cfg, "fuzz")
        step = decode_step(spec, "h100-sxm", batch=8, context_len=1024)
        mem = memory_use(spec, "h100-sxm", batch=8, context_len=1024)
    except LlmRooflineError:
        return "refused"
    except Exception as exc:
        raise FuzzFailureError(f"{base[0]} changes={changes!r} drop={drop}: {exc!r}") from exc
    for v in (step.t_step, step.t_compute, step.t_memory, step.t_comm, mem.total):
        if not _finite(v):
            raise FuzzFailureError(f"{base[0]} changes={changes!r} drop={drop}: non-finite {v!r}")
    return "accepted"


def check_config_text(text: str, path: Path) -> str:
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        spec_from_config(load_config(path), "fuzz")
    except LlmRooflineError:
        return "refused"
    except Exception as exc:
        raise FuzzFailureError(f"config text {text[:80]!r}: {exc!r}") from exc
    return "accepted"


def check_csv(header: list[str], rows: list[list[str]], path: Path) -> str:
    lines = [",".join(header)] + [",".join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    try:
        results = predict_rows(read_scenarios(path))
    except LlmRooflineError:
        return "refused"
    except Exception as exc:
        raise FuzzFailureError(f"csv {lines!r}: {exc!r}") from exc
    for r in results:
        for k, v in r.outputs.items():
            if not _finite(v):
                raise FuzzFailureError(f"csv {lines!r}: {k} = {v!r}")
    return "rows"


def run(n: int, seed: int | None = None) -> dict[str, Any]:
    """`n` inputs of each kind; returns counts and seconds per kind."""
    tmp = Path(tempfile.mkdtemp(prefix="llm-roofline-fuzz-"))
    report: dict[str, Any] = {}
    opts = settings(
        max_examples=n,
        deadline=None,
        database=None,
        derandomize=seed is not None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )

    tally: dict[str, int] = {}

    def count(out: str) -> None:
        tally[out] = tally.get(out, 0) + 1

    def timed(name: str, test: Any) -> None:
        tally.clear()
        t0 = time.perf_counter()
        test()
        seconds = round(time.perf_counter() - t0, 1)
        report[name] = {"inputs": sum(tally.values()), **tally, "seconds": seconds}

    @opts
    @given(CONFIGS)
    def configs(c: tuple[Any, dict[str, Any], list[str]]) -> None:
        count(check_config(*c))

    texts = st.one_of(
        st.text(max_size=60),
        st.builds(
            lambda b, cut: json.dumps(b[1])[:cut], st.sampled_from(BASES), st.integers(0, 3000)
        ),
    )

    @opts
    @given(texts)
    def config_texts(t: str) -> None:
        count(check_config_text(t, tmp / "config.json"))

    @opts
    @given(
        HEADERS,
        st.lists(ROW_EDITS, max_size=3),
        st.lists(st.lists(CELLS, max_size=15), max_size=1),
        st.booleans(),
    )
    def csvs(
        h: list[str], edits: list[dict[str, str]], odd: list[list[str]], csv_safe: bool
    ) -> None:
        rows = [[{**VALID_ROW, **e}.get(c, "x") for c in h] for e in edits] + odd
        if csv_safe:  # cells with commas or quotes quoted, as a spreadsheet writes them
            rows = [[f'"{c.replace(chr(34), chr(34) * 2)}"' for c in r] for r in rows]
        count(check_csv(list(h), rows, tmp / "scenarios.csv"))

    timed("config.json (mutated catalog configs)", configs)
    timed("config.json (raw and truncated text)", config_texts)
    timed("scenario CSV", csvs)
    return report


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    try:
        report = run(n)
    except FuzzFailureError as exc:
        print(f"FAILURE: {exc}", file=sys.stderr)
        return 1
    total = sum(r["inputs"] for r in report.values())
    for name, r in report.items():
        print(f"{name}: {r}")
    print(f"{total:,} inputs, no unhandled exception, no non-finite output;"
          f" median kind {statistics.median(r['seconds'] for r in report.values())} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
