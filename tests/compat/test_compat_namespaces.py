"""tf.sysconfig, tf.resource_loader, tf.debugging and tf.load_library."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge.compat.v1 as tf


def test_sysconfig_points_at_the_headers_and_runtime():
    inc, lib = tf.sysconfig.get_include(), tf.sysconfig.get_lib()
    assert os.path.exists(os.path.join(inc, "opforge", "op.h"))
    assert any(f.startswith("libopforge_runtime") for f in os.listdir(lib))
    flags = tf.sysconfig.get_compile_flags()
    assert f"-I{inc}" in flags and "-std=c++17" in flags and f"-D_GLIBCXX_USE_CXX11_ABI={tf.CXX11_ABI_FLAG}" in flags
    assert tf.sysconfig.get_link_flags() == [f"-L{lib}", "-lopforge_runtime", f"-Wl,-rpath,{lib}"]
    info = tf.sysconfig.get_build_info()
    assert set(info) >= {"is_cuda_build", "is_rocm_build"} and isinstance(info["is_cuda_build"], bool)


def test_resource_loader_finds_files_beside_the_calling_module(tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_data_files_path() == here
    assert tf.resource_loader.get_path_to_datafile("x.txt") == os.path.join(here, "x.txt")
    assert tf.resource_loader.load_resource(os.path.abspath(__file__)).startswith(b'"""tf.sysconfig')
    with pytest.raises(FileNotFoundError):
        tf.resource_loader.load_resource(str(tmp_path / "missing"))


def test_debugging_names_check_values():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        checked = tf.debugging.check_numerics(x, "x has NaN")
        with tf.control_dependencies([tf.debugging.assert_positive(x)]):
            y = tf.identity(x)
        finite = tf.debugging.is_finite(x)
        all_finite = tf.debugging.assert_all_finite(x, "not finite")
        with tf.Session() as sess:
            v = np.array([1.0, 2.0, 3.0], np.float32)
            np.testing.assert_array_equal(sess.run([checked, y, all_finite], {x: v})[1], v)
            np.testing.assert_array_equal(sess.run(finite, {x: [1.0, np.inf, np.nan]}), [True, False, False])
            with pytest.raises(tf.errors.InvalidArgumentError, match="x has NaN"):
                sess.run(checked, {x: [np.nan, 1.0, 1.0]})
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(y, {x: [-1.0, 1.0, 1.0]})
    with pytest.raises(AttributeError, match="opforge does not have tf.debugging.enable_check_numerics"):
        tf.debugging.enable_check_numerics  # noqa: B018


def test_load_library_reports_a_bad_path(tmp_path):
    bad = tmp_path / "libnot_ops.so"
    bad.write_bytes(b"not an ELF file")
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a shared library"):
        tf.load_library(str(bad))
    with pytest.raises(tf.errors.InvalidArgumentError, match="libnot_ops.so"):
        tf.load_library(str(tmp_path))  # a folder: every .so in it


def test_zeros_like_of_strings_is_empty_strings():
    """tf.zeros_like of a string tensor: '' everywhere, with the tensor's shape (as TF)."""
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string, [None, 2])
        z = tf.zeros_like(s)
        assert z.dtype == tf.string and z.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            got = sess.run(z, {s: np.array([[b"ab", b"c"], [b"", b"xyz"]], dtype=object)})
    np.testing.assert_array_equal(got, np.array([[b"", b""], [b"", b""]], dtype=object))
    with tf.Graph().as_default():
        z = tf.zeros_like(["apple", "peach", "banana"])  # a Python list of str (TF: ['' '' ''])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(z), np.array([b"", b"", b""], dtype=object))
