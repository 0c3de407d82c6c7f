"""Side-by-side comparison with other LLM-performance tools on PyPI (``make bench-peers``).

For a small fixed set of decode scenarios, each peer is asked for its predicted time per output
token through its own public Python API, by an adapter (``adapters/<peer>.py``) that runs in that
peer's own virtual environment (``.venvs/<peer>``, created here with pip on first use). Nothing
of the peers' code or data is copied into this project; the adapters only call them.

What is measured:
- each peer's prediction per scenario (seconds per output token = one decode step), or the
  reason its API cannot express the scenario, or the exact error it raised;
- each peer's time per prediction: median over repeats after one warm-up call (the first call,
  which includes loading data files, is recorded separately);
- ours: ``llm_roofline.decode_step`` per scenario, one call at a time, and a vectorised sweep
  over batch 1..1024 (numpy array), per-point time; medians over repeats.

Two more sections:
- accuracy: rows of ``src/llm_roofline/data/validation.csv`` with a measured time per output
  token; ours (ideal and calibrated engines) and each peer predict them (no timing repeats), and
  are scored by |ln(predicted / measured)| (see ``accuracy_rows``);
- features: each adapter's ``PROBES`` decides yes / no / partial per feature, by calling the
  peer (``probe``) or, where marked, from reading its API (``API``); see ``FEATURES``.

Writes ``benchmarks/peers/out/results.json`` and ``docs/comparison.md``.
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import llm_roofline as lr
from llm_roofline.engine.parallel import Parallelism

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VENVS = HERE / ".venvs"
OUT = HERE / "out"
DOC = ROOT / "docs" / "comparison.md"

# peer -> (pip requirement, adapter file). Pinned so that a rerun compares the same versions.
PEERS: dict[str, str] = {
    "llm-analysis": "llm-analysis==0.2.2",
    "servcalc": "servcalc==0.1.0",
    "ridgepoint": "ridgepoint==0.1.2",
    "genz-llm": "genz-llm==0.0.16",
    "aiconfigurator": "aiconfigurator==0.12.0",  # its measured-kernel (SILICON) mode
    "aiconfigurator-sol": "aiconfigurator==0.12.0",  # its pure roofline (SOL) mode
}
VENV_OF = {"aiconfigurator-sol": "aiconfigurator"}  # peers that share another's venv
PEER_PYTHON = "python3.11"
HARDWARE = "h100-sxm"
CONTEXT = 2048
SCENARIOS: list[tuple[str, int, int]] = [  # (model, chips, batch); bf16 weights and KV
    ("llama-3.1-8b", 1, 1),
    ("llama-3.1-8b", 1, 64),
    ("llama-3.1-70b", 8, 1),
    ("llama-3.1-70b", 8, 64),
    ("mixtral-8x7b", 8, 1),
    ("mixtral-8x7b", 8, 64),
]
OUR_REPEATS = 200
SWEEP_BATCH = np.arange(1, 1025, dtype=float)
SWEEP_REPEATS = 50
PEER_REPEATS = 20  # at most; a peer gets ~5 s of repeats per scenario, and at least 3
# accuracy section: rows of src/llm_roofline/data/validation.csv sent to the peers
ACCURACY_HARDWARE = ("a100-80gb", "h100-sxm")  # ids at least one peer has a preset for
ACCURACY_MAX_ROWS = 60  # per peer, lowest row numbers first (aiconfigurator ~0.45 s a row)
INSTALL_TIMEOUT_S = 480
RUN_TIMEOUT_S = 480


def scenario_id(model: str, chips: int, batch: int) -> str:
    return f"{model}/{chips}x{HARDWARE}/b{batch}/ctx{CONTEXT}"


def arch_numbers(model: str) -> dict[str, Any]:
    """Architecture numbers from our catalog, for peers that take a model description."""
    spec = lr.get_model(model)
    (group,) = spec.groups  # the scenario models are uniform stacks
    a, f = spec.attention, group.ffn
    return {
        "model_type": spec.model_type,
        "layers": group.count,
        "d_model": spec.d_model,
        "n_heads": a.n_heads,
        "n_kv_heads": a.n_kv_heads,
        "head_dim": a.head_dim,
        "d_ff": f.d_ff,
        "n_experts": f.n_experts,
        "top_k": f.top_k,
        "vocab_size": spec.vocab_size,
        "max_context": spec.max_context,
        "tie_embeddings": spec.tie_embeddings,
    }


def hf_config(model: str, a: dict[str, Any]) -> dict[str, Any]:
    """The same numbers in Hugging Face ``config.json`` field names."""
    moe = a["n_experts"] > 0
    cfg: dict[str, Any] = {
        "_name_or_path": model,
        "architectures": ["MixtralForCausalLM" if moe else "LlamaForCausalLM"],
        "model_type": a["model_type"],
        "hidden_size": a["d_model"],
        "intermediate_size": a["d_ff"],
        "num_hidden_layers": a["layers"],
        "num_attention_heads": a["n_heads"],
        "num_key_value_heads": a["n_kv_heads"],
        "head_dim": a["head_dim"],
        "vocab_size": a["vocab_size"],
        "max_position_embeddings": a["max_context"],
        "tie_word_embeddings": a["tie_embeddings"],
        "torch_dtype": "bfloat16",
    }
    if moe:
        cfg |= {"num_local_experts": a["n_experts"], "num_experts_per_tok": a["top_k"]}
    return cfg


def scenarios() -> list[dict[str, Any]]:
    out = []
    for model, chips, batch in SCENARIOS:
        a = arch_numbers(model)
        out.append(
            {
                "id": scenario_id(model, chips, batch),
                "model": model,
                "hardware": HARDWARE,
                "chips": chips,
                "batch": batch,
                "context": CONTEXT,
                "weight_dtype": "bf16",
                "arch": a,
                "hf_config": hf_config(model, a),
            }
        )
    return out


def _scenario(
    sid: str,
    model: str,
    hardware: str,
    chips: int,
    batch: int,
    context: int,
    weight_dtype: str,
    kv_dtype: str,
) -> dict[str, Any]:
    a = arch_numbers(model)
    return {
        "id": sid,
        "model": model,
        "hardware": hardware,
        "chips": chips,
        "batch": batch,
        "context": context,
        "weight_dtype": weight_dtype,
        "kv_dtype": kv_dtype,
        "arch": a,
        "hf_config": hf_config(model, a),
    }


# --- accuracy against the validation set ----------------------------------------------------


def accuracy_rows() -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """Validation rows for the accuracy section: (peer scenarios, ours, rows left out + why).

    Rows: metric ``tpot_s``, not a ceiling, batch given. Ours predicts every such row (ideal
    and calibrated engines); the peers get those on ``ACCURACY_HARDWARE`` with no pipeline
    parallelism (the adapters map ``chips`` to tensor parallel), at most ``ACCURACY_MAX_ROWS``.
    Context per sequence: ``input_len + output_len / 2`` (the average over the decode).
    """
    from llm_roofline.validation.validate import load_rows, validate

    rows = [r for r in load_rows() if r.metric == "tpot_s" and not r.ceiling and r.batch]
    ours: dict[str, Any] = {}
    for engine in ("ideal", "calibrated"):
        results, failed = validate(engine, rows)
        ours[engine] = {f"row{x.row.row}": x.predicted for x in results}
        ours[f"{engine}_failed"] = {f"row{r.row}": why for r, why in failed}
    scs, left_out = [], []
    for r in rows:
        if r.hardware not in ACCURACY_HARDWARE:
            left_out.append(f"row {r.row}: {r.hardware}")
            continue
        if (r.pp or 1) > 1 or (r.ep or 1) > 1:
            left_out.append(f"row {r.row}: pp={r.pp} ep={r.ep}")
            continue
        try:
            sc = _scenario(
                f"row{r.row}",
                r.model,
                r.hardware,
                r.chips,
                int(r.batch),
                r.input_len + r.output_len // 2,
                r.weight_dtype,
                r.kv_dtype,
            )
        except Exception as exc:  # a catalog model the scenario builder cannot flatten
            left_out.append(f"row {r.row}: {type(exc).__name__}: {exc}")
            continue
        sc["measured"] = r.measured
        scs.append(sc)
    if len(scs) > ACCURACY_MAX_ROWS:
        left_out += [f"{sc['id']}: over the cap" for sc in scs[ACCURACY_MAX_ROWS:]]
        scs = scs[:ACCURACY_MAX_ROWS]
    return scs, {"rows": {f"row{r.row}": r.measured for r in rows}, **ours}, left_out


def accuracy_stats(pred: dict[str, float], measured: dict[str, float]) -> dict[str, Any]:
    keys = [k for k in pred if k in measured and pred[k] > 0]
    if not keys:
        return {"rows": 0}
    err = np.array([abs(np.log(pred[k] / measured[k])) for k in keys])
    slower = sum(pred[k] > measured[k] for k in keys)
    return {
        "rows": len(keys),
        "median": float(np.median(err)),
        "p90": float(np.percentile(err, 90)),
        "share_slower": slower / len(keys),
    }


# --- feature table --------------------------------------------------------------------------

# feature key -> (row label, where llm_roofline has it)
FEATURES: dict[str, tuple[str, str]] = {
    "decode": ("decode step", "`roofline.decode_step`"),
    "prefill": ("prefill", "`roofline.prefill`"),
    "gqa": ("GQA (fewer KV heads)", "model spec `n_kv_heads`"),
    "mla": ("MLA (latent KV, DeepSeek)", "model spec, `deepseek-v3`"),
    "moe": ("MoE", "model spec experts / top-k"),
    "tp_comm": ("tensor parallel with communication", "`parallel.Parallelism(tp=)`"),
    "ep": ("expert parallel", "`Parallelism(ep=)`"),
    "pp": ("pipeline parallel", "`Parallelism(pp=)`"),
    "continuous_batching": ("continuous batching", "`serving`"),
    "spec_decode": ("speculative decoding", "`serving`"),
    "memory_fit": ("memory fit / max batch", "`memory`"),
    "cost": ("$ per token", "`cost`"),
    "energy": ("energy per token", "`cost`"),
    "config_json": ("HF config.json as input", "`hf_config`"),
    "calibration": ("calibration to measurements", "`calibrate`"),
    "ranges": ("prediction ranges", "calibrated profiles' low/high"),
    "web": ("web page", "`web`"),
}


def probe_job() -> dict[str, Any]:
    """What the adapters' feature probes get: small scenarios and an MLA model's config.json."""
    mla = json.loads((ROOT / "src/llm_roofline/data/models/deepseek-v3.config.json").read_text())
    return {
        "probes": list(FEATURES),
        "dense": _scenario("probe-dense", "llama-3.1-8b", HARDWARE, 1, 8, 1024, "bf16", "bf16"),
        "dense8": _scenario("probe-tp", "llama-3.1-70b", HARDWARE, 8, 8, 1024, "bf16", "bf16"),
        "moe": _scenario("probe-moe", "mixtral-8x7b", HARDWARE, 2, 8, 1024, "bf16", "bf16"),
        "mla_hf_config": mla,
    }


def _run_adapter(peer: str, py: Path, job: dict[str, Any], log: str) -> dict[str, Any]:
    """Run one adapter on one job (JSON on stdin, JSON as its last stdout line)."""
    adapter = HERE / "adapters" / f"{peer}.py"
    try:
        r = subprocess.run(
            # -P: the adapter folder must not shadow a peer package of the same name
            [str(py), "-P", str(adapter)],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            cwd=OUT,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"adapter timed out after {RUN_TIMEOUT_S} s"}
    (OUT / log).write_text(r.stderr)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines:
        tail = r.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return {"error": f"adapter exit {r.returncode}: {tail[0]}"}
    return dict(json.loads(lines[-1]))


def run_probes(peer: str, py: Path) -> dict[str, Any]:
    return _run_adapter(peer, py, probe_job(), f"{peer}.probes.stderr.txt")


def render_features(res: dict[str, Any]) -> list[str]:
    feats = res["features"]
    names = list(feats)
    lines = [
        "",
        "## Features",
        "",
        "Per peer, each cell was decided by a probe, a call to its API that exercises the "
        "feature (`(probe)`: e.g. a model with fewer KV heads must get a smaller KV cache, "
        "`pp_size=2` must be accepted, an MLA model's `config.json` must give a prediction), or, "
        "where marked `(API)`, by reading its API and documentation; notes below the table. "
        "The probes live in each adapter's `PROBES`. For ours the column names the module.",
        "",
        "| feature | llm-roofline (ours) | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    notes: list[str] = []
    for key, (label, where) in FEATURES.items():
        row = [label, f"yes ({where})"]
        for name in names:
            f = feats[name]
            if "features" not in f:
                row.append("—")
                continue
            c = f["features"][key]
            cell = c["status"] + (f" ({c['how']})" if c["how"] else "")
            if c["note"]:
                notes.append(f"{name}, {label}: {c['note']}")
                cell += f" [{len(notes)}]"
            row.append(cell)
        lines.append("| " + " | ".join(_md_cell(x) for x in row) + " |")
    lines.append("")
    for name in names:
        if "features" not in feats[name]:
            lines.append(f"- {name}: probes failed: {_md_cell(feats[name].get('error', '?'))}")
    lines += [f"{i}. {_md_cell(n)}" for i, n in enumerate(notes, 1)]
    return lines


# --- ours -----------------------------------------------------------------------------------


def _median_time(fn: Any, repeats: int) -> float:
    fn()  # warm caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run_ours(scs: list[dict[str, Any]]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for sc in scs:
        m, c, b, s = sc["model"], sc["chips"], sc["batch"], sc["context"]
        ideal = float(lr.decode_step(m, HARDWARE, chips=c, batch=b, context_len=s).t_step)
        par = Parallelism(chips=c, tp=c)
        tp = lr.decode_step(m, HARDWARE, chips=c, batch=b, context_len=s, parallel=par)
        per_call = _median_time(
            lambda m=m, c=c, b=b, s=s: lr.decode_step(m, HARDWARE, chips=c, batch=b, context_len=s),
            OUR_REPEATS,
        )
        results[sc["id"]] = {
            "t_token_s": ideal,
            "t_token_tp_comm_s": float(tp.t_step),
            "t_comm_s": float(tp.t_comm),
            "median_s": per_call,
        }
    sweeps: dict[str, Any] = {}
    for m, c in dict.fromkeys((sc["model"], sc["chips"]) for sc in scs):
        t = _median_time(
            lambda m=m, c=c: lr.decode_step(
                m, HARDWARE, chips=c, batch=SWEEP_BATCH, context_len=CONTEXT
            ).t_step.sum(),
            SWEEP_REPEATS,
        )
        sweeps[f"{m}/{c}x{HARDWARE}"] = {
            "points": int(SWEEP_BATCH.size),
            "median_s": t,
            "median_s_per_point": t / SWEEP_BATCH.size,
        }
    return {"version": _our_version(), "results": results, "sweeps": sweeps}


def _our_version() -> str:
    from importlib import metadata

    return metadata.version("llm-roofline")


# --- peers ----------------------------------------------------------------------------------


def ensure_venv(peer: str, requirement: str) -> tuple[Path | None, str | None]:
    """Create or reuse ``.venvs/<peer>`` with ``requirement`` installed; (python, error)."""
    venv = VENVS / VENV_OF.get(peer, peer)
    py = venv / "bin" / "python"
    if py.exists():
        name, _, version = requirement.partition("==")
        got = subprocess.run(
            [str(py), "-c", f"import importlib.metadata as m; print(m.version({name!r}))"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        if got == version:
            return py, None
    if shutil.which(PEER_PYTHON) is None:
        return None, f"{PEER_PYTHON} not found on PATH"
    steps = [
        [PEER_PYTHON, "-m", "venv", str(venv)],
        [str(py), "-m", "pip", "install", "--quiet", requirement],
    ]
    for cmd in steps:
        print(f"  $ {' '.join(cmd)}", flush=True)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, f"`{' '.join(cmd)}` timed out after {INSTALL_TIMEOUT_S} s"
        if r.returncode != 0:
            tail = [ln for ln in r.stderr.strip().splitlines() if "is ignored" not in ln]
            return None, f"`{' '.join(cmd)}` failed: {' | '.join(tail[-3:])}"
    return py, None


def run_peer(
    peer: str, py: Path, scs: list[dict[str, Any]], repeats: int = PEER_REPEATS
) -> dict[str, Any]:
    job = {"scenarios": scs, "repeats": repeats, "budget_s": 5.0}
    return _run_adapter(peer, py, job, f"{peer}.stderr.txt")


# --- report ---------------------------------------------------------------------------------


def _ms(x: float) -> str:
    return f"{x * 1e3:.2f}"


def _dur(x: float) -> str:
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.2f} ms"
    if x >= 1e-6:
        return f"{x * 1e6:.1f} µs"
    return f"{x * 1e9:.0f} ns"


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render(res: dict[str, Any]) -> str:
    ours, peers, scs = res["ours"], res["peers"], res["scenarios"]
    ids = [sc["id"] for sc in scs]
    sc_chips = {sc["id"]: sc["chips"] for sc in scs}
    lines = [
        "# Comparison with other LLM-performance tools",
        "",
        f"Generated by `make bench-peers` (`benchmarks/peers/run.py`) on {res['date']} "
        f"({res['machine']}). Do not edit by hand; rerun instead.",
        "",
        "Each peer is called through its own public Python API by a small adapter "
        "(`benchmarks/peers/adapters/`), in its own virtual environment; nothing of theirs is "
        "copied here. Scenario: one decode step (time per output token) on NVIDIA H100 SXM, "
        f"bf16 weights and KV cache, {CONTEXT} tokens of context per sequence. Multi-chip "
        "scenarios are tensor parallel over 8 chips where the peer can express that.",
        "",
        "## Versions",
        "",
        "| tool | version | status |",
        "|---|---|---|",
        f"| llm-roofline (ours) | {ours['version']} | ok |",
    ]
    for name, p in peers.items():
        status = "ok" if "results" in p else f"**failed**: {_md_cell(p['error'])}"
        lines.append(f"| {name} | {p.get('version', '—')} | {status} |")

    lines += [
        "",
        "## Predicted time per output token (ms)",
        "",
        "`ours` splits the model evenly over the chips with no communication (the bound any "
        "split must respect, `decode_step` without `parallel`); `ours TP` adds tensor-parallel "
        "communication (`parallel=Parallelism(chips, tp=chips)`), with its communication time in "
        'brackets; under the default `overlap="full"` it hides under the weight read in '
        "these scenarios, so the two columns agree. Single-chip rows are equal by definition.",
        "",
        "| scenario | ours | ours TP | " + " | ".join(peers) + " |",
        "|---|---:|---:|" + "---:|" * len(peers),
    ]
    notes: list[str] = []
    for sid in ids:
        o = ours["results"][sid]
        tp_cell = _ms(o["t_token_tp_comm_s"])
        if sc_chips[sid] > 1:
            tp_cell += f" ({_ms(o['t_comm_s'])})"
        row = [f"`{sid}`", _ms(o["t_token_s"]), tp_cell]
        for name, p in peers.items():
            r = p.get("results", {}).get(sid)
            if r is None:
                row.append("failed")
            elif "t_token_s" in r:
                cell = _ms(r["t_token_s"])
                if "infeasible" in r.get("note", ""):
                    notes.append(f"{name}, `{sid}`: {r['note']}")
                    cell += f" [^{len(notes)}]"
                row.append(cell)
            elif "unsupported" in r:
                notes.append(f"{name}, `{sid}`: not expressible — {r['unsupported']}")
                row.append(f"n/a [^{len(notes)}]")
            else:
                notes.append(f"{name}, `{sid}`: error — `{r['error']}`")
                row.append(f"error [^{len(notes)}]")
        lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    lines.append("")
    lines += [f"[^{i}]: {_md_cell(n)}" for i, n in enumerate(notes, 1)]

    lines += [
        "",
        "## Time per prediction",
        "",
        "Median wall time of one prediction (after one warm-up call), and in brackets its ratio "
        "to ours called one scenario at a time (×N = peer time / our time). `first call` is the "
        "warm-up itself (the first scenario's includes importing the peer and loading its data "
        "files). Same machine, one process at a time. Ours vectorised: one `decode_step` call "
        "over batch "
        f"1..{int(SWEEP_BATCH[-1])} (numpy array), divided by the number of points.",
        "",
        "| scenario | ours, one call | " + " | ".join(peers) + " |",
        "|---|---:|" + "---:|" * len(peers),
    ]
    for sid in ids:
        base = ours["results"][sid]["median_s"]
        row = [f"`{sid}`", _dur(base)]
        for p in peers.values():
            r = p.get("results", {}).get(sid, {})
            if "median_s" in r:
                ratio = r["median_s"] / base
                first = _dur(r["first_call_s"])
                row.append(
                    f"{_dur(r['median_s'])} (×{ratio:,.{2 if ratio < 10 else 0}f}; first {first})"
                )
            else:
                row.append("—")
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        "| ours, vectorised sweep | points | per call | per point |",
        "|---|---:|---:|---:|",
    ]
    for key, sw in ours["sweeps"].items():
        lines.append(
            f"| `{key}` | {sw['points']} | {_dur(sw['median_s'])} | "
            f"{_dur(sw['median_s_per_point'])} |"
        )

    lines += render_accuracy(res)
    lines += render_features(res)
    lines += [
        "",
        "## How each peer is asked",
        "",
    ]
    for name in peers:
        doc = (HERE / "adapters" / f"{name}.py").read_text().split('"""')[1].strip()
        lines.append(f"- **{name}**: {' '.join(doc.split())}")
    lines += [
        "",
        "## Not covered yet",
        "",
        "- Accuracy covers decode time per output token only (no prefill, throughput or "
        "latency rows), A100 80GB and H100 SXM only for the peers, 16-bit weights and KV only.",
        "- The feature table does not cover quantisation or hardware coverage.",
        "- The per-scenario and timing tables use one hardware type and one context length.",
        "",
    ]
    return "\n".join(lines)


