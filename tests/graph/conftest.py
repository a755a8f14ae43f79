"""Fixtures for the graph-mode tests: every test builds into its own fresh graph."""

import numpy as np
import pytest

import opforge as of


@pytest.fixture
def graph():
    g = of.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
