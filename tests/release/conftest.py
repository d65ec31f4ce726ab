"""Fixtures of the release tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpcvx.release.records.calibration_record import same_number

# The last bits of a decision value depend on the machine: its BLAS kernels (OpenBLAS picks them by processor,
# AVX-512 or not) and numpy's vectorised exp. 1 to 4 ulps were seen between two machines on the format 7 to 9
# fixtures; 1e-12 is about 4,500 ulps of 1.
LAST_BITS = 1e-12


@pytest.fixture
def as_written() -> Callable[[Any, Any], None]:
    """``as_written(actual, expected)``: a loaded file's outputs against those its writer computed: labels exactly,
    decision values and a regression's predictions (floats) to ``LAST_BITS``. The parameters they come from are
    checked exactly by the tests (the certificate's text, the file saved again)."""
    def check(actual: Any, expected: Any) -> None:
        values = np.asarray(actual)
        if values.dtype.kind == "f":
            np.testing.assert_allclose(values, expected, rtol=LAST_BITS, atol=LAST_BITS)
        else:
            np.testing.assert_array_equal(values, expected)
    return check


@pytest.fixture
def as_recorded() -> Callable[[Any, Any], None]:
    """``as_recorded(rewritten, source)``: a file saved again against the file it was loaded from, equal but for a
    calibration's numbers, which the loader recomputes from the public inputs and which another machine's
    eigensolver may move by a few ulps (TDDL's lambda_max of K_Z): those within ``same_number``'s tolerance."""
    def check(rewritten: Any, source: Any, path: str = "") -> None:
        if isinstance(source, dict) and isinstance(rewritten, dict):
            assert sorted(rewritten) == sorted(source), path
            for key in source:
                check(rewritten[key], source[key], f"{path}.{key}")
        elif isinstance(source, list) and isinstance(rewritten, list):
            assert len(rewritten) == len(source), path
            for index, (mine, theirs) in enumerate(zip(rewritten, source, strict=True)):
                check(mine, theirs, f"{path}[{index}]")
        elif ".calibration." in path and isinstance(source, float):
            assert same_number(source, rewritten), f"{path}: {rewritten!r} != {source!r}"
        else:
            assert rewritten == source and type(rewritten) is type(source), f"{path}: {rewritten!r} != {source!r}"
    return check

