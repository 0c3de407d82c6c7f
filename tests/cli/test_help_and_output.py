"""The command line's help and output, polished: required flags say so; `--engine` lists the
engines the library has; `fast-mode --help` poses the lecture's question; a provider's '200k'
is refused where k = 1,024 would misread it; a chip priced twice is refused; large numbers are
written as people read them, not as 3.15e+13.

Expected values are hand arithmetic written beside each check, or the library's own figures,
never this command line's output."""

from __future__ import annotations

import argparse
import re

import pytest

from llm_roofline._core.errors import InputError
from llm_roofline.calibration import profile as calibrate
from llm_roofline.cli import build_parser
from llm_roofline.cli._common import fmt_bytes, fmt_count, fmt_money, fmt_sig
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.model.checkpoints import get_model
from llm_roofline.planning.fleet_plan import priced_chips

from ..conftest import run_cli

EXPONENT = re.compile(r"\d[eE][+-]?\d")  # 3.15e+13, 1.66e-05


def _verbs() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _help(sp: argparse.ArgumentParser, flag: str) -> str:
    """One flag's help as --help prints it (%(default)s and the engine list filled in)."""
    action = next(a for a in sp._actions if flag in a.option_strings)
    return " ".join(sp._get_formatter()._expand_help(action).split())


def _flat(text: str) -> str:
    return " ".join(text.split())


# ---- 1. required flags say so ----------------------------------------------------------------

# flags argparse does not require but the verb refuses to run without (in the case given):
# verb, the flag, and a command line that has every other flag it needs
REFUSED_WITHOUT = [
    ("predict", "--model", "predict --hardware h100-sxm --batch 1 --input-len 64"),
    ("predict", "--hardware", "predict --model llama-3.1-8b --batch 1 --input-len 64"),
    ("predict", "--batch", "predict --model llama-3.1-8b --hardware h100-sxm --input-len 64"),
    ("predict", "--input-len", "predict --model llama-3.1-8b --hardware h100-sxm --batch 1"),
    ("predict", "--output-len", "predict --model llama-3.1-8b --hardware h100-sxm --batch 1 "
     "--input-len 64 --mode static"),
    ("predict", "--out", "predict --scenarios in.csv"),
    ("simulate", "--rate", "simulate --model llama-3.1-8b --hardware h100-sxm --input-len 64 "
     "--output-len 8"),
    ("simulate", "--input-len", "simulate --model llama-3.1-8b --hardware h100-sxm --rate 1 "
     "--output-len 8"),
    ("simulate", "--output-len", "simulate --model llama-3.1-8b --hardware h100-sxm --rate 1 "
     "--input-len 64"),
]  # fmt: skip
# the other two ways to give simulate a traffic, each as required as --rate
ONE_OF = [("simulate", "--concurrency"), ("simulate", "--trace")]


def _required_without_saying(verbs: dict[str, argparse.ArgumentParser]) -> list[str]:
    """Options argparse requires whose help, as --help prints it, does not say 'required'."""
    out = []
    for verb, sp in verbs.items():
        for action in sp._actions:
            if action.required and action.option_strings:
                flag = action.option_strings[0]
                if "required" not in _help(sp, flag):
                    out.append(f"{verb} {flag}")
    return out


def test_every_required_option_says_required() -> None:
    assert _required_without_saying(_verbs()) == []


