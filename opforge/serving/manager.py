"""The models being served and their versions (TensorFlow Serving's Source + Manager).

Each model's base path holds numeric version folders (1/, 2/, ...), each a SavedModel. A poll
(at startup, then every file_system_poll_wait_seconds) lists them, applies the model's version
policy (latest N, default 1; all; specific), loads the wanted versions not yet loaded and then
retires the versions no longer wanted: a retired version leaves the table at once, so no new
request reaches it, and unloads in the background once the requests holding it finish. A new
version is loaded before the old one goes (availability first), so a version swap never leaves
the model without a servable. A version that fails to load is reported by GetModelStatus with
its error and retried when its saved_model.pb changes.
"""

from __future__ import annotations

import logging
import os
import threading

from ..framework.errors import InvalidArgumentError, NotFoundError, OpError
from .codes import as_op_error
from .config import BatchingOptions, ModelConfig, ModelServerConfig, check_model_server_config
from .metrics import Metrics
from .servable import ServableVersion

log = logging.getLogger("opforge.serving")

_SAVED_MODEL_FILES = ("saved_model.pb", "saved_model.pbtxt")


def _default_loader(path: str, tags):
    import opforge  # noqa: PLC0415  (the SavedModel loader; imported when a model loads)
    return opforge.saved_model.load(path, tags=tags)


def versions_on_disk(base_path: str) -> dict[int, float]:
    """The version folders under base_path holding a SavedModel: version -> its saved_model.pb's
    modification time."""
    found = {}
    try:
        entries = list(os.scandir(base_path))
    except OSError:
        return found
    for e in entries:
        if not (e.name.isdigit() and e.is_dir()):
            continue
        for fname in _SAVED_MODEL_FILES:
            try:
                found[int(e.name)] = os.stat(os.path.join(e.path, fname)).st_mtime
                break
            except OSError:
                continue
    return found


def wanted_versions(config: ModelConfig, on_disk) -> set[int]:
    """The versions config's policy serves among on_disk."""
    policy = config.model_version_policy
    kind = policy.WhichOneof("policy_choice")
    if kind == "all":
        return set(on_disk)
    if kind == "specific":
        return set(on_disk) & set(policy.specific.versions)
    n = policy.latest.num_versions if kind == "latest" and policy.latest.num_versions else 1
    return set(sorted(on_disk)[-n:])


class _Model:
    def __init__(self, config: ModelConfig):
        self.config = config
        self.versions: dict[int, ServableVersion] = {}   # serving
        self.retired: dict[int, ServableVersion] = {}    # draining, then unloading
        self.failed: dict[int, tuple[float, OpError]] = {}  # load error, by saved_model.pb mtime


