"""Nested structures of values (TensorFlow's tf.nest).

A structure is a leaf or a container of structures. Containers are lists, tuples, namedtuples,
dicts and other Mappings (their values in sorted-key order, as TensorFlow), and, when
``expand_composites`` is set, SparseTensors (their indices, values and dense_shape). Everything
else is a leaf: None, strings, NumPy arrays, tensors, sets. ``flatten`` lists the leaves depth
first; ``pack_sequence_as`` rebuilds a structure from such a list; the ``*_up_to`` functions
treat the shallow structure's leaves as the leaves of the deeper one.

Errors are TensorFlow's: ValueError for structures that differ in nesting or length, TypeError
for containers of different types (``check_types``), as tf.nest raises them.
"""

from __future__ import annotations

import collections
import collections.abc as _abc

from ..framework.sparse_tensor import SparseTensor

__all__ = [
    "assert_same_structure", "assert_shallow_structure", "flatten", "flatten_up_to", "flatten_with_joined_string_paths",
    "flatten_with_tuple_paths", "flatten_with_tuple_paths_up_to", "get_traverse_shallow_structure", "is_nested",
    "is_sequence", "list_to_tuple", "map_structure", "map_structure_up_to", "map_structure_with_paths",
    "map_structure_with_tuple_paths", "map_structure_with_tuple_paths_up_to", "pack_sequence_as", "yield_flat_paths",
]


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _is_mapping(value) -> bool:
    return isinstance(value, _abc.Mapping)


def _is_composite(value) -> bool:
    return isinstance(value, SparseTensor)


def _is_container(value, expand_composites: bool) -> bool:
    if isinstance(value, (list, tuple)) or _is_mapping(value):
        return True
    return expand_composites and _is_composite(value)


def is_nested(seq) -> bool:
    """True for a list, tuple, namedtuple or Mapping (tf.nest.is_nested); strings, arrays,
    tensors and sets are leaves."""
    return _is_container(seq, False)


is_sequence = is_nested  # TF1's name


def _sorted_keys(mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError as e:
        raise TypeError("nest only supports dicts with sortable keys.") from e


def _children(value, expand_composites: bool) -> list:
    """The direct substructures of a container, in flattening order."""
    if _is_mapping(value):
        return [value[k] for k in _sorted_keys(value)]
    if _is_composite(value):
        return [value.indices, value.values, value.dense_shape]
    return list(value)


def _child_keys(value) -> list:
    """The path element of each child: dict keys, namedtuple fields, sequence positions, SparseTensor
    field names (TensorFlow's paths)."""
    if _is_mapping(value):
        return _sorted_keys(value)
    if _is_composite(value):
        return ["indices", "values", "dense_shape"]
    if _is_namedtuple(value):
        return list(value._fields)
    return list(range(len(value)))


def _rebuild(instance, children: list):
    """A container like instance holding children (given in flattening order)."""
    if _is_mapping(instance):
        by_key = dict(zip(_sorted_keys(instance), children))
        keys = list(instance)  # the instance's own key order
        if isinstance(instance, _abc.MutableMapping) and type(instance) is not dict:
            if isinstance(instance, collections.defaultdict):
                out = type(instance)(instance.default_factory)
            else:
                out = type(instance)()
            for k in keys:
                out[k] = by_key[k]
            return out
        if type(instance) is dict:
            return {k: by_key[k] for k in keys}
        return type(instance)((k, by_key[k]) for k in keys)
    if _is_composite(instance):
        return SparseTensor(*children)
    if _is_namedtuple(instance):
        return type(instance)(*children)
    if isinstance(instance, tuple):
        return tuple(children) if type(instance) is tuple else type(instance)(children)
    return list(children) if type(instance) is list else type(instance)(children)


def flatten(structure, expand_composites=False) -> list:
    """The leaves of structure, depth first (dict values by sorted key); a leaf gives [leaf]."""
    out: list = []

    def walk(value):
        if _is_container(value, expand_composites):
            for child in _children(value, expand_composites):
                walk(child)
        else:
            out.append(value)

    walk(structure)
    return out


def _count(structure, expand_composites) -> int:
    return len(flatten(structure, expand_composites))


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """flat_sequence's values in structure's shape: the inverse of flatten."""
    if not is_nested(flat_sequence) and not isinstance(flat_sequence, (list, tuple)):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence!r}\ninto a structure, but found incompatible "
                        f"type `{type(flat_sequence).__name__}` instead.")
    flat = list(flat_sequence)
    if not _is_container(structure, expand_composites):
        if len(flat) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  {structure!r}\nHowever the input "
                             f"is a sequence ({type(flat_sequence)}) of length {len(flat)}.\n  {flat_sequence!r}\nnest "
                             "cannot guarantee that it is safe to map one to the other.")
        return flat[0]
    position = 0

    def build(value):
        nonlocal position
        if _is_container(value, expand_composites):
            return _rebuild(value, [build(c) for c in _children(value, expand_composites)])
        position += 1
        return flat[position - 1] if position <= len(flat) else None

    want = _count(structure, expand_composites)
    if want != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {want} atoms, but flat_sequence had "
                         f"{len(flat)} items.  Structure: {structure!r}, flat_sequence: {flat_sequence!r}.")
    return build(structure)


