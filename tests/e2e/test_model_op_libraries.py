"""Op libraries travelling with a model (opforge/ops/op_library_bundle.py), end to end.

A process loads the README's ZeroOut library, builds a graph with it and exports the libraries
the graph needs into a folder; a fresh process loads them back from there alone. Then what
must be refused before any library code runs (another ABI, a changed file, a damaged manifest)
and what must never be silently picked (two different libraries defining ZeroOut in one
process), while byte-identical copies are shared.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap

import numpy as np
import pytest

from tests.e2e.op_libraries import CMAKE, run_py

pytestmark = pytest.mark.skipif(CMAKE is None, reason="cmake is not installed (pip install '.[test]')")

EXPORT = """
    import os
    import numpy as np
    import opforge as of
    from opforge.ops import op_library_bundle as bundle

    lib = of.load_op_library(os.environ["LIB"])
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None], name="x")
        y = of.identity(lib.zero_out(x) * 2.0, name="y")
        plain = of.identity(x + 1.0, name="plain")
    gd = g.as_graph_def()
    with open(os.path.join(os.environ["OUT"], "graph.pb"), "wb") as f:
        f.write(gd.SerializeToString())
    written = bundle.export_op_libraries(gd, os.path.join(os.environ["OUT"], "libs"))
    print("written", written)
    # a graph of built-in ops only needs no library
    g2 = of.Graph()
    with g2.as_default():
        of.identity(of.constant([1.0]) + 1.0, name="z")
    assert bundle.export_op_libraries(g2.as_graph_def(), os.path.join(os.environ["OUT"], "none")) == []
    assert not os.path.exists(os.path.join(os.environ["OUT"], "none"))
"""


@pytest.fixture(scope="module")
def exported(libs, tmp_path_factory):
    out = tmp_path_factory.mktemp("exported")
    stdout = run_py(EXPORT, cwd=out, LIB=libs["zero_out"], OUT=str(out))
    assert "written ['zero_out']" in stdout
    return out


def test_export_writes_library_opdefs_and_manifest(exported, libs):
    folder = exported / "libs"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format"] == 1
    (entry,) = manifest["libraries"]
    assert entry["name"] == "zero_out" and entry["ops"] == ["ZeroOut"] and entry["file"] == "zero_out/zero_out.so"
    assert (folder / "zero_out" / "zero_out.so").read_bytes() == open(libs["zero_out"], "rb").read()
    opdef = (folder / "zero_out" / "opdefs" / "zero_out.pbtxt").read_text()
    assert 'name: "ZeroOut"' in opdef
    from opforge import _C
    assert entry["abi"] == _C.ABI_TAG


def test_fresh_process_loads_the_model_libraries_from_the_folder(exported):
    out = run_py("""
        import os
        import numpy as np
        import opforge as of
        from opforge.ops import op_library_bundle as bundle
        from opforge import _C

        assert _C.op_spec("ZeroOut") is None
        (module,) = bundle.load_op_libraries(os.path.join(os.environ["OUT"], "libs"), model="my model")
        assert module.LIBRARY == "zero_out"
        # loading the folder again shares what is loaded
        assert bundle.load_op_libraries(os.path.join(os.environ["OUT"], "libs")) == [module]
        gd = of.GraphDef()
        gd.ParseFromString(open(os.path.join(os.environ["OUT"], "graph.pb"), "rb").read())
        g = of.Graph()
        with g.as_default():
            of.import_graph_def(gd, name="")
        rng = np.random.default_rng(0)
        x = rng.standard_normal(7).astype(np.float32)
        with of.Session(graph=g) as sess:
            y = sess.run("y:0", {"x:0": x})
        want = np.zeros_like(x)
        want[0] = 2 * x[0]
        np.testing.assert_allclose(y, want)
        print("loaded ok")
    """, cwd=exported, OUT=str(exported))
    assert "loaded ok" in out


def _copy_folder(exported, tmp_path, name="libs"):
    dst = tmp_path / name
    shutil.copytree(exported / "libs", dst)
    return dst


def _edit_manifest(folder, **changes):
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["libraries"][0].update(changes)
    path.write_text(json.dumps(manifest))


REFUSE = """
    import os
    import opforge as of
    from opforge import _C
    from opforge.ops import op_library_bundle as bundle

    def refused(cls, folder, *words):
        before = tuple(_C.op_names())
        try:
            bundle.load_op_libraries(folder, model="model-x")
        except cls as e:
            msg = str(e)
            for w in words:
                assert w in msg, (w, msg)
            assert tuple(_C.op_names()) == before, "a refused library changed the registry"
            print("refused:", type(e).__name__, msg)
        else:
            raise AssertionError(f"{folder} loaded")
