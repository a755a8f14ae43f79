"""Entry point of the `opforge` console script: `opforge serve` (the model server, which needs
the runtime) here, every other command in codegen's CLI (which runs without it)."""

import sys

from .codegen.cli import main as _codegen_main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        from .serving import main as serve  # noqa: PLC0415
        return serve(argv[1:])
    return _codegen_main(argv)


if __name__ == "__main__":
    sys.exit(main())
