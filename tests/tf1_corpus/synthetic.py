"""Deterministic, learnable stand-ins for the datasets TF1 tutorials download.

Nothing here imports TensorFlow or opforge: the fakes are plain numpy, so the
same data feeds both backends.

* ``read_data_sets`` mimics ``tensorflow.examples.tutorials.mnist.input_data``
  (and ``tensorflow.contrib.learn.python.learn.datasets.mnist``): it returns
  ``Datasets(train, validation, test)`` whose members behave like TF1's
  ``DataSet`` (``images``, ``labels``, ``num_examples``, ``epochs_completed``,
  ``next_batch``).  Images are float32 in [0, 1] of shape (n, 784) (or
  (n, 28, 28, 1) with ``reshape=False``); labels are uint8 class ids or float64
  one-hot rows, exactly TF1's dtypes.  A program replaces
  ``from tensorflow.examples.tutorials.mnist import input_data`` with
  ``import synthetic as input_data``.
* ``loadtxt`` replaces ``np.loadtxt`` for the CSV files shipped with
  hunkim/DeepLearningZeroToAll, returning arrays of the same shapes.

Every array is generated from fixed seeds, independent of the global numpy
random state, and labels are a function of the inputs, so models really learn.
"""
import collections
import os

import numpy as np

# Sizes of the synthetic MNIST splits (real MNIST: 55000 / 5000 / 10000).
MNIST_TRAIN = 2000
MNIST_VALIDATION = 500
MNIST_TEST = 1000

_CACHE = {}


def _mnist_arrays():
    """Images (uint8, (n, 28, 28, 1)) and labels (uint8) for all splits."""
    if "mnist" in _CACHE:
        return _CACHE["mnist"]
    rng = np.random.RandomState(20240601)
    n = MNIST_TRAIN + MNIST_VALIDATION + MNIST_TEST
    # One sparse 7x7 prototype per class, upsampled to a 28x28 blocky "digit".
    protos = (rng.uniform(0.0, 1.0, size=(10, 7, 7)) < 0.15).astype(np.float32)
    protos = np.kron(protos, np.ones((4, 4), np.float32))  # (10, 28, 28)
    labels = rng.randint(0, 10, size=n).astype(np.uint8)
    # Each image also shows a fainter copy of another class's prototype, so
    # the classes overlap (a linear model reaches about 85-90%, not 100%).
    other = (labels + rng.randint(1, 10, size=n)) % 10
    a = rng.uniform(0.6, 1.0, size=(n, 1, 1)).astype(np.float32)
    b = rng.uniform(0.0, 0.8, size=(n, 1, 1)).astype(np.float32)
    images = a * protos[labels] + b * protos[other]
    # Random translation by up to 2 pixels.
    shifts = rng.randint(-2, 3, size=(n, 2))
    for i in range(n):
        images[i] = np.roll(images[i], tuple(shifts[i]), axis=(0, 1))
    # Pixel noise; like MNIST, the background is exactly 0 (about 25% of the
    # pixels are non-zero, mean intensity about 0.18).
    images = images + rng.normal(0.0, 0.3, size=images.shape)
    images = np.where(images < 0.4, 0.0, np.clip(images, 0.0, 1.0))
    images = np.round(images * 255.0).astype(np.uint8).reshape(n, 28, 28, 1)
    _CACHE["mnist"] = (images, labels)
    return images, labels


def dense_to_one_hot(labels_dense, num_classes):
    """Same as TF1's helper: float64 one-hot rows."""
    num_labels = labels_dense.shape[0]
    index_offset = np.arange(num_labels) * num_classes
    labels_one_hot = np.zeros((num_labels, num_classes))
    labels_one_hot.flat[index_offset + labels_dense.ravel()] = 1
    return labels_one_hot


def _dtype_name(dtype):
    name = getattr(dtype, "name", None)
    if name is None:
        name = np.dtype(dtype).name
    return str(name)


