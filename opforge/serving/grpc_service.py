"""The gRPC transport (grpcio): tensorflow.serving.PredictionService (Predict, Classify, Regress,
GetModelMetadata) and ModelService (GetModelStatus, HandleReloadConfigRequest), on the stubs
`opforge generate` compiles from TensorFlow Serving's schemas, so tensorflow-serving-api's
clients call them unchanged. An error is the call's gRPC status (INVALID_ARGUMENT, NOT_FOUND,
DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ...) with TensorFlow Serving's message; a message over
max_request_bytes is refused by grpcio itself (RESOURCE_EXHAUSTED)."""

from __future__ import annotations

import time
from concurrent import futures

import numpy as np

from ..codegen._proto import (
    classification_pb2,
    grpc_module,
    model_management_pb2,
    predict_pb2,
    regression_pb2,
)
from .codes import as_op_error, grpc_status
from .config import ServerOptions
from .manager import ModelManager
from .metrics import Metrics
from .predictor import answered_spec, classify, held, metadata, model_status, predict, regress, spec_of
from .tensors import array_from_proto, array_to_proto

_prediction_service = grpc_module("tensorflow_serving/apis/prediction_service")
_model_service = grpc_module("tensorflow_serving/apis/model_service")


# A call without a deadline reports one far in the future (grpcio's infinite deadline).
_NO_DEADLINE_SECONDS = 1e7


def _deadline(context) -> float | None:
    remaining = context.time_remaining()
    if remaining is None or remaining > _NO_DEADLINE_SECONDS:
        return None
    return time.monotonic() + remaining


class _Calls:
    def __init__(self, manager: ModelManager, metrics: Metrics):
        self._manager = manager
        self._metrics = metrics

    def _answer(self, context, api: str, model: str, fn):
        """fn(deadline)'s answer, or the call aborted with the error's gRPC status."""
        try:
            response = fn(_deadline(context))
        except Exception as e:  # every error becomes the call's status; the server serves on
            err = as_op_error(e)
            self._metrics.request(model, api, "error")
            context.abort(grpc_status(err), err.message)
        self._metrics.request(model, api, "ok")
        return response


class PredictionServicer(_Calls, _prediction_service.PredictionServiceServicer):
    def Predict(self, request, context):
        name, version, label, sig_name = spec_of(request.model_spec)

        def run(deadline):
            with held(self._manager, name, version, label) as servable:
                sig = servable.signature(sig_name)
                feeds = {k: array_from_proto(v, k) for k, v in request.inputs.items()}
                outputs = predict(servable, sig, feeds, request.output_filter, deadline)
                response = predict_pb2.PredictResponse(model_spec=answered_spec(servable, sig_name))
                for k, v in outputs.items():
                    response.outputs[k].CopyFrom(array_to_proto(np.asarray(v), sig.outputs[k].dtype))
                return response
        return self._answer(context, "predict", name, run)

    def Classify(self, request, context):
        name, version, label, sig_name = spec_of(request.model_spec)

        def run(deadline):
            with held(self._manager, name, version, label) as servable:
                result = classify(servable, servable.signature(sig_name), request.input, deadline)
                return classification_pb2.ClassificationResponse(model_spec=answered_spec(servable, sig_name),
                                                                 result=result)
        return self._answer(context, "classify", name, run)

    def Regress(self, request, context):
        name, version, label, sig_name = spec_of(request.model_spec)

        def run(deadline):
            with held(self._manager, name, version, label) as servable:
                result = regress(servable, servable.signature(sig_name), request.input, deadline)
                return regression_pb2.RegressionResponse(model_spec=answered_spec(servable, sig_name),
                                                         result=result)
        return self._answer(context, "regress", name, run)

    def GetModelMetadata(self, request, context):
        name, version, label, _ = spec_of(request.model_spec)

        def run(deadline):
            with held(self._manager, name, version, label) as servable:
                return metadata(servable, request.metadata_field)
        return self._answer(context, "metadata", name, run)


class ModelServicer(_Calls, _model_service.ModelServiceServicer):
    def GetModelStatus(self, request, context):
        name, version, label, _ = spec_of(request.model_spec)
        return self._answer(context, "status", name, lambda _: model_status(self._manager, name, version, label))

    def HandleReloadConfigRequest(self, request, context):
        def run(_):
            self._manager.reload_config(request.config)
            response = model_management_pb2.ReloadConfigResponse()
            response.status.SetInParent()
            return response
        return self._answer(context, "reload_config", "", run)


def start_grpc_server(options: ServerOptions, manager: ModelManager, metrics: Metrics):
    """A started grpc.Server on options.host:options.port; returns (server, bound port)."""
    import grpc  # noqa: PLC0415

    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=options.grpc_max_threads, thread_name_prefix="grpc"),
        options=[("grpc.max_receive_message_length", options.max_request_bytes),
                 ("grpc.max_send_message_length", -1),
                 ("grpc.so_reuseport", 0), *options.grpc_channel_arguments])
    _prediction_service.add_PredictionServiceServicer_to_server(PredictionServicer(manager, metrics), server)
    _model_service.add_ModelServiceServicer_to_server(ModelServicer(manager, metrics), server)
    port = server.add_insecure_port(f"{options.host}:{options.port}")
    server.start()
    return server, port
