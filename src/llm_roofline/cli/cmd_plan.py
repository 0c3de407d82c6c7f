"""Verb `plan`: the cheapest fleet that serves a traffic within its latency targets
(`llm_roofline.planning.fleet_plan`)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from llm_roofline._core import units
from llm_roofline.cli._common import (
    ENGINE_HELP,
    MODEL_HELP,
    SIZES,
    Parser,
    dump_json,
    examples,
    fmt_money,
    fmt_time,
    json_flag,
    positive_float,
    positive_int,
    print_table,
    progress_bar,
)
from llm_roofline.cli.plan_text import ms_text, print_fleet

if TYPE_CHECKING:
    from llm_roofline.hardware.chip import Chip
    from llm_roofline.planning.fleet_plan import Fleet, FleetRequest, PlanResult

PRICE_HELP = (
    "USD per chip-hour, for every $ figure: one number when --hardware names one chip, or "
    "ID=USD,ID=USD for several, e.g. h100-sxm=2.5,mi300x=2, or --price once per chip; one "
    "price per chip (default: the catalog's price, which `llm-roofline hardware` lists; a "
    "FILE.toml record carries its own)"
)


def price_arg(text: str) -> float | list[tuple[str, float]]:
    """--price: one positive number, or ID=USD pairs separated by commas, as (id, USD) in
    the order given (`fleet_request.priced_chips` refuses two for one chip)."""
    if "=" not in text:
        try:
            return positive_float(text)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"expected USD per chip-hour (a positive number: plan ranks fleets by cost) or "
                f"ID=USD,ID=USD, got {text!r}"
            ) from None
    out: list[tuple[str, float]] = []
    for item in (x for x in text.split(",") if x.strip()):
        hw, _, usd = item.partition("=")
        try:
            if not hw.strip():
                raise argparse.ArgumentTypeError("")
            out.append((hw.strip().lower(), positive_float(usd.strip())))
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"expected ID=USD,ID=USD with positive prices (USD per chip-hour), e.g. "
                f"h100-sxm=2.5,mi300x=2, got {item.strip()!r}"
            ) from None
    return out


def _chips(args: argparse.Namespace) -> list[Chip]:
    """The chips of --hardware (ids or FILE.toml records), each at its --price when given."""
    from llm_roofline._core.errors import InputError
    from llm_roofline.hardware.catalog import get_hardware
    from llm_roofline.planning.fleet_plan import priced_chips

    names = [h.strip() for h in args.hardware.split(",") if h.strip()]
    if not names:
        raise InputError("--hardware: give at least one catalog id or FILE.toml", "hardware")
    chips = [get_hardware(h) for h in names]
    given = args.price or []  # one entry a --price: a number, or (id, USD) pairs
    numbers = [g for g in given if isinstance(g, float)]
    if numbers and len(given) > 1:
        raise InputError(
            f"--price given {len(given)} times, once as the number {numbers[0]:g}: a number "
            "prices the one chip of --hardware; give it once, or ID=USD,ID=USD for several",
            field="price",
        )
    if numbers:
        if len(chips) > 1:
            raise InputError(
                f"--price {numbers[0]:g}: one number prices one chip, and --hardware names "
                f"{len(chips)}; give ID=USD,ID=USD (e.g. "
                + ",".join(f"{c.id}=2" for c in chips[:2])
                + ")",
                field="price",
            )
        given = [[(chips[0].id, numbers[0])]]
    # every --price's pairs together: a chip priced twice is refused there, naming it
    pairs = [pair for g in given if not isinstance(g, float) for pair in g]
    chips = priced_chips(chips, pairs, field="price")
    from llm_roofline.engine.cost import is_priced

    for c in chips:
        if not is_priced(c):
            raise InputError(
                f"{c.id} has no price in the catalog, and plan ranks fleets by cost: give "
                f"--price USD per chip-hour",
                field="price",
            )
    return chips


def _meets(r: Mapping[str, Any], ttft_ms: float, tpot_ms: float) -> str:
    """'yes', or 'no' and what missed: a target, or the capacity (a fleet must serve a little
    more than the rate). `r`: a Fleet, or its row as a mapping."""
    if r["meets_slo"]:
        return "yes"
    missed = [
        name
        for name, t, target in (
            ("TTFT", r["ttft_p90_s"], ttft_ms),
            ("TPOT", r["tpot_p99_s"], tpot_ms),
        )
        if t is not None and t / units.ms > target
    ]
    return "no: " + (", ".join(missed) if missed else "capacity")


def _shape(r: Fleet) -> str:
    """A fleet's instances in a table cell: '2 × tp 1' or 'P 1 × tp 2 + D 3 × tp 1'."""
    ps, ds = r.prefill_split, r.decode_split
    if ps is not None and ds is not None:
        return (
            f"P {r.prefill_instances} × tp {ps.tp} pp {ps.pp} + "
            f"D {r.decode_instances} × tp {ds.tp} pp {ds.pp}"
        )
    return (
        f"{r.replicas} × tp {r.tp} pp {r.pp}"
        + (f" ep {r.ep}" if r.ep > 1 else "")
        + (f" dp {r.dp}" if r.dp > 1 else "")
    )


