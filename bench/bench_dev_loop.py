"""The op author's loop, timed on a scratch copy of this repository with the development install
the README describes ("Developing opforge"): edit a kernel or add an op, then call it.

Run: python bench/bench_dev_loop.py [--workdir DIR] [--keep]
     (needs the build tools in this Python: pip install scikit-build-core pybind11 cmake ninja)

Steps, each timed from the shell's point of view:
  warm build   `pip install --no-build-isolation --no-deps -e COPY` in a fresh virtual
               environment beside this one (once; later steps reuse its build/dev)
  no-op import a fresh Python importing opforge with nothing changed (the rebuild check)
  new op       the README's Cube opdef and kernel written into the copy, then a fresh Python
               that imports opforge and calls of.cube, its gradient, of.raw_ops.Cube and
               compat.v1.raw_ops.Cube, and reads its docstring and .pyi stub
  kernel edit  Cube's kernel changed to x*x*x + 1, then a fresh Python checks the new values
  edit <file>  a line appended to the slowest-compiling kernel source of the warm build (its
               worst case), then a fresh Python imports opforge
Every step after the warm build is one fresh interpreter: the rebuild on import (ninja, only
what changed; CMake reruns the codegen when an opdef changed) is part of the figure. Goals
(issue 15): kernel edit <= 15 s, new op <= 30 s, on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import site
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOALS = {"new op": 30.0, "kernel edit": 15.0}

NEW_OP = r"""
import os, sys, numpy as np, opforge as of, opforge.compat.v1 as tf
assert of.__file__.startswith(sys.argv[1]), of.__file__
x = of.constant([1.0, 2.0, 3.0])
np.testing.assert_allclose(of.cube(x).numpy(), [1, 8, 27])
with of.GradientTape() as t:
    t.watch(x)
    y = of.cube(x)
np.testing.assert_allclose(t.gradient(y, x).numpy(), [3, 12, 27])
np.testing.assert_allclose(of.raw_ops.Cube(x=x).numpy(), [1, 8, 27])
np.testing.assert_allclose(tf.raw_ops.Cube(x=x).numpy(), [1, 8, 27])
assert "Computes x * x * x element-wise." in of.cube.__doc__
pyi = os.path.join(os.path.dirname(sys.modules[of.cube.__module__].__file__), "gen_math_ops.pyi")
assert "def cube(" in open(pyi).read(), pyi
"""

EDITED = r"""
import numpy as np, opforge as of
np.testing.assert_allclose(of.cube(of.constant([1.0, 2.0, 3.0])).numpy(), [2, 9, 28])
"""


def run(cmd: list[str], cwd: str, env: dict | None = None) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"bench_dev_loop: {' '.join(cmd[:4])} ... failed:\n{r.stdout[-4000:]}{r.stderr[-4000:]}")
    return dt


def readme_cube() -> tuple[str, str]:
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
    opdef = next(b for b in blocks if b.startswith("op {") and 'name: "Cube"' in b)
    kernel = next(b for b in blocks if "OPFORGE_REGISTER_KERNEL(Cube" in b)
    return opdef, kernel


def slowest_kernel(build: str) -> tuple[str, float]:
    """The kernel source that took longest to compile in the warm build (from .ninja_log)."""
    worst, secs = None, 0.0
    with open(os.path.join(build, ".ninja_log"), encoding="utf-8") as f:
        for line in f:
            parts = line.split("\t")
            if len(parts) < 4 or "/kernels/cpu/" not in parts[3] or not parts[3].endswith(".cc.o"):
                continue
            dt = (int(parts[1]) - int(parts[0])) / 1000
            if dt > secs:
                worst, secs = parts[3].split("opforge_runtime.dir/", 1)[1][:-2], dt
    return worst, secs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", help="scratch folder (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy and its environment")
    args = ap.parse_args()

    work = args.workdir or tempfile.mkdtemp(prefix="opforge-devloop-")
    os.makedirs(work, exist_ok=True)
    repo, venv = os.path.join(work, "repo"), os.path.join(work, "venv")
    try:
        shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
            "build", ".git", "__pycache__", ".pytest_cache", "*.egg-info", "dist"))
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        py = os.path.join(venv, "bin", "python")
        venv_site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip()
        # The copy's editable install must win over any opforge of this Python (itself maybe an
        # editable install, whose import hook a .pth file puts ahead of sys.path): only the
        # scratch environment's .pth files run; this Python's site-packages just follow on
        # sys.path (numpy, jinja2, the build tools).
        boot = ("import site, sys; site.addsitedir({venv!r}); sys.path += {sys!r}; "
                "sys.argv[1:] = {argv!r}; exec(compile(open({script!r}).read(), 'step', 'exec'))")
        system_sites = site.getsitepackages()
        env = dict(os.environ, SKBUILD_EDITABLE_VERBOSE="0")

        def fresh_python(code: str) -> float:
            script = os.path.join(work, "step.py")
            with open(script, "w", encoding="utf-8") as f:
                f.write(code)
            return run([py, "-S", "-c", boot.format(sys=system_sites, venv=venv_site, argv=[repo],
                                                    script=script)], cwd=work, env=env)

        results = []
        t = run([py, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-q", "-e", repo],
                cwd=work, env=env)
        results.append(("warm build (pip install -e, once)", t, None))
        results.append(("no-op import (rebuild check)", fresh_python("import opforge"), None))

        opdef, kernel = readme_cube()
        with open(os.path.join(repo, "opdefs", "math", "cube.pbtxt"), "w", encoding="utf-8") as f:
            f.write(opdef)
        cube_cc = os.path.join(repo, "kernels", "cpu", "math", "cube.cc")
        with open(cube_cc, "w", encoding="utf-8") as f:
            f.write(kernel)
        results.append(("new op: opdef + kernel -> of.cube callable", fresh_python(NEW_OP), GOALS["new op"]))

        edited = kernel.replace("return static_cast<T>(c * c * c);", "return static_cast<T>(c * c * c + 1);")
        assert edited != kernel, "the README's Cube kernel changed; update this benchmark"
        with open(cube_cc, "w", encoding="utf-8") as f:
            f.write(edited)
        results.append(("kernel edit: Cube's kernel -> new values", fresh_python(EDITED), GOALS["kernel edit"]))

        worst, compile_s = slowest_kernel(os.path.join(repo, "build", "dev"))
        with open(os.path.join(repo, worst), "a", encoding="utf-8") as f:
            f.write("// edited by bench_dev_loop\n")
        results.append((f"kernel edit: {worst} (slowest, {compile_s:.1f} s in the warm build)",
                        fresh_python("import opforge"), GOALS["kernel edit"]))

        print(f"opforge development loop on {os.cpu_count()} cores (scratch copy: {repo})")
        width = max(len(r[0]) for r in results)
        for name, secs, goal in results:
            verdict = "" if goal is None else f"goal <= {goal:.0f} s: {'met' if secs <= goal else 'NOT met'}"
            print(f"  {name:<{width}}  {secs:7.1f} s  {verdict}")
        return 0
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
