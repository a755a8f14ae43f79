"""The string ops (opdefs/strings/) through of.strings: against Python's own string functions on
random strings, against TensorFlow's hash values (committed in tests/data/string_hashes.npz by
tools/tf_string_hashes.py) and, where TensorFlow is installed, against tf.strings itself.
Every diagnostic is pinned: bad input is an of.errors.InvalidArgumentError naming the op."""

from __future__ import annotations

import base64
import os
import re

import numpy as np
import pytest

import opforge as of
from opforge.ops import string_ops as st

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "string_hashes.npz")
RNG = np.random.default_rng(31)
ALPHABET = list("ab ,x\t-Z") + ["é", "日"]


def _random_strings(n, max_len=9):
    return ["".join(RNG.choice(ALPHABET, RNG.integers(0, max_len))) for _ in range(n)]


def _bytes(t):
    return [x for x in np.asarray(t.numpy()).reshape(-1)]


def _sparse_rows(sp, n):
    """A SparseTensorValue of strings as a list of token lists (checks the index layout)."""
    v = sp.numpy()
    rows = [[] for _ in range(n)]
    for (i, j), val in zip(v.indices, v.values):
        assert j == len(rows[i])
        rows[i].append(val)
    assert list(v.dense_shape) == [n, max((len(r) for r in rows), default=0)]
    return rows


def test_join_length_case_strip_against_python():
    words = _random_strings(12)
    enc = [w.encode() for w in words]
    assert _bytes(st.join([enc, b"!", enc[::-1]], separator="|")) == [
        a + b"|!|" + b for a, b in zip(enc, enc[::-1])]
    assert st.length(enc).numpy().tolist() == [len(e) for e in enc]
    assert st.length(enc, unit="UTF8_CHAR").numpy().tolist() == [len(w) for w in words]
    ascii_words = [w.encode("ascii", "ignore") for w in words]
    assert _bytes(st.upper(ascii_words)) == [w.upper() for w in ascii_words]
    assert _bytes(st.lower(ascii_words, encoding="utf-8")) == [w.lower() for w in ascii_words]
    assert _bytes(st.strip(enc)) == [e.strip(b" \t\n\v\f\r") for e in enc]


def test_split_is_pythons_str_split():
    words = _random_strings(20)
    enc = [w.encode() for w in words]
    assert _sparse_rows(st.split(enc), 20) == [e.split() for e in enc]
    assert _sparse_rows(st.split(enc, sep=","), 20) == [e.split(b",") for e in enc]
    assert _sparse_rows(st.split(enc, sep="a", maxsplit=1), 20) == [e.split(b"a", 1) for e in enc]
    assert _sparse_rows(st.split(enc, maxsplit=1), 20) == [e.split(None, 1) for e in enc]


def test_tf1_string_split_splits_at_any_delimiter_character():
    words = [w.encode() for w in _random_strings(20)]
    expect = [[t for t in re.split(rb"[ ,]", w) if t] if w else [] for w in words]
    assert _sparse_rows(st.string_split(words, delimiter=" ,"), 20) == expect
    keep = [re.split(rb"[ ,]", w) if w else [] for w in words]
    assert _sparse_rows(st.string_split(words, delimiter=" ,", skip_empty=False), 20) == keep
    assert _sparse_rows(st.string_split([b"ab c"], delimiter=""), 1) == [[b"a", b"b", b" ", b"c"]]


def test_reduce_join_orders_like_tensorflow():
    x = np.array([[[f"{i}{j}{k}".encode() for k in range(2)] for j in range(3)] for i in range(2)], dtype=object)
    assert st.reduce_join(x).numpy() == b"".join(x.reshape(-1))
    out = st.reduce_join(x, axis=[2, 0], separator=" ").numpy()  # the first axis listed varies fastest
    assert out.tolist() == [b" ".join(x[:, j, :].reshape(-1)) for j in range(3)]
    out = st.reduce_join(x, axis=[0, 2], separator=" ").numpy()
    assert out.tolist() == [b" ".join(x[:, j, :].T.reshape(-1)) for j in range(3)]
    assert st.reduce_join(x, axis=1, keepdims=True).shape == (2, 1, 2)
    assert st.reduce_join(x, axis=[]).numpy().tolist() == x.tolist()


