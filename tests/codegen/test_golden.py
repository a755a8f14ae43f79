"""Golden tests for the emitters (in the style of MLIR's ODS tests).

A tiny opdef group ``demo`` lives in tests/codegen/data/golden/ in two spellings of the same ops:

- ``verbose/demo/*.pbtxt``: TensorFlow's verbose OpDef form (input_arg, attr { ... });
- ``compact/demo/*.pbtxt``: the compact REGISTER_OP form (signature { input: "x: T" }).

``squared_difference.pbtxt`` is an elementwise op with a gradient; ``stack_pool.pbtxt`` has a
list input ``N * T``, an int attr with a minimum, a string attr with allowed values, a shape
attr and a list(int) attr. ``codegen.gen.render_all(codegen.model.load(["demo"]))`` (run from
``verbose/``, so the source paths inside the output read ``demo/...``) must match, file by
file, the expected outputs in ``tests/codegen/data/golden/expected/<path>.golden`` (python wrappers,
.pyi stubs, gradient bindings, op index, C++ header, C++ source, Markdown docs).

After an intended change to a template or an emitter, regenerate the expected files with

    OPFORGE_UPDATE_GOLDEN=1 python -m pytest tests/codegen/test_golden.py

and review the diff (``git diff tests/codegen/data/golden``) before committing it.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import subprocess
import sys

import pytest

from codegen import gen, model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "codegen", "data", "golden")
EXPECTED = os.path.join(GOLDEN, "expected")
SUFFIX = ".golden"
UPDATE = os.environ.get("OPFORGE_UPDATE_GOLDEN") == "1"

# The files the demo group must produce (a missing kind is a failure, not a silent pass).
EXPECTED_FILES = [
    "python/gen_demo_ops.py",
    "python/gen_demo_ops.pyi",
    "python/gen_demo_grads.py",
    "python/op_index.py",
    "python/__init__.py",
    "cpp/opforge/ops/demo_ops.h",
    "cpp/opforge/ops/demo/squared_difference.h",
    "cpp/opforge/ops/demo/stack_pool.h",
    "cpp/src/demo_ops.cc",
    "docs/ops.md",
]


def render(form: str, target: str = "demo", **kw) -> dict[str, str]:
    """Loads ``tests/codegen/data/golden/<form>/<target>`` with that folder as the working directory
    (so both forms give the same source paths) and renders everything."""
    old = os.getcwd()
    os.chdir(os.path.join(GOLDEN, form))
    try:
        return gen.render_all(model.load([target]), **kw)
    finally:
        os.chdir(old)


def _expected_on_disk() -> set[str]:
    found = set()
    for root, _, files in os.walk(EXPECTED):
        for f in files:
            if f.endswith(SUFFIX):
                rel = os.path.relpath(os.path.join(root, f), EXPECTED)
                found.add(rel[: -len(SUFFIX)].replace(os.sep, "/"))
    return found


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    files = render("verbose")
    if UPDATE:
        for rel in _expected_on_disk() - set(files):
            os.remove(os.path.join(EXPECTED, rel + SUFFIX))
        for rel, text in files.items():
            path = os.path.join(EXPECTED, rel + SUFFIX)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
    return files


def test_renders_every_kind_of_file(rendered):
    assert sorted(rendered) == sorted(EXPECTED_FILES)


def test_no_stale_golden_files(rendered):
    assert _expected_on_disk() == set(rendered), \
        "expected files without a rendered counterpart; rerun with OPFORGE_UPDATE_GOLDEN=1"


@pytest.mark.parametrize("rel", EXPECTED_FILES)
def test_matches_golden(rendered, rel):
    path = os.path.join(EXPECTED, rel + SUFFIX)
    assert os.path.exists(path), f"missing {path}; run with OPFORGE_UPDATE_GOLDEN=1"
    with open(path, encoding="utf-8", newline="") as f:
        want = f.read()
    got = rendered[rel]
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            f"expected/{rel}", f"rendered/{rel}"))
        pytest.fail(f"{rel} differs from its golden file (OPFORGE_UPDATE_GOLDEN=1 rewrites "
                    f"it):\n{diff}")


@pytest.mark.parametrize("rel", [r for r in EXPECTED_FILES if r.endswith((".py", ".pyi"))])
def test_generated_python_compiles(rendered, rel):
    compile(rendered[rel], rel, "exec")


def test_deterministic():
    assert render("verbose") == render("verbose")


def test_deterministic_across_processes(rendered):
    """No dependence on set/dict iteration order: other hash seeds give the same bytes."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); from codegen import gen, model; "
            "print(json.dumps(gen.render_all(model.load(['demo']))))")
    for seed in ("1", "12345"):
        proc = subprocess.run([sys.executable, "-c", code, ROOT],
                              cwd=os.path.join(GOLDEN, "verbose"),
                              env=dict(os.environ, PYTHONHASHSEED=seed), capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == rendered


def test_wrapper_faces(rendered):
    """Spot checks that hold whatever the layout: the things the goldens are about."""
    py = rendered["python/gen_demo_ops.py"]
    assert "def squared_difference(x, y, name=None):" in py
    # N and T are inferred from the list input; attrs with defaults become keywords.
    assert ("def stack_pool(values, padding='VALID', output_shape=[-1, 4], ksize=[1, 2, 2, 1], "
            "name=None):") in py
    assert "A list of at least 2 `Tensor` objects" in py
    grads = rendered["python/gen_demo_grads.py"]
    assert '@_register("SquaredDifference")' in grads
    assert '_not_differentiable("StackPool")' in grads
    cc = rendered["cpp/src/demo_ops.cc"]
    assert "a.minimum = 2;" in cc
    assert 'AttrValue::String("SAME"), AttrValue::String("VALID")' in cc


# ---- the compact spelling renders exactly what the verbose one does

@pytest.mark.parametrize("target", [
    "demo/squared_difference.pbtxt",
    "demo/stack_pool.pbtxt",
    "demo",
])
def test_compact_and_verbose_forms_render_identically(target):
    assert render("compact", target) == render("verbose", target)


def test_compact_and_verbose_forms_give_equal_models():
    a = [_strip_loc(o) for o in _load("compact", "demo")]
    b = [_strip_loc(o) for o in _load("verbose", "demo")]
    assert len(a) == 2
    assert a == b


def test_float_default_is_the_same_in_both_forms(tmp_path, monkeypatch):
    (tmp_path / "c" / "g").mkdir(parents=True)
    (tmp_path / "v" / "g").mkdir(parents=True)
    (tmp_path / "c" / "g" / "leaky.pbtxt").write_text(
        'op {\n  name: "Leaky"\n  signature {\n    input: "x: float"\n    output: "y: float"\n'
        '    attr: "alpha: float = 0.2"\n  }\n}\n')
    (tmp_path / "v" / "g" / "leaky.pbtxt").write_text(
        'op {\n  name: "Leaky"\n  input_arg { name: "x" type: DT_FLOAT }\n'
        '  output_arg { name: "y" type: DT_FLOAT }\n'
        '  attr { name: "alpha" type: "float" default_value { f: 0.2 } }\n}\n')
    out = {}
    for form in ("c", "v"):
        monkeypatch.chdir(tmp_path / form)
        out[form] = gen.render_all(model.load(["g"]))
    assert "alpha=0.2," in out["v"]["python/gen_g_ops.py"]
    assert out["c"] == out["v"]


def _load(form: str, target: str):
    old = os.getcwd()
    os.chdir(os.path.join(GOLDEN, form))
    try:
        return model.load([target])
    finally:
        os.chdir(old)


def _strip_loc(x):
    if dataclasses.is_dataclass(x):
        return tuple((f.name, _strip_loc(getattr(x, f.name)))
                     for f in dataclasses.fields(x) if f.name != "loc")
    if isinstance(x, tuple):
        return tuple(_strip_loc(i) for i in x)
    return x
