"""Session.list_devices: TensorFlow's device names for this machine's devices."""
import opforge as of
import opforge.compat.v1 as tf1


def test_list_devices_names_them_as_tensorflow_does():
    """Session.list_devices (TF1 programs print it to see the GPUs): TensorFlow's full device
    names, one per physical device, the CPU first."""
    with tf1.Session(graph=tf1.Graph()) as sess:
        devices = sess.list_devices()
    assert devices[0].name == "/job:localhost/replica:0/task:0/device:CPU:0" and devices[0].device_type == "CPU"
    assert len(devices) == 1 + len(of.config.list_physical_devices("GPU"))
    assert [d.incarnation for d in devices] == list(range(len(devices)))
