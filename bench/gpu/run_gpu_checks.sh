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
# OPFORGE_CUDA_ARCH (default 90-real: Hopper) picks the one architecture to build for;
# OPFORGE_DEADLINE (epoch seconds) bounds the memcheck step, which runs last;
# OPFORGE_SKIP_BENCH=1 leaves the benchmarks out.
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
  # Only the wheels whose package is missing or older here: a package the machine's own
  # stack was built with (ml_dtypes beside its numpy, say) is better left as it is.
  step "wheels from .whl/"
  need=$(python3 - .whl/*.whl <<'PY'
import importlib.metadata as md, os, sys
from packaging.version import Version
for path in sys.argv[1:]:
    dist, version = os.path.basename(path).split("-")[:2]
    try:
        have = md.version(dist.replace("_", "-"))
    except md.PackageNotFoundError:
        have = None
    print(f"  {dist}: here {have}, wheel {version}", file=sys.stderr)
    if have is None or Version(have) < Version(version):
        print(path)
PY
)
  if [[ -n "$need" ]]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/opforge-site $need
    export PYTHONPATH=/tmp/opforge-site${PYTHONPATH:+:$PYTHONPATH}
  fi
fi

step "build (OPFORGE_CUDA=ON, ${OPFORGE_CUDA_ARCH:-90-real})"
echo "c++: $(c++ --version | head -1); CXX=${CXX:-} CXXFLAGS=${CXXFLAGS:-} LDFLAGS=${LDFLAGS:-} CMAKE_ARGS=${CMAKE_ARGS:-}"
t0=$(date +%s)
if ! python3 -m pip install -v --no-build-isolation --no-deps -C cmake.define.OPFORGE_CUDA=ON \
    -C cmake.build-type="${OPFORGE_BUILD_TYPE:-Release}" \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES="${OPFORGE_CUDA_ARCH:-90-real}" . > "$out/build.log" 2>&1; then
  tail -60 "$out/build.log"; echo "build FAILED"; exit 1
fi
echo "built in $(( $(date +%s) - t0 )) s"
grep -E "opforge: (dropped|CUDA)" "$out/build.log"
runtime_so="$(cd /tmp && python3 -c 'import importlib.util as u, os; print(os.path.join(os.path.dirname(u.find_spec("opforge").origin), "lib", "libopforge_runtime.so"))')"
echo "libstdc++ symbols defined in the runtime (0: it uses the shared one): $(nm -D --defined-only "$runtime_so" | grep -c codecvt)"
if ! (cd /tmp && python3 -X faulthandler - <<'PY') > "$out/devices.txt" 2>&1; then
import opforge as of
from opforge.framework import devices
print("backend:", of.config.gpu_backend(), "gpus:", of.config.num_gpus(), devices.load_report)
PY
  cat "$out/devices.txt"
  echo "import opforge FAILED; a native backtrace:"
  (cd /tmp && OPFORGE_GPU_BACKEND=none python3 -c "import opforge; print('without the GPU backend: imports')")
  (cd /tmp && cuda-gdb -q -batch -ex run -ex bt -ex "info sharedlibrary" -ex "x/6i \$pc" -ex "info registers" \
    --args python3 -c "import opforge") > "$out/import_backtrace.txt" 2>&1
  grep -E "^#|signal|SIG|=>" "$out/import_backtrace.txt" | head -40
  exit 1
fi
cat "$out/devices.txt"

step "GPU tests"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu 2>&1 | tee "$out/tests.txt" | tail -15
record "GPU tests (tests/gpu)" "${PIPESTATUS[0]}"

if [[ -z "${OPFORGE_SKIP_BENCH:-}" ]]; then
step "benchmark: elementwise, MatMul, launch overhead"
timeout 120 python3 bench/gpu/bench_gpu.py 2>&1 | tee "$out/bench.txt"
record "bench_gpu.py" "${PIPESTATUS[0]}"

step "benchmark: a frozen Keras model"
timeout 150 python3 bench/gpu/bench_gpu_model.py 2>&1 | tee "$out/bench_model.txt"
record "bench_gpu_model.py" "${PIPESTATUS[0]}"
fi

step "compute-sanitizer memcheck over the per-op GPU tests"
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [[ -x "$sanitizer" ]]; then
  limit=240
  if [[ -n "${OPFORGE_DEADLINE:-}" ]]; then  # epoch seconds by which the script should be done
    limit=$(( OPFORGE_DEADLINE - $(date +%s) )); (( limit < 30 )) && limit=30
  fi
  timeout "$limit" "$sanitizer" --tool memcheck --leak-check no --error-exitcode 99 \
    python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_ops.py -k "gpu and not out_of_memory" \
    > "$out/memcheck.txt" 2>&1  # (the out-of-memory test's failing cudaMalloc is an API error by design)
  rc=$?
  grep -E "ERROR SUMMARY|passed|failed" "$out/memcheck.txt" | tail -3
  record "compute-sanitizer memcheck" "$rc"
else
  echo "compute-sanitizer not found (part of the CUDA toolkit)" | tee "$out/memcheck.txt"
  summary+=("SKIP  compute-sanitizer (not found)")
fi

step "summary"
printf '%s\n' "${summary[@]}"
grep -hE "GB/s|TFLOP/s|launch|error / scale|per run|ms" "$out/bench.txt" "$out/bench_model.txt" 2>/dev/null
exit $status
