"""The command line as people use it (issue 16): every flag's help states its default; sizes
written as people write them (16k, 1M) on the command line and in scenario CSVs; durations in
the unit a person reads them in, units in table headers, and parts that add up to the total
shown; `--model DIR`, Hugging Face repo ids and close ids; `--price 0`; progress callbacks.

Expected numbers are hand arithmetic written out beside each check, or another route through
the library (the engine's own constants), never this code's own output."""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import sys
from pathlib import Path

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline._core.units import parse_count
from llm_roofline.cli import build_parser
from llm_roofline.cli._common import fmt_num, fmt_time, int_list, positive_int, time_unit

from ..conftest import run_cli

LLAMA70 = ["--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--chips", "8"]
QWEN = ["--model", "qwen3-8b", "--hardware", "l40s"]


# ---- help ------------------------------------------------------------------------------------


def _verbs() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _default_texts(d: object) -> set[str]:
    """The ways a help text may write a default: as given, with thousands commas, %g."""
    out = {str(d)}
    if isinstance(d, int) and not isinstance(d, bool):
        out.add(f"{d:,}")
    if isinstance(d, float):
        out |= {f"{d:g}", f"{d:,}"}
    return out


def _help_problems(verbs: dict[str, argparse.ArgumentParser]) -> tuple[list[str], list[str]]:
    """Options (other than -h) without help, and options with a default (not None, not False)
    whose help, as --help prints it, does not state it."""
    missing, no_default = [], []
    for verb, sp in verbs.items():
        formatter = sp._get_formatter()
        for action in sp._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            name = f"{verb} {(action.option_strings or [action.dest])[0]}"
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(name)
                continue
            d = action.default
            if d is None or d is False or d == argparse.SUPPRESS:
                continue
            text = formatter._expand_help(action)  # %(default)s filled in, as --help prints
            if "default" not in text or not any(t in text for t in _default_texts(d)):
                no_default.append(f"{name} (default {d!r})")
    return missing, no_default


def test_every_option_has_help_that_states_its_default() -> None:
    missing, no_default = _help_problems(_verbs())
    assert not missing, f"options without help: {missing}"
    assert not no_default, f"help does not state the default: {no_default}"


def test_the_help_check_finds_what_it_looks_for() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int)  # no help
    p.add_argument("--context", type=int, default=4096, help="tokens per sequence")
    p.add_argument("--seed", type=int, default=0, help="random seed (default %(default)s)")
    p.add_argument("--chips", type=int, default=8, help="chips (default 1)")  # the wrong one
    p.add_argument("--json", action="store_true", help="JSON")
    missing, no_default = _help_problems({"x": p})
    assert missing == ["x --batch"]
    assert no_default == ["x --context (default 4096)", "x --chips (default 8)"]


def test_engine_help_names_every_engine_the_library_knows() -> None:
    from llm_roofline.calibration.profile import ENGINE_ALIASES, list_profiles

    text = " ".join(_verbs()["report"].format_help().split())
    by_family: dict[str, set[str]] = {}
    for name in list_profiles():
        family = ENGINE_ALIASES.get(name, name)
        by_family.setdefault(family, set()).add(name)
    for family, names in by_family.items():  # each engine under one of its names
        assert any(re.search(rf"\b{re.escape(n)}\b", text) for n in names), family


def test_help_explains_modes_context_ranges_and_sizes() -> None:
    verbs = _verbs()
    flat = {v: " ".join(p.format_help().split()) for v, p in verbs.items()}
    for verb in ("report", "optimize", "pricing"):
        assert "(default 4,096)" in flat[verb], verb  # --context
    assert "1..256 = 1,2,4,...,256" in flat["sweep"]
    assert "16k = 16,384" in flat["report"] and "16k = 16,384" in flat["predict"]
    for mode in ("decode:", "static:", "continuous:"):
        assert mode in flat["predict"]
    for overlap in ("full =", "per-op =", "none ="):
        assert overlap in flat["report"]


