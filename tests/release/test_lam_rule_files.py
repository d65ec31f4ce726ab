"""Every estimator's lam="auto" release loads back (docs/model-files.md: the loader re-derives the rule's bound).

The loader recomputes the rule's noise and bias terms from the file. It did so at the released calibration and with
the constants' c: a float-safe release's calibration is the lattice one, while the rule chose lam at the continuous
calibration it wraps; and output perturbation records no c, while the rule reads the verified curvature for every
mechanism. So every float-safe file and every output-perturbation file with lam="auto" (22 of the 32 fits below)
was refused as edited. Both now follow the fit (dpcvx.privacy.float_safe.continuous_calibration, the verified c).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy import lam_rule
from dpcvx.release import serialization


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (400, 3)) / 2
    binary = np.where(X[:, 0] + 0.2 * rng.standard_normal(400) > 0, 1, 0)
    three = np.where(X[:, 0] > 0.2, 2, np.where(X[:, 1] > 0, 1, 0))
    values = X @ np.array([1.0, -0.5, 0.2]) + 0.1 * rng.standard_normal(400)
    return X, binary, three, values


@pytest.mark.slow
@pytest.mark.parametrize("float_safe", [False, True])
@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("kind", ["logistic", "huber_svm", "multiclass", "huber_regressor", "balanced"])
def test_a_lam_auto_release_loads_back_with_its_predictions(tmp_path, kind, mechanism, delta, float_safe):
    X, binary, three, values = _data()
    settings = dict(epsilon=1.0, delta=delta, mechanism=mechanism, float_safe=float_safe, random_state=0)
    if kind == "balanced" and float_safe:
        pytest.skip("float_safe=True refuses record weights (UnsupportedWeightsError), checked elsewhere")
    if mechanism == "objective" and delta > 0 and float_safe:
        pytest.skip("the Gaussian objective has no floating-point-safe form: float_safe=True is refused, checked "
                    "elsewhere")
    if mechanism == "objective" and delta > 0 and kind in ("huber_svm", "huber_regressor"):
        pytest.skip("Gaussian objective perturbation needs a C^2 loss; the Huber losses are refused (AssumptionError)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        if kind == "huber_regressor":
            model = dpcvx.DPHuberRegressor(label_bound=(-2, 2), **settings).fit(X, values)
        elif kind == "multiclass":
            model = dpcvx.DPLogisticRegression(classes=(0, 1, 2), **settings).fit(X, three)
        elif kind == "huber_svm":
            model = dpcvx.DPHuberSVM(**settings).fit(X, binary)
        else:
            model = dpcvx.DPLogisticRegression(class_weight="balanced" if kind == "balanced" else None,
                                               **settings).fit(X, binary)
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "model.json"))
    np.testing.assert_array_equal(np.asarray(loaded.predict(X)), np.asarray(model.predict(X)))


@pytest.mark.parametrize("label_bound", [3.0, (0.0, 4.0)])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_a_regression_file_whose_label_bound_was_edited_is_refused(label_bound, fit_intercept):
    """The regression rule's W is B / R, with |b| <= B (docs/theory.md, section 25.9): a function of the file's public
    bounds. The loader recomputed the rule's terms at the recorded W but never derived W, so a DPHuberRegressor file
    whose label_bound was multiplied by 10 loaded and stated "labels in [-B, B] with B = 30"."""
    X, _, _, values = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        model = dpcvx.DPHuberRegressor(column_statistics=False, label_bound=label_bound, fit_intercept=fit_intercept,
                                       random_state=0).fit(X, values).model_
    saved = serialization.model_to_dict(model)
    assert serialization.model_from_dict(copy.deepcopy(saved)).certificate.lam_rule == model.certificate.lam_rule
    saved["certificate"]["label_bound"] *= 10
    with pytest.raises(InputError, match="lam_rule.comparator_norm .* derives W"):
        serialization.model_from_dict(saved)


def test_a_classifier_file_whose_comparator_was_edited_is_refused():
    """A classifier's W is COMPARATOR_SCALE / R joined by the intercept's prior: a W edited with the bias it implies
    (the noise term does not depend on W) matched the recomputed terms and loaded."""
    X, binary, _, _ = _data()
    learner = dpcvx.PrivateERM(lam="auto", data_norm=1.0, fit_intercept=True, classes=(0, 1))
    model = learner.fit(X, binary, 1.0, random_state=0)
    saved = serialization.model_to_dict(model)
    rule = saved["certificate"]["lam_rule"]
    assert rule["rule"] == lam_rule.RULE and rule["comparator_norm"] == lam_rule.comparator_for(
        None, None, 1.0, model.certificate.intercept_scaling)
    rule["comparator_norm"] *= 2
    rule["bias"] *= 4
    with pytest.raises(InputError, match="lam_rule.comparator_norm .* derives W"):
        serialization.model_from_dict(saved)


def test_a_given_comparator_is_recorded_as_given_and_its_name_cannot_be_swapped():
    """A W the fit was given (comparator_norm, a constraint ball's radius) is a public input the file records only as
    W: its rule says so (GIVEN_RULE) and loads back; renamed to the default rule, whose W the bounds derive, it is
    refused, and so is a rule name dpcvx does not write."""
    import cvxpy as cp

    X, binary, _, _ = _data()
    for learner in (dpcvx.PrivateERM(lam="auto", data_norm=1.0, comparator_norm=3.0, classes=(0, 1)),
                    dpcvx.PrivateERM(lam="auto", data_norm=1.0, classes=(0, 1),
                                     constraints=lambda w: [cp.norm(w, 2) <= 6.0])):
        model = learner.fit(X, binary, 1.0, random_state=0)
        saved = serialization.model_to_dict(model)
        assert saved["certificate"]["lam_rule"]["rule"] == lam_rule.GIVEN_RULE
        assert serialization.model_from_dict(copy.deepcopy(saved)).certificate.lam_rule == model.certificate.lam_rule
        for name in (lam_rule.RULE, "my rule"):
            edited = copy.deepcopy(saved)
            edited["certificate"]["lam_rule"]["rule"] = name
            with pytest.raises(InputError, match="lam_rule"):
                serialization.model_from_dict(edited)
