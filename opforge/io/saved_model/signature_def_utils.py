"""Building and checking SignatureDefs (tf.saved_model.signature_def_utils): the named inputs
and outputs a served model exposes, and the method (predict, classify, regress) TensorFlow
Serving may call it with."""

from __future__ import annotations

from ...codegen._proto import meta_graph_pb2, types_pb2
from ...framework.graph import GraphTensor
from ...io.graph_def import tensor_to_proto
from . import signature_constants as sc
from .utils import build_tensor_info, build_tensor_info_from_op

SignatureDef = meta_graph_pb2.SignatureDef

__all__ = ["build_signature_def", "predict_signature_def", "classification_signature_def",
           "regression_signature_def", "supervised_train_signature_def", "supervised_eval_signature_def",
           "is_valid_signature", "op_signature_def"]


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None) -> SignatureDef:
    """A SignatureDef from maps of key -> TensorInfo; ``defaults`` maps input keys to a
    TensorProto, an eager tensor or a Const graph tensor (the value used when a request leaves
    the input out)."""
    sig = SignatureDef()
    for key, info in (inputs or {}).items():
        sig.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        sig.outputs[key].CopyFrom(info)
    if method_name is not None:
        sig.method_name = method_name
    for key, value in (defaults or {}).items():
        sig.defaults[key].CopyFrom(_default_proto(key, value))
    return sig


def _default_proto(key, value):
    if hasattr(value, "tensor_shape") and hasattr(value, "dtype") and hasattr(value, "SerializeToString"):
        return value  # already a TensorProto
    if isinstance(value, GraphTensor):
        if value.op.type != "Const":
            raise ValueError(f"Unable to convert object {value} of type {type(value)} to TensorProto "
                             f"(default of '{key}' must be a Const)")
        return tensor_to_proto(value.op.get_attr("value"))
    from ...framework.tensor import convert_to_tensor  # noqa: PLC0415
    return tensor_to_proto(convert_to_tensor(value))


def regression_signature_def(examples, predictions) -> SignatureDef:
    """A Regress signature: serialized tf.Examples (string) in, float predictions out."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, GraphTensor):
        raise ValueError(f"Expected regression `examples` to be of type Tensor. Found `examples` of type "
                         f"{type(examples)}.")
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    inp = build_tensor_info(examples)
    if inp.dtype != types_pb2.DT_STRING:
        raise ValueError(f"Regression input tensors must be of type string. Found tensors with type {inp.dtype}.")
    out = build_tensor_info(predictions)
    if out.dtype != types_pb2.DT_FLOAT:
        raise ValueError(f"Regression output tensors must be of type float. Found tensors with type {out.dtype}.")
    return build_signature_def({sc.REGRESS_INPUTS: inp}, {sc.REGRESS_OUTPUTS: out}, sc.REGRESS_METHOD_NAME)


def classification_signature_def(examples, classes, scores) -> SignatureDef:
    """A Classify signature: serialized tf.Examples in; string classes and/or float scores out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, GraphTensor):
        raise ValueError(f"Classification `examples` must be a string Tensor. Found `examples` of type "
                         f"{type(examples)}.")
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    inp = build_tensor_info(examples)
    if inp.dtype != types_pb2.DT_STRING:
        raise ValueError(f"Classification input tensors must be of type string. Found tensors of type {inp.dtype}")
    outputs = {}
    if classes is not None:
        info = build_tensor_info(classes)
        if info.dtype != types_pb2.DT_STRING:
            raise ValueError(f"Classification classes must be of type string Tensor. Found tensors of type "
                             f"{info.dtype}.")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = build_tensor_info(scores)
        if info.dtype != types_pb2.DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def({sc.CLASSIFY_INPUTS: inp}, outputs, sc.CLASSIFY_METHOD_NAME)


def predict_signature_def(inputs, outputs) -> SignatureDef:
    """A Predict signature over dicts of key -> tensor (any dtypes)."""
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()}, sc.PREDICT_METHOD_NAME)


def _supervised_signature_def(method_name, inputs, loss=None, predictions=None, metrics=None):
    if not inputs:
        raise ValueError(f"{method_name} `inputs` cannot be None or empty.")
    outputs = {}
    for group, values in (("loss", loss), ("predictions", predictions), ("metrics", metrics)):
        for k, t in (values or {}).items():
            outputs[f"{group}/{k}" if group != "loss" or k != "loss" else "loss"] = build_tensor_info(t)
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()}, outputs, method_name)


def supervised_train_signature_def(inputs, loss, predictions=None, metrics=None) -> SignatureDef:
    return _supervised_signature_def(sc.SUPERVISED_TRAIN_METHOD_NAME, inputs, loss, predictions, metrics)


def supervised_eval_signature_def(inputs, loss, predictions=None, metrics=None) -> SignatureDef:
    return _supervised_signature_def(sc.SUPERVISED_EVAL_METHOD_NAME, inputs, loss, predictions, metrics)


def op_signature_def(op, key) -> SignatureDef:
    """A SignatureDef whose one output names an operation (the init op's signature)."""
    return build_signature_def(outputs={key: build_tensor_info_from_op(op)})


def is_valid_signature(signature_def) -> bool:
    """Whether TensorFlow Serving can serve this SignatureDef (predict, classify or regress
    with the inputs and outputs each requires)."""
    if signature_def is None:
        return False
    return (_valid_classification(signature_def) or _valid_regression(signature_def)
            or _valid_predict(signature_def))


def _valid_predict(sig) -> bool:
    return sig.method_name == sc.PREDICT_METHOD_NAME and bool(sig.inputs) and bool(sig.outputs)


def _valid_regression(sig) -> bool:
    return (sig.method_name == sc.REGRESS_METHOD_NAME
            and set(sig.inputs) == {sc.REGRESS_INPUTS}
            and sig.inputs[sc.REGRESS_INPUTS].dtype == types_pb2.DT_STRING
            and set(sig.outputs) == {sc.REGRESS_OUTPUTS}
            and sig.outputs[sc.REGRESS_OUTPUTS].dtype == types_pb2.DT_FLOAT)


def _valid_classification(sig) -> bool:
    allowed = {sc.CLASSIFY_OUTPUT_CLASSES, sc.CLASSIFY_OUTPUT_SCORES}
    if sig.method_name != sc.CLASSIFY_METHOD_NAME or set(sig.inputs) != {sc.CLASSIFY_INPUTS}:
        return False
    if sig.inputs[sc.CLASSIFY_INPUTS].dtype != types_pb2.DT_STRING:
        return False
    if not sig.outputs or set(sig.outputs) - allowed:
        return False
    if sc.CLASSIFY_OUTPUT_CLASSES in sig.outputs and sig.outputs[sc.CLASSIFY_OUTPUT_CLASSES].dtype != types_pb2.DT_STRING:
        return False
    return not (sc.CLASSIFY_OUTPUT_SCORES in sig.outputs
                and sig.outputs[sc.CLASSIFY_OUTPUT_SCORES].dtype != types_pb2.DT_FLOAT)
