"""The programs tests/distribute/test_mpi.py starts under mpirun: `python mpi_worker.py CASE`.
Each process checks its own results against NumPy (every process can rebuild every other
one's data from the rank-seeded generators) and prints "ok CASE rank R" when all passed."""

import os
import sys
import time

import numpy as np

import opforge as of
import opforge.compat.v1 as tf
import opforge.distribute as hvd
from opforge import errors
from opforge.ops import collective_ops


def data(r, shape, dtype):
    x = np.random.default_rng(100 + r).standard_normal(shape) * 3
    return x.astype(dtype) if np.dtype(dtype).kind == "f" else np.round(x).astype(dtype)


def check_collectives(rank, size):
    # Eager all-reduce, every op and dtype, against NumPy over every process's data.
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.float16):
        xs = [data(r, (3, 5), dtype) for r in range(size)]
        for op, ref in ((hvd.Sum, np.sum(xs, 0)), (hvd.Min, np.min(xs, 0)), (hvd.Max, np.max(xs, 0)),
                        (hvd.Product, np.prod(np.asarray(xs, np.float64), 0).astype(dtype))):
            got = hvd.allreduce(of.constant(xs[rank]), op=op).numpy()
            assert got.dtype == dtype, (got.dtype, dtype)
            tol = 1e-2 if dtype == np.float16 else 1e-5
            np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)
        if np.dtype(dtype).kind == "f":
            got = hvd.allreduce(of.constant(xs[rank])).numpy()  # Average
            np.testing.assert_allclose(got, (np.sum(np.asarray(xs, np.float64), 0) / size).astype(dtype),
                                       rtol=1e-2 if dtype == np.float16 else 1e-6, atol=1e-3)
    # All-gather with a different first dimension per process.
    pieces = [data(r, (r + 1, 4), np.float32) for r in range(size)]
    np.testing.assert_array_equal(hvd.allgather(of.constant(pieces[rank])).numpy(), np.concatenate(pieces))
    # Broadcast from the last rank.
    root = size - 1
    np.testing.assert_array_equal(hvd.broadcast(of.constant(data(rank, (2, 3), np.float64)), root).numpy(),
                                  data(root, (2, 3), np.float64))
    # Fused: 100 small tensors in one all-reduce, the same as one each.
    small = [data(rank * 1000 + i, (i % 7 + 1,), np.float32) for i in range(100)]
    fused = hvd.grouped_allreduce([of.constant(s) for s in small], op=hvd.Sum)
    for i, f in enumerate(fused):
        ref = sum(data(r * 1000 + i, (i % 7 + 1,), np.float32) for r in range(size))
        np.testing.assert_allclose(f.numpy(), ref, rtol=1e-5, atol=1e-5)
    # TensorFlow's collective_ops (V1 and V2) in a graph run by a Session.
    g = of.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        s1 = collective_ops.all_reduce(x, size, 7, 1, "Add", "Div")
        s2 = collective_ops.all_reduce_v2(x * 2.0, size, 7, 2, "Max", "Id")
        gv = collective_ops.all_gather_v2(x, size, 7, 3)
        assert gv.shape.as_list() == [None, 4], gv.shape
        if rank == 0:
            b = collective_ops.broadcast_send_v2(x[:1], size, 7, 4)
        else:
            # the same graph shape as the sender's (its input depends on x too): every process
            # reaches its collectives in the same waves, so in the same order
            b = collective_ops.broadcast_recv_v2(tf.shape(x[:1]), tf.float32, size, 7, 4)
            assert b.shape.as_list() == [None, 4], b.shape
    feeds = [data(r, (2, 4), np.float32) for r in range(size)]
    with tf.Session(graph=g) as sess:
        for _ in range(3):  # the same plan again: keys reused run after run, as in TensorFlow
            r1, r2, r3, r4 = sess.run([s1, s2, gv, b], {x: feeds[rank]})
            np.testing.assert_allclose(r1, np.mean(feeds, 0), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(r2, np.max(np.asarray(feeds) * 2, 0), rtol=1e-6)
            np.testing.assert_array_equal(r3, np.concatenate(feeds))
            np.testing.assert_array_equal(r4, feeds[0][:1])


def mlp_step_weights(x, y, w_init, steps, lr, shard=None):
    """Trains a float64 two-layer net with Momentum; with `shard`, data-parallel over the job."""
    g = tf.Graph()
    with g.as_default():
        xs = tf.placeholder(tf.float64, [None, x.shape[1]])
        ys = tf.placeholder(tf.float64, [None, y.shape[1]])
        w1 = tf.Variable(w_init[0])
        w2 = tf.Variable(w_init[1])
        h = tf.nn.tanh(tf.matmul(xs, w1))
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - ys))
        opt = tf.train.MomentumOptimizer(lr, 0.9)
        if shard is not None:
            opt = hvd.DistributedOptimizer(opt)
        train = opt.minimize(loss)
        init = tf.global_variables_initializer()
        bcast = hvd.broadcast_global_variables(0) if shard is not None else None
    with tf.Session(graph=g) as sess:
        sess.run(init)
        if bcast is not None:
            sess.run(bcast)
        for _ in range(steps):
            if shard is None:
                sess.run(train, {xs: x, ys: y})
            else:
                sess.run(train, {xs: x[shard], ys: y[shard]})
        return sess.run([w1, w2])


