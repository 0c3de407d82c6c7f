"""Measure this machine, and a real decode, against the model (optional extra `measure`).

1. Memory bandwidth: time copies of a large tensor (each byte read once and written once).
2. Matmul throughput: time square matmuls in the chosen data type.
3. A real decode: a transformer built from a config (random weights, PyTorch; dense models with
   MHA/GQA/MQA), with a KV cache preallocated for the context, one decode step timed over a grid
   of batch × context; each measured step is set beside the engine's prediction for a chip
   whose peaks are the ones just measured.

Results can be saved as a hardware record (TOML, the catalog's keys) and as validation rows
(the columns of data/validation.csv).
"""

from __future__ import annotations

import dataclasses
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from llm_roofline._core import units
from llm_roofline._core.errors import InputError
from llm_roofline.engine.options import PassOptions
from llm_roofline.engine.roofline import decode_step
from llm_roofline.hardware.catalog import hardware_toml
from llm_roofline.hardware.chip import Chip, System
from llm_roofline.model.checkpoints import get_model
from llm_roofline.model.spec import LayerGroup, ModelSpec

__all__ = ["DecodePoint", "MachineReport", "measure_machine", "truncate"]

_TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def _torch() -> Any:
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the install
        raise InputError(
            "measuring needs PyTorch: pip install 'llm-roofline[measure]'", field="measure"
        ) from None
    return torch


def _times(fn: Callable[[], Any], sync: Callable[[], None], repeats: int) -> list[float]:
    fn()
    sync()  # warm up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return times


def _median_time(fn: Callable[[], Any], sync: Callable[[], None], repeats: int) -> float:
    """A decode step's typical time."""
    return statistics.median(_times(fn, sync, repeats))


def _best_time(fn: Callable[[], Any], sync: Callable[[], None], repeats: int) -> float:
    """The fastest of the repeats, for a peak: the machine can do at least this, and noise
    from other work on a shared machine only ever slows a run down (a median of a busy
    machine's copies understated its bandwidth 2-8x and made the roofline slower than real
    steps)."""
    return min(_times(fn, sync, repeats))


@dataclass(frozen=True)
class DecodePoint:
    batch: int
    context_len: int
    measured_s: float
    predicted_s: float

    @property
    def ratio(self) -> float:
        """predicted / measured: below 1 when the machine is slower than its own peaks allow."""
        return self.predicted_s / self.measured_s


@dataclass(frozen=True)
class MachineReport:
    device: str
    device_name: str
    dtype: str
    torch_version: str
    bandwidth_bytes_per_s: float
    flops: float
    model: str
    layers: int
    points: list[DecodePoint]

    def hardware_record(self, hw_id: str, memory_bytes: float | None = None) -> str:
        """The measured peaks as a hardware record in the catalog's TOML schema (the same writer
        as `catalog.hardware_toml`), so `get_hardware("that.toml")` loads it back.

        `memory_bytes` is the machine's memory; None reads it here (PyTorch for a CUDA device,
        the operating system for the CPU). Figures keep six significant digits."""
        if memory_bytes is None:
            memory_bytes = self._memory_gb() * units.GB
        if not memory_bytes > 0:
            raise InputError(
                "the memory size of this machine could not be read; give memory_bytes",
                field="memory_bytes",
            )

        def six(si: float, unit: float) -> float:  # six significant digits in the record's unit
            return float(f"{si / unit:.6g}") * unit

        peak = f"{self.dtype}_dense_tflops"
        measured = "measured on this machine by llm-roofline measure"
        chip = Chip(
            id=hw_id,
            name=f"{self.device_name} (measured)",
            vendor="measured",
            kind="gpu" if self.device == "cuda" else "soc",
            peak_flops={self.dtype: six(self.flops, units.tera)},
            memory_bytes=six(float(memory_bytes), units.GB),
            memory_bw=six(self.bandwidth_bytes_per_s, units.TB),
            notes=(
                f"measured by llm-roofline measure with torch {self.torch_version}: large copies "
                f"and {self.dtype} matmuls; achieved, not datasheet, figures"
            ),
            sources={
                "memory_capacity_gb": measured,
                "memory_bandwidth_tb_per_s": measured,
                peak: measured,
            },
        )
        return hardware_toml(chip)

    def _memory_gb(self) -> float:
        torch = _torch()
        if self.device == "cuda":
            return float(torch.cuda.get_device_properties(0).total_memory) / units.GB
        try:
            import os

            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / units.GB
        except (ValueError, OSError, AttributeError):  # pragma: no cover
            return 0.0

    def validation_rows(self, hw_id: str, model_id: str) -> list[dict[str, Any]]:
        """Measured decode steps in the columns of data/validation.csv."""
        return [
            {
                "row": "",
                "source_address": f"measured: llm-roofline measure on {self.device_name}",
                "model": model_id,
                "hardware": hw_id,
                "chips": 1,
                "tp": "",
                "pp": "",
                "ep": "",
                "weight_dtype": self.dtype,
                "kv_dtype": self.dtype,
                "batch": p.batch,
                "input_len": p.context_len,
                "output_len": 1,
                "mode": "decode",
                "metric": "tpot_s",
                "measured": p.measured_s,
                "ceiling": "false",
                "engine_family": "pytorch-eager",
                "engine": f"torch {self.torch_version}",
                "original_metric": "decode step s",
                "original_value": p.measured_s,
                "notes": f"{self.layers} layers, random weights, {self.device}",
            }
            for p in self.points
        ]


