"""A catalogue fit without CVXPY: the catalogue losses found by name, the default ridge by its known facts.

A :class:`dpcvx.losses.MarginLoss` is served from the shipped catalogue by its spec
(:func:`dpcvx.verification.loss_record.template_lookup`), and the default N = 0.5 ||w||^2 by
:func:`dpcvx.verification.verifier.default_ridge`, so a fit of a built-in estimator imports no CVXPY. These
tests pin that both are exactly what the verifier establishes from the CVXPY expressions, that the expressions
built on first use are the verifier's, and that a fresh process's estimator fit leaves CVXPY unimported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from test_proof_cache import require_shipped_catalogue  # this folder is on sys.path

import dpcvx
from dpcvx.verification import catalogue, loss_record, proof_cache, verifier
from dpcvx.verification.loss_declaration import loss_at_zero

ROOT = Path(__file__).resolve().parents[2]
GRID = np.linspace(-6.0, 6.0, 2401)


pytestmark = pytest.mark.usefixtures("uncached_verifier")  # tests/verification/conftest.py


@pytest.mark.parametrize("loss", catalogue.catalogue_losses(), ids=repr)
def test_a_catalogue_loss_by_name_is_what_the_verifier_certifies_for_its_expression(loss):
    require_shipped_catalogue()
    served = verifier.catalogue_loss(loss)
    assert served is not None and served.built is None and served.build is not None
    verifier.forget_losses()
    declared = verifier.verify_loss(lambda z: loss(z))  # not a MarginLoss: found by its expression's structure
    assert declared.built is not None
    assert (served.text, served.conditions, served.dcp_convex) == \
        (declared.text, declared.conditions, declared.dcp_convex)
    for name in ("value", "first", "second"):
        np.testing.assert_array_equal(getattr(served.derivatives, name)(GRID),
                                      getattr(declared.derivatives, name)(GRID))
    # the expression built on first use is the one the record was written for
    assert verifier._structural_key(served.expression) == verifier._structural_key(declared.expression)
    assert served.variable is served.variable and served.expression is served.expression  # built once


@pytest.mark.parametrize("loss", catalogue.catalogue_losses(), ids=repr)
def test_l_at_zero_of_a_catalogue_loss_is_cvxpys(loss):
    require_shipped_catalogue()
    assert verifier.catalogue_loss(loss) is not None
    assert loss_at_zero(loss) == loss_at_zero(lambda z: loss(z))


def test_a_loss_not_shipped_by_name_is_verified_from_its_expression(monkeypatch):
    assert verifier.catalogue_loss(dpcvx.losses.huber_hinge(0.3)) is None  # not at its default parameter
    assert verifier.catalogue_loss(lambda z: cp.logistic(-z)) is None
    monkeypatch.setattr(proof_cache, "shipped_data", lambda: {})  # another dpcvx or CVXPY version wrote the file
    assert loss_record.template_lookup("logistic", 20.0) is None
    assert verifier.verify_loss(dpcvx.losses.logistic()).built is not None


@pytest.mark.parametrize("dim", [1, 3, 20, 500, 1200])
def test_the_default_ridge_is_what_the_calculus_establishes(dim):
    known = verifier.default_ridge(dim)
    analysed = verifier.verify_regularizer(lambda w: 0.5 * cp.sum_squares(w), dim)  # by the calculus
    assert known.built is None and known.build is not None and analysed.built is not None
    assert (known.text, known.conditions, known.analysis) == (analysed.text, analysed.conditions, analysed.analysis)
    assert known.variable.shape == (dim,) and known.variable.name() == "w"
    assert verifier._structural_key(known.expression) == verifier._structural_key(analysed.expression)
    assert verifier.verify_regularizer(None, dim) == known == verifier.verify_regularizer(verifier.default_regularizer,
                                                                                         dim)


def test_the_conic_path_solves_the_expressions_built_from_the_templates():
    """solver='cvxpy' on a catalogue loss and the default ridge: the same release as through a CVXPY lambda."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(X @ np.ones(4) + 0.5 * rng.normal(size=300) > 0, 1, -1)

    def fit(loss):
        verifier.forget_losses()
        return dpcvx.PrivateERM(loss=loss, lam=1e-2, data_norm=1.0, solver="cvxpy").fit(X, y, epsilon=1.0,
                                                                                      random_state=5).coef_

    np.testing.assert_array_equal(fit(dpcvx.losses.logistic()), fit(lambda z: cp.logistic(-z)))


