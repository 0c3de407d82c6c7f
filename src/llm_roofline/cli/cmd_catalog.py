"""Verbs `models` and `hardware`: list the catalogs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from llm_roofline._core import units
from llm_roofline.cli._common import (
    Parser,
    dump_json,
    examples,
    json_flag,
    plural,
    print_table,
    time_cells,
)
from llm_roofline.hardware.record import STATUSES

if TYPE_CHECKING:
    from llm_roofline.hardware.chip import Chip


def cmd_models(args: argparse.Namespace) -> int:
    from llm_roofline.model.checkpoints import list_models, model_entry

    rows = []
    for mid in list_models():
        e = model_entry(mid)
        s = e.spec
        if args.filter and args.filter.lower() not in f"{mid} {e.name}".lower():
            continue
        if (args.moe and not s.is_moe) or (args.dense and s.is_moe):
            continue
        if args.attention and s.attention.kind != args.attention:
            continue
        rows.append(
            {
                "id": mid,
                "name": e.name,
                "attention": s.attention.kind,
                "moe": s.is_moe,
                "layers": s.n_layers,
                "params_stored": s.params_stored,
                "params_multiplied": s.params_multiplied,
                "kv_bytes_per_token_bf16": s.kv_bytes_per_token(2.0),
                "max_context": s.max_context,
                "config_provenance": e.meta.get("config_provenance", ""),
                "config_source": e.meta.get("config_source", ""),
                "published_params_source": e.meta.get("published_params_source", ""),
            }
        )
    if args.json:
        dump_json(rows)
        return 0
    headers = ["id", "attn", "MoE", "layers", "stored", "per token", "KV/token (bf16)", "config"]
    if args.sources:
        headers.append("config source")
    table = []
    for r in rows:
        cells = [
            r["id"],
            r["attention"],
            "yes" if r["moe"] else "no",
            str(r["layers"]),
            f"{r['params_stored'] / units.giga:.1f}B",
            f"{r['params_multiplied'] / units.giga:.1f}B",
            f"{r['kv_bytes_per_token_bf16'] / units.KB:.1f} kB",
            r["config_provenance"],
        ]
        if args.sources:
            cells.append(r["config_source"])
        table.append(cells)
    print_table(plural(len(rows), "model"), headers, table)
    return 0


def cmd_hardware(args: argparse.Namespace) -> int:
    from llm_roofline.hardware.catalog import get_hardware, hardware_toml, list_hardware

    if args.id is not None:
        chip = get_hardware(args.id)
        if args.toml:
            print(hardware_toml(chip), end="")
            return 0
        chips = [chip]
    elif args.toml:
        from llm_roofline._core.errors import InputError

        raise InputError("--toml prints one record: give its id, e.g. hardware h100-sxm --toml")
    else:
        chips = [get_hardware(hid) for hid in list_hardware()]
    rows = [_hardware_row(c) for c in chips if _hardware_wanted(c, args)]
    if args.json:
        dump_json(rows)
        return 0
    _print_hardware_table(rows, {c.id: c for c in chips})
    _print_hardware_notes(rows, args.sources)
    return 0


def _hardware_wanted(c: Chip, args: argparse.Namespace) -> bool:
    """Whether a chip passes --filter (a substring of its id, name or vendor) and --status."""
    if args.filter and args.filter.lower() not in f"{c.id} {c.name} {c.vendor}".lower():
        return False
    return not (args.status and c.status != args.status)


def _hardware_row(c: Chip) -> dict[str, Any]:
    """One chip's record as `hardware --json` prints it (SI units)."""
    return {
        "id": c.id,
        "name": c.name,
        "vendor": c.vendor,
        "class": c.chip_class,
        "status": c.status,
        "peak_flops": {k: v for k, v in c.peak_flops.items()},
        "memory_bytes": c.memory_bytes,
        "memory_bandwidth_bytes_per_s": c.memory_bw,
        "ops_per_byte": c.ops_per_byte,
        "drain_time_s": c.drain_time_s,
        "scale_up_domain": c.scale_up_domain,
        "price_usd_per_hour": c.price_usd_per_s * units.hour or None,
        "price_date": c.price_date or None,
        "estimated": list(c.estimated),
        "sources": dict(c.sources),
    }


