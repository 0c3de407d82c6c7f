"""The `llm-roofline` command line: a thin front end over the library (no formulas here).

Verbs: models, hardware, report, predict, sweep, optimize, sensitivity, fast-mode, simulate,
plan, validate, calibrate, measure, serve, pricing, cache-tiers, balance, demo (the order of
`llm-roofline --help`).
Tables use `rich` when it is installed (extra `cli`) and plain aligned text otherwise;
`--json` prints what a program reads. Bad input exits with code 2 and one line on stderr,
never a traceback. matplotlib, rich and torch are imported only inside the verbs that need
them, and importing this package loads no numpy (`benchmarks/startup.py`,
`tests/cli/test_startup.py`).

One module per verb group, each verb's parser beside its handler: `cmd_catalog` (models,
hardware), `cmd_report` (report, sweep, demo), `cmd_predict`, `cmd_optimize`, `cmd_whatif`
(sensitivity, fast-mode), `cmd_simulate`, `cmd_plan`, `cmd_validation` (validate, calibrate,
measure), `cmd_serve`, `cmd_economics` (cache-tiers, balance) and `cmd_pricing` (pricing);
`_common` holds the parser class, the deployment flags and the one-line errors, `_args` the
argument types, `_format` the output as people read it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from llm_roofline.cli import (
    cmd_catalog,
    cmd_economics,
    cmd_optimize,
    cmd_plan,
    cmd_predict,
    cmd_report,
    cmd_serve,
    cmd_simulate,
    cmd_validation,
    cmd_whatif,
)
from llm_roofline.cli._common import Parser

__all__ = ["build_parser", "main"]


# which verb answers which question, for someone who has read nothing else (`--help`'s end)
_QUESTIONS = (
    ("size a fleet for a traffic (rate, lengths, latency targets)", "plan"),
    ("one deployment's speed, fit in memory and cost per token", "report"),
    ("what-ifs: each chip figure +10%; tokens F× faster per user", "sensitivity, fast-mode"),
    ("what API prices imply about the hardware and the model", "pricing"),
    ("the ids that --model and --hardware take", "models, hardware"),
)
EPILOG = (
    "which verb answers which question:\n"
    + "\n".join(f"  {q:<62}{verb}" for q, verb in _QUESTIONS)
    + """

examples:
  llm-roofline report --model llama-3.1-8b --hardware rtx-4090
  llm-roofline plan --model llama-3.1-70b --hardware h100-sxm,mi300x --rate 4 \\
      --input-len 2k --output-len 256 --ttft-p90-ms 1000 --tpot-p99-ms 30
  llm-roofline demo    (the lecture's deployment: DeepSeek-V3 on a GB200 NVL72 rack)

`llm-roofline VERB --help` gives a verb's flags, each with its default and unit."""
)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="llm-roofline",
        description="How fast can this model run on that hardware, and what does a token cost?",
        epilog=EPILOG,
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser, title="verbs")
    # the order here is the order `llm-roofline --help` lists the verbs in
    cmd_catalog.add_parsers(sub)  # models, hardware
    cmd_report.add_report_parser(sub)
    cmd_predict.add_parsers(sub)
    cmd_report.add_sweep_parser(sub)
    cmd_optimize.add_parsers(sub)
    cmd_whatif.add_parsers(sub)  # sensitivity, fast-mode
    cmd_simulate.add_parsers(sub)
    cmd_plan.add_parsers(sub)
    cmd_validation.add_parsers(sub)  # validate, calibrate, measure
    cmd_serve.add_parsers(sub)
    cmd_economics.add_parsers(sub)  # pricing, cache-tiers, balance
    cmd_report.add_demo_parser(sub)
    return p


def _warning_line(message: Warning | str, *_: object, **__: object) -> None:
    """A warning as one line on stderr, `llm-roofline: warning: ...` (no file:line)."""
    print(f"llm-roofline: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:  # no verb: what there is to ask, and how (still a usage error)
        parser.print_help(sys.stderr)
        print("\nllm-roofline: error: give a verb (listed above)", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    import warnings

    from llm_roofline._core.errors import LlmRooflineError, LlmRooflineWarning

    with warnings.catch_warnings():  # restores the filters and the printer afterwards
        warnings.simplefilter("default", LlmRooflineWarning)  # each distinct one once
        warnings.showwarning = _warning_line
        try:
            return int(args.func(args))
        except LlmRooflineError as exc:
            print(f"llm-roofline: error: {exc}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # the reader (e.g. `head`) stopped reading: not an error
            sys.stderr.close()
            return 0
        except OSError as exc:  # an output file that cannot be written
            print(f"llm-roofline: error: {exc.strerror or exc}: {exc.filename}", file=sys.stderr)
            return 2