def check_training(rank, size):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((12 * size, 6)), rng.standard_normal((12 * size, 3))
    w_init = [rng.standard_normal((6, 8)) * 0.5, rng.standard_normal((8, 3)) * 0.5]
    # Every process starts from other weights: the broadcast must give them rank 0's.
    mine = [w + (rank * 0.1) for w in w_init]
    shard = slice(rank * 12, (rank + 1) * 12)
    got = mlp_step_weights(x, y, mine, 5, 0.1, shard=shard)
    want = mlp_step_weights(x, y, w_init, 5, 0.1)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    # Eager: DistributedGradientTape averages the gradients the same way.
    w = of.Variable(np.full((6, 3), 0.1))
    with hvd.DistributedGradientTape(of.GradientTape()) as tape:
        loss = of.reduce_mean(of.square(of.matmul(of.constant(x[shard]), w) - y[shard]))
    grad = tape.gradient(loss, w).numpy()
    full = 2 * x.T @ (x @ np.full((6, 3), 0.1) - y) / (x.shape[0] * 3)
    np.testing.assert_allclose(grad, full, rtol=1e-10, atol=1e-12)


def check_mismatch(rank, size):
    # Another shape on the last process: every process fails with the same message.
    shape = (3, 4) if rank < size - 1 else (3, 5)
    try:
        hvd.allreduce(of.constant(np.ones(shape, np.float32)))
    except errors.InvalidArgumentError as e:
        print(f"mismatch rank {rank}: {e}", flush=True)
    else:
        raise AssertionError("no error for mismatched shapes")
    # Collectives run in another order on rank 0: found by the keys, not a hang.
    a = of.constant(np.ones((2,), np.float32))
    try:
        if rank == 0:
            collective_ops.all_gather_v2(a, size, 3, 11)
        else:
            collective_ops.all_reduce_v2(a, size, 3, 12)
    except errors.InvalidArgumentError as e:
        print(f"order rank {rank}: {e}", flush=True)
    else:
        raise AssertionError("no error for collectives run in different orders")
    # The job goes on after both errors.
    np.testing.assert_allclose(hvd.allreduce(of.constant([float(rank)]), op=hvd.Sum).numpy(),
                               [sum(range(size))])


def check_raise(rank, size):
    hvd.allreduce(of.constant([1.0]))
    if rank == 1:
        raise RuntimeError("worker 1 gives up")
    hvd.allreduce(of.constant([1.0]))  # never completes: the job is aborted first
    time.sleep(60)


def check_kill(rank, size):
    hvd.allreduce(of.constant([1.0]))
    if rank == 1:
        os.kill(os.getpid(), 9)
    hvd.allreduce(of.constant([1.0]))
    time.sleep(60)


def check_timeout(rank, size):
    if rank == 1:
        time.sleep(60)  # hangs without failing: the others' timeout catches it
    t0 = time.time()
    try:
        collective_ops.all_reduce_v2(of.constant([1.0]), size, 1, 1, timeout=1.0)
    except errors.DeadlineExceededError as e:
        print(f"timeout rank {rank} after {time.time() - t0:.1f}s: {e}", flush=True)
        raise
    raise AssertionError("no timeout")


def check_single(rank, size):
    """A job of one process (started without mpirun: MPI's singleton mode)."""
    assert (hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size()) == (0, 1, 0, 1)
    assert hvd.is_initialized() and hvd.mpi_built() and hvd.mpi_threads_supported()
    x = np.random.default_rng(1).standard_normal((4, 3))
    np.testing.assert_allclose(hvd.allreduce(of.constant(x)).numpy(), x)
    np.testing.assert_allclose(hvd.allreduce(of.constant(x), op=hvd.Sum, prescale_factor=2.0).numpy(), 2 * x)
    np.testing.assert_allclose(hvd.allreduce(of.constant(x), compression=hvd.Compression.fp16).numpy(), x,
                               rtol=1e-3, atol=1e-3)
    parts = [of.constant(x[:, :k + 1]) for k in range(3)]
    for got, want in zip(hvd.grouped_allreduce(parts, fusion_threshold_bytes=64), parts):
        np.testing.assert_allclose(got.numpy(), want.numpy())
    np.testing.assert_array_equal(hvd.allgather(of.constant(x)).numpy(), x)
    np.testing.assert_array_equal(hvd.broadcast(of.constant(x), 0).numpy(), x)
    expect_error(ValueError, "root_rank 1", hvd.broadcast, of.constant(x), 1)
    expect_error(ValueError, "op must be one of", hvd.allreduce, of.constant(x), op="Mean")
    expect_error(NotImplementedError, "backward_passes_per_step", hvd.DistributedOptimizer,
                 of.train.GradientDescentOptimizer(0.1), backward_passes_per_step=2)
    expect_error(errors.InvalidArgumentError, "group_size 2 but the job has 1 process",
                 collective_ops.all_reduce_v2, of.constant(x), 2, 1, 1)


def expect_error(cls, text, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except cls as e:
        assert text in str(e), (text, str(e))
    else:
        raise AssertionError(f"no {cls.__name__} ({text})")


CASES = {"single": check_single, "collectives": check_collectives, "training": check_training, "mismatch": check_mismatch,
         "raise": check_raise, "kill": check_kill, "timeout": check_timeout}

if __name__ == "__main__":
    case = sys.argv[1]
    hvd.init()
    CASES[case](hvd.rank(), hvd.size())
    print(f"ok {case} rank {hvd.rank()}", flush=True)
