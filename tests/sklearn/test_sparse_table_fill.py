"""A pandas table of sparse columns whose fill value is not 0 (attacker probe P2, F2): scikit-learn reads a table of
sparse columns only as a scipy sparse matrix, which needs fill 0, and refused one in pandas' words, naming no column
and no fix. dpcvx's InputError names the columns and the fix, before any charge, on every estimator path (fit, plan,
predict, tune)."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning, SmallTableWarning, TrainingRowsWarning

pd = pytest.importorskip("pandas")

# the fits at n = 200 are small: their noise, small-table and training-rows notes are not examined here
QUIET = (NoiseDominatesWarning, SmallTableWarning, TrainingRowsWarning)


@pytest.fixture(scope="module")
def data():
    X = np.random.default_rng(0).uniform(0, 0.5, (200, 3))
    return X, (X[:, 0] > 0.25).astype(int)


def _sparse(X, fill, columns=("a", "b", "c")):
    return pd.DataFrame(X, columns=list(columns)).astype(pd.SparseDtype(float, fill))


def _quiet(call):
    with warnings.catch_warnings():
        for category in QUIET:
            warnings.simplefilter("ignore", category)
        # scikit-learn's note that a table with a dense column is read as a dense array: what the test compares
        warnings.filterwarnings("ignore", message="pandas.DataFrame with sparse columns found")
        return call()


def _paths(X, y, accountant):
    fitted = _quiet(lambda: dpcvx.DPLogisticRegression(random_state=0).fit(X, y))
    return {
        "classifier fit": lambda table: dpcvx.DPLogisticRegression(accountant=accountant).fit(table, y),
        "classifier plan": lambda table: dpcvx.DPLogisticRegression().plan(table, y),
        "classifier predict": lambda table: fitted.predict(table),
        "classifier predict_proba": lambda table: fitted.predict_proba(table),
        "huber regressor fit": lambda table: dpcvx.DPHuberRegressor(accountant=accountant).fit(table, X[:, 0]),
        "linear regressor fit": lambda table: dpcvx.DPLinearRegression(accountant=accountant).fit(table, X[:, 0]),
        "tune": lambda table: dpcvx.tune(dpcvx.DPLogisticRegression(), table, y, {"lam": [0.1, 1.0]}, epsilon=1.0,
                                         random_state=0, accountant=accountant),
    }


@pytest.mark.parametrize("fill, extra", [(np.nan, "missing value"), (0.25, None)])
def test_a_sparse_table_whose_fill_is_not_0_is_refused_naming_the_columns_before_any_charge(data, fill, extra):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=100.0, delta=1e-3)
    table = _sparse(X, fill)
    for name, path in _paths(X, y, accountant).items():
        with pytest.raises(dpcvx.InputError, match="fill value is not 0") as refused:
            path(table)
        message = str(refused.value)
        assert "'a'" in message and "'c'" in message and "X.sparse.to_dense()" in message, name
        assert "COO" not in message
        assert (extra in message) if extra else "missing value" not in message
    assert accountant.spent.epsilon == 0 and not accountant.ledger


def test_the_refusal_names_only_the_columns_whose_fill_is_not_0(data):
    X, y = data
    table = _sparse(X, 0.0)
    table["b"] = table["b"].astype(pd.SparseDtype(float, -1.0))
    with pytest.raises(dpcvx.InputError, match=r"'b' \(fill value -1.0\)") as refused:
        dpcvx.DPLogisticRegression().fit(table, y)
    assert "'a'" not in str(refused.value)


def test_fill_0_and_a_table_with_a_dense_column_fit_as_the_dense_table(data):
    X, y = data
    dense = _quiet(lambda: dpcvx.DPLogisticRegression(random_state=0).fit(pd.DataFrame(X, columns=list("abc")), y))
    zero = _quiet(lambda: dpcvx.DPLogisticRegression(random_state=0).fit(_sparse(X, 0.0), y))
    mixed_table = pd.DataFrame(X, columns=list("abc"))
    mixed_table["b"] = mixed_table["b"].astype(pd.SparseDtype(float, 0.25))  # one sparse column: read by value
    mixed = _quiet(lambda: dpcvx.DPLogisticRegression(random_state=0).fit(mixed_table, y))
    np.testing.assert_allclose(zero.coef_, dense.coef_, rtol=1e-6, atol=1e-9)  # the sparse solver, to tolerance
    np.testing.assert_array_equal(mixed.coef_, dense.coef_)
