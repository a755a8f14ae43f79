"""TensorFlow 1's layers, losses, metrics, variable scopes and helpers in opforge.compat.v1:
the same program built with opforge and (when installed) with TensorFlow's compat.v1 gives
the same variables and values; NumPy references where TensorFlow is absent; the errors."""

import os

import numpy as np
import pytest

import opforge.compat.v1 as tf

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # TF 2.21's tf.compat.v1.layers need Keras 2
try:
    import tensorflow as _real
    TF = _real.compat.v1
except ImportError:  # the NumPy checks still run
    TF = None

needs_tf = pytest.mark.skipif(TF is None, reason="tensorflow is not installed")


def run(mod, build, feeds_fn=None, steps=1):
    """Builds with `mod` in a fresh graph, initializes, runs build's fetches `steps` times."""
    g = mod.Graph()
    with g.as_default():
        fetches, feeds = build(mod)
        with mod.Session(graph=g) as sess:
            sess.run([mod.global_variables_initializer(), mod.local_variables_initializer()])
            out = None
            for _ in range(steps):
                out = sess.run(fetches, feeds)
            names = sorted(v.op.name for v in mod.global_variables())
            return out, names


def both(build, steps=1, rtol=1e-5, atol=1e-6):
    got, names = run(tf, build, steps=steps)
    if TF is not None:
        want, tf_names = run(TF, build, steps=steps)
        assert names == tf_names
        _close(got, want, rtol, atol)
    return got, names


def _close(a, b, rtol, atol):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, rtol, atol)
    elif isinstance(a, dict):
        for k in a:
            _close(a[k], b[k], rtol, atol)
    elif a is not None:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


R = np.random.default_rng(3)
X4 = R.standard_normal((4, 6, 6, 3)).astype(np.float32)
X2 = R.standard_normal((5, 7)).astype(np.float32)
K = {"conv": R.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.3,
     "dense": R.standard_normal((7, 3)).astype(np.float32) * 0.3,
     "deconv": R.standard_normal((3, 3, 2, 3)).astype(np.float32) * 0.3,
     "conv1d": R.standard_normal((2, 7, 4)).astype(np.float32) * 0.3}


def test_layers_match_tensorflow():
    def build(m):
        x4, x2 = m.constant(X4), m.constant(X2)
        c = m.layers.conv2d(x4, 4, 3, strides=(1, 1), padding="same", activation=m.nn.relu,
                            kernel_initializer=m.constant_initializer(K["conv"]),
                            bias_initializer=m.constant_initializer(0.1))
        p = m.layers.max_pooling2d(c, 2, 2)
        a = m.layers.average_pooling2d(c, 3, 1, padding="same")
        f = m.layers.flatten(p)
        d = m.layers.dense(x2, 3, activation=m.nn.sigmoid, kernel_initializer=m.constant_initializer(K["dense"]))
        d2 = m.layers.dense(m.reshape(x2, [5, 1, 7]), 3, name="rank3",
                            kernel_initializer=m.constant_initializer(K["dense"]))
        t = m.layers.conv2d_transpose(x4, 2, 3, strides=2, padding="same",
                                      kernel_initializer=m.constant_initializer(K["deconv"]))
        tv = m.layers.conv2d_transpose(x4, 2, 3, strides=2, padding="valid", name="deconv_valid",
                                       kernel_initializer=m.constant_initializer(K["deconv"]))
        seq = m.reshape(x2, [5, 7, 1])
        c1 = m.layers.conv1d(m.tile(seq, [1, 1, 7]), 4, 2, padding="valid",
                             kernel_initializer=m.constant_initializer(K["conv1d"]))
        mp1 = m.layers.max_pooling1d(c1, 2, 2)
        drop = m.layers.dropout(x2, 0.5, training=False)
        return [c, p, a, f, d, d2, t, tv, c1, mp1, drop], None
    (c, p, a, f, d, d2, t, tv, c1, mp1, drop), names = both(build)
    assert names == sorted(["conv2d/kernel", "conv2d/bias", "dense/kernel", "dense/bias", "rank3/kernel", "rank3/bias",
                            "conv2d_transpose/kernel", "conv2d_transpose/bias", "deconv_valid/kernel",
                            "deconv_valid/bias", "conv1d/kernel", "conv1d/bias"])
    assert t.shape == (4, 12, 12, 2) and tv.shape == (4, 13, 13, 2) and f.shape == (4, 36)
    np.testing.assert_allclose(d, 1 / (1 + np.exp(-(X2 @ K["dense"]))), rtol=1e-5)
    np.testing.assert_array_equal(drop, X2)


