"""``tf.data.experimental`` and tf.data's options: the transformations TF1 input code applies
with ``dataset.apply(...)`` (shuffle_and_repeat, map_and_batch, parallel_interleave,
group_by_window, bucket_by_sequence_length, ignore_errors, unbatch), ``cardinality`` and its constants, ``Options`` /
``ThreadingOptions`` (``deterministic`` sets the order of parallel maps; the thread-pool
sizes are accepted: opforge's pipeline threads are its own), and ``NumpyIterator``."""

from __future__ import annotations

from ..framework.errors import InvalidArgumentError
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, _rebuild, implements
from .native import from_variant, to_variant
from .parallel import AUTOTUNE

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Options", "ThreadingOptions",
           "OptimizationOptions", "NumpyIterator", "cardinality", "shuffle_and_repeat", "map_and_batch",
           "parallel_interleave", "group_by_window", "bucket_by_sequence_length", "ignore_errors", "unbatch",
           "get_single_element", "from_variant", "to_variant"]


class _OptionGroup:
    """Options with fixed names, each None (TensorFlow's default) until set; setting a name
    the group does not have is an AttributeError, as in TensorFlow."""

    _names: tuple = ()

    def __init__(self):
        for n in self._names:
            object.__setattr__(self, n, None)

    def __setattr__(self, name, value):
        if name not in self._names:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}")
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, n) == getattr(other, n) for n in self._names)

    __hash__ = None

    def merge(self, other):
        """A copy with other's set options over this one's."""
        out = type(self)()
        for n in self._names:
            mine, theirs = getattr(self, n), getattr(other, n)
            if isinstance(mine, _OptionGroup):
                object.__setattr__(out, n, mine.merge(theirs))
            else:
                object.__setattr__(out, n, theirs if theirs is not None else mine)
        return out


class ThreadingOptions(_OptionGroup):
    """tf.data.ThreadingOptions (private_threadpool_size, max_intra_op_parallelism)."""

    _names = ("private_threadpool_size", "max_intra_op_parallelism")


class OptimizationOptions(_OptionGroup):
    """tf.data.experimental.OptimizationOptions (the graph rewrites TensorFlow's tf.data may
    apply; opforge runs the pipeline as written)."""

    _names = ("apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
              "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization",
              "noop_elimination", "parallel_batch", "seq_interleave_prefetch", "shuffle_and_repeat_fusion")


@implements
class Options(_OptionGroup):
    """tf.data.Options: ``deterministic`` (also ``experimental_deterministic``) is the default
    order of parallel maps; ``threading`` and ``experimental_optimization`` are groups."""

    _names = ("deterministic", "threading", "experimental_optimization", "experimental_slack",
              "experimental_external_state_policy", "experimental_warm_start", "autotune",
              "experimental_distribute", "experimental_symbolic_checkpoint")

    def __init__(self):
        super().__init__()
        object.__setattr__(self, "threading", ThreadingOptions())
        object.__setattr__(self, "experimental_optimization", OptimizationOptions())

    experimental_threading = property(lambda self: self.threading)

    @property
    def experimental_deterministic(self):
        return self.deterministic

    @experimental_deterministic.setter
    def experimental_deterministic(self, value):
        self.deterministic = value

    def __setattr__(self, name, value):
        if name == "experimental_deterministic":
            name = "deterministic"
        super().__setattr__(name, value)


@implements
class NumpyIterator:
    """tf.data.NumpyIterator: a dataset's elements as NumPy values (eager)."""

    def __init__(self, dataset):
        dataset._no_windows("iteration")
        if dataset._sources:
            raise InvalidArgumentError("a dataset made from graph tensors is iterated in a Session", "Dataset")
        self._dataset = dataset
        self._elements = dataset._elements({})

    def __iter__(self):
        return self

    def __next__(self):
        element = next(self._elements)
        flat = [a[()] if getattr(a, "ndim", 1) == 0 else a for a in element]
        return _rebuild(self._dataset._structure, flat)


def cardinality(dataset):
    """The dataset's number of elements as an int64 scalar tensor (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """dataset.shuffle(buffer_size, seed).repeat(count), each pass shuffled anew."""
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """dataset.map(map_func, num_parallel_calls).batch(batch_size, drop_remainder) (TensorFlow's
    fused MapAndBatchDataset gives the same elements)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("map_and_batch: give num_parallel_batches or num_parallel_calls, not both")
    calls = num_parallel_calls if num_parallel_batches is None else int(num_parallel_batches) * int(batch_size)
    return lambda ds: ds.map(map_func, num_parallel_calls=calls).batch(batch_size, drop_remainder)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """dataset.interleave(map_func, cycle_length, block_length) with the open inputs read on
    threads (sloppy=True allows any order; opforge keeps the deterministic one)."""
    del sloppy, buffer_output_elements, prefetch_input_elements
    return lambda ds: ds.interleave(map_func, cycle_length, block_length, num_parallel_calls=cycle_length)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    return lambda ds: ds.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    return lambda ds: ds.bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                                                   padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                                   drop_remainder)


def ignore_errors(log_warning=False):
    return lambda ds: ds.ignore_errors()


def unbatch():
    return lambda ds: ds.unbatch()


def get_single_element(dataset):
    """The only element of a dataset (eager), as TensorFlow's get_single_element: an empty or
    longer dataset is an InvalidArgumentError."""
    it = iter(dataset)
    first = next(it, None)
    if first is None:
        raise InvalidArgumentError("Dataset was empty.", "DatasetToSingleElement")
    if next(it, None) is not None:
        raise InvalidArgumentError("Dataset had more than one element.", "DatasetToSingleElement")
    return first

