"""Files shipped beside a program's modules (TensorFlow's resource_loader): paths are relative
to the folder of the module that calls these functions."""

from __future__ import annotations

import os
import sys


def _caller_dir() -> str:
    """The folder of the module that called the function calling this one."""
    return os.path.dirname(os.path.abspath(sys._getframe(2).f_globals.get("__file__", os.curdir)))


def get_data_files_path():
    """The folder of the calling module (tf.resource_loader.get_data_files_path)."""
    return _caller_dir()


def get_path_to_datafile(path):
    """path relative to the calling module's folder."""
    return os.path.join(_caller_dir(), path)


def load_resource(path):
    """The bytes of the file at path (relative to the calling module's folder, or absolute)."""
    with open(os.path.join(_caller_dir(), path), "rb") as f:
        return f.read()


def get_root_dir_with_all_resources():
    """The folder resources are found under: the calling module's."""
    return _caller_dir()


def readahead_file_path(path, readahead="128M"):
    """path itself (TensorFlow's readahead is a hint for its remote file systems)."""
    del readahead
    return path
