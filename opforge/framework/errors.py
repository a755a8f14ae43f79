"""Typed errors, as TensorFlow names them. Every error from an op is an OpError subclass
chosen by its status code, carrying the op (and, in graphs, the node) name."""

from __future__ import annotations


class OpError(Exception):
    """An error raised by an op. ``op`` is the op type (e.g. "MatMul")."""

    error_code = 2

    def __init__(self, message: str, op: str | None = None, node_def=None):
        super().__init__(message)
        self.message = message
        self.op = op
        self.node_def = node_def

    def __str__(self) -> str:
        return self.message


class CancelledError(OpError):
    error_code = 1


class UnknownError(OpError):
    error_code = 2


class InvalidArgumentError(OpError, ValueError):
    error_code = 3


class DeadlineExceededError(OpError):
    error_code = 4


class NotFoundError(OpError, LookupError):
    error_code = 5


class AlreadyExistsError(OpError):
    error_code = 6


class PermissionDeniedError(OpError):
    error_code = 7


class ResourceExhaustedError(OpError, MemoryError):
    error_code = 8


class FailedPreconditionError(OpError):
    error_code = 9


class AbortedError(OpError):
    error_code = 10


class OutOfRangeError(OpError, IndexError):
    error_code = 11


class UnimplementedError(OpError, NotImplementedError):
    error_code = 12


class InternalError(OpError):
    error_code = 13


class UnavailableError(OpError):
    error_code = 14


class DataLossError(OpError):
    error_code = 15


class UnauthenticatedError(OpError):
    error_code = 16


BY_CODE = {cls.error_code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError,
    AbortedError, OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
    DataLossError, UnauthenticatedError)}
