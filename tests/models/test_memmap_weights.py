"""Record weights on a memmap X (sample_weight, class_weight): the release and the certificate of the same weighted
fit of the rows in memory (docs/theory.md, sections 21 and 23).

The rows in memory take the weighted objective on all rows, the memmap blockwise Newton over its row blocks: other
sums in other orders, so the two solves stop at two certified points of the same strongly convex objective, within
gamma / (n Lam) of each other. The released coefficients are compared to the tolerance at which an unweighted memmap
fit is compared with the rows in memory (tests/sklearn/test_streaming_estimators.py; neither is bitwise), the
certificates exactly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import UnsupportedWeightsError

N, D = 4_000, 4


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Unscaled columns (the defaults' standardiser has work to do), about 14 % positives, and sample weights."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(N, D)) * [1.0, 3.0, 0.2, 5.0] + [0.0, 2.0, 0.0, -1.0]
    y = (X[:, 0] + rng.normal(size=N) > 1.5).astype(int)
    path = tmp_path_factory.mktemp("weights") / "X.npy"
    np.save(path, X)
    return np.load(path, mmap_mode="r"), y, rng.uniform(0.0, 2.0, N)


def _fit(make, X, y, s, fit):
    with warnings.catch_warnings():
        # the owner's NOT PRIVATE warnings, the same on both inputs
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        return make().fit(X, y, **{key: s if value == "s" else value for key, value in fit.items()})


def _release(model):
    """(released coefficients, intercept, certificate) of an estimator or a PrivateERM model."""
    if isinstance(model, dpcvx.PrivateModel):
        return np.ravel(model.coef_), np.ravel(model.intercept_), model.certificate.to_dict()
    return np.ravel(model.coef_), np.ravel(model.intercept_), model.certificate_.to_dict()


WEIGHTED = {
    "balanced, standardised, intercept": (lambda: dpcvx.DPLogisticRegression(class_weight="balanced",
                                                                             random_state=0), {}),
    "balanced, standardised, no intercept": (lambda: dpcvx.DPLogisticRegression(
        class_weight="balanced", fit_intercept=False, random_state=0), {}),
    "balanced, unscaled, intercept": (lambda: dpcvx.DPLogisticRegression(
        class_weight="balanced", column_statistics=False, data_norm=10.0, random_state=0), {}),
    "balanced, unscaled, no intercept": (lambda: dpcvx.DPLogisticRegression(
        class_weight="balanced", column_statistics=False, data_norm=10.0, fit_intercept=False, random_state=0), {}),
    "dict": (lambda: dpcvx.DPLogisticRegression(class_weight={0: 0.5, 1: 2.0}, random_state=0), {}),
    "sample_weight": (lambda: dpcvx.DPLogisticRegression(sample_weight_bound=2.0, random_state=0),
                      {"sample_weight": "s"}),
    "sample_weight, unscaled": (lambda: dpcvx.DPLogisticRegression(
        sample_weight_bound=2.0, column_statistics=False, data_norm=10.0, random_state=0), {"sample_weight": "s"}),
    "DPERMClassifier dict": (lambda: dpcvx.DPERMClassifier(loss="huber:h=0.5", class_weight={0: 1.0, 1: 3.0},
                                                           random_state=0), {}),
    "DPERMClassifier sample_weight": (lambda: dpcvx.DPERMClassifier(sample_weight_bound=2.0, random_state=0),
                                      {"sample_weight": "s"}),
    "DPHuberRegressor sample_weight": (lambda: dpcvx.DPHuberRegressor(sample_weight_bound=2.0, random_state=0),
                                       {"sample_weight": "s"}),
    "PrivateERM sample_weight": (lambda: dpcvx.PrivateERM(lam=0.01, data_norm=10.0, classes=(0, 1),
                                                          sample_weight_bound=2.0),
                                 {"epsilon": 1.0, "sample_weight": "s", "random_state": 0}),
}


@pytest.mark.parametrize("make, fit", WEIGHTED.values(), ids=WEIGHTED.keys())
def test_a_weighted_memmap_fit_releases_the_weighted_fit_of_its_rows_in_memory(table, make, fit):
    X, y, s = table
    targets = X[:, 0] + 0.1 * X[:, 1] if isinstance(make(), dpcvx.DPHuberRegressor) else y
    coef, intercept, certificate = _release(_fit(make, X, targets, s, fit))
    in_memory = _release(_fit(make, np.asarray(X), targets, s, fit))
    np.testing.assert_allclose(coef, in_memory[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(intercept, in_memory[1], rtol=1e-6, atol=1e-8)
    assert certificate == in_memory[2]  # the same theorem, constants, w_max, calibration and gamma
    assert certificate["weights"] is not None
    unweighted = {key: value for key, value in fit.items() if key != "sample_weight"}
    plain = make().set_params(class_weight=None, sample_weight_bound=None) if fit == {} else make()
    assert not np.allclose(coef, _release(_fit(lambda: plain, X, targets, s, unweighted))[0], rtol=1e-3)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
def test_a_dask_x_refuses_weights_before_the_charge_and_says_a_memmap_takes_them(table):
    da = pytest.importorskip("dask.array")
    X, y, _ = table
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(UnsupportedWeightsError, match=r"class_weight \(a dict, or 'balanced'.*numpy memmap, not "
                                                      r"for a Dask X.*mmap_mode='r'.*nothing was charged"):
        dpcvx.DPLogisticRegression(class_weight="balanced", column_statistics=False, data_norm=10.0).fit(
            da.from_array(np.asarray(X), chunks=(1_000, D)), y, accountant=accountant)
    assert accountant.ledger == []


ESTIMATOR_REFUSALS = {
    "no bound": (lambda: dpcvx.DPLogisticRegression(), "s"),
    "short": (lambda: dpcvx.DPLogisticRegression(sample_weight_bound=2.0), "short"),
    "nan": (lambda: dpcvx.DPLogisticRegression(sample_weight_bound=2.0), "nan"),
    "negative class weight": (lambda: dpcvx.DPLogisticRegression(class_weight={0: -1.0}), None),
    "multiclass": (lambda: dpcvx.DPLogisticRegression(classes=(0, 1, 2), class_weight="balanced"), None),
}


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("make, weights", ESTIMATOR_REFUSALS.values(), ids=ESTIMATOR_REFUSALS.keys())
def test_an_estimators_weights_are_refused_on_a_memmap_as_in_memory_before_the_charge(table, make, weights):
    """The same typed error and message for a memmap as for its rows in memory, nothing charged."""
    X, y, s = table
    values = {"s": s, "short": s[:10], "nan": np.where(np.arange(N) == 3, np.nan, s)}
    labels = np.arange(N) % 3 if make().classes == (0, 1, 2) else y
    refusals = []
    for rows in (np.asarray(X), X):
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        fit = {} if weights is None else {"sample_weight": values[weights]}
        with pytest.raises(dpcvx.InputError) as refused:
            make().fit(rows, labels, accountant=accountant, **fit)
        assert accountant.ledger == []
        refusals.append((type(refused.value), str(refused.value)))
    assert refusals[0] == refusals[1]
