"""TensorBoard summaries, TensorFlow 1's way: the ScalarSummary / HistogramSummary /
MergeSummary ops (serialized Summary protos in string tensors), tf.summary.scalar / histogram /
merge / merge_all with TF's tags and collections, and FileWriter's event files (TFRecord
framing with masked CRC-32C), read back by our own reader, by TensorFlow's summary_iterator
and by tensorboard's EventAccumulator when those are installed."""

from __future__ import annotations

import glob
import struct

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge import _C
from opforge.errors import InvalidArgumentError
from opforge.codegen._proto import event_pb2, summary_pb2


def _run(build):
    with tf1.Graph().as_default(), tf1.Session() as sess:
        return sess.run(build())


# ---------------------------------------------------------------- CRC-32C


@pytest.mark.parametrize("data, crc", [
    (b"", 0),
    (b"123456789", 0xE3069283),
    (bytes(32), 0x8A9136AA),  # RFC 3720's test vectors
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
])
def test_crc32c_known_values(data, crc):
    assert _C.crc32c(data) == crc


def test_crc32c_extends_across_chunks():
    data = np.random.default_rng(0).integers(0, 256, size=1000, dtype=np.uint8).tobytes()
    for cut in (0, 1, 7, 8, 9, 500, 999):
        assert _C.crc32c(data[cut:], _C.crc32c(data[:cut])) == _C.crc32c(data)


# ---------------------------------------------------------------- the ops


def test_scalar_summary_values():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(2, 3))
    tags = [[f"t{i}{j}" for j in range(3)] for i in range(2)]
    s = summary_pb2.Summary.FromString(of.raw_ops.ScalarSummary(tags=tags, values=values).numpy())
    assert [v.tag for v in s.value] == [t for row in tags for t in row]
    np.testing.assert_allclose([v.simple_value for v in s.value], values.ravel().astype(np.float32), rtol=0)
    ints = summary_pb2.Summary.FromString(of.raw_ops.ScalarSummary(tags="n", values=np.int64(-7)).numpy())
    assert ints.value[0].simple_value == -7


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
def test_histogram_matches_numpy(dtype):
    rng = np.random.default_rng(2)
    values = (rng.normal(size=500) * 50).astype(dtype)
    h = summary_pb2.Summary.FromString(of.raw_ops.HistogramSummary(tag="h", values=values).numpy()).value[0].histo
    v = values.astype(np.float64)
    assert (h.min, h.max, h.num) == (v.min(), v.max(), v.size)
    np.testing.assert_allclose([h.sum, h.sum_squares], [v.sum(), (v * v).sum()], rtol=1e-12)
    assert sum(h.bucket) == v.size
    limits = np.array(h.bucket_limit)
    assert np.all(np.diff(limits) > 0)
    # Each listed bucket holds the values in [previous limit, limit).
    lower = np.concatenate([[-np.inf], limits[:-1]])
    counted = [np.sum((v >= lo) & (v < hi)) for lo, hi in zip(lower, limits)]
    np.testing.assert_array_equal(counted, h.bucket)


def test_histogram_is_tensorflows_byte_for_byte():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    for values in (rng.normal(size=(7, 11)).astype(np.float32), rng.integers(-1000, 1000, size=64),
                   np.zeros(0, np.float32), np.array([0.0, 1e-15, -1e-15, 1e25])):
        ours = of.raw_ops.HistogramSummary(tag="x/y", values=values).numpy()
        theirs = tf.raw_ops.HistogramSummary(tag="x/y", values=values).numpy()
        assert ours == theirs


def test_merge_keeps_every_value_in_order():
    a = of.raw_ops.ScalarSummary(tags=["a", "b"], values=np.array([1.0, 2.0], np.float32))
    h = of.raw_ops.HistogramSummary(tag="h", values=np.arange(5.0))
    merged = summary_pb2.Summary.FromString(of.raw_ops.MergeSummary(inputs=[a, h]).numpy())
    assert [v.tag for v in merged.value] == ["a", "b", "h"]
    assert merged.value[2].histo.num == 5


