"""Smoke tests of bench/bench_train.py and its TF1 training programs (bench/train_programs.py) at
their quick sizes: each program trains under opforge (finite losses that go down), the benchmark
runs end to end with opforge alone, and, where TensorFlow is installed, the first steps' losses
match TensorFlow's. No timing is asserted."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench")
sys.path.insert(0, BENCH)
import bench_train  # noqa: E402
import train_programs  # noqa: E402

import opforge.compat.v1 as oftf  # noqa: E402

STEPS = 60


def opforge_losses(name: str, steps: int) -> list:
    trainer = train_programs.Trainer(oftf, train_programs.PROGRAMS[name], "quick")
    try:
        return [trainer.step() for _ in range(steps)]
    finally:
        trainer.close()


@pytest.mark.parametrize("name", list(train_programs.PROGRAMS))
def test_program_trains_under_opforge(name):
    losses = opforge_losses(name, STEPS)
    assert all(math.isfinite(v) for step in losses for v in step), losses
    first = [step[0] for step in losses[:5]]
    last = [step[0] for step in losses[-5:]]
    # the (first stage's) loss goes down: the data is learnable and the weights are fixed
    assert sum(last) < 0.9 * sum(first), (first, last)


def test_bench_runs_with_opforge_alone():
    cmd = [sys.executable, os.path.join(BENCH, "bench_train.py"), "--quick", "--frameworks", "opforge",
           "--programs", "mlp,gan", "--steps", "2", "--rounds", "1", "--busy"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    busy_at = lines.index("With one busy process (a Python spin loop) beside it:")
    for table in ([ln for ln in lines[:busy_at] if ln.startswith("| ")],
                  [ln for ln in lines[busy_at:] if ln.startswith("| ")]):
        assert table[0].startswith("| program | opforge step ms |")
        assert [row.split("|")[1].strip() for row in table[2:]] == ["mlp (quick)", "gan (quick)"]


def test_bench_rejects_unknown_program():
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "bench_train.py"), "--programs", "vgg"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown program(s) vgg" in proc.stderr


def test_rel_diff_splits_first_step_from_later_ones():
    assert bench_train.rel_diff([[2.0], [1.0]], [[2.0], [1.0]]) == (0.0, 0.0)
    assert bench_train.rel_diff([[2.0, 1.0]], [[2.0, 1.1]]) == (pytest.approx(0.1 / 1.1), 0.0)
    first, later = bench_train.rel_diff([[2.0], [1.0], [3.0]], [[2.0], [1.0], [2.0]])
    assert first == 0.0 and later == pytest.approx(0.5)
    assert bench_train.rel_diff([[1.0], [float("nan")]], [[1.0], [1.0]]) == (0.0, math.inf)


def test_loss_check_flags_a_mismatch():
    ok = {"diff": (1e-7, 5e-3), "same_variables": True}
    assert bench_train.loss_ok(ok) and "MISMATCH" not in bench_train.loss_cell(ok)
    for bad in ({"diff": (1e-3, 0.0), "same_variables": True}, {"diff": (0.0, 0.05), "same_variables": True},
                {"diff": (0.0, 0.0), "same_variables": False}):
        assert not bench_train.loss_ok(bad) and "MISMATCH" in bench_train.loss_cell(bad)


# TensorFlow 2.21's tf.compat.v1.layers and rnn_cell need the legacy Keras, chosen by an
# environment variable before TensorFlow is first imported: a child process computes TF's losses.
TF_LOSSES = """
import json, sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
import bench_train, train_programs
tf = bench_train.import_framework("tensorflow")
out = {}
for name, program in train_programs.PROGRAMS.items():
    trainer = train_programs.Trainer(tf, program, "quick")
    out[name] = {"losses": [trainer.step() for _ in range(int(sys.argv[2]))], "variables": trainer.signature()}
print(json.dumps(out))
"""


def test_first_losses_match_tensorflow():
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_keras")
    steps = 5
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-c", TF_LOSSES, BENCH, str(steps)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, program in train_programs.PROGRAMS.items():
        trainer = train_programs.Trainer(oftf, program, "quick")
        ours = [trainer.step() for _ in range(steps)]
        assert trainer.signature() == [(n, s) for n, s in theirs[name]["variables"]], name
        trainer.close()
        first, later = bench_train.rel_diff(ours, theirs[name]["losses"])
        assert first <= bench_train.FIRST_STEP_TOLERANCE and later <= bench_train.LOSS_TOLERANCE, (
            name, ours, theirs[name]["losses"])
