"""The auditor's calibration table says what every field means, for every kind of release.

The table left the meaning empty for 20 fields of a DPLinearRegression release (the joint Gaussian's shares, sigmas
and margins), 9 of a TDDL release and every lattice field; its "gradient_share" of 2.95 read as the steps' share where
the steps' noise used 2.65 (the level's 0.3 comes out of it); its epsilon row said "privately drawn inputs' budgets
are listed above, apart" on releases whose epsilon is the total, calibrated jointly with those draws; and a kernel
release's public inputs showed the kernel as a Python dict.
"""

from __future__ import annotations

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.pinp import PINP
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.calibration import Calibration


def _releases() -> dict:
    X, y = synthetic_classification(n=600, d=3, random_state=3)
    rng = np.random.default_rng(0)
    Xr = rng.uniform(-1, 1, size=(3000, 4)) / 2
    yr = 100 + 30 * Xr @ [1.0, -0.5, 0.3, 0.0] + 5 * rng.normal(size=3000)
    labels = np.where(X[:, 0] > 0.2, 2.0, y)
    erm = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)
    safe = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, float_safe=True)
    Z, X2 = X[200:230], X[:200, :2]
    curator = PINP("rbf", gamma=4.0, lam=0.1, max_queries=100).fit(X2, y[:200], 1.0, 1e-6)
    curator.query(X[300, :2])
    return {
        "pure objective": erm.fit(X, y, epsilon=0.8, random_state=0),
        "pure output": erm.fit(X, y, epsilon=0.8, mechanism="output", random_state=0),
        "gaussian output": erm.fit(X, y, epsilon=0.8, delta=1e-6, mechanism="output", random_state=0),
        "gaussian objective": erm.fit(X, y, epsilon=0.8, delta=1e-6, random_state=0),
        "add-remove": erm.fit(X, y, epsilon=0.8, delta=1e-6, neighbours="add-remove", n_public=600, random_state=0),
        "l1 regularizer (KST12)": dpcvx.PrivateERM(regularizer=lambda w: cp.norm1(w), lam=1e-2, data_norm=1.0).fit(
            X, y, epsilon=1.0, delta=1e-6, random_state=0),
        "float-safe objective": safe.fit(X, y, epsilon=0.8, random_state=0),
        "float-safe output": safe.fit(X, y, epsilon=0.8, mechanism="output", random_state=0),
        "float-safe gaussian output": safe.fit(X, y, epsilon=0.8, delta=1e-6, mechanism="output", random_state=0),
        "adassp": dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=1.0, mechanism="adassp").fit(
            X, X @ np.ones(3) / 3, 0.8, 1e-6, random_state=0),
        "adassp standardised": dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=(0, 500),
                                                        mechanism="adassp", column_statistics=True,
                                                        random_state=0).fit(Xr, yr).model_,
        "adassp ranged": dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=(0, 500), mechanism="adassp",
                                                  random_state=0).fit(Xr, yr).model_,
        "gradient descent with ranges": dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=(0, 500),
                                                                 random_state=0).fit(Xr, yr).model_,
        "huber with a label range": dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(0, 500),
                                                           random_state=0).fit(Xr, yr).model_,
        "multiclass": PrivateMulticlassERM(erm, (-1.0, 1.0, 2.0)).fit(X, labels, 0.8, random_state=0),
        "one-vs-rest with a private prior": dpcvx.DPLogisticRegression(
            classes=(-1.0, 1.0, 2.0), epsilon=1.0, class_prior="private", random_state=0).fit(X, labels).model_,
        "binary with a private prior": dpcvx.DPLogisticRegression(classes=(-1, 1), epsilon=1.0, class_prior="private",
                                                                  random_state=0).fit(X, y).model_,
        "tuned": dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, {"lam": [1e-3, 1e-2]}, epsilon=1.0,
                            random_state=0).model,
        "TDDL laplace": dpcvx.TDDL("rbf", gamma=2.0, lam=0.1).fit(X[:200], y[:200], 0.8, Z=Z, random_state=0),
        "TDDL gaussian": dpcvx.TDDL("rbf", gamma=2.0, lam=0.1).fit(X[:200], y[:200], 0.8, 1e-6, Z=Z, random_state=0),
        "TDDL float-safe laplace": dpcvx.TDDL("rbf", gamma=2.0, lam=0.1, float_safe=True).fit(
            X[:200], y[:200], 0.8, Z=Z, random_state=0),
        "TDDL float-safe gaussian": dpcvx.TDDL("rbf", gamma=2.0, lam=0.1, float_safe=True).fit(
            X[:200], y[:200], 0.8, 1e-6, Z=Z, random_state=0),
        "PINP": curator.release(),
        "TDIL net": TDIL("rbf", gamma=4.0, lam=0.1, input_bound=1.0, net_spacing=0.3).fit(X2, y[:200], 1.0, 1e-6),
        "TDIL float-safe": TDIL("rbf", gamma=4.0, lam=0.1, input_bound=1.0, net_spacing=0.3, float_safe=True).fit(
            X2, y[:200], 1.0, 1e-6),
        "TDIL ball": TDIL("linear", lam=0.1, input_bound=1.0).fit(X2, y[:200], 1.0, 1e-6),
    }