def test_the_required_check_finds_what_it_looks_for() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--context", type=int, required=True, help="tokens per sequence")
    p.add_argument("--batch", type=int, required=True, help="sequences (required)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    assert _required_without_saying({"x": p}) == ["x --context"]


@pytest.mark.parametrize(("verb", "flag", "argv"), REFUSED_WITHOUT)
def test_a_flag_the_verb_refuses_without_says_required(verb: str, flag: str, argv: str) -> None:
    assert "required" in _help(_verbs()[verb], flag), flag
    r = run_cli(*argv.split())  # and it is refused without it, naming it
    assert r.code == 2 and len(r.err_lines) == 1, r.err
    assert flag in r.err, r.err


@pytest.mark.parametrize(("verb", "flag"), ONE_OF)
def test_each_way_to_give_a_traffic_says_one_is_required(verb: str, flag: str) -> None:
    text = _help(_verbs()[verb], flag)
    assert "required" in text and all(f in text for f in ("--rate", "--concurrency", "--trace"))


def test_optimize_max_chips_states_its_unit_and_that_it_is_required() -> None:
    text = _help(_verbs()["optimize"], "--max-chips")
    assert re.search(r"\bchips\b", text) and "required" in text, text
    # and argparse does require it
    r = run_cli("optimize", "--model", "llama-3.1-8b", "--hardware", "h100-sxm")
    assert r.code == 2 and "--max-chips" in r.err


def test_cache_tiers_context_says_required() -> None:
    sp = _verbs()["cache-tiers"]
    action = next(a for a in sp._actions if "--context" in a.option_strings)
    assert action.required
    assert "required" in _help(sp, "--context")


# ---- 2. --engine lists the engines the library has -------------------------------------------


def _engine_verbs() -> dict[str, argparse.ArgumentParser]:
    return {
        v: sp
        for v, sp in _verbs().items()
        if any("--engine" in a.option_strings for a in sp._actions)
    }


def _names(text: str, names: list[str]) -> list[str]:
    """Of `names`, those not written in `text` as a whole name ('mlx' is not in 'mlx-lm')."""
    return [n for n in names if not re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", text)]


def test_engine_help_lists_every_engine_the_library_has() -> None:
    names = calibrate.list_profiles()  # ideal, calibrated, the fitted families and aliases
    assert {"ideal", "calibrated", "vllm", "tensorrt-llm", "llama.cpp"} <= set(names)
    verbs = _engine_verbs()
    # every verb of a deployment, plan and validate
    assert {"report", "predict", "sweep", "optimize", "simulate", "plan", "validate"} <= set(verbs)
    for verb, sp in verbs.items():
        text = _help(sp, "--engine")
        assert _names(text, names) == [], (verb, _names(text, names))
        assert _names(_flat(sp.format_help()), names) == [], verb  # as --help prints it


def test_engine_help_is_read_from_the_library_when_help_is_printed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = calibrate.list_profiles()
    monkeypatch.setattr(calibrate, "list_profiles", lambda: sorted([*real, "my-engine"]))
    for verb in ("report", "plan", "validate"):
        r = run_cli(verb, "--help")
        assert r.code == 0
        assert _names(_flat(r.out), ["my-engine"]) == [], verb


# ---- 3. fast-mode poses the lecture's question -----------------------------------------------


def test_fast_mode_help_poses_the_lectures_question() -> None:
    from llm_roofline.whatif.fast_mode import OPTIONS

    r = run_cli("fast-mode", "--help")
    assert r.code == 0
    text = _flat(r.out)
    assert "Fast modes sell tokens about 2.5× faster for about 6× the price: why?" in text
    # what it answers it for, and with what: each option the library tries, the price multiple
    assert "--speedup" in text and "--batch" in text and "a deployment" in text
    for label in OPTIONS.values():  # a smaller batch, more chips, speculative decoding
        assert label in text, label
    assert "cheapest" in text and "price multiple" in text


# ---- 4. a provider's '200k' -----------------------------------------------------------------

PRICES = ["pricing", "--input-price", "3", "--output-price", "15"]


@pytest.mark.parametrize(
    ("flag", "argv", "written", "expected"),
    [
        # 200 x 1,024 = 204,800
        ("--long-context-threshold", [*PRICES, "--long-context-threshold", "200k"], "200k",
         "write 200000 (200k reads as 204,800 tokens: k = 1,024)"),
        # 1.5 x 1,048,576 = 1,572,864
        ("--long-context-threshold", [*PRICES, "--long-context-threshold", "1.5M"], "1.5M",
         "write 1500000 (1.5M reads as 1,572,864 tokens: M = 1,048,576)"),
        ("--tokens-per-s", ["balance", "--tokens-per-s", "1M", "--days", "1",
                            "--active-params", "1e9"], "1M",
         "write 1000000 (1M reads as 1,048,576 tokens/s: M = 1,048,576)"),
    ],
)  # fmt: skip
def test_a_binary_size_where_a_number_is_meant_says_what_to_write(
    flag: str, argv: list[str], written: str, expected: str
) -> None:
    r = run_cli(*argv)
    assert r.code == 2 and r.out == ""
    assert r.err_lines == [f"llm-roofline: error: argument {flag}: {expected}"]


def test_the_threshold_written_out_is_taken() -> None:
    r = run_cli(*PRICES, "--long-context-threshold", "200000", "--active-params", "1e11",
                "--json")  # fmt: skip
    assert r.code == 0, r.err
    assert r.json()["long_context_threshold"] == 200_000


def test_threshold_help_says_to_write_the_number_out() -> None:
    text = _help(_verbs()["pricing"], "--long-context-threshold")
    assert "200000" in text and "not a binary size" in text


# ---- 5. a chip priced twice ------------------------------------------------------------------

PLAN = ["plan", "--model", "llama-3.1-8b", "--rate", "1", "--input-len", "1k",
        "--output-len", "64", "--ttft-p90-ms", "1000", "--tpot-p99-ms", "50"]  # fmt: skip


@pytest.mark.parametrize(
    "prices",
    [
        ["--price", "h100-sxm=2", "--price", "h100-sxm=3"],
        ["--price", "h100-sxm=2,H100-SXM=3"],  # one chip, case aside
        ["--price", "h100-sxm=2,a100-80gb=1", "--price", "h100-sxm=3"],
    ],
)
def test_plan_refuses_two_prices_for_one_chip(prices: list[str]) -> None:
    r = run_cli(*PLAN, "--hardware", "h100-sxm,a100-80gb", *prices)
    assert r.code == 2 and r.out == ""
    assert len(r.err_lines) == 1 and r.err_lines[0].startswith("llm-roofline: error: ")
    assert "h100-sxm" in r.err and "two prices" in r.err and "a100" not in r.err


def test_plan_refuses_a_plain_price_given_twice() -> None:
    r = run_cli(*PLAN, "--hardware", "h100-sxm", "--price", "2", "--price", "3")
    assert r.code == 2 and len(r.err_lines) == 1 and "--price" in r.err


def test_plan_takes_one_price_flag_per_chip() -> None:
    from llm_roofline.cli.cmd_plan import _chips

    prices = ["--price", "h100-sxm=2", "--price", "a100-80gb=1.5"]
    args = build_parser().parse_args([*PLAN, "--hardware", "h100-sxm,a100-80gb", *prices])
    h100, a100 = _chips(args)
    assert (h100.id, a100.id) == ("h100-sxm", "a100-80gb")
    assert h100.price_usd_per_s * 3600 == pytest.approx(2.0)
    assert a100.price_usd_per_s * 3600 == pytest.approx(1.5)


def test_priced_chips_refuses_two_prices_for_one_chip() -> None:
    chips = [get_hardware("h100-sxm"), get_hardware("a100-80gb")]
    for prices in (
        [("h100-sxm", 2.0), ("H100-SXM", 3.0)],  # pairs, as the command line gives them
        {"h100-sxm": 2.0, " H100-SXM": 3.0},  # a mapping: two keys, one chip
    ):
        with pytest.raises(InputError, match="two prices for h100-sxm") as exc:
            priced_chips(chips, prices, field="price")
        assert exc.value.field == "price"
    # one price each is taken, as pairs or as a mapping
    for prices in ([("h100-sxm", 2.0), ("a100-80gb", 1.5)], {"h100-sxm": 2.0, "a100-80gb": 1.5}):
        out = priced_chips(chips, prices)
        assert [c.price_usd_per_s * 3600 for c in out] == pytest.approx([2.0, 1.5])


# ---- 6. large numbers as people read them ----------------------------------------------------


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        (3.1536e13, "31.5 trillion"),
        (7.4e11, "740 billion"),
        (2.5e6, "2.5 million"),
        (864_000.0, "864,000"),
        (999_999_999.0, "1 billion"),  # rounded to three digits first: not "1,000 million"
        (42.6162, "42.6"),
    ],
)
def test_fmt_count(v: float, expected: str) -> None:
    assert fmt_count(v) == expected


