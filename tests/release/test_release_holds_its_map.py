"""A release holds its own copy of its feature map (PrivateERM._held_map): a change the caller makes to the map object
after the fit (a RandomFourierFeatures' set_params, which forgets its draw) does not change the release's
predictions, on every path that releases a linear model of mapped rows (PrivateERM's fit and plan, its
regression, the one-vs-rest learner). On the parent the fit path's release shared the caller's object."""
import numpy as np
import pytest

import dpcvx
from dpcvx.data.kernels import RandomFourierFeatures


def _rows(seed=0, n=300, d=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d)) / np.sqrt(d)
    return X, np.where(X[:, 0] + 0.2 * rng.normal(size=n) > 0, 1, -1)


def _release(how, feature_map, X, y):
    if how == "multiclass":
        learner = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=1e-2,
                                                              feature_map=feature_map), classes=(0, 1, 2))
        labels = np.where(X[:, 1] > 0.1, 2, np.where(y > 0, 1, 0))
        return learner.fit(X, labels, 3.0, random_state=1)
    if how == "regression":
        learner = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(1.0), lam=1e-2, feature_map=feature_map,
                                   task="regression", label_bound=1.0)
        return learner.fit(X, X[:, 0], 1.0, random_state=1)
    learner = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=1e-2, feature_map=feature_map)
    if how == "plan":
        return learner.plan(X, y, epsilon=1.0).fit(X, y, random_state=1)
    return learner.fit(X, y, 1.0, random_state=1)


@pytest.mark.parametrize("how", ["fit", "plan", "regression", "multiclass"])
def test_a_change_to_the_callers_map_after_the_fit_does_not_reach_the_release(how):
    X, y = _rows()
    feature_map = RandomFourierFeatures("rbf", gamma=0.5, n_components=20, random_state=3)
    model = _release(how, feature_map, X, y)
    before = model.decision_function(X[:5])
    assert model.rows.feature_map is not feature_map
    np.testing.assert_array_equal(model.rows.feature_map.transform(X[:5]), feature_map.transform(X[:5]))
    feature_map.set_params(gamma=4.0)  # forgets the draw: the caller's next transform draws anew
    np.testing.assert_array_equal(model.decision_function(X[:5]), before)


class _LockOnFirstUse:
    """A feature map that takes a lock when it first maps rows (it cannot be copied from then on)."""

    norm_bound = 1.0

    def transform(self, X):
        import threading

        self.lock = threading.Lock()
        return np.asarray(X, dtype=float)

    def to_dict(self):
        return {"kind": "identity"}


@pytest.mark.parametrize("how", ["fit", "regression", "multiclass"])
def test_a_map_that_cannot_be_copied_is_refused_before_the_charge(how):
    """The release's copy of its map is taken where the fit plans, after the map's public draw (one zero row): a
    copy taken when the release was built, after the charge, raised copy's TypeError with the budget spent (an
    attacker probe, sixty-eighth session)."""
    X, y = _rows()
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    learner = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=1e-2, feature_map=_LockOnFirstUse())
    with pytest.raises(dpcvx.InputError, match="feature_map=_LockOnFirstUse.*cannot be copied.*nothing was charged"):
        if how == "multiclass":
            dpcvx.PrivateMulticlassERM(learner, classes=(0, 1, 2)).fit(
                X, np.where(X[:, 1] > 0.1, 2, np.where(y > 0, 1, 0)), 3.0, random_state=1, accountant=accountant)
        elif how == "regression":
            dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(1.0), lam=1e-2, feature_map=_LockOnFirstUse(),
                             task="regression", label_bound=1.0).fit(X, X[:, 0], 1.0, random_state=1,
                                                                      accountant=accountant)
        else:
            learner.fit(X, y, 1.0, random_state=1, accountant=accountant)
    assert not accountant.ledger
