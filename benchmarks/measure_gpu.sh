#!/usr/bin/env bash
# The prepared GPU measurement: one call, under 8 minutes on an H100/H200-class GPU.
# Writes under $OUT (default ./measure-out): the GPU's name, driver and library versions,
# its measured peaks as a hardware record, and decode grids as validation rows that sit
# beside the engine's prediction. Run it here first with DEVICE=cpu to check that it works.
#   OUT=/tmp/m DEVICE=cpu LAYERS=1 bash benchmarks/measure_gpu.sh
set -euo pipefail
OUT="${OUT:-measure-out}"
DEVICE="${DEVICE:-cuda}"
LAYERS="${LAYERS:-8}"
PY="${PY:-.venv/bin/python}"
mkdir -p "$OUT"
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>/dev/null \
    || echo "no nvidia-smi (device $DEVICE)"
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} > "$OUT/environment.txt"
DTYPE=bf16
[ "$DEVICE" = cpu ] && DTYPE=fp32  # CPUs have no fast bf16 matmul path to speak of
run() {  # model, batches, contexts
  local name="$1"
  timeout 150 "$PY" -m llm_roofline.cli measure --model "$1" --layers "$LAYERS" \
    --batch "$2" --context "$3" --dtype "$DTYPE" --device "$DEVICE" \
    --save-hardware "$OUT/hardware-$name.toml" --save-rows "$OUT/rows-$name.csv" \
    --hardware-id "measured-$DEVICE" --json > "$OUT/report-$name.json" \
    || echo "measure $name failed or timed out" >> "$OUT/environment.txt"
}
if [ "$DEVICE" = cpu ]; then  # a smoke run of the same path on a laptop
  run qwen3-8b 1,4 128
  run llama-3.1-70b 1 128
else
  run qwen3-8b 1,8,32,128 512,4096
  run llama-3.1-8b 1,16,64 1024,8192
  run llama-3.1-70b 1,16,64 1024
fi
echo "results in $OUT"