def test_substr_bytes_and_utf8_with_broadcasting():
    words = ["héllo", "日本語です", "ab"]
    enc = [w.encode() for w in words]
    pos, ln = np.array([1, -2, 0], np.int64), np.array([3, 5, -1], np.int64)

    def cut(s, p, n):  # a negative pos counts from the end; a negative len runs to the end (bytes)
        p = p + len(s) if p < 0 else p
        return (s[p:] if isinstance(s, bytes) else s[:0]) if n < 0 else s[p:p + n]
    assert _bytes(st.substr(enc, pos, ln)) == [cut(e, p, n) for e, p, n in zip(enc, pos, ln)]
    out = _bytes(st.substr(enc, pos, ln, unit="UTF8_CHAR"))
    assert out == [cut(w, p, n).encode() for w, p, n in zip(words, pos, ln)]
    grid = st.substr([[b"abcdef"], [b"xyz"]], [0, 1, 2], [2, 2, 2])  # [2, 1] against [3]
    assert grid.numpy().tolist() == [[b"ab", b"bc", b"cd"], [b"xy", b"yz", b"z"]]


def test_to_number_and_as_string():
    values = RNG.normal(size=10) * 10.0 ** RNG.integers(-3, 6, 10)
    text = [f" {float(v)!r} ".encode() for v in values]
    np.testing.assert_array_equal(st.to_number(text, out_type=of.float64).numpy(), values)
    ints = RNG.integers(-2**40, 2**40, 10)
    np.testing.assert_array_equal(st.to_number([str(i).encode() for i in ints], out_type=of.int64).numpy(), ints)
    assert _bytes(st.as_string(values, precision=4)) == [b"%.4f" % v for v in values]
    assert _bytes(st.as_string(values, scientific=True, width=14, fill="0")) == [b"%014e" % v for v in values]
    assert _bytes(st.as_string(values, shortest=True)) == [b"%g" % v for v in values]
    assert _bytes(st.as_string(ints, width=20)) == [b"%20d" % i for i in ints]
    assert _bytes(st.as_string(np.array([True, False]))) == [b"true", b"false"]


def test_regex_replace_and_full_match_use_re2_syntax():
    words = [w.encode() for w in _random_strings(15)]
    assert _bytes(st.regex_replace(words, "a+", "<\\0>")) == [re.sub(rb"a+", rb"<\g<0>>", w) for w in words]
    assert _bytes(st.regex_replace(words, "(a)(b)", r"\2\1", replace_global=False)) == [
        re.sub(rb"(a)(b)", rb"\2\1", w, count=1) for w in words]
    pattern = of.constant(b"[ab ]*")  # a tensor pattern: RegexFullMatch rather than the static op
    assert st.regex_full_match(words, pattern).numpy().tolist() == [re.fullmatch(rb"[ab ]*", w) is not None
                                                                     for w in words]
    assert st.regex_full_match(words, "x.*").numpy().tolist() == [w.startswith(b"x") for w in words]


def test_base64_round_trip_web_safe():
    blobs = [bytes(RNG.integers(0, 256, n, dtype=np.uint8)) for n in range(12)]
    for pad in (False, True):
        enc = _bytes(st.encode_base64(blobs, pad=pad))
        want = [base64.urlsafe_b64encode(b) for b in blobs]
        assert enc == (want if pad else [w.rstrip(b"=") for w in want])
        assert _bytes(st.decode_base64(enc)) == blobs


def test_unsorted_segment_join():
    out = st.unsorted_segment_join([[b"a", b"b"], [b"c", b"d"], [b"e", b"f"]], [1, 0, 1], 3, separator=":")
    assert out.numpy().tolist() == [[b"c", b"d"], [b"a:e", b"b:f"], [b"", b""]]


def test_hash_buckets_are_tensorflows():
    d = np.load(DATA)
    cuts = np.cumsum(d["lengths"])[:-1]
    strings = [bytes(s) for s in np.split(d["blob"], cuts)]
    buckets = int(d["buckets"])
    np.testing.assert_array_equal(st.to_hash_bucket_fast(strings, buckets).numpy(), d["fast"])
    np.testing.assert_array_equal(st.to_hash_bucket_strong(strings, buckets, d["key"].tolist()).numpy(), d["strong"])
    np.testing.assert_array_equal(st.to_hash_bucket(strings, buckets).numpy(), d["legacy"])
    np.testing.assert_array_equal(st.fingerprint(strings).numpy(), d["fingerprint"])
    np.testing.assert_array_equal(st.fingerprint(np.array(strings, dtype=object).reshape(-1, 2)).numpy(),
                                  d["fingerprint_pairs"])
    np.testing.assert_array_equal(st.fingerprint(d["numbers"]).numpy(), d["fingerprint_numbers"])


