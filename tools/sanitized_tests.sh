#!/usr/bin/env bash
# Build the runtime, kernels and _C with AddressSanitizer + UndefinedBehaviorSanitizer into a
# separate virtual environment and run the generated op matrix (and the graph tests) on it.
# Any sanitizer report fails: UBSan does not recover (-fno-sanitize-recover), ASan aborts.
#
#   bash tools/sanitized_tests.sh [pytest args...]     (default: tests/ops tests/graph -q)
#
# Python itself is not instrumented, so libasan is preloaded; leak detection is off because
# the interpreter keeps memory alive at exit by design.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(realpath -m "${OPFORGE_ASAN_VENV:-build/asan-venv}")
python -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --no-build-isolation --no-deps -q \
  -C cmake.define.OPFORGE_SANITIZE=ON -C cmake.build-type=RelWithDebInfo \
  -C build-dir=build/asan .
asan=$(gcc -print-file-name=libasan.so)
ubsan=$(gcc -print-file-name=libubsan.so)
export LD_PRELOAD="$asan $ubsan"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_odr_violation=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Make sure the tests below really run the instrumented runtime.
rt=$(cd / && "$venv/bin/python" -c "import opforge, pathlib; print(next(pathlib.Path(opforge.__file__).parent.glob('lib/libopforge_runtime.so*')))")
ldd "$rt" | grep libasan >/dev/null || { echo "error: $rt is not built with AddressSanitizer" >&2; exit 1; }
export OPFORGE_FUZZ_EXAMPLES=${OPFORGE_FUZZ_EXAMPLES:-8}
if [ $# -eq 0 ]; then set -- tests/ops tests/graph -q -p no:cacheprovider; fi
"$venv/bin/python" -m pytest "$@"
