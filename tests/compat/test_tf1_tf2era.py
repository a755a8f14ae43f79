"""The TF2-era names of opforge.compat.v1 in TF1 programs: built into the default graph without
entering one, as a TF1 program calls them (compat/v1/_tf1_tf2era.py)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import opforge.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_tape_function_print_in_the_default_graph():
    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable(np.array([[1.0], [2.0]], np.float32), name="w")

    @tf.function
    def model(inputs):
        return tf.matmul(inputs, w)

    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(model(x)))
    (grad,) = tape.gradient(loss, [w])
    out = io.StringIO()
    printed = tf.print("loss", loss, output_stream=out)
    with tf.control_dependencies([printed]):
        step = tf.assign_sub(w, 0.1 * grad)
    xv = np.array([[1.0, 1.0]], np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        g = s.run(grad, {x: xv})
        s.run(step, {x: xv})
    np.testing.assert_allclose(g, [[6.0], [6.0]])  # d/dw (x.w)^2 = 2 (x.w) x
    assert out.getvalue() == "loss 9\n"
    assert tape.watched_variables() == (w,)


def test_generator_checkpoint_manager_in_a_session(tmp_path):
    gen = tf.random.Generator.from_seed(11)
    noise = gen.normal([2])
    v = tf.Variable(np.zeros(2, np.float32), name="v")
    update = tf.assign(v, noise)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first = s.run(update)
        manager.save()
        second = s.run(update)
        assert not np.array_equal(first, second)
        ckpt.restore(manager.latest_checkpoint).run_restore_ops()
        np.testing.assert_array_equal(s.run(v), first)


def test_names_and_switches():
    assert tf.nest.flatten({"b": 1, "a": [2, 3]}) == [2, 3, 1]
    assert tf.TensorSpec([None], tf.float32).is_compatible_with(tf.placeholder(tf.float32, [4]))
    assert tf.type_spec_from_value(tf.placeholder(tf.int32, [3])) == tf.TensorSpec([3], tf.int32)
    assert tf.executing_eagerly_outside_functions() is False
    assert tf.is_symbolic_tensor(tf.constant(1.0))
    assert tf.control_flow_v2_enabled() is False and tf.resource_variables_enabled() is False
    tf.disable_resource_variables()
    tf.disable_control_flow_v2()
    with pytest.raises(tf.errors.UnimplementedError, match="reference variables"):
        tf.enable_resource_variables()
    with pytest.raises(tf.errors.UnimplementedError):
        tf.enable_v2_behavior()
    assert tf.DeviceSpec.from_string("/job:w/task:1").task == 1
    assert tf.random.Algorithm.PHILOX.value == 1
    np.testing.assert_array_equal(tf.random.create_rng_state(5, "philox"), [5, 0, 0])
    assert tf.types.experimental.TensorLike is not None
    from opforge.ops import stateful_random  # noqa: PLC0415
    stateful_random._global_generator.clear()  # none set by another test
    global_gen = tf.random.get_global_generator()
    assert global_gen.state.graph is tf.get_default_graph() and tf.random.get_global_generator() is global_gen
    tf.reset_default_graph()
    assert tf.random.get_global_generator() is not global_gen  # made again for the new default graph
    assert isinstance(tf.summary.SummaryDescription(type_hint="x"), tf.summary.SummaryDescription)
    assert tf.summary.all_v2_summary_ops() == []
    assert tf.data.DatasetSpec(tf.TensorSpec([], tf.int64)).element_spec == tf.TensorSpec([], tf.int64)


def test_left_out_names_say_why():
    for name, why in [("autograph", "source-to-source"), ("CriticalSection", "MutexV2"), ("mixed_precision", "float16")]:
        with pytest.raises(AttributeError, match=why):
            getattr(tf, name)
    with pytest.raises(AttributeError, match="object-based SavedModel"):
        tf.saved_model.save  # noqa: B018
