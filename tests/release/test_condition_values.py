"""The verifier's conditions keep their types through a model file: an exact constant is a Fraction (an
Irrational, inf) fitted and loaded alike, never its text, and the non-smooth part of N that KST12 states is a
typed NonsmoothForm, from which a release (fitted or loaded) knows it has an L1 or group term
(dpcvx.verification.exact, dpcvx.verification.prox_form, docs/model-files.md)."""

import math
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.demo import synthetic_classification
from dpcvx.verification.condition import Condition
from dpcvx.verification.exact import Irrational, exact_of_saved, exact_text, exact_value
from dpcvx.verification.prox_form import NonsmoothForm


def _fit_and_load(tmp_path, regularizer=None, mechanism="objective"):
    X, y = synthetic_classification(n=300, d=4, random_state=0)
    learner = dpcvx.PrivateERM(losses.logistic(), data_norm=1.0, lam=0.1,
                               **({"regularizer": regularizer} if regularizer else {}))
    model = learner.fit(X, y, epsilon=1.0, mechanism=mechanism, random_state=0)
    return model, dpcvx.load(dpcvx.save(model, tmp_path / "model.json", overwrite=True))


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_every_condition_value_loads_with_its_fitted_type_and_value(tmp_path, mechanism):
    model, loaded = _fit_and_load(tmp_path, mechanism=mechanism)
    fitted, again = model.certificate.verification, loaded.certificate.verification
    for name, condition in fitted.by_name.items():
        assert type(again.by_name[name].value) is type(condition.value), name
        assert again.by_name[name].value == condition.value, name
    assert again.condition("curvature").value == Fraction(1, 4)  # not the text "1/4"
    for name in ("lipschitz", "curvature", "strong_convexity"):
        value = getattr(loaded.certificate, name)
        assert type(value) is type(getattr(model.certificate, name)) is Fraction
        assert value == getattr(model.certificate, name)
    assert float(loaded.certificate.curvature) == 0.25
    assert str(loaded.certificate) == str(model.certificate)


def test_an_l1_release_knows_it_is_sparse_after_load(tmp_path):
    model, loaded = _fit_and_load(tmp_path, regularizer=lambda w: 0.05 * cp.norm1(w) + 0.5 * cp.sum_squares(w))
    prox = model.certificate.verification.condition("regularizer_prox")
    assert prox.value == NonsmoothForm(0.05, 0) and str(prox.value) == "0.050000000000000003 ||w||_1 + quadratic"
    assert loaded.certificate.verification.condition("regularizer_prox").value == prox.value
    assert model.certificate.sparse_regularizer and loaded.certificate.sparse_regularizer
    assert str(loaded.certificate) == str(model.certificate)
    ridge, ridge_loaded = _fit_and_load(tmp_path)
    assert not ridge.certificate.sparse_regularizer and not ridge_loaded.certificate.sparse_regularizer


@pytest.mark.parametrize("form", [NonsmoothForm(0.05, 0), NonsmoothForm(0.0, 3), NonsmoothForm(1e-7, 2),
                                  NonsmoothForm(2.5, 1)])
def test_a_nonsmooth_form_reads_back_from_its_text(form):
    assert NonsmoothForm.parse(str(form)) == form and form.sparse


@pytest.mark.parametrize("text", ["quadratic", "other", "0.05 ||w||_1", "x ||w||_1 + quadratic",
                                  "2 group norm(s) b_g ||w_g||_2 over disjoint groups + 0.1 ||w||_1 + quadratic",
                                  "0.050 ||w||_1 + quadratic", "0 ||w||_1 + quadratic"])
def test_text_that_no_form_prints_is_not_read_as_one(text):
    """Not a loose reader: only the exact text a form prints (wrong order, padding, a zero weight: None)."""
    assert NonsmoothForm.parse(text) is None


@pytest.mark.parametrize("value", [Fraction(1, 4), Fraction(3), math.inf, 0.3])
def test_an_exact_value_reads_back_from_its_file_form(value):
    assert exact_of_saved(exact_text(value), None if value == math.inf else float(value)) == value
    assert type(exact_of_saved(exact_text(value), float(value))) is type(exact_value(value))


def test_an_irrational_is_kept_as_text_and_double_and_printed_as_the_verifier_prints_it():
    sympy = pytest.importorskip("sympy")
    root = sympy.sqrt(2)
    kept = exact_value(root)
    assert kept == Irrational("sqrt(2)", 2 ** 0.5) and exact_of_saved("sqrt(2)", 2 ** 0.5) == kept
    fitted = Condition("lipschitz", "L", True, value=root, method="symbolic")
    loaded = Condition("lipschitz", "L", True, value=kept, method="symbolic")
    assert loaded.value_text == fitted.value_text == "sqrt(2) (~1.41421)"
    assert np.isclose(float(kept), 2 ** 0.5)
