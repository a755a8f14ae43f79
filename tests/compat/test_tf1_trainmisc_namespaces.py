"""tf.manip, tf.config and tf.math.special of opforge.compat.v1 (opforge/compat/v1/_tf1_trainmisc.py):
the names TF1 programs use, computing what NumPy and opforge's device list say."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf


def test_manip(graph, rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    assert sorted(n for n in dir(tf.manip)) == ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll",
                                               "scatter_nd", "space_to_batch_nd", "tile"]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.manip.roll(x, 1, 1)), np.roll(x, 1, 1))
        np.testing.assert_array_equal(sess.run(tf.manip.reverse(x, [0])), x[::-1])
        np.testing.assert_array_equal(sess.run(tf.manip.tile(x, [2, 1])), np.tile(x, (2, 1)))


def test_config_devices():
    physical = tf.config.list_physical_devices()
    assert [d.name for d in physical] == of.config.list_physical_devices()
    assert physical[0] == tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU")
    assert tf.config.list_logical_devices("CPU") == [tf.config.LogicalDevice("/device:CPU:0", "CPU")]
    assert tf.config.experimental.list_physical_devices("GPU") == tf.config.list_physical_devices("GPU")
    cpu = tf.config.list_physical_devices("CPU")
    tf.config.set_visible_devices(cpu, "CPU")  # what is visible already: accepted
    with pytest.raises(RuntimeError, match="cannot be modified after being initialized"):
        tf.config.set_visible_devices([], "CPU")
    assert tf.config.get_logical_device_configuration(cpu[0]) is None
    with pytest.raises(RuntimeError, match="Virtual devices"):
        tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration(memory_limit=10)])
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.get_memory_growth(tf.config.PhysicalDevice("/physical_device:TPU:0", "TPU"))
    assert tf.config.experimental.get_memory_growth(cpu[0]) is True
    with pytest.raises(ValueError, match="cannot be disabled"):
        tf.config.experimental.set_memory_growth(cpu[0], False)


def test_config_memory_and_threads():
    keep = of.constant(np.ones((256, 256), np.float32)) * 2.0
    info = tf.config.experimental.get_memory_info("CPU:0")
    assert info["current"] >= keep.numpy().nbytes and info["peak"] >= info["current"]
    assert tf.config.experimental.get_memory_usage("/device:CPU:0") == info["current"]
    before = tf.config.threading.get_intra_op_parallelism_threads()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    try:
        assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(before)
    assert isinstance(tf.config.optimizer.get_experimental_options(), dict)


def test_math_special(graph, rng):
    x = rng.uniform(-3, 3, 6)
    with tf.Session() as sess:
        got = sess.run(tf.math.special.bessel_i0e(x))
    np.testing.assert_allclose(got, np.i0(x) * np.exp(-np.abs(x)), rtol=1e-12)
    with pytest.raises(AttributeError, match="tf.math.special.dawsn"):
        tf.math.special.dawsn  # noqa: B018