def test_batch_normalization_training_and_update_ops():
    def build(m):
        x = m.placeholder(m.float32, [None, 6, 6, 3])
        training = m.placeholder(m.bool, [])
        y = m.layers.batch_normalization(x, training=training, momentum=0.9,
                                         gamma_initializer=m.constant_initializer([1.0, 2.0, 0.5]))
        z = m.layers.batch_normalization(m.constant(X2), training=True, name="bn2d")
        updates = m.get_collection(m.GraphKeys.UPDATE_OPS)
        with m.control_dependencies(updates):
            y_after = m.identity(y)
        with m.control_dependencies([y_after]):
            mm = [m.identity(v) for v in m.global_variables() if "moving" in v.op.name]
        return [y_after, z, mm], {x: X4, training: True}
    (y, z, mm), names = both(build, steps=3, rtol=1e-4, atol=1e-5)
    assert "batch_normalization/moving_mean" in names and "bn2d/gamma" in names
    mean = X4.mean((0, 1, 2))
    np.testing.assert_allclose(y.mean((0, 1, 2)), 0, atol=1e-5)
    np.testing.assert_allclose(mm[0], mean * (1 - 0.9 ** 3), rtol=1e-4)  # three updates from zero
    np.testing.assert_allclose(z.std(0), 1, rtol=1e-2)


def test_variable_scope_opens_the_name_scope_as_written():
    """A scope named with a slash opens both levels of name scope (op names under
    "stage0/block0/", as TensorFlow's), entered again it is made unique ("stage0/block0_1"), and
    default names count per parent: the op names TF gives (TensorBoard, checkpoints of op names,
    a user's tf.get_default_graph().get_tensor_by_name)."""
    with tf.Graph().as_default():
        with tf.variable_scope("stage0/block0"):
            v = tf.get_variable("w", [2])
            c = tf.identity(v, name="c")
        with tf.variable_scope("stage0/block0", reuse=True):
            c2 = tf.identity(tf.get_variable("w", [2]), name="c")
        with tf.variable_scope("outer"):
            with tf.variable_scope(None, default_name="dense"):
                e = tf.identity(v, name="e")
            with tf.variable_scope(None, default_name="dense"):
                e2 = tf.identity(v, name="e")
        names = [t.name for t in (v, c, c2, e, e2)]
    assert names == ["stage0/block0/w:0", "stage0/block0/c:0", "stage0/block0_1/c:0", "outer/dense/e:0",
                     "outer/dense_1/e:0"]


def test_variable_scopes_and_reuse():
    def build(m):
        def net(x):
            w = m.get_variable("w", [7, 2], initializer=m.constant_initializer(0.5))
            return m.matmul(x, w)
        with m.variable_scope("model"):
            a = net(m.constant(X2))
        with m.variable_scope("model", reuse=True):
            b = net(m.constant(X2) * 2)
        with m.variable_scope("shared", reuse=m.AUTO_REUSE):
            c1 = m.get_variable("v", [2], initializer=m.ones_initializer())
        with m.variable_scope("shared", reuse=m.AUTO_REUSE):
            c2 = m.get_variable("v", [2])
        assert c1 is c2
        with m.variable_scope("outer") as scope:
            m.get_variable("u", [1])
            scope.reuse_variables()
            assert m.get_variable("u", [1]).op.name == "outer/u"
        with m.variable_scope(None, default_name="block"):
            m.get_variable("k", [1], initializer=m.zeros_initializer())
        with m.variable_scope(None, default_name="block"):
            m.get_variable("k", [1], initializer=m.zeros_initializer())
        return [a, b], None
    (a, b), names = both(build)
    assert names == sorted(["model/w", "shared/v", "outer/u", "block/k", "block_1/k"])
    np.testing.assert_allclose(b, 2 * a, rtol=1e-6)
    with tf.Graph().as_default():
        tf.get_variable("w", [1])
        with pytest.raises(ValueError, match="already exists"):
            tf.get_variable("w", [1])
        with tf.variable_scope("s", reuse=True):
            with pytest.raises(ValueError, match="does not exist"):
                tf.get_variable("new", [1])


