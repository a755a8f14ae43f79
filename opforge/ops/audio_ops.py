"""tf.audio: 16-bit PCM WAV files to and from float tensors (DecodeWav, EncodeWav:
opdefs/io/, kernels/cpu/io/wav_ops.cc)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops

__all__ = ["decode_wav", "encode_wav"]


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """(audio [samples, channels] float32 in [-1, 1), sample_rate int32) of a 16-bit PCM WAV file
    (tf.audio.decode_wav)."""
    return _ops.decode_wav(contents, desired_channels=int(desired_channels), desired_samples=int(desired_samples),
                           name=name)


def encode_wav(audio, sample_rate, name=None):
    """A 16-bit PCM WAV file (a string scalar) of audio [samples, channels] in [-1, 1] at
    sample_rate samples per second (tf.audio.encode_wav)."""
    if isinstance(sample_rate, (int, np.integer)):
        sample_rate = np.int32(sample_rate)
    return _ops.encode_wav(audio, sample_rate, name=name)
