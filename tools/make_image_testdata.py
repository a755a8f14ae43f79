"""Writes tests/data/image/: small PNG and JPEG files written by Pillow and TensorFlow, and
TensorFlow's decoding of each (expected.npz), for tests/ops/test_image_codecs.py, which runs
without TensorFlow. Needs tensorflow and Pillow: python tools/make_image_testdata.py"""

from __future__ import annotations

import io
import os

import numpy as np
import tensorflow as tf
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "image")


def _smooth(h, w, c, seed):
    """A smooth image (JPEG keeps it well): low-frequency waves plus a little noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    chans = [np.sin(2 * np.pi * (x * rng.uniform(0.2, 0.6) + y * rng.uniform(0.2, 0.6)) + rng.uniform(0, 6))
             for _ in range(c)]
    img = (np.stack(chans, -1) * 0.45 + 0.5) * 255 + rng.normal(0, 1, (h, w, c))
    return np.clip(img, 0, 255).astype(np.uint8)


def _pil(img, fmt, **kw):
    b = io.BytesIO()
    Image.fromarray(img).save(b, fmt, **kw)
    return b.getvalue()


def main():
    os.makedirs(OUT, exist_ok=True)
    rgb = _smooth(24, 32, 3, 0)
    files = {
        "rgb.png": _pil(rgb, "PNG"),
        "rgba.png": _pil(np.concatenate([rgb, _smooth(24, 32, 1, 1)], -1), "PNG"),
        "gray.png": _pil(rgb[..., 0], "PNG"),
        "gray16.png": _pil(rgb[..., 0].astype(np.uint16) * 257 + 3, "PNG"),
        "pillow.jpg": _pil(rgb, "JPEG", quality=92),
        "progressive.jpg": _pil(rgb, "JPEG", quality=90, progressive=True),
        "gray.jpg": _pil(rgb[..., 1], "JPEG", quality=95),
        "tf.jpg": tf.io.encode_jpeg(rgb, quality=90).numpy(),
        "tf.png": tf.io.encode_png(rgb[..., :2]).numpy(),
    }
    # Palette images, one with a tRNS chunk (Pillow's transparency=)
    pal = Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=16)
    for name, kw in (("palette.png", {}), ("palette_trns.png", {"transparency": 0})):
        b = io.BytesIO()
        pal.save(b, "PNG", **kw)
        files[name] = b.getvalue()
    expected = {"source_rgb": rgb}
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        key = name.replace(".", "_")
        if name.endswith(".png"):
            for ch in (0, 1, 3, 4):
                expected[f"{key}_c{ch}"] = tf.io.decode_png(data, channels=ch).numpy().astype(np.uint8)
        else:
            for ch in (0, 1, 3):
                for dct in ("", "INTEGER_ACCURATE"):
                    expected[f"{key}_c{ch}_{dct or 'FAST'}"] = tf.io.decode_jpeg(data, channels=ch,
                                                                                 dct_method=dct).numpy()
            expected[f"{key}_ratio2"] = tf.io.decode_jpeg(data, ratio=2).numpy()
    np.savez_compressed(os.path.join(OUT, "expected.npz"), **expected)


if __name__ == "__main__":
    main()
