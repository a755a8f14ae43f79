"""opforge.util.nest (tf.nest): flattening and packing orders, structure checks and their errors,
the *_up_to functions and paths, against hand-written answers and TensorFlow's tf.nest where
it is installed."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from opforge.util import nest

Point = collections.namedtuple("Point", "x y")
OtherPoint = collections.namedtuple("Point", "x y")  # same name and fields: TF treats it alike

STRUCTURES = [
    1, None, "ab", np.arange(3), [], (), {},
    [1, (2, 3), {"b": 4, "a": [5, 6]}],
    {"z": Point(1, [2, 3]), "a": (None, "s"), 3: 4} if False else {"z": Point(1, [2, 3]), "a": (None, "s")},
    collections.OrderedDict([("y", 1), ("x", 2)]),
    (Point(1, 2), [[[3]]], {"k": ()}),
]


@pytest.mark.parametrize("structure", STRUCTURES, ids=range(len(STRUCTURES)))
def test_flatten_then_pack_is_identity(structure):
    flat = nest.flatten(structure)
    again = nest.pack_sequence_as(structure, flat)
    assert nest.flatten(again) is not flat
    nest.assert_same_structure(structure, again)
    assert type(again) is type(structure)
    assert all(a is b for a, b in zip(nest.flatten(again), flat))


def test_flatten_order_sorted_dict_keys_and_leaves():
    assert nest.flatten([1, (2, 3), {"b": 4, "a": [5, 6]}]) == [1, 2, 3, 5, 6, 4]
    assert nest.flatten(collections.OrderedDict([("y", 1), ("x", 2)])) == [2, 1]
    assert nest.flatten(None) == [None]
    assert nest.flatten("abc") == ["abc"]
    assert nest.flatten({1, 2}) == [{1, 2}]  # a set is a leaf
    arr = np.ones(3)
    assert nest.flatten(arr)[0] is arr
    # packing keeps the mapping's own key order and type
    packed = nest.pack_sequence_as(collections.OrderedDict([("y", 0), ("x", 0)]), [10, 20])
    assert list(packed.items()) == [("y", 20), ("x", 10)]
    dd = nest.pack_sequence_as(collections.defaultdict(list, a=1), [5])
    assert isinstance(dd, collections.defaultdict) and dd["a"] == 5 and dd.default_factory is list


def test_is_nested():
    assert nest.is_nested([]) and nest.is_nested(()) and nest.is_nested({}) and nest.is_nested(Point(1, 2))
    assert not any(nest.is_nested(v) for v in (1, "s", b"b", None, np.zeros(2), {1}))


def test_pack_errors():
    with pytest.raises(ValueError, match="Structure had 3 atoms, but flat_sequence had 2 items"):
        nest.pack_sequence_as([1, [2, 3]], [1, 2])
    with pytest.raises(TypeError, match="incompatible"):
        nest.pack_sequence_as([1], 5)
    with pytest.raises(ValueError, match="length 2"):
        nest.pack_sequence_as(1, [1, 2])


def test_assert_same_structure_errors():
    nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    nest.assert_same_structure(Point(1, 2), OtherPoint(3, 4))  # same name and fields
    nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=2))  # Mappings are alike
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        nest.assert_same_structure([1, 2], [1, [2]])
    with pytest.raises(ValueError, match="has length 2.*has length 3"):
        nest.assert_same_structure([1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="same nested structure"):
        nest.assert_same_structure([1, 2], (1, 2))
    nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(ValueError, match="same set of keys"):
        nest.assert_same_structure({"a": 1}, {"b": 1})


def test_map_structure():
    out = nest.map_structure(lambda a, b: a + b, {"x": [1, 2], "y": (3,)}, {"x": [10, 20], "y": (30,)})
    assert out == {"x": [11, 22], "y": (33,)}
    assert nest.map_structure(lambda v: v * 2, Point(1, 2)) == Point(2, 4)
    with pytest.raises(ValueError, match="Only valid keyword arguments"):
        nest.map_structure(lambda v: v, [1], bogus=True)
    with pytest.raises(TypeError, match="callable"):
        nest.map_structure(3, [1])
    assert nest.map_structure(lambda a, b: (a, b), [1], (2,), check_types=False) == [(1, 2)]


def test_up_to_and_paths():
    shallow = [None, None]
    deep = [[1, 2], {"a": 3, "b": (4, 5)}]
    assert nest.flatten_up_to(shallow, deep) == [[1, 2], {"a": 3, "b": (4, 5)}]
    assert nest.flatten_up_to({"b": None, "a": [None, None]}, {"a": [1, (2, 3)], "b": [4]}) == [1, (2, 3), [4]]
    out = nest.map_structure_up_to((None, None), lambda v: len(v), ([1, 2], "abc"))
    assert out == (2, 3)
    with pytest.raises(ValueError, match="same sequence length"):
        nest.flatten_up_to([None, None], [1, 2, 3])
    with pytest.raises(TypeError, match="input must also be a sequence"):
        nest.flatten_up_to([None], 1)
    assert nest.flatten_with_joined_string_paths({"a": [1, 2], "b": 3}) == [("a/0", 1), ("a/1", 2), ("b", 3)]
    assert nest.flatten_with_tuple_paths(Point(1, [2])) == [(("x",), 1), (("y", 0), 2)]
    assert nest.map_structure_with_paths(lambda p, v: f"{p}={v}", {"k": [7]}) == {"k": ["k/0=7"]}
    assert nest.list_to_tuple([1, [2, {"a": [3]}]]) == (1, (2, {"a": (3,)}))
    shallow = nest.get_traverse_shallow_structure(lambda s: not isinstance(s, tuple), [1, (2, 3), [4]])
    assert shallow == [True, False, [True]]


def test_sparse_tensor_expands_only_with_expand_composites():
    import opforge as of
    sp = of.SparseTensor(np.array([[0, 1]], np.int64), np.array([5.0], np.float32), np.array([2, 2], np.int64))
    assert nest.flatten(sp) == [sp]
    parts = nest.flatten([sp], expand_composites=True)
    assert len(parts) == 3 and parts[1] is sp.values
    rebuilt = nest.pack_sequence_as([sp], parts, expand_composites=True)[0]
    assert isinstance(rebuilt, of.SparseTensor) and rebuilt.values is sp.values


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.util import nest as tf_nest  # the *_up_to and path functions
    cases = [[1, (2, 3), {"b": 4, "a": [5, 6]}], {"z": Point(1, [2, 3]), "a": (None, "s")},
             collections.OrderedDict([("y", 1), ("x", {"q": 2, "p": 3})]), (Point(1, 2), [[[3]]], {"k": ()})]
    for c in cases:
        assert nest.flatten(c) == tf.nest.flatten(c)
        assert nest.flatten_with_joined_string_paths(c) == tf_nest.flatten_with_joined_string_paths(c)
        assert nest.flatten_with_tuple_paths(c) == tf_nest.flatten_with_tuple_paths(c)
        flat = list(range(len(nest.flatten(c))))
        assert nest.pack_sequence_as(c, flat) == tf.nest.pack_sequence_as(c, flat)
        assert nest.map_structure(lambda v: (v,), c) == tf.nest.map_structure(lambda v: (v,), c)
    for a, b in [([1, 2], (1, 2)), ([1, 2], [1, [2]]), ({"a": 1}, {"b": 1}), ([1], [1, 2]),
                 (Point(1, 2), OtherPoint(1, 2)), ({"a": 1}, collections.OrderedDict(a=1))]:
        theirs = ours = None
        try:
            tf.nest.assert_same_structure(a, b)
        except (ValueError, TypeError) as e:
            theirs = type(e)
        try:
            nest.assert_same_structure(a, b)
        except (ValueError, TypeError) as e:
            ours = type(e)
        assert ours == theirs, (a, b)
    shallow, deep = {"b": None, "a": [None, None]}, {"a": [1, (2, 3)], "b": [4]}
    assert nest.flatten_up_to(shallow, deep) == tf_nest.flatten_up_to(shallow, deep)
    assert nest.map_structure_up_to(shallow, str, deep) == tf_nest.map_structure_up_to(shallow, str, deep)
