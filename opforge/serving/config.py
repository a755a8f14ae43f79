"""What the server serves and how: TensorFlow Serving's config files and opforge serve's options.

--model_config_file holds a ModelServerConfig in text format (TensorFlow Serving's: a
model_config_list of ModelConfig: name, base_path, model_platform, model_version_policy,
version_labels); --batching_parameters_file a BatchingParameters. Both are checked here, so a
bad file is an InvalidArgumentError naming the file and the problem before anything starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from google.protobuf import text_format

from ..codegen._proto import model_server_config_pb2, session_bundle_config_pb2
from ..framework.errors import InvalidArgumentError, NotFoundError

ModelServerConfig = model_server_config_pb2.ModelServerConfig
ModelConfig = model_server_config_pb2.ModelConfig
BatchingParameters = session_bundle_config_pb2.BatchingParameters


def _read_text(path: str, message, what: str):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise NotFoundError(f"{what} {path}: {e.strerror}") from None
    try:
        text_format.Parse(text, message)
    except text_format.ParseError as e:
        raise InvalidArgumentError(f"{what} {path}: not a {message.DESCRIPTOR.name} in text format: {e}") from None
    return message


def single_model_config(name: str, base_path: str) -> ModelServerConfig:
    """The config of --model_name / --model_base_path: one model, latest version."""
    config = ModelServerConfig()
    config.model_config_list.config.add(name=name, base_path=base_path)
    return config


def read_model_server_config(path: str) -> ModelServerConfig:
    """A --model_config_file, parsed and checked (check_model_server_config)."""
    config = _read_text(path, ModelServerConfig(), "model config file")
    check_model_server_config(config, f"model config file {path}")
    return config


def check_model_server_config(config: ModelServerConfig, where: str = "model config") -> None:
    """InvalidArgumentError unless every model has a unique name, a base path, the tensorflow
    platform and a version policy and labels that make sense."""
    if config.WhichOneof("config") == "custom_model_config":
        raise InvalidArgumentError(f"{where}: custom_model_config is not supported; use model_config_list")
    seen = set()
    for mc in config.model_config_list.config:
        if not mc.name:
            raise InvalidArgumentError(f"{where}: a model config has no name")
        if mc.name in seen:
            raise InvalidArgumentError(f"{where}: model name '{mc.name}' is configured twice")
        seen.add(mc.name)
        if not mc.base_path:
            raise InvalidArgumentError(f"{where}: model '{mc.name}' has no base_path")
        if mc.model_platform not in ("", "tensorflow"):
            raise InvalidArgumentError(f"{where}: model '{mc.name}': model_platform "
                                       f"'{mc.model_platform}' is not served (only 'tensorflow')")
        policy = mc.model_version_policy
        if policy.WhichOneof("policy_choice") == "specific" and not policy.specific.versions:
            raise InvalidArgumentError(f"{where}: model '{mc.name}': model_version_policy "
                                       f"specific lists no versions")
        for label, version in mc.version_labels.items():
            if version < 0:
                raise InvalidArgumentError(f"{where}: model '{mc.name}': label '{label}' names "
                                           f"negative version {version}")


@dataclass(frozen=True)
class BatchingOptions:
    """Server-side batching (BatchingParameters; the defaults are TensorFlow Serving's)."""

    max_batch_size: int = 1000
    batch_timeout_micros: int = 0
    max_enqueued_batches: int = 10
    num_batch_threads: int = field(default_factory=lambda: os.cpu_count() or 1)
    allowed_batch_sizes: tuple[int, ...] = ()
    pad_variable_length_inputs: bool = False

    def __post_init__(self):
        for name in ("max_batch_size", "max_enqueued_batches", "num_batch_threads"):
            if getattr(self, name) < 1:
                raise InvalidArgumentError(f"batching parameter {name} must be >= 1, got {getattr(self, name)}")
        if self.batch_timeout_micros < 0:
            raise InvalidArgumentError(f"batching parameter batch_timeout_micros must be >= 0, "
                                       f"got {self.batch_timeout_micros}")
        sizes = self.allowed_batch_sizes
        if sizes:
            if any(b <= a for a, b in zip(sizes, sizes[1:])) or sizes[0] < 1:
                raise InvalidArgumentError(f"allowed_batch_sizes must be positive and increasing, got {list(sizes)}")
            if sizes[-1] != self.max_batch_size:
                raise InvalidArgumentError(f"the last of allowed_batch_sizes ({sizes[-1]}) must equal "
                                           f"max_batch_size ({self.max_batch_size})")

    @classmethod
    def from_proto(cls, params: BatchingParameters) -> BatchingOptions:
        kw = {}
        for name in ("max_batch_size", "batch_timeout_micros", "max_enqueued_batches", "num_batch_threads"):
            if params.HasField(name):
                kw[name] = getattr(params, name).value
        if params.allowed_batch_sizes:
            kw["allowed_batch_sizes"] = tuple(params.allowed_batch_sizes)
        kw["pad_variable_length_inputs"] = params.pad_variable_length_inputs
        return cls(**kw)


def read_batching_parameters(path: str) -> BatchingOptions:
    """A --batching_parameters_file, parsed and checked."""
    params = _read_text(path, BatchingParameters(), "batching parameters file")
    try:
        return BatchingOptions.from_proto(params)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"batching parameters file {path}: {e.message}") from None


@dataclass(frozen=True)
class ServerOptions:
    """Everything `opforge serve` takes (server.py's flags)."""

    models: ModelServerConfig
    port: int = 8500                     # gRPC; 0: no gRPC server
    rest_api_port: int = 0               # 0: no REST server
    host: str = "0.0.0.0"
    file_system_poll_wait_seconds: float = 1.0   # <= 0: look for versions once, at startup
    batching: BatchingOptions | None = None      # None: no server-side batching
    max_request_bytes: int = 64 << 20    # larger requests: 413 / RESOURCE_EXHAUSTED
    rest_api_timeout_in_ms: int = 30000  # a REST request's deadline
    grpc_max_threads: int = 16
    rest_api_num_threads: int = 16
    shutdown_grace_seconds: float = 30.0  # how long in-flight requests may take to finish
    tags: tuple[str, ...] = ("serve",)
    grpc_channel_arguments: tuple[tuple[str, object], ...] = ()  # grpc server options, after ours


def parse_grpc_channel_arguments(text: str) -> tuple[tuple[str, object], ...]:
    """--grpc_channel_arguments (TensorFlow Serving's spelling): "key=value,key=value", values
    that are integers passed as ints (grpc.max_receive_message_length=1048576)."""
    out = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidArgumentError(f"--grpc_channel_arguments: '{item}' is not key=value")
        try:
            out.append((key, int(value)))
        except ValueError:
            out.append((key, value))
    return tuple(out)
