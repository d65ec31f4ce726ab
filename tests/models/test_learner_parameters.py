"""The learners' parameter interface, as scikit-learn's and the estimators': get_params, set_params, clone, repr,
and the defaults of fit's budget arguments."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx

N, D, BOUND = 4000, 5, 600.0


def _table() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N, D))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, 300.0 + X @ rng.normal(0.0, 60.0, D) + rng.normal(0.0, 20.0, N)


def _adassp(**settings: object) -> dpcvx.PrivateLinearRegression:
    return dpcvx.PrivateLinearRegression(label_bound=BOUND, data_norm=1.0, **settings)


def test_private_linear_regression_takes_scikit_learn_s_parameter_interface_and_tune():
    """PrivateLinearRegression had no get_params / set_params, so tune refused it as no estimator ("For one-vs-rest,
    tune DPLogisticRegression(...)"), where PrivateERM and the kernel learners are tuned."""
    from sklearn.base import clone

    X, y = _table()
    learner = _adassp(fit_intercept=True)
    assert learner.get_params()["label_bound"] == BOUND and clone(learner).get_params() == learner.get_params()
    assert repr(learner) == "PrivateLinearRegression(data_norm=1.0, label_bound=600.0, fit_intercept=True)"
    with pytest.raises(dpcvx.InputError, match=r"PrivateLinearRegression has no parameter\(s\) \['ridge'\]"):
        learner.set_params(ridge=1.0)
    accountant = dpcvx.PrivacyAccountant(10.0, 1e-3)
    result = dpcvx.tune(learner, X, y, {"lam": [0.0, 1.0]}, 1.0, delta=1e-6, procedure="split", random_state=0,
                        accountant=accountant)
    assert result.model.score(X, y) > 0.5 and accountant.spent.epsilon == pytest.approx(1.0)
    assert learner.lam == 0.0  # the user's learner is left as it was


@pytest.mark.parametrize("call", [
    lambda learner, X, y: learner.fit(X, y, 1.0),
    lambda learner, X, y: learner.plan(X, y, 1.0),
    lambda learner, X, y: dpcvx.tune(learner, X, y, {"lam": [0.0, 1.0]}, 1.0, procedure="split"),
], ids=["fit", "plan", "tune"])
def test_private_linear_regression_without_delta_is_told_why(call):
    """delta had no default: a call without it (tune's at its default delta=0) said "plan() missing 1 required
    positional argument: 'delta'", not that AdaSSP needs delta > 0 and which mechanisms are pure epsilon."""
    X, y = _table()
    with pytest.raises(dpcvx.InputError, match=r"delta=0 asks for pure epsilon-DP.*Pure epsilon options"):
        call(_adassp(), X, y)



def test_a_multiclass_learner_takes_scikit_learn_s_parameter_interface():
    """PrivateMulticlassERM had no get_params / set_params: clone failed and tune took only a factory. Its parameters
    are its binary learner and classes, and the binary learner's as binary__<name>; set_params checks the result as
    the constructor does, and leaves the learner (and the caller's binary learner) unchanged when it refuses."""
    from sklearn.base import clone

    binary = dpcvx.PrivateERM(data_norm=1.0, lam=1e-2)
    learner = dpcvx.PrivateMulticlassERM(binary, (0, 1, 2))
    assert learner.get_params(deep=False) == {"binary": binary, "classes": (0, 1, 2)}
    assert learner.get_params()["binary__lam"] == 1e-2
    copied = clone(learner)
    assert copied.binary is not binary and copied.get_params(deep=False)["classes"] == (0, 1, 2)
    assert learner.set_params(binary__lam=0.5).binary.lam == 0.5 and binary.lam == 1e-2
    with pytest.raises(dpcvx.InputError, match="three or more public classes"):
        learner.set_params(classes=(0, 1))
    with pytest.raises(dpcvx.InputError, match=r"no parameter\(s\) \['lam'\]"):
        learner.set_params(lam=1.0)
    assert learner.classes == (0, 1, 2) and learner.binary.lam == 0.5


def test_a_multiclass_learner_shows_its_binary_learner_and_classes():
    learner = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0, lam=1e-2), (0, 1, 2))
    assert repr(learner) == ("PrivateMulticlassERM(PrivateERM(loss=dpcvx.losses.logistic(), lam=0.01, data_norm=1.0, "
                             "fit_intercept=False), classes=(0, 1, 2))")


def test_a_subclass_whose_constructor_requires_an_argument_is_shown():
    """repr compares each setting with a default instance; a user's subclass that requires an argument is compared
    with its dpcvx base's defaults, and its own parameter is shown."""
    class Widened(dpcvx.PrivateERM):
        def __init__(self, width: int, lam: float = 1e-3) -> None:
            super().__init__(lam=lam)
            self.width = width

    assert repr(Widened(3, lam=0.1)) == ("Widened(loss=dpcvx.losses.logistic(), lam=0.1, data_norm=None, "
                                         "fit_intercept=False, width=3)")
