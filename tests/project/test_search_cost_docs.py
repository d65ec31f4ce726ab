"""What an accountant reads after a scikit-learn search is the cost of its fits only (attacker probe P2, F4): the
held-out scores that choose the hyperparameters are computed without noise, not charged and not private. Every place
a user reads of the search's cost says so and points to ``dpcvx.tune``; the number the accounting page quotes is the
one the accountant reads."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import dpcvx

DOCS = Path(__file__).resolve().parents[2] / "docs"
classifiers = pytest.importorskip("dpcvx.sklearn.classifiers")


@pytest.mark.parametrize("text", [
    (DOCS / "accounting.md").read_text(), (DOCS / "tuning.md").read_text(),
    classifiers.__doc__, dpcvx.DPERMClassifier.__doc__, dpcvx.DPLinearRegression.__doc__],
    ids=["accounting.md", "tuning.md", "classifiers module", "DPERMClassifier", "DPLinearRegression"])
def test_the_search_cost_is_said_to_be_the_fits_only(text):
    flat = " ".join(text.split())
    assert "GridSearchCV" in flat or "grid search" in flat
    assert "not charged and not private" in flat
    assert "dpcvx.tune" in flat


def test_the_accounting_pages_grid_search_charges_what_it_says():
    """docs/accounting.md: GridSearchCV(epsilon=1, two lam, cv=3) leaves the accountant at epsilon 7."""
    sklearn = pytest.importorskip("sklearn.model_selection")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.1
    y = (X[:, 0] > 0).astype(int)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    search = sklearn.GridSearchCV(dpcvx.DPLogisticRegression(epsilon=1, accountant=accountant, random_state=0),
                                  {"lam": [1e-3, 1e-2]}, cv=3)
    with warnings.catch_warnings():  # the folds' fits at n = 200: their noise and small-table notes are not read here
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.SmallTableWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.TrainingRowsWarning)
        search.fit(X, y)
    assert accountant.spent.epsilon == pytest.approx(7.0, rel=1e-12)
    assert "acc.spent` reads epsilon 7 (six fits on the folds and the refit of the best)" in " ".join(
        (DOCS / "accounting.md").read_text().split())
