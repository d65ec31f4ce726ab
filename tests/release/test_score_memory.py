"""A release's accuracy on a memmap is read by blocks (issue 44): the model's ``score(X, y)`` scored the whole file,
then held its predictions and its labels converted to float64 beside the scores, three float64 n-vectors, 3.1 times a
10,000,000 x 1 file (benchmarks/input_memory.py's method, in a fresh process). Now the labels are checked into bits
and each block of rows is scored and compared while it is in cache; the accuracy is the same number."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.data.rows import _score_rows

N = 1_100_000  # a one-column file of 8.8 MB: four and a fifth of RowMap.scores's blocks of 2 MB


@pytest.fixture(scope="module")
def narrow(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    path: Path = tmp_path_factory.mktemp("narrow")
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, (N, 1))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=N) > 0, 1, -1)
    np.save(path / "X.npy", X)
    np.save(path / "y.npy", y)
    return np.load(path / "X.npy", mmap_mode="r"), np.load(path / "y.npy", mmap_mode="r"), X


@pytest.fixture(scope="module")
def release(narrow) -> dpcvx.PrivateModel:
    X, y, _ = narrow
    learner = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, classes=(-1, 1), column_statistics=False)
    return learner.fit(X[:20_000], np.asarray(y[:20_000])).model_


def _whole(release, X, y) -> float:
    """The accuracy as the whole read computed it: predictions of every row against every label."""
    return float(np.mean(release.predict(X) == np.asarray(y)))


def test_a_releases_score_on_a_memmap_holds_a_block_not_n_vectors(narrow, release, traced_peak):
    X, y, _ = narrow
    """A block's scores, its converted rows and their comparisons (3.2 blocks of 2 MB at the peak), where the whole
    read held three float64 n-vectors (3 files' bytes): the bound, 4 blocks, is 0.95 of the file here and a tenth of a
    file of 80 MB or more."""
    block = 8 * _score_rows(1)
    assert X.nbytes >= 4 * block
    release.score(X[:100], y[:100])  # numpy's first-call allocations
    accuracy, peak = traced_peak(release.score, X, y)
    assert peak < 4 * block, f"{peak / 1e6:.2f} MB for blocks of {block / 1e6:.1f} MB, a file of {X.nbytes / 1e6} MB"
    assert accuracy == _whole(release, X, y)


@pytest.mark.parametrize("cut", [0.0, 0.4])
def test_the_accuracy_by_blocks_is_the_whole_reads(narrow, release, cut):
    """The same number as the whole predictions', on the memmap and in memory, at a decision cut, with labels of
    another dtype, and for an input read whole (lists)."""
    X, y, in_memory = narrow
    release.decision_cut = cut
    try:
        expected = _whole(release, in_memory, y)
        assert release.score(X, y) == expected
        assert release.score(in_memory, np.asarray(y, dtype=float)) == expected
        assert release.score(in_memory[:1000].tolist(), list(y[:1000])) == _whole(release, in_memory[:1000], y[:1000])
    finally:
        release.decision_cut = 0.0


def test_a_standardised_models_accuracy_by_blocks_is_the_whole_reads(narrow):
    X, y, _ = narrow
    standardised = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=1, classes=(-1, 1)).fit(
        X[:5_000], y[:5_000]).model_
    assert standardised.rows.feature_map is not None and standardised.rows.fit_intercept
    assert standardised.score(X, y) == _whole(standardised, X, y)


def test_labels_outside_the_classes_are_refused_before_any_row_is_scored(narrow, release):
    X, y, _ = narrow
    wrong = np.asarray(y).copy()
    wrong[-1] = 3
    with pytest.raises(dpcvx.exceptions.InputError, match="outside the model's classes .*: score labels of its "
                                                          "classes only$"):
        release.score(X, wrong)
    with pytest.raises(dpcvx.exceptions.InputError):
        release.score(X, wrong[:-1])


def test_a_one_vs_rest_releases_accuracy_by_blocks_is_the_whole_reads(narrow, traced_peak):
    """Three classes: the same accuracy as the whole predictions', holding a block's (n_b, 3) scores
    and their predictions (less than three such blocks), not n's."""
    X, y, _ = narrow
    classes = np.where(np.asarray(y) > 0, 1 + (np.arange(N) % 3 == 0), 0)
    release = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, classes=(0, 1, 2),
                                         column_statistics=False).fit(X[:5_000], classes[:5_000]).model_
    release.score(X[:100], classes[:100])  # numpy's first-call allocations
    accuracy, peak = traced_peak(release.score, X, classes)
    assert accuracy == _whole(release, X, classes)
    assert peak < 3 * 3 * 8 * _score_rows(1), f"{peak / 1e6:.2f} MB"  # 14.7 MB; 44 MB whole
