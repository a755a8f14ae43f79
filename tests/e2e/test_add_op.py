"""The README's "Adding an op" walk-through, run for real.

Copies the repository, adds the opdef and the CPU kernel exactly as the README shows them
(the code blocks are read from README.md), rebuilds and installs the copy into a private
folder, then calls the new op, differentiates it and checks `opforge generate --check`.
The same copy also gets an op scaffolded by `opforge new` (in tree), whose generated test
must pass against the build.
"""

import os
import re
import shutil
import site
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def python_with(site_dir, code):
    """A command running `code` in this Python with site_dir first on sys.path and this Python's
    site-packages after it, without processing their .pth files: an editable opforge installed
    here (an import hook that a .pth file installs, ahead of sys.path) must not shadow the copy."""
    paths = [str(site_dir)] + site.getsitepackages()
    return [sys.executable, "-S", "-c", f"import sys; sys.path[1:1] = {paths!r}\n" + code]


def readme_blocks():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)


def test_readme_add_op_walkthrough(tmp_path):
    blocks = readme_blocks()
    opdef = next(b for b in blocks if b.startswith("op {") and 'name: "Cube"' in b)
    kernel = next(b for b in blocks if "OPFORGE_REGISTER_KERNEL(Cube" in b)

    repo = tmp_path / "repo"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
        "build", ".git", "__pycache__", ".pytest_cache", "*.egg-info", "dist"))
    # A checkout where someone already followed the walk-through (or scaffolded the probe)
    # starts again from the state before it, so the steps below are the README's own.
    leftovers = ["opdefs/math/cube.pbtxt", "kernels/cpu/math/cube.cc", "opdefs/scaffold/scaffold_probe.pbtxt",
                 "kernels/cpu/scaffold/scaffold_probe.cc", "tests/ops/test_scaffold_probe.py"]
    if any((repo / f).exists() for f in leftovers):
        for f in leftovers:
            (repo / f).unlink(missing_ok=True)
        base = subprocess.run([sys.executable, "-m", "codegen", "generate"], cwd=repo, capture_output=True, text=True)
        assert base.returncode == 0, base.stderr
    (repo / "opdefs" / "math" / "cube.pbtxt").write_text(opdef)
    (repo / "kernels" / "cpu" / "math" / "cube.cc").write_text(kernel)
    # `opforge new` scaffolds another op in the same copy (one build for both): its opdef,
    # kernel and test must build and pass as generated.
    new = subprocess.run([sys.executable, "-m", "codegen", "new", "ScaffoldProbe", "--group", "scaffold"],
                         cwd=repo, capture_output=True, text=True)
    assert new.returncode == 0, new.stdout + new.stderr

    # generated/ is now stale: --check must say so, then generate fixes it.
    check = subprocess.run([sys.executable, "-m", "codegen", "generate", "--check"], cwd=repo,
                           capture_output=True, text=True)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "python/gen_math_ops.py" in check.stdout
    gen = subprocess.run([sys.executable, "-m", "codegen", "generate"], cwd=repo,
                         capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    assert subprocess.run([sys.executable, "-m", "codegen", "generate", "--check"], cwd=repo,
                          capture_output=True).returncode == 0

    site = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-q",
         "--target", str(site), str(repo)],
        # The CPU build is what this test is about: no GPU backends or MPI, and -O0 (the whole
        # runtime compiles in a third of -O3's time; the ops run here are tiny).
        env=dict(os.environ, CMAKE_ARGS="-DOPFORGE_CUDA=OFF -DOPFORGE_HIP=OFF -DOPFORGE_MPI=OFF "
                                        "-DCMAKE_CXX_FLAGS_RELEASE=-O0"),
        capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]

    script = textwrap.dedent("""
        import numpy as np
        import opforge as of
        assert of.__file__.startswith(SITE), of.__file__
        x = of.constant([1.0, 2.0, 3.0])
        y = of.cube(x)
        assert y.dtype == of.float32
        np.testing.assert_allclose(y.numpy(), [1, 8, 27])
        xi = of.constant(np.array([-2, 5], np.int64))
        assert of.cube(xi).numpy().tolist() == [-8, 125]
        with of.GradientTape() as t:
            t.watch(x)
            z = of.cube(x)
        np.testing.assert_allclose(t.gradient(z, x).numpy(), [3, 12, 27])
        assert "Computes x * x * x element-wise." in of.cube.__doc__
        assert "The values to cube." in of.cube.__doc__
        np.testing.assert_allclose(of.raw_ops.Cube(x=x).numpy(), [1, 8, 27])
        try:
            of.cube(of.constant([True]))
        except of.InvalidArgumentError as e:
            assert "Cube" in str(e)
        else:
            raise AssertionError("bool input accepted")
        import opforge.generated as g, os
        assert os.path.exists(os.path.join(os.path.dirname(g.__file__), "gen_math_ops.pyi"))
        print("cube ok")
    """)
    run = subprocess.run(python_with(site, f"SITE = {str(site)!r}\n" + script),
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cube ok" in run.stdout

    scaffold_test = repo / "tests" / "ops" / "test_scaffold_probe.py"
    pytest_main = f"import pytest, sys; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', {str(scaffold_test)!r}]))"
    t = subprocess.run(python_with(site, pytest_main), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert t.returncode == 0, t.stdout[-4000:] + t.stderr[-4000:]
    assert "7 passed" in t.stdout, t.stdout


if os.environ.get("OPFORGE_SKIP_REBUILD_TESTS"):
    test_readme_add_op_walkthrough = pytest.mark.skip("OPFORGE_SKIP_REBUILD_TESTS is set")(
        test_readme_add_op_walkthrough)