def test_fmt_sig_bytes_and_money_never_write_exponents() -> None:
    assert fmt_sig(3.1536e13) == "31,500,000,000,000"
    assert fmt_sig(5e-6) == "0.000005"
    assert fmt_sig(4.32e-5) == "0.0000432"
    assert fmt_bytes(1.47e6) == "1.47 MB" and fmt_bytes(10.7e9) == "10.7 GB"
    assert fmt_money(1.66e-5) == "$0.0000166"
    assert fmt_money(0.0183) == "$0.0183"  # as before where .3g wrote no exponent


def test_library_messages_share_the_fixed_point_formatter() -> None:
    """units.sig is what the library's own messages use where :.3g would write 1.65e+03 (a
    fast mode's price multiple, a capacity in requests/s, a time in ms): three significant
    digits by hand, 1,648.2 -> 1,650; 12,345.6 ms -> 12,300; 0.5 -> 0.5; 999.96 -> 1,000."""
    from llm_roofline._core.units import sig

    assert f"{1648.2:.3g}" == "1.65e+03"  # the form it replaces
    assert sig(1648.2) == "1,650" and sig(12_345.6) == "12,300"
    assert sig(0.5) == "0.5" and sig(999.96) == "1,000" and sig(2.5, 6) == "2.5"
    assert sig(1e6, 6) == "1,000,000" and sig(float("nan")) == "n/a"
    assert fmt_sig(1648.2) == sig(1648.2)


