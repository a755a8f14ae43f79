"""TF1 training programs run by opforge and by TensorFlow: step time, first run, peak RSS, losses.

Run: python bench/bench_train.py [--programs mlp,lenet] [--steps 20] [--rounds 3] [--busy] [--quick]

Each program of bench/train_programs.py (an MLP, a LeNet-class CNN, a ResNet-20 with batch
norm from tf.nn.moments, an LSTM language model, a GAN; Momentum optimizer) is written once as
a function of a ``tf`` module and run with ``import opforge.compat.v1 as tf`` and with
``import tensorflow.compat.v1 as tf`` in graph mode (``disable_eager_execution``), from the
same NumPy initial weights, on the same batches, each ``Session`` at its default settings.

Every framework runs every program in a child process of its own (``--child``), so each
peak RSS (``VmHWM``) is that framework's alone. The two children of a program live side by side
and take orders from this process over a pipe:

* first run: the wall time of the first training step (the first ``Session.run`` of the train
  op's fetch signature, graph optimization and planning included; a GAN step is two runs). The
  children start one after the other, so neither's start-up overlaps the other's first run.
* losses: of the first ``--check-steps`` steps, as the max relative difference from
  TensorFlow's, for the first step (same weights, same batch: only rounding differs, tolerance
  ``FIRST_STEP_TOLERANCE``) and for the later ones (rounding differences grow as training
  amplifies them, tolerance ``LOSS_TOLERANCE``: a gradient or update that is wrong, not just
  rounded differently, moves the loss by more). A mismatch is flagged in the table and fails
  the exit status.
* step time: ``--rounds`` rounds, alternating between the frameworks (as _common.py's
  round-robin helpers do, one process per framework here); a round runs ``--steps`` steps and
  keeps their median; the best round counts. Ratio = opforge / TF (lower is better).
* ``--busy``: the same again (fresh children, so first runs too) with one CPU-bound process (a
  Python spin loop) running beside them for the whole measurement.

Without TensorFlow installed, opforge's figures are printed alone. The last thing printed is a
Markdown table for the README.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # logging only: TF's start-up banner
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # TF 2.21 keeps tf.layers / rnn_cell in tf_keras
import train_programs  # noqa: E402
from _common import busy_processes, geomean, peak_rss_mib  # noqa: E402

FRAMEWORKS = ("tensorflow", "opforge")
FIRST_STEP_TOLERANCE = 1e-4  # max relative difference of the first step's losses from TF's
LOSS_TOLERANCE = 1e-2  # of the later checked steps' losses
MARK = "@@bench_train "  # prefixes the child's protocol lines (anything else on stdout is noise)
WARMUP_STEPS = 3  # after the checked steps, before any timing


# ---- child: one framework, one program ----

def import_framework(framework: str):
    if framework == "opforge":
        import opforge.compat.v1 as tf  # noqa: PLC0415
    else:
        import tensorflow.compat.v1 as tf  # noqa: PLC0415

        tf.disable_eager_execution()
        tf.logging.set_verbosity(tf.logging.ERROR)
    return tf


def reply(obj) -> None:
    print(MARK + json.dumps(obj), flush=True)


def child(framework: str, program: str, size: str, check_steps: int) -> None:
    """Builds and trains one program, answering the parent's orders (one per stdin line):
    ``steps N`` runs N steps and answers their times; ``quit`` answers the peak RSS."""
    import warnings  # noqa: PLC0415

    warnings.simplefilter("ignore")  # TF's deprecation notices for tf.layers / rnn_cell
    start_mib = peak_rss_mib()
    tf = import_framework(framework)
    import_mib = peak_rss_mib()
    t0 = time.perf_counter()
    trainer = train_programs.Trainer(tf, train_programs.PROGRAMS[program], size)
    setup_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    losses = [trainer.step()]
    first_s = time.perf_counter() - t0
    losses += [trainer.step() for _ in range(check_steps - 1)]
    for _ in range(WARMUP_STEPS):
        trainer.step()
    reply({"version": tf.__version__ if framework == "tensorflow" else opforge_version(),
           "setup_s": setup_s, "first_s": first_s, "losses": losses, "variables": trainer.signature(),
           "start_mib": start_mib, "import_mib": import_mib})
    for line in sys.stdin:
        order = line.split()
        if order[0] == "steps":
            times = []
            for _ in range(int(order[1])):
                t0 = time.perf_counter()
                trainer.step()
                times.append(time.perf_counter() - t0)
            reply({"times": times})
        elif order[0] == "quit":
            trainer.close()
            reply({"peak_mib": peak_rss_mib()})
            return


def opforge_version() -> str:
    import opforge  # noqa: PLC0415

    return opforge.__version__


class Child:
    """The parent's handle on one child process."""

    def __init__(self, framework: str, program: str, args):
        self.framework = framework
        self.stderr = tempfile.TemporaryFile(mode="w+")
        cmd = [sys.executable, os.path.abspath(__file__), "--child", framework, "--programs", program,
               "--check-steps", str(args.check_steps)] + (["--quick"] if args.quick else [])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True, bufsize=1)

    def read(self) -> dict:
        for line in self.proc.stdout:
            if line.startswith(MARK):
                return json.loads(line[len(MARK):])
        self.proc.wait()
        self.stderr.seek(0)
        tail = self.stderr.read().strip().splitlines()[-8:]
        raise RuntimeError(f"{self.framework} child exited with {self.proc.returncode}: " + " | ".join(tail))

    def ask(self, order: str) -> dict:
        self.proc.stdin.write(order + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.stderr.close()


# ---- parent ----

def rel_diff(ours: list, theirs: list) -> tuple:
    """Max relative difference between two runs' losses (every stage's), over the first step
    and over the later ones (0 when there are none); a non-finite loss of ours counts as inf."""
    def step_diff(a_step, b_step):
        return max(abs(a - b) / max(abs(b), 1e-6) if math.isfinite(a) else math.inf
                   for a, b in zip(a_step, b_step))

    diffs = [step_diff(a, b) for a, b in zip(ours, theirs)]
    return diffs[0], max(diffs[1:], default=0.0)


def measure(program: str, frameworks: list, args) -> dict:
    """One program: start the children one after the other, alternate the timing rounds,
    collect peak RSS. Returns {framework: figures} or {"error": text}."""
    children, out = {}, {}
    try:
        for fw in frameworks:
            children[fw] = Child(fw, program, args)
            out[fw] = children[fw].read()
        rounds = {fw: [] for fw in frameworks}
        for _ in range(args.rounds):
            for fw in frameworks:
                rounds[fw].append(statistics.median(children[fw].ask(f"steps {args.steps}")["times"]))
        for fw in frameworks:
            out[fw]["step_s"] = min(rounds[fw])
            out[fw]["rounds_s"] = rounds[fw]
            out[fw].update(children[fw].ask("quit"))
    except Exception as e:  # noqa: BLE001 (a program one framework can't run is a result)
        return {"error": str(e)[:300]}
    finally:
        for c in children.values():
            c.close()
    if len(frameworks) == 2:
        out["diff"] = rel_diff(out["opforge"]["losses"], out["tensorflow"]["losses"])
        out["same_variables"] = out["opforge"]["variables"] == out["tensorflow"]["variables"]
    return out


def report_line(program: str, r: dict, frameworks: list) -> str:
    if "error" in r:
        return f"  {program:<9} not run: {r['error']}"
    parts = [f"{fw} step {r[fw]['step_s'] * 1e3:8.2f} ms  first run {r[fw]['first_s'] * 1e3:7.0f} ms  "
             f"peak {r[fw]['peak_mib']:5.0f} MiB ({r[fw]['import_mib']:.0f} after import)" for fw in frameworks]
    text = f"  {program:<9} " + " | ".join(parts)
    if "diff" in r:
        text += f" | ratio {ratio(r):.2f}  loss rel diff {r['diff'][0]:.1e} / {r['diff'][1]:.1e}"
        if not loss_ok(r):
            text += "  <<< LOSS MISMATCH"
    return text


def ratio(r: dict) -> float:
    return r["opforge"]["step_s"] / r["tensorflow"]["step_s"]


def loss_ok(r: dict) -> bool:
    first, later = r["diff"]
    return first <= FIRST_STEP_TOLERANCE and later <= LOSS_TOLERANCE and r["same_variables"]


def loss_cell(r: dict) -> str:
    if not r["same_variables"]:
        return "**MISMATCH: different variables**"
    text = f"{r['diff'][0]:.1e} / {r['diff'][1]:.1e}"
    return text if loss_ok(r) else f"**MISMATCH {text}**"


def markdown(quiet: dict, busy: dict | None, frameworks: list, args, versions: str) -> str:
    both = len(frameworks) == 2
    text = (f"TF1 training steps, {versions}, {os.cpu_count()} cores, `Session()` defaults; step = median "
            f"of {args.steps} steps, best of {args.rounds} rounds")
    if both:
        text += (" alternating between the frameworks; ratio = opforge / TF (lower is better); losses of the "
                 f"first {args.check_steps} steps vs TF's as max relative difference, first step / later steps "
                 f"(tolerance {FIRST_STEP_TOLERANCE:g} / {LOSS_TOLERANCE:g})")
    lines = [text + ".", ""]
    if both:
        lines += ["| program | TF step ms | opforge step ms | ratio | first run ms (TF / opforge) "
                  "| peak RSS MiB (TF / opforge) | loss agreement |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    else:
        lines += ["| program | opforge step ms | first run ms | peak RSS MiB | first losses |",
                  "| --- | ---: | ---: | ---: | --- |"]
    for name, r in quiet.items():
        title = train_programs.PROGRAMS[name].title if not args.quick else f"{name} (quick)"
        if "error" in r:
            lines.append(f"| {title} | not run: {r['error']} |" + " |" * (6 if both else 3))
        elif both:
            t, o = r["tensorflow"], r["opforge"]
            flag = "**" if ratio(r) > 1.0 else ""
            lines.append(f"| {title} | {t['step_s'] * 1e3:.2f} | {o['step_s'] * 1e3:.2f} | {flag}{ratio(r):.2f}{flag} "
                         f"| {t['first_s'] * 1e3:.0f} / {o['first_s'] * 1e3:.0f} | {t['peak_mib']:.0f} / {o['peak_mib']:.0f} "
                         f"| {loss_cell(r)} |")
        else:
            o = r["opforge"]
            first = ", ".join(f"{step[0]:.3f}" for step in o["losses"])
            lines.append(f"| {title} | {o['step_s'] * 1e3:.2f} | {o['first_s'] * 1e3:.0f} | {o['peak_mib']:.0f} | {first} |")
    if both:
        ok = [r for r in quiet.values() if "error" not in r]
        lines.append(f"| **geometric mean** | | | **{geomean([ratio(r) for r in ok]):.2f}** | | | |")
    if busy:
        lines += ["", "With one busy process (a Python spin loop) beside it:", ""]
        if both:
            lines += ["| program | TF step ms | opforge step ms | ratio | quiet ratio | first run ms (TF / opforge) |",
                      "| --- | ---: | ---: | ---: | ---: | ---: |"]
        else:
            lines += ["| program | opforge step ms | quiet step ms | first run ms |", "| --- | ---: | ---: | ---: |"]
        for name, r in busy.items():
            title = train_programs.PROGRAMS[name].title if not args.quick else f"{name} (quick)"
            q = quiet.get(name, {})
            if "error" in r or "error" in q:
                lines.append(f"| {title} | not run: {r.get('error') or q.get('error')} |" + " |" * (4 if both else 2))
            elif both:
                t, o = r["tensorflow"], r["opforge"]
                flag = "**" if ratio(r) > 1.0 else ""
                lines.append(f"| {title} | {t['step_s'] * 1e3:.2f} | {o['step_s'] * 1e3:.2f} | {flag}{ratio(r):.2f}{flag} "
                             f"| {ratio(q):.2f} | {t['first_s'] * 1e3:.0f} / {o['first_s'] * 1e3:.0f} |")
            else:
                o = r["opforge"]
                lines.append(f"| {title} | {o['step_s'] * 1e3:.2f} | {q['opforge']['step_s'] * 1e3:.2f} "
                             f"| {o['first_s'] * 1e3:.0f} |")
        if both:
            ok = [n for n, r in busy.items() if "error" not in r and "error" not in quiet.get(n, {"error": 1})]
            lines.append(f"| **geometric mean** | | | **{geomean([ratio(busy[n]) for n in ok]):.2f}** "
                         f"| {geomean([ratio(quiet[n]) for n in ok]):.2f} | |")
    return "\n".join(lines)


def versions(results: dict, frameworks: list) -> str:
    found = {fw: r[fw]["version"] for r in results.values() if "error" not in r for fw in frameworks}
    names = {"opforge": "opforge", "tensorflow": "TensorFlow"}
    return " vs ".join(f"{names[fw]} {found.get(fw, '?')}" for fw in reversed(frameworks))


def run_all(names: list, frameworks: list, args, label: str) -> dict:
    print(f"{label}:", flush=True)
    results = {}
    for name in names:
        results[name] = measure(name, frameworks, args)
        print(report_line(name, results[name], frameworks), flush=True)
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--programs", help=f"comma-separated subset of {', '.join(train_programs.PROGRAMS)}")
    p.add_argument("--steps", type=int, help="steps per timing round (default 20; 5 with --quick)")
    p.add_argument("--rounds", type=int, default=3, help="alternating timing rounds (default 3)")
    p.add_argument("--check-steps", type=int, default=5, help="first steps whose losses are compared (default 5)")
    p.add_argument("--busy", action="store_true", help="measure again with one busy process beside it")
    p.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke run")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                   help="comma-separated, default both (TensorFlow left out when not installed)")
    p.add_argument("--child", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = p.parse_args()
    names = args.programs.split(",") if args.programs else list(train_programs.PROGRAMS)
    unknown = [n for n in names if n not in train_programs.PROGRAMS]
    if unknown:
        p.error(f"unknown program(s) {', '.join(unknown)}; known: {', '.join(train_programs.PROGRAMS)}")
    if args.steps is None:
        args.steps = 5 if args.quick else 20
    if args.steps < 1 or args.rounds < 1 or args.check_steps < 1:
        p.error("--steps, --rounds and --check-steps must be at least 1")
    if args.child:
        child(args.child, names[0], "quick" if args.quick else "full", args.check_steps)
        return

    frameworks = [fw for fw in FRAMEWORKS if fw in args.frameworks.split(",")]
    if not frameworks or set(args.frameworks.split(",")) - set(FRAMEWORKS):
        p.error(f"--frameworks: a comma-separated subset of {', '.join(FRAMEWORKS)}")
    # The parent imports neither framework (TensorFlow alone is 600 MiB); the children report versions.
    if "tensorflow" in frameworks and importlib.util.find_spec("tensorflow") is None:
        print("TensorFlow is not installed (pip install tensorflow-cpu tf_keras): opforge's figures alone")
        frameworks = ["opforge"]
    print(f"{' vs '.join(frameworks)}; programs: {', '.join(names)}{' (quick sizes)' if args.quick else ''}",
          flush=True)
    quiet = run_all(names, frameworks, args, "quiet machine")
    busy = None
    if args.busy:
        with busy_processes(1):
            busy = run_all(names, frameworks, args, "one busy process beside it")
    print()
    print(markdown(quiet, busy, frameworks, args, versions(quiet, frameworks)))
    mismatched = [n for res in (quiet, busy or {}) for n, r in res.items() if "diff" in r and not loss_ok(r)]
    failed = [n for res in (quiet, busy or {}) for n, r in res.items() if "error" in r]
    if mismatched:
        print(f"\n!!! LOSS MISMATCH with TensorFlow (relative difference above {FIRST_STEP_TOLERANCE:g} at "
              f"the first step or {LOSS_TOLERANCE:g} later, or different variables): "
              f"{', '.join(sorted(set(mismatched)))}", file=sys.stderr)
    if failed:
        print(f"\n!!! not run: {', '.join(sorted(set(failed)))}", file=sys.stderr)
    if mismatched or failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