@pytest.fixture(scope="module")
def reports():
    with warnings.catch_warnings():
        # the small fits' NOT PRIVATE and cost warnings
        warnings.simplefilter("ignore", dpcvx.exceptions.ExponentialCostWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return {name: release.report() for name, release in _releases().items()}


def _calibration_rows(report) -> list[list[str]]:
    tables = [block.content for block in report.sections[-1].blocks
              if block.kind == "table" and block.content[0][0] == "calibration"]
    assert len(tables) == 1
    return tables[0][1]


def _concrete(cls: type) -> set[str]:
    found = set()
    for sub in cls.__subclasses__():
        if not getattr(sub, "__abstractmethods__", None) and sub.__module__.startswith("dpcvx."):  # not a test's
            found.add(sub.__name__)
        found |= _concrete(sub)
    return found


def test_every_calibration_type_is_rendered_here(reports):
    """A new calibration type must join the releases above, so its fields are checked too."""
    import dpcvx.privacy.lattice_objective  # noqa: F401  (the float-safe forms: imported where a fit needs them)
    import dpcvx.privacy.lattice_predictions  # noqa: F401
    import dpcvx.privacy.lattice_tdil  # noqa: F401

    rendered = {type(report.first.calibration).__name__ for report in reports.values()}
    assert _concrete(Calibration) <= rendered


def test_no_calibration_row_of_any_release_has_an_empty_meaning(reports):
    empty = {name: [row[0] for row in _calibration_rows(report) if not row[2].strip()]
             for name, report in reports.items()}
    assert {name: fields for name, fields in empty.items() if fields} == {}
    for name, report in reports.items():  # and the page shows them
        page = report.to_markdown()
        assert "| calibration | value | meaning |" in page and "listed above, apart" not in page, name


def _numbers(report) -> dict[str, list[float]]:
    return {row[0]: [float(part) for part in row[1].split(", ")] for row in _calibration_rows(report)
            if row[1] and row[1][0].isdigit() and row[0] != "mechanism"}


def test_an_auditor_re_derives_sigma_g_from_the_report_s_numbers(reports):
    """docs/theory.md section 16.1, "Shares and composition": f_t = (GRADIENT_SHARE - LEVEL_SHARE) / T with the
    level, sigma_g = 2 R_eff tau sigma / sqrt(f_t); the report's gradient_share (2.95) read as the steps' share gave
    594.6 where the certificate's sigma_g is 627.4."""
    report = reports["gradient descent with ranges"]
    numbers, words = _numbers(report), {row[0]: row[2] for row in _calibration_rows(report)}
    assert report.first.calibration.level  # the fit with an intercept releases the level
    share, level, steps = numbers["gradient_share"][0], numbers["level_share"][0], numbers["steps"][0]
    step_share = (share - level) / steps
    assert f"(gradient_share - level_share) / steps = ({share:g} - {level:g}) / {steps:g} = {step_share:.6g}" \
        in words["gradient_share"]
    gradient_sensitivity, sigma_g = numbers["sensitivities"][1], numbers["sigmas"][1]
    unit = numbers["unit_sigma"][0]
    assert math.isclose(gradient_sensitivity, 2 * numbers["data_norm"][0] * numbers["residual_clip"][0], rel_tol=1e-5)
    assert math.isclose(gradient_sensitivity * unit / math.sqrt(step_share), sigma_g, rel_tol=1e-5)
    assert not math.isclose(gradient_sensitivity * unit / math.sqrt(share / steps), sigma_g, rel_tol=1e-3)
    # and the whole: every share together is the joint Gaussian's sensitivity sqrt(4) the certificate states
    assert math.isclose(numbers["range_share"][0] + numbers["lambda_share"][0] + share, 4.0)
    assert "sqrt(4)" in report.certificate_text
    sigma_b = numbers["level_sensitivity"][0] * unit / math.sqrt(level)
    assert math.isclose(sigma_b, numbers["level_sigma"][0], rel_tol=1e-5)


def test_the_epsilon_row_says_what_the_calibration_s_epsilon_is_in_this_release(reports):
    def meaning(name: str, key: str = "epsilon") -> str:
        return {row[0]: row[2] for row in _calibration_rows(reports[name])}[key]

    for joint in ("gradient descent with ranges", "adassp ranged", "adassp standardised"):
        assert meaning(joint).startswith("the release's whole epsilon") and "jointly" in meaning(joint)
        assert "jointly" in meaning(joint, "delta")
    assert meaning("pure objective") == meaning("TDDL laplace") == "the release's whole epsilon"
    assert meaning("huber with a label range") == ("the fit's share of the release's total epsilon = 1; the rest paid "
                                                   "for the private draws listed under Public inputs")
    assert meaning("binary with a private prior").startswith("the fit's share of the release's total epsilon = 1")
    assert meaning("multiclass").startswith("each class's fit's epsilon") and "3 fits together cost the total " \
        "epsilon = 0.8" in meaning("multiclass")
    assert "3 fits and the private draws listed under Public inputs together cost" in meaning(
        "one-vs-rest with a private prior")
    assert meaning("tuned").startswith("the selected run's epsilon: a share of the selection's total epsilon = 1")


def test_a_kernel_release_s_inputs_name_its_kernel_in_words(reports):
    for name, words in (("TDDL laplace", "the rbf kernel with gamma = 2"),
                        ("TDIL ball", "the linear kernel with input_bound = 1")):
        public = next(block for section in reports[name].sections if section.anchor == "public-inputs"
                      for block in section.blocks if block.kind == "ul")
        line = next(item for item in public.content if "kernel" in item)
        assert words in line and "{" not in line, line
