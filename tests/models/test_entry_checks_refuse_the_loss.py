"""The checks made before any data is read refuse a mechanism the loss's own conditions refuse at every epsilon and
width, as the fit's verdict does: ``check_options`` (the estimators' entry checks, the command line,
one-vs-rest) and :func:`dpcvx.as_opendp_measurement`, which accepted Huber objective perturbation at delta > 0 (the
Huber losses are only piecewise C^2) for a measurement every fit then refused (session 69). A C^2 loss at delta > 0
and the Huber losses by output perturbation or at delta = 0 are still accepted."""
from __future__ import annotations

import pytest

import dpcvx
import dpcvx.sklearn as S
from dpcvx.exceptions import AssumptionError

HUBER_LEARNERS = [
    pytest.param(lambda: dpcvx.PrivateERM(task="regression", loss="huber_regression", lam=0.01, data_norm=1.0,
                                          label_bound=1.0), id="huber-regression"),
    pytest.param(lambda: dpcvx.PrivateERM(loss="huber_hinge", lam=0.01, data_norm=1.0), id="huber-hinge"),
    pytest.param(lambda: dpcvx.PrivateERM(loss="huber_hinge", lam=0.01, data_norm=1.0, column_statistics="ranges"),
                 id="huber-hinge-ranges"),
    pytest.param(lambda: dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(loss="huber_hinge", lam=0.01, data_norm=1.0),
                                                    classes=(0, 1, 2)), id="one-vs-rest"),
]


@pytest.mark.parametrize("make", HUBER_LEARNERS)
def test_check_options_refuses_what_the_loss_refuses(make):
    learner = make()
    with pytest.raises(AssumptionError, match="twice_differentiability"):
        learner.check_options(1.0, "objective", delta=1e-6)
    learner.check_options(1.0, "objective", delta=0.0)  # Laplace-type objective perturbation: accepted
    learner.check_options(1.0, "output", delta=1e-6)


@pytest.mark.parametrize("make", [
    pytest.param(lambda: S.DPHuberRegressor(epsilon=1.0, delta=1e-6, mechanism="objective", column_statistics=False),
                 id="huber-regressor"),
    pytest.param(lambda: S.DPHuberSVM(epsilon=1.0, delta=1e-6, mechanism="objective"), id="huber-svm"),
])
def test_opendp_measurement_refused_when_every_fit_would_be(make):
    pytest.importorskip("opendp.prelude")
    with pytest.raises(AssumptionError, match="twice_differentiability"):
        dpcvx.as_opendp_measurement(make())
    dpcvx.as_opendp_measurement(make().set_params(mechanism="output"))


def test_smooth_loss_still_accepted_at_positive_delta():
    dpcvx.PrivateERM(lam=0.01, data_norm=1.0).check_options(1.0, "objective", delta=1e-6)
    pytest.importorskip("opendp.prelude")
    dpcvx.as_opendp_measurement(S.DPLogisticRegression(epsilon=1.0, delta=1e-6))
