"""Writes tests/data/tf1_api_surface.json: TensorFlow 1's public API surface as TF itself has it.

Needs TensorFlow (not opforge). Run with the legacy Keras so tf.compat.v1.layers and
tf.compat.v1.nn.rnn_cell enumerate::

    TF_USE_LEGACY_KERAS=1 python tools/tf1_api_surface.py            # rewrite the JSON
    TF_USE_LEGACY_KERAS=1 python tools/tf1_api_surface.py --check    # exit 1 if it is stale

For every namespace of ``tf.compat.v1`` that TF1 programs use (NAMESPACES) it lists each public
name with its kind (module, class, function, constant) and, for functions and classes, the
names of the parameters a caller can pass by keyword (a class's are its constructor's). The
output is deterministic: sorted keys, one entry per line. tests/compat/test_api_surface.py
checks opforge.compat.v1 against it without TensorFlow.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import sys

# tf.compat.v1's namespaces that TF1 programs use; "" is tf itself.
NAMESPACES = (
    "", "nn", "nn.rnn_cell", "math", "linalg", "image", "train", "layers", "losses", "metrics", "summary",
    "data", "io", "strings", "sparse", "random", "initializers", "saved_model", "python_io", "gfile", "app",
    "flags", "logging", "test",
)
# Submodules left out altogether (issue 32): other frameworks' APIs (Keras, Estimator), other
# runtimes (Lite, TPU, XLA, MLIR), TF2's distribution strategies, contrib-era stubs and
# "experimental" corners; and internal modules that leak into a namespace.
EXCLUDED_MODULES = {
    "": {"keras", "estimator", "lite", "distribute", "tpu", "xla", "mlir", "distributions", "user_ops",
         "experimental"},
    "*": {"experimental", "tf_decorator", "mock"},
}
# Dunder names TF1 programs read (tf.__version__); other underscore names are private.
DUNDERS = ("__version__", "__git_version__", "__compiler_version__")

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data",
                   "tf1_api_surface.json")


def _keyword_params(obj) -> list[str] | None:
    """Names a caller can pass by keyword (not *args, **kwargs or positional-only), or None
    when Python cannot say (some builtins)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [p.name for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]


def describe(value) -> dict:
    if inspect.ismodule(value):
        return {"kind": "module"}
    if inspect.isclass(value):
        return {"kind": "class", "params": _keyword_params(value)}
    if inspect.isroutine(value) or isinstance(value, functools.partial):
        return {"kind": "function", "params": _keyword_params(value)}
    return {"kind": "constant"}


def enumerate_namespace(tf, path: str) -> dict:
    mod = tf
    for part in filter(None, path.split(".")):
        mod = getattr(mod, part)
    excluded = EXCLUDED_MODULES.get(path, set()) | EXCLUDED_MODULES["*"]
    names = [n for n in dir(mod) if not n.startswith("_")] + [n for n in DUNDERS if path == "" and hasattr(mod, n)]
    out = {}
    for name in sorted(names):
        if name in excluded:
            continue
        try:
            value = getattr(mod, name)
        except Exception:  # noqa: BLE001  (a lazy module that fails to load is not part of the surface)
            continue
        out[name] = describe(value)
    return out


def build() -> dict:
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf_root
    tf = tf_root.compat.v1
    namespaces = {(path or "tf"): enumerate_namespace(tf, path) for path in NAMESPACES}
    return {"tf_version": tf_root.__version__, "namespaces": namespaces}


def dump(surface: dict) -> str:
    """JSON with one name per line: small diffs when TensorFlow changes."""
    lines = ["{", f'  "tf_version": {json.dumps(surface["tf_version"])},', '  "namespaces": {']
    spaces = sorted(surface["namespaces"])
    for i, ns in enumerate(spaces):
        entries = surface["namespaces"][ns]
        lines.append(f"    {json.dumps(ns)}: {{")
        keys = sorted(entries)
        for j, k in enumerate(keys):
            comma = "," if j < len(keys) - 1 else ""
            lines.append(f"      {json.dumps(k)}: {json.dumps(entries[k], sort_keys=True)}{comma}")
        lines.append("    }" + ("," if i < len(spaces) - 1 else ""))
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed JSON differs")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args(argv)
    text = dump(build())
    if args.check:
        with open(args.out) as f:
            same = f.read() == text
        print("up to date" if same else f"{args.out} is stale: rerun tools/tf1_api_surface.py")
        return 0 if same else 1
    with open(args.out, "w") as f:
        f.write(text)
    total = sum(len(v) for v in json.loads(text)["namespaces"].values())
    print(f"wrote {args.out}: {total} names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
