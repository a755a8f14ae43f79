"""The string dtype (TensorFlow's tf.string): constants eagerly and in graphs, placeholders fed
with str/bytes, control flow passing strings along, fetches as bytes, GraphDef string_val in
both directions (read by TensorFlow when it is installed), and the typed errors of ops that do
not take strings."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError


def test_eager_constants_hold_bytes():
    t = of.constant("Hello")
    assert t.dtype == of.string and t.shape == () and t.numpy() == b"Hello"
    words = [["naïve", "b"], ["", "longer string " * 10]]
    m = of.constant(words)
    assert m.shape == (2, 2)
    expected = np.array([[w.encode() for w in row] for row in words], dtype=object)
    np.testing.assert_array_equal(m.numpy(), expected)
    np.testing.assert_array_equal(of.identity(m).numpy(), expected)
    np.testing.assert_array_equal(of.constant(np.array([b"x", b"yz"])).numpy(), np.array([b"x", b"yz"], dtype=object))
    assert of.constant(b"\x00\xffraw").numpy() == b"\x00\xffraw"  # any bytes, NULs included


def test_string_dtype_spellings():
    assert of.as_dtype("string") is of.string and of.as_dtype(7) is of.string
    assert of.as_dtype(str) is of.string and of.as_dtype(np.dtype("U3")) is of.string
    assert tf1.string is of.string and tf1.constant("a", dtype=tf1.string).dtype == of.string


def test_strings_in_a_session():
    rng = np.random.default_rng(0)
    fed = np.array(["".join(rng.choice(list("abcxyz"), size=k)) for k in rng.integers(0, 9, size=7)])
    with tf1.Graph().as_default():
        hello = tf1.constant("Hello, TensorFlow!")
        p = tf1.placeholder(tf1.string, [None])
        flag = tf1.placeholder(tf1.bool, [])
        picked = tf1.cond(flag, lambda: tf1.identity(p), lambda: tf1.constant(["other"]))
        with tf1.Session() as sess:
            assert sess.run(hello) == b"Hello, TensorFlow!"
            got = sess.run(picked, {p: fed, flag: True})
            np.testing.assert_array_equal(got, np.array([s.encode() for s in fed], dtype=object))
            np.testing.assert_array_equal(sess.run(picked, {p: fed, flag: False}), [b"other"])
            np.testing.assert_array_equal(sess.run(p, {p: [b"a", "b"]}), [b"a", b"b"])


def test_graph_def_round_trip_keeps_strings():
    g = of.Graph()
    with g.as_default():
        tf1.constant([["a", "bc"], ["", "d\x00e"]], name="words")
        tf1.constant("scalar", name="one")
    gd = g.as_graph_def()
    value = next(n for n in gd.node if n.name == "words").attr["value"].tensor
    assert list(value.string_val) == [b"a", b"bc", b"", b"d\x00e"] and not value.tensor_content
    back = of.Graph()
    with back.as_default():
        of.import_graph_def(gd, name="")
    words, one = tf1.Session(graph=back).run(["words:0", "one:0"])
    np.testing.assert_array_equal(words, np.array([[b"a", b"bc"], [b"", b"d\x00e"]], dtype=object))
    assert one == b"scalar"


def test_graph_def_strings_repeat_the_last_value_as_tensorflow():
    from opforge.io.graph_def import tensor_from_proto
    from opforge.generated.proto.op_def_pb2 import TensorProto
    tp = TensorProto(dtype=7)
    tp.tensor_shape.dim.add().size = 3
    tp.string_val.extend([b"a", b"b"])
    np.testing.assert_array_equal(tensor_from_proto(tp).numpy(), [b"a", b"b", b"b"])
    tp.string_val.extend([b"c", b"d"])
    with pytest.raises(InvalidArgumentError, match="4 values for shape"):
        tensor_from_proto(tp, "n", "Const")


def test_tensorflow_reads_and_writes_string_constants():
    tf = pytest.importorskip("tensorflow")
    g = of.Graph()
    with g.as_default():
        tf1.constant([["é", "b"]], name="mine")
    with tf.Graph().as_default() as tg:
        tf.compat.v1.import_graph_def(tf.compat.v1.GraphDef.FromString(g.as_graph_def().SerializeToString()), name="")
        np.testing.assert_array_equal(tf.compat.v1.Session(graph=tg).run("mine:0"), [["é".encode(), b"b"]])
        tf.constant([b"from", b"tf"], name="theirs")
    back = of.Graph()
    with back.as_default():
        from opforge.generated.proto.op_def_pb2 import GraphDef
        of.import_graph_def(GraphDef.FromString(tg.as_graph_def().SerializeToString()), name="")
    np.testing.assert_array_equal(tf1.Session(graph=back).run("theirs:0"), [b"from", b"tf"])


@pytest.mark.parametrize("call, message", [
    (lambda: of.add("a", "b"), "AddV2: dtype string is not supported"),
    (lambda: of.constant(["a", 1]), "cannot convert .* to a Tensor of string"),
    (lambda: of.constant(3, dtype=of.string), "cannot convert 3 to a Tensor of string"),
    (lambda: of.constant("a", dtype=of.float32), "cannot convert a string to a Tensor of float32"),
])
def test_bad_string_calls_raise_typed_errors(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


def test_feeding_a_number_to_a_string_placeholder_is_an_error():
    with tf1.Graph().as_default():
        p = tf1.placeholder(tf1.string)
        with pytest.raises(InvalidArgumentError, match="Tensor of string"):
            tf1.Session().run(p, {p: 3})