@pytest.mark.parametrize("call, message", [
    (lambda: of.raw_ops.ScalarSummary(tags=["a"], values=np.ones(2)), "tags and values are not the same shape"),
    (lambda: of.raw_ops.HistogramSummary(tag="w", values=np.array([1.0, np.nan])), "Nan in summary histogram for: w"),
    (lambda: of.raw_ops.HistogramSummary(tag="w", values=np.array([np.inf])), "Nan in summary histogram for: w"),
    (lambda: of.raw_ops.HistogramSummary(tag=["a", "b"], values=np.ones(2)), "tag must be a scalar"),
    (lambda: of.raw_ops.MergeSummary(inputs=[of.raw_ops.ScalarSummary(tags="a", values=1.0)] * 2),
     "Duplicate tag a"),
    (lambda: of.raw_ops.MergeSummary(inputs=[of.constant(b"\x0a\xff")]), "Could not parse"),
    (lambda: of.raw_ops.ScalarSummary(tags=[1.0], values=[1.0]), "string"),
])
def test_bad_summaries_raise_typed_errors(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


# ---------------------------------------------------------------- tf.summary


def test_tags_follow_name_scopes_and_collections():
    with tf1.Graph().as_default() as g:
        x = tf1.constant([1.0, 2.0, 4.0])
        with tf1.name_scope("train"):
            s = tf1.summary.scalar("loss", tf1.reduce_mean(x))
            s2 = tf1.summary.scalar("loss", tf1.reduce_sum(x))  # a second one gets "loss_1"
        with tf1.name_scope("sc"):
            h = tf1.summary.histogram("dist", x, family="weights")
        private = tf1.summary.scalar("hidden", x[0], collections=["mine"])
        assert g.get_collection(tf1.GraphKeys.SUMMARIES) == [s, s2, h]
        assert g.get_collection("mine") == [private]
        merged = tf1.summary.merge_all()
        value = summary_pb2.Summary.FromString(tf1.Session().run(merged))
    # TensorFlow's tags, family included (checked against TF 2.21's compat.v1)
    assert [v.tag for v in value.value] == ["train/loss", "train/loss_1", "weights/sc/weights/dist"]
    assert h.op.name == "sc/weights/dist"
    np.testing.assert_allclose([v.simple_value for v in value.value[:2]], [7 / 3, 7], rtol=1e-6)
    assert s.op.name == "train/loss" and s.dtype == of.string and s.shape == ()


def test_merge_all_of_nothing_is_none():
    with tf1.Graph().as_default():
        assert tf1.summary.merge_all() is None
        with pytest.raises(ValueError, match="no summaries"):
            tf1.summary.merge([])


def test_summaries_are_not_differentiable_but_do_not_block_training():
    with tf1.Graph().as_default():
        w = tf1.Variable(3.0)
        loss = w * w
        tf1.summary.scalar("loss", loss)
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
        merged = tf1.summary.merge_all()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            _, s = sess.run([train, merged])
            assert summary_pb2.Summary.FromString(s).value[0].simple_value == pytest.approx(9.0)


# ---------------------------------------------------------------- event files


def _read_records(path):
    """Our own TFRecord reader: checks both masked CRCs of every record."""
    data = open(path, "rb").read()
    pos, events = 0, []
    while pos < len(data):
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        assert header_crc == _C.crc32c_mask(_C.crc32c(header))
        payload = data[pos + 12:pos + 12 + length]
        (crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        assert crc == _C.crc32c_mask(_C.crc32c(payload))
        events.append(event_pb2.Event.FromString(payload))
        pos += 16 + length
    return events


def _training_run(logdir, steps=4):
    rng = np.random.default_rng(4)
    with tf1.Graph().as_default() as g:
        x = tf1.placeholder(tf1.float32, [None, 3], name="x")
        w = tf1.Variable(rng.normal(size=(3, 1)).astype(np.float32), name="w")
        with tf1.name_scope("metrics"):
            loss = tf1.reduce_mean(tf1.square(tf1.matmul(x, w) - 1.0))
            tf1.summary.scalar("loss", loss)
        tf1.summary.histogram("w", w)  # tag "w_1": the variable has the name "w", as in TF
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
        merged = tf1.summary.merge_all()
        init = tf1.global_variables_initializer()
        losses = []
        with tf1.Session() as sess, tf1.summary.FileWriter(logdir, sess.graph) as writer:
            sess.run(init)
            for step in range(steps):
                s, l, _ = sess.run([merged, loss, train], {x: rng.normal(size=(8, 3))})
                writer.add_summary(s, step)
                losses.append(l)
            run_metadata = tf1.RunMetadata()
            sess.run(train, {x: rng.normal(size=(8, 3))},
                     options=tf1.RunOptions(output_partition_graphs=True), run_metadata=run_metadata)
            writer.add_run_metadata(run_metadata, "step_last", steps)
    return g, losses


def test_file_writer_writes_tensorflow_event_files(tmp_path):
    g, losses = _training_run(tmp_path)
    [path] = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    events = _read_records(path)
    assert events[0].file_version == "brain.Event:2"
    assert events[1].WhichOneof("what") == "graph_def"
    assert len(of.GraphDef.FromString(events[1].graph_def).node) == len(g.get_operations())
    summaries = [e for e in events if e.WhichOneof("what") == "summary"]
    assert [e.step for e in summaries] == [0, 1, 2, 3]
    np.testing.assert_allclose([e.summary.value[0].simple_value for e in summaries], losses, rtol=1e-6)
    assert events[-1].tagged_run_metadata.tag == "step_last"


def test_tensorflow_reads_the_event_file(tmp_path):
    tf = pytest.importorskip("tensorflow")
    _, losses = _training_run(tmp_path)
    [path] = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    events = list(tf.compat.v1.train.summary_iterator(path))  # checks the CRCs as it reads
    scalars = [e.summary.value[0].simple_value for e in events if e.HasField("summary")]
    np.testing.assert_allclose(scalars, losses, rtol=1e-6)


def test_tensorboard_reads_scalars_histograms_and_graph(tmp_path):
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    g, losses = _training_run(tmp_path)
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"histograms": 0})  # 0: keep all
    acc.Reload()
    tags = acc.Tags()
    assert tags["scalars"] == ["metrics/loss"] and tags["histograms"] == ["w_1"] and tags["graph"]
    np.testing.assert_allclose([e.value for e in acc.Scalars("metrics/loss")], losses, rtol=1e-6)
    assert [e.step for e in acc.Histograms("w_1")] == [0, 1, 2, 3]
    assert {n.name for n in acc.Graph().node} == {op.name for op in g.get_operations()}
    assert tags["run_metadata"] == ["step_last"]


