"""The `opforge` command line: generate (and --check), show, list.

`python -m codegen ...` runs the CLI of this checkout (cwd = the repository root, so the repo's
opdefs/ are the default). `opforge list` needs the compiled runtime for its kernel column, so it
runs this checkout's CLI against the installed runtime, with the checkout as cwd.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from google.protobuf import text_format

from codegen import model
from codegen._proto import opdef_pb2

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPDEFS = os.path.join(ROOT, "opdefs")
REPO_OPS = model.load([OPDEFS])

SUMMARY = re.compile(r"opforge generate: (\d+) ops, (\d+) written, (\d+) unchanged, "
                     r"(\d+) removed -> (.+) \(\d+\.\d+s\)")


def codegen_cli(*args, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def snapshot(d) -> dict[str, tuple[bytes, int]]:
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, d).replace(os.sep, "/")] = (open(p, "rb").read(),
                                                                os.stat(p).st_mtime_ns)
    return out


# ---- generate


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A fresh `opforge generate` of the repo opdefs into an empty folder."""
    out = tmp_path_factory.mktemp("gen") / "out"
    proc = codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out))
    return out, proc


def test_generate_into_empty_dir(generated):
    out, proc = generated
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    m = SUMMARY.fullmatch(lines[0])
    assert m, lines[0]
    files = snapshot(out)
    assert int(m.group(1)) == len(REPO_OPS)
    assert int(m.group(2)) == len(files) > 0
    assert (m.group(3), m.group(4)) == ("0", "0")
    assert m.group(5) == str(out)
    groups = sorted({o.group for o in REPO_OPS})
    for g in groups:
        for rel in (f"python/gen_{g}_ops.py", f"python/gen_{g}_ops.pyi",
                    f"python/gen_{g}_grads.py", f"cpp/opforge/ops/{g}_ops.h",
                    f"cpp/src/{g}_ops.cc"):
            assert rel in files, rel
    assert {"python/__init__.py", "python/op_index.py", "docs/ops.md"} <= set(files)
    assert not [f for f in files if f.endswith(".tmp")]


def test_second_run_writes_nothing(generated):
    out, _ = generated
    before = snapshot(out)
    proc = codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    m = SUMMARY.fullmatch(proc.stdout.strip())
    assert m, proc.stdout
    assert m.group(2) == "0"
    assert " 0 written," in proc.stdout
    assert int(m.group(3)) == len(before)
    assert snapshot(out) == before  # same bytes, same mtimes: nothing rewritten


def test_check_clean_drift_and_stale(tmp_path):
    out = tmp_path / "out"
    assert codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out)).returncode == 0

    # clean
    before = snapshot(out)
    proc = codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out), "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "up to date" in proc.stdout
    assert snapshot(out) == before

    # one generated file edited by hand, one stale file a removed group left behind
    edited = out / "python" / "gen_math_ops.py"
    edited.write_text(edited.read_text() + "# hand edit\n")
    stale = out / "python" / "gen_old_ops.py"
    stale.write_text('"""A group whose opdefs are gone."""\n')
    before = snapshot(out)
    proc = codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out), "--check")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    listed = [ln.strip() for ln in proc.stdout.splitlines() if ln.startswith("  ")]
    assert listed == ["python/gen_math_ops.py (would change)",
                      "python/gen_old_ops.py (stale, would be removed)"], proc.stdout
    assert "2 generated file(s) out of date" in proc.stdout
    assert snapshot(out) == before  # --check wrote nothing, removed nothing

    # a real run repairs both
    proc = codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out))
    assert proc.returncode == 0
    m = SUMMARY.fullmatch(proc.stdout.strip())
    assert m and m.group(2) == "1" and m.group(4) == "1", proc.stdout
    assert not stale.exists()
    assert "# hand edit" not in edited.read_text()
    assert codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out), "--check").returncode == 0


def test_check_on_missing_dir_creates_nothing(tmp_path):
    out = tmp_path / "nothing_here"
    proc = codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out), "--check")
    assert proc.returncode == 1
    assert "python/gen_math_ops.py (would change)" in proc.stdout
    assert not out.exists()


