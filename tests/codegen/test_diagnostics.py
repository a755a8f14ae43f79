"""Every opdef diagnostic, pinned: file, line and message.

Each case writes a small opdef (or two) to ``tmp_path/<group>/<file>.pbtxt`` with the bad line
at a known line number and checks the error twice:

- in process: ``codegen.model.load([dir])`` raises ``OpDefError`` whose ``.loc.file`` is the
  path relative to the working directory, ``.loc.line`` the bad line and ``.message`` the text;
- from the command line: ``python -m codegen generate --opdefs DIR --out OUT`` run from the
  repository root exits 2, prints exactly one ``file:line: message`` line on stderr (the file
  relative to the repository root) and leaves OUT untouched (all-or-nothing generation).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codegen import model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Case:
    id: str
    files: dict[str, str]  # "<group>/<file>.pbtxt" -> text
    file: str  # the file the error points at
    line: int
    needles: tuple[str, ...]  # substrings of the message ({dup_first} is filled in per test)
    marks: list = field(default_factory=list)


def _op(body: str, name: str = "Foo") -> str:
    """An opdef whose line 1 is `op {`, line 2 the name, then `body` from line 3."""
    return f'op {{\n  name: "{name}"\n{body}}}\n'


CASES = [
    # ---- protobuf text syntax
    Case("syntax-unterminated-string", {"bad/syntax.pbtxt": _op(
        '  summary: "Foo\n'                                          # 3
    )}, "bad/syntax.pbtxt", 3, ("String missing ending quote",)),
    Case("syntax-missing-colon", {"bad/colon.pbtxt": _op(
        '  summary: "ok"\n'                                          # 3
        '  description "x"\n'                                        # 4
    )}, "bad/colon.pbtxt", 4, ('Expected ":"',)),
    Case("syntax-unbalanced-brace", {"bad/brace.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        "\n"                                                         # 5
    )}, "bad/brace.pbtxt", 6, ('Expected "}"',)),
    # ---- schema
    Case("unknown-field", {"bad/unknown.pbtxt": _op(
        '  summary: "ok"\n'                                          # 3
        '  summry: "typo"\n'                                         # 4
    )}, "bad/unknown.pbtxt", 4, ('has no field named "summry"',)),
    Case("unknown-field-nested", {"bad/nested.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    output: "y: float"\n'                                   # 4
        '    inputs: "x: float"\n'                                   # 5
        "  }\n"
    )}, "bad/nested.pbtxt", 5, ('has no field named "inputs"', "Signature")),
    Case("unknown-dtype-enum", {"bad/enum.pbtxt": _op(
        "  input_arg {\n"                                            # 3
        '    name: "x"\n'                                            # 4
        "    type: DT_FLOOT\n"                                       # 5
        "  }\n"
    )}, "bad/enum.pbtxt", 5, ("DT_FLOOT",)),
    # ---- op set
    Case("duplicate-op-across-files", {
        "dup/a_first.pbtxt": _op('  summary: "first"\n'),
        "dup/b_second.pbtxt": '# the same op again\n' + _op('  summary: "second"\n'),
    }, "dup/b_second.pbtxt", 3, ("duplicate op name 'Foo'", "first defined at {dup_first}:2")),
    Case("op-name-not-camel-case", {"bad/camel.pbtxt": (
        "op {\n"                                                     # 1
        '  summary: "lower case name"\n'                             # 2
        '  name: "foo_bar"\n'                                        # 3
        "}\n"
    )}, "bad/camel.pbtxt", 3, ("op name 'foo_bar' is not CamelCase",)),
    # ---- args and attrs
    Case("undeclared-type-attr-compact", {"bad/u.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "a: float"\n'                                    # 4
        '    input: "x: U"\n'                                        # 5
        '    output: "y: float"\n'                                   # 6
        "  }\n"
    )}, "bad/u.pbtxt", 5, ("arg 'x' of op Foo names type attr 'U', which is not declared",)),
    Case("undeclared-type-attr-verbose", {"bad/uv.pbtxt": _op(
        '  summary: "ok"\n'                                          # 3
        "  input_arg {\n"                                            # 4  (the arg's line)
        '    name: "x"\n'                                            # 5
        '    type_attr: "U"\n'                                       # 6
        "  }\n"
    )}, "bad/uv.pbtxt", 4, ("arg 'x' of op Foo names type attr 'U', which is not declared",)),
    Case("undeclared-number-attr", {"bad/n.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: N * float"\n'                                # 4
        "  }\n"
    )}, "bad/n.pbtxt", 4, ("arg 'x' of op Foo names number attr 'N', which is not declared",)),
    Case("number-attr-not-int", {"bad/nf.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "T: type"\n'                                      # 4
        '    attr: "N: float"\n'                                     # 5
        '    input: "x: N * T"\n'                                    # 6
        "  }\n"
    )}, "bad/nf.pbtxt", 6, ("number_attr 'N' of arg 'x' in op Foo is 'float', not an int attr",)),
    Case("type-attr-not-type", {"bad/ta.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "T: int"\n'                                       # 4
        '    input: "x: T"\n'                                        # 5
        "  }\n"
    )}, "bad/ta.pbtxt", 5, ("arg 'x' of op Foo: attr 'T' is 'int', not 'type'",)),
    Case("arg-with-two-types", {"bad/two.pbtxt": _op(
        "  attr {\n"                                                 # 3
        '    name: "T"\n'                                            # 4
        '    type: "type"\n'                                         # 5
        "  }\n"                                                      # 6
        "  input_arg {\n"                                            # 7
        '    name: "x"\n'                                            # 8
        "    type: DT_FLOAT\n"                                       # 9
        '    type_attr: "T"\n'                                       # 10
        "  }\n"
    )}, "bad/two.pbtxt", 7, ("arg 'x' of op Foo needs exactly one of type, type_attr, "
                             "type_list_attr",)),
    Case("duplicate-attr", {"bad/da.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "T: type"\n'                                      # 4
        '    attr: "T: {float}"\n'                                   # 5
        "  }\n"
    )}, "bad/da.pbtxt", 5, ("op Foo declares attr 'T' twice",)),
    Case("python-name-unknown", {"bad/pn.pbtxt": _op(
        '  signature { input: "x: float" output: "y: float" }\n'     # 3
        '  python_name { name: "z" rename_to: "axis" }\n'            # 4
    )}, "bad/pn.pbtxt", 4, ("python_name of op Foo renames 'z', which is not an input or attr",)),
    Case("python-name-clash", {"bad/pc.pbtxt": _op(
        '  signature { input: "x: float" input: "y: float" output: "z: float" }\n'  # 3
        '  python_name { name: "x" rename_to: "y" }\n'               # 4
    )}, "bad/pc.pbtxt", 4, ("renames 'x' to 'y', the name of another parameter",)),
    Case("python-name-not-identifier", {"bad/pi.pbtxt": _op(
        '  signature { input: "x: float" output: "y: float" }\n'     # 3
        '  python_name { name: "x" rename_to: "2x" }\n'              # 4
    )}, "bad/pi.pbtxt", 4, ("'2x' is not a usable Python parameter name",)),
    Case("duplicate-input", {"bad/di.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    input: "x: double"\n'                                   # 5
        "  }\n"
    )}, "bad/di.pbtxt", 5, ("op Foo declares input 'x' twice",)),
    Case("default-not-allowed-type", {"bad/dt.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: T"\n'                                        # 4
        '    attr: "T: {float, double} = DT_INT32"\n'                # 5
        "  }\n"
    )}, "bad/dt.pbtxt", 5, ("default 'int32' of attr 'T' in op Foo is not among its allowed "
                            "values {float, double}",)),
    Case("default-not-allowed-string", {"bad/ds.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        "    attr: \"padding: {'SAME', 'VALID'} = 'FULL'\"\n"        # 5
        "  }\n"
    )}, "bad/ds.pbtxt", 5, ("default 'FULL' of attr 'padding' in op Foo is not among its allowed "
                            "values {SAME, VALID}",)),
    Case("default-below-minimum", {"bad/dm.pbtxt": _op(
        '  summary: "ok"\n'                                          # 3
        "  attr {\n"                                                 # 4
        '    name: "n"\n'                                            # 5
        '    type: "int"\n'                                          # 6
        "    default_value { i: 1 }\n"                               # 7
        "    has_minimum: true\n"                                    # 8
        "    minimum: 2\n"                                           # 9
        "  }\n"
    )}, "bad/dm.pbtxt", 4, ("default of attr 'n' in op Foo is below its minimum 2",)),
    Case("verbose-default-of-the-wrong-kind", {"bad/dk.pbtxt": _op(
        '  summary: "ok"\n'                                          # 3
        "  attr {\n"                                                 # 4
        '    name: "n"\n'                                            # 5
        '    type: "int"\n'                                          # 6
        "    default_value { f: 1.5 }\n"                             # 7
        "  }\n"
    )}, "bad/dk.pbtxt", 4, ("default", "'n'", "int")),
    Case("verbose-attr-unknown-type", {"bad/vt.pbtxt": _op(
        "  attr {\n"                                                 # 3
        '    name: "x"\n'                                            # 4
        '    type: "list(foo)"\n'                                    # 5
        "  }\n"
    )}, "bad/vt.pbtxt", 3, ("attr 'x' has unknown type 'list(foo)'",)),
    # ---- spec strings
    Case("attr-spec-without-colon", {"bad/ac.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    attr: "T type"\n'                                       # 5
        "  }\n"
    )}, "bad/ac.pbtxt", 5, ("malformed attr spec 'T type': expected 'name: type'",)),
    Case("attr-spec-unknown-type", {"bad/at.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "T: tipe"\n'                                      # 4
        "  }\n"
    )}, "bad/at.pbtxt", 4, ("malformed attr spec 'T: tipe': unknown attr type 'tipe'",)),
    Case("attr-spec-unknown-dtype-in-set", {"bad/as.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "T: {float, quux}"\n'                             # 4
        "  }\n"
    )}, "bad/as.pbtxt", 4, ("malformed attr spec 'T: {float, quux}': unknown type 'quux'",)),
    Case("attr-spec-bad-default", {"bad/ad.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "n: int = abc"\n'                                 # 4
        "  }\n"
    )}, "bad/ad.pbtxt", 4, ("malformed default in 'n: int = abc': 'abc' is not a int",)),
    Case("attr-spec-bad-bool-default", {"bad/ab.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "flag: bool = yes"\n'                             # 4
        "  }\n"
    )}, "bad/ab.pbtxt", 4, ("malformed default in 'flag: bool = yes'", "'yes'")),
    Case("attr-spec-list-default-not-list", {"bad/al.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "ksize: list(int) = 3"\n'                         # 4
        "  }\n"
    )}, "bad/al.pbtxt", 4, ("malformed attr spec 'ksize: list(int) = 3': list default must be "
                            "[...]",)),
    Case("attr-spec-minimum-on-string", {"bad/am.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "s: string >= 1"\n'                               # 4
        "  }\n"
    )}, "bad/am.pbtxt", 4, ("malformed attr spec 's: string >= 1': '>=' needs an int or list "
                            "attr",)),
    Case("compact-default-below-minimum", {"bad/cm.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "T: type"\n'                                      # 4
        '    attr: "N: int >= 2 = 1"\n'                              # 5
        '    input: "x: N * T"\n'                                    # 6
        "  }\n"
    )}, "bad/cm.pbtxt", 5, ("default of attr 'N' in op Foo is below its minimum 2",)),
    Case("arg-spec-malformed", {"bad/ar.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    attr: "N: int"\n'                                       # 4
        '    input: "x: N *"\n'                                      # 5
        "  }\n"
    )}, "bad/ar.pbtxt", 5, ("malformed arg spec 'x: N *': expected 'T', 'N * T' or a dtype",)),
    Case("arg-spec-without-colon", {"bad/an.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x float"\n'                                     # 4
        "  }\n"
    )}, "bad/an.pbtxt", 4, ("malformed arg spec 'x float': expected 'name: type'",)),
    # ---- shape functions
    Case("unknown-shape-fn", {"bad/sf.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    output: "y: float"\n'                                   # 5
        "  }\n"                                                      # 6
        '  shape_fn: "no_such_fn(x)"\n'                             # 7
    )}, "bad/sf.pbtxt", 7, ("unknown shape function 'no_such_fn' in op Foo", "unchanged",
                            "custom")),
    Case("shape-fn-arity", {"bad/sa.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    output: "y: float"\n'                                   # 5
        "  }\n"                                                      # 6
        '  shape_fn: "broadcast(x)"\n'                               # 7
    )}, "bad/sa.pbtxt", 7, ("shape function 'broadcast' takes 2 argument(s), op Foo gives 1",)),
    Case("shape-fn-attr-where-input-expected", {"bad/sk.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    output: "y: float"\n'                                   # 5
        '    attr: "n: int"\n'                                       # 6
        "  }\n"                                                      # 7
        '  shape_fn: "unchanged(n)"\n'                               # 8
    )}, "bad/sk.pbtxt", 8, ("shape function 'unchanged' of op Foo: 'x' must be an input, 'n' is "
                            "not one",)),
    Case("shape-fn-wrong-attr-type", {"bad/sw.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "a: float"\n'                                    # 4
        '    input: "b: float"\n'                                    # 5
        '    output: "y: float"\n'                                   # 6
        '    attr: "n: int"\n'                                       # 7
        "  }\n"                                                      # 8
        '  shape_fn: "matmul(a, b, n, n)"\n'                         # 9
    )}, "bad/sw.pbtxt", 9, ("shape function 'matmul' of op Foo: 'transpose_a' must be a bool "
                            "attr, 'n' is not one",)),
    Case("shape-fn-malformed", {"bad/sm.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        "  }\n"                                                      # 5
        '  shape_fn: "unchanged(x"\n'                                # 6
    )}, "bad/sm.pbtxt", 6, ("malformed shape_fn 'unchanged(x': expected 'name(args)'",)),
    # ---- gradients
    Case("gradient-unknown-name", {"bad/gu.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    output: "y: float"\n'                                   # 5
        "  }\n"                                                      # 6
        "  # a multi-line gradient: the error points at its first line\n"  # 7
        "  gradient {\n"                                             # 8
        '    wrt: "x"\n'                                             # 9
        '    expr: "frobnicate(grad, y)"\n'                          # 10
        "  }\n"
    )}, "bad/gu.pbtxt", 8, ("gradient of op Foo with respect to 'x' uses unknown name "
                            "'frobnicate'",)),
    Case("gradient-syntax-error", {"bad/gs.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    output: "y: float"\n'                                   # 5
        "  }\n"                                                      # 6
        '  gradient { wrt: "x" expr: "grad * (y" }\n'                # 7
    )}, "bad/gs.pbtxt", 7, ("gradient of op Foo with respect to 'x' is not a valid expression",)),
    Case("gradient-wrt-output", {"bad/gw.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        '    output: "y: float"\n'                                   # 5
        "  }\n"                                                      # 6
        '  gradient { wrt: "y" expr: "grad" }\n'                     # 7
    )}, "bad/gw.pbtxt", 7, ("gradient of op Foo is with respect to 'y', which is not an input",)),
    Case("gradient-twice", {"bad/g2.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        "  }\n"                                                      # 5
        '  gradient { wrt: "x" expr: "grad" }\n'                     # 6
        '  gradient { wrt: "x" expr: "grad * 2" }\n'                 # 7
    )}, "bad/g2.pbtxt", 7, ("op Foo has two gradients with respect to 'x'",)),
    Case("not-differentiable-with-gradient", {"bad/nd.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        "  }\n"                                                      # 5
        "  not_differentiable: true\n"                               # 6
        '  gradient { wrt: "x" expr: "grad" }\n'                     # 7
    )}, "bad/nd.pbtxt", 2, ("op Foo is not_differentiable but declares a gradient",)),
    Case("not-differentiable-with-gradient-fn", {"bad/nf2.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        "  }\n"                                                      # 5
        '  gradient_fn: "my_grad"\n'                                 # 6
        "  not_differentiable: true\n"                               # 7
    )}, "bad/nf2.pbtxt", 2, ("op Foo is not_differentiable but declares a gradient",)),
    Case("reference-syntax-error", {"bad/rs.pbtxt": _op(
        "  signature {\n"                                            # 3
        '    input: "x: float"\n'                                    # 4
        "  }\n"                                                      # 5
        '  reference: "np.abs(x"\n'                                  # 6
    )}, "bad/rs.pbtxt", 6, ("reference of op Foo is not a valid expression",)),
]


def _write(tmp_path, case: Case) -> list[str]:
    dirs = []
    for rel, text in case.files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        d = str(p.parent)
        if d not in dirs:
            dirs.append(d)
    return dirs


def _params():
    return [pytest.param(c, id=c.id, marks=c.marks) for c in CASES]


def _needles(case: Case, rel) -> list[str]:
    first = next(iter(case.files))
    return [n.replace("{dup_first}", rel(first)) for n in case.needles]


def test_case_line_numbers_point_at_a_real_line():
    """Guards the table itself: each pinned line exists in its file."""
    for c in CASES:
        assert 1 <= c.line <= c.files[c.file].count("\n"), c.id


@pytest.mark.parametrize("case", _params())
def test_load_raises_located_error(case, tmp_path, monkeypatch):
    dirs = _write(tmp_path, case)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(model.OpDefError) as info:
        model.load(dirs)
    err = info.value
    assert err.loc.file == case.file
    assert err.loc.line == case.line, err
    for needle in _needles(case, lambda p: p):
        assert needle in err.message, err
    assert str(err) == f"{case.file}:{case.line}: {err.message}"


def _snapshot(d) -> dict[str, tuple[bytes, int]]:
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, d)] = (open(p, "rb").read(), os.stat(p).st_mtime_ns)
    return out


@dataclass
class CliRun:
    base: Path
    out: Path
    before: dict
    proc: subprocess.CompletedProcess


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory) -> dict[str, CliRun]:
    """Every case through the CLI, run concurrently (each is a fresh interpreter)."""
    def run(case: Case) -> CliRun:
        base = tmp_path_factory.mktemp(case.id)
        dirs = _write(base, case)
        out = base / "out"
        (out / "python").mkdir(parents=True)
        (out / "python" / "gen_keep_ops.py").write_text("# pre-existing; must survive\n")
        (out / "docs").mkdir()
        (out / "docs" / "ops.md").write_text("# pre-existing\n")
        before = _snapshot(out)
        argv = [sys.executable, "-m", "codegen", "generate", "--out", str(out)]
        for d in dirs:
            argv += ["--opdefs", d]
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
        return CliRun(base, out, before, proc)

    with ThreadPoolExecutor(max_workers=min(8, 2 * (os.cpu_count() or 1))) as pool:
        return dict(zip([c.id for c in CASES], pool.map(run, CASES)))


@pytest.mark.parametrize("case", _params())
def test_cli_reports_error_and_writes_nothing(case, cli_runs):
    r = cli_runs[case.id]
    proc = r.proc
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    m = re.fullmatch(r"(.+):(\d+): (.+)", lines[0])
    assert m, lines[0]
    rel = lambda p: os.path.relpath(str(r.base / p), ROOT)  # noqa: E731
    assert m.group(1) == rel(case.file)
    assert int(m.group(2)) == case.line
    for needle in _needles(case, rel):
        assert needle in m.group(3), lines[0]
    assert _snapshot(r.out) == r.before
    assert not (r.out / "cpp").exists()


def test_error_in_one_file_writes_none_of_the_good_ones(tmp_path):
    """A good opdef beside a bad one: nothing is generated for either."""
    good = tmp_path / "ops" / "a_good.pbtxt"
    good.parent.mkdir()
    good.write_text(_op('  signature {\n    input: "x: float"\n    output: "y: float"\n  }\n',
                        name="Good"))
    (tmp_path / "ops" / "b_bad.pbtxt").write_text(_op('  shape_fn: "nope()"\n'))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "codegen", "generate", "--opdefs",
                           str(tmp_path / "ops"), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "b_bad.pbtxt:3: unknown shape function 'nope'" in proc.stderr
    assert not out.exists()


def test_wrapper_name_collision(tmp_path, monkeypatch):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "a.pbtxt").write_text('op {\n  name: "FooBar"\n}\n')
    (tmp_path / "g" / "b.pbtxt").write_text('op {\n  name: "Foo_Bar"\n}\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(model.OpDefError) as info:
        model.load(["g"])
    assert (info.value.loc.file, info.value.loc.line) == ("g/b.pbtxt", 2)
    assert "foo_bar" in info.value.message and "g/a.pbtxt:2" in info.value.message
