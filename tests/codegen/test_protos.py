"""The proto schemas (proto/) and what codegen makes of them (codegen/protos.py, codegen/_proto.py).

- Golden: a tiny schema (tests/data/golden/proto/: files in two folders, a public import, a
  service with its gRPC stubs, a well-known type) compiled into a Python package and into the C++ field-number header must match, file by file,
  tests/data/golden/proto_expected/<path>.golden (OPFORGE_UPDATE_GOLDEN=1 rewrites them).
- The committed package: every module is loaded through codegen/_proto.py into opforge's own
  descriptor pool, beside TensorFlow's modules; opforge.OpDef carries tensorflow.OpDef's fields
  unchanged; where TensorFlow is installed, each message has TensorFlow's field names, numbers
  and types, and bytes written by one parse in the other.
- `opforge generate --protos` writes and checks generated/proto (drift, stale modules).
- Each diagnostic: no or another grpcio-tools, a .proto error, no .proto files, protoc output of
  an unexpected shape, an unknown message, two fields with one constant name, a bad --protos.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import importlib.util
import os
import subprocess
import sys

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool

from codegen import _proto, protos
from codegen.emit import proto_fields as emit_proto_fields

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
GOLDEN_PROTO = os.path.join(GOLDEN, "proto")
EXPECTED = os.path.join(GOLDEN, "proto_expected")
SUFFIX = ".golden"
UPDATE = os.environ.get("OPFORGE_UPDATE_GOLDEN") == "1"
GOLDEN_MESSAGES = ("demo.Record", "demo.Record.Entry", "demo.Part")

EXPECTED_FILES = [
    "cpp/proto_fields.h",
    "proto/__init__.py",
    "proto/demo/__init__.py",
    "proto/demo/record_pb2.py",
    "proto/demo/record_pb2.pyi",
    "proto/demo/service_pb2.py",
    "proto/demo/service_pb2.pyi",
    "proto/demo/service_pb2_grpc.py",
    "proto/other/__init__.py",
    "proto/other/part_pb2.py",
    "proto/other/part_pb2.pyi",
]


def codegen_cli(*args):
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


# ---- golden


@pytest.fixture(scope="module")
def golden():
    compiled = protos.compile_protos(GOLDEN_PROTO)
    files = dict(compiled.files)
    pool = protos.pool_from_descriptor_set(compiled.descriptor_set)
    files.update(emit_proto_fields.emit(protos.wire_messages(pool, GOLDEN_MESSAGES)))
    if UPDATE:
        for rel, text in files.items():
            path = os.path.join(EXPECTED, rel + SUFFIX)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
    return files


def test_golden_renders_every_file(golden):
    assert sorted(golden) == EXPECTED_FILES


@pytest.mark.parametrize("rel", EXPECTED_FILES)
def test_matches_golden(golden, rel):
    path = os.path.join(EXPECTED, rel + SUFFIX)
    assert os.path.exists(path), f"missing {path}; run with OPFORGE_UPDATE_GOLDEN=1"
    with open(path, encoding="utf-8", newline="") as f:
        want = f.read()
    if golden[rel] != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), golden[rel].splitlines(True),
                                            f"expected/{rel}", f"rendered/{rel}"))
        pytest.fail(f"{rel} differs from its golden file (OPFORGE_UPDATE_GOLDEN=1 rewrites it):\n{diff}")


def test_golden_is_deterministic(golden):
    again = protos.compile_protos(GOLDEN_PROTO)
    assert {rel: text for rel, text in golden.items() if rel.startswith("proto/")} == again.files


def test_golden_package_loads_under_any_name_into_its_own_pool(golden, tmp_path):
    for rel, text in golden.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    name = "golden_protos_under_test"
    spec = importlib.util.spec_from_file_location(name, tmp_path / "proto" / "__init__.py",
                                                  submodule_search_locations=[str(tmp_path / "proto")])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
        record_pb2 = importlib.import_module(f"{name}.demo.record_pb2")
        part_pb2 = importlib.import_module(f"{name}.other.part_pb2")
        assert record_pb2.Part is part_pb2.Part  # the public import re-exports
        assert record_pb2.Record.__module__ == f"{name}.demo.record_pb2"
        assert record_pb2.DESCRIPTOR.pool is package.POOL
        with pytest.raises(KeyError):
            descriptor_pool.Default().FindFileByName("demo/record.proto")
        service_pb2 = importlib.import_module(f"{name}.demo.service_pb2")
        service_grpc = importlib.import_module(f"{name}.demo.service_pb2_grpc")
        assert service_grpc.demo_dot_record__pb2 is record_pb2  # relative imports
        assert hasattr(service_grpc, "RecordsStub") and hasattr(service_grpc, "add_RecordsServicer_to_server")
        lookup = service_pb2.Lookup()
        lookup.index.value = 3  # google.protobuf.Int64Value, from the package's own pool
        assert service_pb2.Lookup.FromString(lookup.SerializeToString()).index.value == 3
        r = record_pb2.Record(masked_crc=7)
        r.entry.add(tag="a", simple_value=1.5)
        r.entry.add(tag="b").part.bucket_limit.extend([1.0, 2.0])
        assert record_pb2.Record.FromString(r.SerializeToString()) == r
    finally:
        for m in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[m]


def test_header_constants_follow_the_schema(golden):
    """Every field of the named messages, k<Message path><Field>Field = its number."""
    header = golden["cpp/proto_fields.h"]
    assert "constexpr uint32_t kRecordEntryField = 1;  // repeated Entry entry" in header
    assert "constexpr uint32_t kRecordMaskedCrcField = 6;  // fixed32 masked_crc" in header
    assert "constexpr uint32_t kRecordEntrySimpleValueField = 2;  // float simple_value" in header
    assert "constexpr uint32_t kRecordEntryPartField = 5;  // Part part" in header
    assert "constexpr uint32_t kPartBucketLimitField = 6;  // repeated double bucket_limit" in header


# ---- the committed package


def _pb2_modules_on_disk() -> list[str]:
    found = []
    for root, _, files in os.walk(_proto.ROOT):
        for f in files:
            if f.endswith("_pb2.py"):
                rel = os.path.relpath(os.path.join(root, f), _proto.ROOT)
                found.append(rel[:-3].replace(os.sep, "."))
    return sorted(found)


def test_every_module_is_loaded_through_codegen_proto():
    modules = _pb2_modules_on_disk()
    assert "tensorflow.core.framework.graph_pb2" in modules
    for dotted in modules:
        module = sys.modules[f"{_proto.PACKAGE}.{dotted}"]
        assert getattr(_proto, dotted.rsplit(".", 1)[1]) is module, dotted
        assert module.DESCRIPTOR.pool is _proto.POOL


def test_schemas_use_tensorflows_file_names_and_package():
    for dotted in _pb2_modules_on_disk():
        fd = sys.modules[f"{_proto.PACKAGE}.{dotted}"].DESCRIPTOR
        assert fd.name == dotted[: -len("_pb2")].replace(".", "/") + ".proto"
        want = ("opforge" if dotted.startswith("opforge.") else
                "tensorflow.serving" if dotted.startswith("tensorflow_serving.") else
                "tensorflow.error" if dotted.endswith("error_codes_pb2") else "tensorflow")
        assert fd.package == want, fd.name


def test_grpc_stubs_only_for_files_with_services():
    stubs = []
    for root, _, files in os.walk(_proto.ROOT):
        stubs += [os.path.relpath(os.path.join(root, f), _proto.ROOT) for f in files if f.endswith("_pb2_grpc.py")]
    assert sorted(stubs) == ["tensorflow_serving/apis/model_service_pb2_grpc.py",
                             "tensorflow_serving/apis/prediction_service_pb2_grpc.py"]
    stub = _proto.grpc_module("tensorflow_serving/apis/prediction_service")
    assert stub.tensorflow__serving_dot_apis_dot_predict__pb2 is _proto.predict_pb2


def _field_signature(f) -> tuple:
    return (f.name, f.number, f.type, f.is_repeated,
            f.message_type.full_name if f.message_type else None,
            f.enum_type.full_name if f.enum_type else None,
            f.containing_oneof.name if f.containing_oneof else None)


def test_opforge_opdef_has_tensorflow_opdefs_fields():
    """opforge.OpDef repeats tensorflow.OpDef's fields (proto3 cannot extend a message):
    same names, numbers and types, so opdef bytes parse as TensorFlow's OpDef."""
    ours = _proto.opdef_pb2.OpDef.DESCRIPTOR
    tfs = _proto.op_def_pb2.OpDef.DESCRIPTOR
    tf_fields = {f.number: _field_signature(f) for f in tfs.fields}
    our_fields = {f.number: _field_signature(f) for f in ours.fields if f.number < 100}
    assert our_fields == tf_fields
    op = _proto.opdef_pb2.OpDef(name="Cube", summary="x**3", shape_fn="unchanged(x)", is_stateful=True)
    op.input_arg.add(name="x", type_attr="T")
    op.attr.add(name="T", type="type")
    tf_op = _proto.op_def_pb2.OpDef.FromString(op.SerializeToString())
    assert (tf_op.name, tf_op.summary, tf_op.is_stateful) == ("Cube", "x**3", True)
    assert tf_op.input_arg[0].type_attr == "T" and tf_op.attr[0].type == "type"