@pytest.mark.parametrize("call, message", [
    (lambda: st.join([[b"a", b"b"], [b"a", b"b", b"c"]]), r"StringJoin: Input shapes do not match: \[2\] vs. \[3\]"),
    (lambda: st.reduce_join([[b"a"]], axis=[0, 0]), "ReduceJoin: Duplicate reduction dimension 0"),
    (lambda: st.substr([b"hello"], [6], [1]), r"Substr: pos 6 out of range for string b'hello' at index 0"),
    (lambda: st.substr([b"hello"], [1, 2], [1]), "Substr: pos and len should have the same shape"),
    (lambda: st.to_number([b"1.5x"]), "StringToNumber: StringToNumberOp could not correctly convert string: 1.5x"),
    (lambda: st.to_number([b"99999999999"], out_type=of.int32), "could not correctly convert string: 99999999999"),
    (lambda: st.to_number([b""]), "could not correctly convert string: $"),
    (lambda: st.as_string([1], precision=2), "AsString: precision not supported for datatype int32"),
    (lambda: st.as_string([1.5], scientific=True, shortest=True), "Cannot select both scientific and shortest"),
    (lambda: st.as_string([1.5], fill="x"), 'Fill argument not supported: "x"'),
    (lambda: st.regex_replace([b"a"], "(a+", "x"), r"StaticRegexReplace: Invalid pattern: \(a\+, error: missing \)"),
    (lambda: st.regex_replace([b"a"], of.constant(b"(a)"), of.constant(b"\\2")), "RegexReplace: Invalid rewrite"),
    (lambda: st.regex_full_match([b"a"], of.constant(b"[")), "RegexFullMatch: Invalid pattern"),
    (lambda: st.decode_base64([b"a"]), "DecodeBase64: Base64 string length cannot be 1 modulo 4"),
    (lambda: st.decode_base64([b"ab!="]), "Invalid character found in base64"),
    (lambda: st.to_hash_bucket_strong([b"a"], 10, [1]), "StringToHashBucketStrong: Key must have 2 elements"),
    (lambda: st.unsorted_segment_join([b"a", b"b"], [0, 5], 3), "segment_ids are not allowed to exceed num_segments"),
    (lambda: st.split([[b"a b"]]), "StringSplitV2: input must be a vector"),
    (lambda: st.lower([b"\xc3\x80"], encoding="utf-8"), "StringLower: case mapping of non-ASCII"),
    (lambda: st.fingerprint([b"a"], method="md5"), "Fingerprint: Unsupported fingerprint method is used: md5"),
    (lambda: st.fingerprint(np.float32(1)), "Fingerprint: data must have rank at least one"),
])
def test_bad_input_raises_typed_errors(call, message):
    with pytest.raises(of.errors.OpError, match=message) as e:
        call()
    assert isinstance(e.value, (of.errors.InvalidArgumentError, of.errors.UnimplementedError))


def test_reduce_join_bad_dimension_is_out_of_range():
    with pytest.raises(of.errors.OutOfRangeError, match="Invalid reduction dimension 2 for input with 2"):
        st.reduce_join([[b"a"]], axis=[2])


