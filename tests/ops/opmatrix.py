"""Shared machinery for the generated op test matrix (tests/ops/): the ops, the coverage record,
and one import for the test modules (``from opmatrix import OPS, cases, build_inputs, ...``).

Everything is driven by the opdefs: the ops, their inputs, dtypes, attrs, gradients and NumPy
references come from ``codegen.model.load`` on the repository's opdefs/ folder. The only
hand-written knowledge is kept in small tables keyed by op name or shape function, in the
modules this one re-exports, each with one job:

* opmatrix_values.py: dtypes, seeds, and ``DOMAINS``, the value domain of an op's data inputs
  (positive for Log, non-zero divisors ...);
* opmatrix_signature.py: an op's dispatch dtype, data and index inputs; calling its wrapper;
* opmatrix_families.py: ``family()`` and the ``*_SHAPES`` / ``*_CASES`` tables: which shapes and
  attr combinations exercise an op, chosen by its shape function (or, for an unknown one, by its
  signature); array_cases.py and nn_cases.py hold the tables of the array and nn ops;
* opmatrix_inputs.py: ``INPUT_BUILDERS``, how to build an op's index-like inputs (axes, perm,
  shape, dims), or data inputs that must agree with each other (Range);
* opmatrix_reference.py: the NumPy reference of a call and the comparison with it.

An op the matrix cannot drive (no inputs, stateful, no reference, unknown shape family) is
listed with the reason in the coverage summary; give it a reference, a family or a builder.
Set OPFORGE_OPS_SEED to run on other random data (failure messages name their seeds).
"""

from __future__ import annotations

from pathlib import Path

import codegen.model
from opmatrix_families import Case, cases, empty_reduction_is_error, family, valid_case, why_not_driven
from opmatrix_inputs import INPUT_BUILDERS, build_inputs
from opmatrix_reference import (as_outputs, assert_all_match, assert_matches, describe, expected_out_spec,
                                expected_out_specs, reference, type_bindings)
from opmatrix_signature import (as_input, call, data_inputs, dispatch_attr, dispatch_dtypes, fixed_data_type,
                                index_inputs, to_tensor, wrapper)
from opmatrix_values import (ALL_DTYPES, DOMAINS, LOW_PRECISION, Domain, domain, is_float, kind, np_dtype,
                             of_dtype, random_values, seed_for, spec_of_np)

__all__ = [
    # the ops and the coverage record (this module)
    "ALL_OPS", "ALL_OPS_BY_NAME", "COVERAGE", "FAILED", "NOT_DRIVEN", "OPS", "OPS_BY_NAME", "OP_NAMES",
    "covered", "covers",
    # dtypes and values
    "ALL_DTYPES", "DOMAINS", "LOW_PRECISION", "Domain", "domain", "is_float", "kind", "np_dtype", "of_dtype",
    "random_values", "seed_for", "spec_of_np",
    # signature and calls
    "as_input", "call", "data_inputs", "dispatch_attr", "dispatch_dtypes", "fixed_data_type", "index_inputs",
    "to_tensor", "wrapper",
    # cases and inputs
    "INPUT_BUILDERS", "Case", "build_inputs", "cases", "empty_reduction_is_error", "family", "valid_case",
    "why_not_driven",
    # references
    "as_outputs", "assert_all_match", "assert_matches", "describe", "expected_out_spec", "expected_out_specs",
    "reference", "type_bindings",
]

REPO = Path(__file__).resolve().parents[2]
OPDEFS = REPO / "opdefs"

ALL_OPS = codegen.model.load([str(OPDEFS)])
ALL_OPS_BY_NAME = {op.name: op for op in ALL_OPS}

# The ops the matrix drives; the others (and why) are listed in the coverage summary.
OPS = [op for op in ALL_OPS if why_not_driven(op) is None]
OPS_BY_NAME = {op.name: op for op in OPS}
OP_NAMES = sorted(OPS_BY_NAME)
NOT_DRIVEN = {op.name: why_not_driven(op) for op in ALL_OPS if why_not_driven(op)}


# ------------------------------------------------------------------------------ coverage

# Coverage, filled by the tests as they pass; printed by conftest.py.
COVERAGE: dict[str, set[str]] = {"reference": set(), "gradient": set(), "errors": set(),
                                 "not_differentiable": set(), "gradient_index": set(), "fuzz": set(),
                                 "statistical": set()}  # random ops (issue 4): test_random.py

FAILED: dict[str, set[str]] = {k: set() for k in COVERAGE}


class covers:
    """``with covers("reference", op.name): ...`` records the op as covered if the body passes.

    Unexpected failures are recorded by conftest.py (a known-bug xfail is not one)."""

    def __init__(self, category: str, op_name: str):
        self.category, self.op_name = category, op_name

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            COVERAGE[self.category].add(self.op_name)
        return False


def covered(category: str) -> set[str]:
    """Ops with a passing check in `category` and no unexpected failure there."""
    return COVERAGE[category] - FAILED[category]
