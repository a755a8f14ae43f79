"""Lookup tables (opforge/ops/lookup_ops.py over the HashTableV2 family, kernels/cpu/lookup):
TensorFlow's answers (tests/data/lookup_tables.npz, from tools/tf_lookup_answers.py) eagerly
and in a graph, the raw ops, and the errors TensorFlow gives, each naming the op."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.framework import errors
from opforge.framework.collections import GraphKeys
from opforge.generated import gen_data_ops as gen_data
from opforge.generated import gen_lookup_ops as gen
from opforge.ops import lookup_ops as L

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "lookup_tables.npz")
T = L.TextFileIndex


@pytest.fixture(scope="module")
def d():
    with np.load(DATA) as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="module")
def vocab_path(d, tmp_path_factory):
    """The text file TensorFlow's file-initialized tables read (word, count, score per line)."""
    path = tmp_path_factory.mktemp("lookup") / "vocab.txt"
    path.write_bytes(d["vocab_file"].tobytes())
    return str(path)


def _tables(d, path):
    """name -> (table, keys) for each answer in the file."""
    kv = L.KeyValueTensorInitializer(d["words"], d["ids"])
    q = of.constant(d["queries"])
    kv_int = L.KeyValueTensorInitializer(d["int_vocab"], np.arange(20, dtype=np.int64))
    return {
        "static_find": (L.StaticHashTable(kv, -1), q),
        "vocab_oov": (L.StaticVocabularyTable(kv, 7), q),
        "vocab_int_oov": (L.StaticVocabularyTable(kv_int, 5), of.constant(d["int_queries"])),
        "file_line_number": (L.StaticHashTable(
            L.TextFileInitializer(path, of.string, 0, of.int64, T.LINE_NUMBER, value_index_offset=3), -1), q),
        "file_scores": (L.StaticHashTable(L.TextFileInitializer(path, of.string, 0, of.float32, 2), -1.0), q),
        "file_counts_vocab10": (L.StaticHashTable(
            L.TextFileInitializer(path, of.string, 0, of.int32, 1, vocab_size=10), 0), q),
        "file_whole_lines": (L.StaticHashTable(
            L.TextFileInitializer(path, of.int64, T.LINE_NUMBER, of.string, T.WHOLE_LINE), "UNK"),
            of.constant(np.arange(-2, 35, dtype=np.int64))),
    }


def test_tables_match_tensorflow_eagerly(d, vocab_path):
    for name, (table, keys) in _tables(d, vocab_path).items():
        got = table.lookup(keys).numpy()
        np.testing.assert_array_equal(got, d[f"tf_{name}"], err_msg=name)


def test_tables_match_tensorflow_in_a_graph_session(d, vocab_path):
    with of.Graph().as_default() as g:
        tables = _tables(d, vocab_path)
        fetches = {name: t.lookup(k) for name, (t, k) in tables.items()}
        assert fetches["static_find"].shape.as_list() == [len(d["queries"])]
        assert len(g.get_collection(GraphKeys.TABLE_INITIALIZERS)) == len(tables)
        init = L.tables_initializer()
        with of.Session() as s:
            with pytest.raises(errors.FailedPreconditionError, match="LookupTableFindV2: Table not initialized"):
                s.run(fetches["static_find"])
            s.run(init)
            got = s.run(fetches)
        with of.Session() as s2:  # tables belong to a Session: a new one starts uninitialized
            with pytest.raises(errors.FailedPreconditionError, match="not initialized"):
                s2.run(fetches["file_scores"])
    for name, value in got.items():
        np.testing.assert_array_equal(value, d[f"tf_{name}"], err_msg=name)


def test_mutable_table_of_vectors_matches_tensorflow(d):
    m = L.MutableHashTable(of.string, of.float32, [-1.0, -2.0])
    m.insert(d["words"][:20], np.stack([d["scores"][:20], d["counts"][:20].astype(np.float32)], 1))
    m.insert(d["words"][5:8], np.zeros((3, 2), np.float32))
    m.remove(d["words"][:4])
    np.testing.assert_array_equal(m.lookup(of.constant(d["queries"])).numpy(), d["tf_mutable_find"])
    assert m.size().numpy() == d["tf_mutable_size"]
    keys, values = m.export()
    assert sorted(keys.numpy().tolist()) == sorted(d["words"][4:20].tolist())
    np.testing.assert_array_equal(values.numpy(), m.lookup(keys).numpy())


