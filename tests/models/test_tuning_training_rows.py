"""dpcvx.tune checks the model it released on its rows (NOT PRIVATE, for the data owner), once, after the selection:
a tune whose every candidate was useless (each fitted on part of the rows with part of epsilon) released a model that
predicts one class, or does worse than the labels' mean, and said nothing, where the same learner fitted alone
warns."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models.tuning import BudgetInConstructor, tune


def _rows(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None], rng


def _tuned_warnings(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tune(*args, **kwargs)
    return result, [str(w.message) for w in caught if issubclass(w.category, TrainingRowsWarning)]


@pytest.mark.parametrize("procedure", ["split", "full-data"])
def test_a_useless_tuned_classifier_is_told_once(procedure):
    X, rng = _rows(3000, 0)
    y = (X[:, 0] + 0.1 * rng.normal(size=3000) > 0.9).astype(int)  # about 1 % positives
    learner = BudgetInConstructor(dpcvx.DPLogisticRegression, classes=(0, 1))
    result, told = _tuned_warnings(learner, X, y, {"lam": [1e-3, 1e-2, 1e-1]}, 1.0, procedure=procedure,
                                   random_state=1)
    assert np.unique(result.model.predict(X)).size == 1  # the released model predicts one class
    assert len(told) == 1, told  # the released model's check only: no candidate's
    text = told[0]
    assert text.startswith("dpcvx.tune: on its training rows, the release predicts one class only.")
    assert "NOT PRIVATE" in text and "It is the model dpcvx.tune selected" in text
    assert "class_weight='balanced'" in text and "no guarantee covers" in text


def test_a_useful_tuned_classifier_is_not_told():
    X, rng = _rows(4000, 2)
    y = (X[:, 0] + 0.2 * rng.normal(size=4000) > 0).astype(int)
    learner = BudgetInConstructor(dpcvx.DPLogisticRegression, classes=(0, 1))
    result, told = _tuned_warnings(learner, X, y, {"lam": [1e-3, 1e-2]}, 2.0, procedure="split", random_state=3)
    assert result.model.score(X, y) > 0.8 and told == []


def test_a_tuned_regression_no_better_than_the_mean_is_told_with_its_label_range():
    X, rng = _rows(2000, 4)
    y = 250 + 10 * rng.normal(size=2000)  # labels unrelated to X, in a public range (0, 500)
    learner = BudgetInConstructor(dpcvx.DPLinearRegression, label_bound=(0.0, 500.0), column_statistics=False)
    result, told = _tuned_warnings(learner, X, y, {"lam": [1e-2, 1e-1]}, 0.5, delta=1e-6,
                                   procedure="split", random_state=5)
    assert len(told) == 1, told
    assert told[0].startswith("dpcvx.tune: on its training rows, the release is worse than predicting the labels' mean")
    assert "the tightest public label_bound that holds every label the target can take" in told[0]


def test_a_pipeline_is_checked_once_on_the_rows_its_schema_encodes():
    X, rng = _rows(3000, 6)
    y = (X[:, 0] + 0.1 * rng.normal(size=3000) > 0.9).astype(int)
    schema = dpcvx.PublicSchema([dpcvx.NumericColumn(f"x{j}", -1.0, 1.0) for j in range(5)])
    import pandas as pd

    table = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)])
    from sklearn.pipeline import make_pipeline

    learner = make_pipeline(schema, dpcvx.DPLogisticRegression(classes=(0, 1)))
    _, told = _tuned_warnings(learner, table, y, {"dplogisticregression__lam": [1e-3, 1e-2]}, 1.0, procedure="split",
                              random_state=7)
    assert len(told) == 1 and told[0].startswith("dpcvx.tune: on its training rows")