# ---- sizes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4096", 4096),
        ("16k", 16 * 1024),  # 16,384
        ("16K", 16 * 1024),
        ("128k", 128 * 1024),  # 131,072: Llama 3.1's max_position_embeddings
        ("1M", 1024 * 1024),  # 1,048,576
        ("10m", 10 * 1024 * 1024),  # 10,485,760: Llama 4 Scout's
        ("1G", 1024**3),
        ("1.5k", 1536),  # 1.5 × 1,024
        ("1e3", 1000),
        ("16_384", 16384),
        (" 8 ", 8),
        (7, 7),
    ],
)
def test_parse_count_reads_sizes(text: str | int, expected: int) -> None:
    assert parse_count(text) == expected


@pytest.mark.parametrize(
    "bad", ["16x", "0", "-1", "1.5", "0.3k", "nan", "inf", "", "k", "1e999999", True, 2.0]
)
def test_parse_count_refuses_with_one_line(bad: object) -> None:
    with pytest.raises(InputError) as exc:
        parse_count(bad, "context")  # type: ignore[arg-type]
    assert str(exc.value).startswith("context must be") and "\n" not in str(exc.value)
    assert exc.value.field == "context"


def test_parse_count_zero_and_maximum() -> None:
    assert parse_count("0", allow_zero=True) == 0
    assert parse_count("2k", maximum=1e12) == 2048
    with pytest.raises(InputError, match="at most 1e\\+12"):
        parse_count("1e13", maximum=1e12)


def test_the_context_model_lengths_match_the_convention() -> None:
    # the convention's two witnesses, read from the shipped configs
    from llm_roofline.model.checkpoints import get_model

    assert get_model("llama-3.1-8b").max_context == parse_count("128k")
    assert get_model("llama-4-scout").max_context == parse_count("10M")


def test_argument_types_take_sizes_and_ranges() -> None:
    assert positive_int("32k") == 32768
    # 1k..8k: powers of two from 1,024 to 8,192
    assert int_list("1k..8k") == [1024, 2048, 4096, 8192]
    assert int_list("1k,4k") == [1024, 4096]
    with pytest.raises(argparse.ArgumentTypeError, match="16k = 16,384"):
        positive_int("16kb")


def test_report_context_16k_is_16384() -> None:
    a = run_cli("report", *QWEN, "--context", "16k", "--json")
    b = run_cli("report", *QWEN, "--context", "16384", "--json")
    assert a.code == 0 and a.json()["context_len"] == 16384
    assert a.out == b.out


def test_sweep_range_of_sizes(tmp_path: Path) -> None:
    out = tmp_path / "s.csv"
    r = run_cli("sweep", *QWEN, "--batch", "1", "--context", "1k..4k", "--out", str(out))
    assert r.code == 0, r.err
    lines = out.read_text().splitlines()[1:]
    header = out.read_text().splitlines()[0].split(",")
    ctx = [int(ln.split(",")[header.index("context_len")]) for ln in lines]
    assert ctx == [1024, 2048, 4096]


def test_scenario_csv_cells_take_sizes(tmp_path: Path) -> None:
    head = "model,hardware,chips,weight_dtype,batch,input_len,output_len,mode\n"
    src = tmp_path / "in.csv"
    src.write_text(
        head + "qwen3-8b,l40s,1,bf16,8,2k,1k,static\n" + "qwen3-8b,l40s,1,bf16,8,2048,1024,static\n"
    )
    r = run_cli("predict", "--scenarios", str(src), "--out", str(tmp_path / "o.csv"))
    assert r.code == 0, r.err
    import csv

    rows = list(csv.DictReader((tmp_path / "o.csv").open()))
    assert rows[0]["input_len"] == "2048" and rows[0]["output_len"] == "1024"
    assert rows[0]["tpot_s"] == rows[1]["tpot_s"] != ""


# ---- durations and tables --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0241, "24.1 ms"),
        (1130.0, "18.8 min"),  # 1,130 / 60 = 18.83
        (23 * 3600.0, "23 h"),
        (3 * 86400.0, "3 d"),
        (2 * 365 * 86400.0, "2 y"),
        (5e-7, "500 ns"),
        (45.0, "45 s"),
        (0.0, "0 s"),
        (math.inf, "n/a"),
    ],
)
def test_fmt_time_reads_like_a_person(seconds: float, text: str) -> None:
    assert fmt_time(seconds) == text


