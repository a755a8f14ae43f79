"""RaggedTensor and tf.ragged against NumPy references on random ragged data (and against
TensorFlow where it is installed)."""

import numpy as np
import pytest

import opforge as of
from opforge import ragged
from opforge.framework.errors import InvalidArgumentError
from opforge.ragged import RaggedTensor, RaggedTensorSpec, RaggedTensorValue


def _random_rows(rng, nrows=5, maxlen=4):
    return [rng.integers(-9, 9, size=rng.integers(0, maxlen + 1)).tolist() for _ in range(nrows)]


def _dense(rows, default=0):
    width = max((len(r) for r in rows), default=0)
    return np.array([r + [default] * (width - len(r)) for r in rows]).reshape(len(rows), width)


def test_factories_agree_and_round_trip():
    rng = np.random.default_rng(0)
    rows = _random_rows(rng)
    lengths = [len(r) for r in rows]
    flat = [v for r in rows for v in r]
    splits = np.concatenate([[0], np.cumsum(lengths)])
    rowids = np.repeat(np.arange(len(rows)), lengths)
    for rt in (RaggedTensor.from_row_splits(flat, splits), RaggedTensor.from_row_lengths(flat, lengths),
               RaggedTensor.from_value_rowids(flat, rowids, nrows=len(rows)), ragged.constant(rows),
               RaggedTensor.from_row_starts(flat, splits[:-1]), RaggedTensor.from_row_limits(flat, splits[1:])):
        assert rt.to_list() == rows
        np.testing.assert_array_equal(rt.row_splits.numpy(), splits)
        np.testing.assert_array_equal(rt.row_lengths().numpy(), lengths)
        np.testing.assert_array_equal(rt.value_rowids().numpy(), rowids)
        assert int(rt.nrows()) == len(rows)
        np.testing.assert_array_equal(rt.to_tensor().numpy(), _dense(rows))
        np.testing.assert_array_equal(rt.to_tensor(default_value=7).numpy(), _dense(rows, 7))
        np.testing.assert_array_equal(rt.bounding_shape().numpy(), _dense(rows).shape)
    assert ragged.constant(rows).shape.as_list() == [len(rows), None]


def test_from_tensor_lengths_padding_and_to_tensor_shape():
    rng = np.random.default_rng(1)
    dense = rng.integers(0, 3, size=(4, 5))
    lengths = rng.integers(0, 6, size=4)
    assert RaggedTensor.from_tensor(dense).to_list() == dense.tolist()
    assert RaggedTensor.from_tensor(dense, lengths=lengths).to_list() == [r[:n] for r, n in zip(dense.tolist(), lengths)]

    def strip(row):
        while row and row[-1] == 0:
            row = row[:-1]
        return row
    assert RaggedTensor.from_tensor(dense, padding=0).to_list() == [strip(r) for r in dense.tolist()]
    rt = ragged.constant([[1, 2, 3], [], [4]])
    np.testing.assert_array_equal(rt.to_tensor(default_value=-1, shape=[2, 4]).numpy(),
                                  [[1, 2, 3, -1], [-1, -1, -1, -1]])


def test_nested_ragged_rank_two():
    rows = [[[1, 2], [3]], [], [[4, 5, 6], [], [7]]]
    rt = ragged.constant(rows)
    assert rt.ragged_rank == 2 and rt.shape.as_list() == [3, None, None]
    assert rt.to_list() == rows
    assert RaggedTensor.from_nested_row_splits(rt.flat_values, rt.nested_row_splits).to_list() == rows
    np.testing.assert_array_equal(rt.bounding_shape().numpy(), [3, 3, 3])
    want = np.zeros((3, 3, 3), np.int32)
    for i, r in enumerate(rows):
        for j, c in enumerate(r):
            want[i, j, :len(c)] = c
    np.testing.assert_array_equal(rt.to_tensor().numpy(), want)
    assert rt[2, 0].numpy().tolist() == [4, 5, 6]
    assert rt.row_lengths(axis=2).to_list() == [[2, 1], [], [3, 0, 1]]


