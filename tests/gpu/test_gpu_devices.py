"""The device API on the CPU side: device strings, placement scopes, copies, NotFound for a
missing GPU or a missing kernel, and what the GPU backend registered. These run everywhere;
the GPU checks of every op are in test_gpu_ops.py."""

import os

import numpy as np
import pytest

import opforge as of
from opforge import _C
from opforge.framework import devices

HAS_GPU = of.config.num_gpus() > 0
LIB_DIR = os.path.join(os.path.dirname(of._C.__file__), "lib")
BUILT = [n for n in ("libopforge_cuda.so", "libopforge_hip.so") if os.path.exists(os.path.join(LIB_DIR, n))]


@pytest.mark.parametrize("spelling,canonical", [
    ("/cpu:0", "/device:CPU:0"),
    ("/CPU:0", "/device:CPU:0"),
    ("cpu", "/device:CPU:0"),
    ("/device:CPU:0", "/device:CPU:0"),
    ("/job:localhost/replica:0/task:0/device:CPU:0", "/device:CPU:0"),
    ("/gpu:0", "/device:GPU:0"),
    ("/GPU:1", "/device:GPU:1"),
    ("gpu", "/device:GPU:0"),
    ("/device:GPU:3", "/device:GPU:3"),
    ("cuda:2", "/device:GPU:2"),
    ("/job:worker/task:1/device:gpu:0", "/device:GPU:0"),
])
def test_device_strings(spelling, canonical):
    assert devices.canonical(spelling) == canonical


@pytest.mark.parametrize("bad,why", [
    ("/tpu:0", "unknown device type 'tpu'"),
    ("/gpu:x", "non-negative integer"),
    ("/gpu:-1", "non-negative integer"),
    ("/cpu:1", "one CPU device"),
    ("/job:worker", "no device name"),
    ("/gpu:0/cpu:0", "more than one device"),
])
def test_bad_device_strings(bad, why):
    with pytest.raises(of.InvalidArgumentError, match=why):
        devices.canonical(bad)
    with pytest.raises(of.InvalidArgumentError, match=why):
        with of.device(bad):
            pass


def test_tensor_device_and_copies_on_cpu():
    x = of.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.device == "/device:CPU:0"
    assert x.cpu().device == "/device:CPU:0"
    assert x.to("/cpu:0")._shares_buffer_with(x)  # already there: no copy
    np.testing.assert_array_equal(x.cpu().numpy(), x.numpy())


def test_placement_scopes_nest_and_restore():
    assert devices.current_eager_device() is None
    with of.device("/cpu:0"):
        assert devices.current_eager_device() == "/device:CPU:0"
        with of.device("/gpu:1"):
            assert devices.current_eager_device() == "/device:GPU:1"
            with of.device(None):
                assert devices.current_eager_device() is None
            assert devices.current_eager_device() == "/device:GPU:1"
        assert devices.current_eager_device() == "/device:CPU:0"
        y = of.add(of.constant([1.0]), of.constant([2.0]))
        assert y.device == "/device:CPU:0"
    assert devices.current_eager_device() is None


def test_scope_restored_after_an_error():
    with pytest.raises(RuntimeError):
        with of.device("/gpu:0"):
            raise RuntimeError("boom")
    assert devices.current_eager_device() is None


def test_graph_mode_device_only_recorded():
    with of.Graph().as_default():
        with of.device("/gpu:0"):
            c = of.constant(1.0)
            assert devices.current_eager_device() is None
        assert c.op.device == "/gpu:0"


@pytest.mark.skipif(HAS_GPU, reason="checks the no-GPU path")
def test_missing_gpu_is_not_found():
    x = of.constant([1.0, 2.0])
    with pytest.raises(of.NotFoundError, match=r"/device:GPU:0 is not available: this machine has no GPU"):
        x.gpu()
    # With a backend built, AddV2 has a GPU kernel and the device is what is missing; in a
    # CPU-only build the kernel is (both are NotFound).
    want = r"/device:GPU:0 is not available" if BUILT else r"AddV2: no GPU kernel"
    with pytest.raises(of.NotFoundError, match=want):
        with of.device("/gpu:0"):
            of.add(x, x)
    with pytest.raises(of.NotFoundError, match=r"/device:GPU:0 is not available"):
        with of.device("/gpu:0"):
            of.constant([1.0])
    assert of.config.list_physical_devices("GPU") == []
    assert of.config.list_physical_devices() == ["/physical_device:CPU:0"]


def test_gpu_index_out_of_range_is_not_found():
    with pytest.raises(of.NotFoundError, match=r"/device:GPU:97 is not available"):
        of.constant([1.0]).to("/gpu:97")


def test_no_kernel_for_device_lists_devices_with_one():
    # Range has CPU kernels only: on a GPU it is NotFound naming where it can run, whether or
    # not this machine has a GPU (the kernel is looked up before the device).
    start, limit, delta = of.constant(0), of.constant(5), of.constant(1)
    with pytest.raises(of.NotFoundError) as e:
        with of.device("/gpu:0"):
            of.raw_ops.Range(start=start, limit=limit, delta=delta)
    msg = str(e.value)
    assert "Range: no GPU kernel for Tidx=int32" in msg
    assert "devices with a kernel for it: CPU" in msg
    assert "registered kernels: CPU:" in msg


def test_backend_report_names_each_library():
    assert len(devices.load_report) == len(BUILT) or (HAS_GPU and devices.load_report)
    for line in devices.load_report:
        assert any(name in line for name in BUILT), line
        assert "not loaded" not in line and "not an opforge GPU backend" not in line, line


@pytest.mark.skipif(not BUILT, reason="no GPU backend library in this build")
def test_backend_kernels_registered():
    """The backend's kernels are registered (and listed) even without a GPU, so the build can
    be checked here: the spine ops have GPU kernels with the dtypes they should have."""
    assert of.config.gpu_backend() in ("CUDA", "HIP")
    for op in ("AddV2", "Mul", "Sum", "Mean", "Max", "Transpose", "Cast", "Fill", "Reshape", "Relu"):
        assert "GPU" in _C.kernel_devices(op), op
    assert "GPU: bfloat16, float16, float32, float64, int32, int64" in _C.kernels("AddV2")
    assert "GPU" not in _C.kernel_devices("Range")
    if of.config.gpu_backend() == "CUDA":
        assert "GPU: bfloat16, float16, float32, float64" in _C.kernels("MatMul")


@pytest.mark.skipif(not BUILT or HAS_GPU, reason="checks the reason given without a GPU")
def test_no_device_reason_names_the_failing_call():
    # The backend asked the driver and says which call failed and why (typed, named).
    reason = _C.gpu_unavailable_reason()
    assert reason.startswith(("CUDA: ", "HIP: ")), reason
    assert "GetDeviceCount" in reason, reason


def test_hip_matmul_note_in_not_found():
    if of.config.gpu_backend() != "HIP":
        pytest.skip("the HIP backend is not the one loaded")
    with pytest.raises(of.NotFoundError, match="no hipBLAS"):
        with of.device("/gpu:0"):
            of.raw_ops.MatMul(a=of.constant(np.eye(2, dtype=np.float32)), b=of.constant(np.eye(2, dtype=np.float32)))


def test_gpu_backend_can_be_disabled(tmp_path):
    import subprocess
    import sys
    code = "import opforge as of; print(of.config.gpu_backend(), of.config.num_gpus())"
    env = dict(os.environ, OPFORGE_GPU_BACKEND="none")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["None", "0"]
