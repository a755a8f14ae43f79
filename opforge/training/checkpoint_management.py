"""Managing checkpoint files (TensorFlow's checkpoint_management): deleting a checkpoint,
their modification times, and waiting for new ones."""

from __future__ import annotations

import glob
import os
import time

from ..framework.errors import NotFoundError
from ..io import tensor_bundle
from .saver import latest_checkpoint


def _files_of(prefix: str) -> list[str]:
    """The files of the V2 checkpoint prefix: its .index and its data shards."""
    return sorted(set(glob.glob(glob.escape(prefix) + ".data-?????-of-?????") +
                      [p for p in [tensor_bundle.index_path(prefix)] if os.path.exists(p)]))


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2, meta_graph_suffix="meta"):
    """Deletes the checkpoint's files (index, data shards and its .meta file if any)
    (tf.train.remove_checkpoint); only TensorFlow's V2 format is written by opforge."""
    if checkpoint_format_version != 2:
        raise NotFoundError(f"remove_checkpoint: checkpoint format V{checkpoint_format_version} is not supported "
                            "(opforge writes V2)", None)
    prefix = os.fspath(checkpoint_prefix)
    for path in _files_of(prefix) + [p for p in [f"{prefix}.{meta_graph_suffix}"] if os.path.exists(p)]:
        os.remove(path)


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification time (seconds since the epoch) of each checkpoint that exists
    (tf.train.get_checkpoint_mtimes: the time its index was written)."""
    times = []
    for prefix in checkpoint_prefixes:
        index = tensor_bundle.index_path(os.fspath(prefix))
        if os.path.exists(index):
            times.append(os.path.getmtime(index))
    return times


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new latest checkpoint of checkpoint_dir as it appears, waiting for the next
    at least min_interval_secs after the last; after timeout seconds without one, timeout_fn()
    decides: stop (the default) unless it returns False (tf.train.checkpoints_iterator)."""
    last = None
    while True:
        deadline = None if timeout is None else time.time() + timeout
        found = None
        while True:
            found = latest_checkpoint(checkpoint_dir)
            if found is not None and found != last:
                break
            if deadline is not None and time.time() > deadline:
                found = None
                break
            time.sleep(0.1 if timeout is not None and timeout < 1 else 1)
        if found is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        start = time.time()
        last = found
        yield found
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)
