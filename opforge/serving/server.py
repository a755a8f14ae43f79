"""`opforge serve`: the server process, with tensorflow_model_server's flags.

  opforge serve --port=8500 --rest_api_port=8501 --model_name=NAME --model_base_path=DIR
  opforge serve --port=8500 --model_config_file=models.config [--enable_batching
                [--batching_parameters_file=batching.config]]

Flags are spelled as tensorflow_model_server spells them (--flag=value or --flag value);
--max_request_bytes is opforge's (TensorFlow Serving has no request-size flag). SIGTERM or
SIGINT shuts down gracefully: the listeners close, requests in flight finish (up to
--shutdown_grace_seconds), then the models unload.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from ..framework.errors import OpError
from .config import (
    BatchingOptions,
    ServerOptions,
    parse_grpc_channel_arguments,
    read_batching_parameters,
    read_model_server_config,
    single_model_config,
)
from .manager import ModelManager
from .metrics import Metrics

log = logging.getLogger("opforge.serving")


class Server:
    """The model manager with its gRPC and REST transports. start(), then stop() (or
    wait_for_signal(), which stops on SIGTERM/SIGINT)."""

    def __init__(self, options: ServerOptions, loader=None):
        self.options = options
        self.metrics = Metrics()
        self.manager = ModelManager(options.models, batching=options.batching, metrics=self.metrics,
                                    tags=options.tags, poll_wait_seconds=options.file_system_poll_wait_seconds,
                                    loader=loader, unload_timeout=options.shutdown_grace_seconds)
        self._grpc = self._rest = None
        self.grpc_port = self.rest_port = None
        self._stopped = threading.Event()

    def start(self) -> None:
        self.manager.start()
        if self.options.port:
            from .grpc_service import start_grpc_server  # noqa: PLC0415
            self._grpc, self.grpc_port = start_grpc_server(self.options, self.manager, self.metrics)
            if not self.grpc_port:
                raise OSError(f"could not bind the gRPC port {self.options.host}:{self.options.port}")
            log.info("gRPC server listening on %s:%d", self.options.host, self.grpc_port)
        if self.options.rest_api_port:
            from .rest_service import RestServer  # noqa: PLC0415
            self._rest = RestServer(self.options, self.manager, self.metrics)
            self._rest.start()
            self.rest_port = self._rest.port
            log.info("REST server listening on %s:%d", self.options.host, self.rest_port)

    def stop(self) -> None:
        """Graceful shutdown: no new requests; those in flight finish; the models unload."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        grace = self.options.shutdown_grace_seconds
        waits = []
        if self._grpc is not None:
            waits.append(self._grpc.stop(grace))  # refuses new calls at once, cancels the rest after grace
        if self._rest is not None:
            self._rest.shutdown(grace)
        for event in waits:
            event.wait()
        self.manager.stop(grace)

    def wait_for_signal(self) -> None:
        """Serves until SIGTERM or SIGINT, then stops gracefully (main thread only)."""
        got = threading.Event()

        def on_signal(signum, _frame):
            log.info("signal %d: shutting down", signum)
            got.set()
        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            while not got.wait(0.5):
                pass
        finally:
            for s, h in previous.items():
                signal.signal(s, h)
        self.stop()


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="opforge serve",
                                description="Serve SavedModels with TensorFlow Serving's gRPC and REST APIs.")
    a = p.add_argument
    a("--port", type=int, default=8500, help="gRPC port (0: no gRPC server) [8500]")
    a("--rest_api_port", type=int, default=0, help="REST port (0: no REST server) [0]")
    a("--host", default="0.0.0.0", help="address to listen on [0.0.0.0]")
    a("--model_name", default="default", help="the model's name, with --model_base_path [default]")
    a("--model_base_path", help="folder of the model's numeric version folders")
    a("--model_config_file", help="ModelServerConfig in text format (several models); replaces "
                                  "--model_name/--model_base_path")
    a("--file_system_poll_wait_seconds", type=float, default=1.0,
      help="seconds between looks for new versions (<= 0: only at startup) [1]")
    a("--enable_batching", type=_bool, nargs="?", const=True, default=False,
      help="batch concurrent requests into one Session run [false]")
    a("--batching_parameters_file", help="BatchingParameters in text format (implies --enable_batching)")
    a("--max_request_bytes", type=int, default=64 << 20, help="largest request body / message [64 MiB]")
    a("--rest_api_timeout_in_ms", type=int, default=30000, help="deadline of a REST request [30000]")
    a("--grpc_max_threads", type=int, default=16, help="threads answering gRPC calls [16]")
    a("--rest_api_num_threads", type=int, default=16, help="threads answering REST requests [16]")
    a("--shutdown_grace_seconds", type=float, default=30.0,
      help="how long requests in flight may take to finish on SIGTERM/SIGINT [30]")
    a("--saved_model_tags", default="serve", help="comma-separated MetaGraphDef tags to load [serve]")
    a("--grpc_channel_arguments", default="", help="gRPC server options, key=value,key=value "
                                                   "(e.g. grpc.max_concurrent_streams=100)")
    return p


def options_from_args(args) -> ServerOptions:
    if args.model_config_file:
        models = read_model_server_config(args.model_config_file)
    elif args.model_base_path:
        models = single_model_config(args.model_name, args.model_base_path)
    else:
        raise ValueError("give --model_base_path (with --model_name) or --model_config_file")
    batching = None
    if args.batching_parameters_file:
        batching = read_batching_parameters(args.batching_parameters_file)
    elif args.enable_batching:
        batching = BatchingOptions()
    for flag in ("max_request_bytes", "rest_api_timeout_in_ms", "grpc_max_threads", "rest_api_num_threads"):
        if getattr(args, flag) < 1:
            raise ValueError(f"--{flag} must be >= 1, got {getattr(args, flag)}")
    return ServerOptions(models=models, port=args.port, rest_api_port=args.rest_api_port, host=args.host,
                         file_system_poll_wait_seconds=args.file_system_poll_wait_seconds, batching=batching,
                         max_request_bytes=args.max_request_bytes, rest_api_timeout_in_ms=args.rest_api_timeout_in_ms,
                         grpc_max_threads=args.grpc_max_threads, rest_api_num_threads=args.rest_api_num_threads,
                         shutdown_grace_seconds=args.shutdown_grace_seconds,
                         tags=tuple(t for t in args.saved_model_tags.split(",") if t),
                         grpc_channel_arguments=parse_grpc_channel_arguments(args.grpc_channel_arguments))


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    try:
        options = options_from_args(args)
        server = Server(options)
        server.start()
    except (OpError, ValueError, OSError) as e:
        print(f"opforge serve: {e}", file=sys.stderr)
        return 2
    # One line a supervisor (or a test) can wait for: the bound ports.
    print(f"opforge serve: ready grpc_port={server.grpc_port or 0} rest_port={server.rest_port or 0}", flush=True)
    server.wait_for_signal()
    print("opforge serve: stopped", flush=True)
    return 0