def _request(args: argparse.Namespace) -> FleetRequest:
    """The question of the command line (targets in ms, chips priced by --price)."""
    from llm_roofline.planning.fleet_plan import FleetRequest

    ms = units.ms
    return FleetRequest(
        args.model,
        _chips(args),
        rate=args.rate,
        input_len=args.input_len,
        output_len=args.output_len,
        ttft_p90_s=args.ttft_p90_ms * ms,
        tpot_p99_s=args.tpot_p99_ms * ms,
        max_chips=args.max_chips,
        disagg=args.disagg,
        engine=args.engine,
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        length_dist=args.length_dist,
        requests=args.requests,
        seed=args.seed,
        max_seqs=args.max_seqs,
        max_batched_tokens=args.max_batched_tokens,
        serving_engine=args.serving_engine,
    )


def cmd_plan(args: argparse.Namespace) -> int:
    from llm_roofline.planning.fleet_plan import plan

    request = _request(args)
    with progress_bar("planning") as progress:
        res = plan(request, progress=progress)
    if args.json:
        dump_json(res.as_dict())
        return 0
    _print_best(res, args.ttft_p90_ms, args.tpot_p99_ms)
    _print_frontier(res.candidates, args.ttft_p90_ms, args.tpot_p99_ms)
    s = res.searched
    for chip, why in s.unsimulated.items():  # the hardware that lost, and why
        print(f"{chip}: {why}")
    print(
        f"searched {s.instance_shapes} instance shapes ({s.within_bounds} within the "
        f"bounds), {s.pruned_by_bound} pruned by their cost bound, "
        f"{s.simulations} simulations, {fmt_time(s.seconds)}"
    )
    return 0


def _print_best(res: PlanResult, ttft_ms: float, tpot_ms: float) -> None:
    """The question in one line, then the best fleet (or why there is none)."""
    q = res.request
    print(
        f"{q.model_id} at {units.sig(q.rate, 6)} requests/s of {q.input_len:,} → "
        f"{q.output_len:,} tokens ({q.length_dist}); targets TTFT p90 ≤ "
        f"{ttft_ms:g} ms, TPOT p99 ≤ {tpot_ms:g} ms; engine {res.engine}"
    )
    b = res.best
    if b is None:
        n = q.max_chips
        print(f"no fleet of up to {n} chip{'s' if n > 1 else ''} meets both targets: {res.reason}")
        return
    for label, f in (("best", b), ("runner-up", res.runner_up)):
        if f is not None:
            print_fleet(label, f, res, ttft_ms, tpot_ms)


def _print_frontier(fleets: list[Fleet], ttft_ms: float, tpot_ms: float) -> None:
    """The fleets simulated that no other beats, both times in ms as the targets are given,
    each to the digits that show which side of its target it falls ("≥": a lower bound, the
    run stopped once a target was certain to be missed)."""
    rows = [
        (
            r.hardware,
            str(r.chips),
            _shape(r),
            fmt_money(r.usd_per_hour),
            ("≥ " if r.stopped else "") + ms_text(r.ttft_p90_s, ttft_ms),
            ("≥ " if r.stopped else "") + ms_text(r.tpot_p99_s, tpot_ms),
            _meets(r, ttft_ms, tpot_ms),
        )
        for r in fleets
    ]
    if rows:
        print_table(
            "fleets simulated: the frontier of cost against TTFT and TPOT",
            (
                "hardware",
                "chips",
                "instances",
                "$/hour",
                "TTFT p90 (ms)",
                "TPOT p99 (ms)",
                "meets",
            ),
            rows,
        )


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "plan",
        help="the cheapest fleet (chips, split, replicas, disaggregation) meeting TTFT/TPOT "
        "targets at a request rate",
        description="Size a fleet for a traffic: search hardware × chips per instance × split "
        "× replicas, aggregated or with prefill and decode on separate pools, for the cheapest "
        "fleet whose simulated TTFT p90 and TPOT p99 meet the targets at the rate (requests "
        "per second, each of --input-len prompt and --output-len output tokens). Cheapest is "
        "by cost per hour: chips × the price per chip-hour, the catalog's (`llm-roofline "
        "hardware` lists it) unless --price or a FILE.toml record gives another. Bounds from "
        "the ideal engine prune the search before anything is simulated. docs/planning.md.",
        epilog=examples(
            "llm-roofline plan --model llama-3.1-70b --hardware h100-sxm,mi300x --rate 4 "
            "--input-len 2k --output-len 256 --ttft-p90-ms 1000 --tpot-p99-ms 30",
            "llm-roofline plan --model llama-3.1-8b --hardware h100-sxm --price 2 --rate 10 "
            "--input-len 1k --output-len 256 --ttft-p90-ms 500 --tpot-p99-ms 40",
        ),
    )
    _question_args(p)
    _search_args(p)
    json_flag(p)
    p.set_defaults(func=cmd_plan)


