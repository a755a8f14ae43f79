"""Error codes across the transports: an opforge.errors.OpError (a tensorflow::Status code) as
a gRPC status and as an HTTP status of TensorFlow Serving's REST API."""

from __future__ import annotations

from ..framework import errors

# The HTTP status of each error code (Google's mapping of canonical codes, which TensorFlow
# Serving's REST API follows).
_HTTP_STATUS = {
    1: 499,   # CANCELLED
    2: 500,   # UNKNOWN
    3: 400,   # INVALID_ARGUMENT
    4: 504,   # DEADLINE_EXCEEDED
    5: 404,   # NOT_FOUND
    6: 409,   # ALREADY_EXISTS
    7: 403,   # PERMISSION_DENIED
    8: 429,   # RESOURCE_EXHAUSTED
    9: 400,   # FAILED_PRECONDITION
    10: 409,  # ABORTED
    11: 400,  # OUT_OF_RANGE
    12: 501,  # UNIMPLEMENTED
    13: 500,  # INTERNAL
    14: 503,  # UNAVAILABLE
    15: 500,  # DATA_LOSS
    16: 401,  # UNAUTHENTICATED
}


def as_op_error(exc: BaseException) -> errors.OpError:
    """exc as an OpError: itself, or an InternalError naming an unexpected exception (a bug
    here, reported to the client rather than dropping the connection)."""
    if isinstance(exc, errors.OpError):
        return exc
    return errors.InternalError(f"{type(exc).__name__}: {exc}")


def http_status(exc: errors.OpError) -> int:
    return _HTTP_STATUS.get(exc.error_code, 500)


def grpc_status(exc: errors.OpError):
    """The grpc.StatusCode with exc's code number."""
    import grpc  # noqa: PLC0415
    for code in grpc.StatusCode:
        if code.value[0] == exc.error_code:
            return code
    return grpc.StatusCode.UNKNOWN
