"""tf.print (ops/print_ops.py): TensorFlow's formatting of tensors and structures, eager printing,
and in a graph an op that prints when run (fetched or as a control dependency)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import opforge as of
from opforge.ops.print_ops import format_tensor, print_v2

CASES = [
    (np.arange(10), 3, "[0 1 2 ... 7 8 9]"),
    (np.arange(12).reshape(3, 4), 3, "[[0 1 2 3]\n [4 5 6 7]\n [8 9 10 11]]"),
    (np.arange(24).reshape(2, 3, 4), 1, "[[[0 ... 3]\n  ...\n  [8 ... 11]]\n\n [[12 ... 15]\n  ...\n  [20 ... 23]]]"),
    (np.arange(10), -1, "[0 1 2 3 4 5 6 7 8 9]"),
    (np.array([1.5, 2.0, 1 / 3, -0.0, np.inf, np.nan], np.float32), 6, "[1.5 2 0.333333343 -0 inf nan]"),
    (np.array([1 / 3]), 3, "[0.33333333333333331]"),
    (np.array([True, False]), 3, "[1 0]"),
    (np.array([b"a", b'q"\n']), 3, '["a" "q\\"\\n"]'),
    (np.float32(2.5), 3, "2.5"),
    (np.zeros((0, 3)), 3, "[]"),
]


@pytest.mark.parametrize("value,summarize,text", CASES, ids=range(len(CASES)))
def test_format_tensor(value, summarize, text):
    assert format_tensor(value, summarize) == text


def test_eager_print_structures_sep_end():
    out = io.StringIO()
    result = print_v2("v:", of.constant([1, 2]), [1, of.constant(2.5)], {"b": of.constant([True]), "a": "s"}, 7,
                      output_stream=out, sep="|", end="!\n")
    assert result is None
    assert out.getvalue() == "v:|[1 2]|[1, 2.5]|{'a': 's', 'b': [1]}|7!\n"


def test_graph_print_runs_when_fetched_or_depended_on(graph, tmp_path):
    x = of.placeholder(of.float32, [None])
    path = tmp_path / "log.txt"
    op = print_v2("x =", x, output_stream=f"file://{path}", summarize=2)
    assert op.type == "PyFunc" and path.exists() is False
    with of.control_dependencies([print_v2("dep", output_stream=f"file://{path}")]):
        y = of.identity(x)
    with of.Session(graph=graph) as s:
        s.run(op, {x: np.arange(6, dtype=np.float32)})
        s.run(y, {x: [1.0]})
    assert path.read_text() == "x = [0 1 ... 4 5]\ndep\n"


def test_logging_callable_and_errors():
    lines = []
    print_v2("hello", of.constant(3), output_stream=lines.append)
    assert lines == ["hello 3"]
    with pytest.raises(ValueError, match="output_stream"):
        print_v2("x", output_stream="stdout")
    with pytest.raises(ValueError, match="unrecognized keyword"):
        print_v2("x", bogus=1)


def test_against_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow")
    values = [np.random.randint(-9, 9, (3, 7)).astype(np.int32), np.random.rand(2, 2, 3).astype(np.float32),
              np.array([[True], [False]]), np.random.rand(9)]
    for i, v in enumerate(values):
        for summarize in (1, 3, -1):
            theirs, ours = tmp_path / f"tf{i}{summarize}", tmp_path / f"of{i}{summarize}"
            tf.print("t", tf.constant(v), [1, tf.constant(v[0])], output_stream=f"file://{theirs}",
                     summarize=summarize)
            print_v2("t", of.constant(v), [1, of.constant(v[0])], output_stream=f"file://{ours}",
                     summarize=summarize)
            assert ours.read_text() == theirs.read_text()
