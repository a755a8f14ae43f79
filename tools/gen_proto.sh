#!/usr/bin/env bash
# Regenerates generated/proto/op_def_pb2.py from opdefs/op_def.proto.
# Needs grpcio-tools (pip install grpcio-tools), which ships protoc.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m grpc_tools.protoc -Iopdefs --python_out=generated/proto --pyi_out=generated/proto opdefs/op_def.proto
