#!/usr/bin/env bash
# Everything to run on a machine with an NVIDIA GPU: build and install opforge with the CUDA
# backend, run the GPU tests, run them again under compute-sanitizer memcheck, then the
# benchmark. Logs go to ${OUT:-gpu-checks}/.
#
#   bash bench/gpu/run_gpu_checks.sh            (from the repository root, in a venv with
#                                                 pip install '.[test]' dependencies)
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-gpu-checks}"
mkdir -p "$out"
status=0
step() { echo "== $*"; }

step "GPU"
nvidia-smi 2>&1 | tee "$out/nvidia-smi.txt" | head -15

step "build (OPFORGE_CUDA=ON)"
if ! pip install --no-build-isolation -q -C cmake.define.OPFORGE_CUDA=ON '.[test]' > "$out/build.log" 2>&1; then
  tail -50 "$out/build.log"; echo "build FAILED"; exit 1
fi
python - <<'PY' | tee "$out/devices.txt"
import opforge as of
from opforge.framework import devices
print("backend:", of.config.gpu_backend(), "gpus:", of.config.num_gpus(), devices.load_report)
PY

step "GPU tests"
python -m pytest -q -p no:cacheprovider tests/gpu 2>&1 | tee "$out/tests.txt" | tail -5
[[ ${PIPESTATUS[0]} == 0 ]] || status=1

step "compute-sanitizer memcheck over the GPU tests"
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [[ -x "$sanitizer" ]]; then
  "$sanitizer" --tool memcheck --leak-check no --error-exitcode 99 \
    python -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_ops.py -k "gpu" 2>&1 | tee "$out/memcheck.txt" | tail -8
  [[ ${PIPESTATUS[0]} == 0 ]] || { echo "memcheck FAILED"; status=1; }
else
  echo "compute-sanitizer not found (part of the CUDA toolkit)" | tee "$out/memcheck.txt"
fi

step "benchmark"
python bench/gpu/bench_gpu.py 2>&1 | tee "$out/bench.txt"
[[ ${PIPESTATUS[0]} == 0 ]] || status=1
exit $status