LABELS = R.integers(0, 2, (6, 4)).astype(np.float32)
PRED = R.uniform(0.05, 0.95, (6, 4)).astype(np.float32)
W = R.uniform(0, 2, (6, 1)).astype(np.float32)
W[2] = 0


@pytest.mark.parametrize("reduction", ["none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
                                       "weighted_sum_by_nonzero_weights"])
def test_losses_match_tensorflow(reduction):
    def build(m):
        red = reduction
        lab, pred, w = m.constant(LABELS), m.constant(PRED), m.constant(W)
        logits = m.log(pred / (1 - pred))
        out = [m.losses.mean_squared_error(lab, pred, weights=w, reduction=red),
               m.losses.absolute_difference(lab, pred, weights=w, reduction=red),
               m.losses.huber_loss(lab, pred * 3, weights=w, delta=0.5, reduction=red),
               m.losses.log_loss(lab, pred, weights=w, reduction=red),
               m.losses.hinge_loss(lab, logits, weights=w, reduction=red),
               m.losses.sigmoid_cross_entropy(lab, logits, weights=w, label_smoothing=0.1, reduction=red),
               m.losses.softmax_cross_entropy(m.one_hot(m.argmax(lab, 1), 4), logits, weights=w[:, 0],
                                              label_smoothing=0.2, reduction=red),
               m.losses.sparse_softmax_cross_entropy(m.argmax(lab, 1), logits, weights=w[:, 0], reduction=red),
               m.losses.cosine_distance(m.nn.l2_normalize(lab + 0.1, 1), m.nn.l2_normalize(pred, 1), axis=1,
                                        weights=w, reduction=red)]
        total = m.losses.get_total_loss() if red != "none" else m.constant(0.0)
        return out + [total], None
    got, _ = both(build)
    w = np.broadcast_to(W, LABELS.shape)

    def reduce(losses):  # TF1's reductions, the NumPy reference of each
        weighted = losses * w
        return {"none": weighted, "weighted_sum": weighted.sum(),
                "weighted_mean": weighted.sum() / w.sum(),
                "weighted_sum_over_batch_size": weighted.sum() / weighted.size,
                "weighted_sum_by_nonzero_weights": weighted.sum() / np.count_nonzero(w)}[reduction]
    np.testing.assert_allclose(got[0], reduce((PRED - LABELS) ** 2), rtol=1e-5)
    np.testing.assert_allclose(got[1], reduce(np.abs(PRED - LABELS)), rtol=1e-5)
    err = np.abs(3 * PRED - LABELS)
    np.testing.assert_allclose(got[2], reduce(np.where(err <= 0.5, 0.5 * err ** 2, 0.5 * err - 0.125)), rtol=1e-5)


def test_metrics_match_tensorflow():
    batches = [(R.integers(0, 3, 8), R.integers(0, 3, 8), R.uniform(size=8).astype(np.float32)) for _ in range(3)]

    def build(m):
        lab = m.placeholder(m.int64, [None])
        pred = m.placeholder(m.int64, [None])
        score = m.placeholder(m.float32, [None])
        acc = m.metrics.accuracy(lab, pred)
        prec = m.metrics.precision(m.equal(lab, 1), m.equal(pred, 1))
        rec = m.metrics.recall(m.equal(lab, 1), m.equal(pred, 1))
        mean = m.metrics.mean(score, weights=m.cast(lab, m.float32))
        auc = m.metrics.auc(m.equal(lab, 1), score, num_thresholds=50)
        mse = m.metrics.mean_squared_error(m.cast(lab, m.float32), score)
        g = m.get_default_graph()
        out = []
        with m.Session(graph=g) as sess:
            sess.run(m.local_variables_initializer())
            for lb, pr, sc in batches:
                out.append(sess.run([acc[1], prec[1], rec[1], mean[1], auc[1], mse[1]], {lab: lb, pred: pr, score: sc}))
            out.append(sess.run([acc[0], prec[0], rec[0], mean[0], auc[0], mse[0]]))
            assert len(m.local_variables()) >= 8
        return out

    def run_metrics(m):
        with m.Graph().as_default():
            return build(m)
    got = run_metrics(tf)
    labs = np.concatenate([b[0] for b in batches])
    preds = np.concatenate([b[1] for b in batches])
    np.testing.assert_allclose(got[-1][0], np.mean(labs == preds), rtol=1e-6)
    if TF is not None:
        _close(got, run_metrics(TF), 1e-5, 1e-6)