def _print_hardware_table(rows: list[dict[str, Any]], by_id: dict[str, Chip]) -> None:
    """The catalog's table: one line a chip, its 16-bit FLOP/s read from the chip itself."""
    drain_unit, drains = time_cells([r["drain_time_s"] for r in rows])
    headers = [
        "id",
        "class",
        "16-bit TFLOP/s",
        "memory GB",
        "TB/s",
        "ops:byte",
        f"drain ({drain_unit})",
        "domain",
        "$/chip-h",
    ]
    table = []
    for r, drain in zip(rows, drains, strict=True):
        c = by_id[r["id"]]
        table.append(
            [
                r["id"],
                r["class"],
                f"{c.flops(c.compute_dtype_for('bf16')) / units.tera:,.0f}",
                f"{r['memory_bytes'] / units.GB:.0f}",
                f"{r['memory_bandwidth_bytes_per_s'] / units.TB:.2f}",
                f"{r['ops_per_byte']:.0f}",
                drain,
                str(r["scale_up_domain"]),
                f"{r['price_usd_per_hour']:.2f}" if r["price_usd_per_hour"] else "n/a",
            ]
        )
    print_table(plural(len(rows), "chip"), headers, table)


def _print_hardware_notes(rows: list[dict[str, Any]], sources: bool) -> None:
    """The notes below the table, not in it (a column of them made it 220 characters wide):
    chips announced, figures estimated, and with --sources the source of every figure."""
    announced = [r["id"] for r in rows if r["status"] == "announced"]
    if announced:
        print(f"announced, not shipping yet: {', '.join(announced)}")
    estimated = [r for r in rows if r["estimated"]]
    if estimated:
        print("estimated, not published (--sources gives the basis):")
        for r in estimated:
            print(f"  {r['id']}: {', '.join(r['estimated'])}")
    if sources:
        for r in rows:
            print(f"{r['id']}:")
            for key, src in sorted(r["sources"].items()):
                print(f"  {key}: {src}")


def add_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    m = sub.add_parser(
        "models",
        help="list the model catalog (the ids --model takes)",
        description="The model catalog: each model's attention kind, layers, parameters stored "
        "and parameters multiplied per token (an MoE's active ones), KV cache bytes per token "
        "(bf16), and where its config.json was read. Its ids are what --model takes; any "
        "Hugging Face config.json, or a folder holding one, works as well.",
        epilog=examples("llm-roofline models --filter llama", "llm-roofline models --moe"),
    )
    m.add_argument("--filter", metavar="TEXT", help="substring of the id or name (default: all)")
    m.add_argument("--moe", action="store_true", help="mixtures of experts only")
    m.add_argument("--dense", action="store_true", help="dense models only")
    m.add_argument(
        "--attention",
        choices=["mha", "gqa", "mqa", "mla"],
        help="one attention kind only: multi-head, grouped-query, multi-query or DeepSeek's "
        "multi-head latent (default: all)",
    )
    m.add_argument("--sources", action="store_true", help="show where each config was read")
    json_flag(m)
    m.set_defaults(func=cmd_models)

    h = sub.add_parser(
        "hardware",
        help="list the hardware catalog (the ids --hardware takes), or print one record",
        description="The hardware catalog: each chip's 16-bit dense peak FLOP/s, memory "
        "capacity and bandwidth, ops:byte (FLOP/s ÷ bytes/s: the FLOPs a step must do per byte "
        "it reads to be compute-bound), drain time (memory capacity ÷ bandwidth: the time to "
        "read every byte once), scale-up domain (the chips one fast link joins) and rental "
        "price per chip-hour, which every $ figure uses. Its ids are what --hardware takes. "
        "For a chip of your own, or your own price, print a record with --toml, edit it and "
        "pass the file as --hardware FILE.toml.",
        epilog=examples(
            "llm-roofline hardware --filter rtx",
            "llm-roofline hardware h100-sxm --toml > my-h100.toml",
        ),
    )
    h.add_argument(
        "id", nargs="?", help="one chip: a catalog id or a FILE.toml record (default: all)"
    )
    h.add_argument(
        "--toml",
        action="store_true",
        help="print the record in the catalog's schema (edit it, then pass --hardware FILE.toml)",
    )
    h.add_argument(
        "--filter", metavar="TEXT", help="substring of the id, name or vendor (default: all)"
    )
    h.add_argument(
        "--status", choices=STATUSES, help="shipping or announced chips only (default: both)"
    )
    h.add_argument("--sources", action="store_true", help="show the source of every figure")
    json_flag(h)
    h.set_defaults(func=cmd_hardware)