def test_graph_mode_shapes_and_run():
    with of.Graph().as_default():
        x = of.placeholder(of.string, [None, 3])
        joined = st.reduce_join(x, axis=1, separator=",")
        assert joined.shape.as_list() == [None]
        parts = st.split(joined, sep=",")
        assert parts.indices.shape.as_list() == [None, 2]
        n = st.to_number(parts.values, out_type=of.int32)
        with of.Session() as sess:
            out = sess.run(n, {x: np.array([[b"1", b"2", b"3"], [b"4", b"5", b"6"]], dtype=object)})
    assert out.tolist() == [1, 2, 3, 4, 5, 6]


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    words = [w.encode() for w in _random_strings(30)]
    for fn in ("to_hash_bucket_fast", "to_hash_bucket"):
        np.testing.assert_array_equal(getattr(st, fn)(words, 97).numpy(), getattr(tf.strings, fn)(words, 97).numpy())
    np.testing.assert_array_equal(st.to_hash_bucket_strong(words, 97, [3, 4]).numpy(),
                                  tf.strings.to_hash_bucket_strong(words, 97, [3, 4]).numpy())
    for sep in (None, ",", "a"):
        ours, theirs = st.split(words, sep=sep).numpy(), tf.compat.v1.strings.split(words, sep=sep)
        np.testing.assert_array_equal(ours.indices, theirs.indices.numpy())
        assert ours.values.tolist() == theirs.values.numpy().tolist()
    ours, theirs = st.string_split(words, delimiter=" ,"), tf.compat.v1.string_split(words, delimiter=" ,")
    np.testing.assert_array_equal(ours.numpy().indices, theirs.indices.numpy())
    values = np.array([0.5, -1e-7, 123456.789, 3.0])
    for kw in ({}, {"precision": 2}, {"shortest": True}, {"scientific": True, "width": 15, "fill": "0"}):
        assert _bytes(st.as_string(values, **kw)) == tf.strings.as_string(values, **kw).numpy().tolist()
    x = np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]], dtype=object)
    for axis in (None, 0, 1, [1, 0], [-1, 0]):
        ours, theirs = st.reduce_join(x, axis=axis, separator="+"), tf.strings.reduce_join(x, axis=axis, separator="+")
        assert np.asarray(ours.numpy()).tolist() == np.asarray(theirs.numpy()).tolist()
    pos, ln = np.array([0, 1, -1], np.int32), np.array([2, -1, 9], np.int32)
    w3 = ["日本語".encode(), "héllo".encode(), b"abc"]
    for unit in ("BYTE", "UTF8_CHAR"):
        assert _bytes(st.substr(w3, pos, ln, unit=unit)) == tf.strings.substr(w3, pos, ln, unit=unit).numpy().tolist()


def test_elementwise_ops_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    words = [w.encode() for w in _random_strings(40, max_len=12)]
    same = [
        (st.length(words, unit="UTF8_CHAR"), tf.strings.length(words, unit="UTF8_CHAR")),
        (st.strip(words), tf.strings.strip(words)),
        (st.upper(words), tf.strings.upper(words)),
        (st.regex_replace(words, "[a ]+", "<\\0>"), tf.strings.regex_replace(words, "[a ]+", "<\\0>")),
        (st.regex_replace(words, "(b|x)", "\\1\\1", replace_global=False),
         tf.strings.regex_replace(words, "(b|x)", "\\1\\1", replace_global=False)),
        (st.regex_full_match(words, ".*a.*"), tf.strings.regex_full_match(words, ".*a.*")),
        (st.encode_base64(words, pad=True), tf.io.encode_base64(words, pad=True)),
        (st.join([words, words[::-1]], separator="/"), tf.strings.join([words, words[::-1]], separator="/")),
        (st.to_number([b" 1e3", b"-0.25", b"7"], out_type=of.float64),
         tf.strings.to_number([b" 1e3", b"-0.25", b"7"], out_type=tf.float64)),
    ]
    for ours, theirs in same:
        assert np.asarray(ours.numpy()).tolist() == np.asarray(theirs.numpy()).tolist()


def _ngrams_reference(row, width, pad, left, right, sep=" "):
    """TensorFlow's ngrams of one row: every run of `width` items of the padded row."""
    pad = min(width - 1 if pad < 0 else pad, width - 1)
    items = [left] * pad + list(row) + [right] * pad
    return [sep.join(items[k:k + width]) for k in range(max(0, len(items) - width + 1))]


def test_ngrams_against_a_reference():
    words = np.array([["a", "b", "c", "d"], ["e", "f", "g", "h"]], dtype=object)
    rows = [list(r) for r in words]
    assert _bytes(st.ngrams(words, 2)) == [g.encode() for r in rows for g in _ngrams_reference(r, 2, 0, "", "")]
    out = st.ngrams(words, [1, 3], pad_values=("<", ">"), padding_width=1, separator="_")
    want = [[g.encode() for w in (1, 3) for g in _ngrams_reference(r, w, 1, "<", ">", "_")] for r in rows]
    assert out.numpy().tolist() == want
    out = st.ngrams(words, 3, pad_values="#")  # padding_width None: width - 1
    assert out.numpy().tolist() == [[g.encode() for g in _ngrams_reference(r, 3, -1, "#", "#")] for r in rows]
    short = st.ngrams(np.array(["a", "b"], dtype=object), 5, preserve_short_sequences=True)
    assert short.numpy().tolist() == [b"a b"]  # one ngram of the whole (short) row
    assert st.ngrams(np.zeros((2, 0), dtype=object), 3, pad_values="#").shape == (2, 0)
    with pytest.raises(ValueError, match="padding_width must be greater than 0"):
        st.ngrams(words, 2, pad_values="#", padding_width=0)
    with pytest.raises(of.errors.InvalidArgumentError, match="StringNGrams: First split value must be 0, got 1"):
        of.ops.string_n_grams(of.constant([b"a"]), np.array([1, 1], np.int64), separator=" ", ngram_widths=[2],
                              left_pad="", right_pad="", pad_width=0, preserve_short_sequences=False)
    with pytest.raises(of.errors.InvalidArgumentError, match=r"Invalid split value 3, must be in \[0, 2\]"):
        of.ops.string_n_grams(of.constant([b"a", b"b"]), np.array([0, 3], np.int64), separator=" ", ngram_widths=[2],
                              left_pad="", right_pad="", pad_width=0, preserve_short_sequences=False)


