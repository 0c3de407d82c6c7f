"""The hardware catalog: every record loads, every figure has a source, and the figures sit in
plausible ranges, so a typo or a sparse figure entered as dense fails here. Also chips of one's
own: `hardware_toml` prints a record in the catalog's schema, `get_hardware(path)` loads one back,
and a bad record is refused with one line naming the file and the field."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import llm_roofline as lr
from llm_roofline.hardware.catalog import hardware_records, hardware_toml
from llm_roofline.hardware.chip import CHIP_CLASSES
from llm_roofline.validation.measure import MachineReport

# docs/catalog.md, "Ids other programs rely on": every hardware id the catalog must hold.
REQUIRED = """a100-40gb a100-80gb h100-sxm h100-pcie h800 h200 b200 b300 gb200 gb300 rubin
rubin-ultra mi250x mi300x mi325x mi355x tpu-v4 tpu-v5e tpu-v5p tpu-v6e tpu-v7 trn2 gaudi2 gaudi3
l4 l40s rtx-3090 rtx-4090 rtx-5090 rtx-pro-6000 apple-m1-max apple-m2-ultra apple-m3-max
apple-m4-max ryzen-ai-max-395""".split()
# Every record in the catalog, required or not: the checks below run on all of them.
ALL = lr.list_hardware()

NUMERIC_KEYS_NEED_SOURCE = True
NON_FIGURE_KEYS = {"year"}  # a release year is not a datasheet figure


def test_every_required_id_present() -> None:
    missing = sorted(set(REQUIRED) - set(lr.list_hardware()))
    assert not missing, f"missing hardware ids: {missing}"
    # 32 chips before L4, Gaudi 2 and Rubin Ultra were added
    assert len(lr.list_hardware()) >= 33


@pytest.mark.parametrize("hw_id", ALL)
def test_record_loads_and_every_figure_has_a_source(hw_id: str) -> None:
    rec = hardware_records()[hw_id]
    chip = lr.get_hardware(hw_id)
    sources = rec.get("sources", {})
    for key, value in rec.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if key in NON_FIGURE_KEYS:
                continue
            src = sources.get(key, "")
            assert isinstance(src, str) and src.startswith("http"), f"{hw_id}.{key} has no source"
    assert rec.get("status") in ("shipping", "announced")
    assert not ("memory_capacity_gb" in rec and "memory_capacity_gib" in rec)
    if chip.price_usd_per_s > 0:
        assert rec.get("price_date"), f"{hw_id}: a price needs its date"
    assert chip.name and chip.vendor


# The class of every catalog chip (docs/catalog.md, "Chip classes"); any other id: datacenter-gpu.
CLASSES = {
    **{h: "consumer-gpu" for h in ("rtx-3090", "rtx-4090", "rtx-5090")},
    **{h: "tpu" for h in ALL if h.startswith("tpu-")},
    **{h: "accelerator" for h in ("trn2", "gaudi2", "gaudi3")},
    **{h: "soc" for h in ALL if h.startswith(("apple-", "ryzen-"))},
}


@pytest.mark.parametrize("hw_id", ALL)
def test_every_catalog_chip_states_a_valid_class(hw_id: str) -> None:
    rec = hardware_records()[hw_id]
    assert rec.get("class") in CHIP_CLASSES, f"{hw_id}: class {rec.get('class')!r}"
    chip = lr.get_hardware(hw_id)
    assert chip.chip_class == rec["class"] == CLASSES.get(hw_id, "datacenter-gpu")


def test_hardware_kinds_hold_catalog_chips_and_fall_back_to_vendor_and_class() -> None:
    # the kinds leave-one-kind-out holds out together (docs/validation.md): every id in them is
    # a catalog chip, each in one kind; the RTX PRO 6000 Server (named like a GeForce card) is
    # not among the consumer GPUs
    from llm_roofline.calibration.profile import HARDWARE_KINDS, chip_kind

    listed = [h for ids in HARDWARE_KINDS.values() for h in ids]
    assert len(listed) == len(set(listed)) and set(listed) <= set(ALL)
    assert chip_kind(lr.get_hardware("rtx-4090")) == "consumer GPUs"
    assert chip_kind(lr.get_hardware("rtx-pro-6000")) == "NVIDIA workstation"
    # a chip in no kind: its vendor and class
    assert chip_kind(lr.get_hardware("ryzen-ai-max-395")) == "AMD soc"


@pytest.mark.parametrize("hw_id", ALL)
def test_plausible_ranges(hw_id: str) -> None:
    c = lr.get_hardware(hw_id)
    # Announced parts may pass today's ceilings: a Rubin Ultra package holds 1 TB of HBM4e at
    # 32 TB/s, and its 16-bit estimate is 5 EF FP8 / 144 packages / 2 = 17.4 PFLOP/s.
    announced = c.status == "announced"
    # 16-bit dense matrix peak: 10 TFLOP/s (a laptop GPU) to 10 PFLOP/s (a 2026 rack GPU)
    f16 = c.flops(c.compute_dtype_for("bf16"))
    assert 5e12 <= f16 <= (20e15 if announced else 10e15), f"{hw_id}: 16-bit peak {f16:.3g}"
    # ops:byte ratio: ~20 (Apple GPUs) to ~600 (TPU v6e); a sparse figure doubles it
    assert 15 <= c.ops_per_byte <= 700, f"{hw_id}: ratio {c.ops_per_byte:.0f}"
    # memory: 16 GB to 300 GB per chip; bandwidth 0.2 to 25 TB/s
    assert 15e9 <= c.memory_bytes <= (1.1e12 if announced else 300e9)
    assert 0.2e12 <= c.memory_bw <= (40e12 if announced else 25e12)
    # drain time (capacity / bandwidth): 10 ms (HBM) to 1 s (LPDDR on a laptop chip)
    assert 10e-3 <= c.drain_time_s <= 1.0
    # lower precision never slower than higher precision where both exist (int8 may be cut)
    p = c.peak_flops
    if "fp8" in p and "bf16" in p:
        assert p["fp8"] >= p["bf16"]
    if "fp4" in p and "fp8" in p:
        assert p["fp4"] >= p["fp8"]
    if "fp32" in p and "bf16" in p:
        assert p["fp32"] <= p["bf16"]
    # links: scale-up faster than scale-out where both exist
    if c.scale_up_bw and c.scale_out_bw:
        assert c.scale_up_bw >= c.scale_out_bw
    assert c.scale_up_domain >= 1
    if c.price_usd_per_s:
        assert 0.01 <= c.price_usd_per_s * 3600 <= 50
        # $ per hour of one dense 16-bit PFLOP/s: H100 SXM about $2.5 ($2.5/h ÷ 0.989);
        # a figure far outside 0.1-30 is a price or a peak off by an order of magnitude
        usd_per_pflop_hour = c.price_usd_per_s * 3600 / (f16 / 1e15)
        assert 0.1 <= usd_per_pflop_hour <= 30, f"{hw_id}: ${usd_per_pflop_hour:.3g}/PFLOP-h"
    if c.power_w:
        assert 20 <= c.power_w <= 3000


# Anchors: dense peaks that published sources state, so a sparse figure cannot slip in.
ANCHORS = [
    # (id, dtype, dense FLOP/s, source)
    ("h100-sxm", "bf16", 989e12, "lecture / reference-cases.md: H100 bf16 989e12"),
    ("h800", "bf16", 989e12, "same GH100 tensor throughput as H100 SXM"),
    ("h200", "bf16", 989e12, "NVIDIA H200 datasheet: 1,979 TFLOPS BF16 with sparsity"),
    ("a100-80gb", "bf16", 312e12, "kipply 2022: A100 312e12"),
    ("a100-40gb", "bf16", 312e12, "NVIDIA A100 datasheet: 312 TFLOPS BF16 dense"),
    ("b200", "bf16", 2.25e15, "NVIDIA HGX B200: 36 PFLOPS FP16/BF16 sparse for 8 GPUs"),
    ("gb200", "bf16", 2.5e15, "NVIDIA GB200 NVL72: 360 PFLOPS FP16/BF16 sparse for 72 GPUs"),
    ("l40s", "bf16", 362e12, "NVIDIA L40S datasheet: 733 TFLOPS BF16 with sparsity"),
    ("mi300x", "bf16", 1307.4e12, "AMD Instinct MI300X data sheet: 1307.4 TFLOPS BF16 dense"),
    ("mi325x", "bf16", 1307.4e12, "AMD Instinct MI325X: same compute die as MI300X"),
    ("gaudi3", "bf16", 1835e12, "Intel Gaudi 3 white paper: 1,835 TFLOPS BF16 matrix"),
    ("tpu-v4", "bf16", 275e12, "ESTI (arXiv 2211.05102): TPU v4 275 TFLOP/s"),
    ("tpu-v5e", "bf16", 1.97e14, "JAX scaling book: v5e 1.97e14"),
    ("tpu-v5p", "bf16", 4.59e14, "JAX scaling book, Serving LLaMA: v5p 4.59e14"),
    ("tpu-v6e", "bf16", 918e12, "Google Cloud TPU v6e docs: 918 TFLOPS BF16 per chip"),
    ("trn2", "bf16", 667e12, "AWS Trainium2: 667 TFLOPS BF16 dense per chip"),
    ("l4", "bf16", 121e12, "NVIDIA L4: 242 TFLOPS FP16/BF16 with sparsity; 242 / 2 = 121"),
    ("l4", "fp8", 242.5e12, "NVIDIA L4: 485 TFLOPS FP8 with sparsity; 485 / 2 = 242.5"),
    ("gaudi2", "bf16", 432e12, "Intel, Hot Chips 2024: Gaudi 2 peak BF16 432 TFLOPs"),
    ("mi300x", "fp8", 2614.9e12, "AMD ROCm MI300 page: matrix FP8 2614.9 TFLOPS"),
]


# Figures no source publishes, so these records leave them out (rather than invent them).
# (Gaudi 2: no rental or list price found; Rubin Ultra: per-package power, NIC and price not
# announced.)
UNPUBLISHED = {
    "power_w": {"rubin", "rubin-ultra", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7", "trn2"},
    "price_usd_per_hour": {"tpu-v7", "gaudi2", "rubin-ultra"},
    "scale_out_bandwidth_gb_per_s": {"tpu-v4", "rubin-ultra"},
}


@pytest.mark.parametrize("key", sorted(UNPUBLISHED))
def test_missing_figures_are_exactly_the_unpublished_ones(key: str) -> None:
    missing = {h for h in ALL if key not in hardware_records()[h]}
    assert missing == UNPUBLISHED[key]


@pytest.mark.parametrize(("hw_id", "dtype", "flops", "source"), ANCHORS)
def test_dense_anchor_figures(hw_id: str, dtype: str, flops: float, source: str) -> None:
    assert lr.get_hardware(hw_id).flops(dtype) == pytest.approx(flops, rel=0.01), source


def test_h100_bandwidth_and_ratio() -> None:
    # lecture: H100 bf16 989e12 / 3.35e12 ≈ 295
    c = lr.get_hardware("h100-sxm")
    assert c.memory_bw == pytest.approx(3.35e12)
    assert c.ops_per_byte == pytest.approx(295, rel=0.01)


def test_announced_parts_are_marked() -> None:
    assert lr.get_hardware("rubin").status == "announced"
    assert lr.get_hardware("rubin-ultra").status == "announced"


def test_rubin_scale_up_domains_count_packages() -> None:
    # The catalog's chip is a package: gb200 in an NVL72 rack = 72 packages of 2 dies each.
    assert lr.get_hardware("gb200").scale_up_domain == 72
    # NVIDIA (GTC 2025): "Vera Rubin NVL144" counts 144 dies, 2 per Rubin package: 144 / 2 = 72
    rubin = lr.get_hardware("rubin")
    assert rubin.scale_up_domain == 144 // 2 == 72
    # "Rubin Ultra NVL576" counts 576 dies, 4 per Rubin Ultra package: 576 / 4 = 144
    ultra = lr.get_hardware("rubin-ultra")
    assert ultra.scale_up_domain == 576 // 4 == 144
    for chip in (rubin, ultra):
        assert chip.status == "announced"
        assert "package" in chip.notes.lower()
        assert chip.sources["scale_up_domain_chips"].startswith("http")
        assert chip.scale_up_bw > 0  # the domain is usable by the parallel model
    # GTC 2025: 100 PFLOPS FP4 per Rubin Ultra package (rack: 15 EF / 144 = 104 PF)
    assert ultra.flops("fp4") == pytest.approx(100e15)


@pytest.mark.parametrize("hw_id", ALL)
def test_estimated_figures_name_real_fields(hw_id: str) -> None:
    rec = hardware_records()[hw_id]
    for key in rec.get("estimated", []):
        assert isinstance(rec.get(key), (int, float)), f"{hw_id}: estimated {key!r} is no figure"
        why = (rec.get("notes", "") + rec.get("price_basis", "")).lower()
        assert any(w in why for w in ("est", "assum", "deriv", "placeholder")), hw_id


def test_unknown_hardware_names_closest() -> None:
    with pytest.raises(lr.UnknownIdError) as exc:
        lr.get_hardware("h100")
    assert "h100-sxm" in exc.value.closest
    assert "h100-sxm" in str(exc.value)


def test_lookup_is_case_insensitive() -> None:
    assert lr.get_hardware("H100-SXM").id == "h100-sxm"


def test_missing_price_is_an_error_not_a_zero_cost() -> None:
    chip = lr.get_hardware("tpu-v7")
    if chip.price_usd_per_s > 0:
        pytest.skip("tpu-v7 has a catalog price now")
    step = lr.decode_step("llama-3.1-8b", chip, batch=8, context_len=1024)
    with pytest.raises(lr.InputError, match="no price"):
        lr.usd_per_token(step)
    priced = lr.decode_step("llama-3.1-8b", chip.with_price(2.0), batch=8, context_len=1024)
    assert float(lr.usd_per_token(priced)) > 0


def test_dtypes_table() -> None:
    # bits per element: IEEE/OCP widths and GGUF block layouts (ggml: q8_0 34 bytes per 32,
    # q4_0 18 bytes per 32, q6_k 210 bytes per 256)
    expect = {
        "fp32": 32,
        "bf16": 16,
        "fp16": 16,
        "fp8": 8,
        "int8": 8,
        "fp4": 4,
        "int4": 4,
        "q8_0": 34 * 8 / 32,
        "q4_0": 18 * 8 / 32,
        "q6_k": 210 * 8 / 256,
    }
    for name, bits in expect.items():
        assert lr.get_dtype(name).bits == pytest.approx(bits), name
    # the _M mixes sit between their base type and the next one up
    assert 4.5 < lr.get_dtype("q4_k_m").bits < 5.5
    assert 5.5 < lr.get_dtype("q5_k_m").bits < 6.5625
    for d in lr.list_dtypes():
        assert d.source.startswith("http"), d.name
    with pytest.raises(lr.UnknownIdError, match="q4_k_m"):
        lr.get_dtype("q4_km")


def test_ids_unique_across_catalog_files() -> None:
    import tomllib
    from importlib import resources

    seen: dict[str, str] = {}
    folder = resources.files("llm_roofline").joinpath("data/hardware")
    for f in folder.iterdir():
        if not f.name.endswith(".toml"):
            continue
        for hw_id in tomllib.loads(f.read_text("utf-8")):
            assert hw_id not in seen, f"{hw_id} in both {seen.get(hw_id)} and {f.name}"
            seen[hw_id] = f.name
    assert len(seen) >= 33


# ----------------------------------------------------------------------------- chips of one's own


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("hw_id", ALL)
def test_hardware_toml_round_trip_every_chip(hw_id: str, tmp_path: Path) -> None:
    text = hardware_toml(hw_id)
    assert text.startswith(f"[{hw_id}]\n")
    assert list(tomllib.loads(text)) == [hw_id]  # exactly one table, named by the id
    path = _write(tmp_path / f"{hw_id}.toml", text)
    chip = lr.get_hardware(hw_id)
    assert lr.get_hardware(path) == chip  # a pathlib.Path
    assert lr.get_hardware(str(path)) == chip  # a str ending in .toml
    # the catalog chip itself prints the catalog's record; its to_record is an exact inverse
    assert hardware_toml(chip) == text
    assert lr.Chip.from_record(hw_id, chip.to_record()) == chip
    # the record keeps every key of the catalog's (year, memory_type, price_basis ...)
    raw = {k: v for k, v in hardware_records()[hw_id].items() if k != "_file"}
    assert tomllib.loads(text)[hw_id] == raw


def test_hardware_toml_of_a_chip_not_in_the_catalog(tmp_path: Path) -> None:
    own = lr.get_hardware("h100-sxm").with_price(2.5)  # same id, another price
    text = hardware_toml(own)
    assert "price_usd_per_hour = 2.5\n" in text
    assert lr.get_hardware(_write(tmp_path / "own.toml", text)) == own
    # a path prints the record it holds
    assert hardware_toml(tmp_path / "own.toml") == text


GOOD = """[my-chip]
name = "My chip"
memory_capacity_gb = 24
memory_bandwidth_tb_per_s = 0.3
bf16_dense_tflops = 121
"""


def test_a_minimal_record_of_ones_own(tmp_path: Path) -> None:
    chip = lr.get_hardware(_write(tmp_path / "my.toml", GOOD))
    assert chip.id == "my-chip" and chip.name == "My chip"
    assert chip.memory_bytes == 24e9 and chip.memory_bw == 0.3e12
    assert chip.flops("bf16") == 121e12
    assert (chip.kind, chip.status, chip.scale_up_domain) == ("gpu", "shipping", 1)
    assert chip.chip_class == "datacenter-gpu"  # no class: the one its kind implies


@pytest.mark.parametrize(
    ("kind", "cls"),
    [("gpu", "datacenter-gpu"), ("tpu", "tpu"), ("accelerator", "accelerator"), ("soc", "soc")],
)
def test_a_record_without_a_class_gets_its_kinds(kind: str, cls: str, tmp_path: Path) -> None:
    chip = lr.get_hardware(_write(tmp_path / "my.toml", f'{GOOD}kind = "{kind}"\n'))
    assert chip.chip_class == cls
    # a record as the web API takes it (JSON, no file) and a Chip built in Python alike
    rec = {"memory_capacity_gb": 24, "memory_bandwidth_tb_per_s": 0.3, "bf16_dense_tflops": 121}
    assert lr.Chip.from_record("x", {**rec, "kind": kind}).chip_class == cls
    built = lr.Chip(id="x", name="x", peak_flops={"bf16": 1e14}, memory_bytes=1e9, memory_bw=1e11)
    assert built.chip_class == "datacenter-gpu"
    # a stated class is kept, and survives the round trip through a record
    given = lr.Chip.from_record("x", {**rec, "kind": kind, "class": "workstation-gpu"})
    assert given.chip_class == "workstation-gpu"
    assert lr.Chip.from_record("x", given.to_record()) == given


def test_a_bad_class_is_one_line_naming_the_field(tmp_path: Path) -> None:
    path = _write(tmp_path / "my.toml", GOOD + 'class = "gpu"\n')
    with pytest.raises(lr.ConfigError) as exc:
        lr.get_hardware(path)
    assert exc.value.field == "class"
    assert str(exc.value) == (
        f"{path}: class must be one of datacenter-gpu, workstation-gpu, consumer-gpu, tpu, "
        "accelerator, soc, got 'gpu'"
    )
    with pytest.raises(lr.InputError, match=r"^class must be one of") as built:
        lr.Chip(
            id="x",
            name="x",
            peak_flops={"bf16": 1e14},
            memory_bytes=1e9,
            memory_bw=1e11,
            chip_class="gpu",  # type: ignore[arg-type]
        )
    assert built.value.field == "class"


# (what the file says instead of GOOD's line, or an added line; the field the error names)
BAD_RECORDS = [
    ("memory_bandwidth_tb_per_s = -1", "memory_bandwidth_tb_per_s"),
    ('memory_bandwidth_tb_per_s = "fast"', "memory_bandwidth_tb_per_s"),
    ("bf16_dense_tflops = 0", "bf16_dense_tflops"),
    ("power_w = inf", "power_w"),
    ("power_w = nan", "power_w"),
    ("scale_up_domain_chips = 0", "scale_up_domain_chips"),
    ("scale_up_domain_chips = 2.5", "scale_up_domain_chips"),
    ("scale_up_domain_chips = true", "scale_up_domain_chips"),
    ('scale_up_domain_chips = "8"', "scale_up_domain_chips"),
    ('kind = "cpu"', "kind"),
    ('class = "client-gpu"', "class"),
    ("class = 3", "class"),
    ('status = "rumoured"', "status"),
    ("name = 5", "name"),
    ("memory_bw = 1", "memory_bw"),  # unknown key
    ("memory_capacity_gib = 24", "memory_capacity_gib"),  # both GB and GiB
    ('estimated = ["bogus_tflops"]', "estimated"),
    ('estimated = "power_w"', "estimated"),
    ("[my-chip.sources]\npowr_w = 'https://example.org'", "sources.powr_w"),
    ("[my-chip.sources]\npower_w = 3", "sources.power_w"),
]


@pytest.mark.parametrize(("line", "field"), BAD_RECORDS)
def test_a_bad_record_names_the_file_and_the_field(line: str, field: str, tmp_path: Path) -> None:
    key = line.split(" ")[0]
    kept = [ln for ln in GOOD.splitlines() if not ln.startswith(f"{key} ")]
    path = _write(tmp_path / "my.toml", "\n".join([*kept, line]) + "\n")
    with pytest.raises(lr.ConfigError) as exc:
        lr.get_hardware(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}: ") and "\n" not in msg, msg
    assert field in msg and exc.value.field == field, msg


def test_the_documented_message(tmp_path: Path) -> None:
    path = _write(tmp_path / "my.toml", GOOD.replace("= 0.3", "= -1"))
    with pytest.raises(lr.ConfigError) as exc:
        lr.get_hardware(str(path))
    assert str(exc.value) == f"{path}: memory_bandwidth_tb_per_s must be a positive number, got -1"


# (file text; the field the error names; words in the message)
BAD_FILES = [
    ("", "id", "exactly one hardware table [id], found 0"),
    (GOOD + GOOD.replace("[my-chip]", "[other]"), "id", "found 2 ('my-chip', 'other')"),
    ('name = "top level"\n', "name", "is not a table"),
    ("[my-chip]\nname = \n", "toml", "not valid TOML"),
    (GOOD.replace("bf16_dense_tflops = 121\n", ""), "bf16_dense_tflops", "no dense peak"),
    (GOOD.replace("memory_capacity_gb = 24\n", ""), "memory_capacity_gb", "lacks"),
    (GOOD.replace("memory_bandwidth_tb_per_s = 0.3\n", ""), "memory_bandwidth_tb_per_s", "lacks"),
]


@pytest.mark.parametrize(("text", "field", "words"), BAD_FILES)
def test_a_bad_file_names_the_file(text: str, field: str, words: str, tmp_path: Path) -> None:
    path = _write(tmp_path / "my.toml", text)
    with pytest.raises(lr.ConfigError) as exc:
        lr.get_hardware(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}: ") and "\n" not in msg, msg
    assert words in msg and exc.value.field == field, msg


def test_a_missing_file_is_a_config_error_not_an_unknown_id(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere.toml")
    with pytest.raises(lr.ConfigError, match="no such file") as exc:
        lr.get_hardware(missing)
    assert str(exc.value) == f"{missing}: no such file"
    with pytest.raises(lr.UnknownIdError):  # a plain id still names the closest ids
        lr.get_hardware("h100-sxm5")
    # a server taking ids from its users reads no files
    with pytest.raises(lr.UnknownIdError):
        lr.get_hardware(missing, files=False)


def test_catalog_records_are_checked_too() -> None:
    rec = {"memory_capacity_gb": 24, "memory_bandwidth_tb_per_s": 0.3, "bf16_dense_tflops": 121}
    with pytest.raises(lr.ConfigError, match=r"^hardware 'x': unknown key 'fp9_dense_tflops'"):
        lr.Chip.from_record("x", {**rec, "fp9_dense_tflops": 1})
    with pytest.raises(lr.ConfigError, match="scale_up_domain_chips must be a positive integer"):
        lr.Chip.from_record("x", {**rec, "scale_up_domain_chips": -8})


def test_the_example_in_the_docs_loads(tmp_path: Path) -> None:
    import re

    doc = (Path(__file__).parents[2] / "docs" / "catalog.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", doc, re.S)
    assert block, "docs/catalog.md lost its example record"
    chip = lr.get_hardware(_write(tmp_path / "my-chip.toml", block.group(1)))
    assert chip.id == "my-l4-box" and chip.flops("bf16") == 100e12
    assert chip.price_usd_per_s * 3600 == pytest.approx(0.5)


def test_measured_record_loads_back_without_torch(tmp_path: Path) -> None:
    # what `llm-roofline measure --save-hardware` writes, from given numbers (no PyTorch run)
    rep = MachineReport(
        device="cpu",
        device_name='Test "CPU"',
        dtype="fp32",
        torch_version="2.x",
        bandwidth_bytes_per_s=34.1234567e9,
        flops=123.456789e9,
        model="tiny",
        layers=2,
        points=[],
    )
    path = _write(tmp_path / "measured.toml", rep.hardware_record("my-box", memory_bytes=16e9))
    chip = lr.get_hardware(path)
    assert chip.id == "my-box" and chip.name == 'Test "CPU" (measured)'
    assert chip.kind == "soc" and chip.chip_class == "soc" and chip.vendor == "measured"
    # six significant digits: 34.1234567 GB/s -> 0.0341235 TB/s; 123.456789 GFLOP/s -> 0.123457 TF
    assert chip.memory_bw == pytest.approx(0.0341235e12, rel=1e-12)
    assert chip.flops("fp32") == pytest.approx(0.123457e12, rel=1e-12)
    assert chip.memory_bytes == 16e9
    assert set(chip.sources) == {
        "memory_capacity_gb",
        "memory_bandwidth_tb_per_s",
        "fp32_dense_tflops",
    }
    with pytest.raises(lr.InputError, match="memory"):
        rep.hardware_record("my-box", memory_bytes=0)