def _same_type(a, b) -> bool:
    if _is_mapping(a) and _is_mapping(b):
        return True  # TF treats all Mappings as one type for structure checks
    if _is_namedtuple(a) or _is_namedtuple(b):
        return type(a) is type(b) or (_is_namedtuple(a) and _is_namedtuple(b) and
                                      type(a).__name__ == type(b).__name__ and a._fields == b._fields)
    return type(a) is type(b)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """Raises ValueError if the two structures nest differently (containers, lengths, dict keys),
    TypeError if check_types and two corresponding containers' types differ."""
    def fail(cls, detail):
        raise cls(f"The two structures don't have the same nested structure.\n\nFirst structure: {nest1!r}\n\n"
                  f"Second structure: {nest2!r}\n\nMore specifically: {detail}")

    def walk(a, b):
        a_nested = _is_container(a, expand_composites)
        b_nested = _is_container(b, expand_composites)
        if a_nested != b_nested:
            which, other = (a, b) if a_nested else (b, a)
            fail(ValueError, f"Substructure \"{which!r}\" is a sequence, while substructure \"{other!r}\" is not")
        if not a_nested:
            return
        if check_types and not _same_type(a, b):
            fail(TypeError, f"The two namedtuples don't have the same sequence type. First structure type="
                            f"{type(a).__name__} str={a!r} while second structure type={type(b).__name__} str={b!r}"
                 if _is_namedtuple(a) or _is_namedtuple(b) else
                 f"Substructure \"type={type(a).__name__} str={a!r}\" is a sequence, while substructure "
                 f"\"type={type(b).__name__} str={b!r}\" is not of the same type")
        if _is_mapping(a) and _is_mapping(b) and set(a) != set(b):
            fail(ValueError, f"The two dictionaries don't have the same set of keys. First structure has keys "
                             f"{_sorted_keys(a)}, while second structure has keys {_sorted_keys(b)}.")
        ca, cb = _children(a, expand_composites), _children(b, expand_composites)
        if len(ca) != len(cb):
            fail(ValueError, f"Substructure \"{a!r}\" has length {len(ca)}, while substructure \"{b!r}\" has "
                             f"length {len(cb)}")
        for x, y in zip(ca, cb):
            walk(x, y)

    walk(nest1, nest2)


def map_structure(func, *structure, **kwargs):
    """func applied to the corresponding leaves of the structures (which must nest alike),
    packed as the first structure. Keywords: check_types (default True), expand_composites."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: "
                         f"`{', '.join(kwargs)}`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types, expand_composites=expand_composites)
    flats = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)], expand_composites)


# ---- paths

def _paths_and_leaves(structure, expand_composites=False, prefix=()):
    if _is_container(structure, expand_composites):
        for key, child in zip(_child_keys(structure), _children(structure, expand_composites)):
            yield from _paths_and_leaves(child, expand_composites, prefix + (key,))
    else:
        yield prefix, structure


def yield_flat_paths(nest, expand_composites=False):
    """The path (a tuple of keys and indices) of each leaf, in flatten's order."""
    for path, _ in _paths_and_leaves(nest, expand_composites):
        yield path


def flatten_with_tuple_paths(structure, expand_composites=False) -> list:
    """(path, leaf) pairs in flatten's order."""
    return list(_paths_and_leaves(structure, expand_composites))


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False) -> list:
    """(path joined with separator, leaf) pairs in flatten's order."""
    return [(separator.join(str(p) for p in path), leaf) for path, leaf in _paths_and_leaves(structure, expand_composites)]


def map_structure_with_tuple_paths(func, *structure, **kwargs):
    """func(path, *leaves) over the structures' leaves, packed as the first structure."""
    expand_composites = kwargs.get("expand_composites", False)
    paths = list(yield_flat_paths(structure[0], expand_composites)) if structure else []
    position = iter(paths)
    return map_structure(lambda *leaves: func(next(position), *leaves), *structure, **kwargs)


def map_structure_with_paths(func, *structure, **kwargs):
    """func(path, *leaves) with the path joined by "/" (TF's map_structure_with_paths)."""
    return map_structure_with_tuple_paths(lambda path, *leaves: func("/".join(str(p) for p in path), *leaves),
                                          *structure, **kwargs)


# ---- shallow structures: a prefix of a deeper structure

