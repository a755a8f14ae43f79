"""The Python modules of the proto schemas: the one way codegen and the opforge package import them.

proto/ holds TensorFlow's .proto files under TensorFlow's file names and package (`tensorflow`)
plus opforge's opdef extension (proto/opforge/opdef.proto); `opforge generate` compiles them
with protoc into the package generated/proto/ (codegen/protos.py), committed like every other
generated file. The same relative layout holds in the source tree (codegen/ beside generated/)
and in the installed package (opforge/codegen beside opforge/generated), so the package is
found by path and loaded once, under the fixed name PACKAGE: codegen runs without the opforge
package (at build time, before the runtime exists), and the opforge package imports the modules
from here (`from ..codegen._proto import graph_pb2`), never by a second path.

The modules register their descriptors in POOL, opforge's own descriptor pool, not protobuf's
default one: TensorFlow's own modules register the same file and message names there, and both
must load in one process (the tests compare opforge with TensorFlow).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

PACKAGE = "opforge_proto"
ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "generated", "proto")


def _load_package():
    if PACKAGE in sys.modules:
        return sys.modules[PACKAGE]
    spec = importlib.util.spec_from_file_location(PACKAGE, os.path.join(ROOT, "__init__.py"),
                                                  submodule_search_locations=[ROOT])
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    try:
        spec.loader.exec_module(package)
    except BaseException:
        del sys.modules[PACKAGE]
        raise
    return package


def _module(path: str):
    """The module compiled from proto/<path>.proto, e.g. "tensorflow/core/framework/graph"."""
    return importlib.import_module(f"{PACKAGE}.{path.replace('/', '.')}_pb2")


POOL = _load_package().POOL

# TensorFlow's schemas, each module named as TensorFlow names it (tensorflow.core.framework.graph_pb2).
types_pb2 = _module("tensorflow/core/framework/types")
tensor_shape_pb2 = _module("tensorflow/core/framework/tensor_shape")
resource_handle_pb2 = _module("tensorflow/core/framework/resource_handle")
tensor_pb2 = _module("tensorflow/core/framework/tensor")
attr_value_pb2 = _module("tensorflow/core/framework/attr_value")
full_type_pb2 = _module("tensorflow/core/framework/full_type")
op_def_pb2 = _module("tensorflow/core/framework/op_def")
versions_pb2 = _module("tensorflow/core/framework/versions")
node_def_pb2 = _module("tensorflow/core/framework/node_def")
function_pb2 = _module("tensorflow/core/framework/function")
graph_pb2 = _module("tensorflow/core/framework/graph")
allocation_description_pb2 = _module("tensorflow/core/framework/allocation_description")
tensor_description_pb2 = _module("tensorflow/core/framework/tensor_description")
step_stats_pb2 = _module("tensorflow/core/framework/step_stats")
tensor_slice_pb2 = _module("tensorflow/core/framework/tensor_slice")
variable_pb2 = _module("tensorflow/core/framework/variable")
histogram_pb2 = _module("xla/tsl/protobuf/histogram")
summary_pb2 = _module("tensorflow/core/framework/summary")
event_pb2 = _module("tensorflow/core/util/event")
rewriter_config_pb2 = _module("tensorflow/core/protobuf/rewriter_config")
config_pb2 = _module("tensorflow/core/protobuf/config")
cluster_pb2 = _module("tensorflow/core/protobuf/cluster")
tensorflow_server_pb2 = _module("tensorflow/core/protobuf/tensorflow_server")
saver_pb2 = _module("tensorflow/core/protobuf/saver")
trackable_object_graph_pb2 = _module("tensorflow/core/protobuf/trackable_object_graph")
saved_object_graph_pb2 = _module("tensorflow/core/protobuf/saved_object_graph")
meta_graph_pb2 = _module("tensorflow/core/protobuf/meta_graph")
saved_model_pb2 = _module("tensorflow/core/protobuf/saved_model")
tensor_bundle_pb2 = _module("tensorflow/core/protobuf/tensor_bundle")
checkpoint_state_pb2 = _module("tensorflow/python/training/checkpoint_state")
feature_pb2 = _module("tensorflow/core/example/feature")
example_pb2 = _module("tensorflow/core/example/example")
error_codes_pb2 = _module("xla/tsl/protobuf/error_codes")

# TensorFlow Serving's schemas (package tensorflow.serving), for `opforge serve`; the services'
# gRPC stubs are the *_pb2_grpc modules (they need grpcio).
model_pb2 = _module("tensorflow_serving/apis/model")
predict_pb2 = _module("tensorflow_serving/apis/predict")
get_model_metadata_pb2 = _module("tensorflow_serving/apis/get_model_metadata")
input_pb2 = _module("tensorflow_serving/apis/input")
classification_pb2 = _module("tensorflow_serving/apis/classification")
regression_pb2 = _module("tensorflow_serving/apis/regression")
status_pb2 = _module("tensorflow_serving/apis/status")
get_model_status_pb2 = _module("tensorflow_serving/apis/get_model_status")
file_system_storage_path_source_pb2 = _module("tensorflow_serving/config/file_system_storage_path_source")
model_server_config_pb2 = _module("tensorflow_serving/config/model_server_config")
model_management_pb2 = _module("tensorflow_serving/apis/model_management")
session_bundle_config_pb2 = _module("tensorflow_serving/servables/tensorflow/session_bundle_config")
prediction_service_pb2 = _module("tensorflow_serving/apis/prediction_service")
model_service_pb2 = _module("tensorflow_serving/apis/model_service")


def grpc_module(path: str):
    """The gRPC stubs of proto/<path>.proto (e.g. "tensorflow_serving/apis/prediction_service"):
    imported on demand, since they need grpcio."""
    return importlib.import_module(f"{PACKAGE}.{path.replace('/', '.')}_pb2_grpc")

# opforge's opdef schema: tensorflow.OpDef's fields plus opforge's (what opdef files are).
opdef_pb2 = _module("opforge/opdef")