def test_generate_leaves_foreign_files_alone(tmp_path):
    """Without --protos (as the build runs it), OUT/proto is not the generator's; nor is a
    file with a non-generated extension."""
    out = tmp_path / "out"
    (out / "proto").mkdir(parents=True)
    (out / "proto" / "op_def_pb2.py").write_text("# protoc output\n")
    (out / "python").mkdir()
    (out / "python" / "README.txt").write_text("notes\n")
    assert codegen_cli("generate", "--opdefs", OPDEFS, "--out", str(out)).returncode == 0
    assert (out / "proto" / "op_def_pb2.py").read_text() == "# protoc output\n"
    assert (out / "python" / "README.txt").exists()


def test_committed_generated_is_up_to_date():
    proc = codegen_cli("generate", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_check_is_independent_of_cwd():
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = codegen_cli("generate", "--check", cwd=os.path.join(ROOT, "tests"), env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---- show


def _shown_op(stdout: str):
    lines = stdout.splitlines()
    assert lines[0].startswith("# ")
    pb = opdef_pb2.OpDef()
    text_format.Parse("\n".join(lines[1:]), pb)
    return lines[0][2:], pb


@pytest.mark.parametrize("name", ["MatMul", "mat_mul"])
def test_show_matmul(name):
    proc = codegen_cli("show", name)
    assert proc.returncode == 0, proc.stderr
    assert 'name: "MatMul"' in proc.stdout
    assert "transpose_a" in proc.stdout
    assert "input_arg" in proc.stdout  # normalized to the verbose form
    loc, pb = _shown_op(proc.stdout)
    assert loc == "opdefs/math/mat_mul.pbtxt:2"
    assert [a.name for a in pb.input_arg] == ["a", "b"]
    assert [a.name for a in pb.attr] == ["transpose_a", "transpose_b", "T", "grad_a", "grad_b"]
    assert pb.shape_fn == "matmul(a, b, transpose_a, transpose_b)"
    assert [g.wrt for g in pb.gradient] == ["a", "b"]


def test_show_no_such_op():
    proc = codegen_cli("show", "NoSuchOp")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "NoSuchOp" in proc.stderr


def test_show_with_opdefs_dir(tmp_path):
    d = tmp_path / "mine"
    d.mkdir()
    (d / "twice.pbtxt").write_text('op {\n  name: "Twice"\n  signature {\n'
                                   '    input: "x: T"\n    output: "y: T"\n'
                                   '    attr: "T: {float, double}"\n  }\n'
                                   '  shape_fn: "unchanged(x)"\n}\n')
    proc = codegen_cli("show", "twice", "--opdefs", str(d))
    assert proc.returncode == 0, proc.stderr
    _, pb = _shown_op(proc.stdout)
    assert pb.name == "Twice" and pb.attr[0].name == "T"


# ---- list (needs the installed runtime)


def _cli_with_installed_runtime(*args):
    """This checkout's CLI next to the installed runtime (opforge._C), cwd = the checkout.

    The checkout's codegen is appended to sys.path (as tests/conftest.py does), so `import
    opforge` still finds the installed build rather than the source folder opforge/; -P keeps
    the cwd off sys.path for the same reason. (The installed console script would use the
    installed copy of codegen, which lags behind the checkout's opdefs between rebuilds.)"""
    code = ("import sys; sys.path.append(sys.argv[1]); from codegen.cli import main; "
            "sys.exit(main(sys.argv[2:]))")
    return subprocess.run([sys.executable, "-P", "-c", code, ROOT, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_list():
    proc = _cli_with_installed_runtime("list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    n = len(REPO_OPS)
    assert n >= 30
    assert lines[-1] == f"{n} ops"
    assert len(lines) == n + 1
    by_name = {ln.split()[0]: ln for ln in lines[:-1]}
    assert set(by_name) == {o.name for o in REPO_OPS}
    assert "of.mat_mul" in by_name["MatMul"]
    assert "kernels: CPU:" in by_name["MatMul"], by_name["MatMul"]
    assert "float32" in by_name["MatMul"]


def test_installed_console_script_list():
    """The `opforge` console script of the installed package, from the checkout."""
    exe = shutil.which("opforge")
    if exe is None:
        pytest.skip("no `opforge` console script on PATH")
    proc = subprocess.run([exe, "list"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    if proc.returncode == 2 and re.match(r"opdefs/\S+:\d+: ", proc.stderr):
        pytest.skip("the installed opforge predates this checkout's opdefs (reinstall with "
                    f"pip install .): {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == f"{len(REPO_OPS)} ops"
    mm = next(ln for ln in lines if ln.split()[0] == "MatMul")
    assert "kernels: CPU:" in mm
