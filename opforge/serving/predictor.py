"""Requests in TensorFlow Serving's terms, whatever the transport: Predict, Classify, Regress,
GetModelMetadata and GetModelStatus over NumPy arrays and the tensorflow.serving protos. The
gRPC and REST services decode their requests, call these and encode the answers; the errors
are opforge.errors exceptions with TensorFlow Serving's codes and messages."""

from __future__ import annotations

import contextlib

import numpy as np

from ..codegen._proto import (
    classification_pb2,
    example_pb2,
    get_model_metadata_pb2,
    get_model_status_pb2,
    regression_pb2,
    model_pb2,
)
from ..framework.errors import InvalidArgumentError
from .manager import ModelManager
from .servable import DEFAULT_SIGNATURE, ServableVersion, check_feeds, check_output_filter

PREDICT_METHOD = "tensorflow/serving/predict"
CLASSIFY_METHOD = "tensorflow/serving/classify"
REGRESS_METHOD = "tensorflow/serving/regress"
CLASSIFY_INPUTS, CLASSIFY_CLASSES, CLASSIFY_SCORES = "inputs", "classes", "scores"
REGRESS_INPUTS, REGRESS_OUTPUTS = "inputs", "outputs"

_STATE = get_model_status_pb2.ModelVersionStatus.State


@contextlib.contextmanager
def held(manager: ModelManager, name: str, version: int | None = None, label: str | None = None):
    """The servable a request means, held while the request runs (its version is not unloaded
    under it)."""
    if not name:
        raise InvalidArgumentError("Missing ModelSpec name")
    servable = manager.acquire(name, version, label)
    try:
        yield servable
    finally:
        servable.release()


def spec_of(model_spec) -> tuple[str, int | None, str | None, str]:
    """(name, version, label, signature name) of a ModelSpec proto."""
    choice = model_spec.WhichOneof("version_choice")
    version = model_spec.version.value if choice == "version" else None
    label = model_spec.version_label if choice == "version_label" else None
    return model_spec.name, version, label, model_spec.signature_name or DEFAULT_SIGNATURE


def answered_spec(servable: ServableVersion, signature_name: str | None):
    """The ModelSpec of an answer: the model and version that answered."""
    spec = model_pb2.ModelSpec(name=servable.name, signature_name=signature_name or "")
    spec.version.value = servable.version
    return spec


def predict(servable: ServableVersion, signature, feeds: dict[str, np.ndarray], output_filter=(),
            deadline: float | None = None) -> dict[str, np.ndarray]:
    check_feeds(signature, feeds)
    keys = check_output_filter(signature, output_filter)
    return servable.run(signature, feeds, keys, deadline)


# ---------------------------------------------------------------------- Classify / Regress


def serialized_examples(input_proto) -> np.ndarray:
    """The tf.Examples of an Input as the string tensor a classify/regress signature takes; with
    a context, each example is merged with it (context first, as TensorFlow Serving does)."""
    kind = input_proto.WhichOneof("kind")
    if kind == "example_list":
        serialized = [e.SerializeToString() for e in input_proto.example_list.examples]
    elif kind == "example_list_with_context":
        ctx = input_proto.example_list_with_context.context.SerializeToString()
        serialized = [ctx + e.SerializeToString() for e in input_proto.example_list_with_context.examples]
    else:
        serialized = []
    if not serialized:
        raise InvalidArgumentError("Input is empty.")
    arr = np.empty(len(serialized), dtype=object)
    arr[:] = serialized
    return arr


def _check_method(signature, method: str, what: str) -> None:
    if signature.method_name != method:
        raise InvalidArgumentError(f"Expected {what} signature method_name to be {method}. "
                                   f"Was: {signature.method_name}")


def _examples_feeds(signature, input_proto, what: str) -> dict[str, np.ndarray]:
    if set(signature.inputs) != {CLASSIFY_INPUTS}:
        raise InvalidArgumentError(f"Expected one input Tensor '{CLASSIFY_INPUTS}' in the {what} "
                                   f"signature, got {sorted(signature.inputs)}")
    return {CLASSIFY_INPUTS: serialized_examples(input_proto)}


def _batch_of(arr: np.ndarray, n: int, key: str) -> np.ndarray:
    if arr.ndim == 1:
        arr = arr.reshape(n, -1) if arr.shape[0] == n else arr
    if arr.ndim != 2 or arr.shape[0] != n:
        raise InvalidArgumentError(f"Expected output Tensor '{key}' of shape [batch_size {n}, num_classes], "
                                   f"got {list(arr.shape)}")
    return arr


