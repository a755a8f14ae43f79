"""The summary kernels' protobuf encoding, read back by the Python protobuf into the right fields.

The kernels (kernels/cpu/logging/) encode Summary, Summary.Value, Summary.Image, Summary.Audio,
HistogramProto, TensorProto and TensorShapeProto without libprotobuf, with the field numbers of
the generated proto_fields.h (from proto/). Each test parses a kernel's output with the schema's
Python module, checks every field the kernel writes against a NumPy-computed value, and checks
that no field anywhere in the message went unrecognised: a wrong field number either lands in
another field (a value check fails) or in no field (the unknown-field check fails). These run
without TensorFlow; tests/graph/test_summary.py also compares bytes with TensorFlow's kernels.
"""

from __future__ import annotations

import numpy as np
import pytest
from google.protobuf.unknown_fields import UnknownFieldSet

import opforge as of
from opforge.codegen._proto import summary_pb2, types_pb2


def parse(serialized: bytes) -> summary_pb2.Summary:
    summary = summary_pb2.Summary.FromString(serialized)
    assert_no_unknown_fields(summary)
    return summary


def assert_no_unknown_fields(message, path="Summary"):
    unknown = UnknownFieldSet(message)
    assert len(unknown) == 0, f"{path}: unknown field(s) {[f.field_number for f in unknown]}"
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        for i, item in enumerate(value if field.is_repeated else [value]):
            assert_no_unknown_fields(item, f"{path}.{field.name}[{i}]")


@pytest.fixture
def rng():
    return np.random.default_rng(33)


def test_scalar_summary_fields(rng):
    values = rng.standard_normal(3).astype(np.float32)
    s = parse(of.raw_ops.ScalarSummary(tags=["a", "b/c", "d"], values=values).numpy())
    assert [v.tag for v in s.value] == ["a", "b/c", "d"]
    assert [v.WhichOneof("value") for v in s.value] == ["simple_value"] * 3
    np.testing.assert_array_equal(np.array([v.simple_value for v in s.value], np.float32), values)


def test_histogram_summary_fields(rng):
    values = rng.standard_normal(1000) * 3.0
    s = parse(of.raw_ops.HistogramSummary(tag="weights", values=values).numpy())
    (v,) = s.value
    assert v.tag == "weights" and v.WhichOneof("value") == "histo"
    h = v.histo
    assert (h.min, h.max, h.num) == (values.min(), values.max(), 1000.0)
    assert h.sum == pytest.approx(values.sum(), rel=1e-12)
    assert h.sum_squares == pytest.approx((values * values).sum(), rel=1e-12)
    limits, counts = np.array(h.bucket_limit), np.array(h.bucket)
    assert len(limits) == len(counts) > 10 and counts.sum() == 1000
    assert np.all(np.diff(limits) > 0)
    # bucket[i] counts the values in (limit[i - 1], limit[i]]: recount them with NumPy
    lower = np.concatenate([[-np.inf], limits[:-1]])
    recount = [np.count_nonzero((values > lo) & (values <= hi)) for lo, hi in zip(lower, limits)]
    np.testing.assert_array_equal(counts, recount)


def test_merge_summary_keeps_values_and_tags(rng):
    a = of.raw_ops.ScalarSummary(tags=["x", "y"], values=np.float32([1.0, 2.0]))
    h = of.raw_ops.HistogramSummary(tag="h", values=rng.standard_normal(10))
    s = parse(of.raw_ops.MergeSummary(inputs=[a, h]).numpy())
    assert [v.tag for v in s.value] == ["x", "y", "h"]
    assert [v.WhichOneof("value") for v in s.value] == ["simple_value", "simple_value", "histo"]
    assert s.value[2].histo.num == 10


def test_image_summary_fields(rng):
    images = rng.integers(0, 256, size=(3, 4, 5, 3), dtype=np.uint8)
    s = parse(of.raw_ops.ImageSummary(tag="img", tensor=images, max_images=2).numpy())
    assert [v.tag for v in s.value] == ["img/image/0", "img/image/1"]
    for v in s.value:
        assert v.WhichOneof("value") == "image"
        assert (v.image.height, v.image.width, v.image.colorspace) == (4, 5, 3)
        assert v.image.encoded_image_string.startswith(b"\x89PNG\r\n\x1a\n")


def test_audio_summary_fields(rng):
    clips = rng.uniform(-1, 1, size=(2, 50, 2)).astype(np.float32)
    s = parse(of.raw_ops.AudioSummaryV2(tag="a", tensor=clips, sample_rate=np.float32(8000), max_outputs=3).numpy())
    assert [v.tag for v in s.value] == ["a/audio/0", "a/audio/1"]
    for v in s.value:
        assert v.WhichOneof("value") == "audio"
        au = v.audio
        assert (au.sample_rate, au.num_channels, au.length_frames, au.content_type) == (8000.0, 2, 50, "audio/wav")
        assert au.encoded_audio_string[:4] == b"RIFF" and au.encoded_audio_string[8:12] == b"WAVE"


def test_tensor_summary_fields(rng):
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    value = rng.standard_normal((2, 3))
    s = parse(of.raw_ops.TensorSummaryV2(tag="t", tensor=value,
                                         serialized_summary_metadata=meta.SerializeToString()).numpy())
    (v,) = s.value
    assert v.tag == "t" and v.WhichOneof("value") == "tensor"
    assert v.metadata.plugin_data.plugin_name == "text"
    assert v.tensor.dtype == types_pb2.DT_DOUBLE
    assert [d.size for d in v.tensor.tensor_shape.dim] == [2, 3]
    np.testing.assert_array_equal(np.frombuffer(v.tensor.tensor_content, np.float64).reshape(2, 3), value)

    words = [[b"a", b"bc"], [b"", b"\xc3\xa9"]]
    s = parse(of.raw_ops.TensorSummaryV2(tag="w", tensor=words,
                                         serialized_summary_metadata=meta.SerializeToString()).numpy())
    t = s.value[0].tensor
    assert t.dtype == types_pb2.DT_STRING and [d.size for d in t.tensor_shape.dim] == [2, 2]
    assert list(t.string_val) == [b"a", b"bc", b"", b"\xc3\xa9"]


def _default_bucket_limits() -> np.ndarray:
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    return np.array([-x for x in reversed(positive)] + [0.0] + positive)


def test_histogram_buckets_at_and_beside_every_limit():
    """Each value lands in the bucket of the first limit greater than it (TensorFlow's
    upper_bound), also for the limits themselves and their floating-point neighbours, on both
    signs: the bucket is guessed from a logarithm and corrected against the limits."""
    limits = _default_bucket_limits()
    finite = limits[(np.abs(limits) < 1e19)]
    values = np.concatenate([finite, np.nextafter(finite, np.inf), np.nextafter(finite, -np.inf),
                             [0.0, -0.0, 5e-324, -5e-324, 3e-13, -3e-13]])
    s = parse(of.raw_ops.HistogramSummary(tag="edges", values=values).numpy())
    h = s.value[0].histo
    out_limits, counts = np.array(h.bucket_limit), np.array(h.bucket)
    # bucket i holds [limit i-1, limit i): runs of empty buckets are merged into their last limit
    lower = np.concatenate([[-np.inf], out_limits[:-1]])
    recount = [np.count_nonzero((values >= lo) & (values < hi)) for lo, hi in zip(lower, out_limits)]
    np.testing.assert_array_equal(counts, recount)
    assert counts.sum() == values.size
