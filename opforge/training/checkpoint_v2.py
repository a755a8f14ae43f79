"""Object-based checkpoints: tf.train.Checkpoint, tf.train.CheckpointManager,
tf.train.CheckpointOptions.

A Checkpoint tracks the objects given as its keyword arguments: variables, tf.Modules (their
variables, by attribute path), other Checkpoints, optimizers (their ``variables()``) and lists
or dicts of these. It writes every tracked variable into a TensorFlow V2 checkpoint (a tensor
bundle, the format tf.train.Saver writes: ``<prefix>.index`` + ``<prefix>.data-00000-of-00001``)
under TF2's object-based key, the path of attribute names from the checkpoint down to the
variable: ``model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE``, ``save_counter/.ATTRIBUTES/...``.
TensorFlow's object graph (``_CHECKPOINTABLE_OBJECT_GRAPH``, the proto TF's own Checkpoint
matches objects by) is not written: tf.train.load_checkpoint / list_variables read the values
by those keys, and opforge's Checkpoint restores them by path.

In a graph (TF1 programs), values are read and assigned with a Session: ``session=`` or the
default session; ``restore`` returns a status whose ``run_restore_ops(session)`` (or
``initialize_or_restore``) assigns them, as TF1's. Eagerly, restore assigns at once. Variables
created after ``restore`` are not restored later (TF's deferred restoration is not done):
build the objects first.

``save_counter`` counts the saves (``save`` numbers its prefixes ``<prefix>-<n>``); it is kept
by the Checkpoint object as a Python int and written as ``save_counter`` like TF's.
"""

from __future__ import annotations

import os
import time

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.default_session import get_default_session
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.module import Module, is_variable
from ..io import tensor_bundle
from .saver import checkpoint_exists, get_checkpoint_state, update_checkpoint_state

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions"]

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_SAVE_COUNTER = "save_counter" + _SUFFIX


class CheckpointOptions:
    """Options of Checkpoint.save/write/restore (tf.train.CheckpointOptions). opforge writes
    from the host, synchronously, one shard: an async or sharded request is refused."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_skip_slot_variables=False,
                 experimental_sharding_callback=None):
        if experimental_enable_async_checkpoint or enable_async:
            raise NotImplementedError("CheckpointOptions: asynchronous checkpoints are not supported by opforge")
        if experimental_sharding_callback is not None:
            raise NotImplementedError("CheckpointOptions: opforge writes one shard (no sharding callback)")
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = False
        self.enable_async = False
        self.experimental_write_callbacks = list(experimental_write_callbacks or [])
        self.experimental_skip_slot_variables = bool(experimental_skip_slot_variables)
        self.experimental_sharding_callback = None


def _tracked_variables(obj, path, out, seen):
    """(key, variable) pairs of obj's variables, keyed by attribute path."""
    if is_variable(obj):
        if id(obj) not in seen:
            seen.add(id(obj))
            out.append(("/".join(path) + _SUFFIX, obj))
        return
    if isinstance(obj, Checkpoint):
        for name in sorted(obj._deps):
            _tracked_variables(obj._deps[name], path + (name,), out, seen)
        return
    if isinstance(obj, Module):
        for sub_path, v in obj._flatten(predicate=is_variable, with_path=True):
            _tracked_variables(v, path + tuple(str(p) for p in sub_path), out, seen)
        return
    if isinstance(obj, dict):
        for k in sorted(obj, key=str):
            _tracked_variables(obj[k], path + (str(k),), out, seen)
        return
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _tracked_variables(v, path + (str(i),), out, seen)
        return
    variables = getattr(obj, "variables", None)  # an optimizer: its slots and accumulators
    if callable(variables):
        for v in variables():
            name = getattr(v, "op", None)
            _tracked_variables(v, path + ((name.name if name is not None else v.name).replace(":0", ""),), out, seen)
        return
    if obj is not None:
        raise ValueError(f"Checkpoint: cannot track {obj!r} of type {type(obj).__name__}: give variables, "
                         f"tf.Modules, Checkpoints, optimizers, or lists/dicts of them")


