"""A table whose column names mix text with other types (["a", 1, 2.5], as pandas builds after a concat) is refused by
the estimators at fit and at predict, and by a loaded model's predictions, with dpcvx's message naming the names' types
and the fix, before anything is charged: scikit-learn's rule (names kept when all are text, ignored when none is,
refused when mixed) with one message. Before, the estimators passed on scikit-learn's TypeError with the types
redacted as data ("your input has [<a value, not shown: it is data>, ...] as feature name / column name types") and a
fix that spoke of numeric features; a loaded model warned that X has no valid names and predicted. The mathematical
layer keeps a table's names too (its release's ``feature_names_in_``), and refuses a mixed table the same way."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import DPHuberRegressor, DPHuberSVM, DPLinearRegression, DPLogisticRegression, PrivateERM
from dpcvx.exceptions import InputError

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(3)
X = RNG.uniform(-0.3, 0.3, size=(300, 3))
Y01 = (X[:, 0] > 0).astype(int)
TARGET = X[:, 0]
MIXED = ["a", 1, 2.5]
REFUSAL = (r"^the table's column names mix text with other types \(float, int, str\): scikit-learn's rule, which the "
           r"estimators and saved models follow, keeps a table's names when every one is text, ignores them when none "
           r"is, and refuses a mix; make them all text first \(pandas frame.columns = frame.columns.astype\(str\)\)$")
ESTIMATORS = {
    "DPLogisticRegression": (lambda: DPLogisticRegression(random_state=0), Y01),
    "DPHuberSVM": (lambda: DPHuberSVM(random_state=0), Y01),
    "DPLinearRegression": (lambda: DPLinearRegression(delta=1e-6, random_state=0), TARGET),
    "DPHuberRegressor": (lambda: DPHuberRegressor(random_state=0), TARGET),
}


@pytest.mark.parametrize("name", ESTIMATORS)
def test_an_estimator_refuses_mixed_column_names_at_fit_before_the_charge(name):
    make, target = ESTIMATORS[name]
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=REFUSAL):
        make().fit(pd.DataFrame(X, columns=MIXED), target, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("name", ESTIMATORS)
def test_an_estimator_and_its_loaded_model_refuse_mixed_column_names_at_predict(name, tmp_path):
    make, target = ESTIMATORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        estimator = make().fit(pd.DataFrame(X, columns=["a", "b", "c"]), target)
    dpcvx.save(estimator, tmp_path / "model.json")
    loaded = dpcvx.load(tmp_path / "model.json")
    for predictor in (estimator, loaded):
        with pytest.raises(InputError, match=REFUSAL):
            predictor.predict(pd.DataFrame(X, columns=MIXED))


def test_names_none_of_which_is_text_are_ignored_as_scikit_learn_ignores_them():
    """Integer names are no feature names: the fit keeps none, as on the array, and predicts the array alike."""
    on_frame = DPLogisticRegression(random_state=0).fit(pd.DataFrame(X, columns=[0, 1, 2]), Y01)
    on_array = DPLogisticRegression(random_state=0).fit(X, Y01)
    assert not hasattr(on_frame, "feature_names_in_")
    np.testing.assert_array_equal(on_frame.coef_, on_array.coef_)


def test_private_erm_refuses_a_mixed_table_before_the_charge_and_keeps_text_names():
    accountant = dpcvx.PrivacyAccountant(5.0)
    with pytest.raises(InputError, match=REFUSAL):
        PrivateERM(data_norm=1.0).fit(pd.DataFrame(X, columns=MIXED), 2 * Y01 - 1, 1.0, accountant=accountant)
    assert not accountant.ledger
    on_frame = PrivateERM(data_norm=1.0).fit(pd.DataFrame(X, columns=["a", "b", "c"]), 2 * Y01 - 1, 1.0,
                                             random_state=0)
    on_array = PrivateERM(data_norm=1.0).fit(X, 2 * Y01 - 1, 1.0, random_state=0)
    np.testing.assert_array_equal(on_frame.coef_, on_array.coef_)
    assert list(on_frame.feature_names_in_) == ["a", "b", "c"] and on_array.feature_names_in_ is None
