"""A plan holds a copy of each parameter value as planned (models.contract.as_planned, held_values), as
scikit-learn's clone copies them: a dict, list or option the caller changes in place after planning, or a set_params
on a learner it planned, changes nothing of what the plan checked, what its fits release and what they report. A
shallow copy shared class_weight and classes with the caller: class_weight[1] = 50 after planning was released with
weight 1 under an estimator saying 50, classes grown to three released as binary (attacker probe P1 F1, sixty-seventh
session). The same flaw elsewhere: AdaSSP's plan read label_bound when it fitted (labels clipped at 10 under noise
calibrated for 0.1), PrivateERM's plan read cvxpy_options when it solved (an option added in place refused after the
charge), tune's candidates and certificate held the grid's dicts."""

import numpy as np
import pytest

import dpcvx


def _rows(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")  # 400 rows at epsilon 1: not the point
def test_a_class_weight_changed_in_place_after_planning_changes_nothing():
    X, y = _rows()
    weights = {0: 1.0, 1: 1.0}
    plan = dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, class_weight=weights).plan(X, y)
    weights[1] = 50.0
    fitted = plan.fit(X, y, random_state=1)
    assert fitted.get_params()["class_weight"] == {0: 1.0, 1: 1.0}  # what the release was fitted with
    assert fitted.certificate_.weights.class_weights == ((0, 1.0), (1, 1.0))
    unchanged = dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, class_weight={0: 1.0, 1: 1.0}).plan(X, y)
    np.testing.assert_array_equal(fitted.coef_, unchanged.fit(X, y, random_state=1).coef_)
    fitted.class_weight[1] = 7.0  # a fitted estimator holds values of its own: the plan's stay as planned
    again = plan.fit(X, y, random_state=1)
    assert again.class_weight == {0: 1.0, 1: 1.0} and again.certificate_.weights.class_weights == ((0, 1.0), (1, 1.0))


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
def test_classes_grown_in_place_after_planning_stay_the_planned_pair():
    X, y = _rows()
    classes = [0, 1]
    plan = dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, classes=classes).plan(X, y)
    classes.append(2)
    fitted = plan.fit(X, y, random_state=1)
    assert fitted.get_params()["classes"] == [0, 1] and list(fitted.classes_) == [0, 1]


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
def test_an_accountant_parameter_stays_the_one_object():
    X, y = _rows()
    accountant = dpcvx.PrivacyAccountant(3.0)
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, accountant=accountant)
    plan = estimator.plan(X, y)
    fitted = plan.fit(X, y, random_state=1)
    assert plan.estimator.accountant is accountant and fitted.accountant is accountant
    assert accountant.spent.epsilon == pytest.approx(1.0)


def test_cvxpy_options_changed_in_place_after_planning_are_not_refused_after_the_charge():
    X, y = _rows()
    options = {"max_iter": 200}
    learner = dpcvx.PrivateERM(dpcvx.losses.logistic(), data_norm=1.0, classes=(0, 1), solver="cvxpy",
                               cvxpy_options=options)
    plan = learner.plan(X, y, epsilon=1.0)
    options["no_such_option"] = 3  # checked at planning in its old form: the plan solves with that one
    accountant = dpcvx.PrivacyAccountant(10.0)
    plan.fit(X, y, random_state=1, accountant=accountant)
    assert accountant.spent.epsilon == pytest.approx(1.0)
    assert plan.learner is not learner and plan.learner.cvxpy_options == {"max_iter": 200}


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")  # labels of 10 at B = 0.1: the point
def test_adassp_plan_fits_the_label_bound_it_was_planned_with():
    """set_params(label_bound=10) after planning at 0.1: the plan clipped the labels at 10 and drew noise calibrated
    for 0.1 (the certificate said 10, its calibration 0.1)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = 10 * np.clip(X @ np.ones(3), -1, 1)
    learner = dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=0.1)
    plan = learner.plan(X, y, epsilon=1.0, delta=1e-6)
    learner.set_params(label_bound=10.0)
    model = plan.fit(X, y, random_state=0)
    assert model.certificate.label_bound == model.certificate.calibration.label_bound == 0.1
    planned_again = dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=0.1).plan(X, y, epsilon=1.0, delta=1e-6)
    np.testing.assert_array_equal(model.coef_, planned_again.fit(X, y, random_state=0).coef_)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
def test_tune_holds_copies_of_the_grid_values():
    X, y = _rows(n=2000)
    weights = {0: 1.0, 1: 2.0}
    result = dpcvx.tune(dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0), X, y,
                        {"class_weight": [weights], "lam": [0.01, 0.1]}, epsilon=2.0, random_state=0)
    weights[1] = 50.0
    assert result.params["class_weight"] == {0: 1.0, 1: 2.0}
    assert all(point["class_weight"] == {0: 1.0, 1: 2.0} for point in result.certificate.candidates)
    assert result.model.class_weight == {0: 1.0, 1: 2.0}
