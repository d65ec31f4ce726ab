"""The public check that a release predicts one class on every row of norm <= R (dpcvx.release.usefulness):
exact at the boundary, stated in the certificate, saved and re-checked on load, warned at fit."""

import json
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import ConstantPredictionWarning
from dpcvx.release.usefulness import constant_class, one_class_findings


def _extreme_scores(coef, intercept, R):
    """The binary score at the two rows of norm R along w: the least and the largest w^T x + b."""
    norm = np.linalg.norm(coef)
    return intercept - norm * R, intercept + norm * R


@pytest.mark.parametrize("seed", range(5))
def test_binary_statement_is_exact_at_the_boundary(seed):
    rng = np.random.default_rng(seed)
    coef, R = rng.normal(size=7), float(rng.uniform(0.5, 3.0))
    reach = np.linalg.norm(coef) * R
    # just beyond ||w|| R: one class on every row, and the extreme row agrees
    assert constant_class(coef, reach * (1 + 1e-6), R) == 1
    assert _extreme_scores(coef, reach * (1 + 1e-6), R)[0] > 0
    assert constant_class(coef, -reach * (1 + 1e-6), R) == 0
    assert _extreme_scores(coef, -reach * (1 + 1e-6), R)[1] < 0
    # just inside: no statement, and indeed a row of norm R gets the other class
    for sign in (1, -1):
        b = sign * reach * (1 - 1e-6)
        assert constant_class(coef, b, R) is None
        low, high = _extreme_scores(coef, b, R)
        assert low < 0 < high
    # random rows of the ball never contradict a statement
    rows = rng.normal(size=(2000, 7))
    rows *= (R * rng.uniform(0, 1, size=(2000, 1)) ** (1 / 7)) / np.linalg.norm(rows, axis=1, keepdims=True)
    assert np.all(rows @ coef + reach * (1 + 1e-6) > 0)


def test_multiclass_statement_is_exact_at_the_boundary():
    rng = np.random.default_rng(3)
    coef, R = rng.normal(size=(3, 4)), 1.5
    gaps = [np.linalg.norm(coef[0] - coef[j]) * R for j in (1, 2)]
    intercept = np.array([max(gaps) * (1 + 1e-6), 0.0, 0.0])
    assert constant_class(coef, intercept, R) == 0
    # at the row of norm R that favours class j most against 0, class 0 still wins
    for j in (1, 2):
        x = R * (coef[j] - coef[0]) / np.linalg.norm(coef[j] - coef[0])
        assert np.argmax(coef @ x + intercept) == 0
    intercept[0] = max(gaps) * (1 - 1e-6)
    assert constant_class(coef, intercept, R) is None
    j = 1 + int(np.argmax(gaps))
    x = R * (coef[j] - coef[0]) / np.linalg.norm(coef[j] - coef[0])
    assert np.argmax(coef @ x + intercept) != 0


def test_findings_name_the_public_class():
    (text,) = one_class_findings(np.zeros(3), -0.5, ("no", "yes"), 1.0)
    assert text.startswith("constant classifier: the release predicts the class 'no' on every row")
    assert one_class_findings(np.ones(3), 0.0, ("no", "yes"), 1.0) == ()


@pytest.fixture(scope="module")
def one_label():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 4)) / 2
    return X, np.zeros(3000, dtype=int)


def test_a_constant_release_warns_and_says_so_in_its_certificate(one_label, tmp_path):
    X, y = one_label
    with pytest.warns(ConstantPredictionWarning, match="predicts the class 0 on every row"):
        estimator = dpcvx.DPLogisticRegression(epsilon=5.0, random_state=0).fit(X, y)
    certificate = estimator.certificate_
    assert certificate.findings == estimator.model_.public_findings() != ()
    assert "finding: constant classifier" in str(certificate)
    assert np.all(estimator.predict(np.random.default_rng(1).normal(size=(500, 4)) * 10) == 0)
    path = tmp_path / "constant.json"
    dpcvx.save(estimator.model_, path)
    assert dpcvx.load(path).certificate.findings == certificate.findings
    data = json.loads(path.read_text())
    del data["certificate"]["findings"]   # a file that hides the finding is refused
    path.write_text(json.dumps(data))
    with pytest.raises(dpcvx.InputError, match="certificate.findings"):
        dpcvx.load(path)


def test_a_useful_release_has_no_finding():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(3000, 4)) / 2
    y = (X[:, 0] > 0).astype(int)
    estimator = dpcvx.DPLogisticRegression(epsilon=5.0, random_state=0).fit(X, y)
    assert estimator.certificate_.findings == ()
    assert "findings" not in estimator.certificate_.to_dict()


def test_sparsify_restates_the_finding():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(3000, 4)) / 2
    y = (X[:, 0] + 0.4 > 0).astype(int)
    model = dpcvx.DPLogisticRegression(epsilon=5.0, random_state=0).fit(X, y).model_
    assert model.certificate.findings == ()
    zeroed = model.sparsify(keep=0)   # no weights left: the intercept alone decides
    assert zeroed.certificate.findings == one_class_findings(zeroed.coef_, zeroed.intercept_, (0, 1), 1.0) != ()


def test_multiclass_warns_once_for_the_argmax():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(3000, 3)) / 2
    with pytest.warns(ConstantPredictionWarning) as caught:
        estimator = dpcvx.DPLogisticRegression(epsilon=5.0, classes=(0, 1, 2), random_state=0).fit(
            X, np.zeros(3000, dtype=int))
    assert len([w for w in caught if w.category is ConstantPredictionWarning]) == 1
    assert estimator.certificate_.findings and "finding: constant classifier" in str(estimator.certificate_)


def test_a_constant_classifier_fitted_without_a_prior_names_the_rare_class_fix():
    """On 1 % positives a fit without class weights or a class prior predicts the common class at every epsilon and
    n a probe tried; its warning advised "raise epsilon or n" only, where the private prior with its cut reached
    balanced accuracy 0.75. The advice is added from the public settings alone, and only where no fix was asked."""
    rng = np.random.default_rng(7)
    X = rng.uniform(-0.4, 0.4, size=(20000, 6))
    y = (X @ np.array([3.0, -2.0, 1.0, 0.0, 0.0, 1.0]) + rng.logistic(size=20000) > 4.0).astype(int)
    assert 0.003 < y.mean() < 0.03
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    text = " ".join(str(w.message) for w in caught if w.category is ConstantPredictionWarning)
    assert "If one class is rare" in text and "class_prior='private' and threshold='prior'" in text
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, class_prior="private", threshold="prior").fit(X, y)
    assert not any("If one class is rare" in str(w.message) for w in caught)