def test_ngrams_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    for _ in range(60):  # the raw op on random ragged rows and attrs
        n, rows = int(rng.integers(0, 7)), int(rng.integers(1, 4))
        data = [b"t%d" % i for i in range(n)]
        splits = np.array([0] + sorted(rng.integers(0, n + 1, rows - 1).tolist()) + [n], np.int64)
        kw = dict(separator=str(rng.choice([" ", "_", ""])), ngram_widths=rng.integers(1, 5, 2).tolist(),
                  left_pad=str(rng.choice(["<", ""])), right_pad=str(rng.choice([">", ""])),
                  pad_width=int(rng.integers(-1, 4)), preserve_short_sequences=bool(rng.random() < 0.5))
        theirs = tf.raw_ops.StringNGrams(data=tf.constant(data, tf.string), data_splits=splits, **kw)
        ours = of.ops.string_n_grams(of.constant(data, dtype=of.string), splits, **kw)
        assert ours[0].numpy().tolist() == theirs[0].numpy().tolist(), kw
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    x = np.array([[b"w%d" % i for i in range(4)] for _ in range(3)], dtype=object)
    for kw in ({"ngram_width": 2}, {"ngram_width": [1, 3], "pad_values": "#"}, {"ngram_width": 6, "preserve_short_sequences": True}):
        assert np.asarray(st.ngrams(x, **kw).numpy()).tolist() == tf.strings.ngrams(x.astype(bytes), **kw).numpy().tolist()


def test_equal_and_gather_take_strings():
    """tf.equal / tf.not_equal on strings, with broadcasting (a CSV label against "Present"), and
    tf.gather / tf.gather_nd of strings (tf.train.slice_input_producer gathers file names),
    eagerly and in a graph; a bad index is still an error."""
    import opforge.compat.v1 as tf1
    labels = np.array([b"Present", b"Absent", b"Present"])
    np.testing.assert_array_equal(of.equal(of.constant(labels), "Present").numpy(), labels == b"Present")
    grid = np.array([[b"a"], [b"b"]])
    row = np.array([b"a", b"b", b"c"])
    np.testing.assert_array_equal(of.not_equal(of.constant(grid), of.constant(row)).numpy(), grid != row)
    np.testing.assert_array_equal(of.gather(of.constant(row), [2, 0, 2]).numpy(), row[[2, 0, 2]])
    table = np.array([[b"a", b"b"], [b"c", b"d"]])
    with tf1.Graph().as_default():
        p = tf1.placeholder(tf1.string, [None, 2])
        outs = [tf1.gather(p, [1, 1, 0]), tf1.gather(p, [1], axis=1), tf1.gather_nd(p, [[1, 0], [0, 1]]),
                tf1.equal(p, tf1.constant("d"))]
        bad = tf1.gather(p, [5])
        with tf1.Session() as sess:
            got = sess.run(outs, {p: table})
            with pytest.raises(of.errors.InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 2\)"):
                sess.run(bad, {p: table})
    np.testing.assert_array_equal(got[0], table[[1, 1, 0]])
    np.testing.assert_array_equal(got[1], table[:, [1]])
    np.testing.assert_array_equal(got[2], [b"c", b"b"])
    np.testing.assert_array_equal(got[3], table == b"d")


def test_tile_strings():
    """TF1 classification signatures tile the class names per example (Tile of strings)."""
    names = np.array([b"cat", b"", b"a longer name than fits inline"], dtype=object)
    got = of.tile(of.constant(names), [2]).numpy()
    assert list(got) == list(names) * 2
    grid = of.tile(of.constant(names.reshape(3, 1)), [2, 3]).numpy()
    np.testing.assert_array_equal(grid, np.tile(names.reshape(3, 1), (2, 3)))
    assert of.tile(of.constant(names), [0]).numpy().shape == (0,)
