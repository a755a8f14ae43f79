"""Counters of what the server did, rendered in Prometheus' text format at REST
GET /monitoring/prometheus/metrics (TensorFlow Serving's path): requests by model, API and
outcome; Session runs, and with batching the requests and rows merged into them."""

from __future__ import annotations

import collections
import threading


class Metrics:
    """Thread-safe counters. Names follow TensorFlow Serving's where it has one
    (:tensorflow:serving:request_count); the batching ones are opforge's."""

    def __init__(self):
        self._lock = threading.Lock()
        self._counters: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)

    def _add(self, name: str, labels: tuple, value: float = 1) -> None:
        with self._lock:
            self._counters[name][labels] += value

    def request(self, model: str, api: str, status: str) -> None:
        self._add(":tensorflow:serving:request_count",
                  (("model_name", model), ("entrypoint", api), ("status", status)))

    def session_run(self, model: str, version: int, signature: str, requests: int, rows: int, padded: int) -> None:
        labels = (("model_name", model), ("version", str(version)), ("signature", signature))
        self._add("opforge_serving_session_runs_total", labels)
        self._add("opforge_serving_batched_requests_total", labels, requests)
        self._add("opforge_serving_batch_rows_total", labels, rows)
        self._add("opforge_serving_batch_padded_rows_total", labels, padded)

    def prometheus_text(self) -> str:
        lines = []
        with self._lock:
            for name in sorted(self._counters):
                lines.append(f"# TYPE {name} counter")
                for labels, value in sorted(self._counters[name].items()):
                    text = ",".join(f'{k}="{v}"' for k, v in labels)
                    lines.append(f"{name}{{{text}}} {value:g}")
        return "\n".join(lines) + "\n"
