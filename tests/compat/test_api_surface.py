"""TensorFlow 1's API surface against opforge.compat.v1 (issue 32).

tests/data/tf1_api_surface.json lists tf.compat.v1's names and keyword parameters as TensorFlow
has them (tools/tf1_api_surface.py writes it; CI has no TensorFlow). Every name must be present
in opforge.compat.v1 or listed, with its reason, in opforge/compat/v1/absent.py; a present
function must take every keyword TF's takes unless absent.KEYWORD_DIFFERENCES says why not.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import tf1_api_coverage as coverage  # noqa: E402

from opforge.compat.v1 import absent  # noqa: E402


@pytest.fixture(scope="module")
def report():
    return coverage.check()


def test_every_tf_name_is_present_or_listed_absent(report):
    assert not report.unlisted, (
        "TensorFlow names neither in opforge.compat.v1 nor in opforge/compat/v1/absent.py "
        f"(add them, or list them with a reason): {report.unlisted}")


def test_no_listed_absence_is_present(report):
    assert not report.stale_absent, f"present now: delete from opforge/compat/v1/absent.py: {report.stale_absent}"


def test_every_listed_absence_is_a_tf_name(report):
    assert not report.unknown_absent, f"not TensorFlow names (typo?): {report.unknown_absent}"


def test_present_functions_take_tfs_keywords(report):
    assert not report.missing_params, (
        "present functions lacking TensorFlow's keyword parameters (add them, or list them in "
        f"absent.KEYWORD_DIFFERENCES with a reason): {report.missing_params}")


def test_listed_keyword_differences_still_hold(report):
    assert not report.stale_params, f"delete from absent.KEYWORD_DIFFERENCES: {report.stale_params}"


def test_every_absence_has_a_reason():
    assert all(isinstance(r, str) and len(r) > 20 for r in absent.ABSENT.values())
    assert set(absent.KEYWORD_REASONS) == set(absent.KEYWORD_DIFFERENCES)


def test_coverage_table_counts_every_name(report, capsys):
    surface = coverage.load_surface()
    assert report.total == sum(len(v) for v in surface["namespaces"].values())
    assert report.present + len(absent.ABSENT) == report.total
    print("\n" + report.table())  # the figure the README quotes (pytest -s shows it)


def test_missing_name_error_says_why():
    import opforge.compat.v1 as tf
    name, reason = next((n, r) for n, r in sorted(absent.ABSENT.items()) if n.startswith("nn."))
    with pytest.raises(AttributeError, match="opforge does not have tf." + name.replace(".", r"\.")) as e:
        getattr(tf.nn, name.split(".", 1)[1])
    assert reason in str(e.value)


def test_the_checker_finds_an_unlisted_name_and_a_stale_entry(monkeypatch):
    """The check itself can fail: a made-up TF name is reported, and so is a listed absence
    that is present."""
    surface = coverage.load_surface()
    surface["namespaces"]["nn"]["no_such_fn"] = {"kind": "function", "params": ["x"]}
    surface["namespaces"]["nn"]["relu"] = {"kind": "function", "params": ["features", "name", "made_up_kw"]}
    monkeypatch.setitem(absent.ABSENT, "nn.relu", "made up")
    report = coverage.check(surface)
    assert "nn.no_such_fn" in report.unlisted
    assert "nn.relu" in report.stale_absent
    assert report.missing_params["nn.relu"] == ["made_up_kw"]


def test_surface_json_matches_installed_tensorflow():
    pytest.importorskip("tensorflow")
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tf1_api_surface.py"), "--check"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_readme_quotes_the_current_figure(report):
    """The README's coverage table is the one the check measures (python
    tools/tf1_api_coverage.py --update-readme rewrites it)."""
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    assert report.markdown() in readme, "README.md's coverage table is stale: run python tools/tf1_api_coverage.py --update-readme"
