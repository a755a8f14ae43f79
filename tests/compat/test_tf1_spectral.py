"""TF1's complex and spectral names (opforge/compat/v1/_tf1_spectral.py): tf.complex / real /
imag / conj / angle, tf.to_complex64, tf.fft ... tf.irfftnd, tf.spectral and tf.signal (FFTs,
framing, windows, STFT round trip, mel matrix, DCT, MFCCs) against NumPy, and against
TensorFlow where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf

RNG = np.random.default_rng(1)


def run(t):
    with tf.Session() as s:
        return s.run(t)


def test_complex_functions_in_a_graph():
    with tf.Graph().as_default():
        re = tf.constant([1.0, -2.0])
        c = tf.complex(re, tf.constant([3.0, 4.0]))
        assert c.dtype == tf.complex64
        out = run([tf.real(c), tf.imag(c), tf.conj(c), tf.angle(c), tf.math.angle(re), c,
                   tf.to_complex128(re), tf.math.real(re)])
    z = np.array([1 + 3j, -2 + 4j], np.complex64)
    np.testing.assert_array_equal(out[0], z.real)
    np.testing.assert_array_equal(out[1], z.imag)
    np.testing.assert_array_equal(out[2], np.conj(z))
    np.testing.assert_allclose(out[3], np.angle(z), rtol=1e-6)
    np.testing.assert_allclose(out[4], [0, np.pi], rtol=1e-6)
    assert out[6].dtype == np.complex128
    np.testing.assert_array_equal(out[7], [1.0, -2.0])


def test_fft_names():
    x = (RNG.standard_normal((2, 8)) + 1j * RNG.standard_normal((2, 8))).astype(np.complex64)
    r = RNG.standard_normal((2, 8)).astype(np.float32)
    with tf.Graph().as_default():
        outs = run([tf.fft(x), tf.spectral.ifft(x), tf.signal.rfft(r), tf.signal.irfft(tf.signal.rfft(r)),
                    tf.fftnd(x, [8], [1]), tf.rfftnd(r, [2, 8], [0, 1], Tcomplex=tf.complex64),
                    tf.signal.fftshift(r, axes=1), tf.signal.ifftshift(r)])
    np.testing.assert_allclose(outs[0], np.fft.fft(x), atol=1e-4)
    np.testing.assert_allclose(outs[1], np.fft.ifft(x), atol=1e-5)
    np.testing.assert_allclose(outs[2], np.fft.rfft(r), atol=1e-4)
    np.testing.assert_allclose(outs[3], r, atol=1e-5)
    np.testing.assert_allclose(outs[4], np.fft.fft(x), atol=1e-4)
    np.testing.assert_allclose(outs[5], np.fft.rfftn(r), atol=1e-4)
    np.testing.assert_array_equal(outs[6], np.fft.fftshift(r, axes=1))
    np.testing.assert_array_equal(outs[7], np.fft.ifftshift(r))


def test_signal_framing_windows_and_stft_round_trip():
    sig = RNG.standard_normal((2, 50)).astype(np.float64)
    with tf.Graph().as_default():
        frames = tf.signal.frame(sig, 8, 3)
        padded = tf.signal.frame(sig, 8, 3, pad_end=True)
        added = tf.signal.overlap_and_add(np.ones((4, 5)), 2)
        stfts = tf.signal.stft(sig, 16, 4)
        back = tf.signal.inverse_stft(stfts, 16, 4, window_fn=tf.signal.inverse_stft_window_fn(4))
        windows = [tf.signal.hann_window(6), tf.signal.hann_window(6, periodic=False), tf.signal.hamming_window(5)]
        out = run([frames, padded, added, stfts, back] + windows)
    idx = 3 * np.arange(15)[:, None] + np.arange(8)
    np.testing.assert_array_equal(out[0], sig[:, idx])
    assert out[1].shape == (2, 17, 8)
    want_added = np.zeros(11)
    for f in range(4):
        want_added[2 * f:2 * f + 5] += 1
    np.testing.assert_array_equal(out[2], want_added)
    hann16 = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)
    want = np.fft.rfft(sig[:, 4 * np.arange(9)[:, None] + np.arange(16)] * hann16, 16)
    np.testing.assert_allclose(out[3], want, atol=1e-10)
    assert out[4].shape == (2, 48)  # (9 frames - 1) * 4 + 16
    np.testing.assert_allclose(out[4][:, 12:36], sig[:, 12:36], atol=1e-10)  # where the frames fully overlap
    np.testing.assert_allclose(out[5], 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(6) / 6))
    np.testing.assert_allclose(out[6], np.hanning(6))
    np.testing.assert_allclose(out[7], 0.54 - 0.46 * np.cos(2 * np.pi * np.arange(5) / 5), rtol=1e-6)


def test_dct_mel_and_mfccs():
    scipy_fft = pytest.importorskip("scipy.fft")
    x = RNG.standard_normal((3, 10))
    with tf.Graph().as_default():
        outs = run([tf.signal.dct(x, type=t) for t in (1, 2, 3, 4)] + [tf.signal.dct(x, norm="ortho"),
                   tf.signal.idct(x, type=2), tf.signal.dct(x, n=6)])
    for t, got in zip((1, 2, 3, 4), outs):
        np.testing.assert_allclose(got, scipy_fft.dct(x, type=t), atol=1e-10)
    np.testing.assert_allclose(outs[4], scipy_fft.dct(x, norm="ortho"), atol=1e-10)
    np.testing.assert_allclose(outs[5], scipy_fft.dct(x, type=3), atol=1e-10)
    np.testing.assert_allclose(outs[6], scipy_fft.dct(x[:, :6]), atol=1e-10)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dct: type"):
        tf.signal.dct(x, type=5)


def test_against_tensorflow():
    real_tf = pytest.importorskip("tensorflow")
    logmel = RNG.standard_normal((4, 12)).astype(np.float32)
    with tf.Graph().as_default():
        ours = run([tf.signal.linear_to_mel_weight_matrix(10, 33, 16000, 20.0, 4000.0),
                    tf.signal.mfccs_from_log_mel_spectrograms(logmel)])
    np.testing.assert_allclose(ours[0], real_tf.signal.linear_to_mel_weight_matrix(10, 33, 16000, 20.0,
                                                                                   4000.0).numpy(), atol=1e-5)
    np.testing.assert_allclose(ours[1], real_tf.signal.mfccs_from_log_mel_spectrograms(logmel).numpy(), atol=1e-4)