def test_range_matches_numpy():
    rng = np.random.default_rng(2)
    starts, limits = rng.integers(-5, 5, 6), rng.integers(-5, 5, 6)
    deltas = rng.choice([-3, -1, 1, 2], 6)
    got = ragged.range(starts, limits, deltas).to_list()
    assert got == [np.arange(s, l, d).tolist() for s, l, d in zip(starts, limits, deltas)]
    got = ragged.range([0.5, 1.0], 2.0, 0.5).to_list()
    assert got == [[0.5, 1.0, 1.5], [1.0, 1.5]]
    with pytest.raises(InvalidArgumentError, match="delta != 0"):
        ragged.range([1], [2], [0])


def test_elementwise_stack_mask_gather():
    rng = np.random.default_rng(3)
    rows = _random_rows(rng)
    rt = ragged.constant(rows)
    assert (rt * 2 + 1).to_list() == [[2 * v + 1 for v in r] for r in rows]
    assert ragged.map_flat_values(of.abs, rt).to_list() == [[abs(v) for v in r] for r in rows]
    assert ragged.boolean_mask(rt, rt > 0).to_list() == [[v for v in r if v > 0] for r in rows]
    keep = rng.random(len(rows)) < 0.5
    assert ragged.boolean_mask(rt, keep).to_list() == [r for r, k in zip(rows, keep) if k]
    assert ragged.gather(rt, [3, 0, 3]).to_list() == [rows[3], rows[0], rows[3]]
    assert rt[1:4].to_list() == rows[1:4]
    assert ragged.stack([rt, ragged.constant([[5]])]).to_list() == [rows, [[5]]]


def test_segment_ids_and_fill_empty_rows():
    ids = np.array([0, 0, 2, 2, 2, 5])
    splits = ragged.segment_ids_to_row_splits(ids, num_segments=7)
    np.testing.assert_array_equal(splits.numpy(), [0, 2, 2, 5, 5, 5, 6, 6])
    np.testing.assert_array_equal(ragged.row_splits_to_segment_ids(splits).numpy(), ids)
    rowids, values, empty, reverse = ragged.fill_empty_rows([0, 0, 2], [1., 2., 3.], 4, -1.)
    np.testing.assert_array_equal(rowids.numpy(), [0, 0, 1, 2, 3])
    np.testing.assert_array_equal(values.numpy(), [1, 2, -1, 3, -1])
    np.testing.assert_array_equal(empty.numpy(), [False, True, False, True])
    np.testing.assert_array_equal(reverse.numpy(), [0, 1, 3])
    d_values, d_default = ragged.fill_empty_rows_grad(reverse, [1., 2., 4., 8., 16.])
    np.testing.assert_array_equal(d_values.numpy(), [1, 2, 8])
    assert float(d_default) == 20.0


def test_session_fetch_and_feed():
    g = of.Graph()
    with g.as_default():
        p = ragged.placeholder(of.int32, 1)
        doubled = p * 2
        assert doubled.shape.as_list() == [None, None]
        with of.Session() as sess:
            value = ragged.constant_value([[1, 2], [], [3]])
            got = sess.run(doubled, {p: value})
            assert isinstance(got, RaggedTensorValue)
            assert got.to_list() == [[2, 4], [], [6]]
            np.testing.assert_array_equal(sess.run(p.to_tensor(), {p: value}), [[1, 2], [0, 0], [3, 0]])


def test_spec_and_validation_errors():
    spec = RaggedTensorSpec([None, None], of.int32)
    assert spec.ragged_rank == 1 and spec.is_compatible_with(ragged.constant([[1]]))
    with pytest.raises(ValueError, match="constructor is private"):
        RaggedTensor([1], [0, 1])
    with pytest.raises(InvalidArgumentError, match="must start at 0"):
        RaggedTensor.from_row_splits([1, 2], [1, 2])
    with pytest.raises(InvalidArgumentError, match="end at the number of values"):
        RaggedTensor.from_row_splits([1, 2], [0, 3])
    with pytest.raises(TypeError, match="int32 or int64"):
        RaggedTensor.from_row_splits([1, 2], [0.0, 2.0])


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rows = [[1, 2, 3], [], [4, 5]]
    ours, theirs = ragged.constant(rows), tf.ragged.constant(rows)
    np.testing.assert_array_equal(ours.to_tensor(default_value=9).numpy(), theirs.to_tensor(default_value=9).numpy())
    assert ours.shape.as_list() == theirs.shape.as_list()
    assert (ragged.range([1, 4], [6, 0], [2, -1]).to_list() == tf.ragged.range([1, 4], [6, 0], [2, -1]).to_list())
    dense = [[1, 0, 2, 0], [0, 0, 0, 0], [3, 3, 0, 0]]
    assert (RaggedTensor.from_tensor(dense, padding=0).to_list()
            == tf.RaggedTensor.from_tensor(dense, padding=0).to_list())


