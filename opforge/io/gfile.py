"""``of.io.gfile``: TensorFlow's tf.io.gfile over the local file system (os, shutil, glob),
with TensorFlow's errors (NotFoundError, AlreadyExistsError). ``opforge.compat.v1.gfile``
spells these with TF1's names (Exists, MakeDirs, DeleteRecursively, ...)."""

from __future__ import annotations

import glob as _glob
import os
import shutil

from ..framework.errors import AlreadyExistsError, NotFoundError

__all__ = ["FileStatistics", "GFile", "copy", "exists", "glob", "isdir", "listdir", "makedirs", "mkdir", "remove",
           "rename", "rmtree", "stat", "walk"]


class GFile:
    """A file object (tf.io.gfile.GFile): open(name, mode) with TensorFlow's size()."""

    def __init__(self, name, mode="r"):
        try:
            self._f = open(name, mode)  # noqa: SIM115 (closed by close() / the with block)
        except FileNotFoundError:
            raise NotFoundError(f"{name}: No such file or directory") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        return iter(self._f)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def size(self):
        return os.fstat(self._f.fileno()).st_size


class FileStatistics:
    """What stat() tells of a file: length in bytes, mtime_nsec, is_directory (TF's names)."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


def stat(path):
    """The FileStatistics of path (tf.io.gfile.stat); NotFoundError if it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise NotFoundError(f"{path}: No such file or directory") from None
    import stat as _stat  # noqa: PLC0415 (the standard module; this function is named stat)
    return FileStatistics(st.st_size, st.st_mtime_ns, _stat.S_ISDIR(st.st_mode))


exists = os.path.exists
isdir = os.path.isdir


def glob(pattern):
    """The paths matching pattern, sorted."""
    return sorted(_glob.glob(pattern))


def listdir(path):
    """The names in directory path, sorted (NotFoundError if it does not exist)."""
    if not os.path.isdir(path):
        raise NotFoundError(f"{path}: could not find directory")
    return sorted(os.listdir(path))


def makedirs(path):
    """Creates path and its missing parents (nothing if it exists)."""
    os.makedirs(path, exist_ok=True)


def mkdir(path):
    """Creates the directory path (AlreadyExistsError if it exists)."""
    try:
        os.mkdir(path)
    except FileExistsError:
        raise AlreadyExistsError(f"{path}: file already exists") from None


def remove(path):
    """Deletes the file path (NotFoundError if it does not exist)."""
    try:
        os.remove(path)
    except FileNotFoundError:
        raise NotFoundError(f"{path}: not found") from None


def rmtree(path):
    """Deletes path, a directory with everything in it or a file (NotFoundError if neither)."""
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)
    else:
        raise NotFoundError(f"{path}: not found")


def copy(src, dst, overwrite=False):
    """Copies file src to dst (AlreadyExistsError if dst exists and not overwrite)."""
    if os.path.exists(dst) and not overwrite:
        raise AlreadyExistsError(f"{dst}: file already exists")
    shutil.copyfile(src, dst)


def rename(src, dst, overwrite=False):
    """Moves src to dst (AlreadyExistsError if dst exists and not overwrite)."""
    if os.path.exists(dst) and not overwrite:
        raise AlreadyExistsError(f"{dst}: file already exists")
    os.replace(src, dst)


def walk(top, topdown=True, onerror=None):
    """(directory, subdirectories, files) for top and every directory below it."""
    yield from os.walk(top, topdown=topdown, onerror=onerror)