def assert_shallow_structure(shallow_tree, input_tree, check_types=True, expand_composites=False) -> None:
    """Raises unless input_tree nests at least as deep as shallow_tree wherever shallow_tree is
    a container (same container types with check_types, same lengths, same dict keys)."""
    if not _is_container(shallow_tree, expand_composites):
        return
    if not _is_container(input_tree, expand_composites):
        raise TypeError(f"If shallow structure is a sequence, input must also be a sequence. Input has type: "
                        f"{type(input_tree).__name__}.")
    if check_types and not isinstance(input_tree, type(shallow_tree)):
        both_namedtuples = _is_namedtuple(shallow_tree) and _is_namedtuple(input_tree)
        if not ((both_namedtuples and _same_type(shallow_tree, input_tree))
                or (isinstance(shallow_tree, list) and isinstance(input_tree, list))
                or (_is_mapping(shallow_tree) and _is_mapping(input_tree))):
            raise TypeError(f"The two structures don't have the same sequence type. Input structure has type "
                            f"{type(input_tree)}, while shallow structure has type {type(shallow_tree)}.")
    if _is_mapping(shallow_tree):
        missing = [k for k in shallow_tree if k not in input_tree]
        if missing:
            raise ValueError(f"The input_tree has fewer keys than the shallow_tree: the input_tree lacks "
                             f"{sorted(missing, key=str)}.")
        if len(input_tree) != len(shallow_tree):
            raise ValueError(f"The two structures don't have the same sequence length. Input structure has length "
                             f"{len(input_tree)}, while shallow structure has length {len(shallow_tree)}.")
        for k in shallow_tree:
            assert_shallow_structure(shallow_tree[k], input_tree[k], check_types, expand_composites)
        return
    shallow_children = _children(shallow_tree, expand_composites)
    input_children = _children(input_tree, expand_composites)
    if len(shallow_children) != len(input_children):
        raise ValueError(f"The two structures don't have the same sequence length. Input structure has length "
                         f"{len(input_children)}, while shallow structure has length {len(shallow_children)}.")
    for s, i in zip(shallow_children, input_children):
        assert_shallow_structure(s, i, check_types, expand_composites)


def _up_to(shallow_tree, input_tree, expand_composites, prefix=()):
    """(path, subtree of input_tree) for each leaf of shallow_tree."""
    if not _is_container(shallow_tree, expand_composites):
        yield prefix, input_tree
        return
    if _is_mapping(shallow_tree):
        for k in _sorted_keys(shallow_tree):
            yield from _up_to(shallow_tree[k], input_tree[k], expand_composites, prefix + (k,))
        return
    for key, s, i in zip(_child_keys(shallow_tree), _children(shallow_tree, expand_composites),
                         _children(input_tree, expand_composites)):
        yield from _up_to(s, i, expand_composites, prefix + (key,))


def flatten_up_to(shallow_tree, input_tree, check_types=True, expand_composites=False) -> list:
    """input_tree flattened only as deep as shallow_tree: its subtrees at shallow_tree's leaves."""
    assert_shallow_structure(shallow_tree, input_tree, check_types, expand_composites)
    return [v for _, v in _up_to(shallow_tree, input_tree, expand_composites)]


def flatten_with_tuple_paths_up_to(shallow_tree, input_tree, check_types=True, expand_composites=False) -> list:
    """(path, subtree) pairs of flatten_up_to."""
    assert_shallow_structure(shallow_tree, input_tree, check_types, expand_composites)
    return list(_up_to(shallow_tree, input_tree, expand_composites))


def map_structure_with_tuple_paths_up_to(shallow_tree, func, *inputs, **kwargs):
    """func(path, *subtrees) at each leaf of shallow_tree, packed as shallow_tree."""
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: "
                         f"`{', '.join(kwargs)}`")
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    for tree in inputs:
        assert_shallow_structure(shallow_tree, tree, check_types, expand_composites)
    flats = [list(_up_to(shallow_tree, tree, expand_composites)) for tree in inputs]
    results = [func(pairs[0][0], *(v for _, v in pairs)) for pairs in zip(*flats)]
    return pack_sequence_as(shallow_tree, results, expand_composites)


def map_structure_up_to(shallow_tree, func, *inputs, **kwargs):
    """func(*subtrees) at each leaf of shallow_tree, packed as shallow_tree."""
    return map_structure_with_tuple_paths_up_to(shallow_tree, lambda _path, *values: func(*values), *inputs, **kwargs)


def get_traverse_shallow_structure(traverse_fn, structure, expand_composites=False):
    """A structure of booleans, shallower than structure: traverse_fn(subtree) says whether to
    descend into subtree (True), keep it as a leaf marked True or False (a bool), TF's rule."""
    decision = traverse_fn(structure)
    if isinstance(decision, bool):
        if not decision or not _is_container(structure, expand_composites):
            return decision
        return _rebuild(structure, [get_traverse_shallow_structure(traverse_fn, c, expand_composites)
                                    for c in _children(structure, expand_composites)])
    if not _is_container(structure, expand_composites):
        raise TypeError(f"traverse_fn returned structure: {decision} for non-structure: {structure}")
    assert_shallow_structure(decision, structure, check_types=False, expand_composites=expand_composites)
    return map_structure_up_to(
        decision, lambda keep, sub: get_traverse_shallow_structure(traverse_fn, sub, expand_composites) if keep else False,
        decision, structure, check_types=False)


def list_to_tuple(structure):
    """structure with every list turned into a tuple."""
    def convert(value):
        if isinstance(value, list):
            return tuple(convert(v) for v in value)
        if _is_container(value, False):
            return _rebuild(value, [convert(c) for c in _children(value, False)])
        return value
    return convert(structure)
