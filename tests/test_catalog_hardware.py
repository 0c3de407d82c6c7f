"""The hardware catalog: every record loads, every figure has a source, and the figures sit in
plausible ranges, so a typo or a sparse figure entered as dense fails here."""

from __future__ import annotations

import pytest

import llm_roofline as lr
from llm_roofline.catalog import hardware_records

# DESIGN.md: every hardware id the catalog must hold.
REQUIRED = """a100-40gb a100-80gb h100-sxm h100-pcie h800 h200 b200 b300 gb200 gb300 rubin mi250x
mi300x mi325x mi355x tpu-v4 tpu-v5e tpu-v5p tpu-v6e tpu-v7 trn2 gaudi3 l40s rtx-3090 rtx-4090
rtx-5090 rtx-pro-6000 apple-m1-max apple-m2-ultra apple-m3-max apple-m4-max
ryzen-ai-max-395""".split()

NUMERIC_KEYS_NEED_SOURCE = True
NON_FIGURE_KEYS = {"year"}  # a release year is not a datasheet figure


def test_every_required_id_present() -> None:
    missing = sorted(set(REQUIRED) - set(lr.list_hardware()))
    assert not missing, f"missing hardware ids: {missing}"


@pytest.mark.parametrize("hw_id", REQUIRED)
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


@pytest.mark.parametrize("hw_id", REQUIRED)
def test_plausible_ranges(hw_id: str) -> None:
    c = lr.get_hardware(hw_id)
    # 16-bit dense matrix peak: 10 TFLOP/s (a laptop GPU) to 10 PFLOP/s (a 2026 rack GPU)
    f16 = c.flops(c.compute_dtype_for("bf16"))
    assert 5e12 <= f16 <= 10e15, f"{hw_id}: 16-bit peak {f16:.3g}"
    # ops:byte ratio: ~20 (Apple GPUs) to ~600 (TPU v6e); a sparse figure doubles it
    assert 15 <= c.ops_per_byte <= 700, f"{hw_id}: ratio {c.ops_per_byte:.0f}"
    # memory: 16 GB to 300 GB per chip; bandwidth 0.2 to 25 TB/s
    assert 15e9 <= c.memory_bytes <= 300e9
    assert 0.2e12 <= c.memory_bw <= 25e12
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
]


# Figures no source publishes, so these records leave them out (rather than invent them).
UNPUBLISHED = {
    "power_w": {"rubin", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7", "trn2"},
    "price_usd_per_hour": {"tpu-v7"},
    "scale_out_bandwidth_gb_per_s": {"tpu-v4"},
}


@pytest.mark.parametrize("key", sorted(UNPUBLISHED))
def test_missing_figures_are_exactly_the_unpublished_ones(key: str) -> None:
    missing = {h for h in REQUIRED if key not in hardware_records()[h]}
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


@pytest.mark.parametrize("hw_id", REQUIRED)
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
    assert len(seen) >= 30