def classify(servable: ServableVersion, signature, input_proto, deadline: float | None = None):
    """A ClassificationResult: per example, (label, score) pairs from the signature's classes
    and/or scores outputs."""
    _check_method(signature, CLASSIFY_METHOD, "classification")
    wanted = [k for k in (CLASSIFY_CLASSES, CLASSIFY_SCORES) if k in signature.outputs]
    if not wanted:
        raise InvalidArgumentError("Expected classification signature outputs to contain classes or scores")
    feeds = _examples_feeds(signature, input_proto, "classification")
    n = feeds[CLASSIFY_INPUTS].shape[0]
    out = servable.run(signature, feeds, tuple(wanted), deadline)
    classes = _batch_of(np.asarray(out[CLASSIFY_CLASSES]), n, CLASSIFY_CLASSES) if CLASSIFY_CLASSES in out else None
    scores = _batch_of(np.asarray(out[CLASSIFY_SCORES]), n, CLASSIFY_SCORES) if CLASSIFY_SCORES in out else None
    if classes is not None and scores is not None and classes.shape != scores.shape:
        raise InvalidArgumentError(f"classes and scores outputs differ in shape: {list(classes.shape)} "
                                   f"and {list(scores.shape)}")
    k = (classes if classes is not None else scores).shape[1]
    result = classification_pb2.ClassificationResult()
    for i in range(n):
        row = result.classifications.add()
        for j in range(k):
            c = row.classes.add()
            if classes is not None:
                label = classes[i, j]
                c.label = label.decode("utf-8", "replace") if isinstance(label, bytes) else str(label)
            if scores is not None:
                c.score = float(scores[i, j])
    return result


def regress(servable: ServableVersion, signature, input_proto, deadline: float | None = None):
    """A RegressionResult: one value per example, from the signature's outputs output."""
    _check_method(signature, REGRESS_METHOD, "regression")
    if REGRESS_OUTPUTS not in signature.outputs:
        raise InvalidArgumentError(f"Expected regression signature to have output '{REGRESS_OUTPUTS}'")
    feeds = _examples_feeds(signature, input_proto, "regression")
    n = feeds[REGRESS_INPUTS].shape[0]
    values = np.asarray(servable.run(signature, feeds, (REGRESS_OUTPUTS,), deadline)[REGRESS_OUTPUTS])
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.shape != (n,):
        raise InvalidArgumentError(f"Expected output Tensor '{REGRESS_OUTPUTS}' of shape [batch_size {n}] "
                                   f"or [batch_size {n}, 1], got {list(values.shape)}")
    result = regression_pb2.RegressionResult()
    for v in values.tolist():
        result.regressions.add().value = float(v)
    return result


def example_from_features(features: dict) -> example_pb2.Example:
    """A tf.Example from {name: list of int | float | bytes} (the REST API's examples)."""
    ex = example_pb2.Example()
    for key, values in features.items():
        feat = ex.features.feature[key]
        if all(isinstance(v, bytes) for v in values) and values:
            feat.bytes_list.value.extend(values)
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            feat.int64_list.value.extend(values)
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            feat.float_list.value.extend(values)
        else:
            raise InvalidArgumentError(f"feature '{key}': values must all be numbers or all strings")
    return ex


# ---------------------------------------------------------------------- metadata and status


def metadata(servable: ServableVersion, metadata_fields) -> get_model_metadata_pb2.GetModelMetadataResponse:
    """GetModelMetadata: the version's SignatureDefs (the only metadata field TensorFlow Serving has)."""
    fields = list(metadata_fields)
    if not fields:
        raise InvalidArgumentError("GetModelMetadataRequest must specify at least one metadata_field")
    for f in fields:
        if f != "signature_def":
            raise InvalidArgumentError(f"Metadata field {f} is not supported")
    sigs = get_model_metadata_pb2.SignatureDefMap()
    for key, sig in sorted(servable.signatures.items()):
        if not key.startswith("__"):
            sigs.signature_def[key].CopyFrom(sig.signature_def)
    response = get_model_metadata_pb2.GetModelMetadataResponse(model_spec=answered_spec(servable, None))
    response.metadata["signature_def"].Pack(sigs)
    return response


def model_status(manager: ModelManager, name: str, version: int | None = None, label: str | None = None):
    """GetModelStatus: the state of the model's versions (AVAILABLE is ready to serve)."""
    if not name:
        raise InvalidArgumentError("Missing ModelSpec name")
    response = get_model_status_pb2.GetModelStatusResponse()
    for v, state, err in manager.status(name, version, label):
        row = response.model_version_status.add(version=v, state=_STATE.Value(state))
        row.status.SetInParent()
        if err is not None:
            row.status.error_code = err.error_code
            row.status.error_message = err.message
    return response
