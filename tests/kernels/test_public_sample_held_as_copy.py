"""A kernel release or map holds its own copy of the public points it is built on: TDDL's released predictor held
the caller's Z, and NystromFeatures its landmarks (beside a projection computed from them), so a Z changed in place
after the fit changed the released predictions, and the map's rows went through the old projection and the new
landmarks (sixty-seventh session, the class of attacker probe P1 F1)."""

import numpy as np

import dpcvx
from dpcvx.data.kernels import RBFKernel
from dpcvx.data.nystrom import NystromFeatures


def _rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def test_a_tddl_release_keeps_the_sample_it_was_fitted_on():
    X, y = _rows()
    Z = X[:20].copy()
    learner = dpcvx.TDDL(kernel="rbf", gamma=1.0, lam=0.1)
    learner.fit(X, y, epsilon=2.0, Z=Z, random_state=0)
    before = learner.decision_function(X[:5])
    Z[:] = 0.0
    np.testing.assert_array_equal(learner.decision_function(X[:5]), before)


def test_nystrom_features_keep_their_landmarks():
    X, _ = _rows()
    Z = X[:20].copy()
    features = NystromFeatures(RBFKernel(gamma=1.0), Z)
    before = features.transform(X[:5])
    Z[:] = 0.0
    np.testing.assert_array_equal(features.transform(X[:5]), before)


def test_tune_states_the_fit_arguments_it_fitted_with():
    X, y = _rows()
    Z = X[:20].copy()
    result = dpcvx.tune(dpcvx.TDDL(kernel="linear", lam=0.1, input_bound=1.0), X, y, {"lam": [0.1, 1.0]},
                        epsilon=2.0, fit_params={"Z": Z}, random_state=0)
    stated = result.certificate.to_dict()["fit_params"]
    Z[:] = 0.0
    assert result.certificate.to_dict()["fit_params"] == stated