def test_balance_prints_token_budgets_in_words() -> None:
    argv = ["balance", "--tokens-per-s", "1e6", "--days", "365", "--active-params", "3.7e10"]
    r = run_cli(*argv)
    assert r.code == 0, r.err
    assert not EXPONENT.search(r.out), r.out
    # 1e6 tokens/s x 365 days x 86,400 s = 3.1536e13; pre-training at 0.4 MFU against
    # inference at a third of it, 2 N against 6 N FLOPs a token: as many, 3.1536e13; RL at
    # inference's MFU, 3 N against 2 N: 2/3 of it, 2.1024e13; Chinchilla 20 x 3.7e10 = 7.4e11;
    # 3.1536e13 / 7.4e11 = 42.6
    assert "inference tokens: 31.5 trillion" in r.out
    assert "pre-training tokens at equal cost: 31.5 trillion" in r.out
    assert "RL tokens at equal cost: 21 trillion" in r.out
    assert "Chinchilla (20 per parameter): 740 billion tokens; over-training factor 42.6" in r.out
    j = run_cli(*argv, "--json").json()  # --json keeps numbers
    assert j["inference_tokens"] == pytest.approx(3.1536e13)
    assert j["chinchilla_tokens"] == pytest.approx(7.4e11)


def test_pricing_prints_parameters_in_words() -> None:
    n = get_model("llama-3.1-70b").params_multiplied  # 69,501,714,432
    words = f"{n / 1e9:.1f} billion"  # 69.5 billion
    base = [*PRICES, "--long-context-threshold", "200000", "--ratio", "600"]
    r = run_cli(*base, "--active-params", "1e11", "--model", "llama-3.1-70b", "--chips", "8",
                "--engine", "ideal")  # fmt: skip
    assert r.code == 0, r.err
    assert not EXPONENT.search(r.out), r.out
    # 2 x 1e11 / (600 x 200,000) = 1,666.7 bytes per token
    assert "a price step at 200,000 tokens, 100 billion active parameters, 600 FLOP/B" in r.out
    assert "KV ≈ 1,667 bytes per token" in r.out
    assert f"differs from llama-3.1-70b's {words} parameters multiplied per token" in r.out
    own = run_cli(*base, "--model", "llama-3.1-70b", "--chips", "8", "--engine", "ideal")
    assert f"{words} active parameters (llama-3.1-70b's" in own.out
    assert not EXPONENT.search(own.out)


