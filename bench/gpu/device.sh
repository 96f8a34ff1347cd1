#!/usr/bin/env bash
# Everything a lent GPU machine runs, in one call that ends by itself within
# about 7 minutes (the device tool's leases are short; see
# /work/.library/device/README.md in the workplace):
#
#   1. the machine: GPU, driver, Python packages;
#   2. bench/gpu/check.py: the examples, test/Integration and bench/beyond
#      programs against the CPU pipeline's numbers, through CuPy, and two of
#      them again through cuda-python, and one on a side stream;
#   3. bench/gpu/run.py: the twelve cases against PyTorch (torch.compile
#      last, while time is left);
#   4. Nsight Compute on a few programs, where the machine has it.
#
# Needs, carried from the machine that built them:
#   bash bench/gpu/prepare.sh build
#   PYTHONPATH=build/python python3 bench/gpu/prepare_checks.py --build-dir build
# and writes its logs and tables under $OUT (at most 8 files come back).
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:?set OUT to the folder that receives the results}"
export PYTHONUNBUFFERED=1
work="$(mktemp -d)"

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total \
    --format=csv
  python3 -c 'import sys, numpy, torch; print(sys.version.split()[0], "numpy",
numpy.__version__, "torch", torch.__version__, torch.cuda.get_device_name(0))'
  python3 -c 'import cupy; print("cupy", cupy.__version__)'
  python3 -c 'import cuda.bindings; print("cuda-python", cuda.bindings.__version__)'
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

timeout 180 python3 bench/gpu/check.py --checks build/bench/gpu-checks \
  --out "$work/checks" --deadline 140 2>&1 | tee "$OUT/check.log"
timeout 40 python3 bench/gpu/check.py --checks build/bench/gpu-checks \
  --out "$work/checks-cuda-python" --driver cuda-python \
  --only example-gated_mlp-fused-f16 integration-sdpa 2>&1 | tee -a "$OUT/check.log"
# Mirage's stream=: a program run inside torch.cuda.stream(s) launches on s.
timeout 30 python3 bench/gpu/stream_check.py --checks build/bench/gpu-checks \
  example-gated_mlp-fused-f16 2>&1 | tee -a "$OUT/check.log"

timeout 200 python3 bench/gpu/run.py --artifacts build/bench/gpu \
  --out "$work/bench" --deadline 130 2>&1 | tee "$OUT/bench.log"

# Nsight Compute on the programs whose time is furthest from the cost
# model's (works on the Firecracker machines; see the device tool's KINDS.md).
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
if [ -n "$NCU" ]; then
  timeout 110 "$NCU" --clock-control none --profile-from-start off \
    --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section ComputeWorkloadAnalysis --section SourceCounters \
    python3 bench/gpu/ncu_profile.py gqa_b8 qknorm_b8 ntrans_b8 rmsnorm_b8 \
    gated_mlp_b8 lora_b1 example-attention-fused-f16 \
    example-attention-flash_decoding-f16 > "$OUT/ncu.txt" 2>&1
  echo "ncu: exit $?, $(grep -c 'Section: GPU Speed Of Light' "$OUT/ncu.txt") kernels profiled"
fi

cp "$work/checks/checks.md" "$work/bench/results.md" "$OUT/" 2>/dev/null
tar -czf "$OUT/results.tgz" -C "$work" .
echo "== checks"; cat "$work/checks/checks.md" 2>/dev/null | cut -c1-160
echo "== bench"; cat "$work/bench/results.md" 2>/dev/null
