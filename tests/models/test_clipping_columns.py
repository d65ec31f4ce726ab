"""The NOT PRIVATE notes on a raw table's rows beyond R (dpcvx.data.notes): the clipping note names the column that
holds most of the clipped rows' squared norms (an identifier column, a missing-value code), and the check of the
release on its training rows names the clipping first when most rows were clipped."""

import warnings

import numpy as np
import pandas as pd
import pytest

import dpcvx
from dpcvx.data.notes import heavy_columns
from dpcvx.exceptions import ClippingWarning, TrainingRowsWarning
from dpcvx.models.training_rows import (
    MAP_LOST,
    MISSED_CUT,
    MOSTLY_CLIPPED,
    map_lost_advice,
    missed_cut_advice,
    warning_text,
)

N = 4000


def _caught(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return caught


def _texts(caught, category):
    return [str(w.message) for w in caught if w.category is category]


@pytest.fixture(scope="module")
def balanced():
    """Two balanced classes told by a and b, and an identifier column up to 1e6 beside them."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 0.3, N), rng.normal(0, 0.3, N)
    y = (a + b + rng.normal(0, 0.3, N) > 0).astype(int)
    return pd.DataFrame({"id": np.arange(N) * 250.0, "a": a, "b": b}), y


@pytest.mark.parametrize("estimator", [
    lambda: dpcvx.DPLogisticRegression(epsilon=2, random_state=0),
    lambda: dpcvx.DPHuberRegressor(epsilon=2, label_bound=1, random_state=0),
    lambda: dpcvx.DPLinearRegression(epsilon=2, label_bound=1, random_state=0),
], ids=["DPLogisticRegression", "DPHuberRegressor", "DPLinearRegression"])
def test_the_clipping_note_names_an_identifier_column_of_a_table(balanced, estimator):
    """3,999 of 4,000 rows clipped: the note gave the count alone, not the column to drop."""
    X, y = balanced
    (text,) = _texts(_caught(lambda: estimator().fit(X, y)), ClippingWarning)
    assert "'id' in 3999 of them" in text and "'a' in" not in text and "'b' in" not in text, text
    assert "identifier column" in text and "NOT PRIVATE" in text


def test_the_clipping_note_names_a_missing_value_code_by_position():
    """An array (no names) in [0, 0.5] whose third column holds the code 99 on a twentieth of the rows."""
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 0.5, (N, 4))
    X[rng.random(N) < 0.05, 2] = 99.0
    y = (X[:, 0] > 0.25).astype(int)
    for fit in (lambda: dpcvx.DPLogisticRegression(epsilon=2, random_state=0).fit(X, y),
                lambda: dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, classes=(0, 1)).fit(X, y, epsilon=2, random_state=0)):
        (text,) = _texts(_caught(fit), ClippingWarning)
        assert "column 2 in" in text and "column 0 in" not in text and "missing-value code" in text, text


def test_heavy_columns_need_most_of_a_row_s_squares():
    """A column is named when it holds more than nine tenths of the squared norm of at least a tenth of the rows on
    the bound; rows inside it are not read."""
    rows = np.array([[0.3, 0.95394, 0.0], [0.0, 0.3, 0.95394], [0.0, 1.0, 0.0], [0.6, 0.8, 0.0], [0.1, 0.1, 0.1]])
    assert heavy_columns(rows, 1.0, 3, clipped=4) == (("column 1", 2), ("column 2", 1))
    assert heavy_columns(rows[:, :2] * 0.5, 1.0, 2, clipped=0) == ()


def test_rows_clipped_for_no_column_s_fault_name_none():
    """Three columns uniform on [-1, 1] at R = 1 (R too small for all of them): the note named each column, "column
    1 in 2197 of them", as an identifier or a missing-value code; none dominates a row."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (4000, 3))
    y = (X[:, 0] > 0).astype(int)
    (text,) = _texts(_caught(lambda: dpcvx.DPLogisticRegression(epsilon=2, random_state=0).fit(X, y)),
                     ClippingWarning)
    assert "rows had norm above R = 1" in text and "column" not in text.split("NOT PRIVATE")[0], text


def test_rows_at_the_bound_that_were_not_clipped_name_no_column():
    """An l2-normalised table (every row at norm 1) with 5 of its 2,000 rows scaled to 1.5: the note counted 5 rows
    clipped but named column 'a' "in 1404 of them", an identifier column by its advice; the mapped rows cannot tell
    the 5 from the rows that were at R already, so no column is named."""
    import pandas as pd

    rng = np.random.default_rng(4)
    X = rng.normal(size=(2000, 3))
    X[:, 0] += 3.0
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[:5] *= 1.5
    y = (X[:, 1] > 0).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    (text,) = _texts(_caught(lambda: dpcvx.DPLogisticRegression(epsilon=2, fit_intercept=False,
                                                                 random_state=0).fit(frame, y)), ClippingWarning)
    assert text.startswith("5 of 2000 rows had norm above R = 1") and "'a' in" not in text and "holding most" \
        not in text, text


