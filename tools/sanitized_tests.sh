#!/usr/bin/env bash
# Build the runtime, kernels and _C with a sanitizer into a separate virtual environment and run
# tests on it. Any sanitizer report fails.
#
#   bash tools/sanitized_tests.sh [pytest args...]
#       AddressSanitizer + UndefinedBehaviorSanitizer (default: tests/ops tests/graph tests/data tests/io tests/layers tests/training tests/summary tests/compat tests/distribute -q).
#       Built without MPI (OPFORGE_MPI=OFF), so tests/distribute checks the collectives' no-MPI path.
#       UBSan does not recover (-fno-sanitize-recover), ASan aborts.
#   OPFORGE_SANITIZER=thread bash tools/sanitized_tests.sh [pytest args...]
#       ThreadSanitizer (default: the concurrency tests, tests/graph/test_session_threads.py,
#       tests/graph/test_concurrent_executor.py, tests/distribute/test_collective_ops.py (the collective thread)
#       tests/runtime, and the Python callbacks and queues: tests/ops/test_script_ops.py,
#       tests/data/test_queues.py, the dataset ops' threads: tests/data/test_dataset_ops.py, whose
#       TensorFlow comparisons are left out); a data race report fails the run.
#
# Python itself is not instrumented, so the sanitizer runtime is preloaded; ASan's leak
# detection is off because the interpreter keeps memory alive at exit by design.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${OPFORGE_SANITIZER:-address}
case "$kind" in
  address) define=ON; build=build/asan; venv_default=build/asan-venv; lib=libasan ;;
  thread) define=thread; build=build/tsan; venv_default=build/tsan-venv; lib=libtsan ;;
  *) echo "error: OPFORGE_SANITIZER must be address or thread, got '$kind'" >&2; exit 2 ;;
esac
venv=$(realpath -m "${OPFORGE_SANITIZER_VENV:-${OPFORGE_ASAN_VENV:-$venv_default}}")
python -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --no-build-isolation --no-deps -q \
  -C cmake.define.OPFORGE_SANITIZE=$define -C cmake.define.OPFORGE_CUDA=OFF -C cmake.define.OPFORGE_MPI=OFF \
  -C cmake.build-type=RelWithDebInfo -C build-dir=$build .
# Make sure the tests below really run the instrumented runtime (before preloading anything).
rt=$(ls "$venv"/lib/python3*/site-packages/opforge/lib/libopforge_runtime.so* | head -1)
ldd "$rt" | grep "$lib" >/dev/null || { echo "error: $rt is not built with $kind sanitizer" >&2; exit 1; }
# A development (editable) install of this checkout in the base Python would win the import
# through the venv's system site-packages (its import hook comes first): scikit-build-core's
# hook steps aside for a build folder named in SKBUILD_EDITABLE_SKIP.
export SKBUILD_EDITABLE_SKIP="$(realpath -m build/dev)${SKBUILD_EDITABLE_SKIP:+:$SKBUILD_EDITABLE_SKIP}"
got=$(cd / && "$venv/bin/python" -c "import importlib.util as u; print(u.find_spec('opforge').origin)")
case "$got" in
  "$venv"/*) ;;
  *) echo "error: the venv imports opforge from $got, not from its sanitized build in $venv" \
          "(another editable install of opforge? uninstall it or add its build folder to" \
          "SKBUILD_EDITABLE_SKIP)" >&2; exit 1 ;;
esac
if [ "$kind" = address ]; then
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_odr_violation=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export OPFORGE_FUZZ_EXAMPLES=${OPFORGE_FUZZ_EXAMPLES:-8}
  if [ $# -eq 0 ]; then set -- tests/ops tests/graph tests/data tests/io tests/layers tests/training tests/summary tests/compat tests/distribute -q -p no:cacheprovider; fi
else
  export LD_PRELOAD="$(gcc -print-file-name=libtsan.so)"
  # halt_on_error: the first race fails the run. Reports from inside the uninstrumented
  # interpreter and NumPy cannot be about opforge's code; the suppressions file says so.
  export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$(pwd)/tools/tsan.supp"
  # (the GEMM matrix of tests/runtime/test_threading.py is left out: 10x slower under TSan and
  # single-threaded per call; its split GEMMs run in the conv and batched test instead)
  if [ $# -eq 0 ]; then set -- tests/graph/test_session_threads.py tests/graph/test_concurrent_executor.py tests/distribute/test_collective_ops.py tests/runtime tests/ops/test_script_ops.py tests/data/test_queues.py tests/data/test_dataset_ops.py -k "not gemm_matches_numpy and not tensorflow" -q -p no:cacheprovider; fi
fi
# pytest captures file descriptors 1 and 2 while a test runs, so a report written there dies
# with an aborted process: the sanitizers write to files of their own, printed below.
logs=$(mktemp -d)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$logs/asan"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$logs/ubsan"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$logs/tsan"
rc=0
"$venv/bin/python" -m pytest "$@" || rc=$?
# (A file holding only warnings, such as ASan's "failed to allocate" for the tests that ask for
# huge tensors and get ResourceExhausted, is no report: each report ends with a SUMMARY line.)
for f in "$logs"/*; do
  [ -e "$f" ] || continue
  if grep -q "^SUMMARY: " "$f"; then
    echo "=== sanitizer report $(basename "$f") ===" >&2
    cat "$f" >&2
    [ $rc -ne 0 ] || rc=1
  fi
done
rm -rf "$logs"
exit $rc
