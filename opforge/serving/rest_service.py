"""The REST transport: TensorFlow Serving's REST API as a WSGI application, served by waitress.

  POST /v1/models/NAME[/versions/N | /labels/L]:predict | :classify | :regress
  GET  /v1/models/NAME[/versions/N | /labels/L]            (model status: readiness)
  GET  /v1/models/NAME[/versions/N | /labels/L]/metadata
  GET  /monitoring/prometheus/metrics

Errors answer {"error": "..."} with the HTTP status of the error's code (400, 404, 413, 429,
504, ...). A body over max_request_bytes is refused unread (413); waitress reads a request
completely before the application sees it, so a client that disconnects mid-request costs
nothing but the bytes it sent. Each request's deadline is rest_api_timeout_in_ms.

waitress: a pure-Python, production WSGI server maintained by the Pylons project, with a
bounded thread pool (rest_api_num_threads), request-size limits and buffering of large bodies
to disk, and no dependencies; its synchronous threads suit Signature.run, which releases the
GIL while the runtime computes.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time

from .codes import as_op_error, http_status
from .config import ServerOptions
from .json_codec import (
    classify_answer,
    examples_input,
    metadata_answer,
    parse_body,
    predict_answer,
    predict_feeds,
    regress_answer,
    status_answer,
)
from .manager import ModelManager
from .metrics import Metrics
from .predictor import classify, held, metadata, model_status, predict, regress

log = logging.getLogger("opforge.serving")

_MODEL_PATH = re.compile(r"^/v1/models/(?P<name>[^/:]+)"
                         r"(?:/versions/(?P<version>[0-9]+)|/labels/(?P<label>[^/:]+))?"
                         r"(?:(?P<verb>:predict|:classify|:regress)|(?P<metadata>/metadata))?$")


class _HTTPError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            405: "Method Not Allowed", 409: "Conflict", 411: "Length Required", 413: "Payload Too Large",
            429: "Too Many Requests", 499: "Client Closed Request", 500: "Internal Server Error",
            501: "Not Implemented", 503: "Service Unavailable", 504: "Gateway Timeout"}


class RestApp:
    """The WSGI application. `inflight` counts the requests being answered (graceful shutdown
    waits for it to reach 0); after drain() new requests get 503."""

    def __init__(self, manager: ModelManager, metrics: Metrics, options: ServerOptions):
        self._manager = manager
        self._metrics = metrics
        self._opts = options
        self._cond = threading.Condition()
        self.inflight = 0
        self._draining = False

    def drain(self, timeout: float | None) -> bool:
        """Refuses new requests; waits up to timeout for those in flight. True if they finished."""
        with self._cond:
            self._draining = True
            return self._cond.wait_for(lambda: self.inflight == 0, timeout)

    def __call__(self, environ, start_response):
        with self._cond:
            self.inflight += 1
        try:
            status, body, ctype = self._answer(environ)
        finally:
            with self._cond:
                self.inflight -= 1
                if self.inflight == 0:
                    self._cond.notify_all()
        start_response(f"{status} {_REASONS.get(status, 'Error')}",
                       [("Content-Type", ctype), ("Content-Length", str(len(body)))])
        return [body]

    def _answer(self, environ) -> tuple[int, bytes, str]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        model, api = "", "rest"
        try:
            if self._draining:
                raise _HTTPError(503, "The server is shutting down")
            if path == "/monitoring/prometheus/metrics" and method == "GET":
                return 200, self._metrics.prometheus_text().encode(), "text/plain; version=0.0.4"
            m = _MODEL_PATH.match(path)
            if m is None:
                raise _HTTPError(404, f"Malformed request: {method} {path}")
            model = m["name"]
            api = m["verb"][1:] if m["verb"] else "metadata" if m["metadata"] else "status"
            doc = self._route(method, path, m, environ)
            body = json.dumps(doc, separators=(",", ":")).encode()
            self._metrics.request(model, api, "ok")
            return 200, body, "application/json"
        except _HTTPError as e:
            status, message = e.status, e.message
        except Exception as e:  # every error is an answer; the server serves on
            err = as_op_error(e)
            status, message = http_status(err), err.message
        self._metrics.request(model, api, "error")
        return status, json.dumps({"error": message}).encode(), "application/json"

    def _route(self, method: str, path: str, m, environ) -> dict:
        name, label = m["name"], m["label"]
        version = int(m["version"]) if m["version"] else None
        verb = m["verb"]
        if verb is None:
            if method != "GET":
                raise _HTTPError(405, f"Malformed request: {method} {path} (use GET)")
            if m["metadata"]:
                with held(self._manager, name, version, label) as servable:
                    return metadata_answer(metadata(servable, ["signature_def"]))
            return status_answer(model_status(self._manager, name, version, label))
        if method != "POST":
            raise _HTTPError(405, f"Malformed request: {method} {path} (use POST)")
        doc = parse_body(self._body(environ))
        sig_name = doc.get("signature_name", "")
        if not isinstance(sig_name, str):
            raise _HTTPError(400, "'signature_name' must be a string")
        deadline = time.monotonic() + self._opts.rest_api_timeout_in_ms / 1000.0
        with held(self._manager, name, version, label) as servable:
            signature = servable.signature(sig_name)
            if verb == ":predict":
                feeds, fmt = predict_feeds(doc, signature)
                return predict_answer(predict(servable, signature, feeds, (), deadline), fmt)
            if verb == ":classify":
                return classify_answer(classify(servable, signature, examples_input(doc), deadline))
            return regress_answer(regress(servable, signature, examples_input(doc), deadline))

    def _body(self, environ) -> bytes:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            raise _HTTPError(400, "Malformed Content-Length") from None
        if length > self._opts.max_request_bytes:
            raise _HTTPError(413, f"Request body of {length} bytes exceeds the limit of "
                                  f"{self._opts.max_request_bytes} bytes (--max_request_bytes)")
        return environ["wsgi.input"].read(length) if length else b""


class RestServer:
    """waitress serving RestApp on options.host:options.rest_api_port, in a thread of its own."""

    def __init__(self, options: ServerOptions, manager: ModelManager, metrics: Metrics):
        import waitress  # noqa: PLC0415
        from waitress import wasyncore  # noqa: PLC0415
        self._wasyncore = wasyncore
        self.app = RestApp(manager, metrics, options)
        self._map: dict = {}
        # waitress refuses (413, unread) bodies past its own limit; between max_request_bytes
        # and that, RestApp answers 413 with a JSON error body.
        self._server = waitress.create_server(
            self.app, map=self._map, host=options.host, port=options.rest_api_port,
            threads=options.rest_api_num_threads, max_request_body_size=2 * options.max_request_bytes + 1,
            channel_timeout=max(60, options.rest_api_timeout_in_ms // 1000 + 30), ident="opforge",
            clear_untrusted_proxy_headers=True)
        self.port = int(self._server.getsockname()[1])  # waitress gives the port as a string
        self._stop = threading.Event()
        self._stop_accepting = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rest-server", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        listening = True
        while not self._stop.is_set():
            if listening and self._stop_accepting.is_set():
                self._wasyncore.dispatcher.close(self._server)  # the listening socket only
                listening = False
            self._wasyncore.loop(timeout=0.05, map=self._map, use_poll=True, count=1)
        for channel in list(self._map.values()):
            channel.close()

    def shutdown(self, grace: float) -> None:
        """Stops accepting, lets the requests in flight finish (up to grace seconds), stops."""
        self._stop_accepting.set()
        if not self.app.drain(grace):
            log.warning("REST requests still running after %.1f s of shutdown grace", grace)
        end = time.monotonic() + 2.0  # let the loop write the last answers
        while time.monotonic() < end and any(getattr(ch, "total_outbufs_len", 0) for ch in list(self._map.values())):
            time.sleep(0.02)
        self._stop.set()
        self._thread.join()
        self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=1)