def test_fmt_num_has_no_exponent() -> None:
    assert fmt_num(1234.5) == "1,234" or fmt_num(1234.5) == "1,235"
    assert fmt_num(0.0189) == "0.0189" and fmt_num(5.19) == "5.19" and fmt_num(972.0) == "972"
    assert "e" not in fmt_num(1.23e-7) and "e" not in fmt_num(4.5e9)
    assert time_unit(59.9) == (1.0, "s") and time_unit(60.0) == (60.0, "min")


def _numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*\.?\d*", text)]


def test_report_headers_carry_units_and_the_parts_add_up() -> None:
    r = run_cli("report", *LLAMA70)
    assert r.code == 0, r.err
    for header in ("compute (ms)", "weights (ms)", "KV (ms)", "comm (ms)", "ideal step (ms)"):
        assert header in r.out, header
    assert "t_compute" not in r.out and "_s " not in r.out
    assert "max(compute, weights + KV) + comm" in r.out
    line = next(ln for ln in r.out.splitlines() if "step = ideal step +" in ln)
    for part in line.split("batch ")[1:]:  # "1: 6.21 + 3.91 + 4.46 = 14.6 ms; ..."
        _, ideal, eff, fixed, total = _numbers(part)[:5]
        # the shown parts add up to the shown total, to its last digit (issue 16, item 4)
        terms = re.findall(r"[\d,]+\.?\d*", part.split(":", 1)[1])[:4]
        decimals = max(len(t.split(".")[1]) if "." in t else 0 for t in terms)
        assert round(ideal + eff + fixed, decimals) == total, part
    assert "tokens/s: the whole batch's, batch ÷ step" in r.out  # not one user's


def test_engine_parts_add_up_and_fixed_time_is_the_profiles() -> None:
    from llm_roofline.deploy.deployment import deployment
    from llm_roofline.deploy.report_table import engine_fixed_s, engine_parts

    dep = deployment("llama-3.1-70b", "h100-sxm", 8)
    step = dep.decode(1, 4096)
    t, _, _ = dep.time(step)
    p = engine_parts(dep, float(step.t_step), float(t))
    assert p["ideal_s"] + p["efficiency_s"] + p["fixed_s"] == pytest.approx(p["engine_s"])
    # another route: the profile's constants, a fixed time per pass and one per layer × the
    # model's 80 layers (one stage: pp = 1)
    prof = dep.profile
    assert prof is not None and dep.pp == 1
    assert engine_fixed_s(dep) == pytest.approx(prof.overhead_s + 80 * prof.layer_s)
    ideal = deployment("llama-3.1-70b", "h100-sxm", 8, engine="ideal")
    assert engine_fixed_s(ideal) == 0.0


def test_predict_table_labels_carry_units_json_keeps_its_keys() -> None:
    args = ["predict", *QWEN, "--batch", "8", "--input-len", "1k", "--output-len", "128"]
    r = run_cli(*args)
    assert r.code == 0, r.err
    assert "tpot: time per output token (ms)" in r.out and "tpot_s" not in r.out
    line = next(ln for ln in r.out.splitlines() if ln.startswith("tpot under"))
    ideal, eff, fixed, total = _numbers(line.split(":")[-1])[:4]
    assert ideal + eff + fixed == pytest.approx(total, abs=0.015 * total)
    j = run_cli(*args, "--json").json()
    from llm_roofline.deploy.scenarios.rows import INPUT_COLUMNS, OUTPUT_COLUMNS

    assert set(INPUT_COLUMNS) | set(OUTPUT_COLUMNS) <= set(j)
    assert j["input_len"] == 1024 and 0 < j["tpot_s"] < 1  # seconds


