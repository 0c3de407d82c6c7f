"""The error contract on the command line, as a user meets it: each bad input below must end
with exit code 2 and one line on stderr that says what was wrong (the expected words are given
with each case), with no traceback. The cases are the kinds issue #9 lists: unknown ids,
misspelt flags, bad numbers, broken config.json files, impossible splits, contexts past the
model's maximum, broken scenario CSVs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "llm_roofline.cli"]
LLAMA = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm"]
GOOD_CFG = {
    "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
    "vocab_size": 128256, "max_position_embeddings": 131072,
}  # fmt: skip
HEADER = "model,hardware,chips,weight_dtype,batch,input_len,output_len,mode"

# (name, args, files to write {name: text}, words the one line must contain)
CASES: list[tuple[str, list[str], dict[str, str], list[str]]] = [
    # unknown ids, with the closest valid ones
    ("unknown model", ["report", "--model", "llama-3.1-8", "--hardware", "h100-sxm"], {},
     ["llama-3.1-8", "llama-3.1-8b"]),
    ("unknown hardware", ["report", "--model", "llama-3.1-8b", "--hardware", "h100"], {},
     ["h100", "h100-sxm"]),
    ("unknown weight dtype", ["report", *LLAMA, "--weight-dtype", "fp9"], {}, ["fp9"]),
    ("unknown kv dtype", ["report", *LLAMA, "--kv-dtype", "bf17"], {}, ["bf17"]),
    ("unknown engine", ["predict", *LLAMA, "--batch", "1", "--input-len", "8",
                        "--output-len", "8", "--engine", "calibratd"], {}, ["calibratd"]),
    ("unknown verb", ["reprot"], {}, ["reprot"]),
    # misspelt or missing flags
    ("misspelt flag", ["report", *LLAMA, "--bacth", "8"], {}, ["--bacth"]),
    ("missing --hardware", ["report", "--model", "llama-3.1-8b"], {}, ["--hardware"]),
    ("bad overlap", ["report", *LLAMA, "--overlap", "some"], {}, ["overlap", "some"]),
    ("bad mode", ["predict", *LLAMA, "--batch", "1", "--input-len", "8", "--output-len", "8",
                  "--mode", "turbo"], {}, ["turbo"]),
    # numbers: negative, zero, NaN, inf, huge, not a number
    ("zero chips", ["report", *LLAMA, "--chips", "0"], {}, ["chips", "0"]),
    ("negative batch", ["report", *LLAMA, "--batch", "-4"], {}, ["-4"]),
    ("nan context", ["report", *LLAMA, "--context", "nan"], {}, ["nan"]),
    ("text chips", ["report", *LLAMA, "--chips", "eight"], {}, ["eight"]),
    ("float batch", ["report", *LLAMA, "--batch", "2.5"], {}, ["2.5"]),
    ("huge context", ["report", *LLAMA, "--context", "1" + "0" * 15], {}, ["context"]),
    ("huge batch", ["report", *LLAMA, "--batch", "1" + "0" * 15], {}, ["batch"]),
    ("zero price", ["report", *LLAMA, "--price", "0"], {}, ["0"]),
    ("inf price", ["report", *LLAMA, "--price", "inf"], {}, ["inf"]),
    ("bad batch list", ["sweep", *LLAMA, "--batch", "1,x", "--context", "128"], {}, ["1,x"]),
    ("empty batch range", ["sweep", *LLAMA, "--batch", "64..8", "--context", "128"], {},
     ["64..8"]),
    ("nan input price", ["pricing", "--input-price", "nan", "--output-price", "1"], {}, ["nan"]),
    ("negative hold", ["cache-tiers", *LLAMA, "--context", "10", "--hold", "-5"], {}, ["-5"]),
    ("zero days", ["balance", "--tokens-per-s", "1e6", "--days", "0", "--active-params", "1e9"],
     {}, ["0"]),
    ("price step without params", ["pricing", "--input-price", "1", "--output-price", "5",
                                   "--long-context-threshold", "1e5"], {}, ["active-params"]),
    # config.json files
    ("config not JSON", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": "hidden_size = 4096"}, ["not valid JSON"]),
    ("config truncated", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps(GOOD_CFG)[:60]}, ["not valid JSON"]),
    ("config a list", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": "[1, 2]"}, ["JSON object"]),
    ("config missing layers", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({k: v for k, v in GOOD_CFG.items()
                              if k != "num_hidden_layers"})}, ["layers"]),
    ("config missing hidden", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({k: v for k, v in GOOD_CFG.items() if k != "hidden_size"})},
     ["hidden_size"]),
    ("config zero heads", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({**GOOD_CFG, "num_attention_heads": 0})},
     ["num_attention_heads"]),
    ("config kv heads > heads", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({**GOOD_CFG, "num_key_value_heads": 64})}, ["heads"]),
    ("config heads not divisible", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({**GOOD_CFG, "num_key_value_heads": 5})}, ["heads"]),
    ("config string number", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({**GOOD_CFG, "hidden_size": "4096"})}, ["hidden_size"]),
    ("config negative vocab", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({**GOOD_CFG, "vocab_size": -1})}, ["vocab"]),
    ("config unknown type", ["report", "--model", "{cfg}", "--hardware", "h100-sxm"],
     {"cfg.json": json.dumps({**GOOD_CFG, "model_type": "llamma"})}, ["llamma"]),
    ("config file missing", ["report", "--model", "{dir}/nope.json", "--hardware", "h100-sxm"],
     {}, ["nope.json"]),
    # impossible parallelism and fits
    ("tp does not divide", ["report", *LLAMA, "--chips", "6", "--tp", "6"], {}, ["tp"]),
    ("split over chips", ["report", *LLAMA, "--chips", "8", "--tp", "4", "--pp", "4"], {},
     ["chips"]),
    ("ep on a dense model", ["report", *LLAMA, "--chips", "8", "--ep", "8"], {}, ["ep"]),
    ("optimize cannot fit", ["optimize", "--model", "llama-3.1-405b", "--hardware", "rtx-4090",
                             "--max-chips", "2"], {}, ["fits on no split"]),
    ("predict unknown hardware", ["predict", "--model", "llama-3.1-8b", "--hardware", "h10",
                                  "--batch", "1", "--input-len", "8", "--output-len", "8"], {},
     ["h10"]),
    # scenario CSVs
    ("csv missing column", ["predict", "--scenarios", "{csv}", "--out", "{dir}/o.csv"],
     {"s.csv": "model,hardware,chips\nllama-3.1-8b,h100-sxm,1\n"}, ["missing column"]),
    ("csv semicolons", ["predict", "--scenarios", "{csv}", "--out", "{dir}/o.csv"],
     {"s.csv": HEADER.replace(",", ";") + "\n"}, ["comma-separated"]),
    ("csv duplicate column", ["predict", "--scenarios", "{csv}", "--out", "{dir}/o.csv"],
     {"s.csv": HEADER + ",batch\n"}, ["named twice"]),
    ("csv unknown column", ["predict", "--scenarios", "{csv}", "--out", "{dir}/o.csv"],
     {"s.csv": HEADER + ",colour\n"}, ["colour"]),
    ("csv empty", ["predict", "--scenarios", "{csv}", "--out", "{dir}/o.csv"],
     {"s.csv": ""}, ["empty"]),
    ("csv missing file", ["predict", "--scenarios", "{dir}/none.csv", "--out", "{dir}/o.csv"],
     {}, ["none.csv"]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "files", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, name: str, args: list[str], files: dict[str, str], words: list[str]
) -> None:
    for fname, text in files.items():
        (tmp_path / fname).write_text(text)
    subs = {"{cfg}": str(tmp_path / "cfg.json"), "{csv}": str(tmp_path / "s.csv")}
    argv = [subs.get(a, a).replace("{dir}", str(tmp_path)) for a in args]
    r = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=60)
    err = r.stderr.strip()
    assert r.returncode == 2, (name, r.returncode, r.stdout[-300:], err)
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("usage:")]
    assert len(lines) == 1, err  # argparse adds its usage lines above; ours is one line
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40


def test_context_past_the_trained_maximum_is_flagged() -> None:
    # Llama 3.1 8B: max_position_embeddings 131,072; 200,000 + 8 tokens is past it. A number
    # is still given (the arithmetic holds), with a warning that names the maximum.
    r = subprocess.run(
        [*CLI, "predict", *LLAMA, "--batch", "1", "--input-len", "200000", "--output-len", "8"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "warning" in r.stderr and "131,072" in r.stderr