"""


def _refuse(code):
    return textwrap.dedent(REFUSE) + textwrap.dedent(code)


def test_refused_before_any_library_code_runs(exported, libs, tmp_path):
    other_abi = _copy_folder(exported, tmp_path, "other_abi")
    _edit_manifest(other_abi, abi="opforge-abi-999/test")
    changed = _copy_folder(exported, tmp_path, "changed")
    with open(changed / "zero_out" / "zero_out.so", "ab") as f:
        f.write(b"\0")
    missing = _copy_folder(exported, tmp_path, "missing")
    os.remove(missing / "zero_out" / "zero_out.so")
    damaged = _copy_folder(exported, tmp_path, "damaged")
    (damaged / "manifest.json").write_text("{not json")
    future = _copy_folder(exported, tmp_path, "future")
    manifest = json.loads((future / "manifest.json").read_text())
    manifest["format"] = 99
    (future / "manifest.json").write_text(json.dumps(manifest))
    # a library really built for another ABI, with a manifest that claims ours: the file's own
    # ABI tag is checked before it is opened
    lying = _copy_folder(exported, tmp_path, "lying")
    shutil.copyfile(libs["bad_abi"], lying / "zero_out" / "zero_out.so")
    import hashlib
    _edit_manifest(lying, sha256=hashlib.sha256((lying / "zero_out" / "zero_out.so").read_bytes()).hexdigest())

    out = run_py(_refuse("""
        d = os.environ
        refused(of.FailedPreconditionError, d["OTHER_ABI"], "model-x", "zero_out", "opforge-abi-999/test", _C.ABI_TAG)
        refused(of.FailedPreconditionError, d["CHANGED"], "model-x", "SHA-256")
        refused(of.NotFoundError, d["MISSING"], "model-x", "zero_out", "no file")
        refused(of.InvalidArgumentError, d["DAMAGED"], "model-x", "manifest")
        refused(of.InvalidArgumentError, d["FUTURE"], "model-x", "format 99")
        refused(of.FailedPreconditionError, d["LYING"], "incompatible opforge ABI", "opforge-abi-999/test")
        assert bundle.load_op_libraries(os.environ["EMPTY"]) == []  # no manifest: no libraries
        print("all refused")
    """), cwd=tmp_path, OTHER_ABI=str(other_abi), CHANGED=str(changed), MISSING=str(missing),
        DAMAGED=str(damaged), FUTURE=str(future), LYING=str(lying), EMPTY=str(tmp_path))
    assert "all refused" in out


def test_two_libraries_defining_one_op_are_never_silently_picked(exported, libs, tmp_path):
    out = run_py(_refuse("""
        import numpy as np
        d = os.environ
        # the model's zero_out first; a byte-identical copy of it (another model) is shared
        (first,) = bundle.load_op_libraries(d["A"], model="model-a")
        (again,) = bundle.load_op_libraries(d["A2"], model="model-a2")
        assert again is first
        # a different library defining ZeroOut: refused, naming both libraries
        refused(of.AlreadyExistsError, d["B"], "model-x", "zero_out_alt", "ZeroOut", "'zero_out'",
                d["A"])
        x = np.array([3.0, 1.0, 4.0], np.float32)
        assert first.zero_out(x).numpy().tolist() == [3.0, 0.0, 0.0]  # still the first one
        print("no silent pick")
    """), cwd=tmp_path, A=str(exported / "libs"), A2=str(_copy_folder(exported, tmp_path, "copy")),
        B=str(_alt_folder(libs, tmp_path)))
    assert "no silent pick" in out


def _alt_folder(libs, tmp_path):
    """A folder exported by a process that loaded zero_out_alt (another library defining ZeroOut)."""
    out = tmp_path / "alt_export"
    out.mkdir()
    stdout = run_py(EXPORT, cwd=out, LIB=libs["zero_out_alt"], OUT=str(out))
    assert "written ['zero_out_alt']" in stdout
    return out / "libs"


SAVED_MODEL_EXPORT = """
    import os
    import numpy as np
    import opforge as of
    import opforge.compat.v1 as tf

    lib = of.load_op_library(os.environ["LIB"])
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w = tf.Variable(np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32), name="w")
        y = tf.identity(lib.zero_out(tf.matmul(x, w)), name="y")
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, os.environ["EXPORT"], {"x": x}, {"y": y})
        np.save(os.environ["W"], sess.run(w))
    print("exported")