def test_long_durations_are_in_minutes_and_hours() -> None:
    # Llama 3.1 70B at 128k on 8 H100: the disk tier drains in hours, flash in minutes
    r = run_cli("cache-tiers", *LLAMA70, "--context", "128k", "--hold", "1")
    assert r.code == 0, r.err
    assert " min " in r.out and " h " in r.out and "e+" not in r.out


# ---- models ----------------------------------------------------------------------------------


def test_model_folder_is_the_same_as_the_catalog_id(tmp_path: Path) -> None:
    from llm_roofline.model.checkpoints import model_entry

    folder = tmp_path / "Qwen3-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(model_entry("qwen3-8b").config))
    own = run_cli("report", "--model", str(folder), "--hardware", "l40s", "--json").json()
    cat = run_cli("report", *QWEN, "--json").json()
    assert own["model"] == "Qwen3-8B" and own["rows"] == cat["rows"]
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_cli("report", "--model", str(empty), "--hardware", "l40s")
    assert r.code == 2 and len(r.err_lines) == 1 and "holds no config.json" in r.err


def test_a_hugging_face_repo_id_says_how_to_fetch_its_config() -> None:
    r = run_cli("predict", "--model", "meta-llama/Llama-3.1-8B", "--hardware", "h100-sxm",
                "--batch", "1", "--input-len", "8", "--output-len", "8")  # fmt: skip
    assert r.code == 2 and r.out == "" and len(r.err_lines) == 1, r.err
    line = r.err_lines[0]
    assert "huggingface-cli download meta-llama/Llama-3.1-8B config.json --local-dir" in line
    assert "--model DIR" in line


def test_unknown_id_suggests_every_close_id() -> None:
    from llm_roofline.model.checkpoints import list_models

    # every catalog id holding both words of "llama-70b": the family and the size
    expected = [m for m in list_models() if m.startswith("llama-") and m.endswith("-70b")]
    assert len(expected) >= 3
    r = run_cli("report", "--model", "llama-70b", "--hardware", "h100-sxm")
    assert r.code == 2 and len(r.err_lines) == 1
    closest = r.err_lines[0].split("closest: ")[1].split(" (")[0].split(", ")
    assert set(expected) <= set(closest), (expected, closest)


# ---- price 0 ---------------------------------------------------------------------------------


def test_price_zero_is_owned_hardware_with_no_cost_per_token() -> None:
    r = run_cli("report", *LLAMA70, "--price", "0")
    assert r.code == 0, r.err
    assert "price 0: hardware you own" in r.out and "nan" not in r.out.lower()
    j = run_cli("report", *LLAMA70, "--price", "0", "--json").json()
    assert all(row["usd_per_million_tokens"] is None for row in j["rows"])
    p = run_cli("predict", *LLAMA70, "--price", "0", "--batch", "8", "--input-len", "1k",
                "--output-len", "64", "--json")  # fmt: skip
    assert p.code == 0 and p.json()["usd_per_million_output_tokens"] is None
    o = run_cli("optimize", "--model", "llama-3.1-8b", "--hardware", "h100-sxm",
                "--max-chips", "2", "--price", "0")  # fmt: skip
    assert o.code == 2 and len(o.err_lines) == 1 and "hardware you own" in o.err
    bad = run_cli("report", *LLAMA70, "--price", "-1")
    assert bad.code == 2 and "or 0: hardware you own" in bad.err


def test_with_price_zero_and_negative() -> None:
    from llm_roofline.hardware.catalog import get_hardware

    chip = get_hardware("h100-sxm")
    assert chip.with_price(0).price_usd_per_s == 0.0
    with pytest.raises(InputError, match="price"):
        chip.with_price(-1.0)


# ---- progress --------------------------------------------------------------------------------


def test_optimize_search_reports_progress() -> None:
    from llm_roofline.deploy.deployment import deployment
    from llm_roofline.planning.optimize import search

    calls: list[tuple[int, int]] = []
    res = search(
        deployment("llama-3.1-8b", "h100-sxm"), 8, progress=lambda d, n: calls.append((d, n))
    )
    done = [d for d, _ in calls]
    assert done == sorted(done) and calls[-1] == (res.configs_tried, res.configs_tried)
    assert {n for _, n in calls} == {res.configs_tried}


