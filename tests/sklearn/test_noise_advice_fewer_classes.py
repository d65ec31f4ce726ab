"""NoiseDominatesWarning after one-vs-rest names fewer classes among its levers (an analyst probe, session 71, P7
finding 6): at 20 classes each class's fit gets epsilon / 20, and the advice named epsilon, rows and features only,
while classes merged by a public rule are what leave each fit a larger part. A binary fit is not told of classes."""

import warnings

import numpy as np

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning


def _noise_texts(estimator, X, y) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, NoiseDominatesWarning)]


def _rows(k: int, n: int = 600, d: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, rng.integers(0, k, size=n)


def test_one_vs_rest_is_told_fewer_classes_and_a_binary_fit_is_not():
    X, y = _rows(6)
    (text,) = _noise_texts(dpcvx.DPLogisticRegression(epsilon=0.5, classes=tuple(range(6)), random_state=0), X, y)
    assert "fewer classes (one-vs-rest's 6 fits share the budget" in text, text
    X, y = _rows(2)
    texts = _noise_texts(dpcvx.DPLogisticRegression(epsilon=0.05, random_state=0), X, y)
    assert texts and all("fewer classes" not in t for t in texts), texts