def _session_for(variables, session):
    graph_vars = [v for v in variables if hasattr(v, "_variable_op")]
    if not graph_vars:
        return None
    sess = session or get_default_session()
    if sess is None:
        raise ValueError("Checkpoint: graph variables are read and assigned with a Session: pass session= or "
                         "run inside `with sess.as_default()`")
    return sess


class _RestoreStatus:
    """What Checkpoint.restore returns: assigns the values (eagerly already, in a graph with
    run_restore_ops) and checks how checkpoint and objects matched."""

    def __init__(self, checkpoint, save_path, matched, unmatched_objects, unused_keys):
        self._checkpoint = checkpoint
        self._save_path = save_path
        self._matched = matched  # [(variable, value)]
        self._unmatched_objects = unmatched_objects
        self._unused_keys = unused_keys
        self._done = False

    def assert_consumed(self):
        """Raises AssertionError unless every value was matched and every tracked variable
        restored."""
        if self._unused_keys or self._unmatched_objects:
            raise AssertionError(f"Unresolved objects: values in the checkpoint {self._save_path} not matched: "
                                 f"{self._unused_keys}; tracked variables not in it: {self._unmatched_objects}")
        return self

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a tracked variable has no value in the checkpoint."""
        if self._unmatched_objects:
            raise AssertionError(f"tracked variables not found in {self._save_path}: {self._unmatched_objects}")
        return self

    def assert_nontrivial_match(self):
        if not self._matched:
            raise AssertionError(f"nothing in {self._save_path} matched the checkpoint's objects")
        return self

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Assigns the restored values (graph variables through session or the default one)."""
        sess = _session_for([v for v, _ in self._matched], session)
        graph_assigns = {}
        for var, value in self._matched:
            if hasattr(var, "_variable_op"):
                graph_assigns[var] = value
            else:
                var.assign(value)
        if graph_assigns:
            self._checkpoint._assign_in_graph(sess, graph_assigns)
        self._done = True

    def initialize_or_restore(self, session=None):
        self.run_restore_ops(session)