def test_a_useless_release_on_clipped_rows_names_the_clipping_first(balanced):
    """A balanced table with its identifier column left in: accuracy 0.51 (0.81 without it), and the
    TrainingRowsWarning advised class weights and a threshold, which do not help."""
    X, y = balanced
    estimator = dpcvx.DPLogisticRegression(epsilon=2, random_state=0)
    (text,) = _texts(_caught(lambda: estimator.fit(X, y)), TrainingRowsWarning)
    assert MOSTLY_CLIPPED in text and text.index(MOSTLY_CLIPPED) < text.index("class_weight"), text
    assert np.mean(estimator.predict(X) == y) < 0.55
    without = dpcvx.DPLogisticRegression(epsilon=2, random_state=0)
    caught = _caught(lambda: without.fit(X[["a", "b"]], y))
    assert np.mean(without.predict(X[["a", "b"]]) == y) > 0.75
    assert not any(MOSTLY_CLIPPED in text for text in _texts(caught, TrainingRowsWarning))


@pytest.mark.parametrize("estimator", [
    lambda: dpcvx.DPHuberRegressor(epsilon=2, label_bound=1, random_state=0),
    lambda: dpcvx.DPLinearRegression(epsilon=2, label_bound=1, random_state=0),
], ids=["DPHuberRegressor", "DPLinearRegression"])
def test_a_regression_on_clipped_rows_names_the_clipping_before_any_setting(balanced, estimator):
    """An analyst probe (session 61) on a raw price table: the map-loss advice named AdaSSP and DPHuberRegressor
    first, and then "Fix the columns first ...; no setting named below makes up for it", the settings being above."""
    X, _ = balanced
    labels = X["a"] + X["b"] + np.random.default_rng(3).normal(0, 0.3, N)
    (text,) = _texts(_caught(lambda: estimator().fit(X, labels)), TrainingRowsWarning)
    assert MOSTLY_CLIPPED in text, text
    first = text.index(MOSTLY_CLIPPED)
    for named in ("did better", "column_statistics=False", "mechanism='adassp'", "NOT PRIVATE"):
        assert named in text and first < text.index(named), (named, text)


@pytest.mark.parametrize("finding, advice", [
    (MAP_LOST, map_lost_advice("DPLinearRegression")),
    (MISSED_CUT, missed_cut_advice("DPLogisticRegression")),
], ids=["regression", "classifier"])
def test_the_clipping_cause_comes_right_after_the_finding_for_every_finding(finding, advice):
    """One rule for classifiers and regressions: the finding, then MOSTLY_CLIPPED, then the advice and the rest."""
    text = warning_text(finding, clipped=True, intercept_free=True, advice=advice)
    assert text.startswith(finding + MOSTLY_CLIPPED + advice), text


def test_the_clipping_cause_is_not_said_after_a_fit_on_rows_inside_r(balanced):
    """The fact belongs to one fit: a later fit on rows inside R, useless on noise labels, does not repeat it."""
    X, y = balanced
    _caught(lambda: dpcvx.DPLogisticRegression(epsilon=2, random_state=0).fit(X, y))
    rng = np.random.default_rng(2)
    inside = rng.uniform(-1, 1, (N, 2)) / 2
    labels = rng.integers(0, 2, N)
    caught = _caught(lambda: dpcvx.DPLogisticRegression(epsilon=0.05, random_state=0).fit(inside, labels))
    texts = _texts(caught, TrainingRowsWarning)
    assert texts and not any(MOSTLY_CLIPPED in text for text in texts)


@pytest.mark.parametrize("learner", ["TDDL", "PINP"])
def test_a_kernel_learner_on_rows_clipped_in_feature_space_names_the_clipping_first(learner):
    """The kernel learners scale rows beyond R_phi in feature space (dpcvx.data.kernels.feature_scaling): with an
    identifier column left in, 599 of 600 rows were scaled and the release predicted one class; the training-rows
    warning named no cause before the settings, where the linear learners name the clipping first."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (600, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    rows = np.column_stack([X, np.arange(600.0)])  # the identifier
    estimator = (dpcvx.TDDL("linear", lam=0.1, input_bound=1.0) if learner == "TDDL"
                 else dpcvx.PINP("linear", lam=0.1, input_bound=1.0, max_queries=600))
    extra = {"Z": rows[:50]} if learner == "TDDL" else {}
    caught = _caught(lambda: estimator.fit(rows, y, 200.0, random_state=0, **extra))
    (text,) = _texts(caught, TrainingRowsWarning)
    assert MOSTLY_CLIPPED in text and text.index(MOSTLY_CLIPPED) < text.index("NOT PRIVATE"), text