G1 = R.standard_normal((3, 2)).astype(np.float32)


@needs_tf  # NumPy references of each helper: tests/ops/test_*_ops.py (the of.* functions these spell)
def test_helpers_match_tensorflow():
    lens = np.array([1, 3, 0, 2])

    def build(m):
        x = m.constant(X2)
        g1, g2 = m.constant(G1), m.constant(np.ones(4, np.float32))
        clipped, norm = m.clip_by_global_norm([g1, g2], 1.5)
        out = [m.to_float(m.range(5)), m.range(2, 11, 3), m.range(0.0, 1.0, 0.25), m.linspace(-1.0, 1.0, 5),
               m.sequence_mask(lens, 4), m.to_int32(m.div(m.constant([7, -7]), 2)), m.div(x, 2.0),
               m.truncatediv(m.constant([7, -7, 7]), m.constant([2, 2, -2])), clipped, norm,
               m.clip_by_norm(x, 1.0, axes=[1]), m.count_nonzero(m.constant([[0, 1, 2], [0, 0, 3]]), axis=1),
               m.reduce_logsumexp(x * 50, axis=1), m.cumprod(m.constant([1.0, -2.0, 3.0, 0.5])),
               m.boolean_mask(x, m.constant([True, False, True, True, False])), m.log_sigmoid(x * 30),
               m.tensordot(x, m.constant(K["dense"]), 1), m.nn.l2_normalize(x, 1),
               m.nn.moments(x, [0]), m.nn.sigmoid_cross_entropy_with_logits(labels=m.ones_like(x) * 0.3, logits=x * 40),
               m.nn.in_top_k(x, m.constant([0, 1, 2, 3, 4]), 3),
               m.nn.embedding_lookup(m.constant(K["dense"]), m.constant([[0, 6], [3, 3]])),
               m.nn.embedding_lookup([m.constant(K["dense"][:4]), m.constant(K["dense"][4:])],
                                     m.constant([0, 1, 5, 6]), partition_strategy="div"),
               m.nn.embedding_lookup([m.constant(K["dense"][0::2]), m.constant(K["dense"][1::2])],
                                     m.constant([0, 1, 5, 6])),
               m.meshgrid(m.constant([1, 2, 3]), m.constant([4, 5])), m.norm(x, axis=1), m.matrix_transpose(x)]
        return out, None
    both(build, rtol=1e-5, atol=1e-5)


