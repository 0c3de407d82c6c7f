"""Shared pieces of the command line: the one-line-error parser, the deployment flags and the
progress bar. Argument types are in `_args.py`, the output helpers (times, counts, money,
tables) in `_format.py`; both are re-exported here."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

from llm_roofline.cli._args import SIZES as SIZES
from llm_roofline.cli._args import float_list as float_list
from llm_roofline.cli._args import int_list as int_list
from llm_roofline.cli._args import nonneg_int as nonneg_int
from llm_roofline.cli._args import positive_float as positive_float
from llm_roofline.cli._args import positive_int as positive_int
from llm_roofline.cli._args import price as price
from llm_roofline.cli._args import written_out as written_out
from llm_roofline.cli._format import dump_json as dump_json
from llm_roofline.cli._format import fit_widths as fit_widths
from llm_roofline.cli._format import fmt_bytes as fmt_bytes
from llm_roofline.cli._format import fmt_count as fmt_count
from llm_roofline.cli._format import fmt_money as fmt_money
from llm_roofline.cli._format import fmt_num as fmt_num
from llm_roofline.cli._format import fmt_range as fmt_range
from llm_roofline.cli._format import fmt_sig as fmt_sig
from llm_roofline.cli._format import fmt_time as fmt_time
from llm_roofline.cli._format import plural as plural
from llm_roofline.cli._format import print_table as print_table
from llm_roofline.cli._format import range_cells as range_cells
from llm_roofline.cli._format import time_cells as time_cells
from llm_roofline.cli._format import time_unit as time_unit
from llm_roofline.engine.options import OVERLAP_MODES

if TYPE_CHECKING:
    from llm_roofline.deploy.deployment import Deployment

# where a help text names the fitted engine families: `HelpFormatter` puts `engine_families()`
# in its place when help is printed (reading profiles.toml at every start would slow them all)
ENGINE_FAMILIES = "<ENGINE FAMILIES>"
ENGINE_HELP = (
    "how a pass is timed: calibrated (default: the realistic estimate with a range, constants "
    "fitted to measurements of this chip's vendor and memory kind), ideal (datasheet peaks, no "
    f"overheads: the lower bound), or a fitted engine family, {ENGINE_FAMILIES} (calibrated, "
    "plus what was measured of that engine)"
)
RANGE_HELP = "A..B = powers of two from A to B (1..256 = 1,2,4,...,256)"


def engine_families() -> str:
    """The engine families `--engine` takes besides calibrated and ideal, as the library lists
    them (`calibrate.list_profiles`: the families fitted in data/profiles.toml), each with the
    other names it answers to: 'llama.cpp (llamacpp, llama-cpp), lmdeploy, ...'."""
    from llm_roofline.calibration import profile as calibrate

    names = calibrate.list_profiles()
    aliases: dict[str, list[str]] = {}
    for name in names:
        family = calibrate.ENGINE_ALIASES.get(name)
        if family is not None:
            aliases.setdefault(family, []).append(name)
    families = [n for n in names if n not in ("calibrated", "ideal", *calibrate.ENGINE_ALIASES)]
    return (
        ", ".join(f + (f" ({', '.join(aliases[f])})" if f in aliases else "") for f in families)
        or "none fitted"
    )


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a description or epilog keeps its paragraphs (blank lines
    between them), and a paragraph with an indented line is printed as written (examples,
    lists); the others are wrapped to the terminal as usual. `ENGINE_FAMILIES` in a flag's
    help becomes the engine families the library has, read as help is printed."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        # a flag's help wrapped between words only: never 'llama-' / 'cpp' or '--max-' / 'chips'
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if text and ENGINE_FAMILIES in text:
            text = text.replace(ENGINE_FAMILIES, engine_families())
        return text

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for para in text.strip("\n").split("\n\n"):
            if any(line.startswith(" ") for line in para.splitlines()):
                out.append("\n".join(indent + line for line in para.splitlines()))
            else:
                out.append(super()._fill_text(para, width, indent))
        return "\n\n".join(out)


class Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit code 2, and takes no abbreviated
    flags (`--tp` must never be read as `--tpot-ms`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        if message.startswith("the following arguments are required"):
            # a newcomer's first error: say where the meanings and an example are, and where
            # a batch to start from comes from
            if "--batch" in message:
                message += (
                    " (--batch: sequences decoding at once; `llm-roofline report` gives this "
                    "deployment's balance batch B* and the largest batch that fits)"
                )
            message += f"; `{self.prog} --help` says what each means, with an example"
        self.exit(2, f"llm-roofline: error: {message}\n")


def examples(*commands: str, width: int = 88) -> str:
    """A verb's epilog: its example command lines, printed below its flags, a long one
    continued on the next line (`\\`) between a flag and the one before it."""
    head = "example:" if len(commands) == 1 else "examples:"
    out = []
    for command in commands:
        units: list[str] = []  # each flag with its value
        for word in command.split(" "):
            if (
                units
                and not word.startswith("-")
                and units[-1].startswith("-")
                and " " not in units[-1]
            ):
                units[-1] += " " + word
            else:
                units.append(word)
        lines = [""]
        for unit in units:
            if lines[-1] and len(lines[-1]) + 1 + len(unit) > width - 8:
                lines.append(unit)
            else:
                lines[-1] = f"{lines[-1]} {unit}" if lines[-1] else unit
        out.append("  " + " \\\n      ".join(lines))
    return head + "\n" + "\n".join(out)


# ---- the deployment flags --------------------------------------------------------------------


def chip_from_args(args: argparse.Namespace) -> Any:
    """The chip of --hardware (a catalog id or a FILE.toml record) at --price when given (0:
    hardware you own)."""
    from llm_roofline.hardware.catalog import get_hardware

    chip = get_hardware(args.hardware)
    given = getattr(args, "price", None)
    return chip if given is None else chip.with_price(given)


def unpriced_note(args: argparse.Namespace) -> str:
    """Why a table has no $ per token: a price of 0 given (hardware you own), or none."""
    if getattr(args, "price", None) == 0:
        return "price 0: hardware you own, so no $ per token (give --price USD per chip-hour)"
    return "no price for this chip in the catalog: no $ per token (give --price USD per chip-hour)"


MODEL_HELP = (
    "a catalog id (`llm-roofline models` lists them), a config.json, or a folder holding one "
    "(a Hugging Face repo's: `huggingface-cli download REPO config.json --local-dir DIR`)"
)


def context_flag(
    p: argparse.ArgumentParser,
    *,
    default: int | None = 4096,
    what: str = "tokens of context per sequence",
) -> None:
    """`--context`: tokens of KV each sequence holds (default 4,096), sizes like 16k."""
    p.add_argument(
        "--context",
        type=positive_int,
        default=default,
        required=default is None,
        metavar="TOKENS",
        help=what
        + (f" (default {default:,})" if default is not None else " (required)")
        + f"; {SIZES}",
    )


def system_flags(
    p: argparse.ArgumentParser,
    chips_list: bool = False,
    *,
    split: bool = True,
    required: bool = True,
    chips: bool = True,
    needed: str = "",
) -> None:
    """The flags of a deployment (`llm_roofline.deploy.deployment`), the same on every verb.
    `required=False`: --model and --hardware are optional to argparse; `needed` says when the
    verb wants them all the same (e.g. "required without --scenarios")."""
    need = " (required)" if required else (f" ({needed})" if needed else "")
    p.add_argument("--model", required=required, help=MODEL_HELP + need)
    p.add_argument(
        "--hardware",
        required=required,
        help="a catalog id (`llm-roofline hardware` lists them) or a chip record FILE.toml "
        "(`llm-roofline hardware ID --toml` prints one to edit)" + need,
    )
    if chips:  # else the verb chooses the chip counts itself (optimize)
        _chips_flag(p, chips_list)
    if split:
        _split_flags(p)
    _dtype_engine_price_flags(p)


def _chips_flag(p: argparse.ArgumentParser, chips_list: bool) -> None:
    """`--chips`: one count, or a list of them (`chips_list`, for a sweep)."""
    if chips_list:
        p.add_argument(
            "--chips",
            type=int_list,
            default="1",
            help=f"chip counts, e.g. 1,8,72 or 1..64 ({RANGE_HELP}; default 1)",
        )
    else:
        p.add_argument(
            "--chips",
            type=positive_int,
            default=1,
            help="chips in all, every replica's (default 1)",
        )


def _split_flags(p: argparse.ArgumentParser) -> None:
    """The split of the chips: --tp, --pp, --ep, --replicas and --pad-heads."""
    rule = "(default: the split rule chooses, docs/deployment.md)"
    p.add_argument("--tp", type=positive_int, help=f"tensor parallel degree {rule}")
    p.add_argument("--pp", type=positive_int, help=f"pipeline stages {rule}")
    p.add_argument("--ep", type=positive_int, help=f"expert parallel degree {rule}")
    p.add_argument(
        "--replicas",
        type=positive_int,
        help=f"independent instances, each holding the whole model {rule}",
    )
    p.add_argument(
        "--pad-heads",
        action="store_true",
        help="pad query heads up to a multiple of tp (as ESTI did for PaLM; default: no)",
    )


def _dtype_engine_price_flags(p: argparse.ArgumentParser) -> None:
    """The data types, the overlap, the engine and the price: --weight-dtype, --kv-dtype,
    --overlap, --engine and --price."""
    p.add_argument(
        "--weight-dtype",
        default="bf16",
        help="weights' data type: bf16, fp8, fp4, int8, int4, q4_k_m, ... (default bf16)",
    )
    p.add_argument(
        "--kv-dtype", default="bf16", help="KV cache data type: bf16, fp8, ... (default bf16)"
    )
    p.add_argument(
        "--overlap",
        default="full",
        choices=OVERLAP_MODES,
        help="how compute and memory traffic overlap in the ideal step: full = max(compute, "
        "memory), the lecture's and the lowest; per-op = each operation's max, summed; none = "
        "the sum (default full)",
    )
    p.add_argument("--engine", default="calibrated", help=ENGINE_HELP)
    p.add_argument(
        "--price",
        type=price,
        help="USD per chip-hour (default: the catalog's rental price; 0: hardware you own, "
        "no $ per token)",
    )


def json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json", action="store_true", help="print JSON for a program (SI units: seconds, bytes)"
    )


def deployment_from_args(args: argparse.Namespace, chips: int | None = None) -> Deployment:
    """The Deployment the flags describe (one rule for every verb)."""
    from llm_roofline.deploy.deployment import deployment

    return deployment(
        args.model,
        args.hardware,
        chips if chips is not None else args.chips,
        tp=getattr(args, "tp", None),
        pp=getattr(args, "pp", None),
        ep=getattr(args, "ep", None),
        replicas=getattr(args, "replicas", None),
        pad_heads=bool(getattr(args, "pad_heads", False)),
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        overlap=getattr(args, "overlap", "full"),
        engine=getattr(args, "engine", None),
        price_usd_per_hour=getattr(args, "price", None),
    )


@contextlib.contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on standard error (rich's, when it is installed and standard error is a
    terminal; nothing otherwise): yields `progress(done, total)`."""
    try:
        from rich.progress import Progress
    except ImportError:  # the `cli` extra is not installed
        Progress = None  # type: ignore[assignment,misc]
    if Progress is None or not sys.stderr.isatty():
        yield lambda _done, _total: None
        return
    from rich.console import Console

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield progress
