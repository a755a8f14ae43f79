"""The `opforge` command line: generate, list, show, library, config, new, optimize, serve."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

from . import gen, model, protos


class UsageError(Exception):
    """Bad input to a command: printed as `opforge CMD: message`, exit code 2."""


def _default_root() -> str:
    """The project whose opdefs are meant: the current directory when it has opdefs/,
    else the source checkout this codegen lives in (codegen/..)."""
    if os.path.isdir("opdefs"):
        return os.getcwd()
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _opdef_dirs(args) -> list[str]:
    return args.opdefs or [os.path.join(_default_root(), "opdefs")]


def _proto_dir(args) -> str | None:
    """The schemas to compile: --protos, else the project's proto/ when generating into its own
    generated/ (no --out; the build's `--out build/...` needs no protoc)."""
    if args.protos:
        if not os.path.isdir(args.protos):
            raise UsageError(f"--protos {args.protos}: no such directory")
        return args.protos
    default = os.path.join(_default_root(), "proto")
    return default if args.out is None and os.path.isdir(default) else None


def cmd_generate(args) -> int:
    out = args.out or os.path.join(_default_root(), "generated")
    t0 = time.perf_counter()
    try:
        result = gen.generate(_opdef_dirs(args), out, check=args.check, proto_dir=_proto_dir(args))
    except protos.ProtoError as e:
        raise UsageError(str(e)) from None
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


def cmd_library(args) -> int:
    """Codegen of an op library (what opforge_add_op_library runs): C++ only."""
    from . import library  # noqa: PLC0415
    files = library.opdef_files(args.opdefs)
    if not files:
        raise UsageError(f"no opdef files (*.pbtxt) in {', '.join(args.opdefs)}")
    ops = library.check(args.name, library.parse(args.name, files), library.builtin_ops())
    written = 0
    for rel, text in sorted(library.cpp_files(args.name, ops, files).items()):
        written += gen.write_if_changed(os.path.join(args.out, rel), text)
    print(f"opforge library {args.name}: {len(ops)} ops, {written} written -> {args.out}")
    return 0


def _package_dir() -> str:
    """The installed opforge: the folder with its compiled runtime, headers and CMake package.

    In a wheel install that is the package folder holding this codegen (opforge/codegen); in
    an editable install (README, "Developing opforge") the compiled files live in the build's
    install tree, beside the extension module opforge._C."""
    candidates = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    rt = _runtime()
    if rt is not None:
        candidates.insert(0, os.path.dirname(os.path.abspath(rt.__file__)))
    for pkg in candidates:
        if os.path.exists(os.path.join(pkg, "lib", "cmake", "opforge", "opforgeConfig.cmake")):
            return pkg
    raise UsageError(f"no installed opforge CMake package under {' or '.join(candidates)} (run the "
                     f"`opforge` of an installed opforge, e.g. after `pip install .`)")


def cmd_config(args) -> int:
    pkg = _package_dir()
    inc = os.path.join(pkg, "include")
    lib = os.path.join(pkg, "lib")
    answers = {
        "cmakedir": os.path.join(lib, "cmake", "opforge"),
        "includes": f"-I{inc}",
        "libs": f"-L{lib} -lopforge_runtime -Wl,-rpath,{lib}",
        "cflags": f"-I{inc} -std=c++17 -fPIC",
        "prefix": pkg,
        "abi": _abi_tag(),
        "version": _version(pkg),
    }
    wanted = [k for k in answers if getattr(args, k)]
    if not wanted:
        raise UsageError("say what to print: --cmakedir, --includes, --libs, --cflags, --prefix, "
                         "--abi or --version")
    for k in wanted:
        print(answers[k])
    return 0


def _abi_tag() -> str:
    rt = _runtime()
    return rt.ABI_TAG if rt is not None and hasattr(rt, "ABI_TAG") else "unknown"


def _version(pkg: str) -> str:
    path = os.path.join(pkg, "lib", "cmake", "opforge", "opforgeConfigVersion.cmake")
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("set(PACKAGE_VERSION "):
                    return line.split('"')[1]
    except OSError:
        pass
    return "unknown"


def cmd_new(args) -> int:
    from . import library  # noqa: PLC0415
    from .emit import render  # noqa: PLC0415
    op = args.op
    if not re.match(r"^[A-Z][A-Za-z0-9]*$", op):
        raise UsageError(f"op name '{op}' is not CamelCase (e.g. 'ZeroOut')")
    group = args.group
    if not library._NAME.match(group):
        raise UsageError(f"group '{group}' must be a lower-case identifier (e.g. 'math', 'user_ops')")
    snake = model.snake_case(op)
    func = model.python_param(snake)
    kw = dict(op=op, group=group, snake=snake, func=func)
    # --dataset: a dataset op (a reader of the user's own record format) instead of an identity op
    t_opdef, t_kernel, t_test = (("new/dataset_opdef.pbtxt.j2", "new/dataset_kernel.cc.j2", "new/dataset_test.py.j2")
                                 if args.dataset else ("new/opdef.pbtxt.j2", "new/kernel.cc.j2", "new/test.py.j2"))
    if args.out_of_tree:
        root = args.out_of_tree
        known = library.builtin_ops()
        if group in {o.group for o in known}:
            raise UsageError(f"group '{group}' is a built-in op group; an op library needs its own "
                             f"name (it names the library: {group}.so)")
        files = {
            "CMakeLists.txt": render("new/CMakeLists.txt.j2", **kw),
            f"opdefs/{snake}.pbtxt": render(t_opdef, kernel_path=f"{snake}.cc", **kw),
            f"{snake}.cc": render(t_kernel, opdef_path=f"opdefs/{snake}.pbtxt", library=True, **kw),
            f"test_{snake}.py": render(t_test, library=True, **kw),
        }
    else:
        root = os.getcwd()
        if not os.path.isdir(os.path.join(root, "opdefs")) or not os.path.isdir(os.path.join(root, "kernels")):
            raise UsageError("run it from the root of an opforge checkout (no opdefs/ and kernels/ "
                             "here), or pass --out-of-tree DIR for an op library")
        known = model.load([os.path.join(root, "opdefs")])
        opdef = f"opdefs/{group}/{snake}.pbtxt"
        kernel = f"kernels/cpu/{group}/{snake}.cc"
        files = {
            opdef: render(t_opdef, kernel_path=kernel, **kw),
            kernel: render(t_kernel, opdef_path=opdef, library=False, **kw),
            f"tests/ops/test_{snake}.py": render(t_test, library=False, **kw),
        }
    for o in known:
        if o.name == op or o.snake_name == snake:
            raise UsageError(f"op '{op}' already exists ({o.source})")
    for rel in files:
        if os.path.exists(os.path.join(root, rel)):
            raise UsageError(f"{os.path.join(root, rel)} already exists; not overwriting anything")
    for rel, text in files.items():
        gen.write_if_changed(os.path.join(root, rel), text)
        print(f"  wrote {os.path.join(root, rel)}")
    if args.out_of_tree:
        print(f"next: cd {root} && cmake -S . -B build -G Ninja -Dopforge_DIR=\"$(opforge config "
              f"--cmakedir)\" && cmake --build build && python -m pytest")
    else:
        print("next: pip install . && python -m pytest " + f"tests/ops/test_{snake}.py")
    return 0


def cmd_optimize(args) -> int:
    """Runs the graph optimizer over a GraphDef file (binary, or text for .pbtxt/.txt)."""
    try:
        from opforge.errors import OpError  # noqa: PLC0415
        from opforge.io import graph_def as gdio  # noqa: PLC0415
        from opforge.framework import optimizer  # noqa: PLC0415
    except ImportError as e:
        raise UsageError(f"needs the installed opforge runtime: {e}") from None
    known = set(optimizer.TOGGLES)
    for name in args.disable:
        if name not in known:
            raise UsageError(f"unknown pass '{name}' in --disable; passes: {', '.join(sorted(known))}")
    try:
        gd = gdio.read_graph_def(args.input)
    except (OSError, OpError) as e:
        raise UsageError(str(e)) from None
    outputs = None
    if args.outputs:
        outputs = [n.strip().split(":")[0] for item in args.outputs for n in item.split(",") if n.strip()]
        names = {nd.name for nd in gd.node}
        missing = [n for n in outputs if n not in names]
        if missing:
            raise UsageError(f"--outputs names nodes not in the graph: {', '.join(missing)}")
    config = {name: False for name in args.disable}
    optimized, report = optimizer.optimize(gd, preserve=outputs, config=config)
    print(f"{'pass':<30} {'nodes before':>12} {'nodes after':>12} {'ms':>8}")
    for r in report:
        print(f"{r.name:<30} {r.nodes_before:>12} {r.nodes_after:>12} {r.seconds * 1e3:>8.1f}"
              + (f"  skipped: {r.error}" if r.error else ""))
    print(f"{len(gd.node)} -> {len(optimized.node)} nodes")
    as_text = args.output.endswith((".pbtxt", ".txt"))
    if as_text:
        from google.protobuf import text_format  # noqa: PLC0415
        data = text_format.MessageToString(optimized).encode()
    else:
        data = optimized.SerializeToString(deterministic=True)
    with open(args.output, "wb") as f:
        f.write(data)
    print(f"wrote {args.output}")
    return 0


def cmd_serve(argv: list[str]) -> int:
    """`opforge serve`: the model server (opforge/serving/server.py parses its flags, spelled as
    tensorflow_model_server spells them)."""
    try:
        from opforge.serving import main as serve  # noqa: PLC0415
    except ImportError as e:
        print(f"opforge serve: needs the installed opforge runtime and grpcio, waitress: {e}", file=sys.stderr)
        return 2
    return serve(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:  # its own parser: tensorflow_model_server's --flag=value spelling
        return cmd_serve(argv[1:])
    p = argparse.ArgumentParser(prog="opforge", description="opforge: a declarative op toolchain")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="regenerate generated/ from the opdefs")
    g.add_argument("--opdefs", action="append", metavar="DIR", help="opdef dir or file (repeatable)")
    g.add_argument("--out", metavar="DIR", help="output dir (default: generated/)")
    g.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything would change")
    g.add_argument("--protos", metavar="DIR", help="compile the .proto files in DIR into OUT/proto (default: "
                                                   "proto/ when OUT is the project's generated/)")
    g.set_defaults(fn=cmd_generate)
    l_ = sub.add_parser("list", help="list ops with their kernels")
    l_.add_argument("--opdefs", action="append", metavar="DIR")
    l_.set_defaults(fn=cmd_list)
    s = sub.add_parser("show", help="print an op's normalized definition")
    s.add_argument("op", help="op name (MatMul) or wrapper name (mat_mul)")
    s.add_argument("--opdefs", action="append", metavar="DIR")
    s.set_defaults(fn=cmd_show)
    b = sub.add_parser("library", help="generate the C++ of an op library (run by opforge_add_op_library)")
    b.add_argument("--name", required=True, help="library name (its ops' group): zero_out")
    b.add_argument("--opdefs", action="append", required=True, metavar="PATH", help="opdef file or dir (repeatable)")
    b.add_argument("--out", required=True, metavar="DIR", help="output dir (cpp/ is written under it)")
    b.set_defaults(fn=cmd_library)
    c = sub.add_parser("config", help="where the installed headers, libraries and CMake package are")
    for flag, what in (("cmakedir", "the dir holding opforgeConfig.cmake (for -Dopforge_DIR=)"),
                       ("includes", "compiler flags for the headers"),
                       ("libs", "linker flags for the runtime library"),
                       ("cflags", "all compiler flags an op library needs"),
                       ("prefix", "the installed package dir"),
                       ("abi", "the ABI tag op libraries must carry"),
                       ("version", "the opforge version")):
        c.add_argument(f"--{flag}", action="store_true", help=what)
    c.set_defaults(fn=cmd_config)
    n = sub.add_parser("new", help="scaffold an op: opdef, CPU kernel, test (and CMakeLists.txt out of tree)")
    n.add_argument("op", help="op name, CamelCase: ZeroOut")
    n.add_argument("--group", required=True, help="op group (opdefs/GROUP/); out of tree: the library name")
    n.add_argument("--out-of-tree", metavar="DIR", help="scaffold an op library project in DIR")
    n.add_argument("--dataset", action="store_true",
                   help="scaffold a dataset op (a reader of your own record format: opforge/dataset.h)")
    n.set_defaults(fn=cmd_new)
    o = sub.add_parser("optimize", help="run the graph optimizer over a GraphDef file")
    o.add_argument("input", help="GraphDef file (.pb binary, .pbtxt text)")
    o.add_argument("-o", "--output", required=True, help="where to write the optimized GraphDef")
    o.add_argument("--disable", action="append", default=[], metavar="PASS",
                   help="turn a pass off (RewriterConfig names: constant_folding, arithmetic_optimization, "
                        "dependency_optimization, remapping, common_subgraph_elimination); repeatable")
    o.add_argument("--outputs", action="append", metavar="NODES",
                   help="nodes to preserve, comma-separated (default: nodes nothing reads)")
    o.set_defaults(fn=cmd_optimize)
    sub.add_parser("serve", add_help=False, help="serve SavedModels with TensorFlow Serving's gRPC and REST APIs "
                                                  "(opforge serve --help)")
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except model.OpDefError as e:
        print(e, file=sys.stderr)
        return 2
    except UsageError as e:
        print(f"opforge {args.command}: {e}", file=sys.stderr)
        return 2
