"""Building and loading out-of-tree op libraries in tests: CMake against the installed opforge,
and fresh interpreters to load them in (so the test process's registries are never touched).
The session fixture ``libs`` (tests/e2e/conftest.py) builds the libraries once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "custom_op")
BIN = os.path.dirname(sys.executable)


def _tool(name):
    local = os.path.join(BIN, name)
    return local if os.path.exists(local) else shutil.which(name)


CMAKE = _tool("cmake")
NINJA = _tool("ninja")


def opforge_cli(*args, cwd=None):
    # Never from the repository root, where the source folder opforge/ would shadow the
    # installed package.
    return subprocess.run([sys.executable, "-m", "opforge.cli", *args], cwd=cwd or tempfile.gettempdir(),
                          capture_output=True, text=True, timeout=120)


def cmake_build(src, build, *defs):
    cmakedir = opforge_cli("config", "--cmakedir")
    assert cmakedir.returncode == 0, cmakedir.stderr
    gen = ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={NINJA}"] if NINJA else []
    cfg = subprocess.run([CMAKE, "-S", str(src), "-B", str(build), *gen,
                          f"-Dopforge_DIR={cmakedir.stdout.strip()}",
                          f"-DPython3_EXECUTABLE={sys.executable}", *defs],
                         capture_output=True, text=True, timeout=600)
    assert cfg.returncode == 0, cfg.stdout[-3000:] + cfg.stderr[-3000:]
    b = subprocess.run([CMAKE, "--build", str(build)], capture_output=True, text=True, timeout=900)
    assert b.returncode == 0, b.stdout[-3000:] + b.stderr[-3000:]


def run_py(code, cwd, **env):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd,
                       env=dict(os.environ, **env), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    return r.stdout


def build_libraries(base):
    """Builds the test libraries under base; returns their paths by name: zero_out, bad_abi (zero_out
    with a wrong ABI tag), kernel_clash, pair_sum, copy (a copy of zero_out), zero_out_alt (another
    library defining ZeroOut: it keeps the last element)."""
    src = base / "custom_op"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "__pycache__"))
    cmake_build(src, src / "build")
    cmake_build(src, base / "build_bad_abi", "-DOPFORGE_ABI_TAG_OVERRIDE=opforge-abi-999/test")

    clash = base / "kernel_clash"
    (clash / "opdefs").mkdir(parents=True)
    (clash / "opdefs" / "clash_probe.pbtxt").write_text(textwrap.dedent("""\
        op {
          name: "ClashProbe"
          summary: "An op of a library that also brings a kernel for the built-in Relu."
          signature { input: "x: float" output: "y: float" }
          shape_fn: "unchanged(x)"
          not_differentiable: true
        }
        """))
    (clash / "kernels.cc").write_text(textwrap.dedent("""\
        #include "opforge/ops/kernel_clash_ops.h"
        #include "opforge/ops/nn_ops.h"

        namespace opforge {
        namespace {
        Status Probe(ops::ClashProbeArgs& a) { return Status::OK(); }
        template <typename T>
        Status BadRelu(ops::ReluArgs& a) { return a.ctx.error("the built-in Relu was replaced"); }
        }  // namespace
        OPFORGE_REGISTER_UNTYPED_KERNEL(ClashProbe, CPU, Probe)
        OPFORGE_REGISTER_KERNEL(Relu, CPU, BadRelu, float)
        }  // namespace opforge
        """))
    (clash / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.18)
        project(kernel_clash LANGUAGES CXX)
        find_package(opforge REQUIRED)
        opforge_add_op_library(kernel_clash OPDEFS opdefs SOURCES kernels.cc)
        """))
    cmake_build(clash, clash / "build")

    # A library op whose shape function is hand-written C++ (shape_fn: "custom").
    pair = base / "pair_sum"
    (pair / "opdefs").mkdir(parents=True)
    (pair / "opdefs" / "pair_sum.pbtxt").write_text(textwrap.dedent("""\
        op {
          name: "PairSum"
          summary: "Sums adjacent pairs along the last axis: [..., 2k] -> [..., k]."
          signature { input: "x: T" output: "y: T" attr: "T: {float, double}" }
          shape_fn: "custom"
          not_differentiable: true
          reference: "x.reshape(x.shape[:-1] + (x.shape[-1] // 2, 2)).sum(-1)"
        }
        """))
    (pair / "pair_sum.cc").write_text(textwrap.dedent("""\
        #include "opforge/ops/pair_sum_ops.h"
        #include "opforge/shape_fns.h"

        namespace opforge {
        namespace {
        Status PairSumShape(ShapeContext& c) {
          Shape s = c.input_shape(0);
          if (s.unknown_rank()) { c.set_output(0, s); return Status::OK(); }
          if (s.rank() < 1) return c.error("x must have rank >= 1, got a scalar");
          int64_t& last = s.mutable_dims().back();
          if (last >= 0 && last % 2 != 0) return c.error("the last dimension must be even, got ", last);
          if (last >= 0) last /= 2;
          c.set_output(0, std::move(s));
          return Status::OK();
        }
        const bool registered = [] { shape_fns::register_custom("PairSum", PairSumShape); return true; }();

        template <typename T>
        Status PairSumCpu(ops::PairSumArgs& a) {
          const T* x = a.x.data<T>();
          T* y = a.y.data<T>();
          for (int64_t i = 0, n = a.y.num_elements(); i < n; ++i) y[i] = x[2 * i] + x[2 * i + 1];
          return Status::OK();
        }
        }  // namespace
        OPFORGE_REGISTER_KERNEL(PairSum, CPU, PairSumCpu, float, double)
        }  // namespace opforge
        """))
    (pair / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.18)
        project(pair_sum LANGUAGES CXX)
        find_package(opforge REQUIRED)
        opforge_add_op_library(pair_sum OPDEFS opdefs SOURCES pair_sum.cc)
        """))
    cmake_build(pair, pair / "build")
    paths = {
        "zero_out": src / "build" / "zero_out.so",
        "bad_abi": base / "build_bad_abi" / "zero_out.so",
        "kernel_clash": clash / "build" / "kernel_clash.so",
        "pair_sum": pair / "build" / "pair_sum.so",
    }
    # Another library that defines the op ZeroOut, differently (it keeps the last element).
    alt = base / "zero_out_alt"
    shutil.copytree(EXAMPLE, alt, ignore=shutil.ignore_patterns("build", "__pycache__"))
    cmake = (alt / "CMakeLists.txt").read_text()
    assert "opforge_add_op_library(zero_out\n" in cmake
    (alt / "CMakeLists.txt").write_text(cmake.replace("opforge_add_op_library(zero_out\n",
                                                      "opforge_add_op_library(zero_out_alt\n"))
    kernel = (alt / "zero_out.cc").read_text()
    assert "out[0] = in[0];" in kernel
    kernel = kernel.replace("out[0] = in[0];", "out[n - 1] = in[n - 1];")
    (alt / "zero_out.cc").write_text(kernel.replace("opforge/ops/zero_out_ops.h", "opforge/ops/zero_out_alt_ops.h"))
    cmake_build(alt, alt / "build")
    paths["zero_out_alt"] = alt / "build" / "zero_out_alt.so"
    for p in paths.values():
        assert p.exists(), p
    # A second copy of a good library: loading both clashes on the op name.
    paths["copy"] = base / "zero_out_copy.so"
    shutil.copy(paths["zero_out"], paths["copy"])
    return {k: str(v) for k, v in paths.items()}