"""


@pytest.fixture(scope="module")
def saved_model(libs, tmp_path_factory):
    """A SavedModel (version folder 1 of a model base path) whose graph uses ZeroOut."""
    base = tmp_path_factory.mktemp("zero_out_model")
    export = base / "1"
    run_py(SAVED_MODEL_EXPORT, cwd=base, LIB=libs["zero_out"], EXPORT=str(export), W=str(base / "w.npy"))
    return base


def test_saved_model_carries_its_op_library(saved_model, libs):
    folder = saved_model / "1" / "assets.extra" / "opforge_op_libraries"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert [e["name"] for e in manifest["libraries"]] == ["zero_out"]
    assert (folder / "zero_out" / "zero_out.so").read_bytes() == open(libs["zero_out"], "rb").read()


def test_saved_model_with_a_custom_op_loads_with_nothing_but_its_path(saved_model):
    out = run_py("""
        import os
        import numpy as np
        import opforge as of
        import opforge.compat.v1 as tf
        from opforge import _C

        assert _C.op_spec("ZeroOut") is None  # never loaded in this process
        rng = np.random.default_rng(2)
        x = rng.standard_normal((5, 4)).astype(np.float32)
        full = x @ np.load(os.environ["W"])
        want = np.zeros_like(full).reshape(-1)
        want[0] = full.reshape(-1)[0]
        want = want.reshape(full.shape)
        with of.saved_model.load(os.environ["EXPORT"]) as model:
            got = model.signatures["serving_default"](x=x)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-5)
        # TF1's spelling, in another graph of the same process: the library is shared
        with tf.Graph().as_default(), tf.Session() as sess:
            meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], os.environ["EXPORT"])
            sig = meta.signature_def["serving_default"]
            got = sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: x})
        np.testing.assert_allclose(got, want, rtol=1e-5)
        print("served locally")
    """, cwd=saved_model, EXPORT=str(saved_model / "1"), W=str(saved_model / "w.npy"))
    assert "served locally" in out


def test_saved_model_with_a_library_for_another_abi_is_refused(saved_model, tmp_path):
    export = tmp_path / "other_abi"
    shutil.copytree(saved_model / "1", export)
    _edit_manifest(export / "assets.extra" / "opforge_op_libraries", abi="opforge-abi-999/test")
    out = run_py("""
        import os
        import opforge as of
        from opforge import _C
        try:
            of.saved_model.load(os.environ["EXPORT"])
        except of.FailedPreconditionError as e:
            msg = str(e)
            assert "SavedModel" in msg and os.environ["EXPORT"] in msg, msg
            assert "opforge-abi-999/test" in msg and _C.ABI_TAG in msg and "zero_out" in msg, msg
            assert _C.op_spec("ZeroOut") is None
            print("refused")
    """, cwd=tmp_path, EXPORT=str(export))
    assert "refused" in out


def test_opforge_serve_answers_a_custom_op_model_given_only_its_path(saved_model, tmp_path):
    """The deployment flow of the README: a model using ZeroOut, exported in one process, served
    by `opforge serve --model_base_path` (no op library flag), asked over REST and gRPC."""
    grpc = pytest.importorskip("grpc")
    from opforge.codegen._proto import predict_pb2
    from opforge.serving.tensors import array_from_proto, array_to_proto
    from tests.serving.serving_helpers import ServerProcess

    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    full = x @ np.load(saved_model / "w.npy")
    want = np.zeros_like(full)
    want.reshape(-1)[0] = full.reshape(-1)[0]

    server = ServerProcess(tmp_path, "--model_name=zero_out", f"--model_base_path={saved_model}")
    try:
        status, body = server.http("POST", "/v1/models/zero_out:predict", {"instances": x.tolist()})
        assert status == 200, body
        np.testing.assert_allclose(np.array(body["predictions"], np.float32), want, rtol=1e-5)
        status, body = server.http("GET", "/v1/models/zero_out")
        assert status == 200 and body["model_version_status"][0]["state"] == "AVAILABLE", body

        prediction, _ = server.stubs()
        req = predict_pb2.PredictRequest()
        req.model_spec.name = "zero_out"
        req.inputs["x"].CopyFrom(array_to_proto(x))
        resp = prediction.Predict(req, timeout=60)
        np.testing.assert_allclose(array_from_proto(resp.outputs["y"], "y"), want, rtol=1e-5)
        assert resp.model_spec.version.value == 1
        with pytest.raises(grpc.RpcError) as e:  # bad input still gets TF Serving's answer
            req.inputs["x"].CopyFrom(array_to_proto(np.ones((2, 5), np.float32)))
            prediction.Predict(req, timeout=60)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        assert server.terminate() == 0, server.read_log()
    log = server.read_log()
    assert "Traceback" not in log and "Logging error" not in log, log
    assert "REST server listening on 127.0.0.1:" in log and "unloaded" in log, log
