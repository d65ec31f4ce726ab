"""Newton near round-off: the computed F is no merit there, the gradient norm is.

On scikit-learn's breast_cancer (455 training rows of 30 collinear columns, each scaled by its maximum, rows
into the unit ball), Lam 0.0237 (rule v1's lam='auto') at epsilon 1 gives an objective whose computed value
F = 0.1 is the small difference of sum l (about 100) and b^T w: at one point it evaluates 8 to 16 ulps apart, so
the exact Newton step "raises" F by 1e-13 and the old line search halved it down to crawling steps, until the
solve stopped "stalled at round-off" ten times above its public target and nothing was released (seed 6 of the
honest_lam benchmark). The steps must be taken on the gradient norm, and the solve must end at its target.
"""


import numpy as np
import pytest

import dpcvx

datasets = pytest.importorskip("sklearn.datasets")


def breast_cancer_fold() -> tuple[np.ndarray, np.ndarray]:
    X, label = datasets.load_breast_cancer(return_X_y=True)
    y = np.where(label == 1, 1.0, -1.0)
    X = X / X.max(axis=0)
    X /= np.linalg.norm(X, axis=1).max() * (1 + 1e-12)
    train = np.random.default_rng(0).permutation(len(y)) % 5 != 0
    return X[train], y[train]


#: the Lam rule v1 chose here (10^-13/8 on the rule's grid; v1.1 weighs the intercept's bias differently and
#: chooses 10^-14/8), where the round-off case was found: fixed, so the test keeps its case
RULE_V1_LAM = 10.0 ** (-13 / 8)


@pytest.mark.parametrize("seed", [6, 0, 7])
def test_newton_reaches_its_target_where_f_is_flat_to_round_off(seed):
    X, y = breast_cancer_fold()
    model = dpcvx.DPLogisticRegression(epsilon=1.0, lam=RULE_V1_LAM, data_norm=1.0, classes=(-1, 1),
                                       random_state=seed).fit(X, y)
    assert np.all(np.isfinite(model.coef_))


@pytest.mark.data("adult")
@pytest.mark.slow
def test_newton_leaves_a_subsampled_hessian_that_does_not_halve_the_residual(uci_data):
    """Adult (paper mode, fold 2 of a seeded 5-fold split), Lam 10^-4.5, eps 1, delta 1/n^2, add-remove:
    the subsampled Hessian missed the curvature of rare one-hot columns, and full steps circled at 4% of the
    first residual for all 100 iterations ("newton-cg stopped (max_iter)": nothing released, 3 fits of the
    honest benchmark). Four steps in a row that do not halve the residual now end the subsample."""
    with pytest.warns(dpcvx.PaperModeWarning):  # the benchmark's rows, as the papers scale them (NOT private)
        data = dpcvx.load_adult(path=uci_data, mode="paper")
    X, y = np.asarray(data.X), np.asarray(data.y)
    order = np.random.default_rng(0).permutation(len(y))
    test = np.zeros(len(y), dtype=bool)
    test[np.array_split(order, 5)[2]] = True
    n = int(np.sum(~test))
    model = dpcvx.PrivateERM(lam=10**-4.5, data_norm=1.0).fit(
        X[~test], y[~test], epsilon=1.0, delta=1 / n**2, random_state=877874235, neighbours="add-remove",
        n_public=n)
    assert np.mean(model.predict(X[test]) != y[test]) < 0.2  # released, and a model (majority: 0.25)