def test_wire_compatible_with_tensorflows_own_schemas():
    """Each message and enum here is TensorFlow's (same full name), and each of its fields has
    TensorFlow's name, number, type and repetition: what one writes, the other reads."""
    pytest.importorskip("tensorflow")  # registers TensorFlow's modules
    import tensorflow.core.example.example_pb2  # noqa: F401,PLC0415
    import tensorflow.core.protobuf.config_pb2  # noqa: F401,PLC0415
    import tensorflow.core.protobuf.meta_graph_pb2  # noqa: F401,PLC0415
    import tensorflow.core.protobuf.tensor_bundle_pb2  # noqa: F401,PLC0415
    import tensorflow.core.util.event_pb2  # noqa: F401,PLC0415
    import tensorflow.python.training.checkpoint_state_pb2  # noqa: F401,PLC0415

    try:  # TensorFlow Serving's schemas too, where tensorflow-serving-api is installed
        # (its *_service_pb2 modules are written for an older protobuf; the messages load)
        import tensorflow_serving.apis.classification_pb2  # noqa: F401,PLC0415
        import tensorflow_serving.apis.get_model_metadata_pb2  # noqa: F401,PLC0415
        import tensorflow_serving.apis.get_model_status_pb2  # noqa: F401,PLC0415
        import tensorflow_serving.apis.model_management_pb2  # noqa: F401,PLC0415
        import tensorflow_serving.apis.predict_pb2  # noqa: F401,PLC0415
        import tensorflow_serving.apis.regression_pb2  # noqa: F401,PLC0415
        serving = True
    except ImportError:
        serving = False
    try:
        import tensorflow_serving.servables.tensorflow.session_bundle_config_pb2  # noqa: F401,PLC0415
    except ImportError:  # not in the tensorflow-serving-api wheel
        pass

    tf_pool = descriptor_pool.Default()
    checked = 0
    # Kept as bytes here where TensorFlow has a message opforge does not model (the same wire type).
    opaque = {"tensorflow.TensorProto.variant_val": "tensorflow.VariantTensorDataProto",
              "tensorflow.CollectionDef.AnyList.value": "google.protobuf.Any"}

    def compare(ours):
        nonlocal checked
        theirs = tf_pool.FindMessageTypeByName(ours.full_name)
        assert theirs.file.name == ours.file.name, ours.full_name
        for f in ours.fields:
            g = theirs.fields_by_number.get(f.number)
            assert g is not None, f"{ours.full_name}.{f.name}: TensorFlow has no field {f.number}"
            if f.full_name in opaque:
                assert (f.type, g.message_type.full_name) == (f.TYPE_BYTES, opaque[f.full_name])
                assert (f.name, f.is_repeated) == (g.name, g.is_repeated)
            else:
                assert _field_signature(f) == _field_signature(g), f"{ours.full_name}.{f.name}"
            checked += 1
        for e in ours.enum_types:
            their_values = {v.name: v.number for v in theirs.enum_types_by_name[e.name].values}
            assert {v.name: v.number for v in e.values}.items() <= their_values.items(), e.full_name
        for nested in ours.nested_types:
            compare(nested)

    for dotted in _pb2_modules_on_disk():
        fd = sys.modules[f"{_proto.PACKAGE}.{dotted}"].DESCRIPTOR
        if fd.package != "tensorflow" and not (serving and fd.package in ("tensorflow.serving", "tensorflow.error")):
            continue
        if fd.name in ("tensorflow_serving/servables/tensorflow/session_bundle_config.proto",
                       "tensorflow_serving/apis/prediction_service.proto",
                       "tensorflow_serving/apis/model_service.proto"):
            continue  # not in the wheel / services only (the gRPC test in tests/serving calls them)
        for m in fd.message_types_by_name.values():
            compare(m)
        for e in fd.enum_types_by_name.values():
            their_values = {v.name: v.number for v in tf_pool.FindEnumTypeByName(e.full_name).values}
            assert {v.name: v.number for v in e.values}.items() <= their_values.items(), e.full_name
    assert checked > 250

    from tensorflow.core.framework import summary_pb2 as tf_summary_pb2  # noqa: PLC0415
    s = _proto.summary_pb2.Summary()
    s.value.add(tag="loss", simple_value=0.5)
    s.value.add(tag="w").histo.bucket_limit.extend([0.0, 1.0])
    assert tf_summary_pb2.Summary.FromString(s.SerializeToString()).value[1].histo.bucket_limit == [0.0, 1.0]
    back = _proto.summary_pb2.Summary.FromString(tf_summary_pb2.Summary.FromString(s.SerializeToString())
                                                 .SerializeToString())
    assert back == s