class Checkpoint:
    """Saves and restores the variables of the tracked objects (tf.train.Checkpoint; see the
    module docstring for the format)."""

    def __init__(self, root=None, **kwargs):
        deps = dict(kwargs)
        if root is not None:
            deps["root"] = root
        for name, value in deps.items():
            _tracked_variables(value, (name,), [], set())  # refuses untrackable objects now
        self._deps = deps
        self._save_counter = 0
        self._assigns = {}  # graph variable -> (placeholder, assign op)

    def __getattr__(self, name):
        deps = self.__dict__.get("_deps", {})
        if name in deps:
            return deps[name]
        raise AttributeError(f"'Checkpoint' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        _tracked_variables(value, (name,), [], set())
        self._deps[name] = value

    @property
    def save_counter(self) -> int:
        """The number of save() calls so far (restored from a checkpoint that has it)."""
        return self._save_counter

    def _variables(self):
        out: list = []
        seen: set = set()
        for name in sorted(self._deps):
            _tracked_variables(self._deps[name], (name,), out, seen)
        return out

    # ---- writing
    def write(self, file_prefix, session=None, options=None):
        """Writes the tracked variables to exactly file_prefix (no counter, no state file);
        returns the prefix."""
        del options
        file_prefix = os.fspath(file_prefix)
        pairs = self._variables()
        sess = _session_for([v for _, v in pairs], session)
        graph_pairs = [(k, v) for k, v in pairs if hasattr(v, "_variable_op")]
        values = dict(zip((k for k, _ in graph_pairs), sess.run([v.value() for _, v in graph_pairs]))) \
            if graph_pairs else {}
        tensors, dtypes = {}, {}
        for key, var in pairs:
            tensors[key] = np.asarray(values[key] if key in values else var.numpy())
            dtypes[key] = var.dtype
        tensors[_SAVE_COUNTER] = np.asarray(self._save_counter, np.int64)
        dtypes[_SAVE_COUNTER] = _dtypes.int64
        os.makedirs(os.path.dirname(file_prefix) or ".", exist_ok=True)
        tensor_bundle.write_bundle(file_prefix, tensors, dtypes)
        return file_prefix

    def save(self, file_prefix, session=None, options=None):
        """Counts the save, writes ``<file_prefix>-<save_counter>`` and names it in the directory's
        state file (``checkpoint``) as the latest; returns the path."""
        self._save_counter += 1
        try:
            path = self.write(f"{os.fspath(file_prefix)}-{self._save_counter}", session, options)
        except BaseException:
            self._save_counter -= 1
            raise
        directory = os.path.dirname(path)
        state = get_checkpoint_state(directory) if os.path.exists(os.path.join(directory or ".", "checkpoint")) \
            else None
        paths = [p for p in (state.all_model_checkpoint_paths if state else []) if p != path] + [path]
        update_checkpoint_state(directory or ".", path, paths)
        return path

    # ---- reading
    def read(self, save_path, options=None):
        """restore() without the save counter's bookkeeping (TF's read)."""
        return self.restore(save_path, options)

    def restore(self, save_path, options=None):
        """Matches the checkpoint's values to the tracked variables by path; returns a status
        (assigned already for eager variables; run_restore_ops assigns graph variables). None
        save_path: nothing to restore (a status that matched nothing)."""
        del options
        pairs = self._variables()
        if save_path is None:
            return _RestoreStatus(self, None, [], [k for k, _ in pairs], [])
        save_path = os.fspath(save_path)
        if not checkpoint_exists(save_path):
            raise NotFoundError(f"Failed to restore from checkpoint {save_path}: no such checkpoint", "RestoreV2")
        reader = tensor_bundle.BundleReader(save_path)
        keys = set(reader.names())
        matched, unmatched = [], []
        for key, var in pairs:
            if key not in keys:
                unmatched.append(key)
                continue
            if reader.dtype(key) != var.dtype:
                raise InvalidArgumentError(f"{key} in checkpoint {save_path} is {reader.dtype(key).name}, the "
                                           f"variable is {var.dtype.name}", "RestoreV2")
            want = var.shape.dims if hasattr(var.shape, "dims") else tuple(var.shape)
            got = reader.shape(key)
            if want is not None and (len(want) != len(got) or any(w is not None and w != g
                                                                  for w, g in zip(want, got))):
                raise InvalidArgumentError(f"{key}: checkpoint {save_path} has shape {got}, the variable "
                                           f"{list(want)}", "RestoreV2")
            matched.append((var, reader.tensor(key)))
        if _SAVE_COUNTER in keys:
            self._save_counter = int(reader.tensor(_SAVE_COUNTER))
        used = {k for k, _ in pairs} | {_SAVE_COUNTER}
        status = _RestoreStatus(self, save_path, matched, unmatched, sorted(keys - used))
        if not any(hasattr(v, "_variable_op") for v, _ in matched):
            status.run_restore_ops()
        return status

    def _assign_in_graph(self, sess, values: dict):
        """Assigns graph variables their values, with one placeholder+Assign per variable
        (built once)."""
        from .. import ops  # noqa: PLC0415
        feeds, fetches = {}, []
        for var, value in values.items():
            entry = self._assigns.get(id(var))
            if entry is None:
                g = var.graph
                with g.as_default(), g.name_scope("checkpoint_restore"):
                    ph = g.create_op("Placeholder", [], {"dtype": var.dtype.as_datatype_enum}, name="value").outputs[0]
                    entry = self._assigns[id(var)] = (ph, ops.assign(var, ph, validate_shape=False))
            feeds[entry[0]] = value
            fetches.append(entry[1].op if hasattr(entry[1], "op") else entry[1])
        sess.run(fetches, feeds)


class CheckpointManager:
    """Numbered checkpoints of a Checkpoint in a directory, the max_to_keep newest kept
    (tf.train.CheckpointManager)."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None,
                 last_checkpoint_step=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: expected a tf.train.Checkpoint, got {type(checkpoint).__name__}")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_secs = None if keep_checkpoint_every_n_hours is None else keep_checkpoint_every_n_hours * 3600
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = last_checkpoint_step
        self._init_fn = init_fn
        state = get_checkpoint_state(self._directory) if os.path.exists(
            os.path.join(self._directory, "checkpoint")) else None
        now = time.time()
        self._maybe_delete: list[tuple[str, float]] = []
        if state is not None:
            stamps = list(state.all_model_checkpoint_timestamps) or [now] * len(state.all_model_checkpoint_paths)
            self._maybe_delete = [(p, t) for p, t in zip(state.all_model_checkpoint_paths, stamps)
                                  if checkpoint_exists(p)]
            self._last_preserved = state.last_preserved_timestamp or now
        else:
            self._last_preserved = now
        self._latest = self._maybe_delete[-1][0] if self._maybe_delete else None

    directory = property(lambda self: self._directory)
    checkpoint = property(lambda self: self._checkpoint)
    checkpoint_interval = property(lambda self: self._checkpoint_interval)
    latest_checkpoint = property(lambda self: self._latest)

    @property
    def checkpoints(self) -> list[str]:
        """The kept checkpoints' prefixes, oldest first."""
        return [p for p, _ in self._maybe_delete]

    def _step(self, session):
        value = self._step_counter
        if hasattr(value, "_variable_op"):
            return int(_session_for([value], session).run(value.value()))
        return int(value.numpy() if hasattr(value, "numpy") else value)

    def save(self, checkpoint_number=None, check_interval=True, options=None, session=None):
        """Writes the next checkpoint (``<directory>/<checkpoint_name>-<n>``: n is
        checkpoint_number, else the Checkpoint's save counter), deletes the oldest beyond
        max_to_keep, updates the state file; returns the path, or None when
        checkpoint_interval says it is not time yet."""
        if self._checkpoint_interval is not None and check_interval:
            step = self._step(session)
            if self._last_checkpoint_step is not None and step < self._last_checkpoint_step + self._checkpoint_interval:
                return None
            self._last_checkpoint_step = step
        ckpt = self._checkpoint
        ckpt._save_counter += 1
        number = ckpt._save_counter if checkpoint_number is None else int(
            checkpoint_number.numpy() if hasattr(checkpoint_number, "numpy") else checkpoint_number)
        try:
            path = ckpt.write(f"{self._prefix}-{number}", session, options)
        except BaseException:
            ckpt._save_counter -= 1
            raise
        now = time.time()
        self._maybe_delete = [(p, t) for p, t in self._maybe_delete if p != path] + [(path, now)]
        self._latest = path
        self._sweep()
        update_checkpoint_state(self._directory, path, self.checkpoints,
                                all_model_checkpoint_timestamps=[t for _, t in self._maybe_delete],
                                last_preserved_timestamp=self._last_preserved)
        return path

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.pop(0)
            if self._keep_every_secs is not None and stamp - self._keep_every_secs >= self._last_preserved:
                self._last_preserved = stamp  # kept for good
                continue
            for f in [tensor_bundle.index_path(path)] + [
                    os.path.join(os.path.dirname(path), n) for n in os.listdir(os.path.dirname(path) or ".")
                    if n.startswith(os.path.basename(path) + ".data-")]:
                if os.path.exists(f):
                    os.remove(f)

    def restore_or_initialize(self, session=None):
        """Restores the latest checkpoint if there is one (returns its path); else runs init_fn
        (returns None)."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest).run_restore_ops(session)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None