def test_mutable_scalar_table_in_a_graph():
    rng = np.random.default_rng(0)
    keys = rng.choice(100, 12, replace=False).astype(np.int64)
    vals = rng.normal(size=12)
    with of.Graph().as_default():
        m = L.MutableHashTable(of.int64, of.float64, 0.5)
        k = of.placeholder(of.int64, [None])
        v = of.placeholder(of.float64, [None])
        insert, remove, found = m.insert(k, v), m.remove(k), m.lookup(k)
        with of.Session() as s:
            s.run(insert, {k: keys, v: vals})
            s.run(remove, {k: keys[:3]})
            np.testing.assert_array_equal(s.run(found, {k: keys}), np.r_[[0.5] * 3, vals[3:]])
            assert s.run(m.size()) == 9


def test_dense_table_reserves_its_keys():
    t = L.DenseHashTable(of.int64, of.int32, -1, empty_key=-1, deleted_key=-2)
    t.insert_or_assign(of.constant([5, 7], of.int64), of.constant([50, 70], of.int32))
    t.erase(of.constant([5], of.int64))
    np.testing.assert_array_equal(t.lookup(of.constant([5, 7, 9], of.int64)).numpy(), [-1, 70, -1])
    with pytest.raises(errors.InvalidArgumentError, match="LookupTableInsertV2: Using the empty_key"):
        t.insert(of.constant([-1], of.int64), of.constant([1], of.int32))
    with pytest.raises(errors.InvalidArgumentError, match="LookupTableRemoveV2: Using the deleted_key"):
        t.remove(of.constant([-2], of.int64))
    with pytest.raises(errors.InvalidArgumentError, match="MutableDenseHashTableV2: empty_key and deleted_key"):
        L.DenseHashTable(of.int64, of.int32, -1, empty_key=3, deleted_key=3)


def test_sparse_keys_keep_their_indices():
    t = L.StaticHashTable(L.KeyValueTensorInitializer(["a", "b"], [1, 2], value_dtype=of.int64), 0)
    sp = of.SparseTensor([[0, 0], [1, 2]], ["b", "z"], [2, 3])
    out = t.lookup(sp)
    np.testing.assert_array_equal(out.values.numpy(), [2, 0])
    np.testing.assert_array_equal(out.indices.numpy(), [[0, 0], [1, 2]])


# ------------------------------------------------------------------------------ the raw ops


def test_raw_ops_size_export_import_and_per_key_defaults():
    h = gen.mutable_hash_table_v2(key_dtype=of.int32, value_dtype=of.string)
    gen.lookup_table_import_v2(h, of.constant([1, 2, 3]), of.constant(["x", "y", "z"]))
    gen.lookup_table_import_v2(h, of.constant([4, 2]), of.constant(["p", "q"]))  # replaces everything
    assert gen.lookup_table_size_v2(h).numpy() == 2
    got = gen.lookup_table_find_v2(h, of.constant([[1, 2], [4, 9]]), of.constant([["d1", "d2"], ["d3", "d4"]]))
    np.testing.assert_array_equal(got.numpy(), [[b"d1", b"q"], [b"p", b"d4"]])
    k, v = gen.lookup_table_export_v2(h, of.int32, of.string)
    assert dict(zip(k.numpy().tolist(), v.numpy().tolist())) == {4: b"p", 2: b"q"}


def test_static_table_initializes_once_and_rejects_conflicts():
    h = gen.hash_table_v2(key_dtype=of.string, value_dtype=of.int64)
    keys, vals = of.constant(["a", "b"]), of.constant([1, 2], of.int64)
    gen.initialize_table_v2(h, keys, vals)
    gen.initialize_table_v2(h, keys, vals)  # the same entries again: fine, as in TF
    with pytest.raises(errors.FailedPreconditionError, match="InitializeTableV2: Table was already initialized"):
        gen.initialize_table_v2(h, keys, of.constant([1, 3], of.int64))
    h2 = gen.hash_table_v2(key_dtype=of.string, value_dtype=of.int64)
    with pytest.raises(errors.FailedPreconditionError, match="HashTable has different value for same key. Key a"):
        gen.initialize_table_v2(h2, of.constant(["a", "a"]), of.constant([1, 2], of.int64))
    with pytest.raises(errors.FailedPreconditionError, match="Table not initialized"):
        gen.lookup_table_find_v2(h2, of.constant(["a"]), of.constant(0, of.int64))
    with pytest.raises(errors.UnimplementedError, match="LookupTableInsertV2: Insert not supported"):
        gen.lookup_table_insert_v2(h, keys, vals)


