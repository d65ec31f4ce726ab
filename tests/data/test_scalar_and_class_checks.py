"""The library's checks of numbers and declared classes: messages that state the accepted range, and classes
that a label can match."""

import numpy as np
import pytest

from dpcvx import PrivacyAccountant, PrivateERM
from dpcvx.data.preprocessing import NumericColumn
from dpcvx.exceptions import InputError
from dpcvx.privacy.adassp import adassp_calibration
from dpcvx.privacy.gradient_descent import gradient_calibration
from dpcvx.validation import check_classes, check_delta, check_public_classes
from dpcvx.verification.constraints import ConstraintSet


@pytest.mark.parametrize("delta, match", [(float("nan"), r"delta must be a finite number in \[0, 1\), got nan"),
                                          ("0", r"delta must be a number in \[0, 1\), got '0'")])
def test_deltas_refusals_state_its_range(delta, match):
    with pytest.raises(InputError, match=match):
        check_delta(delta)


def test_a_column_bound_beyond_the_float_range_is_refused():
    with pytest.raises(InputError, match="the upper bound of column 'a' must be a finite number, got an integer of 401 "
                                         "digits, which is beyond the float range"):
        NumericColumn("a", 0, 10**400)


@pytest.mark.parametrize("classes, match", [((0, 1, float("nan")), "classes holds NaN"),
                                            ((0, np.nan), "classes holds NaN"),
                                            ({0, 1}, "a set has no fixed order"),
                                            (frozenset((0, 1, 2)), "a set has no fixed order"),
                                            ((True, 0, 2), r"mixes True/False with numbers"),
                                            ((True, 2), r"mixes True/False with numbers")])
def test_declared_classes_a_label_cannot_match_are_refused(classes, match):
    check = check_classes if len(classes) == 2 and not isinstance(classes, (set, frozenset)) else check_public_classes
    with pytest.raises(InputError, match=match):
        check(classes)


@pytest.mark.parametrize("classes", [{-1, 1}, frozenset(("no", "yes")), {-1: 0, 1: 0}.keys(), {-1: 0, 1: 0}, "ny"],
                         ids=["set", "frozenset", "dict keys", "dict", "str"])
@pytest.mark.parametrize("check", [check_classes, check_public_classes], ids=["pair", "sequence"])
def test_unordered_classes_are_refused_by_either_check(check, classes):
    # a set of two labels unpacks in its own order ({-1, 1} as (1, -1)), flipping the positive class silently
    with pytest.raises(InputError, match="ordered sequence .* a set has no fixed order"):
        check(classes)


def test_a_set_of_classes_is_refused_before_privateerm_charges():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 2)) / 4, rng.choice([-1, 1], 50)
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="a set has no fixed order"):
        PrivateERM(loss="logistic", lam=0.1, data_norm=1.0, classes={-1, 1}).fit(X, y, 1.0, accountant=accountant)
    assert accountant.ledger == []


def test_integer_parameters_take_numpy_integers_and_refuse_flags():
    # one check (dpcvx.validation.integer) for every integer parameter: numpy's integers are integers, a bool is not
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 2)) / 4, rng.choice([-1, 1], 50)
    learner = PrivateERM(loss="logistic", lam=0.1, data_norm=1.0, max_iter=np.int64(500))
    assert learner.fit(X, y, 1.0, random_state=0).coef_.shape == (2,)
    for flag in (True, np.bool_(True)):
        with pytest.raises(InputError, match="max_iter must be a positive integer"):
            learner.set_params(max_iter=flag).fit(X, y, 1.0)
    ball = ConstraintSet.from_dict({"kind": "ball", "dim": np.int64(3), "radius": 1.0})
    assert ball.dim == 3 and type(ball.dim) is int
    calibration = gradient_calibration(1.0, 1e-6, dim=3, data_norm=1.0, label_bound=1.0,
                                       range_columns=np.int64(2), steps=np.int32(10))
    assert (calibration.range_columns, calibration.steps) == (2, 10)
    assert adassp_calibration(1.0, 1e-6, dim=3, data_norm=1.0, label_bound=1.0,
                              range_columns=np.int64(2)).range_columns == 2


def test_ordinary_classes_pass():
    assert check_public_classes([0, 1, 2]) == (0, 1, 2)
    assert check_public_classes((True, False)) == (True, False)
    assert check_classes(("a", "b")) == ("a", "b")



NOT_SCALAR = [((0,), (1,), (2,)), (("a", 1), ("b", 2), ("c", 3)), ((0,), (1,)), ([0], [1]), (None, 1), (0, 1 + 2j),
              (b"n", b"y")]


@pytest.mark.parametrize("check, classes", [(check_public_classes, classes) for classes in NOT_SCALAR]
                         + [(check_classes, classes) for classes in NOT_SCALAR if len(classes) == 2])
def test_a_class_label_that_is_not_a_string_or_a_number_is_refused(check, classes):
    # tuples passed: ((0,), (1,), (2,)) was fitted and charged, predicted lists and could not be saved; (("a", 1), ...)
    # failed inside fit with an untyped ValueError
    with pytest.raises(InputError, match=r"class label .* is not a string or a number: classes must be strings or "
                                         r"numbers"):
        check(classes)


def _fit_estimator(classes, X, y, accountant):
    from dpcvx import DPLogisticRegression

    DPLogisticRegression(classes=classes, epsilon=1.0, lam=0.1, data_norm=1.0, random_state=0).fit(
        X, y, accountant=accountant)


def _fit_private_erm(classes, X, y, accountant):
    PrivateERM(loss="logistic", lam=0.1, data_norm=1.0, classes=classes).fit(X, y, 1.0, accountant=accountant)


def _fit_one_vs_rest(classes, X, y, accountant):
    from dpcvx.models.multiclass import PrivateMulticlassERM

    PrivateMulticlassERM(PrivateERM(loss="logistic", lam=0.1, data_norm=1.0), classes).fit(
        X, y, 1.0, accountant=accountant)


@pytest.mark.parametrize("fit, classes, y", [
    (_fit_estimator, ((0,), (1,), (2,)), [0, 1, 2]), (_fit_estimator, (("a", 1), ("b", 2), ("c", 3)), [0, 1, 2]),
    (_fit_estimator, ((0,), (1,)), [0, 1]), (_fit_private_erm, ((0,), (1,)), [0, 1]),
    (_fit_one_vs_rest, ((0,), (1,), (2,)), [0, 1, 2]), (_fit_one_vs_rest, (("a", 1), ("b", 2), ("c", 3)), [0, 1, 2])])
def test_tuple_class_labels_are_refused_at_every_entry_before_the_charge(fit, classes, y):
    rng = np.random.default_rng(0)
    X, labels = rng.normal(size=(60, 2)) / 4, np.resize(np.array(y), 60)
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="is not a string or a number"):
        fit(classes, X, labels, accountant)
    assert accountant.ledger == []