def test_writer_flush_close_reopen(tmp_path):
    writer = tf1.summary.FileWriter(str(tmp_path / "run"), flush_secs=1000)
    summary = summary_pb2.Summary()
    summary.value.add(tag="a", simple_value=1.0)
    writer.add_summary(summary, 1)
    writer.flush()
    assert len(_read_records(writer.event_writer.path)) == 2
    writer.close()
    with pytest.raises(RuntimeError, match="closed"):
        writer.add_summary(summary.SerializeToString(), 2)
    writer.reopen()
    writer.add_summary(summary.SerializeToString(), 2)
    writer.close()
    assert [e.step for e in _read_records(writer.event_writer.path)] == [0, 1, 2]
    assert writer.get_logdir() == str(tmp_path / "run")
    with pytest.raises(TypeError, match="serialized Summary"):
        writer.add_summary(3.0)


# ---------------------------------------------------------------- TF2's eager writer


def test_tf2_writer_writes_eagerly(tmp_path):
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    writer = of.summary.create_file_writer(str(tmp_path))
    assert of.summary.scalar("loss", 1.0, step=0) is False  # no default writer: nothing written
    rng = np.random.default_rng(5)
    losses = rng.random(4)
    with writer.as_default(step=7):
        for i, value in enumerate(losses):
            assert of.summary.scalar("loss", of.constant(value), step=i) is True
        of.summary.histogram("weights", rng.normal(size=50), step=3)
        of.summary.scalar("lr", 0.5)  # at the as_default step
        of.summary.experimental.set_step(9)
        of.summary.scalar("lr", 0.25)
    writer.close()
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"histograms": 0, "scalars": 0})
    acc.Reload()
    np.testing.assert_allclose([e.value for e in acc.Scalars("loss")], losses, rtol=1e-6)
    assert [(e.step, e.value) for e in acc.Scalars("lr")] == [(7, 0.5), (9, 0.25)]
    assert [e.step for e in acc.Histograms("weights")] == [3]


