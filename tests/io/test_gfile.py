"""of.io.gfile (TensorFlow's tf.io.gfile) on the local file system, its errors, and
compat.v1's tf.gfile spelling of it."""

import pytest

import opforge as of
import opforge.compat.v1 as tf1


def test_files_and_directories(tmp_path):
    gf = of.io.gfile
    d = tmp_path / "a" / "b"
    gf.makedirs(str(d))
    gf.makedirs(str(d))  # exists already: nothing
    assert gf.isdir(str(d)) and gf.exists(str(d))
    with gf.GFile(str(d / "f.txt"), "w") as f:
        f.write("hello\nworld\n")
    with gf.GFile(str(d / "f.txt")) as f:
        assert f.size() == 12 and list(f) == ["hello\n", "world\n"]
    gf.copy(str(d / "f.txt"), str(d / "g.txt"))
    with pytest.raises(of.errors.AlreadyExistsError, match="g.txt: file already exists"):
        gf.copy(str(d / "f.txt"), str(d / "g.txt"))
    gf.copy(str(d / "f.txt"), str(d / "g.txt"), overwrite=True)
    gf.rename(str(d / "g.txt"), str(d / "h.txt"))
    assert gf.listdir(str(d)) == ["f.txt", "h.txt"]
    assert gf.glob(str(d / "*.txt")) == [str(d / "f.txt"), str(d / "h.txt")]
    assert [(r, sorted(fs)) for r, _, fs in gf.walk(str(tmp_path / "a"))] == [
        (str(tmp_path / "a"), []), (str(d), ["f.txt", "h.txt"])]
    gf.mkdir(str(tmp_path / "c"))
    with pytest.raises(of.errors.AlreadyExistsError):
        gf.mkdir(str(tmp_path / "c"))
    gf.remove(str(d / "h.txt"))
    with pytest.raises(of.errors.NotFoundError, match="h.txt: not found"):
        gf.remove(str(d / "h.txt"))
    gf.rmtree(str(tmp_path / "a"))
    assert not gf.exists(str(d))
    with pytest.raises(of.errors.NotFoundError):
        gf.rmtree(str(tmp_path / "a"))
    with pytest.raises(of.errors.NotFoundError, match="could not find directory"):
        gf.listdir(str(tmp_path / "a"))
    with pytest.raises(of.errors.NotFoundError, match="No such file"):
        gf.GFile(str(tmp_path / "missing.txt"))


def test_compat_v1_gfile_spells_of_io_gfile(tmp_path):
    gf = tf1.gfile
    # TF1's argument names (filename=, dirname=) over of.io.gfile's functions
    gf.MakeDirs(dirname=str(tmp_path / "x"))
    assert gf.Exists(filename=str(tmp_path / "x")) and gf.ListDirectory(dirname=str(tmp_path / "x")) == []
    (tmp_path / "x" / "y.txt").write_text("1")
    assert [(r, fs) for r, _, fs in gf.Walk(str(tmp_path / "x"), in_order=True)] == [(str(tmp_path / "x"), ["y.txt"])]
