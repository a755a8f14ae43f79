"""Op libraries out of tree, for real: examples/custom_op (ZeroOut) is copied to a temporary
folder, built with CMake against the installed opforge (find_package + opforge_add_op_library)
and loaded with of.load_op_library; then the error cases (missing file, not a library, not an
opforge library, ABI mismatch, op and kernel name clashes) must each raise a clear typed
error and leave the registries as they were; and `opforge new --out-of-tree` scaffolds a
project that builds and passes its own tests as generated.

Libraries load into fresh interpreters (subprocesses), so this test process's registries are
never touched. Builds are few (session-scoped): ZeroOut, ZeroOut with a wrong ABI tag, a
library whose kernel clashes with a built-in one, one with a hand-written C++ shape
function, and the scaffold.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.e2e.op_libraries import BIN, CMAKE, EXAMPLE, ROOT, opforge_cli, run_py

pytestmark = pytest.mark.skipif(CMAKE is None, reason="cmake is not installed (pip install '.[test]')")


def test_zero_out_eager_tape_graph(libs, tmp_path):
    out = run_py("""
        import os
        import numpy as np
        import opforge as of

        lib = of.load_op_library(os.environ["LIB"])
        assert of.load_op_library(os.environ["LIB"]) is lib      # loaded once
        zero_out = lib.zero_out
        assert lib.OP_NAMES == ("ZeroOut",)

        # Eagerly, for each declared dtype; the classic int32 case first.
        y = zero_out([5, 4, 3, 2, 1])
        assert y.dtype == of.int32 and y.numpy().tolist() == [5, 0, 0, 0, 0]
        for dt in (np.float32, np.float64):
            x = np.arange(1, 7, dtype=dt).reshape(2, 3)
            y = zero_out(x)
            assert y.dtype == of.as_dtype(dt) and y.shape == (2, 3)
            np.testing.assert_array_equal(y.numpy(), [[1, 0, 0], [0, 0, 0]])
        assert zero_out(np.zeros((0,), np.float32)).shape == (0,)
        assert of.raw_ops.ZeroOut(to_zero=[7, 8]).numpy().tolist() == [7, 0]

        # Generated at load time, by the same generator: docstring from the opdef.
        assert "Keeps the first element" in zero_out.__doc__
        assert "to_zero: A `Tensor`" in zero_out.__doc__

        # Bad calls: typed errors naming the op.
        try:
            zero_out(np.array([1, 2], np.int64))
        except of.InvalidArgumentError as e:
            assert "ZeroOut" in str(e), e
        else:
            raise AssertionError("int64 accepted")

        # GradientTape, numeric check in float64: f(x) = sum(zero_out(x) * w).
        rng = np.random.default_rng(0)
        x0 = rng.standard_normal((3, 4))
        w = rng.standard_normal((3, 4))
        f = lambda v: float(np.sum(zero_out(v).numpy() * w))
        x = of.constant(x0)
        with of.GradientTape() as tape:
            tape.watch(x)
            loss = of.reduce_sum(zero_out(x) * w)
        g = tape.gradient(loss, x).numpy()
        num = np.zeros_like(x0)
        eps = 1e-6
        for i in np.ndindex(x0.shape):
            d = np.zeros_like(x0)
            d[i] = eps
            num[i] = (f(x0 + d) - f(x0 - d)) / (2 * eps)
        np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g, np.where(np.arange(12).reshape(3, 4) == 0, w, 0))

        # Graphs and Session: the wrapper adds a node; of.gradients uses the same binding.
        gr = of.Graph()
        with gr.as_default():
            p = of.placeholder(of.float32, [None, 2], name="p")
            z = zero_out(p, name="zo")
            assert z.shape.as_list() == [None, 2], z.shape
            dz = of.gradients(of.reduce_sum(z * 3.0), [p])[0]
            zi = zero_out(of.constant([9, 9, 9]))
        with of.Session(graph=gr) as sess:
            a, b, c = sess.run([z, dz, zi], {p: np.array([[2, 3], [4, 5]], np.float32)})
        np.testing.assert_array_equal(a, [[2, 0], [0, 0]])
        np.testing.assert_array_equal(b, [[3, 0], [0, 0]])
        assert c.tolist() == [9, 0, 0]
        assert gr.get_operation_by_name("zo").type == "ZeroOut"

        # A TF1-style program: only the import differs from TensorFlow's.
        import opforge.compat.v1 as tf
        zero_out_module = tf.load_op_library(os.environ["LIB"])
        assert zero_out_module is lib
        with tf.Graph().as_default():
            v = tf.placeholder(tf.int32, [None])
            out = zero_out_module.zero_out(v)
            with tf.Session() as sess:
                assert sess.run(out, {v: [4, 3, 2]}).tolist() == [4, 0, 0]
        print("zero_out ok")
    """, cwd=tmp_path, LIB=libs["zero_out"])
    assert "zero_out ok" in out


def test_custom_shape_function(libs, tmp_path):
    """A library's hand-written C++ shape function runs eagerly and at graph construction."""
    out = run_py("""
        import os
        import numpy as np
        import opforge as of

        lib = of.load_op_library(os.environ["LIB"])
        x = np.random.default_rng(1).standard_normal((3, 4, 6))
        np.testing.assert_allclose(lib.pair_sum(x).numpy(), x.reshape(3, 4, 3, 2).sum(-1))
        for bad, words in ((np.zeros((2, 5)), "last dimension must be even, got 5"),
                           (np.float64(1.0), "rank >= 1")):
            try:
                lib.pair_sum(bad)
            except of.InvalidArgumentError as e:
                assert "PairSum" in str(e) and words in str(e), e
            else:
                raise AssertionError("accepted")
        g = of.Graph()
        with g.as_default():
            p = of.placeholder(of.float32, [None, 8])
            y = lib.pair_sum(p)
            assert y.shape.as_list() == [None, 4], y.shape
            try:
                lib.pair_sum(of.placeholder(of.float32, [None, 3]))
            except of.InvalidArgumentError as e:
                assert "even" in str(e), e
            else:
                raise AssertionError("odd dim accepted at construction")
        with of.Session(graph=g) as sess:
            v = sess.run(y, {p: np.arange(16, dtype=np.float32).reshape(2, 8)})
        np.testing.assert_array_equal(v, np.arange(16).reshape(2, 4, 2).sum(-1))
        print("custom shape ok")
    """, cwd=tmp_path, LIB=libs["pair_sum"])
    assert "custom shape ok" in out


