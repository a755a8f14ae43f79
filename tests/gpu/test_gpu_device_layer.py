"""The runtime's device layer, run on the CPU through a test double of a GPU backend whose
device memory is host memory (tests/gpu/data/host_gpu_backend.cc, compiled here against the
installed headers): placement rules, copies both ways, host-memory arguments, the caching
allocator, NotFound errors and the loader's choices. The real CUDA/HIP kernels are checked on
a GPU by test_gpu_ops.py."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CXX = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler")


@pytest.fixture(scope="module")
def backend_lib(tmp_path_factory):
    import opforge
    prefix = os.path.dirname(opforge._C.__file__)  # the install tree (editable: the build's)
    out = tmp_path_factory.mktemp("hostgpu") / "libhostgpu.so"
    cmd = [CXX, "-std=c++17", "-O1", "-shared", "-fPIC", f"-I{prefix}/include",
           os.path.join(HERE, "data", "host_gpu_backend.cc"), "-o", str(out),
           f"-L{prefix}/lib", "-lopforge_runtime", f"-Wl,-rpath,{prefix}/lib"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return str(out)


def run(lib, body, **env):
    """Runs `body` in a fresh interpreter with only the host test backend loaded."""
    code = textwrap.dedent("""
        import numpy as np, pytest
        import opforge as of
        from opforge import _C
        from opforge.framework import devices
        devices.load_report[:] = _C.load_gpu_backends([LIB])
    """).replace("LIB", repr(lib)) + textwrap.dedent(body)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(lib), env=dict(os.environ, OPFORGE_GPU_BACKEND="none", **env))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return r.stdout


def test_placement_copies_and_host_memory(backend_lib):
    run(backend_lib, r"""
        assert of.config.gpu_backend() == "HOSTGPU" and of.config.num_gpus() == 2
        assert of.config.list_physical_devices("GPU") == ["/physical_device:GPU:0", "/physical_device:GPU:1"]
        host = of.constant(np.array([1.0, 2.0, 3.0], np.float32))
        x = host.gpu()
        assert x.device == "/device:GPU:0" and host.device == "/device:CPU:0"
        np.testing.assert_array_equal(x.numpy(), [1, 2, 3])           # copied back
        assert x.to("/gpu:0")._shares_buffer_with(x) and not x.to("/gpu:1")._shares_buffer_with(x)

        y = x + x                                                      # no scope: where its input is
        assert y.device == "/device:GPU:0"
        np.testing.assert_array_equal(y.numpy(), [2, 4, 6])
        z = of.add(x, host)                                            # the CPU input is copied over
        assert z.device == "/device:GPU:0"
        with of.device("/gpu:1"):
            w = of.add(host, host)                                     # both copied to GPU:1
            c = of.constant([5.0])
        assert w.device == "/device:GPU:1" and c.device == "/device:GPU:1"
        with of.device("/cpu:0"):
            v = of.add(x, x)                                           # copied back to the CPU
        assert v.device == "/device:CPU:0"
        np.testing.assert_array_equal(v.numpy(), [2, 4, 6])

        # Reshape's shape and Shape's output are host memory; the kernels check it.
        with of.device("/gpu:0"):
            r = of.reshape(x, of.constant(np.array([3, 1], np.int32)))
        assert r.device == "/device:GPU:0" and r._shares_buffer_with(x) and r.shape == (3, 1)
        s = of.raw_ops.Shape(input=x)
        assert s.device == "/device:CPU:0" and s.numpy().tolist() == [3]

        with of.device("/gpu:1"):
            var = of.Variable(np.array([1.0, 2.0], np.float32))       # variables follow the scope
        assert var.device == "/device:GPU:1"
        var.assign_add(of.constant([1.0, 1.0]).to("/gpu:1"))
        assert var.read_value().device == "/device:GPU:1"
        np.testing.assert_array_equal(var.numpy(), [2, 3])
    """)


def test_not_found_errors(backend_lib):
    run(backend_lib, r"""
        x = of.constant(np.array([1.0, 2.0], np.float32)).gpu()
        with pytest.raises(of.NotFoundError) as e:
            of.sub(x, x)                                              # no GPU Sub in this backend
        msg = str(e.value)
        assert "Sub: no GPU kernel for T=float32" in msg and "devices with a kernel for it: CPU" in msg, msg
        with pytest.raises(of.NotFoundError, match="no GPU kernel for T=float64"):
            of.add(of.constant([1.0], dtype=of.float64).gpu(), of.constant([1.0], dtype=of.float64).gpu())
        m = of.constant(np.eye(2, dtype=np.float32)).gpu()
        with pytest.raises(of.NotFoundError, match="the host test backend has no GEMM"):
            of.mat_mul(m, m)
        with pytest.raises(of.NotFoundError, match=r"/device:GPU:2 is not available: this machine has 2 GPUs"):
            x.to("/gpu:2")
        with pytest.raises(of.NotFoundError, match=r"/device:GPU:5 is not available"):
            with of.device("/gpu:5"):
                of.add(x, x)
        with of.device("/gpu:0"):
            f = of.fill([2, 2], 3.0)                                  # dims and value stay on the host
            assert f.device == "/device:GPU:0" and f.numpy().tolist() == [[3, 3], [3, 3]]
            with pytest.raises(of.ResourceExhaustedError, match=r"hostMalloc\(549755813888 bytes\)"):
                of.fill([1 << 37], 0.0)                               # the backend's error, typed
            f = of.fill([2], 1.0)                                     # and the device still works
        assert f.numpy().tolist() == [1, 1]
        assert of._C.kernels("NoSuchOpForTest") == "none"            # dropped: no such op
        assert "GPU: float32, int32" in of._C.kernels("AddV2")
    """)


def test_caching_allocator(backend_lib):
    run(backend_lib, r"""
        x = of.constant(np.ones(100000, np.float32)).gpu()
        for _ in range(3):
            x = x + x
        stats = of.config.memory_stats("/gpu:0")
        for _ in range(50):
            x = x + x                                                 # freed blocks are reused
        after = of.config.memory_stats("/gpu:0")
        assert after["raw_allocs"] == stats["raw_allocs"], (stats, after)
        assert after["in_use"] >= 400000 and after["cached"] > 0, after
        del x
        freed = of.config.memory_stats("/gpu:0")
        assert freed["in_use"] == 0, freed
        of.config.empty_cache()
        assert of.config.memory_stats("/gpu:0")["cached"] == 0
    """)


def test_backend_without_devices(backend_lib):
    run(backend_lib, r"""
        assert of.config.gpu_backend() == "HOSTGPU" and of.config.num_gpus() == 0
        assert "GPU" in of._C.kernel_devices("AddV2")                 # listed: the build can be checked
        with pytest.raises(of.NotFoundError, match="no GPU .HOSTGPU: hostGetDeviceCount found no device"):
            of.constant([1.0]).gpu()
        assert "0 device(s)" in devices.load_report[0]
    """, HOSTGPU_DEVICES="0")


def test_session_places_nodes_softly(backend_lib):
    run(backend_lib, r"""
        g = of.Graph()
        with g.as_default():
            a = of.placeholder(of.float32, [3])
            with of.device("/gpu:0"):
                b = a + a                                 # AddV2 has a GPU kernel: runs there
                c = of.sub(b, a)                          # Sub has none here: the CPU (soft placement)
                d = of.reshape(b, [3, 1])                 # shape input stays on the host
            with of.device("/gpu:7"):
                e = a + a                                 # no such GPU: the CPU
        with of.Session(graph=g) as sess:
            before = of.config.memory_stats("/gpu:0")["raw_allocs"]
            out = sess.run([b, c, d, e], {a: np.array([1.0, 2.0, 3.0], np.float32)})
            assert of.config.memory_stats("/gpu:0")["raw_allocs"] > before   # GPU memory was used
        np.testing.assert_array_equal(out[0], [2, 4, 6])
        np.testing.assert_array_equal(out[1], [1, 2, 3])
        np.testing.assert_array_equal(out[2], [[2], [4], [6]])
        np.testing.assert_array_equal(out[3], [2, 4, 6])
    """)


def test_graph_runs_move_only_feeds_and_fetches(backend_lib):
    run(backend_lib, r"""
        def run_counting(sess, fetch, feeds):
            before = of.config.memory_stats("/gpu:0")
            out = sess.run(fetch, feeds)
            after = of.config.memory_stats("/gpu:0")
            return out, (after["copies_to_device"] - before["copies_to_device"],
                         after["copies_to_host"] - before["copies_to_host"])

        g = of.Graph()
        with g.as_default():
            x = of.placeholder(of.float32, [3], name="x")
            with of.device("/gpu:0"):
                w = of.constant(np.array([1.0, 2.0, 3.0], np.float32), name="w")
                c = of.add(w, w, name="c")                # constant: the optimizer folds it
                y = of.add(x, w, name="y")
                z = of.add(y, c, name="z")
                r = of.reshape(z, [3, 1], name="r")      # its shape constant is read on the host
        feed = np.array([0.5, 1.0, 1.5], np.float32)
        want = [[3.5], [7.0], [10.5]]
        for optimize in (False, True):
            config = None if optimize else {"disable_meta_optimizer": True}
            with of.Session(graph=g, config=config) as sess:
                sess.run(r, {x: feed})                   # the first run makes the plan
                out, copies = run_counting(sess, r, {x: feed})
                if optimize:
                    assert sess._optimized_graph_defs()  # an optimized graph ran
            np.testing.assert_array_equal(out, want)
            # The fed batch goes in and the fetch comes back; the weights were copied to the
            # device once, when the plan was made (the optimized graph keeps its devices).
            assert copies == (1, 1), (optimize, copies)

        # A device a GraphDef names is kept on import; a device scope fills the others.
        gd = g.as_graph_def()
        g2 = of.Graph()
        with g2.as_default():
            of.import_graph_def(gd, name="")
        assert g2.get_operation_by_name("y").device == "/gpu:0"
        assert g2.get_operation_by_name("x").device == ""
        for nd in gd.node:
            nd.device = ""
        g3 = of.Graph()
        with g3.as_default():
            with of.device("/gpu:0"):
                of.import_graph_def(gd, name="")
        assert g3.get_operation_by_name("x").device == "/gpu:0"
    """)
