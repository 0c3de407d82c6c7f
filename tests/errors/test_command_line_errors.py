"""The error contract on the command line, as a user meets it: each bad input below must end
with exit code 2 and exactly one line on stderr, `llm-roofline: error: ...`, that says what
was wrong, and nothing on stdout. The cases are the kinds issue #9 lists: unknown ids, misspelt
flags, bad numbers, broken config.json files, impossible splits, contexts past the model's
maximum, broken scenario CSVs; every flag of a deployment and every verb's own numbers.

Each case gives the words its line must hold, which name the check the case is about. argparse
answers any flag a verb does not have with "unrecognized arguments" (and a word it does not
know with "invalid choice"), so a case whose flag went missing would still end in exit 2: the
runner refuses those generic answers unless the case expects them. The commands run in this
process (`run_cli`); tests/cli/test_commands.py runs the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import run_cli

LLAMA = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm"]
QWEN = ["--model", "qwen3-8b", "--hardware", "l40s"]
ONE = ["--batch", "1", "--input-len", "8", "--output-len", "8"]  # one predict scenario
GOOD_CFG = {
    "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
    "vocab_size": 128256, "max_position_embeddings": 131072,
}  # fmt: skip
HEADER = "model,hardware,chips,weight_dtype,batch,input_len,output_len,mode"
CFG = ["--model", "{cfg}", "--hardware", "h100-sxm"]
CSV = ["predict", "--scenarios", "{csv}", "--out", "{dir}/o.csv"]

# argparse's answers that do not depend on the flag's own check
GENERIC = ("unrecognized arguments", "invalid choice", "the following arguments are required")

# (name, args, files to write {name: text}, words the one line must contain)
CASES: list[tuple[str, list[str], dict[str, str], list[str]]] = [
    # unknown ids, with the closest valid ones
    ("unknown model", ["report", "--model", "llama-3.1-8", "--hardware", "h100-sxm"], {},
     ["unknown model 'llama-3.1-8'; closest: llama-3.1-8b"]),
    ("unknown model, nothing close", ["report", "--model", "nope", "--hardware", "l40s"], {},
     ["unknown model 'nope' (see the catalog"]),
    ("unknown hardware", ["report", "--model", "llama-3.1-8b", "--hardware", "h100"], {},
     ["unknown hardware 'h100'; closest: h100-pcie, h100-sxm"]),
    ("unknown hardware, nothing close", ["report", *QWEN[:2], "--hardware", "nope"], {},
     ["unknown hardware 'nope' (see the catalog"]),
    ("predict unknown hardware", ["predict", "--model", "llama-3.1-8b", "--hardware", "h10",
                                  *ONE], {}, ["hardware: unknown hardware 'h10'"]),
    ("cache-tiers unknown model", ["cache-tiers", "--model", "llama-9", "--hardware",
                                   "h100-sxm", "--context", "10"], {},
     ["unknown model 'llama-9'; closest:"]),
    ("unknown weight dtype", ["report", *LLAMA, "--weight-dtype", "fp9"], {},
     ["unknown data type 'fp9'; closest: fp8"]),
    ("unknown kv dtype", ["report", *LLAMA, "--kv-dtype", "bf17"], {},
     ["unknown data type 'bf17'; closest: bf16"]),
    ("unknown engine", ["predict", *LLAMA, *ONE, "--engine", "calibratd"], {},
     ["engine: must be one of calibrated, ", "got 'calibratd'"]),
    ("validate unknown engine", ["validate", "--engine", "calibratd"], {},
     ["unknown engine profile 'calibratd'; closest: calibrated"]),
    ("unknown verb", ["reprot"], {}, ["argument command: invalid choice: 'reprot'"]),
    # misspelt, missing and foreign flags: here argparse's own answer is the check
    ("misspelt flag", ["report", *LLAMA, "--bacth", "8"], {},
     ["unrecognized arguments: --bacth 8"]),
    # no abbreviations: optimize searches the split itself, and --tp is not read as --tpot-ms
    ("optimize takes no --tp", ["optimize", *LLAMA, "--max-chips", "4", "--tp", "3"], {},
     ["unrecognized arguments: --tp 3"]),
    ("missing --hardware", ["report", "--model", "llama-3.1-8b"], {},
     ["the following arguments are required: --hardware"]),
    ("predict without a scenario", ["predict", *QWEN], {},
     ["one scenario needs --batch, --input-len (or --scenarios IN.csv)"]),
    ("bad overlap", ["report", *LLAMA, "--overlap", "some"], {},
     ["argument --overlap: invalid choice: 'some'"]),
    ("bad mode", ["predict", *LLAMA, *ONE, "--mode", "turbo"], {},
     ["argument --mode: invalid choice: 'turbo'"]),
    # numbers: zero, negative, NaN, inf, huge, fractional, not a number; one case per check
    ("zero chips", ["report", *LLAMA, "--chips", "0"], {},
     ["argument --chips: expected a positive integer, got '0'"]),
    ("negative chips", ["report", *QWEN, "--chips", "-1"], {},
     ["argument --chips: expected a positive integer, got '-1'"]),
    ("text chips", ["report", *LLAMA, "--chips", "eight"], {},
     ["argument --chips: expected a positive integer, got 'eight'"]),
    ("zero context", ["report", *QWEN, "--context", "0"], {},
     ["argument --context: expected a positive integer, got '0'"]),
    ("negative context", ["report", *LLAMA, "--context", "-5"], {},
     ["argument --context: expected a positive integer, got '-5'"]),
    ("nan context", ["report", *LLAMA, "--context", "nan"], {},
     ["argument --context: expected a positive integer, got 'nan'"]),
    ("text context", ["report", *QWEN, "--context", "x"], {},
     ["argument --context: expected a positive integer, got 'x'"]),
    ("huge context", ["report", *LLAMA, "--context", "1" + "0" * 15], {},
     ["context_len must be at most 1e+12, got 1e+15"]),
    # the batch of one scenario (report and sweep choose or list their own batches)
    ("zero batch", ["predict", *QWEN, *ONE[2:], "--batch", "0"], {},
     ["argument --batch: expected a positive integer, got '0'"]),
    ("negative batch", ["predict", *LLAMA, *ONE[2:], "--batch", "-4"], {},
     ["argument --batch: expected a positive integer, got '-4'"]),
    ("float batch", ["predict", *LLAMA, *ONE[2:], "--batch", "2.5"], {},
     ["argument --batch: expected a positive integer, got '2.5'"]),
    ("huge batch", ["predict", *LLAMA, *ONE[2:], "--batch", "1" + "0" * 15], {},
     ["batch: must be at most 1e+12, got '1000000000000000'"]),
    ("negative input length", ["predict", *QWEN, "--batch", "1", "--output-len", "8",
                               "--input-len", "-3"], {},
     ["argument --input-len: expected a positive integer, got '-3'"]),
    ("fractional output length", ["predict", *QWEN, "--batch", "1", "--input-len", "8",
                                  "--output-len", "1.5"], {},
     ["argument --output-len: expected 0 or a positive integer, got '1.5'"]),
    ("zero tp", ["predict", *QWEN, *ONE, "--tp", "0"], {},
     ["argument --tp: expected a positive integer, got '0'"]),
    ("text pp", ["predict", *QWEN, *ONE, "--pp", "x"], {},
     ["argument --pp: expected a positive integer, got 'x'"]),
    ("negative ep", ["predict", *QWEN, *ONE, "--ep", "-2"], {},
     ["argument --ep: expected a positive integer, got '-2'"]),
    ("negative price", ["report", *LLAMA, "--price", "-1"], {},
     ["argument --price: expected a positive number, got '-1' (or 0: hardware you own)"]),
    ("inf price", ["report", *LLAMA, "--price", "inf"], {},
     ["argument --price: expected a positive number, got 'inf'"]),
    ("text price", ["report", *QWEN, "--price", "free"], {},
     ["argument --price: expected a positive number, got 'free'"]),
    ("bad batch list", ["sweep", *LLAMA, "--batch", "1,x", "--context", "128"], {},
     ["argument --batch: expected positive integers like 1,8,64 or 1..4096, got '1,x'"]),
    ("empty batch range", ["sweep", *LLAMA, "--batch", "64..8", "--context", "128"], {},
     ["argument --batch: expected positive integers like 1,8,64 or 1..4096, got '64..8'"]),
    ("zero in a chips list", ["sweep", *QWEN, "--chips", "0,1"], {},
     ["argument --chips: expected positive integers, got '0,1'"]),
    ("text context range", ["sweep", *QWEN, "--context", "a..b"], {},
     ["argument --context: expected positive integers like 1,8,64 or 1..4096, got 'a..b'"]),
    ("negative tpot target", ["optimize", "--model", "mixtral-8x7b", "--hardware", "h100-sxm",
                              "--max-chips", "8", "--tpot-ms", "-1"], {},
     ["argument --tpot-ms: expected a positive number, got '-1'"]),
    ("zero input price", ["pricing", "--input-price", "0", "--output-price", "1"], {},
     ["argument --input-price: expected a positive number, got '0'"]),
    ("nan input price", ["pricing", "--input-price", "nan", "--output-price", "1"], {},
     ["argument --input-price: expected a positive number, got 'nan'"]),
    ("negative hold", ["cache-tiers", *LLAMA, "--context", "10", "--hold", "-5"], {},
     ["argument --hold: expected a positive number, got '-5'"]),
    ("zero days", ["balance", "--tokens-per-s", "1e6", "--days", "0", "--active-params", "1e9"],
     {}, ["argument --days: expected a positive number, got '0'"]),
    ("nan tokens per second", ["balance", "--tokens-per-s", "nan", "--days", "1",
                               "--active-params", "1e9"], {},
     ["argument --tokens-per-s: expected a positive number, got 'nan'"]),
    ("price step without params", ["pricing", "--input-price", "1", "--output-price", "5",
                                   "--long-context-threshold", "1e5"], {},
     ["a price step needs --active-params (the model's active parameters) or --model"]),
    # config.json files
    ("config not JSON", ["report", *CFG], {"cfg.json": "hidden_size = 4096"},
     ["cfg.json: not valid JSON (line 1, column 1"]),
    ("config truncated", ["report", *CFG], {"cfg.json": json.dumps(GOOD_CFG)[:60]},
     ["cfg.json: not valid JSON"]),
    ("config a list", ["report", *CFG], {"cfg.json": "[1, 2]"},
     ["cfg.json: a config.json must hold a JSON object"]),
    ("config missing layers", ["report", *CFG],
     {"cfg.json": json.dumps({k: v for k, v in GOOD_CFG.items() if k != "num_hidden_layers"})},
     ["missing field 'num_hidden_layers' (number of layers"]),
    ("config missing hidden", ["report", *CFG],
     {"cfg.json": json.dumps({k: v for k, v in GOOD_CFG.items() if k != "hidden_size"})},
     ["missing field 'hidden_size'"]),
    ("config zero heads", ["report", *CFG],
     {"cfg.json": json.dumps({**GOOD_CFG, "num_attention_heads": 0})},
     ["field 'num_attention_heads' must be a positive integer, got 0"]),
    ("config kv heads > heads", ["report", *CFG],
     {"cfg.json": json.dumps({**GOOD_CFG, "num_key_value_heads": 64})},
     ["num_attention_heads (32) is not a multiple of num_key_value_heads (64)"]),
    ("config heads not divisible", ["report", *CFG],
     {"cfg.json": json.dumps({**GOOD_CFG, "num_key_value_heads": 5})},
     ["num_attention_heads (32) is not a multiple of num_key_value_heads (5)"]),
    ("config string number", ["report", *CFG],
     {"cfg.json": json.dumps({**GOOD_CFG, "hidden_size": "4096"})},
     ["field 'hidden_size' must be a positive integer, got '4096'"]),
    ("config negative vocab", ["report", *CFG],
     {"cfg.json": json.dumps({**GOOD_CFG, "vocab_size": -1})},
     ["field 'vocab_size' must be a positive integer, got -1"]),
    # a model_type the table does not know is read by the standard field names (with a
    # warning); one lacking what the roofline needs is refused, naming the field
    ("config unknown type lacking a field", ["report", *CFG],
     {"cfg.json": json.dumps({**{k: v for k, v in GOOD_CFG.items() if k != "num_hidden_layers"},
                              "model_type": "llamma"})},
     ["missing field 'num_hidden_layers'"]),
    ("config file missing", ["report", "--model", "{dir}/nope.json", "--hardware", "h100-sxm"],
     {}, ["nope.json: no such file"]),
    # impossible parallelism and fits
    ("tp does not divide", ["report", *LLAMA, "--chips", "6", "--tp", "6"], {},
     ["tp = 6 does not divide the 32 query heads of Llama 3.1 8B"]),
    ("split over chips", ["report", *LLAMA, "--chips", "8", "--tp", "4", "--pp", "4"], {},
     ["tp × pp = 4 × 4 does not divide chips = 8"]),
    ("ep on a dense model", ["report", *LLAMA, "--chips", "8", "--ep", "8"], {},
     ["ep = 8 but Llama 3.1 8B has no experts"]),
    ("optimize cannot fit", ["optimize", "--model", "llama-3.1-405b", "--hardware", "rtx-4090",
                             "--max-chips", "2"], {},
     ["Llama 3.1 405B fits on no split of up to 2 × rtx-4090"]),
    # scenario CSVs
    ("csv missing column", CSV, {"s.csv": "model,hardware,chips\nllama-3.1-8b,h100-sxm,1\n"},
     ["missing column(s) weight_dtype, batch, input_len, mode"]),
    ("csv semicolons", CSV, {"s.csv": HEADER.replace(",", ";") + "\n"},
     ["(is the file comma-separated?)"]),
    ("csv duplicate column", CSV, {"s.csv": HEADER + ",batch\n"},
     ["column(s) named twice: batch"]),
    ("csv unknown column", CSV, {"s.csv": HEADER + ",colour\n"},
     ["unknown column(s) colour; allowed:"]),
    ("csv empty", CSV, {"s.csv": ""}, ["s.csv is empty: expected a header line"]),
    ("csv missing file", ["predict", "--scenarios", "{dir}/none.csv", "--out", "{dir}/o.csv"],
     {}, ["no such file:", "none.csv"]),
]  # fmt: skip


# a newcomer's walkthrough: each error also says where to look next (the command that lists
# the ids, the catalog's own id for a Hugging Face repo, the flag that gives a price)
PLAN = [
    "plan",
    "--model",
    "llama-3.1-8b",
    "--rate",
    "1",
    "--input-len",
    "8",
    "--output-len",
    "8",
    "--ttft-p90-ms",
    "100",
    "--tpot-p99-ms",
    "50",
]
CASES += [
    ("hardware 'all' names its listing", ["report", *LLAMA[:2], "--hardware", "all"], {},
     ["unknown hardware 'all'", "`llm-roofline hardware` lists them"]),
    ("unknown model names its listing", ["report", "--model", "nope", "--hardware", "h100-sxm"],
     {}, ["unknown model 'nope'", "`llm-roofline models` lists them"]),
    ("hf repo id of a catalog model", ["report", "--model", "meta-llama/Llama-3.1-8B",
                                        "--hardware", "h100-sxm"], {},
     ["the catalog has it as llama-3.1-8b (--model llama-3.1-8b)",
      "huggingface-cli download meta-llama/Llama-3.1-8B config.json"]),
    ("hf repo id, case aside", ["report", "--model", "Qwen/QWEN3-8B", "--hardware", "l40s"], {},
     ["the catalog has it as qwen3-8b"]),
    ("optimize price 0 names --price", ["optimize", *LLAMA, "--max-chips", "2", "--price", "0"],
     {}, ["hardware you own", "give --price USD per chip-hour"]),
    ("optimize unpriced chip names --price", ["optimize", "--model", "llama-3.1-8b",
                                              "--hardware", "tpu-v7", "--max-chips", "2"], {},
     ["tpu-v7 has no price (none in the catalog)", "give --price USD per chip-hour"]),
    ("plan one price, two chips", [*PLAN, "--hardware", "h100-sxm,a100-80gb", "--price", "2"],
     {}, ["--price 2: one number prices one chip", "ID=USD,ID=USD"]),
    ("plan price of a chip not searched", [*PLAN, "--hardware", "h100-sxm", "--price",
                                           "mi300x=2"], {},
     ["a price for 'mi300x', which is not among the hardware to plan on (h100-sxm)"]),
    ("plan price 0", [*PLAN, "--hardware", "h100-sxm", "--price", "0"], {},
     ["argument --price: expected USD per chip-hour (a positive number"]),
    ("plan bad price pair", [*PLAN, "--hardware", "h100-sxm", "--price", "h100-sxm=x"], {},
     ["argument --price: expected ID=USD,ID=USD", "got 'h100-sxm=x'"]),
    ("plan unpriced chip names --price", [*PLAN, "--hardware", "tpu-v7"], {},
     ["tpu-v7 has no price in the catalog", "give --price USD per chip-hour"]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "files", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, name: str, args: list[str], files: dict[str, str], words: list[str]
) -> None:
    for fname, text in files.items():
        (tmp_path / fname).write_text(text)
    subs = {"{cfg}": str(tmp_path / "cfg.json"), "{csv}": str(tmp_path / "s.csv")}
    argv = [subs.get(a, a).replace("{dir}", str(tmp_path)) for a in args]
    r = run_cli(*argv)
    assert r.code == 2, (name, r.code, r.out[-300:], r.err)
    assert r.out == "", r.out[-300:]
    assert len(r.err_lines) == 1, r.err
    (line,) = r.err_lines
    assert line.startswith("llm-roofline: error: "), line
    for w in words:
        assert w in line, (w, line)
    # a generic argparse answer passes only a case that is about it
    for generic in GENERIC:
        if generic in line:
            assert any(generic in w for w in words), f"{name!r} ended in argparse's {line!r}"


def test_cases_are_distinct() -> None:
    names = [c[0] for c in CASES]
    argvs = [tuple(c[1]) + tuple(sorted(c[2].items())) for c in CASES]
    assert len(set(names)) == len(names) and len(set(argvs)) == len(argvs)
