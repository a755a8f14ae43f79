"""tf.strings.format (StringFormat) against TensorFlow's print_v2 text, pinned as literals (TF 2.21's
answers) and compared live where TensorFlow is installed."""

import numpy as np
import pytest

import opforge as of
from opforge.framework.errors import InvalidArgumentError
from opforge.generated import gen_strings_ops as gen
from opforge.ops.format_ops import format as string_format

# (template, inputs, keywords, TensorFlow 2.21's answer)
CASES = [
    ("{}", [np.int32(1)], {}, "1"),
    ("{}", [np.float32(1 / 3)], {}, "0.333333343"),
    ("{}", [np.float64(1 / 3)], {}, "0.33333333333333331"),
    ("{}", [np.float16(0.1)], {}, "0.0999755859"),
    ("{}", [np.arange(1, 8)], {}, "[1 2 3 ... 5 6 7]"),
    ("{}", [np.arange(1, 8)], {"summarize": 2}, "[1 2 ... 6 7]"),
    ("{}", [np.arange(1, 6)], {"summarize": -1}, "[1 2 3 4 5]"),
    ("{}", [np.arange(1, 6)], {"summarize": 0}, "[ ...]"),
    ("x={} y={}", [np.array([[1, 2], [3, 4]]), np.array([b"a", b"b"])], {}, 'x=[[1 2]\n [3 4]] y=["a" "b"]'),
    ("{}", [np.array(b"ab")], {}, '"ab"'),
    ("{}", [np.arange(24).reshape(2, 3, 4)], {"summarize": 1},
     "[[[0 ... 3]\n  ...\n  [8 ... 11]]\n\n [[12 ... 15]\n  ...\n  [20 ... 23]]]"),
    ("{}", [np.array([True, False])], {}, "[1 0]"),
    ("{}", [np.array([1e10, 1e-5, -0.0, np.inf, np.nan], np.float32)], {}, "[1e+10 1e-05 -0 inf nan]"),
    ("{}", [np.zeros([0], np.float32)], {}, "[]"),
    ("{}", [np.zeros([2, 0], np.float32)], {}, "[\n ...]"),
    ("a%sb", [np.int32(1)], {"placeholder": "%s"}, "a1b"),
    ("{}", [np.array([1, -2], np.int8)], {}, "[1 -2]"),
    ("{}", [np.array([b'q"\n\\\x01\xc3\xa9'])], {}, '["q\\"\\n\\\\\\001\xc3\xa9"]'),
]


@pytest.mark.parametrize("template,inputs,kwargs,want", CASES)
def test_matches_tensorflow_text(template, inputs, kwargs, want):
    got = string_format(template, [of.constant(x) for x in inputs], **kwargs).numpy()
    assert got == want.encode("latin-1") if "\xc3" in want else got == want.encode()


def test_random_tensors_match_live_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    for shape, summarize in (((7,), 3), ((3, 9), 2), ((2, 3, 5), 1), ((4, 4), -1)):
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(-50, 50, size=shape)
        ours = string_format("a {} b {}", [of.constant(x), of.constant(y)], summarize=summarize).numpy()
        theirs = tf.strings.format("a {} b {}", [tf.constant(x), tf.constant(y)], summarize=summarize).numpy()
        assert ours == theirs


def test_placeholder_count_mismatch():
    with pytest.raises(ValueError, match="template expects 2 tensors"):
        string_format("{} {}", [of.constant(1)])
    with pytest.raises(InvalidArgumentError, match="StringFormat.*Number of placeholders"):
        gen.string_format([of.constant(1)], template="{} {}", placeholder="{}")
    with pytest.raises(InvalidArgumentError, match="placeholder must not be empty"):
        gen.string_format([], template="x", placeholder="")