def readme_shell_block(*needles):
    """The README's shell code block holding every needle."""
    import re
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    blocks = re.findall(r"```[a-z]*\n(.*?)```", readme, flags=re.S)
    return next(b for b in blocks if all(n in b for n in needles))


def run_shell(block, cwd):
    """A README shell block run as written, with this Python's `python` and `opforge` first
    on PATH."""
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(["bash", "-ec", block], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)


def test_readme_commands_build_and_test_the_example(tmp_path):
    """The README's commands for examples/custom_op, run as written in a copy: build with
    CMake, then the example's own tests (test_zero_out.py) pass."""
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "custom_op",
                    ignore=shutil.ignore_patterns("build", "__pycache__"))
    block = readme_shell_block("cd examples/custom_op", "cmake --build", "pytest")
    r = run_shell(block, tmp_path)
    assert r.returncode == 0, block + r.stdout[-4000:] + r.stderr[-4000:]
    assert "6 passed" in r.stdout, r.stdout
    assert (tmp_path / "examples" / "custom_op" / "build" / "zero_out.so").exists()


def test_load_errors_leave_registries_untouched(libs, tmp_path):
    notlib = tmp_path / "notes.so"
    notlib.write_text("not a library\n")
    out = run_py("""
        import os
        import numpy as np
        import opforge as of
        from opforge import _C

        def state():
            return (tuple(_C.op_names()), _C.kernels("Relu"), _C.kernels("ZeroOut"),
                    _C.kernels("ClashProbe"), sorted(of.raw_ops.__dir__()))

        def expect(cls, path, *words):
            before = state()
            try:
                of.load_op_library(path)
            except cls as e:
                msg = f"{type(e).__name__}: {e}"
                for w in words:
                    assert w in msg, (w, msg)
            else:
                raise AssertionError(f"{path} loaded")
            assert state() == before, "a failed load changed the registries"
            np.testing.assert_array_equal(of.relu(np.array([-1.0, 2.0], np.float32)).numpy(), [0, 2])
            print("refused:", msg)

        expect(of.NotFoundError, os.environ["MISSING"], "no such file")
        expect(of.InvalidArgumentError, os.environ["NOTLIB"], "not a shared library")
        expect(of.InvalidArgumentError, os.path.dirname(os.environ["NOTLIB"]), "not a file")
        expect(of.InvalidArgumentError, _C.__file__, "not an opforge op library")
        expect(of.FailedPreconditionError, os.environ["BAD_ABI"], "incompatible opforge ABI",
               "opforge-abi-999/test", _C.ABI_TAG)
        expect(of.AlreadyExistsError, os.environ["KERNEL_CLASH"], "Relu", "already registered")
        assert _C.op_spec("ClashProbe") is None

        # The good library still loads after all that, and a copy of it then clashes.
        lib = of.load_op_library(os.environ["LIB"])
        assert lib.zero_out([3, 1]).numpy().tolist() == [3, 0]
        expect(of.AlreadyExistsError, os.environ["COPY"], "ZeroOut", "already registered by zero_out")
        expect(of.FailedPreconditionError, os.environ["BAD_ABI"], "incompatible opforge ABI")
        assert lib.zero_out([3, 1]).numpy().tolist() == [3, 0]
        with of.GradientTape() as t:
            x = of.constant([2.0, 5.0])
            t.watch(x)
            y = of.reduce_sum(lib.zero_out(x))
        assert t.gradient(y, x).numpy().tolist() == [1.0, 0.0]
        print("errors ok")
    """, cwd=tmp_path, LIB=libs["zero_out"], COPY=libs["copy"], BAD_ABI=libs["bad_abi"],
        KERNEL_CLASH=libs["kernel_clash"], NOTLIB=str(notlib), MISSING=str(tmp_path / "missing.so"))
    assert "errors ok" in out


