"""How much of TensorFlow 1's API surface opforge.compat.v1 offers (no TensorFlow needed).

Reads tests/data/tf1_api_surface.json (written by tools/tf1_api_surface.py from TF itself),
looks every name up in opforge.compat.v1 and prints, per namespace, how many are present::

    python tools/tf1_api_coverage.py              # the table the README quotes
    python tools/tf1_api_coverage.py --missing    # and the names that are neither present nor
                                                  # listed in opforge/compat/v1/absent.py
    python tools/tf1_api_coverage.py --update-readme   # rewrites README.md's table

tests/compat/test_api_surface.py runs the same checks (``check``) and fails on any problem.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import os
import sys
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SURFACE = os.path.join(ROOT, "tests", "data", "tf1_api_surface.json")


def load_surface(path: str = SURFACE) -> dict:
    with open(path) as f:
        return json.load(f)


def qualified(namespace: str, name: str) -> str:
    """The name as absent.py spells it: tf.placeholder, nn.conv2d, nn.rnn_cell.LSTMCell."""
    return f"{namespace}.{name}"


_MISSING = object()


def lookup(tf, namespace: str, name: str):
    """opforge.compat.v1's value for tf.<namespace>.<name>, or _MISSING."""
    obj = tf
    parts = [] if namespace == "tf" else namespace.split(".")
    for part in parts + [name]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return _MISSING
    return obj


def keyword_params(obj) -> set[str] | None:
    """The parameter names obj accepts by keyword, or None if Python cannot tell."""
    try:
        sig = inspect.signature(obj)  # a class: its constructor's parameters
    except (TypeError, ValueError):
        return None
    return {p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


@dataclass
class Report:
    """The outcome of comparing opforge.compat.v1 with TensorFlow's surface."""

    per_namespace: dict = field(default_factory=dict)  # namespace -> (present, total)
    unlisted: list = field(default_factory=list)  # neither present nor in ABSENT
    stale_absent: list = field(default_factory=list)  # in ABSENT but present
    unknown_absent: list = field(default_factory=list)  # in ABSENT but not a TF name
    missing_params: dict = field(default_factory=dict)  # name -> TF keywords opforge lacks (not listed)
    stale_params: dict = field(default_factory=dict)  # listed keyword differences that no longer hold

    @property
    def present(self) -> int:
        return sum(p for p, _ in self.per_namespace.values())

    @property
    def total(self) -> int:
        return sum(t for _, t in self.per_namespace.values())

    def table(self) -> str:
        rows = [f"{'namespace':16s} {'present':>8s} {'total':>6s} {'share':>7s}"]
        for ns, (p, t) in sorted(self.per_namespace.items()):
            rows.append(f"tf.{ns if ns != 'tf' else '*':13s} {p:8d} {t:6d} {100 * p / t:6.1f}%")
        rows.append(f"{'all':16s} {self.present:8d} {self.total:6d} {100 * self.present / self.total:6.1f}%")
        return "\n".join(rows)

    def markdown(self) -> str:
        """The README's table: namespaces by size, two to a row, then the total."""
        cells = [(f"`tf.{ns if ns != 'tf' else '*'}`", f"{p} / {t}")
                 for ns, (p, t) in sorted(self.per_namespace.items(), key=lambda kv: (-kv[1][1], kv[0]))]
        half = (len(cells) + 1) // 2
        rows = ["| namespace | present / total | | namespace | present / total |", "|---|---|---|---|---|"]
        for left, right in itertools.zip_longest(cells[:half], cells[half:], fillvalue=("", "")):
            rows.append(f"| {left[0]} | {left[1]} | | {right[0]} | {right[1]} |")
        share = 100 * self.present / self.total
        rows.append(f"| **all** | **{self.present} / {self.total:,} ({share:.1f}%)** | | | |")
        return "\n".join(rows)


def replace_readme_table(readme: str, table: str) -> str:
    """readme with its coverage table (from the header row to the **all** row) replaced."""
    start = readme.index("| namespace | present / total |")
    end = readme.index("\n", readme.index("| **all** |", start))
    return readme[:start] + table + readme[end:]


def check(surface: dict | None = None) -> Report:
    import opforge.compat.v1 as tf
    from opforge.compat.v1.absent import ABSENT, KEYWORD_DIFFERENCES

    surface = surface or load_surface()
    report = Report()
    known = set()
    for ns, entries in surface["namespaces"].items():
        present = 0
        for name, entry in entries.items():
            q = qualified(ns, name)
            known.add(q)
            value = lookup(tf, ns, name)
            if value is _MISSING:
                if q not in ABSENT:
                    report.unlisted.append(q)
                continue
            present += 1
            if q in ABSENT:
                report.stale_absent.append(q)
            tf_params = entry.get("params")
            if entry["kind"] in ("function", "class") and tf_params:
                ours = keyword_params(value)
                lacking = sorted(set(tf_params) - ours) if ours is not None else sorted(tf_params)
                listed = set(KEYWORD_DIFFERENCES.get(q, ()))
                if set(lacking) - listed:
                    report.missing_params[q] = sorted(set(lacking) - listed)
                if listed - set(lacking):
                    report.stale_params[q] = sorted(listed - set(lacking))
        report.per_namespace[ns] = (present, len(entries))
    report.unknown_absent = sorted(set(ABSENT) - known)
    report.stale_params.update({q: ["(not a present function)"] for q in KEYWORD_DIFFERENCES
                                if q not in known or q in ABSENT})
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="list the problems the test reports")
    parser.add_argument("--update-readme", action="store_true", help="rewrite README.md's coverage table")
    args = parser.parse_args(argv)
    report = check()
    if args.update_readme:
        path = os.path.join(ROOT, "README.md")
        with open(path) as f:
            text = replace_readme_table(f.read(), report.markdown())
        with open(path, "w") as f:
            f.write(text)
    print(f"TensorFlow {load_surface()['tf_version']}'s tf.compat.v1 names present in opforge.compat.v1:")
    print(report.table())
    if args.missing:
        for what in ("unlisted", "stale_absent", "unknown_absent", "missing_params", "stale_params"):
            items = getattr(report, what)
            if items:
                print(f"\n{what}:")
                for item in (sorted(items.items()) if isinstance(items, dict) else items):
                    print("  ", *item) if isinstance(item, tuple) else print("  ", item)
    return 0


if __name__ == "__main__":
    sys.exit(main())
