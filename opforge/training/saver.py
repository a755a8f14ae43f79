"""Checkpoints in TensorFlow's V2 format: tf.train.Saver and the functions around it.

A checkpoint written here restores in TensorFlow (``tf.compat.v1.train.Saver``,
``tf.train.load_checkpoint``) and one TensorFlow wrote restores here: the files are
TensorFlow's tensor bundle (io/tensor_bundle.py) and the ``checkpoint`` state file is
TensorFlow's CheckpointState in text format.
"""

from __future__ import annotations

import glob
import os
import time

import numpy as np
from google.protobuf import text_format

from ..codegen._proto import checkpoint_state_pb2
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..io import tensor_bundle
from ..io.meta_graph import export_meta_graph, import_scoped_meta_graph
from ..framework.graph import get_default_graph
from ..framework.variables import global_variables

CheckpointState = checkpoint_state_pb2.CheckpointState

__all__ = ["Saver", "latest_checkpoint", "get_checkpoint_state", "checkpoint_exists",
           "update_checkpoint_state", "list_variables", "load_checkpoint", "load_variable",
           "CheckpointReader", "NewCheckpointReader", "CheckpointState", "generate_checkpoint_state_proto"]


# ------------------------------------------------------------------------- the state file


def _state_path(checkpoint_dir, latest_filename=None) -> str:
    return os.path.join(os.fspath(checkpoint_dir), latest_filename or "checkpoint")


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState in ``checkpoint_dir``'s state file (relative paths made relative to
    the current directory again, as TensorFlow does), or None when there is none."""
    path = _state_path(checkpoint_dir, latest_filename)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        state = text_format.Parse(text, CheckpointState())
    except text_format.ParseError as e:
        raise InvalidArgumentError(f"{path}: not a checkpoint state file: {e}", "get_checkpoint_state") from None
    if not state.model_checkpoint_path:
        raise InvalidArgumentError(f"Invalid checkpoint state loaded from {checkpoint_dir}", "get_checkpoint_state")
    d = os.fspath(checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(d, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(d, p)
    return state


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None, last_preserved_timestamp=None):
    """The CheckpointState naming model_checkpoint_path as the latest (and last of
    all_model_checkpoint_paths). As TensorFlow, a relative save_dir gets paths relative to it,
    so the state stays right wherever the run is resumed from."""
    save_dir = os.fspath(save_dir)
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if not os.path.isabs(save_dir):
        model_checkpoint_path = _relative(model_checkpoint_path, save_dir)
        paths = [_relative(p, save_dir) for p in paths]
    state = CheckpointState(model_checkpoint_path=model_checkpoint_path, all_model_checkpoint_paths=paths)
    if all_model_checkpoint_timestamps:
        state.all_model_checkpoint_timestamps.extend(all_model_checkpoint_timestamps)
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Writes the state file (atomically): generate_checkpoint_state_proto's state."""
    save_dir = os.fspath(save_dir)
    state = generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths,
                                            all_model_checkpoint_timestamps, last_preserved_timestamp)
    path = _state_path(save_dir, latest_filename)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text_format.MessageToString(state))
    os.replace(tmp, path)


def _relative(path: str, directory: str) -> str:
    return path if os.path.isabs(path) else os.path.relpath(path, directory)


def checkpoint_exists(checkpoint_prefix) -> bool:
    """True if a V2 checkpoint with this prefix exists (its .index file)."""
    return os.path.exists(tensor_bundle.index_path(os.fspath(checkpoint_prefix)))


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint the state file names, if it exists; else None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _prefix_of(ckpt_dir_or_file) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return found
    return path


class CheckpointReader:
    """Reads a checkpoint's variables (tf.train.load_checkpoint / NewCheckpointReader)."""

    def __init__(self, prefix):
        self._bundle = tensor_bundle.BundleReader(os.fspath(prefix))

    def has_tensor(self, name) -> bool:
        return self._bundle.has_tensor(name)

    def get_tensor(self, name) -> np.ndarray:
        value = self._bundle.tensor(name)
        return value[()] if value.ndim == 0 else value

    def get_variable_to_shape_map(self) -> dict:
        return {n: self._bundle.shape(n) for n in self._bundle.names()}

    def get_variable_to_dtype_map(self) -> dict:
        return {n: self._bundle.dtype(n) for n in self._bundle.names()}


