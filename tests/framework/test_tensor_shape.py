"""TensorShape and TensorFlow 1's Dimension (opforge/framework/tensor_shape.py): TF1's behaviour
(``get_shape()[1].value``, Dimension arithmetic and comparisons, merge_with, bare-int shapes),
compared with TensorFlow's tensor_shape on random partial shapes where TF is installed."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from opforge.framework.tensor_shape import (
    Dimension, KnownDimension, TensorShape, as_dimension, broadcast_static_shape, dimension_at_index,
    dimension_value, unknown_shape,
)


def test_a_known_size_is_an_int_with_tf1s_value():
    s = TensorShape([None, 3])
    d = s[1]
    assert isinstance(d, int) and isinstance(d, Dimension) and type(d) is KnownDimension
    assert d == 3 and d.value == 3 and int(d) == 3 and str(d) == "3" and repr(d) == "Dimension(3)"
    assert np.zeros((d, 2)).shape == (3, 2) and list(range(d)) == [0, 1, 2] and f"{d:02d}" == "03"
    assert json.dumps([d]) == "[3]" and {d: 1}[3] == 1 and hash(d) == hash(3)
    assert pickle.loads(pickle.dumps(d)).value == 3
    assert s[0] is None  # an unknown size reads as None (TensorFlow 2's behaviour)
    assert d / 2 == 1.5  # a known size divides as an int (TensorFlow 2 code relies on it)


def test_dimension_arithmetic_propagates_unknown():
    rng = np.random.default_rng(0)
    for _ in range(50):
        b, a = sorted(int(v) for v in rng.integers(1, 20, 2))
        assert (Dimension(a) + b).value == a + b and (b + Dimension(a)).value == a + b
        assert (Dimension(a) - Dimension(b)).value == a - b and (Dimension(a) * b).value == a * b
        assert (Dimension(a) // b).value == a // b and (Dimension(a) % b).value == a % b
        assert (a * Dimension(b)).value == a * b and (a // Dimension(b)).value == a // b
        for unknown in (Dimension(None) + a, a - Dimension(None), Dimension(a) * Dimension(None),
                        Dimension(None) // a, Dimension(None) % Dimension(b)):
            assert type(unknown) is Dimension and unknown.value is None
        assert isinstance(Dimension(a) + b, KnownDimension)
    with pytest.raises(TypeError):
        Dimension(None) / 2
    with pytest.raises(ValueError, match=">= 0"):
        Dimension(2) - 3  # as TensorFlow's: a size cannot be negative


def test_dimension_comparisons_are_none_when_unknown():
    assert (Dimension(3) == 3) is True and (Dimension(3) != 4) is True and (Dimension(3) < Dimension(4)) is True
    assert (Dimension(None) == 3) is None and (Dimension(3) == Dimension(None)) is None
    assert (Dimension(None) < 3) is None and (Dimension(2) >= Dimension(None)) is None
    assert Dimension(3) < 3.5  # a float compares as with an int


def test_dimension_merge_and_compatibility():
    assert Dimension(3).merge_with(None).value == 3 and Dimension(None).merge_with(4).value == 4
    assert Dimension(None).merge_with(Dimension(None)).value is None
    assert Dimension(3).is_compatible_with(None) and not Dimension(3).is_compatible_with(4)
    with pytest.raises(ValueError, match="not compatible"):
        Dimension(3).merge_with(4)
    with pytest.raises(ValueError, match=">= 0"):
        Dimension(-1)
    with pytest.raises(TypeError, match="integer or None"):
        Dimension(2.5)
    assert as_dimension(5).value == 5 and as_dimension(Dimension(None)).value is None
    assert dimension_value(Dimension(None)) is None and dimension_value(7) == 7 and dimension_value(None) is None
    assert not Dimension(None) and Dimension(1) and not Dimension(0)
    assert str(Dimension(None)) == "?" and repr(Dimension(None)) == "Dimension(None)"


def test_tensor_shape_from_bare_int_dimensions_and_unknowns():
    assert TensorShape(5).as_list() == [5]  # shape=(batch_size) is a bare int
    assert TensorShape(np.int64(4)).as_list() == [4]
    assert TensorShape([Dimension(3), Dimension(None), None, -1]).as_list() == [3, None, None, None]
    assert TensorShape(None).rank is None and TensorShape(None)[0] is None
    assert TensorShape(None)[1:].rank is None
    assert [d.value for d in TensorShape([2, 3])] == [2, 3]
    assert dimension_at_index([2, None], 0).value == 2 and dimension_at_index(None, 3).value is None
    assert unknown_shape(2).as_list() == [None, None] and unknown_shape().rank is None
    assert TensorShape([1, 2]) + TensorShape([3]) == [1, 2, 3] and [0] + TensorShape([1]) == [0, 1]
    assert TensorShape([None, 2]) == [None, 2]


def test_tensor_shape_rank_checks():
    s = TensorShape([None, 4])
    assert s.with_rank(2) == s and s.with_rank_at_least(1) == s and s.with_rank_at_most(3) == s
    assert TensorShape(None).with_rank(3).as_list() == [None, None, None]
    for call in (lambda: s.with_rank(3), lambda: s.with_rank_at_least(3), lambda: s.with_rank_at_most(1),
                 lambda: s.assert_is_fully_defined(), lambda: s.assert_has_rank(1),
                 lambda: s.assert_same_rank([1]), lambda: s.assert_is_compatible_with([2, 5])):
        with pytest.raises(ValueError):
            call()
    s.assert_is_compatible_with([7, 4])
    s.assert_same_rank(TensorShape(None))


def test_broadcast_static_shape_matches_numpy():
    rng = np.random.default_rng(1)
    for _ in range(100):
        a = [int(v) for v in rng.choice([1, 2, 3], rng.integers(0, 4))]
        b = [int(v) for v in rng.choice([1, 2, 3], rng.integers(0, 4))]
        try:
            want = list(np.broadcast_shapes(tuple(a), tuple(b)))
        except ValueError:
            with pytest.raises(ValueError, match="Incompatible shapes"):
                broadcast_static_shape(a, b)
            continue
        assert broadcast_static_shape(a, b).as_list() == want
    assert broadcast_static_shape([None, 1], [4, 3]).as_list() == [4, 3]
    assert broadcast_static_shape([None], [None]).as_list() == [None]
    assert broadcast_static_shape([None], [1]).as_list() == [None]
    assert broadcast_static_shape(None, [2]).rank is None


def _random_partial_shape(rng):
    if rng.random() < 0.15:
        return None
    return [None if rng.random() < 0.3 else int(rng.integers(1, 4)) for _ in range(rng.integers(0, 4))]


def test_shape_algebra_matches_tensorflow():
    """merge_with, is_compatible_with, most_specific_compatible_shape, concatenate, num_elements
    and broadcast_static_shape equal TensorFlow's on random partial shapes."""
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(2)

    def outcome(fn):
        try:
            r = fn()
        except ValueError:
            return "ValueError"
        if hasattr(r, "rank"):
            return None if r.rank is None else [None if d is None else int(d) for d in r.as_list()]
        return r

    for _ in range(300):
        a, b = _random_partial_shape(rng), _random_partial_shape(rng)
        ours, theirs = (TensorShape(a), TensorShape(b)), (tf.TensorShape(a), tf.TensorShape(b))
        for op in ("merge_with", "is_compatible_with", "most_specific_compatible_shape", "concatenate"):
            assert outcome(lambda: getattr(ours[0], op)(ours[1])) == \
                outcome(lambda: getattr(theirs[0], op)(theirs[1])), (op, a, b)
        assert ours[0].num_elements() == theirs[0].num_elements(), a
        assert outcome(lambda: broadcast_static_shape(a, b)) == \
            outcome(lambda: tf.broadcast_static_shape(theirs[0], theirs[1])), (a, b)
        if a is not None:
            for i in range(len(a)):
                assert dimension_value(ours[0][i]) == tf.compat.dimension_value(theirs[0][i])


def _value_or_error(fn):
    try:
        return fn().value
    except ValueError:
        return "ValueError"


def test_dimension_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework import tensor_shape as tf_shape
    rng = np.random.default_rng(3)
    for _ in range(200):
        x = [None if rng.random() < 0.3 else int(rng.integers(1, 9)) for _ in range(2)]
        ours, theirs = (Dimension(x[0]), Dimension(x[1])), (tf_shape.Dimension(x[0]), tf_shape.Dimension(x[1]))
        for op in ("__add__", "__sub__", "__mul__", "__floordiv__", "__mod__"):
            assert _value_or_error(lambda: getattr(ours[0], op)(ours[1])) == \
                _value_or_error(lambda: getattr(theirs[0], op)(theirs[1])), (op, x)
        for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "is_compatible_with"):
            assert getattr(ours[0], op)(ours[1]) == getattr(theirs[0], op)(theirs[1]), (op, x)
        try:
            want = theirs[0].merge_with(theirs[1]).value
        except ValueError:
            with pytest.raises(ValueError):
                ours[0].merge_with(ours[1])
        else:
            assert ours[0].merge_with(ours[1]).value == want
    del tf
