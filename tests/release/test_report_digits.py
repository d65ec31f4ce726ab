"""What a release's report and certificate state is true of the release, digit by digit (attacker probe P5, session
70): the objective share's delta of a Gaussian objective perturbation was written to 3 digits ("1e-06", its true
value 9.99553e-07), so the shares as printed summed to more than the delta stated (F3); the report named
predict_proba's second column for releases that have no predict_proba (a kernel learner's, the Huber hinge: F2)."""

from __future__ import annotations

import re

import numpy as np

import dpcvx


def _rows(n=1987, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] > 0, 1, -1)


def test_the_shares_of_a_gaussian_objective_release_sum_to_at_most_its_delta():
    X, y = _rows()
    release = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, 1.0, "objective", delta=1e-6,
                                                           neighbours="add-remove", n_public=2000, random_state=0)
    text = str(release.certificate)
    share = re.search(r"objective share \(eps, delta\) = \(([^,]+), ([^)]+)\); .* for \(([^,]+), ([^)]+)\)", text)
    assert share is not None
    objective_delta, cover_delta = float(share.group(2)), float(share.group(4))
    assert objective_delta < 1e-6  # no longer rounded up to the whole delta
    assert objective_delta == float(f"{release.privacy_curve.parts[0].delta:.6g}")
    assert objective_delta + cover_delta <= 1e-6 * (1 + 1e-6)  # as printed, within their printed digits
    auditor = release.report().to_markdown()
    assert dpcvx.validation.number_text(release.privacy_curve.parts[0].delta) in auditor


def test_the_report_names_predict_proba_only_for_a_release_that_has_it():
    X, y = _rows(n=600)
    for estimator, has in ((dpcvx.DPLogisticRegression, True), (dpcvx.DPHuberSVM, False)):
        release = estimator(epsilon=1.0, classes=(-1, 1), random_state=0).fit(X, y).model_
        assert hasattr(release, "predict_proba") is has
        text = release.report().to_markdown().replace("\\_", "_")  # Markdown's escapes undone
        assert "the positive class: decision_function &gt; 0" in text
        assert ("predict_proba" in text) is has
