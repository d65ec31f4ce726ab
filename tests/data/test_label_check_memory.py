"""The label checks hold a chunk of temporaries, not boolean n-vectors (issue 44: a fit on a narrow memmap grows
by less than a tenth of the file, and a one-column file is 8 bytes a row).

Before: ``check_labels`` held three boolean n-vectors beside its one-byte labels (4 bytes a row at its peak), and
the estimators' own check of the classes two more; the Hessian subsample of a memmap kept its row indices (8 bytes
a sampled row: 1.6 bytes a row at 1,000,000 x 10). Measured by tracemalloc, which traces numpy's allocations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.solvers.objective import evenly_spaced
from dpcvx.validation import LABEL_CHUNK, check_labels, outside_classes

N = 1_000_000
SLACK = 8 * LABEL_CHUNK + 2**16  # a chunk's temporaries and numpy's small arrays


@pytest.fixture(scope="module")
def labels() -> np.ndarray:
    return np.random.default_rng(3).integers(0, 2, size=N).astype(np.float64)


def test_check_labels_holds_its_result_and_a_chunk(labels: np.ndarray,
                                                   traced_peak: Callable[..., tuple[Any, int]]) -> None:
    signs, peak = traced_peak(check_labels, labels, N, (0, 1), np.int8)
    assert peak < N + SLACK  # the one-byte labels themselves, and a chunk (4 N before)
    np.testing.assert_array_equal(signs, np.where(labels == 1, 1, -1).astype(np.int8))
    floats, _ = traced_peak(check_labels, labels, N, (0, 1))
    assert floats.dtype == np.float64
    np.testing.assert_array_equal(floats, np.where(labels == 1, 1.0, -1.0))


def test_outside_classes_holds_a_chunk(labels: np.ndarray, traced_peak: Callable[..., tuple[Any, int]]) -> None:
    outside, peak = traced_peak(outside_classes, labels, (0, 1))
    assert outside is None
    assert peak < SLACK  # 2 N before (the estimators' mask and a comparison)


@pytest.mark.parametrize("where", [0, LABEL_CHUNK - 1, LABEL_CHUNK, N - 1])
def test_a_label_outside_the_classes_is_found_in_any_chunk(labels: np.ndarray, where: int) -> None:
    y = labels.copy()
    y[where] = 2.0
    outside = outside_classes(y, (0, 1))
    assert outside is not None and np.flatnonzero(outside).tolist() == [where]
    with pytest.raises(InputError, match=f"1 label\\(s\\), the first at row {where} "):
        check_labels(y, N, (0, 1), np.int8)


def test_the_estimator_refuses_a_label_outside_its_classes_by_its_row() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) / 4
    y = rng.integers(0, 2, size=300)
    y[200] = 7
    with pytest.raises(InputError, match="the first at row 200"):
        dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)


@pytest.mark.parametrize(("n", "size"), [(1, 1), (2, 2), (10, 3), (1_000_000, 200_000), (999_983, 77_777),
                                         (123_457, 1_000), (50, 50)])
def test_evenly_spaced_parts_are_linspace_s_values(n: int, size: int) -> None:
    whole = np.linspace(0, n - 1, size).astype(np.intp)
    np.testing.assert_array_equal(evenly_spaced(n, size), whole)
    step = max(1, size // 7)
    parts = np.concatenate([evenly_spaced(n, size, slice(a, a + step)) for a in range(0, size, step)])
    np.testing.assert_array_equal(parts, whole)
