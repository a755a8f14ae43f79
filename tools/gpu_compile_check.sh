#!/usr/bin/env bash
# Compiles the GPU kernels (kernels/gpu/*.cu) for both backends, as CI does on machines
# without a GPU: nvcc for sm_80, sm_90 + PTX (CUDA) and hipcc with HIP_PLATFORM=amd for gfx90a
# and gfx942 where its clang supports it (HIP). Installs Debian's hipcc and libamdhip64-dev
# if hipcc is missing. Any compile error fails the script.
#
#   tools/gpu_compile_check.sh            both backends
#   tools/gpu_compile_check.sh cuda|hip   one
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-both}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The committed generated/ headers are what the kernels include (the build regenerates the same).
includes=(-Ikernels -Iruntime/include -Igenerated/cpp)
sources=(kernels/gpu/*.cu)
jobs_max="${GPU_CHECK_JOBS:-$(nproc)}"
failed="$out/failed"

# Runs "$@" in the background (at most $jobs_max at once); a failure is recorded in $failed.
spawn() {
  while (( $(jobs -rp | wc -l) >= jobs_max )); do wait -n || true; done
  ( "$@" || echo "$*" >> "$failed" ) &
}

if [[ "$which" == both || "$which" == cuda ]]; then
  nvcc="${NVCC:-$(command -v nvcc || true)}"
  if [[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc; fi
  if [[ -z "$nvcc" ]]; then
    echo "gpu_compile_check: nvcc not found (install the CUDA toolkit or pip install nvidia-cuda-nvcc)" >&2
    exit 1
  fi
  echo "== CUDA: $("$nvcc" --version | tail -1)"
  for src in "${sources[@]}"; do
    name="$(basename "$src" .cu)"
    echo "nvcc $src"
    spawn "$nvcc" -std=c++17 -O3 -Xcompiler -fPIC --diag-suppress=2810 "${includes[@]}" \
        -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
        -gencode arch=compute_90,code=compute_90 -c "$src" -o "$out/cuda_$name.o"
  done
  wait
fi

if [[ "$which" == both || "$which" == hip ]]; then
  if ! command -v hipcc >/dev/null; then
    echo "== installing hipcc and libamdhip64-dev (Debian)"
    sudo_cmd=""
    if [[ "$(id -u)" != 0 ]]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq hipcc libamdhip64-dev >/dev/null
  fi
  export HIP_PLATFORM=amd
  archs=()
  printf '#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = 1.f; }\n' > "$out/probe.cu"
  for arch in gfx90a gfx942; do
    if hipcc -x hip --offload-arch="$arch" -c "$out/probe.cu" -o "$out/probe.o" 2>/dev/null; then
      archs+=(--offload-arch="$arch")
    else
      echo "gpu_compile_check: this hipcc cannot target $arch (skipped)"
    fi
  done
  echo "== HIP: $(hipcc --version 2>/dev/null | head -1), ${archs[*]}"
  for src in "${sources[@]}"; do
    name="$(basename "$src" .cu)"
    echo "hipcc $src"
    spawn hipcc -x hip -std=c++17 -O3 -fPIC -DOPFORGE_HIP "${archs[@]}" "${includes[@]}" \
        -c "$src" -o "$out/hip_$name.o"
  done
  wait
fi

if [[ -s "$failed" ]]; then
  echo "gpu_compile_check: FAILED:" >&2
  sed 's/^/  /' "$failed" >&2
  exit 1
fi
echo "gpu_compile_check: OK"