def _question_args(p: Parser) -> None:
    """The question: the model, the chips and their prices, the traffic and its targets."""
    p.add_argument("--model", required=True, help=f"{MODEL_HELP} (required)")
    p.add_argument(
        "--hardware",
        required=True,
        help="the chips to choose from, comma-separated: catalog ids (`llm-roofline hardware` "
        "lists them) or chip records FILE.toml (`llm-roofline hardware ID --toml` prints one "
        "to edit, price included), e.g. h100-sxm,mi300x or h100-sxm,my-chip.toml (required)",
    )
    p.add_argument(
        "--price", type=price_arg, action="append", metavar="USD|ID=USD,...", help=PRICE_HELP
    )
    p.add_argument(
        "--rate", type=positive_float, required=True, help="requests per second (required)"
    )
    p.add_argument(
        "--input-len",
        type=positive_int,
        required=True,
        metavar="TOKENS",
        help=f"prompt tokens per request, the mean (required; {SIZES})",
    )
    p.add_argument(
        "--output-len",
        type=positive_int,
        required=True,
        metavar="TOKENS",
        help="output tokens per request, the mean (required)",
    )
    p.add_argument(
        "--ttft-p90-ms",
        type=positive_float,
        required=True,
        help="target TTFT, 90th pct, ms (required)",
    )
    p.add_argument(
        "--tpot-p99-ms",
        type=positive_float,
        required=True,
        help="target TPOT, 99th pct, ms (required)",
    )


def _search_args(p: Parser) -> None:
    """How to search: the fleet's limit, the engine and data types, the simulations."""
    from llm_roofline.planning.fleet_plan import DISAGG_CHOICES
    from llm_roofline.sim.workload import LENGTH_DISTS

    p.add_argument(
        "--max-chips",
        type=positive_int,
        default=64,
        help="most chips the whole fleet may use (default 64)",
    )
    p.add_argument(
        "--disagg",
        default="auto",
        choices=DISAGG_CHOICES,
        help="prefill and decode on separate pools: auto (try both, default), yes, no",
    )
    p.add_argument("--engine", default="calibrated", help=ENGINE_HELP)
    p.add_argument(
        "--weight-dtype",
        default="bf16",
        help="weights' data type: bf16, fp8, fp4, int8, int4, ... (default bf16)",
    )
    p.add_argument(
        "--kv-dtype", default="bf16", help="KV cache data type: bf16, fp8, ... (default bf16)"
    )
    p.add_argument(
        "--length-dist",
        default="fixed",
        choices=LENGTH_DISTS,
        help="request lengths: fixed (default), normal, lognormal or sharegpt-like",
    )
    p.add_argument(
        "--requests",
        type=positive_int,
        default=2000,
        help="requests each simulation serves, on each of three seeded draws (default 2000)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--max-seqs", type=positive_int, default=256, help="sequences per instance (default 256)"
    )
    p.add_argument(
        "--max-batched-tokens",
        type=positive_int,
        default=8192,
        help="tokens per step per instance (default 8192)",
    )
    from llm_roofline.sim.serving_engines import DEFAULT_ENGINE, ENGINE_NAMES

    p.add_argument(
        "--serving-engine",
        default=DEFAULT_ENGINE,
        choices=ENGINE_NAMES,
        help="the engine whose documented defaults serve each simulation: KV memory share, "
        "fixed costs and scheduling (default vllm; roofline: the simulator's own); "
        "--max-seqs and --max-batched-tokens replace its sequence cap and budget",
    )
