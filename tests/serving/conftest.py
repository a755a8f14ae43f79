"""Fixtures of the serving tests (helpers: serving_helpers.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def module_tmp(tmp_path_factory, request):
    return tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