def test_ragged_range_op_errors_and_shapes():
    from opforge.generated import gen_ragged_ops as gen
    splits, values = gen.ragged_range(of.constant([1.0, 2.0]), of.constant(3.0), of.constant(0.5), Tsplits="int32")
    assert splits.dtype == of.int32 and splits.numpy().tolist() == [0, 4, 6]
    np.testing.assert_allclose(values.numpy(), [1, 1.5, 2, 2.5, 2, 2.5])
    with pytest.raises(InvalidArgumentError, match="RaggedRange.*same shape"):
        gen.ragged_range(of.constant([1, 2]), of.constant([3, 4, 5]), of.constant(1))
    with pytest.raises(InvalidArgumentError, match="RaggedRange.*scalar or vector"):
        gen.ragged_range(of.constant([[1]]), of.constant(3), of.constant(1))
    g = of.Graph()
    with g.as_default():
        s, v = gen.ragged_range(of.placeholder(of.int64, [4]), of.constant(9, of.int64), of.constant(1, of.int64))
        assert s.shape.as_list() == [5] and v.shape.as_list() == [None]


def test_fill_empty_rows_gradient_and_errors():
    from numeric_check import numeric_grad
    rng = np.random.default_rng(5)
    rowids = np.sort(rng.integers(0, 6, size=5)).astype(np.int64)
    values = rng.standard_normal(5)
    weights = rng.standard_normal(5 + 6 - len(set(rowids.tolist())))
    g = of.Graph()
    with g.as_default():
        v = of.placeholder(of.float64, [5])
        d = of.placeholder(of.float64, [])
        out = ragged.fill_empty_rows(rowids, v, 6, d)[1]
        loss = of.reduce_sum(out * weights)
        grads = of.gradients(loss, [v, d])
        with of.Session() as sess:
            def f(vv, dd):
                return sess.run(loss, {v: vv, d: dd})
            got_v, got_d = sess.run(grads, {v: values, d: 0.5})
            np.testing.assert_allclose(got_v, numeric_grad(lambda x: f(x, 0.5), values), rtol=1e-6)
            np.testing.assert_allclose(got_d, numeric_grad(lambda x: f(values, float(x)), np.array(0.5)), rtol=1e-6)
    with pytest.raises(InvalidArgumentError, match="RaggedFillEmptyRows.*sorted"):
        ragged.fill_empty_rows([1, 0], [1.0, 2.0], 2, 0.0)
    with pytest.raises(InvalidArgumentError, match=r"RaggedFillEmptyRows.*not in \[0, 2\)"):
        ragged.fill_empty_rows([0, 2], [1.0, 2.0], 2, 0.0)
    with pytest.raises(InvalidArgumentError, match="RaggedFillEmptyRowsGrad.*reverse_index_map"):
        ragged.fill_empty_rows_grad([0, 7], [1.0, 2.0])


def test_ragged_range_too_large_is_an_error():
    big = np.iinfo(np.int64)
    with pytest.raises(InvalidArgumentError, match="RaggedRange.*2\\^40"):
        ragged.range(of.constant(big.min, of.int64), of.constant(big.max, of.int64), of.constant(1, of.int64))
    with pytest.raises(InvalidArgumentError, match="RaggedRange.*2\\^40"):
        ragged.range(of.constant(0.0), of.constant(np.inf), of.constant(1.0))
