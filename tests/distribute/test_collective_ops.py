"""The collective ops in one process: groups of one (no MPI needed), static shapes, and the
errors a bad call gets; opforge.distribute in a job of one process."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import _C, errors
from opforge.ops import collective_ops


def test_groups_of_one_process_eagerly():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(collective_ops.all_reduce_v2(of.constant(x), 1, 1, 1).numpy(), x)
    np.testing.assert_array_equal(collective_ops.all_reduce_v2(of.constant(x), 1, 1, 2, "Add", "Div").numpy(), x)
    np.testing.assert_array_equal(collective_ops.all_reduce(of.constant(x), 1, 1, 3, "Max", "Id").numpy(), x)
    np.testing.assert_array_equal(collective_ops.all_gather_v2(of.constant(x), 1, 1, 4).numpy(), x)
    np.testing.assert_array_equal(collective_ops.all_gather(of.constant(x), 1, 1, 5).numpy(), x)
    np.testing.assert_array_equal(collective_ops.broadcast_send_v2(of.constant(x), 1, 1, 6).numpy(), x)
    np.testing.assert_array_equal(collective_ops.broadcast_send(of.constant(x), [3, 4], of.float32, 1, 1, 7).numpy(),
                                  x)
    parts = [x, x[:1].astype(np.float32) * 2, x.T.copy()]
    fused = of.ops._collective_reduce_group([of.constant(p) for p in parts], 1, 1, 8, merge_op="Add", final_op="Div",
                                            name="fused")
    for got, want in zip(fused, parts):
        np.testing.assert_array_equal(got.numpy(), want)


def test_static_shapes_as_tensorflow():
    g = of.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        assert collective_ops.all_reduce_v2(x, 2, 1, 1).shape.as_list() == [None, 4]
        y = tf.placeholder(tf.float32, [5, 4])
        assert collective_ops.all_gather_v2(y, 2, 1, 2).shape.as_list() == [None, 4]  # processes may differ
        assert collective_ops.all_gather(y, 2, 1, 3).shape.as_list() == [10, 4]  # TF1: group_size * shape[0]
        n = tf.placeholder(tf.int32, [])
        recv = collective_ops.broadcast_recv_v2(tf.stack([n, 3]), tf.float64, 2, 1, 4)
        assert recv.shape.as_list() == [None, 3] and recv.dtype == tf.float64
        assert collective_ops.broadcast_recv([2, 7], tf.int32, 2, 1, 5).shape.as_list() == [2, 7]
        fused = of.ops._collective_reduce_group([x, y], 2, 1, 6, merge_op="Add", final_op="Id", name="fused")
        assert [t.shape.as_list() for t in fused] == [[None, 4], [5, 4]]
        node = g.get_operation_by_name(recv.op.name)
        assert node.type == "CollectiveBcastRecvV2"
    spec = _C.op_spec("CollectiveReduceV2") if hasattr(_C, "op_spec") else None
    if spec is not None:
        assert spec["is_distributed_communication"] and spec["is_stateful"]


def test_errors_name_the_op():
    x = of.constant(np.ones((2, 2), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="CollectiveReduceV2.*group_size must be >= 1"):
        collective_ops.all_reduce_v2(x, 0, 1, 1)
    with pytest.raises(errors.InvalidArgumentError, match="CollectiveGatherV2.*rank >= 1"):
        collective_ops.all_gather_v2(of.constant(1.0), 1, 1, 1)
    with pytest.raises(errors.InvalidArgumentError, match="CollectiveBcastRecvV2.*no sender"):
        collective_ops.broadcast_recv_v2([2], of.float32, 1, 1, 1)
    with pytest.raises(errors.InvalidArgumentError, match="CollectiveReduceV2.*group_size must be a scalar"):
        of.ops.collective_reduce_v2(x, [1, 1], 1, 1, merge_op="Add", final_op="Id")
    with pytest.raises(errors.InvalidArgumentError, match="ordering tokens"):
        of.ops.collective_reduce_v2(x, 1, 1, 1, merge_op="Add", final_op="Id", Nordering_token=1)
    with pytest.raises(errors.InvalidArgumentError, match="merge_op"):
        of.ops.collective_reduce_v2(x, 1, 1, 1, merge_op="Mean", final_op="Id")
    with pytest.raises(NotImplementedError, match="ordering tokens"):
        collective_ops.all_reduce_v2(x, 1, 1, 1, ordering_token=object())


def test_a_group_larger_than_the_job_is_an_error_without_mpi():
    # (With MPI the same call starts MPI: tests/distribute/test_mpi.py runs it in a process of
    # its own, as a job of one process.)
    if _C.distribute.built_with_mpi():
        pytest.skip("opforge built with MPI: see test_mpi.py::test_a_job_of_one_process")
    x = of.constant(np.ones((2,), np.float32))
    with pytest.raises(errors.FailedPreconditionError, match="libopenmpi-dev"):
        collective_ops.all_reduce_v2(x, 2, 1, 1)
    import opforge.distribute as hvd
    with pytest.raises(errors.FailedPreconditionError, match="built without MPI"):
        hvd.init()


def test_distribute_before_init_says_so():
    import opforge.distribute as hvd
    assert not hvd.is_initialized()  # nothing in this process starts MPI
    with pytest.raises(ValueError, match="use opforge.distribute.init"):
        hvd.rank()


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_graph_collectives_on_the_collective_thread(mode):
    # Groups of one: no MPI, but the same path through the executors. With the concurrent
    # executor a wave's collectives run on the collective thread beside the next wave's steps
    # (tools/sanitized_tests.sh runs this under ThreadSanitizer); "off": plan order, inline.
    before = _C._testing.concurrent_executor()
    _C._testing.set_concurrent_executor(mode)
    try:
        rng = np.random.default_rng(3)
        g = of.Graph()
        with g.as_default():
            xs = [tf.placeholder(tf.float32, [4, 8]) for _ in range(6)]
            outs = []
            for i, x in enumerate(xs):
                h = tf.nn.relu(tf.matmul(x, tf.transpose(x)))  # compute beside the collectives
                r = collective_ops.all_reduce_v2(h, 1, 1, 2 * i + 1, "Add", "Div")
                outs.append(collective_ops.all_gather_v2(r + 1.0, 1, 1, 2 * i + 2) * 2.0)
        vals = [rng.standard_normal((4, 8)).astype(np.float32) for _ in xs]
        with tf.Session(graph=g) as sess:
            for _ in range(15):
                got = sess.run(outs, dict(zip(xs, vals)))
                for v, o in zip(vals, got):
                    np.testing.assert_allclose(o, (np.maximum(v @ v.T, 0) + 1) * 2, rtol=1e-5, atol=1e-5)
    finally:
        _C._testing.set_concurrent_executor(before)


def test_a_failing_collective_in_a_graph_fails_the_run():
    # The error of a step run on the collective thread reaches Session.run (and the run after
    # it works: nothing is left running on the thread).
    g = of.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3])
        bad = collective_ops.broadcast_recv_v2(tf.shape(x), tf.float32, 1, 1, 1)  # no sender
        good = collective_ops.all_reduce_v2(tf.nn.relu(x), 1, 1, 2)
    with tf.Session(graph=g) as sess:
        with pytest.raises(errors.InvalidArgumentError, match="CollectiveBcastRecvV2.*no sender"):
            sess.run([bad, good], {x: [1.0, -2.0, 3.0]})
        np.testing.assert_array_equal(sess.run(good, {x: [1.0, -2.0, 3.0]}), [1.0, 0.0, 3.0])