@pytest.mark.parametrize("call,match", [
    (lambda h: gen.lookup_table_find_v2(h, of.constant([1], of.int64), of.constant(0, of.int64)),
     "LookupTableFindV2: Key must be type string but got int64"),
    (lambda h: gen.lookup_table_find_v2(h, of.constant(["a"]), of.constant(0.5)),
     "LookupTableFindV2: Value must be type int64 but got float"),
    (lambda h: gen.lookup_table_find_v2(h, of.constant(["a"]), of.constant([0, 1], of.int64)),
     r"LookupTableFindV2: Expected shape \[\] or \[1\] for default value"),
    (lambda h: gen.initialize_table_v2(h, of.constant(["a", "b"]), of.constant([1], of.int64)),
     r"InitializeTableV2: Expected shape \[2\] for value, got \[1\]"),
    (lambda h: gen.lookup_table_export_v2(h, of.string, of.int32), "LookupTableExportV2: the table maps"),
    (lambda h: gen.lookup_table_find_v2(gen_data.anonymous_iterator_v3([of.int64], [[]]), of.constant(["a"]),
                                        of.constant(0, of.int64)),
     "LookupTableFindV2: expected a resource handle to a lookup table, got Iterator"),
    (lambda h: gen.lookup_table_find_v2(of.constant(1), of.constant(["a"]), of.constant(0, of.int64)),
     "LookupTableFindV2: input 'table_handle' must be resource, got int32"),
    (lambda h: gen.hash_table_v2(key_dtype=of.float32, value_dtype=of.int64),
     "HashTableV2: tables have int32, int64 or string keys, not float"),
])
def test_bad_calls_are_invalid_argument_naming_the_op(call, match):
    h = gen.hash_table_v2(key_dtype=of.string, value_dtype=of.int64)
    with pytest.raises(errors.InvalidArgumentError, match=match):
        call(h)


def _file_table(path, key_dtype=of.string, value_dtype=of.int64, **kw):
    h = gen.hash_table_v2(key_dtype=key_dtype, value_dtype=value_dtype)
    gen.initialize_table_from_text_file_v2(h, of.constant(str(path)), **kw)
    return h


def test_text_file_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="InitializeTableFromTextFileV2: .*missing.txt"):
        _file_table(tmp_path / "missing.txt", key_index=-2, value_index=-1)
    f = tmp_path / "v.txt"
    f.write_text("a,1\nb,x\n")
    with pytest.raises(errors.InvalidArgumentError, match="Field x in line 1 is not a valid int64"):
        _file_table(f, key_index=0, value_index=1, delimiter=",")
    with pytest.raises(errors.InvalidArgumentError, match=r"Invalid number of columns in .* line 0 \(a,1\) : expected 3 got 2"):
        _file_table(f, key_index=0, value_index=2, delimiter=",")
    with pytest.raises(errors.InvalidArgumentError, match="Invalid vocab_size in .*: expected 5 but got 2"):
        _file_table(f, key_index=-2, value_index=-1, vocab_size=5)
    with pytest.raises(errors.InvalidArgumentError, match="Value index for line number requires table value dtype of int64"):
        _file_table(f, value_dtype=of.int32, key_index=-2, value_index=-1)
    with pytest.raises(errors.InvalidArgumentError, match="delimiter should be only 1 char"):
        _file_table(f, key_index=0, value_index=-1, delimiter=",,")
    f.write_text("a\n\nb\n")
    with pytest.raises(errors.InvalidArgumentError, match="empty line found"):
        _file_table(f, key_index=-2, value_index=-1)


def test_python_argument_checks_match_tensorflow():
    with pytest.raises(ValueError, match="`key_dtype` must be int64"):
        L.TextFileInitializer("f", of.int32, T.LINE_NUMBER, of.string, T.WHOLE_LINE)
    with pytest.raises(ValueError, match="`vocab_size` should be > 0"):
        L.TextFileInitializer("f", of.string, 0, of.int64, 1, vocab_size=0)
    with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0"):
        L.StaticVocabularyTable(L.KeyValueTensorInitializer(["a"], of.constant([0], of.int64)), 0)
    t = L.StaticHashTable(L.KeyValueTensorInitializer(["a"], of.constant([0], of.int64)), -1)
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be"):
        t.lookup(of.constant([1, 2]))
