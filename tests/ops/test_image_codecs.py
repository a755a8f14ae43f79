"""The PNG and JPEG codecs (kernels/cpu/image/png.cc, jpeg.cc, decode_image.cc over libpng and
libjpeg): round trips, decoding files written by Pillow and TensorFlow against TensorFlow's
own decoding of them (tests/data/image/, written by tools/make_image_testdata.py; JPEG within a
tolerance), the encoder's options, and the typed errors of bad data."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError, UnimplementedError

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "image")
EXPECTED = np.load(os.path.join(DATA, "expected.npz"))
RNG = np.random.default_rng(5)


def _read(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_png_round_trip(channels):
    image = RNG.integers(0, 256, (9, 13, channels)).astype(np.uint8)
    for compression in (-1, 0, 9):
        encoded = of.image.encode_png(image, compression=compression)
        assert encoded.dtype == of.string and encoded.shape == ()
        np.testing.assert_array_equal(of.image.decode_png(encoded).numpy(), image)
        np.testing.assert_array_equal(of.image.decode_image(encoded).numpy(), image)


PNGS = ["rgb.png", "rgba.png", "gray.png", "palette.png", "palette_trns.png", "gray16.png", "tf.png"]


@pytest.mark.parametrize("name", PNGS)
@pytest.mark.parametrize("channels", [0, 1, 3, 4])
def test_png_files_decode_as_tensorflow_decodes_them(name, channels):
    got = of.image.decode_png(_read(name), channels=channels).numpy()
    np.testing.assert_array_equal(got, EXPECTED[f"{name.replace('.', '_')}_c{channels}"])


def test_png_keeps_the_source_pixels():
    rgb = EXPECTED["source_rgb"]
    np.testing.assert_array_equal(of.image.decode_png(_read("rgb.png")).numpy(), rgb)
    np.testing.assert_array_equal(of.image.decode_png(_read("gray.png")).numpy()[..., 0], rgb[..., 0])
    np.testing.assert_array_equal(of.image.decode_png(_read("gray16.png")).numpy()[..., 0], rgb[..., 0])


JPEGS = ["pillow.jpg", "progressive.jpg", "gray.jpg", "tf.jpg"]


@pytest.mark.parametrize("name", JPEGS)
def test_jpeg_files_decode_as_tensorflow_decodes_them(name):
    data = _read(name)
    key = name.replace(".", "_")
    for channels in (0, 1, 3):
        for dct in ("", "INTEGER_ACCURATE"):
            got = of.image.decode_jpeg(data, channels=channels, dct_method=dct).numpy()
            want = EXPECTED[f"{key}_c{channels}_{dct or 'FAST'}"]
            assert got.shape == want.shape
            # libjpeg-turbo's IDCTs are exact integer arithmetic; other libjpeg builds may round differently
            assert np.abs(got.astype(int) - want).max() <= 2, (name, channels, dct)
    got = of.image.decode_jpeg(data, ratio=2).numpy()
    assert got.shape == EXPECTED[f"{key}_ratio2"].shape
    assert np.abs(got.astype(int) - EXPECTED[f"{key}_ratio2"]).max() <= 2
    source = EXPECTED["source_rgb"]
    if name != "gray.jpg":
        assert np.abs(of.image.decode_jpeg(data).numpy().astype(int) - source).mean() < 3  # lossy, close


def test_jpeg_round_trip_and_options():
    image = EXPECTED["source_rgb"]
    plain = of.image.encode_jpeg(image, quality=95)
    assert of.image.is_jpeg(plain).numpy() and not of.image.is_jpeg(of.image.encode_png(image)).numpy()
    assert not of.image.is_jpeg(b"\xff").numpy()
    np.testing.assert_array_equal(of.image.extract_jpeg_shape(plain).numpy(), [24, 32, 3])
    for kw in ({}, {"progressive": True}, {"optimize_size": True}, {"chroma_downsampling": False},
               {"format": "rgb", "density_unit": "cm", "x_density": 72, "y_density": 96}):
        data = of.image.encode_jpeg(image, **kw).numpy()
        assert np.abs(of.image.decode_jpeg(data).numpy().astype(int) - image).mean() < 3, kw
    gray = of.image.encode_jpeg(image[..., :1], quality=100).numpy()
    assert np.abs(of.image.decode_jpeg(gray).numpy().astype(int) - image[..., :1]).mean() < 2
    small = len(of.image.encode_jpeg(image, quality=10).numpy())
    assert small < len(plain.numpy())
    xmp = of.image.encode_jpeg(image, xmp_metadata="<x:xmpmeta>opforge</x:xmpmeta>").numpy()
    assert b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>opforge</x:xmpmeta>" in xmp
    cropped = of.image.decode_and_crop_jpeg(plain, [2, 3, 5, 6]).numpy()
    np.testing.assert_array_equal(cropped, of.image.decode_jpeg(plain).numpy()[2:7, 3:9])
    as_float = of.image.decode_image(plain, dtype=of.float32).numpy()
    np.testing.assert_allclose(as_float, of.image.decode_jpeg(plain).numpy() / np.float32(255), rtol=1e-6)
    same = of.image.adjust_jpeg_quality(image, 95).numpy()
    np.testing.assert_array_equal(same, of.image.decode_jpeg(plain).numpy())
    variable = of.raw_ops.EncodeJpegVariableQuality(images=image, quality=np.int32(95)).numpy()
    assert variable == plain.numpy()
    as_float = image.astype(np.float32) / 255
    with of.Graph().as_default() as g:
        tf1.set_random_seed(1)
        noisy = [tf1.image.random_jpeg_quality(as_float, 20, 90, seed=k) for k in range(4)]
    with of.Session(graph=g) as s:
        outs = s.run(noisy)
    for out in outs:
        assert out.dtype == np.float32 and out.shape == image.shape and np.abs(out - as_float).mean() < 0.05
    qualities = {tuple(o.ravel()[:50]) for o in outs}
    assert len(qualities) > 1  # different draws, different qualities


def test_codecs_in_a_graph_and_the_tf1_spellings():
    png = _read("rgb.png")
    with of.Graph().as_default() as g:
        contents = tf1.placeholder(of.string, [])
        image = tf1.image.decode_png(contents, channels=3)
        assert image.shape.as_list() == [None, None, 3]
        jpeg = tf1.io.encode_jpeg(image, quality=90)
        back = tf1.io.decode_jpeg(jpeg)
        assert tf1.io.decode_image(contents).shape.ndims is None  # a GIF would be 4-D: TensorFlow's shape too
    with of.Session(graph=g) as s:
        a, b = s.run([image, back], {contents: png})
    np.testing.assert_array_equal(a, EXPECTED["source_rgb"])
    assert b.shape == a.shape and np.abs(b.astype(int) - a).mean() < 3


def test_pillow_reads_what_opforge_writes():
    pil = pytest.importorskip("PIL.Image")
    image = RNG.integers(0, 256, (7, 5, 3)).astype(np.uint8)
    np.testing.assert_array_equal(np.asarray(pil.open(io.BytesIO(of.image.encode_png(image).numpy()))), image)
    decoded = np.asarray(pil.open(io.BytesIO(of.image.encode_jpeg(EXPECTED["source_rgb"]).numpy())))
    assert np.abs(decoded.astype(int) - EXPECTED["source_rgb"]).mean() < 3


def test_encoders_match_tensorflow_byte_for_byte():
    tf = pytest.importorskip("tensorflow")
    image = EXPECTED["source_rgb"]
    for kw in ({}, {"quality": 50}, {"chroma_downsampling": False}, {"progressive": True}):
        assert of.image.encode_jpeg(image, **kw).numpy() == tf.io.encode_jpeg(image, **kw).numpy(), kw


@pytest.mark.parametrize("call,err,match", [
    (lambda: of.image.decode_png(b"not a png"), InvalidArgumentError, "DecodePng: Invalid PNG data"),
    (lambda: of.image.decode_png(_read("rgb.png")[:100]), InvalidArgumentError, "DecodePng: Invalid PNG data"),
    (lambda: of.image.decode_png(_read("rgb.png"), channels=2), InvalidArgumentError, "DecodePng.*channels"),
    (lambda: of.image.decode_jpeg(b""), InvalidArgumentError, "DecodeJpeg: Invalid JPEG data"),
    (lambda: of.image.decode_jpeg(b"\xff\xd8\xff garbage"), InvalidArgumentError, "DecodeJpeg: Invalid JPEG data"),
    (lambda: of.image.decode_jpeg(_read("tf.jpg")[:400]), InvalidArgumentError, "DecodeJpeg: Invalid JPEG data"),
    (lambda: of.image.decode_jpeg(_read("tf.jpg"), ratio=3), InvalidArgumentError, "DecodeJpeg.*ratio must be"),
    (lambda: of.image.decode_jpeg(_read("tf.jpg"), channels=4), InvalidArgumentError, "DecodeJpeg.*channels"),
    (lambda: of.image.decode_jpeg(_read("tf.jpg"), dct_method="FLOAT"), InvalidArgumentError,
     "DecodeJpeg.*dct_method"),
    (lambda: of.image.decode_and_crop_jpeg(_read("tf.jpg"), [20, 0, 5, 5]), InvalidArgumentError,
     "DecodeAndCropJpeg.*crop window"),
    (lambda: of.image.decode_image(b"GIF89a......"), UnimplementedError, "DecodeImage: GIF"),
    (lambda: of.image.decode_image(b"\x00\x01\x02\x03"), InvalidArgumentError, "DecodeImage: Unknown image file"),
    (lambda: of.image.encode_png(np.zeros((4, 4, 5), np.uint8)), InvalidArgumentError, "EncodePng.*channels"),
    (lambda: of.image.encode_png(np.zeros((4, 4), np.uint8)), InvalidArgumentError, "EncodePng.*3-D"),
    (lambda: of.image.encode_jpeg(np.zeros((4, 4, 2), np.uint8)), InvalidArgumentError, "EncodeJpeg.*channels"),
    (lambda: of.image.encode_jpeg(np.zeros((4, 4, 3), np.uint8), quality=101), InvalidArgumentError,
     "EncodeJpeg.*quality"),
    (lambda: of.image.encode_jpeg(np.zeros((0, 4, 3), np.uint8)), InvalidArgumentError, "EncodeJpeg.*dimensions"),
    (lambda: of.image.extract_jpeg_shape(b"\xff\xd8"), InvalidArgumentError, "ExtractJpegShape: Invalid JPEG"),
    (lambda: of.raw_ops.EncodeJpegVariableQuality(images=np.zeros((4, 4, 3), np.uint8), quality=np.int32(-1)),
     InvalidArgumentError, r"EncodeJpegVariableQuality.*quality must be in \[0,100\]"),
    (lambda: of.image.random_jpeg_quality(np.zeros((4, 4, 3), np.uint8), 50, 50), InvalidArgumentError,
     "random_jpeg_quality.*less than"),
    (lambda: of.image.decode_png([b"a", b"b"]), InvalidArgumentError, "DecodePng.*scalar"),
])
def test_bad_data_raises_typed_errors_naming_the_op(call, err, match):
    with pytest.raises(err, match=match):
        call()


def _png_header(width, height):
    """A PNG signature, IHDR chunk (8-bit RGB) and an empty IDAT chunk: a header, no image data."""
    import struct  # noqa: PLC0415
    import zlib  # noqa: PLC0415

    body = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda body: struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))  # noqa: E731
    return b"\x89PNG\r\n\x1a\n" + chunk(body) + chunk(b"IDAT")


def test_huge_or_truncated_png_headers_are_errors_not_allocations():
    with pytest.raises(InvalidArgumentError, match="DecodePng: PNG image too large: 30000x30000x3"):
        of.image.decode_png(_png_header(30000, 30000))
    with pytest.raises(InvalidArgumentError, match="DecodePng: Invalid PNG data"):
        of.image.decode_png(_png_header(2**24 + 1, 4))  # past libpng's limit (TensorFlow's)
    with pytest.raises(InvalidArgumentError, match="DecodePng: Invalid PNG data.*truncated"):
        of.image.decode_png(_png_header(64, 64))


def test_truncated_jpeg_recovers_when_asked():
    image = np.tile(EXPECTED["source_rgb"], (3, 2, 1))
    whole = of.image.encode_jpeg(image).numpy()
    data = whole[:len(whole) * 3 // 4]
    with pytest.raises(InvalidArgumentError, match="DecodeJpeg: Invalid JPEG data.*corrupt or truncated"):
        of.image.decode_jpeg(data)
    recovered = of.image.decode_jpeg(data, try_recover_truncated=True, acceptable_fraction=0.5).numpy()
    assert recovered.shape == image.shape
    top = recovered[:24].astype(int) - of.image.decode_jpeg(whole).numpy()[:24]
    assert np.abs(top).max() == 0  # the rows before the cut are decoded


def test_a_tf1_input_pipeline_decodes_and_augments():
    """The usual TF1 preprocessing in a tf.data map: decode, convert, resize, flip, brightness,
    standardize; the batch keeps the static shape TensorFlow gives it."""
    png = _read("rgb.png")

    def prep(contents):
        image = tf1.image.convert_image_dtype(tf1.image.decode_png(contents, channels=3), tf1.float32)
        image = tf1.image.random_flip_left_right(tf1.image.resize_images(image, [20, 20]))
        return tf1.image.per_image_standardization(tf1.image.random_brightness(image, 0.1))

    with of.Graph().as_default() as g:
        batch = tf1.data.make_one_shot_iterator(tf1.data.Dataset.from_tensor_slices([png, png]).map(prep).batch(2))
        batch = batch.get_next()
        assert batch.shape.as_list() == [None, 20, 20, 3]
    with of.Session(graph=g) as s:
        value = s.run(batch)
    assert value.shape == (2, 20, 20, 3)
    np.testing.assert_allclose(value.mean(axis=(1, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(value.std(axis=(1, 2, 3)), 1, atol=1e-4)