def test_tf2_writer_needs_a_step(tmp_path):
    with of.summary.create_file_writer(str(tmp_path)).as_default(), pytest.raises(ValueError, match="no step"):
        of.summary.scalar("x", 1.0)


# ---------------------------------------------------------------- images


def _decode_png(data: bytes) -> np.ndarray:
    """A minimal PNG reader (8-bit, no interlace, any filter) with zlib, for checking pixels."""
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body)
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color = header[:4]
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows = [np.frombuffer(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)], np.uint8) for y in range(height)]
    assert depth == 8 and all(raw[y * (stride + 1)] == 0 for y in range(height))  # filter type 0
    return np.stack(rows).reshape(height, width, channels)


def test_image_summary_pixels():
    rng = np.random.default_rng(6)
    u8 = rng.integers(0, 256, size=(4, 3, 5, 3)).astype(np.uint8)
    s = summary_pb2.Summary.FromString(of.raw_ops.ImageSummary(tag="in", tensor=u8, max_images=2).numpy())
    assert [v.tag for v in s.value] == ["in/image/0", "in/image/1"]
    for i, v in enumerate(s.value):
        assert (v.image.height, v.image.width, v.image.colorspace) == (3, 5, 3)
        np.testing.assert_array_equal(_decode_png(v.image.encoded_image_string), u8[i])
    positive = np.array([0.0, 1.0, 2.0, 0.3], np.float32).reshape(1, 1, 4, 1)
    signed = np.array([-1.0, 0.0, 4.0, 2.0, np.nan], np.float32).reshape(1, 1, 5, 1)
    big = rng.random((1, 300, 300, 4)).astype(np.float32)  # more than one deflate block
    one = lambda x: summary_pb2.Summary.FromString(of.raw_ops.ImageSummary(tag="t", tensor=x, max_images=1).numpy()).value[0]
    assert one(positive).tag == "t/image"
    np.testing.assert_array_equal(_decode_png(one(positive).image.encoded_image_string).ravel(), [0, 127, 255, 38])
    # negative values: 0 maps to 128, the largest magnitude 127 away; NaN is painted red (gray: 255)
    np.testing.assert_array_equal(_decode_png(one(signed).image.encoded_image_string).ravel(), [96, 128, 255, 191, 255])
    assert _decode_png(one(big).image.encoded_image_string).shape == (300, 300, 4)


def test_image_summary_pixels_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for seed in range(4):
        rng = np.random.default_rng(seed)
        for x in (rng.random((2, 4, 3, 4)).astype(np.float32) * 3, rng.normal(size=(2, 3, 3, 3)),
                  rng.normal(size=(2, 2, 5, 1)).astype(np.float16), rng.integers(0, 256, (1, 2, 2, 3)).astype(np.uint8)):
            ours = summary_pb2.Summary.FromString(of.raw_ops.ImageSummary(tag="img", tensor=x, max_images=2).numpy())
            with tf.Graph().as_default():
                op = tf.raw_ops.ImageSummary(tag="img", tensor=tf.constant(x), max_images=2)
                with tf.compat.v1.Session() as sess:
                    theirs = summary_pb2.Summary.FromString(sess.run(op))
            assert [v.tag for v in ours.value] == [v.tag for v in theirs.value]
            for a, b in zip(ours.value, theirs.value):
                np.testing.assert_array_equal(_decode_png(a.image.encoded_image_string),
                                              tf.io.decode_png(b.image.encoded_image_string).numpy())


@pytest.mark.parametrize("tensor, message", [
    (np.zeros((2, 2, 2), np.float32), "4-D with last dim 1, 3, or 4"),
    (np.zeros((1, 2, 2, 2), np.float32), "4-D with last dim 1, 3, or 4"),
])
def test_image_summary_errors(tensor, message):
    with pytest.raises(InvalidArgumentError, match=message):
        of.raw_ops.ImageSummary(tag="x", tensor=tensor)