def test_new_out_of_tree_builds_and_passes(tmp_path):
    """The README's scaffolding commands, run as written: `opforge new --out-of-tree`, CMake,
    and the scaffold's own tests pass as generated."""
    block = readme_shell_block("opforge new MyOp", "--out-of-tree", "pytest")
    r = run_shell(block, tmp_path)
    assert r.returncode == 0, block + r.stdout[-4000:] + r.stderr[-4000:]
    proj = tmp_path / "my_ops"
    for f in ("CMakeLists.txt", "opdefs/my_op.pbtxt", "my_op.cc", "test_my_op.py", "build/my_ops.so"):
        assert (proj / f).exists(), f
    assert "7 passed" in r.stdout, r.stdout
    # A second run refuses to overwrite anything.
    again = opforge_cli("new", "MyOp", "--group", "my_ops", "--out-of-tree", str(proj))
    assert again.returncode == 2 and "already exists" in again.stderr


def test_readme_shows_the_example():
    """The README's walkthrough shows examples/custom_op as it is."""
    import re
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    blocks = re.findall(r"```[a-z]*\n(.*?)```", readme, flags=re.S)
    kernel = next(b for b in blocks if "OPFORGE_REGISTER_KERNEL(ZeroOut" in b)
    assert kernel in open(os.path.join(EXAMPLE, "zero_out.cc"), encoding="utf-8").read()
    cmake = next(b for b in blocks if "opforge_add_op_library(zero_out" in b)
    cm = open(os.path.join(EXAMPLE, "CMakeLists.txt"), encoding="utf-8").read()
    for line in cmake.splitlines():
        assert line.split("#")[0].strip() in cm, line


def test_new_dataset_out_of_tree_builds_and_passes(tmp_path):
    """The README's custom-dataset walkthrough, run as written: `opforge new --dataset
    --out-of-tree` scaffolds a dataset op (a reader of a length-prefixed record format), CMake
    builds it, and its tests pass as generated: records read eagerly, in a graph pipeline
    (map, batch, prefetch over the op's dataset), and a damaged file's DataLossError."""
    block = readme_shell_block("opforge new LengthPrefixedDataset", "--dataset", "pytest")
    r = run_shell(block, tmp_path)
    assert r.returncode == 0, block + r.stdout[-4000:] + r.stderr[-4000:]
    proj = tmp_path / "my_records"
    for f in ("CMakeLists.txt", "opdefs/length_prefixed_dataset.pbtxt", "length_prefixed_dataset.cc",
              "test_length_prefixed_dataset.py", "build/my_records.so"):
        assert (proj / f).exists(), f
    assert "3 passed" in r.stdout, r.stdout
