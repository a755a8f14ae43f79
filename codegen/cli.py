"""The `opforge` command line: generate, list, show."""

from __future__ import annotations

import argparse
import os
import sys
import time

from . import gen, model


def _default_root() -> str:
    """The project whose opdefs are meant: the current directory when it has opdefs/,
    else the source checkout this codegen lives in (codegen/..)."""
    if os.path.isdir("opdefs"):
        return os.getcwd()
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _opdef_dirs(args) -> list[str]:
    return args.opdefs or [os.path.join(_default_root(), "opdefs")]


def cmd_generate(args) -> int:
    out = args.out or os.path.join(_default_root(), "generated")
    t0 = time.perf_counter()
    result = gen.generate(_opdef_dirs(args), out, check=args.check)
    dt = time.perf_counter() - t0
    if args.check:
        if result.drifted:
            print(f"opforge generate --check: {len(result.drifted)} generated file(s) out of date "
                  f"in {out}:")
            for rel in result.drifted:
                how = "stale, would be removed" if rel in result.removed else "would change"
                print(f"  {rel} ({how})")
            print("run `opforge generate` and commit the result")
            return 1
        print(f"opforge generate --check: {result.ops} ops, {len(result.unchanged)} files up to date "
              f"({dt:.2f}s)")
        return 0
    print(f"opforge generate: {result.ops} ops, {len(result.written)} written, "
          f"{len(result.unchanged)} unchanged, {len(result.removed)} removed -> {out} ({dt:.2f}s)")
    return 0


def _runtime():
    try:
        from opforge import _C  # noqa: PLC0415
        return _C
    except ImportError:
        return None


def cmd_list(args) -> int:
    ops = model.load(_opdef_dirs(args))
    rt = _runtime()
    width = max((len(o.name) for o in ops), default=10)
    for op in ops:
        kernels = rt.kernels(op.name) if rt is not None else "(runtime not built)"
        print(f"{op.name:<{width}}  {op.group:<6} of.{op.snake_name:<24} kernels: {kernels}")
    print(f"{len(ops)} ops")
    return 0


def cmd_show(args) -> int:
    from google.protobuf import text_format  # noqa: PLC0415

    from .normalize import to_proto  # noqa: PLC0415
    ops = {o.name: o for o in model.load(_opdef_dirs(args))}
    op = ops.get(args.op)
    if op is None:
        by_snake = {o.snake_name: o for o in ops.values()}
        op = by_snake.get(args.op)
    if op is None:
        print(f"opforge show: no op named '{args.op}'", file=sys.stderr)
        return 2
    print(f"# {op.loc}")
    print(text_format.MessageToString(to_proto(op)), end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="opforge", description="opforge: a declarative op toolchain")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="regenerate generated/ from the opdefs")
    g.add_argument("--opdefs", action="append", metavar="DIR", help="opdef dir or file (repeatable)")
    g.add_argument("--out", metavar="DIR", help="output dir (default: generated/)")
    g.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything would change")
    g.set_defaults(fn=cmd_generate)
    l_ = sub.add_parser("list", help="list ops with their kernels")
    l_.add_argument("--opdefs", action="append", metavar="DIR")
    l_.set_defaults(fn=cmd_list)
    s = sub.add_parser("show", help="print an op's normalized definition")
    s.add_argument("op", help="op name (MatMul) or wrapper name (mat_mul)")
    s.add_argument("--opdefs", action="append", metavar="DIR")
    s.set_defaults(fn=cmd_show)
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except model.OpDefError as e:
        print(e, file=sys.stderr)
        return 2