def render_accuracy(res: dict[str, Any]) -> list[str]:
    acc = res["accuracy"]
    ours, measured = acc["ours"], acc["ours"]["rows"]
    sent = [sc["id"] for sc in acc["scenarios"]]
    lines = [
        "",
        "## Accuracy against the validation set",
        "",
        "Rows of `src/llm_roofline/data/validation.csv` with metric `tpot_s` (measured time per "
        "output token), not marked as a ceiling, batch size given: "
        f"{len(measured)} rows. Each tool predicts the decode step at the row's model, "
        "hardware, batch and chips (tensor parallel), context per sequence "
        "`input_len + output_len / 2`. Error is |ln(predicted / measured)| (0.1 ≈ 10 %); "
        "`slower` is the share of rows where the prediction is slower than the measurement, "
        "i.e. where it fails as a lower bound. Ours is scored on all rows and, for a like-for-"
        "like view, on the rows sent to the peers.",
        "",
        f"Rows sent to the peers: {len(sent)} (hardware {', '.join(ACCURACY_HARDWARE)}, no "
        f"pipeline or expert parallelism; cap {ACCURACY_MAX_ROWS} rows per peer, lowest row "
        f"numbers first). Left out: {len(acc['left_out'])}"
        + (f" ({'; '.join(acc['left_out'])})." if acc["left_out"] else "."),
        "",
        "Each peer predicts a different subset, so the last column scores ours (calibrated) "
        "on exactly the rows that peer predicted. Our calibrated profile was fitted on the "
        "validation set, these rows included, so its column is in-sample and not a fair race "
        "(held-out figures: docs/validation.md); our ideal engine and the peers were not "
        "fitted to these rows.",
        "",
        "| tool | rows predicted | median err | p90 err | slower than measured "
        "| ours calibrated, same rows: median / p90 |",
        "|---|---:|---:|---:|---:|---:|",
    ]

    def row(name: str, pred: dict[str, float]) -> str:
        st = accuracy_stats(pred, measured)
        if not st["rows"]:
            return f"| {name} | 0 | — | — | — | — |"
        same = accuracy_stats(
            {k: ours["calibrated"][k] for k in pred if k in ours["calibrated"]}, measured
        )
        same_cell = f"{same['median']:.3f} / {same['p90']:.3f}" if same["rows"] else "—"
        return (
            f"| {name} | {st['rows']} | {st['median']:.3f} | {st['p90']:.3f} | "
            f"{st['share_slower']:.0%} | {same_cell} |"
        )

    for engine in ("ideal", "calibrated"):
        pred = ours[engine]
        lines.append(row(f"ours, {engine} (all rows)", pred))
        lines.append(row(f"ours, {engine} (peer rows)", {k: pred[k] for k in sent if k in pred}))
    notes: list[str] = []
    for name, p in acc["peers"].items():
        if "results" not in p:
            lines.append(f"| {name} | failed: {_md_cell(p.get('error', '?'))} | — | — | — | — |")
            continue
        pred = {k: r["t_token_s"] for k, r in p["results"].items() if "t_token_s" in r}
        lines.append(row(name, pred))
        why: dict[str, list[str]] = {}
        for k, r in p["results"].items():
            if "t_token_s" not in r:
                reason = r.get("unsupported") or f"error: {r.get('error')}"
                why.setdefault(reason, []).append(k.removeprefix("row"))
        for reason, ks in why.items():
            notes.append(f"{name}: {len(ks)} rows not predicted ({', '.join(ks)}) — {reason}")
    lines.append("")
    if notes:
        lines += ["Rows a peer did not predict:", ""] + [f"- {_md_cell(n)}" for n in notes]
    return lines


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    scs = scenarios()
    print("ours: llm_roofline.decode_step", flush=True)
    ours = run_ours(scs)
    print("ours: validation rows (ideal, calibrated)", flush=True)
    acc_scs, acc_ours, acc_left_out = accuracy_rows()
    accuracy: dict[str, Any] = {
        "ours": acc_ours,
        "left_out": acc_left_out,
        "scenarios": [
            {k: v for k, v in sc.items() if k not in ("hf_config", "arch")} for sc in acc_scs
        ],
        "peers": {},
    }
    peers: dict[str, Any] = {}
    features: dict[str, Any] = {}
    for peer, requirement in PEERS.items():
        print(f"{peer}: {requirement}", flush=True)
        t0 = time.perf_counter()
        py, err = ensure_venv(peer, requirement)
        if py is None:
            peers[peer] = {"error": err}
            accuracy["peers"][peer] = {"error": err}
            features[peer] = {"error": err}
            print(f"  install failed: {err}", flush=True)
            continue
        peers[peer] = run_peer(peer, py, scs)
        print(f"  done in {time.perf_counter() - t0:.1f} s", flush=True)
        t0 = time.perf_counter()
        acc = run_peer(peer, py, acc_scs, repeats=0)
        accuracy["peers"][peer] = acc
        features[peer] = run_probes(peer, py)
        print(f"  accuracy: {len(acc_scs)} rows in {time.perf_counter() - t0:.1f} s", flush=True)
    res = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {platform.processor() or platform.system()}, "
        f"Python {platform.python_version()} (ours)",
        "scenarios": [{k: v for k, v in sc.items() if k != "hf_config"} for sc in scs],
        "ours": ours,
        "peers": peers,
        "accuracy": accuracy,
        "features": features,
    }
    (OUT / "results.json").write_text(json.dumps(res, indent=2) + "\n")
    DOC.write_text(render(res))
    print(f"wrote {OUT / 'results.json'} and {DOC}")


if __name__ == "__main__":
    sys.exit(main())
