"""DecodeWav and EncodeWav (tf.audio) against Python's wave module, TensorFlow's bytes when it is
installed, and the diagnostics."""

import io
import wave

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.ops import audio_ops


def _wav(samples, rate, width=2):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2" if width == 2 else "u1").tobytes())
    return buf.getvalue()


def test_decode_against_the_wave_module(rng):
    pcm = rng.integers(-32768, 32768, (37, 2)).astype(np.int16)
    audio, rate = audio_ops.decode_wav(_wav(pcm, 22050))
    np.testing.assert_array_equal(np.asarray(audio), pcm / 32768.0)
    assert int(rate) == 22050 and np.asarray(audio).dtype == np.float32
    one, _ = audio_ops.decode_wav(_wav(pcm, 8000), desired_channels=3, desired_samples=40)
    want = np.zeros((40, 3))
    want[:37, :2] = pcm / 32768.0
    want[:37, 2] = pcm[:, 1] / 32768.0  # the last channel repeats
    np.testing.assert_array_equal(np.asarray(one), want)


def test_encode_round_trip_and_the_wave_module(rng):
    audio = np.clip(rng.standard_normal((25, 3)) * 0.6, -1.3, 1.3).astype(np.float32)
    data = np.asarray(audio_ops.encode_wav(audio, 44100)).item()
    with wave.open(io.BytesIO(data)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (3, 2, 44100, 25)
        pcm = np.frombuffer(w.readframes(25), "<i2").reshape(25, 3)
    np.testing.assert_array_equal(pcm, np.clip(np.round(audio * 32768), -32768, 32767).astype(np.int16))
    back, _ = audio_ops.decode_wav(data)
    np.testing.assert_allclose(np.asarray(back), np.clip(audio, -1, 32767 / 32768), atol=1 / 32768)


def test_matches_tensorflow(rng):
    real = pytest.importorskip("tensorflow")
    audio = np.clip(rng.standard_normal((30, 2)) * 0.5, -1.1, 1.1).astype(np.float32)
    data = np.asarray(audio_ops.encode_wav(audio, 16000)).item()
    assert data == real.audio.encode_wav(audio, 16000).numpy()
    for kw in ({}, {"desired_channels": 1, "desired_samples": 12}):
        got, want = audio_ops.decode_wav(data, **kw), real.audio.decode_wav(data, **kw)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0].numpy())


def test_compat_graph_and_diagnostics(graph, rng):
    contents = tf.placeholder(tf.string, [])
    audio, rate = tf.audio.decode_wav(contents, desired_channels=2)
    assert audio.shape.as_list() == [None, 2] and rate.shape.as_list() == []
    with tf.Session() as sess:
        got = sess.run(audio, {contents: _wav(np.ones((4, 1), np.int16), 100)})
        assert got.shape == (4, 2)
        with pytest.raises(of.InvalidArgumentError, match="DecodeWav.*16-bit"):
            sess.run(audio, {contents: _wav(np.ones((4, 1), np.uint8), 100, width=1)})
        with pytest.raises(of.InvalidArgumentError, match="DecodeWav.*RIFF"):
            sess.run(audio, {contents: b"not a wav file"})
        with pytest.raises(of.InvalidArgumentError, match="DecodeWav.*past the end"):
            sess.run(audio, {contents: _wav(np.ones((4, 1), np.int16), 100)[:-3]})
    with pytest.raises(of.InvalidArgumentError, match="EncodeWav.*2-dimensional"):
        tf.audio.encode_wav(tf.placeholder(tf.float32, [3]), 100)


def test_encode_diagnostics():
    with pytest.raises(of.InvalidArgumentError, match="EncodeWav.*2-dimensional"):
        audio_ops.encode_wav(np.zeros(3, np.float32), 100)
    with pytest.raises(of.InvalidArgumentError, match="EncodeWav.*sample_rate must be positive"):
        audio_ops.encode_wav(np.zeros((3, 1), np.float32), 0)
