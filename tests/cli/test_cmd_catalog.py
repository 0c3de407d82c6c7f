"""Verbs `models` and `hardware` (`llm_roofline.cli.cmd_catalog`): their parsers, and the
catalogs' figures as the verbs print them, against the catalog's datasheet entries and the
Llama 3.1 8B config.json worked by hand."""

from __future__ import annotations

import json
import re

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.cli import cmd_catalog
from llm_roofline.hardware.catalog import list_hardware

from .verb_parsers import parse, refusal, run_verb

add = cmd_catalog.add_parsers


def test_parsers_defaults_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    m = parse(add, ["models"])
    assert (m.filter, m.moe, m.dense, m.attention, m.sources, m.json) == (
        None,
        False,
        False,
        None,
        False,
        False,
    )
    assert m.func is cmd_catalog.cmd_models
    h = parse(add, ["hardware", "h100-sxm", "--toml"])
    assert (h.id, h.toml, h.status, h.func) == ("h100-sxm", True, None, cmd_catalog.cmd_hardware)
    line = refusal(add, ["models", "--attention", "sliding"], capsys)
    assert "argument --attention: invalid choice: 'sliding'" in line
    line = refusal(add, ["hardware", "--status", "retired"], capsys)
    assert "argument --status: invalid choice: 'retired'" in line


def test_hardware_json_h100_against_its_datasheet(capsys: pytest.CaptureFixture[str]) -> None:
    # the catalog's H100 SXM record: 989.5 TFLOP/s bf16 dense, 85.52 GB (nvidia-smi's 81,559
    # MiB), 3.35 TB/s, $3.99 per GPU-hour
    code, out, _ = run_verb(add, ["hardware", "h100-sxm", "--json"], capsys)
    assert code == 0
    (row,) = json.loads(out)
    assert row["peak_flops"]["bf16"] == 989.5e12
    assert row["memory_bytes"] == 85.52e9
    assert row["memory_bandwidth_bytes_per_s"] == 3.35e12
    # ops:byte = 989.5e12 / 3.35e12 = 295.37 FLOPs per byte
    assert row["ops_per_byte"] == pytest.approx(989.5 / 3.35, rel=1e-12)
    # drain time = 85.52e9 B / 3.35e12 B/s = 25.53 ms
    assert row["drain_time_s"] == pytest.approx(85.52e9 / 3.35e12, rel=1e-12)
    assert row["price_usd_per_hour"] == pytest.approx(3.99)
    assert row["scale_up_domain"] == 8


def test_hardware_table_row(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_verb(add, ["hardware", "--filter", "h100-sxm"], capsys)
    assert code == 0 and "1 chip" in out
    (line,) = [ln for ln in out.splitlines() if "h100-sxm" in ln]
    cells = re.findall(r"[\w.,-]+", line)
    # 989.5 -> "990" TFLOP/s, 85.52 -> "86" GB, "3.35" TB/s, 295.37 -> "295", 25.53 ms -> "25.5"
    for cell in ("990", "86", "3.35", "295", "25.5", "8", "3.99"):
        assert cell in cells, (cell, line)
    # every chip of the catalog, unfiltered
    code, out, _ = run_verb(add, ["hardware"], capsys)
    assert f"{len(list_hardware())} chips" in out


def test_hardware_toml_needs_an_id(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse(add, ["hardware", "--toml"])
    with pytest.raises(InputError, match="--toml prints one record: give its id"):
        args.func(args)


def test_models_llama_31_8b_worked_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_verb(add, ["models", "--filter", "llama-3.1-8b", "--json"], capsys)
    assert code == 0
    (r,) = json.loads(out)
    # config.json: hidden 4096, 32 layers, 32 heads of 128, 8 KV heads, MLP 14336, vocab 128256
    # KV per token, bf16: K and V * 32 layers * 8 heads * 128 * 2 bytes = 131,072 B
    assert r["kv_bytes_per_token_bf16"] == 2 * 32 * 8 * 128 * 2
    attn = 4096 * 4096 * 2 + 4096 * 1024 * 2  # q and o; k and v (8 heads * 128 = 1024)
    mlp = 3 * 4096 * 14336  # gate, up, down
    norms = 2 * 4096  # two RMSNorms a layer
    embed = 128256 * 4096  # input table; the untied LM head is the same size
    stored = 32 * (attn + mlp + norms) + 4096 + 2 * embed  # + the final norm
    assert r["params_stored"] == stored == 8_030_261_248  # "true count 8.03B" (catalog note)
    # multiplied per token: every matmul, the LM head included; not the gathered embedding
    # table, nor the norms' elementwise weights
    assert r["params_multiplied"] == 32 * (attn + mlp) + embed
    assert (r["attention"], r["moe"], r["layers"], r["max_context"]) == ("gqa", False, 32, 131072)


def test_models_filters(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_verb(add, ["models", "--moe", "--json"], capsys)
    moe = json.loads(out)
    assert moe and all(r["moe"] for r in moe)
    _, out, _ = run_verb(add, ["models", "--attention", "mla", "--json"], capsys)
    ids = {r["id"] for r in json.loads(out)}
    assert "deepseek-v3" in ids  # DeepSeek-V3: multi-head latent attention (kv_lora_rank)
    _, out, _ = run_verb(add, ["models", "--dense", "--filter", "llama-3.1-8b"], capsys)
    assert "1 model" in out and "131.1 kB" in out  # 131,072 B in decimal kB