def test_progress_bar_draws_nothing_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    from llm_roofline.cli._common import progress_bar

    with progress_bar("testing") as progress:
        progress(1, 2)
        progress(2, 2)
    assert capsys.readouterr().err == ""


def test_report_with_the_ideal_engine_has_no_range_column() -> None:
    """The ideal engine is the bound itself: no range to print (this crashed once on the
    missing t_step_low_s). Its parts are the bound's; the header says so."""
    run = run_cli(
        "report", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--engine", "ideal"
    )
    assert run.code == 0, run.err
    assert "range" not in run.out and "ideal step (" in run.out


# ---- a newcomer's walkthrough: --help alone answers the three personas' questions ----------

# the verbs whose parsers live in cli/whatif.py carry their own examples (or not yet)
_OWN_EXAMPLES = set(_verbs()) - {"sensitivity", "fast-mode"}


def test_every_verb_says_what_it_answers_with_an_example() -> None:
    for verb, parser in _verbs().items():
        text = parser.format_help()
        assert parser.description and len(parser.description.split()) >= 12, verb
        if verb in _OWN_EXAMPLES:
            assert f"\n  llm-roofline {verb}" in text, verb  # an example command line


def test_top_level_help_points_each_question_to_its_verb() -> None:
    text = build_parser().format_help()
    lines = text.split("which verb answers which question:")[1].splitlines()  # the epilog

    def line_of(words: str) -> str:
        return next(ln for ln in lines if words in ln)

    assert line_of("size a fleet for a traffic").rstrip().endswith("plan")
    assert line_of("speed, fit in memory and cost").rstrip().endswith("report")
    assert line_of("what-ifs").rstrip().endswith("sensitivity, fast-mode")
    assert line_of("prices").rstrip().endswith("pricing")
    assert max(len(ln) for ln in lines) <= 100


def test_bare_command_prints_the_usage_and_the_verbs() -> None:
    r = run_cli()
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("usage: llm-roofline")
    for verb in _verbs():
        assert f"\n    {verb} " in r.err, verb  # the verb list, each with its one-line help
    assert "size a fleet for a traffic" in r.err
    assert r.err_lines[-1].startswith("llm-roofline: error: give a verb")


def test_report_and_demo_name_the_lectures_deployment() -> None:
    for verb in ("report", "demo"):
        flat = " ".join(_verbs()[verb].format_help().split())
        for words in ("DeepSeek-V3", "GB200 NVL72", "72 chips", "fp8"):
            assert words in flat, (verb, words)


def test_report_says_what_each_of_the_lectures_numbers_is() -> None:
    r = run_cli("report", "--model", "llama-3.1-8b", "--hardware", "h100-sxm")
    assert r.code == 0, r.err
    assert "latency floor (read once each weight a token needs: the fastest" in r.out
    assert "balance batch B* (matmul time = weight-fetch time on this split" in r.out
    assert "memory drain time (capacity ÷ bandwidth" in r.out and "HBM" not in r.out
    # the balanced context, S = 2 · N_active · BW / (FLOP/s · KV bytes per token): Llama 3.1
    # 8B multiplies 8.03e9 − 128,256 × 4,096 (the input embedding, only gathered) = 7.505e9
    # parameters per token; its KV cache is 32 layers × 8 heads × 128 × 2 (K, V) × 2 bytes
    # = 131,072 bytes per token; H100 SXM: 989.4e12 FLOP/s bf16, 3.35e12 B/s. S = 387.7
    line = next(ln for ln in r.out.splitlines() if "balanced context (" in ln)
    assert "KV fetch time = its compute time" in line
    expected = 2 * (8.03e9 - 128_256 * 4_096) * 3.35e12 / (989.4e12 * 131_072)
    assert _numbers(line.split(")")[-1])[0] == pytest.approx(expected, rel=0.01)