# ---- opforge generate --protos


def test_generate_writes_and_checks_the_package(tmp_path):
    out = tmp_path / "out"
    proc = codegen_cli("generate", "--opdefs", os.path.join(ROOT, "opdefs"), "--out", str(out),
                       "--protos", os.path.join(ROOT, "proto"))
    assert proc.returncode == 0, proc.stderr
    for rel in ("proto/__init__.py", "proto/tensorflow/core/framework/graph_pb2.py",
                "proto/opforge/opdef_pb2.pyi", "cpp/proto_fields.h"):
        with open(out / rel, "rb") as got, open(os.path.join(ROOT, "generated", rel), "rb") as committed:
            assert got.read() == committed.read(), rel
    graph = out / "proto" / "tensorflow" / "core" / "framework" / "graph_pb2.py"
    graph.write_text(graph.read_text() + "# edited by hand\n")
    (out / "proto" / "op_def_pb2.py").write_text("# a module no .proto produces\n")
    proc = codegen_cli("generate", "--opdefs", os.path.join(ROOT, "opdefs"), "--out", str(out),
                       "--protos", os.path.join(ROOT, "proto"), "--check")
    assert proc.returncode == 1
    assert "proto/tensorflow/core/framework/graph_pb2.py (would change)" in proc.stdout
    assert "proto/op_def_pb2.py (stale, would be removed)" in proc.stdout