class DataSet:
    """TF1's mnist DataSet (same attributes and next_batch semantics).

    Shuffling uses a private RandomState so the batches do not depend on the
    global numpy random state (which a backend may consume differently).
    """

    def __init__(self, images, labels, fake_data=False, one_hot=False,
                 dtype="float32", reshape=True, seed=None):
        self._rng = np.random.RandomState(1234 if seed is None else seed)
        dtype = _dtype_name(dtype)
        if dtype not in ("uint8", "float32"):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        assert images.shape[0] == labels.shape[0], (
            "images.shape: %s labels.shape: %s" % (images.shape, labels.shape))
        self._num_examples = images.shape[0]
        if reshape:
            assert images.shape[3] == 1
            images = images.reshape(images.shape[0],
                                    images.shape[1] * images.shape[2])
        if dtype == "float32":
            images = images.astype(np.float32)
            images = np.multiply(images, 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """Return the next `batch_size` examples from this data set."""
        start = self._index_in_epoch
        # Shuffle for the first epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            perm0 = np.arange(self._num_examples)
            self._rng.shuffle(perm0)
            self._images = self.images[perm0]
            self._labels = self.labels[perm0]
        # Go to the next epoch
        if start + batch_size > self._num_examples:
            # Finished epoch
            self._epochs_completed += 1
            # Get the rest examples in this epoch
            rest_num_examples = self._num_examples - start
            images_rest_part = self._images[start:self._num_examples]
            labels_rest_part = self._labels[start:self._num_examples]
            # Shuffle the data
            if shuffle:
                perm = np.arange(self._num_examples)
                self._rng.shuffle(perm)
                self._images = self.images[perm]
                self._labels = self.labels[perm]
            # Start next epoch
            start = 0
            self._index_in_epoch = batch_size - rest_num_examples
            end = self._index_in_epoch
            images_new_part = self._images[start:end]
            labels_new_part = self._labels[start:end]
            return (np.concatenate((images_rest_part, images_new_part), axis=0),
                    np.concatenate((labels_rest_part, labels_new_part), axis=0))
        else:
            self._index_in_epoch += batch_size
            end = self._index_in_epoch
            return self._images[start:end], self._labels[start:end]


Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def read_data_sets(train_dir=None, fake_data=False, one_hot=False,
                   dtype="float32", reshape=True, validation_size=5000,
                   seed=None, source_url=None):
    """Synthetic MNIST with TF1's read_data_sets signature (nothing is read)."""
    images, labels = _mnist_arrays()
    if one_hot:
        labels = dense_to_one_hot(labels, 10)
    a, b = MNIST_TRAIN, MNIST_TRAIN + MNIST_VALIDATION
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    train = DataSet(images[:a], labels[:a], **options)
    validation = DataSet(images[a:b], labels[a:b], **options)
    test = DataSet(images[b:], labels[b:], **options)
    return Datasets(train=train, validation=validation, test=test)


# ---------------------------------------------------------------------------
# CSV files of hunkim/DeepLearningZeroToAll
# ---------------------------------------------------------------------------

def _test_score():
    # data-01-test-score.csv: 25 rows, 3 quiz scores and a final score.
    rng = np.random.RandomState(1)
    x = rng.randint(45, 100, size=(25, 3)).astype(np.float64)
    y = x @ np.array([0.5, 0.6, 0.9]) + rng.normal(0, 2.0, size=25)
    return np.concatenate([x, np.round(y)[:, None]], axis=1)


def _stock_daily():
    # data-02-stock_daily.csv: 732 rows of Open, High, Low, Volume, Close.
    rng = np.random.RandomState(2)
    close = 800.0 + np.cumsum(rng.normal(0, 5.0, size=732))
    open_ = close + rng.normal(0, 2.0, size=732)
    high = np.maximum(open_, close) + np.abs(rng.normal(0, 3.0, size=732))
    low = np.minimum(open_, close) - np.abs(rng.normal(0, 3.0, size=732))
    volume = rng.randint(800000, 3000000, size=732).astype(np.float64)
    return np.stack([open_, high, low, volume, close], axis=1)


def _diabetes():
    # data-03-diabetes.csv: 759 rows, 8 features in [-1, 1], a 0/1 label.
    rng = np.random.RandomState(3)
    x = rng.uniform(-1.0, 1.0, size=(759, 8))
    w = rng.normal(0, 1.0, size=8)
    logits = x @ w + 0.8 + rng.normal(0, 0.5, size=759)
    y = (logits > 0).astype(np.float64)
    return np.concatenate([np.round(x, 6), y[:, None]], axis=1)


def _zoo():
    # data-04-zoo.csv: 101 animals, 16 features (15 binary, legs in
    # {0,2,4,5,6,8}), class 0..6 in the last column.
    rng = np.random.RandomState(4)
    protos = (rng.uniform(size=(7, 16)) > 0.5).astype(np.float64)
    legs = np.array([0, 2, 4, 5, 6, 8], np.float64)
    protos[:, 12] = legs[rng.randint(0, 6, size=7)]
    y = rng.randint(0, 7, size=101)
    x = protos[y].copy()
    flip = rng.uniform(size=(101, 16)) < 0.1
    flip[:, 12] = False
    x[flip] = 1.0 - x[flip]
    return np.concatenate([x, y[:, None].astype(np.float64)], axis=1)


def _golbin_data():
    # golbin/TensorFlow-Tutorials "05 - TensorBoard, Saver/data.csv": 6 rows
    # of [fur, wing, one-hot class (other, mammal, bird)]; the class is a
    # function of the two features.
    rng = np.random.RandomState(5)
    x = rng.randint(0, 2, size=(6, 2))
    x[:3] = [[0, 0], [1, 0], [0, 1]]  # every class occurs
    cls = np.where(x[:, 1] == 1, 2, np.where(x[:, 0] == 1, 1, 0))
    return np.concatenate([x, np.eye(3)[cls]], axis=1).astype(np.float64)


_CSV = {
    "data-01-test-score.csv": _test_score,
    "data-02-stock_daily.csv": _stock_daily,
    "data-03-diabetes.csv": _diabetes,
    "data-04-zoo.csv": _zoo,
    "data.csv": _golbin_data,
}


def loadtxt(fname, dtype=float, delimiter=None, unpack=False, **kwargs):
    """np.loadtxt stand-in for the tutorial CSV files (same shapes)."""
    data = _CSV[os.path.basename(fname)]().astype(dtype)
    return data.T if unpack else data


def write_csv(fname):
    """Write the synthetic version of a tutorial CSV file (to the current
    directory) for programs that read it with TF's own readers; returns the
    file name."""
    data = _CSV[os.path.basename(fname)]()
    np.savetxt(fname, data, delimiter=",", fmt="%.6g")
    return fname
