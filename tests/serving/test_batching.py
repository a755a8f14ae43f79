"""The batch scheduler (opforge/serving/batching.py) on a NumPy function standing in for a
signature's run: merging, splitting, padding, queue limits, deadlines, errors."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from opforge.errors import DeadlineExceededError, InvalidArgumentError, ResourceExhaustedError, UnavailableError
from opforge.serving.batching import BatchScheduler, task_size
from opforge.serving.config import BatchingOptions


class Recorder:
    """run(feeds) -> {"y": x * 2 + 1, "s": row sums}, recording each call's batch size."""

    def __init__(self, delay: float = 0.0, gate: threading.Event | None = None):
        self.sizes, self.delay, self.gate = [], delay, gate
        self.lock = threading.Lock()

    def __call__(self, feeds, output_keys):
        if self.gate is not None:
            self.gate.wait(10)
        x = feeds["x"]
        with self.lock:
            self.sizes.append(x.shape[0])
        time.sleep(self.delay)
        out = {"y": x * 2 + 1, "s": x.reshape(x.shape[0], -1).sum(axis=1)}
        return {k: v for k, v in out.items() if output_keys is None or k in output_keys}


def _concurrently(fn, args_list):
    results, errors = [None] * len(args_list), [None] * len(args_list)

    def call(i):
        try:
            results[i] = fn(*args_list[i])
        except Exception as e:
            errors[i] = e
    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(args_list))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    return results, errors


def test_concurrent_requests_are_merged_and_split_back():
    rng = np.random.default_rng(0)
    run = Recorder(gate=threading.Event())
    counts = []
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=16, batch_timeout_micros=200_000, num_batch_threads=1),
                           on_batch=lambda n, rows, padded: counts.append((n, rows, padded)))
    inputs = [rng.normal(size=(k, 3)).astype(np.float32) for k in (1, 2, 3, 4, 1, 5)]  # 16 rows: one full batch
    run.gate.set()
    results, errors = _concurrently(lambda x: sched.submit({"x": x}), [(x,) for x in inputs])
    sched.close()
    assert errors == [None] * 6
    assert run.sizes == [16] and counts == [(6, 16, 16)]
    for x, r in zip(inputs, results):
        np.testing.assert_array_equal(r["y"], x * 2 + 1)
        np.testing.assert_allclose(r["s"], x.sum(axis=1), rtol=1e-6)


def test_a_partial_batch_runs_after_the_timeout():
    run = Recorder()
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=64, batch_timeout_micros=100_000, num_batch_threads=1))
    t0 = time.monotonic()
    results, errors = _concurrently(lambda x: sched.submit({"x": x}), [(np.ones((2, 3), np.float32),)] * 3)
    waited = time.monotonic() - t0
    sched.close()
    assert errors == [None] * 3 and run.sizes == [6]
    assert 0.09 <= waited < 5


def test_padding_to_allowed_batch_sizes():
    run = Recorder()
    counts = []
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=8, allowed_batch_sizes=(2, 4, 8), num_batch_threads=1),
                           on_batch=lambda n, rows, padded: counts.append((rows, padded)))
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    r = sched.submit({"x": x})
    sched.close()
    assert run.sizes == [4] and counts == [(3, 4)]  # padded by repeating the first row
    np.testing.assert_array_equal(r["y"], x * 2 + 1)


def test_pad_variable_length_inputs():
    run = Recorder(gate=threading.Event())
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=3, pad_variable_length_inputs=True,
                                                batch_timeout_micros=500_000, num_batch_threads=1))
    a, b = np.ones((1, 2), np.float32), np.full((2, 4), 3, np.float32)
    run.gate.set()
    results, errors = _concurrently(lambda x: sched.submit({"x": x}), [(a,), (b,)])
    sched.close()
    assert errors == [None, None] and run.sizes == [3]
    np.testing.assert_array_equal(results[0]["y"], [[3, 3, 1, 1]])  # padded with zeros past dim 0
    np.testing.assert_array_equal(results[1]["y"], b * 2 + 1)


def test_different_shapes_go_to_different_batches():
    run = Recorder(gate=threading.Event())
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=8, batch_timeout_micros=100_000, num_batch_threads=1))
    run.gate.set()
    results, errors = _concurrently(lambda x: sched.submit({"x": x}),
                                    [(np.ones((1, 3), np.float32),), (np.ones((1, 5), np.float32),)])
    sched.close()
    assert errors == [None, None] and sorted(run.sizes) == [1, 1]
    assert results[1]["y"].shape == (1, 5)