def test_tf_summary_image_in_a_graph_and_in_tensorboard(tmp_path):
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    rng = np.random.default_rng(7)
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float32, [None, 28, 28, 1])
        tf1.summary.image("input", x, 2)
        merged = tf1.summary.merge_all()
        with tf1.Session() as sess, tf1.summary.FileWriter(str(tmp_path)) as writer:
            writer.add_summary(sess.run(merged, {x: rng.random((5, 28, 28, 1))}), 1)
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"images": 0})
    acc.Reload()
    assert acc.Tags()["images"] == ["input/image/0", "input/image/1"]
    image = acc.Images("input/image/1")[0]
    assert (image.step, image.width, image.height) == (1, 28, 28)


# ---------------------------------------------------------------- text and audio


def test_text_and_audio_summaries_in_tensorboard(tmp_path):
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    rng = np.random.default_rng(8)
    clips = rng.uniform(-1, 1, size=(3, 400)).astype(np.float32)
    with tf1.Graph().as_default():
        notes = tf1.placeholder(tf1.string, [2])
        sound = tf1.placeholder(tf1.float32, [None, 400])
        tf1.summary.text("notes", notes)
        tf1.summary.audio("sound", sound, 8000, max_outputs=2)
        merged = tf1.summary.merge_all()
        with tf1.Session() as sess, tf1.summary.FileWriter(str(tmp_path)) as writer:
            writer.add_summary(sess.run(merged, {notes: ["first run", "lr=0.1"], sound: clips}), 4)
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"audio": 0, "tensors": 0})
    acc.Reload()
    assert acc.Tags()["audio"] == ["sound/audio/0", "sound/audio/1"]
    clip = acc.Audio("sound/audio/1")[0]
    assert (clip.step, clip.sample_rate, clip.length_frames, clip.content_type) == (4, 8000, 400, "audio/wav")
    wav = clip.encoded_audio_string
    assert wav[:4] == b"RIFF" and wav[8:16] == b"WAVEfmt "
    pcm = np.frombuffer(wav[44:], np.int16)
    np.testing.assert_array_equal(pcm, np.clip(np.round(clips[1] * 32768), -32768, 32767).astype(np.int16))
    [event] = acc.Tensors("notes")
    assert list(event.tensor_proto.string_val) == [b"first run", b"lr=0.1"]
    assert acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"


def test_text_and_audio_are_tensorflows_bytes():
    tf = pytest.importorskip("tensorflow")
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    meta = meta.SerializeToString()
    for value in ([["a", "bc"], ["d", "é"]], np.arange(6.0).reshape(2, 3)):
        ours = of.raw_ops.TensorSummaryV2(tag="t", tensor=value, serialized_summary_metadata=meta).numpy()
        assert ours == tf.raw_ops.TensorSummaryV2(tag="t", tensor=value, serialized_summary_metadata=meta).numpy()
    clips = np.random.default_rng(9).uniform(-1.2, 1.2, size=(2, 30, 2)).astype(np.float32)  # some clipped
    ours = of.raw_ops.AudioSummaryV2(tag="a", tensor=clips, sample_rate=np.float32(16000), max_outputs=2).numpy()
    with tf.Graph().as_default():
        op = tf.raw_ops.AudioSummaryV2(tag="a", tensor=tf.constant(clips), sample_rate=tf.constant(16000.0),
                                       max_outputs=2)
        with tf.compat.v1.Session() as sess:
            assert ours == sess.run(op)


@pytest.mark.parametrize("call, message", [
    (lambda: of.raw_ops.AudioSummaryV2(tag="a", tensor=np.zeros(4, np.float32), sample_rate=np.float32(8000)),
     "3-D or 2-D"),
    (lambda: of.raw_ops.AudioSummaryV2(tag="a", tensor=np.zeros((1, 4), np.float32), sample_rate=np.float32(-1)),
     "sample_rate must be positive"),
    (lambda: of.raw_ops.TensorSummaryV2(tag=["a", "b"], tensor=np.zeros(2), serialized_summary_metadata=b""),
     "tag must be a scalar"),
])
def test_text_and_audio_errors(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()
