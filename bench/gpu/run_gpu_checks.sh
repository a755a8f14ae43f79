#!/usr/bin/env bash
# Everything to run on a machine with an NVIDIA GPU, in one go: build and install opforge with
# the CUDA backend, run the GPU tests, run the per-op tests again under compute-sanitizer
# memcheck, then the benchmarks (elementwise bandwidth, MatMul against torch, a frozen Keras
# model against torchvision). Logs go to ${OUT:-gpu-checks}/; the summary is printed last.
#
#   bash bench/gpu/run_gpu_checks.sh     (from the repository root)
#
# For a machine without a package index: wheels in .whl/ (protobuf, scipy-openblas32,
# ml_dtypes for its Python) are put on PYTHONPATH and opforge is built with --no-deps against
# what is installed (scikit-build-core, pybind11, jinja2, cmake, ninja). The model benchmark
# reads a frozen export from bench/keras_models.py's cache or .gpu_models/.
# OPFORGE_CUDA_ARCH (default 90-real: Hopper) picks the one architecture to build for.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-gpu-checks}"
mkdir -p "$out"
summary=()
status=0
step() { echo "== $*"; }
record() {  # record NAME RC
  if [[ $2 == 0 ]]; then summary+=("PASS  $1"); else summary+=("FAIL  $1 (rc $2)"); status=1; fi
}

step "GPU"
nvidia-smi 2>&1 | tee "$out/nvidia-smi.txt" | head -15

if compgen -G ".whl/*.whl" > /dev/null; then
  step "wheels from .whl/"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/opforge-site .whl/*.whl
  export PYTHONPATH=/tmp/opforge-site${PYTHONPATH:+:$PYTHONPATH}
fi

step "build (OPFORGE_CUDA=ON, ${OPFORGE_CUDA_ARCH:-90-real})"
t0=$(date +%s)
if ! python3 -m pip install --no-build-isolation --no-deps -q -C cmake.define.OPFORGE_CUDA=ON \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES="${OPFORGE_CUDA_ARCH:-90-real}" . > "$out/build.log" 2>&1; then
  tail -60 "$out/build.log"; echo "build FAILED"; exit 1
fi
echo "built in $(( $(date +%s) - t0 )) s"
(cd /tmp && python3 - <<'PY') 2>&1 | tee "$out/devices.txt"
import opforge as of
from opforge.framework import devices
print("backend:", of.config.gpu_backend(), "gpus:", of.config.num_gpus(), devices.load_report)
PY

step "GPU tests"
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu 2>&1 | tee "$out/tests.txt" | tail -15
record "GPU tests (tests/gpu)" "${PIPESTATUS[0]}"

step "compute-sanitizer memcheck over the per-op GPU tests"
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [[ -x "$sanitizer" ]]; then
  timeout 240 "$sanitizer" --tool memcheck --leak-check no --error-exitcode 99 \
    python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_ops.py -k "gpu" > "$out/memcheck.txt" 2>&1
  rc=$?
  grep -E "ERROR SUMMARY|passed|failed" "$out/memcheck.txt" | tail -3
  record "compute-sanitizer memcheck" "$rc"
else
  echo "compute-sanitizer not found (part of the CUDA toolkit)" | tee "$out/memcheck.txt"
  summary+=("SKIP  compute-sanitizer (not found)")
fi

step "benchmark: elementwise, MatMul, launch overhead"
timeout 180 python3 bench/gpu/bench_gpu.py 2>&1 | tee "$out/bench.txt"
record "bench_gpu.py" "${PIPESTATUS[0]}"

step "benchmark: a frozen Keras model"
timeout 240 python3 bench/gpu/bench_gpu_model.py 2>&1 | tee "$out/bench_model.txt"
record "bench_gpu_model.py" "${PIPESTATUS[0]}"

step "summary"
printf '%s\n' "${summary[@]}"
grep -hE "GB/s|TFLOP/s|launch|error / scale|per run|ms" "$out/bench.txt" "$out/bench_model.txt" 2>/dev/null
exit $status
