"""Fixtures of the end-to-end tests."""

from __future__ import annotations

import pytest

from tests.e2e.op_libraries import CMAKE, build_libraries


@pytest.fixture(scope="session")
def libs(tmp_path_factory):
    """Paths of the out-of-tree op libraries built for the tests (op_libraries.build_libraries)."""
    if CMAKE is None:
        pytest.skip("cmake is not installed (pip install '.[test]')")
    return build_libraries(tmp_path_factory.mktemp("op_libraries"))
