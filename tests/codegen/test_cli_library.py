"""`opforge library`, `opforge config` and `opforge new`: output and bad input (exit 2, a
clear message, nothing written). Building what they produce is tested in
tests/e2e/test_op_library.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from codegen import model
from tests.e2e.op_libraries import opforge_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE_OPDEFS = os.path.join(ROOT, "examples", "custom_op", "opdefs")


def codegen_cli(*args, cwd=ROOT):
    """This checkout's CLI (found through PYTHONPATH when cwd is elsewhere)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def files_under(d):
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)


# ---- library

def test_library_generates_header_registration_and_embedded_opdefs(tmp_path):
    r = codegen_cli("library", "--name", "zero_out", "--opdefs", EXAMPLE_OPDEFS, "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "1 ops, 3 written" in r.stdout
    assert files_under(tmp_path) == ["cpp/opforge/ops/zero_out_ops.h", "cpp/src/zero_out_library.cc",
                                     "cpp/src/zero_out_ops.cc"]
    header = (tmp_path / "cpp/opforge/ops/zero_out_ops.h").read_text()
    assert "struct ZeroOutArgs" in header and "const Tensor& to_zero;" in header
    lib = (tmp_path / "cpp/src/zero_out_library.cc").read_text()
    assert "OPFORGE_ABI_BEGIN OPFORGE_ABI_TAG OPFORGE_ABI_END" in lib
    assert '"zero_out"' in lib and 'name: \\042ZeroOut\\042' in lib
    again = codegen_cli("library", "--name", "zero_out", "--opdefs", EXAMPLE_OPDEFS, "--out", str(tmp_path))
    assert again.returncode == 0 and "0 written" in again.stdout


@pytest.mark.parametrize("name,opdef,message", [
    ("zero_out", 'op { name: "Relu" signature { input: "x: float" output: "y: float" } }',
     "op 'Relu' is already defined by opforge"),
    ("math", None, "name of a built-in op group"),
    ("ZeroOut", None, "must be a lower-case identifier"),
    ("zero_out", 'op { name: "ZeroOut" signature { input: "x: T" output: "y: T" } }',
     "not declared"),
    ("zero_out", 'op { nme: "ZeroOut" }', "nme"),
    ("zero_out", 'op { name: "Z" signature { input: "x: float" output: "y: float" } '
                 'gradient { wrt: "x" expr: "no_such_op(grad)" } }', "unknown name 'no_such_op'"),
])
def test_library_rejects_bad_input(tmp_path, name, opdef, message):
    opdefs = tmp_path / "opdefs"
    opdefs.mkdir()
    if opdef is None:
        shutil.copy(os.path.join(EXAMPLE_OPDEFS, "zero_out.pbtxt"), opdefs)
    else:
        (opdefs / "op.pbtxt").write_text(opdef + "\n")
    out = tmp_path / "out"
    r = codegen_cli("library", "--name", name, "--opdefs", str(opdefs), "--out", str(out))
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr, r.stderr
    assert not out.exists()


def test_library_without_opdefs(tmp_path):
    r = codegen_cli("library", "--name", "x", "--opdefs", str(tmp_path), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "no opdef files" in r.stderr
    r = codegen_cli("library", "--opdefs", str(tmp_path), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "--name" in r.stderr


# ---- config

def test_config_answers():
    r = opforge_cli("config", "--cmakedir", "--includes", "--libs", "--cflags", "--prefix", "--abi", "--version")
    assert r.returncode == 0, r.stderr
    cmakedir, includes, libs, cflags, prefix, abi, version = r.stdout.splitlines()
    assert os.path.exists(os.path.join(cmakedir, "opforgeConfig.cmake"))
    assert os.path.exists(os.path.join(cmakedir, "opforgeConfigVersion.cmake"))
    inc = includes[2:]
    assert includes.startswith("-I") and os.path.exists(os.path.join(inc, "opforge", "kernel.h"))
    assert os.path.exists(os.path.join(inc, "opforge", "library.h"))
    assert os.path.exists(os.path.join(inc, "opforge", "ops", "math_ops.h"))
    assert os.path.exists(os.path.join(inc, "cpu", "cpu_util.h"))
    assert "-lopforge_runtime" in libs and os.path.exists(os.path.join(prefix, "lib", "libopforge_runtime.so"))
    assert includes in cflags and "-std=c++17" in cflags
    assert os.path.isdir(os.path.join(prefix, "opdefs", "math"))
    import opforge
    assert abi == opforge._C.ABI_TAG and version == opforge.__version__


def test_config_needs_a_question():
    r = opforge_cli("config")
    assert r.returncode == 2 and "say what to print" in r.stderr


def test_config_from_a_source_checkout_is_a_clear_error(monkeypatch, capsys):
    # The checkout's codegen with no opforge runtime importable (an editable install would
    # otherwise answer, correctly, with its build's install tree).
    from codegen import cli
    monkeypatch.setattr(cli, "_runtime", lambda: None)
    assert cli.main(["config", "--cmakedir"]) == 2
    assert "no installed opforge CMake package" in capsys.readouterr().err


def test_config_prefix_is_where_the_runtime_is():
    """The prefix is the folder of opforge._C: the package folder of a wheel install, the
    build's install tree in an editable one (not the checkout's Python sources)."""
    import opforge
    r = opforge_cli("config", "--cmakedir", "--prefix")
    assert r.returncode == 0, r.stderr
    cmakedir, prefix = r.stdout.split()
    assert prefix == os.path.dirname(os.path.abspath(opforge._C.__file__))
    assert os.path.exists(os.path.join(cmakedir, "opforgeConfig.cmake"))


# ---- new

@pytest.fixture
def fake_repo(tmp_path):
    """A checkout's skeleton: the real opdefs, an empty kernels/ and tests/ops/."""
    repo = tmp_path / "repo"
    shutil.copytree(os.path.join(ROOT, "opdefs"), repo / "opdefs")
    (repo / "kernels" / "cpu").mkdir(parents=True)
    (repo / "tests" / "ops").mkdir(parents=True)
    return repo


def test_new_in_tree(fake_repo):
    r = codegen_cli("new", "ScaffoldProbe", "--group", "probe", cwd=fake_repo)
    assert r.returncode == 0, r.stderr
    for f in ("opdefs/probe/scaffold_probe.pbtxt", "kernels/cpu/probe/scaffold_probe.cc",
              "tests/ops/test_scaffold_probe.py"):
        assert (fake_repo / f).exists(), f
    ops = {o.name: o for o in model.load([str(fake_repo / "opdefs")])}
    op = ops["ScaffoldProbe"]
    assert op.group == "probe" and op.reference == "x" and op.summary
    kernel = (fake_repo / "kernels/cpu/probe/scaffold_probe.cc").read_text()
    assert '#include "opforge/ops/probe/scaffold_probe.h"' in kernel  # its own op header
    assert "OPFORGE_REGISTER_KERNEL(ScaffoldProbe, CPU" in kernel
    compile(open(fake_repo / "tests/ops/test_scaffold_probe.py").read(), "test", "exec")
    # generating from the scaffolded opdefs works
    g = codegen_cli("generate", "--opdefs", str(fake_repo / "opdefs"), "--out", str(fake_repo / "gen"))
    assert g.returncode == 0, g.stderr
    assert "def scaffold_probe(" in (fake_repo / "gen/python/gen_probe_ops.py").read_text()


def test_new_out_of_tree_files(tmp_path):
    r = codegen_cli("new", "MyOp", "--group", "my_ops", "--out-of-tree", str(tmp_path / "p"))
    assert r.returncode == 0, r.stderr
    assert files_under(tmp_path / "p") == ["CMakeLists.txt", "my_op.cc", "opdefs/my_op.pbtxt", "test_my_op.py"]
    cm = (tmp_path / "p" / "CMakeLists.txt").read_text()
    assert "find_package(opforge REQUIRED)" in cm and "opforge_add_op_library(my_ops" in cm
    assert '"opforge/ops/my_ops_ops.h"' in (tmp_path / "p" / "my_op.cc").read_text()
    assert "load_op_library" in (tmp_path / "p" / "test_my_op.py").read_text()


@pytest.mark.parametrize("args,message", [
    (["zero_out", "--group", "g"], "not CamelCase"),
    (["Zero_Out", "--group", "g"], "not CamelCase"),
    (["ZeroOut", "--group", "Bad-Group"], "lower-case identifier"),
    (["MatMul", "--group", "math"], "already exists"),
    (["Cube", "--group", "math", "--out-of-tree", "OUT"], "built-in op group"),
    (["Relu", "--group", "my_ops", "--out-of-tree", "OUT"], "already exists"),
])
def test_new_rejects_bad_input(fake_repo, tmp_path, args, message):
    before = files_under(fake_repo)
    args = [str(tmp_path / "oot") if a == "OUT" else a for a in args]
    r = codegen_cli("new", *args, cwd=fake_repo)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr, r.stderr
    assert r.stderr.startswith("opforge new: ")
    assert files_under(fake_repo) == before
    assert not (tmp_path / "oot").exists()


def test_new_in_tree_needs_a_checkout(tmp_path):
    r = codegen_cli("new", "MyOp", "--group", "g", cwd=tmp_path)
    assert r.returncode == 2 and "root of an opforge checkout" in r.stderr
    assert os.listdir(tmp_path) == []


def test_new_never_overwrites(fake_repo):
    kernel = fake_repo / "kernels/cpu/probe/scaffold_probe.cc"
    kernel.parent.mkdir(parents=True)
    kernel.write_text("// mine\n")
    r = codegen_cli("new", "ScaffoldProbe", "--group", "probe", cwd=fake_repo)
    assert r.returncode == 2 and "already exists" in r.stderr
    assert kernel.read_text() == "// mine\n"
    assert not (fake_repo / "opdefs/probe").exists()