def test_decay_schedules_match_tensorflow():
    def build(m):
        step = m.train.get_or_create_global_step()
        inc = m.assign_add(step, 7)
        with m.control_dependencies([inc]):
            return [m.train.exponential_decay(0.5, step, 10, 0.8, staircase=s) for s in (False, True)] + [
                m.train.inverse_time_decay(0.5, step, 10, 0.3), m.train.natural_exp_decay(0.5, step, 10, 0.3),
                m.train.polynomial_decay(0.5, step, 30, 0.01, power=2.0),
                m.train.polynomial_decay(0.5, step, 10, 0.01, cycle=True),
                m.train.cosine_decay(0.5, step, 40, alpha=0.1),
                m.train.piecewise_constant(step, [10, 20], [1.0, 0.5, 0.1])], None
    got, _ = both(build, steps=4)
    s = 28.0  # four runs of += 7; TF1's formulas:
    want = [0.5 * 0.8 ** (s / 10), 0.5 * 0.8 ** np.floor(s / 10), 0.5 / (1 + 0.3 * s / 10),
            0.5 * np.exp(-0.3 * s / 10), (0.5 - 0.01) * (1 - s / 30) ** 2 + 0.01,
            (0.5 - 0.01) * (1 - s / (10 * np.ceil(s / 10))) + 0.01,  # cycle: decay_steps 30
            0.5 * ((1 - 0.1) * 0.5 * (1 + np.cos(np.pi * s / 40)) + 0.1), 0.1]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_missing_names_raise_attribute_errors_naming_them():
    with pytest.raises(AttributeError, match=r"opforge does not have tf\.nn\.no_such_op yet"):
        tf.nn.no_such_op  # noqa: B018
    with pytest.raises(AttributeError, match=r"opforge does not have tf\.no_such_function yet"):
        tf.no_such_function  # noqa: B018
    with pytest.raises(AttributeError, match=r"tf\.layers\.Conv9D"):
        tf.layers.Conv9D  # noqa: B018
    assert hasattr(tf.nn, "relu") and not hasattr(tf.train, "NoSuchOptimizer")


def test_functions_build_graph_nodes():
    with tf.Graph().as_default() as g:
        z = tf.zeros([2, 3])
        o = tf.ones_like(z)
        f = tf.fill([2], 7.0)
        assert all(t.graph is g for t in (z, o, f))
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(f), [7.0, 7.0])


def test_flags_and_app_run(monkeypatch):
    from absl import flags as absl_flags
    fv = absl_flags.FlagValues()
    tf.flags.DEFINE_integer("steps", 10, "steps", flag_values=fv)
    tf.flags.DEFINE_boolean("fast", False, "fast", flag_values=fv)
    tf.flags.DEFINE_string(flag_name="name", default_value="x", docstring="name", flag_values=fv)  # TF1 keywords
    rest = fv(["prog", "--steps=3", "--fast", "--name", "abc", "positional", "--unknown=1"], known_only=True)
    assert (fv.steps, fv.fast, fv.name) == (3, True, "abc")
    assert rest == ["prog", "positional", "--unknown=1"]
    with pytest.raises(tf.flags.IllegalFlagValueError, match="steps"):
        fv(["prog", "--steps=abc"])
    with pytest.raises(AttributeError, match="nope"):
        fv.nope  # noqa: B018
    seen = []
    monkeypatch.setattr("sys.argv", ["prog"])
    with pytest.raises(SystemExit) as e:
        tf.app.run(main=lambda argv: seen.append(argv))
    assert e.value.code is None and seen == [["prog"]]


def test_flags_parse_sys_argv_when_read_before_app_run(monkeypatch):
    """TF1's FLAGS (unlike absl's) parses sys.argv the first time a value is read; the
    program's own arguments stay."""
    name = "opforge_test_implicit_parse"
    if name not in tf.flags.FLAGS:
        tf.flags.DEFINE_integer(name, 1, "a flag this test defines once", lower_bound=0)
    monkeypatch.setattr("sys.argv", ["prog", f"--{name}=7", "--not_a_flag_of_ours=1"])
    tf.flags.FLAGS.unparse_flags()
    assert getattr(tf.flags.FLAGS, name) == 7
    assert tf.flags.FLAGS[name].present
    with pytest.raises(tf.flags.IllegalFlagValueError, match="non-negative"):
        tf.flags.FLAGS(["prog", f"--{name}=-1"])
    tf.flags.FLAGS.unparse_flags()


def test_gfile(tmp_path):
    d = tmp_path / "a" / "b"
    tf.gfile.MakeDirs(str(d))
    assert tf.gfile.IsDirectory(str(d))
    with tf.gfile.GFile(str(d / "f.txt"), "w") as f:
        f.write("hello")
    assert tf.gfile.Exists(str(d / "f.txt")) and tf.gfile.Glob(str(d / "*.txt")) == [str(d / "f.txt")]
    with tf.gfile.Open(str(d / "f.txt")) as f:
        assert f.read() == "hello"
    tf.gfile.DeleteRecursively(str(tmp_path / "a"))
    assert not tf.gfile.Exists(str(d))
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.Remove(str(d / "f.txt"))
