"""tf.strings' Unicode ops (UnicodeDecode(WithOffsets), UnicodeEncode, UnicodeTranscode, bytes_split)
against Python's own codecs on random mixed-script text with invalid bytes, and against TensorFlow
where it is installed."""

import numpy as np
import pytest

from opforge.framework.errors import InvalidArgumentError
from opforge.ops import unicode_ops as u

_ALPHABET = "aZ0 é߷ßЖж中文字😀🚀\u200b\x07" + "".join(chr(c) for c in (0x10FFFF, 0xFFFF, 0x7FF, 0x800))


def _random_strings(rng, n=12, invalid=True):
    out = []
    for _ in range(n):
        s = "".join(rng.choice(list(_ALPHABET), size=rng.integers(0, 8))).encode()
        if invalid and rng.random() < 0.6:  # splice in ill-formed bytes: lone leads, continuations, truncations
            junk = bytes(rng.choice([0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF], size=rng.integers(1, 4)))
            at = int(rng.integers(0, len(s) + 1))
            s = s[:at] + junk + s[at:]
        out.append(s)
    return out


def _python_decode(s, errors):
    return [ord(c) for c in s.decode("utf-8", errors=errors)]


def test_decode_matches_python_codecs():
    rng = np.random.default_rng(0)
    strings = _random_strings(rng)
    for errors in ("replace", "ignore"):
        got = u.unicode_decode(strings, "UTF-8", errors=errors).to_list()
        assert got == [_python_decode(s, errors) for s in strings]
    got, offsets = u.unicode_decode_with_offsets(strings, "UTF-8", errors="replace")
    for s, cps, offs in zip(strings, got.to_list(), offsets.to_list()):
        # each character's bytes run from its offset to the next: they decode to it alone
        ends = offs[1:] + [len(s)]
        assert [_python_decode(s[a:b], "replace") for a, b in zip(offs, ends)] == [[c] for c in cps]


def test_decode_other_encodings_and_control_characters():
    rng = np.random.default_rng(1)
    text = ["".join(rng.choice(list(_ALPHABET), size=5)) for _ in range(6)]
    for enc, codec in (("UTF-16-BE", "utf-16-be"), ("UTF-16-LE", "utf-16-le"), ("UTF-32-BE", "utf-32-be"),
                       ("UTF-32-LE", "utf-32-le")):
        got = u.unicode_decode([t.encode(codec) for t in text], enc).to_list()
        assert got == [[ord(c) for c in t] for t in text]
    latin = bytes(range(256))
    assert u.unicode_decode(latin, "ISO-8859-1").numpy().tolist() == list(range(256))
    broken16 = "a😀".encode("utf-16-be")[:-1] + b"\xdc\x00"[:0]
    assert u.unicode_decode(broken16, "UTF-16-BE").numpy().tolist() == _python16(broken16)
    got = u.unicode_decode(b"a\x01b\x1f", "UTF-8", replace_control_characters=True, replacement_char=63)
    assert got.numpy().tolist() == [97, 63, 98, 63]


def _python16(b):
    return [ord(c) for c in b.decode("utf-16-be", errors="replace")]


def test_encode_and_transcode_match_python():
    rng = np.random.default_rng(2)
    text = ["".join(rng.choice(list(_ALPHABET), size=rng.integers(0, 6))) for _ in range(8)]
    cps = [[ord(c) for c in t] for t in text]
    from opforge import ragged
    for enc, codec in (("UTF-8", "utf-8"), ("UTF-16-BE", "utf-16-be"), ("UTF-32-BE", "utf-32-be")):
        got = u.unicode_encode(ragged.constant(cps, dtype="int32"), enc).numpy().tolist()
        assert got == [t.encode(codec) for t in text]
        got = u.unicode_transcode([t.encode() for t in text], "UTF-8", enc).numpy().tolist()
        assert got == [t.encode(codec) for t in text]
    bad = ragged.constant([[104, 0xD800, 105, -5, 0x110000]], dtype="int32")
    assert u.unicode_encode(bad, "UTF-8").numpy().tolist() == ["h\ufffdi\ufffd\ufffd".encode()]
    assert u.unicode_encode(bad, "UTF-8", errors="ignore").numpy().tolist() == [b"hi"]
    strings = _random_strings(rng)
    got = u.unicode_transcode(strings, "UTF-8", "UTF-16-BE", errors="replace").numpy().tolist()
    assert got == [s.decode("utf-8", "replace").encode("utf-16-be") for s in strings]
    assert u.unicode_encode([[72, 105], [33, 33]], "UTF-8").numpy().tolist() == [b"Hi", b"!!"]


def test_split_and_bytes_split():
    rng = np.random.default_rng(3)
    strings = _random_strings(rng, n=6)
    chars, offsets = u.unicode_split_with_offsets(strings, "UTF-8")
    assert chars.to_list() == [[c.encode() for c in s.decode("utf-8", "replace")] for s in strings]
    assert u.unicode_split(strings, "UTF-8").to_list() == chars.to_list()
    assert offsets.to_list() == u.unicode_decode_with_offsets(strings, "UTF-8")[1].to_list()
    assert u.bytes_split(strings).to_list() == [[bytes([b]) for b in s] for s in strings]
    assert u.bytes_split(b"ab").numpy().tolist() == [b"a", b"b"]
    assert u.unicode_decode([[b"ab", b""], [b"c", b"de"]], "UTF-8").to_list() == [[[97, 98], []], [[99], [100, 101]]]


def test_errors_are_typed():
    with pytest.raises(InvalidArgumentError, match="UnicodeDecode.*Invalid formatting"):
        u.unicode_decode([b"a\xff"], "UTF-8", errors="strict")
    with pytest.raises(InvalidArgumentError, match="UnicodeEncode.*Invalid code point"):
        u.unicode_encode([[0xD800]], "UTF-8", errors="strict")
    with pytest.raises(InvalidArgumentError, match="Could not create converter"):
        u.unicode_decode([b"a"], "KOI8-R")
    with pytest.raises(InvalidArgumentError, match="replacement_char"):
        u.unicode_transcode([b"a"], "UTF-8", "UTF-8", replacement_char=0xD800)
    with pytest.raises(InvalidArgumentError, match="output_encoding"):
        u.unicode_transcode([b"a"], "UTF-8", "UTF-7")
    from opforge.generated import gen_strings_ops as gen
    import opforge as of
    with pytest.raises(InvalidArgumentError, match="input_splits"):
        gen.unicode_encode(of.constant([1, 2], of.int32), of.constant([0, 3], of.int64), output_encoding="UTF-8")


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(4)
    strings = _random_strings(rng)
    for errors in ("replace", "ignore"):
        ours = u.unicode_decode_with_offsets(strings, "UTF-8", errors=errors)
        theirs = tf.strings.unicode_decode_with_offsets(strings, "UTF-8", errors=errors)
        assert ours[0].to_list() == theirs[0].to_list()
        assert ours[1].to_list() == theirs[1].to_list()
    assert (u.unicode_split(strings, "UTF-8").to_list() == tf.strings.unicode_split(strings, "UTF-8").to_list())
    assert (u.unicode_transcode(strings, "UTF-8", "UTF-16-BE").numpy().tolist()
            == tf.strings.unicode_transcode(strings, "UTF-8", "UTF-16-BE").numpy().tolist())
    assert u.bytes_split(strings).to_list() == tf.strings.bytes_split(strings).to_list()
