"""TF1 spellings of the record, parsing, SparseTensor and linear-algebra names
(opforge/compat/v1/_tf1_io.py), used as a TF1 program uses them."""

import numpy as np

import opforge.compat.v1 as tf


def test_a_tf1_input_program(tmp_path):
    """Writes Examples with tf.python_io, reads them back with tf.data.TFRecordDataset, parses
    with tf.parse_example and tf.decode_raw, as TF1 input code does."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (6, 12), dtype=np.uint8)
    labels = rng.integers(0, 10, 6)
    path = str(tmp_path / "data.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for img, lab in zip(images, labels):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[img.tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(lab)])),
                "tags": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(int(lab) % 3)))),
            }))
            w.write(ex.SerializeToString())
    assert len(list(tf.python_io.tf_record_iterator(path))) == 6
    with tf.Graph().as_default():
        batch = tf.data.TFRecordDataset([path]).batch(6).make_one_shot_iterator().get_next()
        parsed = tf.parse_example(batch, {"image": tf.FixedLenFeature([], tf.string),
                                          "label": tf.FixedLenFeature([], tf.int64),
                                          "tags": tf.VarLenFeature(tf.int64)})
        pixels = tf.decode_raw(parsed["image"], tf.uint8)
        dense_tags = tf.sparse_tensor_to_dense(parsed["tags"], default_value=-1)
        with tf.Session() as sess:
            px, lab, tags = sess.run([pixels, parsed["label"], dense_tags])
    np.testing.assert_array_equal(px, images)
    np.testing.assert_array_equal(lab, labels)
    for row, want in zip(tags, labels):
        n = int(want) % 3
        np.testing.assert_array_equal(row[:n], np.arange(n))
        assert (row[n:] == -1).all()


def test_sparse_tensor_feed_and_fetch():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32)
        dense = tf.sparse.to_dense(tf.sparse.reorder(sp))
        value = tf.SparseTensorValue(indices=[[1, 2], [0, 0]], values=[3.0, 4.0], dense_shape=[2, 3])
        with tf.Session() as sess:
            got = sess.run(dense, {sp: value})
    np.testing.assert_array_equal(got, [[4.0, 0, 0], [0, 0, 3.0]])


def test_tf1_linear_algebra_names():
    rng = np.random.default_rng(1)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    a = (q * rng.uniform(0.5, 2.0, 4)) @ q.T  # symmetric positive definite
    b = rng.standard_normal((4, 2))
    with tf.Graph().as_default():
        ta, tb = tf.constant(a), tf.constant(b)
        outs = [tf.matrix_inverse(ta), tf.matrix_determinant(ta), tf.matrix_solve(ta, tb), tf.cholesky(ta),
                tf.self_adjoint_eigvals(ta), tf.svd(ta, compute_uv=False), tf.linalg.slogdet(ta)[1]]
        with tf.Session() as sess:
            inv, det, sol, chol, eig, sv, logdet = sess.run(outs)
    np.testing.assert_allclose(inv, np.linalg.inv(a), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(det, np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(sol, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(chol, np.linalg.cholesky(a), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.sort(eig), np.linalg.eigvalsh(a), rtol=1e-10)
    np.testing.assert_allclose(np.sort(sv), np.sort(np.linalg.svd(a, compute_uv=False)), rtol=1e-10)
    np.testing.assert_allclose(logdet, np.linalg.slogdet(a)[1], rtol=1e-10)
