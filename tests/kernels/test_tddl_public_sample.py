"""TDDL's release holds its public sample Z as it is (the predictor's centres). A documentation example passed
``Z=X[:50]``, the training rows, and the model file then published those 50 records verbatim with no word. The
data owner is now told (NOT PRIVATE), the report names Z among the public inputs with what it holds, and a public
Z is not warned."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import PublicSampleWarning


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, (n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)


def _fit(X, y, Z):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = dpcvx.TDDL("rbf", gamma=1.0, lam=1e-2).fit(X, y, 1.0, Z=Z, random_state=0)
    return release, [w for w in caught if w.category is PublicSampleWarning]


@pytest.mark.parametrize("picked", [slice(0, 50), [3, 7, 250], [-1]])
def test_training_rows_in_the_public_sample_are_told_to_their_owner(picked):
    X, y = _data()
    rng = np.random.default_rng(5)
    Z = np.vstack([rng.uniform(-0.5, 0.5, (20, 2)), X[picked]])
    Z[-1] = -0.0 + Z[-1]  # the same values, whatever their sign of zero
    release, told = _fit(X, y, Z)
    found = len(X[picked])
    assert len(told) == 1 and f"{found} of the {len(Z)} points" in str(told[0].message)
    assert "NOT PRIVATE" in str(told[0].message)
    assert np.array_equal(release.predictor.centers, Z)  # what the warning says: Z is published as it is


def test_a_public_sample_is_not_told_and_the_report_names_it():
    X, y = _data()
    Z = np.random.default_rng(1).uniform(-0.5, 0.5, (40, 2))
    release, told = _fit(X, y, Z)
    assert told == []
    text = release.report().to_markdown()
    assert "the public sample Z of 40 points, published in the model as it is" in text
    linear = dpcvx.PrivateERM(data_norm=1.0, lam=1e-2).fit(X, y, 1.0, random_state=0)
    assert "public sample Z" not in linear.report().to_markdown()