class ModelManager:
    """Loads, serves and retires the versions of the configured models. Thread-safe."""

    def __init__(self, config: ModelServerConfig, *, batching: BatchingOptions | None = None,
                 metrics: Metrics | None = None, tags=("serve",), poll_wait_seconds: float = 1.0,
                 loader=None, unload_timeout: float | None = None):
        check_model_server_config(config)
        self._batching = batching
        self.metrics = metrics if metrics is not None else Metrics()
        self._tags = tuple(tags)
        self._poll_wait = poll_wait_seconds
        self._loader = loader or _default_loader
        self._unload_timeout = unload_timeout
        self._lock = threading.RLock()     # guards the tables
        self._poll_lock = threading.Lock()  # one poll at a time (loading happens outside _lock)
        self._models = {mc.name: _Model(mc) for mc in config.model_config_list.config}
        self._unloaders: list[threading.Thread] = []
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Loads what the base paths hold now, then keeps polling them in a thread."""
        self.poll()
        if self._poll_wait > 0:
            self._poller = threading.Thread(target=self._poll_loop, name="model-poller", daemon=True)
            self._poller.start()

    def _poll_loop(self) -> None:
        while not self._stop.wait(self._poll_wait):
            try:
                self.poll()
            except Exception:  # a poll must never end the poller
                log.exception("polling the model base paths failed")

    def poll(self) -> None:
        with self._poll_lock:
            with self._lock:
                models = list(self._models.values())
            for m in models:
                self._poll_model(m)

    def _poll_model(self, m: _Model) -> None:
        name, base = m.config.name, m.config.base_path
        on_disk = versions_on_disk(base)
        wanted = wanted_versions(m.config, on_disk)
        with self._lock:
            loaded = set(m.versions)
            for v in [v for v in m.failed if v not in on_disk]:  # a failed version removed: forgotten
                del m.failed[v]
        for v in sorted(wanted - loaded):
            if v in m.failed and m.failed[v][0] == on_disk[v]:
                continue  # failed before, unchanged since
            path = os.path.join(base, str(v))
            try:
                model = self._loader(path, self._tags)
            except Exception as e:  # reported through GetModelStatus; the old version serves on
                err = as_op_error(e)
                log.error("model %s version %d (%s) failed to load: %s", name, v, path, err)
                m.failed[v] = (on_disk[v], err)
                continue
            m.failed.pop(v, None)
            servable = ServableVersion(name, v, path, model, self._batching, self.metrics)
            with self._lock:
                if self._models.get(name) is not m:  # removed by a config reload meanwhile
                    self._retire(m, servable)
                    continue
                m.versions[v] = servable
            log.info("model %s version %d is available (%s)", name, v, path)
        with self._lock:
            serving_wanted = set(m.versions) & wanted
            for v in sorted(set(m.versions) - wanted):
                # Keep an unwanted version only while nothing wanted serves and it still exists.
                if not serving_wanted and v in on_disk:
                    continue
                self._retire(m, m.versions.pop(v))

    def _retire(self, m: _Model, servable: ServableVersion) -> None:
        m.retired[servable.version] = servable

        def unload():
            servable.unload(self._unload_timeout)
            with self._lock:
                if m.retired.get(servable.version) is servable:
                    del m.retired[servable.version]
            log.info("model %s version %d unloaded", servable.name, servable.version)
        servable.state = "UNLOADING"
        t = threading.Thread(target=unload, name=f"unload-{servable.name}-{servable.version}", daemon=True)
        self._unloaders = [u for u in self._unloaders if u.is_alive()] + [t]
        t.start()

    def reload_config(self, config: ModelServerConfig) -> None:
        """Serves config's models from now on: new ones are loaded, removed ones retired,
        changed policies and labels apply (ModelService.HandleReloadConfigRequest)."""
        check_model_server_config(config)
        with self._lock:
            new = {mc.name: mc for mc in config.model_config_list.config}
            for name in list(self._models):
                if name not in new:
                    m = self._models.pop(name)
                    for v in list(m.versions):
                        self._retire(m, m.versions.pop(v))
            for name, mc in new.items():
                m = self._models.get(name)
                if m is None or m.config.base_path != mc.base_path:
                    if m is not None:
                        for v in list(m.versions):
                            self._retire(m, m.versions.pop(v))
                    self._models[name] = _Model(mc)
                else:
                    m.config = mc
        self.poll()

    def stop(self, timeout: float | None = None) -> None:
        """Stops polling and unloads every version once its requests finish (up to timeout)."""
        self._stop.set()
        if self._poller is not None:
            self._poller.join()
        with self._lock:
            for m in self._models.values():
                for v in list(m.versions):
                    self._retire(m, m.versions.pop(v))
            unloaders = list(self._unloaders)
        for t in unloaders:
            t.join(timeout)

    # ------------------------------------------------------------------ requests

    def resolve_version(self, name: str, version: int | None = None, label: str | None = None) -> int | None:
        """The version a request names: its number, its label's, or None (the latest)."""
        if label:
            with self._lock:
                m = self._models.get(name)
                if m is None:
                    raise NotFoundError(f"Servable not found for request: Latest({name})")
                if label not in m.config.version_labels:
                    raise InvalidArgumentError(f"Unrecognized servable version label: {label}")
                return m.config.version_labels[label]
        return version

    def acquire(self, name: str, version: int | None = None, label: str | None = None) -> ServableVersion:
        """The servable a request means, held (release() it when done): the given version (or
        label's), else the highest serving. NotFoundError when there is none."""
        version = self.resolve_version(name, version, label)
        with self._lock:
            m = self._models.get(name)
            servable = None
            if m is not None and m.versions:
                servable = m.versions.get(version) if version is not None else m.versions[max(m.versions)]
            if servable is None or not servable.acquire():
                what = f"Specific({name}, {version})" if version is not None else f"Latest({name})"
                raise NotFoundError(f"Servable not found for request: {what}")
            return servable

    def model_names(self) -> list[str]:
        with self._lock:
            return sorted(self._models)

    def status(self, name: str, version: int | None = None, label: str | None = None):
        """[(version, state, error or None)] of the model's versions (or the one named), state
        among AVAILABLE, UNLOADING, END (failed to load). NotFoundError for an unknown model or
        a version it does not have."""
        version = self.resolve_version(name, version, label)
        with self._lock:
            m = self._models.get(name)
            if m is None:
                raise NotFoundError(f"Could not find any versions of model {name}")
            rows = {v: (v, s.state, None) for v, s in m.retired.items()}
            rows.update({v: (v, "END", e) for v, (_, e) in m.failed.items()})
            rows.update({v: (v, s.state, None) for v, s in m.versions.items()})
        if version is not None:
            if version not in rows:
                raise NotFoundError(f"Could not find version {version} of model {name}")
            return [rows[version]]
        if not rows:
            raise NotFoundError(f"Could not find any versions of model {name}")
        return [rows[v] for v in sorted(rows, reverse=True)]