def test_output_filter_is_part_of_the_batch_key():
    run = Recorder()
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=4, num_batch_threads=1))
    r = sched.submit({"x": np.ones((1, 3), np.float32)}, output_keys=("s",))
    sched.close()
    assert list(r) == ["s"]


def test_full_queue_is_refused():
    gate = threading.Event()
    run = Recorder(gate=gate)
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=1, max_enqueued_batches=2, num_batch_threads=1))
    x = np.ones((1, 3), np.float32)
    threads = [threading.Thread(target=sched.submit, args=({"x": x},)) for _ in range(3)]
    for t in threads:  # one runs (held at the gate), two wait: the queue is full
        t.start()
        time.sleep(0.1)
    with pytest.raises(ResourceExhaustedError, match="The batch scheduling queue to which this task was submitted is full"):
        sched.submit({"x": x})
    gate.set()
    for t in threads:
        t.join(10)
    sched.close()


def test_deadline_while_queued():
    gate = threading.Event()
    run = Recorder(gate=gate)
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=1, num_batch_threads=1))
    x = np.ones((1, 3), np.float32)
    busy = threading.Thread(target=sched.submit, args=({"x": x},))
    busy.start()
    time.sleep(0.1)
    with pytest.raises(DeadlineExceededError, match="Deadline exceeded while the request waited for its batch"):
        sched.submit({"x": x}, deadline=time.monotonic() + 0.1)
    gate.set()
    busy.join(10)
    sched.close()
    assert run.sizes == [1]  # the expired request never ran


def test_a_failing_batch_fails_its_requests_and_the_scheduler_goes_on():
    calls = []

    def run(feeds, output_keys):
        calls.append(feeds["x"].shape[0])
        if len(calls) == 1:
            raise InvalidArgumentError("boom")
        return {"y": feeds["x"]}
    sched = BatchScheduler(run, BatchingOptions(max_batch_size=4, num_batch_threads=1))
    with pytest.raises(InvalidArgumentError, match="boom"):
        sched.submit({"x": np.ones((1, 3), np.float32)})
    assert sched.submit({"x": np.ones((2, 3), np.float32)})["y"].shape == (2, 3)
    sched.close()


def test_an_output_without_the_batch_dimension_is_an_error():
    sched = BatchScheduler(lambda feeds, keys: {"y": np.float32(1)}, BatchingOptions(max_batch_size=4, num_batch_threads=1))
    with pytest.raises(InvalidArgumentError, match=r"batching needs every output to have the batch size in dim 0: "
                                                   r"output 'y' has shape \[\] for a batch of 1"):
        sched.submit({"x": np.ones((1, 3), np.float32)})
    sched.close()


def test_bad_requests():
    sched = BatchScheduler(Recorder(), BatchingOptions(max_batch_size=4, num_batch_threads=1))
    with pytest.raises(InvalidArgumentError, match="Task size 5 is larger than maximum input batch size 4"):
        sched.submit({"x": np.ones((5, 3), np.float32)})
    sched.close()
    with pytest.raises(UnavailableError, match="is unloading"):
        sched.submit({"x": np.ones((1, 3), np.float32)})
    with pytest.raises(InvalidArgumentError, match="input 'x' is a scalar"):
        task_size({"x": np.float32(1)})
    with pytest.raises(InvalidArgumentError, match="same size in dim 0, got a: 1, b: 2"):
        task_size({"a": np.ones(1), "b": np.ones(2)})
    with pytest.raises(InvalidArgumentError, match="batching needs at least one input"):
        task_size({})


@pytest.mark.parametrize("kw, message", [
    ({"max_batch_size": 0}, "batching parameter max_batch_size must be >= 1, got 0"),
    ({"num_batch_threads": 0}, "batching parameter num_batch_threads must be >= 1, got 0"),
    ({"batch_timeout_micros": -1}, "batch_timeout_micros must be >= 0, got -1"),
    ({"max_batch_size": 8, "allowed_batch_sizes": (4, 2, 8)}, r"allowed_batch_sizes must be positive and increasing"),
    ({"max_batch_size": 8, "allowed_batch_sizes": (2, 4)}, r"the last of allowed_batch_sizes \(4\) must equal max_batch_size \(8\)"),
])
def test_options_are_checked(kw, message):
    with pytest.raises(InvalidArgumentError, match=message):
        BatchingOptions(**kw)