NewCheckpointReader = CheckpointReader


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A reader of the checkpoint (a prefix, or a directory's latest checkpoint)."""
    return CheckpointReader(_prefix_of(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file, name):
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name[:-2] if name.endswith(":0") else name)


def list_variables(ckpt_dir_or_file) -> list:
    """[(name, shape)] of every variable in the checkpoint, sorted by name."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())


# ------------------------------------------------------------------------- Saver


def _checkpoint_name(var) -> str:
    return var.op.name


class Saver:
    """Saves and restores variables (tf.compat.v1.train.Saver), in TensorFlow's V2 format.

    ``var_list``: None (every global variable), a list of variables, or a dict from
    checkpoint names to variables. ``max_to_keep`` newest checkpoints are kept (None or 0:
    all), plus one every ``keep_checkpoint_every_n_hours``. Build it after the variables:
    the restore ops it adds to the graph feed each variable from the checkpoint.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False, write_version=2,
                 pad_step_number=False, save_relative_paths=False, filename=None):
        # TensorFlow's Saver keeps its arguments as these attributes and TF1 programs read them
        # (saver._var_list: the var_list given, else, as TF's build() sets it, every variable).
        if var_list is None:
            var_list = global_variables()
        self._var_list, self._sharded, self._name = var_list, sharded, name
        self._restore_sequentially, self._filename = restore_sequentially, filename
        self._keep_checkpoint_every_n_hours, self._allow_empty = keep_checkpoint_every_n_hours, allow_empty
        self._write_version = write_version
        del builder, defer_build  # one shard, built now
        if saver_def is not None:
            raise NotImplementedError("Saver(saver_def=...) is not supported: build the Saver from variables")
        if write_version != 2:
            raise ValueError("opforge writes V2 checkpoints only (write_version=2)")
        if isinstance(var_list, dict):
            named = dict(var_list)
        else:
            named = {}
            for v in var_list:
                key = _checkpoint_name(v)
                if key in named:
                    raise ValueError(f"At least two variables have the same name: {key}")
                named[key] = v
        if not named and not allow_empty:
            raise ValueError("No variables to save")
        self._vars = named
        self._reshape = reshape
        self._max_to_keep = max_to_keep
        self._keep_every_secs = keep_checkpoint_every_n_hours * 3600.0
        self._next_keep_time = time.time() + self._keep_every_secs
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._last_checkpoints: list[tuple[str, float]] = []
        self._graph = next(iter(named.values())).graph if named else get_default_graph()
        self._restore_feeds = {}
        self._restore_op = None
        if named:
            from .. import ops  # noqa: PLC0415
            g = self._graph
            assigns = []
            with g.as_default(), g.name_scope(name or "save"):
                for key, var in sorted(named.items()):
                    value = g.create_op("Placeholder", [], {"dtype": var.dtype.as_datatype_enum}, name="restore").outputs[0]
                    self._restore_feeds[key] = value
                    assigns.append(ops.assign(var, value, validate_shape=not reshape))
                self._restore_op = g.create_op("NoOp", [], {}, name="restore_all",
                                               control_inputs=[a.op for a in assigns])

    # ---- bookkeeping
    @property
    def last_checkpoints(self) -> list[str]:
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        self._last_checkpoints = [(p, float(t)) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over checkpoints an earlier run left, oldest first (those that still exist)."""
        stamps = []
        for p in checkpoint_paths:
            index = tensor_bundle.index_path(p)
            if os.path.exists(index):
                stamps.append((p, os.path.getmtime(index)))
        self.set_last_checkpoints_with_time(stamps)

    def _record(self, prefix: str, now: float) -> None:
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, now))
        if not self._max_to_keep:
            return
        while len(self._last_checkpoints) > self._max_to_keep:
            oldest, stamp = self._last_checkpoints.pop(0)
            if stamp > self._next_keep_time:  # kept for good: one every N hours of training
                self._next_keep_time += self._keep_every_secs
                continue
            for path in [tensor_bundle.index_path(oldest), oldest + ".meta"] + glob.glob(glob.escape(oldest) + ".data-*"):
                if os.path.exists(path):
                    os.remove(path)

    # ---- save / restore
    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_def_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Writes the variables' current values to the checkpoint ``save_path`` (with
        ``-<global_step>`` appended when given), the graph as ``<prefix>.meta`` (a
        MetaGraphDef) and the state file; returns the checkpoint's prefix."""
        del strip_default_attrs, save_debug_info
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = sess.run(global_step)
            step = int(global_step)
            prefix = f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
        else:
            prefix = save_path
        names = sorted(self._vars)
        values = sess.run([self._vars[n].value() for n in names]) if names else []
        tensor_bundle.write_bundle(prefix, {n: np.asarray(v) for n, v in zip(names, values)},
                                   {n: self._vars[n].dtype for n in names})
        if write_meta_graph:
            export_meta_graph(f"{prefix}.{meta_graph_def_suffix}", graph=self._graph)
        if write_state:
            now = time.time()
            self._record(prefix, now)
            save_dir = os.path.dirname(save_path)
            update_checkpoint_state(save_dir, prefix, self.last_checkpoints, latest_filename,
                                    [t for _, t in self._last_checkpoints])
        return prefix

    def restore(self, sess, save_path):
        """Assigns every variable its value in the checkpoint ``save_path``. All of them are
        read and checked (present, dtype, shape, checksums) before any is assigned, so a bad
        checkpoint changes nothing."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        reader = tensor_bundle.BundleReader(save_path)
        feeds = {}
        for key, var in sorted(self._vars.items()):
            if not reader.has_tensor(key):
                raise NotFoundError(f"Key {key} not found in checkpoint {save_path}", "RestoreV2")
            if reader.dtype(key) != var.dtype:
                raise InvalidArgumentError(
                    f"tensor {key} in checkpoint {save_path} is {reader.dtype(key).name}, the variable is "
                    f"{var.dtype.name}", "RestoreV2")
            want = var.shape.dims
            got = reader.shape(key)
            if not self._reshape and want is not None and (
                    len(want) != len(got) or any(w is not None and w != g for w, g in zip(want, got))):
                raise InvalidArgumentError(
                    f"Assign requires shapes of both tensors to match. lhs shape= {list(want)} rhs shape= "
                    f"{got} (variable {key}, checkpoint {save_path})", "Assign")
            feeds[self._restore_feeds[key]] = reader.tensor(key)
        if self._restore_op is not None:
            sess.run(self._restore_op, feeds)


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **saver_kwargs):
    """Imports a MetaGraphDef (a ``.meta`` file, or the proto) into the default graph,
    restores its collections and returns a Saver of its variables (None when it has none)."""
    if not import_scoped_meta_graph(meta_graph_or_file, clear_devices, import_scope):
        return None
    return Saver(**saver_kwargs)
