"""A dpcvx estimator tuned on a table keeps the table's column names, as its own fit on that table would: tune's runs
fit parts of X as arrays, and the selected estimator had no ``feature_names_in_``, so its predictions (and a saved
file's) read a table with swapped columns by position without a word, where the estimator fitted directly refuses
them. Names that mix text with other types are refused before anything is charged, as the estimators refuse them.
The mathematical layer's release (PrivateERM's) keeps no names, tuned or not."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import BudgetInConstructor, DPHuberRegressor, DPLogisticRegression, PrivateERM
from dpcvx.exceptions import InputError

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(11)
X = RNG.uniform(-0.3, 0.3, size=(800, 3))
Y01 = (X[:, 0] > 0).astype(int)
NAMES = ["age", "hours", "score"]
SWAPPED = "The feature names should match those that were passed during fit: the same names in another order"


def _tuned(learner, table, y, procedure):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return dpcvx.tune(learner, table, y, grid={"lam": [1e-3, 1e-2]}, epsilon=1.0, procedure=procedure,
                          random_state=0)


@pytest.mark.parametrize("procedure", ["split", "full-data"])
@pytest.mark.parametrize("learner", [DPLogisticRegression(), BudgetInConstructor(DPLogisticRegression)],
                         ids=["estimator", "budget in constructor"])
def test_a_tuned_estimator_keeps_the_tables_names_and_refuses_swapped_columns(learner, procedure, tmp_path):
    table = pd.DataFrame(X, columns=NAMES)
    result = _tuned(learner, table, Y01, procedure)
    assert list(result.model.feature_names_in_) == NAMES
    assert result.to_dict()["model"]["feature_names"] == NAMES
    with pytest.raises(InputError, match=SWAPPED):
        result.model.predict(table[["hours", "age", "score"]])
    dpcvx.save(result.model, tmp_path / "tuned.json")
    with pytest.raises(InputError, match=SWAPPED):
        dpcvx.load(tmp_path / "tuned.json").predict(table[["hours", "age", "score"]])
    with pytest.warns(UserWarning, match="X does not have valid feature names"):  # as the estimator fitted on X
        np.testing.assert_array_equal(result.model.predict(table), result.model.predict(X))


def test_a_regressor_tuned_on_a_table_keeps_its_names():
    result = _tuned(DPHuberRegressor(), pd.DataFrame(X, columns=NAMES), X[:, 0], "split")
    assert list(result.model.feature_names_in_) == NAMES


def test_an_estimator_tuned_on_an_array_has_no_names():
    assert not hasattr(_tuned(DPLogisticRegression(), X, Y01, "split").model, "feature_names_in_")


def test_private_erms_release_keeps_no_names_tuned_or_not():
    model = _tuned(PrivateERM(data_norm=1.0), pd.DataFrame(X, columns=NAMES), 2 * Y01 - 1, "split").model
    assert getattr(model, "feature_names_in_", None) is None


def test_mixed_names_are_refused_before_anything_is_charged():
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=r"^the table's column names mix text with other types \(float, int, str\)"):
        dpcvx.tune(DPLogisticRegression(), pd.DataFrame(X, columns=["a", 1, 2.5]), Y01, grid={"lam": [1e-3]},
                   epsilon=1.0, accountant=accountant, random_state=0)
    assert accountant.ledger == []