def test_hardware_listing_fits_120_columns_with_its_notes_below() -> None:
    r = run_cli("hardware")
    assert r.code == 0, r.err
    assert max(len(ln) for ln in r.out.splitlines()) <= 120
    assert "announced, not shipping yet: rubin, rubin-ultra" in r.out
    assert "\n  rubin: price_usd_per_hour" in r.out  # estimated figures, listed by chip
    one = run_cli("hardware", "h100-sxm")
    assert one.out.split("\n", 1)[0].rstrip() == "1 chip", one.out[:20]


def test_one_of_anything_is_singular() -> None:
    models = run_cli("models", "--filter", "llama-3.1-8b")
    assert models.out.split("\n", 1)[0].rstrip() == "1 model", models.out[:20]
    best = run_cli("optimize", "--model", "llama-3.1-8b", "--hardware", "h100-sxm",
                   "--max-chips", "1")  # fmt: skip
    assert best.code == 0 and "cheapest meeting the targets: 1 chip," in best.out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_tables_fold_to_the_terminal_and_take_their_width_in_a_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("rich")
    from llm_roofline.cli._common import print_table

    headers = [f"column {i:02d} (ms)" for i in range(12)]  # 12 × (14 + 3) + 1 = 205 wide
    rows = [[f"{1000 + i}.5" for i in range(12)]]
    monkeypatch.setenv("COLUMNS", "120")
    term = _Terminal()
    monkeypatch.setattr(sys, "stdout", term)
    print_table("wide", headers, rows)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", term.getvalue())
    assert max(len(ln) for ln in plain.splitlines()) <= 120
    assert "…" not in plain and all(c in plain for c in rows[0])  # every number whole
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stdout", pipe)
    print_table("wide", headers, rows)
    assert max(len(ln) for ln in pipe.getvalue().splitlines()) == 12 * (14 + 3) + 1


# the widest tables: report's (with the engine's range), optimize's frontier, plan's fleets
WIDE = [
    "report --model deepseek-v3 --hardware gb200 --chips 72 --weight-dtype fp8",
    "optimize --model llama-3.1-70b --hardware h100-sxm --max-chips 16",
    "plan --model llama-3.1-8b --hardware h100-sxm,a100-80gb --rate 5 --input-len 512 "
    "--output-len 64 --requests 400 --max-chips 4 --ttft-p90-ms 300 --tpot-p99-ms 40",
]


@pytest.mark.parametrize("argv", WIDE, ids=[a.split()[0] for a in WIDE])
def test_tables_stay_within_150_columns(argv: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    r = run_cli(*argv.split())
    assert r.code == 0, r.err
    table = [ln for ln in r.out.splitlines() if ln[:1] in "┏┃┡│└"]
    assert table and max(len(ln) for ln in table) <= 150


def test_simulate_labels_the_context_of_its_traffic() -> None:
    r = run_cli("simulate", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "2",
                "--input-len", "256", "--output-len", "32", "--requests", "50")  # fmt: skip
    assert r.code == 0, r.err
    line = next(ln for ln in r.out.splitlines() if ln.startswith("traffic: "))
    # Llama 3.1's max_position_embeddings: 131,072
    assert "clipped to the model's maximum context of 131,072 tokens" in line
    assert "context 131072" not in line


def test_fit_widths_wraps_between_words_and_shares_the_room() -> None:
    from llm_roofline.cli._common import fit_widths

    rows = [["1", "21.3 (17.3–25.9)"]]
    # 30 columns hold both (1 + 16 of text, 3 × 2 + 1 of rules and spaces): nothing to fit
    assert fit_widths(["b", "step (ms)"], rows, 30) is None
    # 20 columns leave 20 − 7 = 13 for text: each column its longest word (1; '(17.3–25.9)',
    # 11), and the 1 left over to the column short of its full 16
    assert fit_widths(["b", "step (ms)"], rows, 20) == [1, 12]
    # 19 columns leave 12: exactly the longest words, 1 + 11
    assert fit_widths(["b", "step (ms)"], rows, 19) == [1, 11]
    # 18 columns leave 11, less than the longest words' 12: rich is left to fold
    assert fit_widths(["b", "step (ms)"], rows, 18) is None
