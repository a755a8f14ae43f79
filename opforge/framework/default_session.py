"""The default-session stack (TF1's ``sess.as_default()``, ``InteractiveSession``).

Kept apart from session.py so that the graph layer (``Tensor.eval``, ``Operation.run``,
``Variable.load``) can reach the default session without importing the Session, which imports
the graph: the stack holds whatever object was pushed and only calls its ``run``.
"""

from __future__ import annotations

_session_stack: list = []


def push(session) -> None:
    _session_stack.append(session)


def remove(session) -> None:
    if session in _session_stack:
        _session_stack.remove(session)


def default_session():
    """The innermost default session; a ValueError saying how to get one when there is none."""
    if not _session_stack:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                         "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    return _session_stack[-1]


def get_default_session():
    """The innermost default session, or None (tf.compat.v1.get_default_session)."""
    return _session_stack[-1] if _session_stack else None