def test_pricing_ratios_far_from_one_have_no_exponent() -> None:
    # 2000 / 0.01 = 200,000; decode at 0.01 / 2000 = 0.000005 of prefill's utilisation
    r = run_cli("pricing", "--input-price", "0.01", "--output-price", "2000")
    assert r.code == 0, r.err
    assert "price ratio 200,000" in r.out and "runs at 0.000005 of" in r.out
    assert not EXPONENT.search(r.out)


@pytest.mark.parametrize(
    "argv",
    [  # the examples of `pricing --help` and `balance --help`, and cache-tiers at a tiny context
        "pricing --input-price 3 --output-price 15",
        "pricing --input-price 3 --output-price 15 --long-context-threshold 200000 "
        "--active-params 1e11",
        "pricing --input-price 3 --output-price 15 --model llama-3.1-70b --hardware h100-sxm "
        "--chips 8",
        "balance --tokens-per-s 1e6 --days 365 --active-params 3.7e10",
        "cache-tiers --model qwen3-8b --hardware l40s --context 10 --hold 1,60",
    ],
)
def test_economics_output_has_no_exponents(argv: str) -> None:
    r = run_cli(*argv.split())
    assert r.code == 0, r.err
    assert not EXPONENT.search(r.out), r.out


def test_cache_tiers_tiny_cache_in_its_unit() -> None:
    j = run_cli("cache-tiers", "--model", "qwen3-8b", "--hardware", "l40s", "--context", "10",
                "--hold", "1", "--json").json()  # fmt: skip
    # qwen3-8b: 36 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes = 147,456 bytes a
    # token; 10 tokens: 1,474,560 bytes = 1.47 MB (--json keeps bytes)
    assert j["kv_bytes"] == 36 * 8 * 128 * 2 * 2 * 10
    r = run_cli("cache-tiers", "--model", "qwen3-8b", "--hardware", "l40s", "--context", "10",
                "--hold", "1")  # fmt: skip
    assert "KV cache of one 10-token sequence: 1.47 MB;" in r.out
    assert 0 < j["recompute_usd"] < 1e-4  # where .3g writes an exponent
    assert f"${j['recompute_usd']:.3g}" not in r.out  # $1.66e-05 is gone


def test_a_missing_flag_says_where_its_meaning_and_a_batch_to_start_from_are() -> None:
    r = run_cli("sensitivity", "--model", "llama-3.1-8b", "--hardware", "h100-sxm")
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1, r.err
    assert "the following arguments are required: --batch" in r.err
    assert "`llm-roofline report` gives this deployment's balance batch B*" in r.err
    assert "`llm-roofline sensitivity --help` says what each means" in r.err
    # and report does give both figures it points to
    rep = run_cli("report", "--model", "llama-3.1-8b", "--hardware", "h100-sxm")
    assert "balance batch B*" in rep.out and "largest batch that fits" in rep.out
    # a verb without --batch among its missing flags gets the --help pointer only
    r = run_cli("plan", "--model", "llama-3.1-8b")
    assert r.code == 2 and "B*" not in r.err and "`llm-roofline plan --help`" in r.err