FIT = """
import sys, warnings
# ignore: the child's warnings go to its stderr, which the test does not read: it reads only the modules imported
warnings.simplefilter("ignore")
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 5))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
y = (X @ np.ones(5) > 0).astype(int)
from dpcvx import {name}
{name}(random_state=0{extra}).fit(X, {target})
print(sorted({{"cvxpy", "sympy"}} & set(sys.modules)))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name, target, extra", [("DPLogisticRegression", "y", ""), ("DPHuberSVM", "y", ""),
                                                 # m = 1, the shipped Huber (the default m is B / 4)
                                                 ("DPHuberRegressor", "X @ np.ones(5) / 3", ", m=1.0")])
def test_a_fresh_process_fits_a_catalogue_estimator_without_importing_cvxpy(name, target, extra):
    require_shipped_catalogue()
    environment = dict(os.environ, PYTHONPATH=str(ROOT), DPCVX_CACHE_DIR="off", OMP_NUM_THREADS="1",
                       OPENBLAS_NUM_THREADS="1")
    code = FIT.format(name=name, target=target, extra=extra)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"')) == []


def test_losses_whose_parameters_agree_to_six_digits_do_not_share_a_proof():
    """The loss's name is the key of its proof (the in-process cache and the shipped catalogue): it holds each
    parameter exactly, so a Huber threshold that rounds to another's at six digits gets its own L (= m), and a
    Huber hinge near the shipped h = 0.5 is not served that record."""
    from dpcvx import losses
    from dpcvx.verification.verifier import verify_loss

    def lipschitz(m: float) -> float:
        condition = next(c for c in verify_loss(losses.huber_regression(m)).conditions if c.name == "lipschitz")
        return float(condition.value)

    near = 12.5 * (1 + 2e-11)
    assert lipschitz(12.5) == 12.5
    assert losses.huber_regression(near).spec == f"huber_regression:m={near!r}"
    assert losses.from_spec(losses.huber_regression(near).spec) == losses.huber_regression(near)
    assert lipschitz(near) == near
    assert losses.huber_hinge(0.5).spec == "huber_hinge:h=0.5" and losses.huber_regression(1.0).spec == \
        "huber_regression:m=1"  # the shipped templates' names are unchanged
    assert losses.huber_hinge(0.5 + 1e-12).spec != "huber_hinge:h=0.5"


class _Steep(dpcvx.losses.MarginLoss):
    """A subclass named "logistic" whose expression is logistic(-10 z) (L = 10, c = 25): no catalogue entry."""

    def __call__(self, z):
        return cp.logistic(-10 * z)


class _Shifted(dpcvx.losses.MarginLoss):
    """A subclass named "logistic" whose expression is logistic(-z) + 1: l(0) = log 2 + 1."""

    def __call__(self, z):
        return cp.logistic(-z) + 1


def test_a_subclass_of_margin_loss_is_certified_as_its_own_expression():
    """The name's proof covers only the catalogue's own object: a subclass is verified from the expression its
    __call__ builds, and that expression is the one the solver gets (probe A F3: it was certified L = 1, c = 1/4
    under the text logistic(-z), with the derivatives of logistic(-z), and solved as logistic(-10 z))."""
    from dpcvx.losses import catalogue_entry, check_task, loss_label

    steep = _Steep("logistic")
    assert catalogue_entry(steep) is None and verifier.catalogue_loss(steep) is None
    problem = verifier.verify_problem(steep, None, dim=2)
    assert problem.loss.text == "logistic(-10.0 * z)" and "-10.0" in str(problem.loss.expression)
    assert 10.0 <= problem.lipschitz <= 10.0 * (1 + 1e-9) and 25.0 <= problem.curvature <= 25.0 * (1 + 1e-9)
    slope = problem.loss.derivatives.first(np.array([-1.0]))[0]
    assert slope == pytest.approx(-10.0 / (1.0 + np.exp(-10.0)), rel=1e-12)  # d/dz logistic(-10 z) at z = -1
    assert loss_at_zero(_Shifted("logistic")) == pytest.approx(np.log(2.0) + 1.0, rel=1e-12)
    assert loss_label(steep) == "user loss"
    check_task(_Steep("huber_regression", (("m", 1.0),)), "classification")  # a user loss: not refused by task
    # predict_proba is offered before a fit for the catalogue's logistic loss only, not for a subclass named so
    assert hasattr(dpcvx.DPERMClassifier(loss=dpcvx.losses.logistic()), "predict_proba")
    assert not hasattr(dpcvx.DPERMClassifier(loss=steep), "predict_proba")


def _handed(loss, X, y):
    """The objective's text a user solver callable is handed by a logistic fit (solved accurately: it is accepted)."""
    seen = []

    def solver(problem, w):
        seen.append(str(problem.objective))
        problem.solve(solver="CLARABEL", tol_gap_abs=1e-14, tol_gap_rel=1e-14, tol_feas=1e-14, tol_ktratio=1e-12)

    # fit_nonprivate: a private fit refuses a user's solver before its charge (no proved budget, theory.md 7.1)
    model = dpcvx.PrivateERM(loss=loss, lam=0.1, data_norm=1.0, solver=solver).fit_nonprivate(X, y)
    return seen, model


def test_a_subclass_declared_in_the_process_leaves_the_catalogue_loss_unchanged():
    """One verified object flows on, and the name's cache entry holds the catalogue's own expression: a fit of
    loss="logistic" after a Steep("logistic") declaration is handed logistic(-z) and releases what a fit in a
    clean process releases (probe A F3: it was handed logistic(-10 z) and refused by the gradient check after
    epsilon was charged). The subclass's own fit is handed its own expression."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    seen, clean = _handed("logistic", X, y)
    assert seen and all("-10.0" not in text for text in seen)
    verifier.forget_losses()
    verifier.verify_problem(_Steep("logistic"), None, dim=2)
    seen, after = _handed("logistic", X, y)
    assert seen and all("-10.0" not in text for text in seen)
    np.testing.assert_array_equal(after.coef_, clean.coef_)
    assert str(verifier.verify_problem(dpcvx.losses.logistic(), None, dim=2).loss.expression) == "logistic(-z)"
    seen, _ = _handed(_Steep("logistic"), X, y)
    assert seen and all("-10.0" in text for text in seen)
