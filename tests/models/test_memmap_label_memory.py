"""A fit on a memmap holds its labels as one bit a row (issue 44: a fit on a memmap grows by less than a tenth of the
file, at every width; a one-column file is 8 bytes a row).

Before: the labels were one byte a row (an eighth of a one-column file: a 10,000,000 x 1 memmap's fit grew by 0.159
of it), and the one-vs-rest fit of k classes held k int64 label vectors, their stack and its argmax (a 1,000,000 x
10 memmap's fit of three classes grew by as much as the file). Measured by tracemalloc, which traces numpy's
allocations; the refusals are unchanged (tests/data/test_label_bits.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


@pytest.mark.slow
@pytest.mark.parametrize("prior", [{}, {"class_prior": "private"}])
def test_a_one_column_memmap_fit_holds_no_byte_a_row(uniform_memmap: Callable[..., np.ndarray],
                                                    traced_peak: Callable[..., tuple[Any, int]],
                                                    prior: dict[str, str]) -> None:
    n = 1_000_000  # blocks of 256 kB up to an 8 MB file: below it they outweigh the labels
    X = uniform_memmap(n, 1)
    y = (X[:, 0] > 0).astype(np.int64)
    learner = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, column_statistics=False, **prior)
    learner.fit(np.asarray(X[:2000]), y[:2000])  # the verifier's caches (10 MB for the centred ridge), not n's
    _, peak = traced_peak(learner.fit, X, y)
    # about 0.77 n: the bits (n / 8) and a few blocks of 256 kB; 1.65 n with one-byte labels, and 8 n more with a
    # private class count (the labels as float64 for the count)
    assert peak < n


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.TrainingRowsWarning")  # random labels
def test_a_one_vs_rest_memmap_fit_holds_bits_per_class(uniform_memmap: Callable[..., np.ndarray],
                                                      traced_peak: Callable[..., tuple[Any, int]]) -> None:
    n = 200_000
    X = uniform_memmap(n, 2)
    y = np.random.default_rng(1).integers(0, 3, size=n)
    learner = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, classes=(0, 1, 2))
    _, peak = traced_peak(learner.fit, X, y)
    assert peak < 8 * n  # about 4.7 n; 81 n with three int64 label vectors, their stack and its argmax
    y[123] = 5
    with pytest.raises(InputError, match="1 label\\(s\\), the first at row 123 "):
        dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, classes=(0, 1, 2)).fit(X, y)


@pytest.mark.slow
def test_a_memmap_regression_holds_no_vector_of_predictions(uniform_memmap: Callable[..., np.ndarray],
                                                            traced_peak: Callable[..., tuple[Any, int]]) -> None:
    n = 300_000
    X = uniform_memmap(n, 2)
    y = np.clip(2 * X[:, 0] + 0.1 * np.random.default_rng(2).normal(size=n), -1.0, 1.0)
    learner = dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-9, random_state=0)
    _, peak = traced_peak(learner.fit, X, y)
    # about 7 n (blocks of the 4.8 MB file); 40 n before: the training-rows check's predictions and squares, the
    # target checks' |y| and masks, the centred labels of the gradient path, each n floats or booleans
    assert peak < 12 * n


@pytest.mark.parametrize("step", [1, 7, 64, 1000])
def test_the_regression_finding_by_blocks_is_the_whole_one(step: int) -> None:
    from dpcvx.models.training_rows import NO_BETTER_REGRESSION, regression_finding, training_rows_finding

    rng = np.random.default_rng(step)
    labels = rng.normal(size=1000)
    for predicted, expected in ((labels + 0.1 * rng.normal(size=1000), None),
                                (rng.normal(size=1000), NO_BETTER_REGRESSION),
                                (1e300 * np.sign(labels), NO_BETTER_REGRESSION)):  # no square overflows
        with np.errstate(over="raise", invalid="raise"):
            assert regression_finding(lambda rows, p=predicted: p[rows], labels, step) == expected
            assert training_rows_finding(predicted, labels, regression=True) == expected
    huge = 1e300 * labels  # in units of the largest |value|
    with np.errstate(over="raise", invalid="raise"):
        assert regression_finding(lambda rows: 0.5 * huge[rows], huge, step) is None


@pytest.mark.parametrize("where", [0, 65_535, 65_536, 199_999])
def test_target_refusals_name_the_first_row_in_any_chunk(where: int) -> None:
    from dpcvx.validation import check_targets

    n = 200_000
    y = np.zeros(n)
    y[[where, n - 1]] = 5.0
    with pytest.raises(InputError, match=f"y has {1 + (where != n - 1)} values with \\|y\\| > label_bound = 1 "
                                         f"\\(first at row {where}\\) and clip=False"):
        check_targets(y, n, 1.0, refuse=True)
    clipped, count, _ = check_targets(y, n, 1.0, refuse=False)
    assert count == 1 + (where != n - 1) and clipped.max() == 1.0
    y[where] = np.nan
    with pytest.raises(InputError, match=f"y holds NaN, missing or infinite values, first at row {where} \\(1 such"):
        check_targets(y, n, 1.0, refuse=False)
