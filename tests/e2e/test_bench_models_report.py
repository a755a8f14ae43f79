"""bench/bench_models.py's report, on made-up figures (no model is run, TensorFlow not needed):
the busy table (``--busy``) puts each busy ratio beside its quiet one, with geometric means of
both, and is left out when no busy figures were taken."""

from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
import bench_models  # noqa: E402


def result(name: str, quiet: dict, busy: dict | None) -> dict:
    batches = {}
    for b, (of_s, tf_s) in quiet.items():
        batches[b] = {"diff": 1e-6, "time": {"opforge": of_s, "tensorflow": tf_s},
                      "faults": {"opforge": 0.0, "tensorflow": 0.0}}
        if busy is not None:
            batches[b]["busy"] = {"opforge": busy[b][0], "tensorflow": busy[b][1]}
    return {"name": name, "input": "32x32", "params": 1e5, "nodes": 10, "batches": batches}


def table(text: str, title_start: str) -> list:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(title_start))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("| "):
            break
        rows.append([c.strip() for c in ln.strip("|").split("|")])
    return rows


def test_busy_table_beside_quiet_ratios():
    results = [result("a", {1: (0.002, 0.004), 8: (0.010, 0.020)}, {1: (0.003, 0.004), 8: (0.018, 0.020)}),
               result("b", {1: (0.001, 0.004), 8: (0.030, 0.020)}, {1: (0.002, 0.004), 8: (0.045, 0.025)})]
    text = bench_models.markdown(results, {}, [1, 8], None, ("0.1", "2.21"))
    rows = table(text, "| model | b1 opforge | b1 TF | b1 ratio | b1 quiet ratio |")
    assert rows[0] == ["a", "3.00", "4.00", "0.75", "0.50", "18.00", "20.00", "0.90", "0.50"]
    assert rows[1] == ["b", "2.00", "4.00", "0.50", "0.25", "45.00", "25.00", "1.80", "1.50"]
    mean = rows[2]
    assert mean[0] == "**geometric mean**"
    assert mean[3] == f"**{math.sqrt(0.75 * 0.5):.2f}**" and mean[4] == f"{math.sqrt(0.5 * 0.25):.2f}"
    assert mean[7] == f"**{math.sqrt(0.9 * 1.8):.2f}**" and mean[8] == f"{math.sqrt(0.5 * 1.5):.2f}"


def test_no_busy_table_without_busy_figures():
    text = bench_models.markdown([result("a", {1: (0.002, 0.004)}, None)], {}, [1], None, ("0.1", "2.21"))
    assert "busy process" not in text
    assert table(text, "| model | input | params |")[0][:6] == ["a", "32x32", "0.1M", "2.00", "4.00", "0.50"]
