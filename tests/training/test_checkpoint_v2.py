"""tf.train.Checkpoint / CheckpointManager (training/checkpoint_v2.py): tracked variables written
to a V2 tensor bundle under TF2's object-path keys, restored by path in graph mode (through a
Session) and eagerly; the manager's numbering, max_to_keep and state file."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.framework.module import Module
from opforge.training import checkpoint_v2 as cp
from opforge.training.saver import CheckpointReader, get_checkpoint_state


class _Model(Module):
    def __init__(self):
        super().__init__()
        self.kernel = of.Variable(np.random.rand(3, 2).astype(np.float32), name="kernel")
        self.inner = {"bias": of.Variable(np.zeros(2, np.float32), name="bias")}


def test_graph_save_restore_and_keys(graph, tmp_path):
    model = _Model()
    step = of.Variable(np.int64(0), name="step", trainable=False)
    ckpt = cp.Checkpoint(model=model, step=step)
    with of.Session(graph=graph) as s:
        s.run(of.global_variables_initializer())
        saved_kernel = s.run(model.kernel.value())
        s.run(of.assign(step, np.int64(42)))
        path = ckpt.save(str(tmp_path / "ckpt"), session=s)
        assert path.endswith("ckpt-1") and ckpt.save_counter == 1
        reader = CheckpointReader(path)
        assert sorted(reader.get_variable_to_shape_map()) == [
            "model/inner/bias/.ATTRIBUTES/VARIABLE_VALUE", "model/kernel/.ATTRIBUTES/VARIABLE_VALUE",
            "save_counter/.ATTRIBUTES/VARIABLE_VALUE", "step/.ATTRIBUTES/VARIABLE_VALUE"]
        np.testing.assert_array_equal(reader.get_tensor("model/kernel/.ATTRIBUTES/VARIABLE_VALUE"), saved_kernel)
        assert get_checkpoint_state(str(tmp_path)).model_checkpoint_path == path
        s.run([of.assign(model.kernel, np.zeros((3, 2), np.float32)), of.assign(step, np.int64(0))])
        status = ckpt.restore(path)
        status.assert_consumed()
        np.testing.assert_array_equal(s.run(step.value()), 0)  # graph: assigned by run_restore_ops
        status.run_restore_ops(s)
        np.testing.assert_array_equal(s.run(model.kernel.value()), saved_kernel)
        assert s.run(step.value()) == 42
    with pytest.raises(ValueError, match="Session"):  # no default session any more
        ckpt.write(str(tmp_path / "nosession"))


def test_partial_matches_and_errors(graph, tmp_path):
    a = of.Variable(np.ones(2, np.float32), name="a")
    b = of.Variable(np.ones(2, np.float32), name="b")
    with of.Session(graph=graph) as s:
        s.run(of.global_variables_initializer())
        path = cp.Checkpoint(a=a, b=b).write(str(tmp_path / "two"), session=s)
        assert path == str(tmp_path / "two") and not os.path.exists(tmp_path / "checkpoint")
        status = cp.Checkpoint(a=a).restore(path)
        status.assert_existing_objects_matched()
        with pytest.raises(AssertionError, match="not matched"):
            status.assert_consumed()
        status.expect_partial()
        c = of.Variable(np.ones(3, np.float32), name="c")
        with pytest.raises(AssertionError, match="not found"):
            cp.Checkpoint(a=a, c=c).restore(path).assert_existing_objects_matched()
        with pytest.raises(of.InvalidArgumentError, match="shape"):
            cp.Checkpoint(a=c).restore(path)
        with pytest.raises(of.NotFoundError, match="no such checkpoint"):
            cp.Checkpoint(a=a).restore(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="cannot track"):
        cp.Checkpoint(thing=object())
    with pytest.raises(NotImplementedError, match="asynchronous"):
        cp.CheckpointOptions(enable_async=True)


def test_eager_restore_assigns_at_once(tmp_path):
    v = of.Variable(np.array([1.0, 2.0], np.float32))
    ckpt = cp.Checkpoint(v=v)
    path = ckpt.save(str(tmp_path / "e"))
    v.assign(np.zeros(2, np.float32))
    ckpt.restore(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    fresh = cp.Checkpoint(v=v)
    fresh.restore(path)
    assert fresh.save_counter == 1


def test_manager_keeps_max_to_keep(tmp_path):
    v = of.Variable(np.float32(0.0))
    ckpt = cp.Checkpoint(v=v)
    manager = cp.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.restore_or_initialize() is None
    paths = []
    for i in range(4):
        v.assign(np.float32(i))
        paths.append(manager.save())
    assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"]
    assert manager.checkpoints == paths[2:] and manager.latest_checkpoint == paths[3]
    assert not os.path.exists(paths[0] + ".index") and os.path.exists(paths[3] + ".index")
    assert list(get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == paths[2:]
    assert os.path.basename(manager.save(checkpoint_number=100)) == "ckpt-100"
    again = cp.CheckpointManager(cp.Checkpoint(v=v), str(tmp_path), max_to_keep=2)  # picks up the state file
    assert again.checkpoints == [paths[3], str(tmp_path / "ckpt-100")]
    v.assign(np.float32(-1.0))
    assert again.restore_or_initialize() == str(tmp_path / "ckpt-100")
    assert float(v.numpy()) == 3.0
    with pytest.raises(ValueError, match="positive integer"):
        cp.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)


def test_tensorflow_reads_the_values(tmp_path):
    tf = pytest.importorskip("tensorflow")
    v = of.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    path = cp.Checkpoint(net={"w": v}).write(str(tmp_path / "for_tf"))
    np.testing.assert_array_equal(tf.train.load_checkpoint(path).get_tensor("net/w/.ATTRIBUTES/VARIABLE_VALUE"),
                                  v.numpy())