def truncate(spec: ModelSpec, layers: int | None) -> ModelSpec:
    """The model cut to its first `layers` layers (same shapes), to measure big models on a
    small machine; None keeps it whole."""
    if layers is None or layers >= spec.n_layers:
        return spec
    if layers < 1:
        raise InputError(f"layers must be at least 1, got {layers}", field="layers")
    first = spec.groups[0]
    return dataclasses.replace(
        spec, groups=(LayerGroup(layers, first.ffn, first.window, first.chunked),)
    )


def _check_supported(spec: ModelSpec) -> None:
    if spec.attention.kind == "mla" or spec.is_moe:
        raise InputError(
            f"measure builds dense models with MHA/GQA/MQA attention; {spec.name} is "
            f"{'MoE' if spec.is_moe else 'MLA'}",
            field="model",
        )


def _decode_fn(torch: Any, spec: ModelSpec, device: str, dtype: Any, B: int, S: int) -> Any:
    """A closure running one decode step of B sequences after S cached tokens."""
    a = spec.attention
    D, H, K, dh = spec.d_model, a.n_heads, a.n_kv_heads, a.head_dim
    ffn = spec.groups[0].ffn
    L = spec.n_layers
    g = torch.Generator(device="cpu").manual_seed(0)

    def w(*shape: int) -> Any:
        return (torch.randn(*shape, generator=g) * 0.02).to(device=device, dtype=dtype)

    layers = []
    for _ in range(L):
        layer = {
            "q": w(D, H * dh),
            "kv": w(D, 2 * K * dh),
            "o": w(H * dh, D),
            "up": w(D, ffn.d_ff),
            "down": w(ffn.d_ff, D),
        }
        if ffn.gated:
            layer["gate"] = w(D, ffn.d_ff)
        layers.append(layer)
    head = w(D, spec.vocab_size)
    cache_k = torch.zeros(L, B, K, S + 1, dh, device=device, dtype=dtype)
    cache_v = torch.zeros_like(cache_k)
    x0 = w(B, D)
    F = torch.nn.functional

    def step() -> Any:
        x = x0
        for i, ly in enumerate(layers):
            q = (x @ ly["q"]).view(B, H, 1, dh)
            kv = (x @ ly["kv"]).view(B, 2, K, 1, dh)
            cache_k[i, :, :, S : S + 1] = kv[:, 0]
            cache_v[i, :, :, S : S + 1] = kv[:, 1]
            k = cache_k[i, :, :, : S + 1].repeat_interleave(H // K, dim=1)
            v = cache_v[i, :, :, : S + 1].repeat_interleave(H // K, dim=1)
            att = F.scaled_dot_product_attention(q, k, v).reshape(B, H * dh)
            x = x + att @ ly["o"]
            up = x @ ly["up"]
            hmid = F.silu(x @ ly["gate"]) * up if "gate" in ly else F.gelu(up)
            x = x + hmid @ ly["down"]
        return x @ head

    return step


def _device(torch: Any, dtype: str, device: str) -> Any:
    """The torch data type for `dtype`, once `dtype` and `device` are checked."""
    if dtype not in _TORCH_DTYPES:
        raise InputError(
            f"dtype must be one of {', '.join(_TORCH_DTYPES)}, got {dtype!r}", field="dtype"
        )
    if device not in ("cpu", "cuda"):
        raise InputError(f"device must be cpu or cuda, got {device!r}", field="device")
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("no CUDA device is available here; use --device cpu", field="device")
    return getattr(torch, _TORCH_DTYPES[dtype])


def _this_chip(
    torch: Any, device: str, dtype: str, sizes: tuple[int, int, int], sync: Callable[[], None]
) -> Chip:
    """This machine as a Chip: its copy bandwidth and matmul FLOP/s, measured (`sizes`: bytes
    copied, matmul side, repeats)."""
    copy_bytes, matmul_n, repeats = sizes
    tdtype = getattr(torch, _TORCH_DTYPES[dtype])
    n = copy_bytes // 4
    src = torch.empty(n, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    t_copy = _best_time(lambda: dst.copy_(src), sync, repeats)
    bandwidth = 2 * n * 4 / t_copy  # read and write every byte
    a = torch.randn(matmul_n, matmul_n, device=device, dtype=tdtype)
    b = torch.randn(matmul_n, matmul_n, device=device, dtype=tdtype)
    t_mm = _best_time(lambda: a @ b, sync, repeats)
    flops = 2 * matmul_n**3 / t_mm
    name = (
        torch.cuda.get_device_name(0)
        if device == "cuda"
        else (platform.processor() or platform.machine())
    )
    # memory is not what is measured here: a size no decode grid reaches (1 PB)
    return Chip(
        id="measured",
        name=str(name),
        peak_flops={dtype: flops},
        memory_bytes=units.PB,
        memory_bw=bandwidth,
    )


# size: one keyword a flag of `llm-roofline measure` (the grid, the type, the device, the sizes)
def measure_machine(
    model: str | ModelSpec,
    *,
    layers: int | None = None,
    batches: Sequence[int] = (1, 4, 16),
    contexts: Sequence[int] = (128, 1024),
    dtype: str = "fp32",
    device: str = "cpu",
    copy_bytes: int = 256 * 2**20,
    matmul_n: int = 1024,
    repeats: int = 5,
    progress: Callable[[int, int], None] | None = None,
) -> MachineReport:
    """Measure bandwidth, matmul FLOP/s and a decode grid; compare with the engine."""
    torch = _torch()
    tdtype = _device(torch, dtype, device)
    spec = truncate(get_model(model), layers)
    _check_supported(spec)

    def sync() -> None:
        if device == "cuda":
            torch.cuda.synchronize()

    sizes = (copy_bytes, matmul_n, repeats)
    before = _this_chip(torch, device, dtype, sizes, sync)
    grid = [(bb, s) for bb in batches for s in contexts]
    timed = []
    with torch.inference_mode():
        for i, (bb, s) in enumerate(grid):
            fn = _decode_fn(torch, spec, device, tdtype, int(bb), int(s))
            timed.append(_median_time(fn, sync, repeats))
            if progress:
                progress(i + 1, len(grid))
    # the peaks measured again after the grid, each the faster of the two: a peak is what
    # the machine did at least once, and other work on a shared machine only slows a run
    after = _this_chip(torch, device, dtype, sizes, sync)
    flops = max(before.peak_flops[dtype], after.peak_flops[dtype])
    chip = replace(before, peak_flops={dtype: flops},
                   memory_bw=max(before.memory_bw, after.memory_bw))  # fmt: skip
    same: PassOptions = {"weight_dtype": dtype, "kv_dtype": dtype, "compute_dtype": dtype}
    points = [
        DecodePoint(int(bb), int(s), t, float(decode_step(
            spec, System(chip, 1), batch=bb, context_len=s, **same).t_step))
        for (bb, s), t in zip(grid, timed, strict=True)
    ]  # fmt: skip
    return MachineReport(
        device=device,
        device_name=chip.name,
        dtype=dtype,
        torch_version=str(torch.__version__),
        bandwidth_bytes_per_s=chip.memory_bw,
        flops=chip.peak_flops[dtype],
        model=spec.name,
        layers=spec.n_layers,
        points=points,
    )