def test_generate_rejects_a_missing_protos_dir(tmp_path):
    proc = codegen_cli("generate", "--out", str(tmp_path), "--protos", str(tmp_path / "nope"))
    assert proc.returncode == 2
    assert f"opforge generate: --protos {tmp_path / 'nope'}: no such directory" in proc.stderr


def test_generate_reports_a_proto_error(tmp_path):
    (tmp_path / "bad.proto").write_text('syntax = "proto3";\nmessage X {\n  int32 a = 1;\n  int32 b = 1;\n}\n')
    proc = codegen_cli("generate", "--out", str(tmp_path / "out"), "--protos", str(tmp_path))
    assert proc.returncode == 2
    assert f"opforge generate: protoc failed on {tmp_path}:" in proc.stderr
    assert 'bad.proto:4:13: Field number 1 has already been used in "X" by field "a"' in proc.stderr
    assert not (tmp_path / "out").exists()


# ---- diagnostics


def test_no_grpcio_tools(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "version", missing)
    with pytest.raises(protos.ProtoError, match=r"compiling proto/ needs protoc from grpcio-tools==1\.85\.1 "
                                                 r"\(pip install grpcio-tools==1\.85\.1"):
        protos.compile_protos(GOLDEN_PROTO)


def test_another_grpcio_tools(monkeypatch):
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.80.0")
    with pytest.raises(protos.ProtoError, match=r"grpcio-tools 1\.80\.0 is installed; generated/proto comes "
                                                 r"from grpcio-tools==1\.85\.1"):
        protos.compile_protos(GOLDEN_PROTO)


def test_no_proto_files(tmp_path):
    with pytest.raises(protos.ProtoError, match="no .proto files under"):
        protos.compile_protos(str(tmp_path))


def test_protoc_output_of_another_shape():
    with pytest.raises(protos.ProtoError, match=r"protoc's output for demo/x_pb2.py has an unexpected shape"):
        protos._rewrite_module("demo/x_pb2.py", "# a module protoc did not write\n", set())


def test_unknown_wire_message():
    with pytest.raises(protos.ProtoError, match=r"message tensorflow\.Nope \(codegen/protos\.py WIRE_MESSAGES\) "
                                                 r"is in no file under proto/"):
        protos.wire_messages(_proto.POOL, ("tensorflow.Nope",))


def test_two_fields_with_one_constant_name():
    """A.b_c and A.B.c would both be kABCField."""
    fdp = descriptor_pb2.FileDescriptorProto(name="clash.proto", package="p", syntax="proto3")
    a = fdp.message_type.add(name="A")
    a.field.add(name="b_c", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    b = a.nested_type.add(name="B")
    b.field.add(name="c", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    with pytest.raises(protos.ProtoError, match=r"p\.A\.B\.c and p\.A\.b_c both map to kABCField"):
        protos.wire_messages(pool, ("p.A", "p.A.B"))
