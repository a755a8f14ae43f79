"""A servable: one loaded version of a model, its signatures run directly or batched, and the
handles requests hold on it so that unloading waits for them (TensorFlow Serving's
ServableHandle)."""

from __future__ import annotations

import threading
import time

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import DeadlineExceededError, FailedPreconditionError, InvalidArgumentError
from .batching import BatchScheduler
from .config import BatchingOptions
from .metrics import Metrics

DEFAULT_SIGNATURE = "serving_default"


def _names(keys) -> str:
    return ",".join(sorted(keys))


def check_feeds(signature, feeds: dict[str, np.ndarray]) -> None:
    """InvalidArgumentError unless feeds has exactly the signature's inputs, each of its dtype
    and a shape its shape admits (TensorFlow Serving's messages), so a bad request fails alone
    before it can join a batch."""
    expected = set(signature.inputs)
    sent = set(feeds)
    optional = set(signature.signature_def.defaults)  # inputs the SignatureDef has defaults for
    if not (sent <= expected and expected - sent <= optional):
        extra, missing = sent - expected, expected - sent - optional
        if extra and not missing and len(sent) <= len(expected):
            raise InvalidArgumentError(f"input tensor alias not found in signature: {sorted(extra)[0]}. Inputs "
                                       f"expected to be in the set {{{_names(expected)}}}.")
        raise InvalidArgumentError(f"input size does not match signature: {len(sent)}!={len(expected)} "
                                   f"len({{{_names(sent)}}}) != len({{{_names(expected)}}}). Sent extra: "
                                   f"{{{_names(extra)}}}. Missing but required: {{{_names(missing)}}}.")
    for key, arr in feeds.items():
        spec = signature.inputs[key]
        want = _dtypes.as_dtype(spec.dtype)
        try:
            got = _dtypes.as_dtype(arr.dtype)
        except TypeError:
            got = None
        if got != want:
            raise InvalidArgumentError(f"input '{key}': expects {want.name}, but "
                                       f"{got.name if got else arr.dtype} is provided")
        shape = spec.shape
        if shape is None:
            continue
        if len(shape) != arr.ndim or any(d is not None and d >= 0 and d != a for d, a in zip(shape, arr.shape)):
            want_shape = "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"
            raise InvalidArgumentError(f"input '{key}': shape {list(arr.shape)} does not match the "
                                       f"signature's shape {want_shape}")


def check_output_filter(signature, output_filter) -> tuple[str, ...] | None:
    """The outputs wanted, checked; None: all of them."""
    if not output_filter:
        return None
    for key in output_filter:
        if key not in signature.outputs:
            raise InvalidArgumentError(f"output tensor alias not found in signature: {key} Outputs "
                                       f"expected to be in the set {{{_names(signature.outputs)}}}.")
    return tuple(sorted(set(output_filter)))


class ServableVersion:
    """A model version being served (state AVAILABLE), being drained (UNLOADING) or gone (END).

    acquire() / release() bracket each request; unload() refuses new requests, waits for those
    holding the version, stops its batch threads and closes the model."""

    def __init__(self, name: str, version: int, path: str, model, batching: BatchingOptions | None = None,
                 metrics: Metrics | None = None):
        self.name, self.version, self.path = name, version, path
        self.model = model
        self._batching = batching
        self._metrics = metrics
        self._schedulers: dict[str, BatchScheduler] = {}
        self._cond = threading.Condition()
        self._inflight = 0
        self.state = "AVAILABLE"

    @property
    def signatures(self) -> dict:
        return self.model.signatures

    def acquire(self) -> bool:
        """Holds the version for a request; False when it no longer serves."""
        with self._cond:
            if self.state != "AVAILABLE":
                return False
            self._inflight += 1
            return True

    def release(self) -> None:
        with self._cond:
            self._inflight -= 1
            if self._inflight == 0:
                self._cond.notify_all()

    def signature(self, name: str):
        sig = self.model.signatures.get(name or DEFAULT_SIGNATURE)
        if sig is None:
            raise FailedPreconditionError(f"Serving signature key \"{name or DEFAULT_SIGNATURE}\" not found.")
        return sig

    def run(self, signature, feeds: dict[str, np.ndarray], output_keys: tuple[str, ...] | None,
            deadline: float | None) -> dict[str, np.ndarray]:
        """The signature's outputs for feeds (checked with check_feeds first)."""
        if self._batching is not None:
            return self._scheduler(signature).submit(feeds, output_keys, deadline)
        if deadline is not None and deadline <= time.monotonic():
            raise DeadlineExceededError("Deadline exceeded before the request ran")
        out = signature.run(feeds, list(output_keys) if output_keys else None)
        if self._metrics is not None:
            rows = next(iter(feeds.values())).shape[0] if feeds and np.ndim(next(iter(feeds.values()))) else 1
            self._metrics.session_run(self.name, self.version, signature.name, 1, rows, rows)
        return out

    def _scheduler(self, signature) -> BatchScheduler:
        with self._cond:
            sched = self._schedulers.get(signature.name)
            if sched is None:
                def run(feeds, output_keys, _sig=signature):
                    return _sig.run(feeds, list(output_keys) if output_keys else None)

                def on_batch(requests, rows, padded, _name=signature.name):
                    if self._metrics is not None:
                        self._metrics.session_run(self.name, self.version, _name, requests, rows, padded)
                sched = BatchScheduler(run, self._batching, f"{self.name}/{self.version}/{signature.name}", on_batch)
                self._schedulers[signature.name] = sched
            return sched

    def unload(self, timeout: float | None = None) -> None:
        """Stops serving: waits up to timeout for the requests holding the version, then closes it."""
        with self._cond:
            if self.state == "END":
                return
            self.state = "UNLOADING"
            self._cond.wait_for(lambda: self._inflight == 0, timeout)
            schedulers = list(self._schedulers.values())
        for sched in schedulers:
            sched.close()
        self.model.close()
        with self._cond:
            self.state = "END"
