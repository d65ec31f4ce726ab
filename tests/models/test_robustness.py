"""The failure matrix of docs/robustness.md: each bad input or fault, and what dpcvx does.

Rows already covered elsewhere are named in the matrix (tests/models/test_erm.py,
tests/solvers/test_solvers.py, tests/verification/test_verify.py); the rest are here.
"""

import cvxpy
import numpy as np
import pytest
from defined_classes import defined_subclasses

import dpcvx
from dpcvx.solvers import linear as solvers


def make_data(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    return X, y


def test_single_class_is_accepted_and_private():
    # Refusing data with one class would reveal that fact: the labels are only checked
    # against the public pair, and the release is private as usual.
    X, _ = make_data()
    erm = dpcvx.PrivateERM(data_norm=1.0)
    model = erm.fit(X, np.ones(len(X)), epsilon=1.0, random_state=0)
    assert np.isfinite(model.coef_).all() and erm.diagnostics_.converged
    assert model.certificate.epsilon == 1.0


def test_infinite_label_is_outside_the_pair():
    X, y = make_data()
    with pytest.raises(dpcvx.InputError, match="outside the declared classes"):
        dpcvx.PrivateERM(data_norm=1.0).fit(X, np.where(y > 0, np.inf, -1.0), epsilon=1.0)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32])
def test_integer_and_float32_input(dtype):
    rng = np.random.default_rng(1)
    X = rng.integers(-1, 2, size=(300, 3)).astype(dtype)
    y = np.where(X.sum(axis=1) > 0, 1, -1).astype(np.int8)
    erm = dpcvx.PrivateERM(data_norm=2.0)
    converted = erm.fit(X, y, epsilon=1.0, random_state=2)
    reference = erm.fit(X.astype(np.float64), y.astype(np.int64), epsilon=1.0, random_state=2)
    np.testing.assert_allclose(converted.coef_, reference.coef_, rtol=1e-12)
    assert converted.coef_.dtype == np.float64


def test_non_contiguous_input():
    X, y = make_data(n=600)
    view = np.asfortranarray(np.hstack([X, X]))[::2, ::2]  # columns x0, x2, x0, x2: norm <= 2
    reference = np.ascontiguousarray(view)
    erm = dpcvx.PrivateERM(data_norm=2.0)
    np.testing.assert_allclose(erm.fit(view, y[::2], epsilon=1.0, random_state=0).coef_,
                               erm.fit(reference, y[::2], epsilon=1.0, random_state=0).coef_, rtol=1e-12)


def test_row_major_input_is_converted_block_by_block():
    # 2500 rows: two full blocks of the row-major conversion and a partial one
    X, y = make_data(n=2500)
    row_major = np.ascontiguousarray(X)
    before = row_major.copy()
    erm = dpcvx.PrivateERM(data_norm=1.0)
    np.testing.assert_array_equal(erm.fit(row_major, y, epsilon=1.0, random_state=0).coef_,
                                  erm.fit(np.asfortranarray(X), y, epsilon=1.0, random_state=0).coef_)
    np.testing.assert_array_equal(row_major, before)


@pytest.mark.parametrize("options", [{}, {"column_statistics": True}, {"classes": (0, 1, 2)}])
def test_the_estimators_release_the_same_bits_whatever_the_memory_order(options):
    """The estimators' private column ranges map rows scaled onto their input bound first; the norms of that scaling
    were summed in X's memory order, so a DataFrame (column-major) and the same values as a numpy array released
    coefficients 4.5e-13 apart (docs/robustness.md promises the same answer)."""

    pandas = pytest.importorskip("pandas")
    from dpcvx.demo import synthetic_classification

    X, y = synthetic_classification(n=3000, d=5, random_state=0)
    labels = (y > 0).astype(int) + (X[:, 0] > 0.3) if "classes" in options else (y > 0).astype(int)
    fits = [dpcvx.DPLogisticRegression(random_state=7, **options).fit(data, labels).coef_
            for data in (np.ascontiguousarray(X), np.asfortranarray(X), pandas.DataFrame(X))]
    np.testing.assert_array_equal(fits[0], fits[1])
    np.testing.assert_array_equal(fits[0], fits[2])


def test_complex_input_is_refused():
    X, y = make_data()
    with pytest.raises(dpcvx.InputError, match="complex values"):
        dpcvx.PrivateERM(data_norm=1.0).fit(X + 1j, y, epsilon=1.0)


def test_huge_n_tiny_lam_takes_the_delta_branch():
    X, y = make_data(n=200_000, d=5, seed=3)
    erm = dpcvx.PrivateERM(lam=1e-9, data_norm=1.0)
    model = erm.fit(X, y, epsilon=0.1, random_state=0)
    cal = model.certificate.calibration
    algorithm_2 = 0.1 - cal.amp_epsilon  # the rest pays for the approximate-minimiser noise
    assert cal.extra_reg > 0 and cal.epsilon_prime == pytest.approx(algorithm_2 / 2, rel=1e-12)
    # the effective regularization m Lam + Delta meets the Jacobian condition
    assert (1 + 0.25 / (200_000 * (1e-9 + cal.extra_reg))) ** 2 <= np.exp(algorithm_2 - cal.epsilon_prime)
    assert erm.diagnostics_.converged


def test_one_feature():
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, size=(500, 1))
    y = np.where(X[:, 0] > 0.1, 1, -1)
    for mechanism in ("objective", "output"):
        model = dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True).fit(
            X, y, epsilon=5.0, mechanism=mechanism, random_state=0)
        assert model.coef_.shape == (1,) and np.isfinite(model.intercept_)


def test_more_features_than_rows():
    X, y = make_data(n=20, d=60, seed=5)
    for mechanism in ("objective", "output"):
        erm = dpcvx.PrivateERM(data_norm=1.0, lam=1e-2)
        model = erm.fit(X, y, epsilon=1.0, mechanism=mechanism, random_state=0)
        assert model.coef_.shape == (60,) and erm.diagnostics_.converged


class opaque(cvxpy.logistic):
    """An atom the verifier cannot translate: its constants can only be estimated on a grid."""


def opaque_loss(z):
    return opaque(-z)


def test_estimated_constants_are_refused_unless_allowed_and_strict_refuses_them():
    X, y = make_data()
    with pytest.raises(dpcvx.AssumptionError, match="ESTIMATE, not a proof"):
        dpcvx.PrivateERM(loss=opaque_loss, data_norm=1.0).fit(X, y, epsilon=1.0)
    certificate = dpcvx.PrivateERM(loss=opaque_loss, data_norm=1.0, allow_estimates=True).verify(4)
    assert certificate.allows("objective") and certificate.method("curvature") == "estimate"
    assert "CONDITIONAL guarantee" in str(certificate)
    with pytest.raises(dpcvx.AssumptionError):
        dpcvx.PrivateERM(loss=opaque_loss, data_norm=1.0, allow_estimates=True, strict=True).fit(X, y, epsilon=1.0)


def test_missing_cvxpy_solver_is_an_input_error():
    X, y = make_data()
    with pytest.raises(dpcvx.InputError, match="NO_SUCH_SOLVER"):
        dpcvx.PrivateERM(data_norm=1.0, solver="cvxpy", cvxpy_solver="NO_SUCH_SOLVER").fit(X, y, epsilon=1.0)


def test_the_default_cvxpy_solver_is_installed_wherever_cvxpy_is():
    """check_settings takes the default cvxpy_solver without asking CVXPY (no import): CVXPY requires Clarabel."""
    import cvxpy as cp

    from dpcvx.models import erm_inputs

    assert dpcvx.PrivateERM().cvxpy_solver == erm_inputs.DEFAULT_CVXPY_SOLVER
    assert erm_inputs.DEFAULT_CVXPY_SOLVER in cp.installed_solvers()


def test_cvxpy_status_not_optimal_is_a_solver_error(monkeypatch):
    X, y = make_data()

    def infeasible(problem, *args, **kwargs):
        problem._status = "infeasible"

    monkeypatch.setattr("cvxpy.Problem.solve", infeasible)
    conic_only = dpcvx.PrivateERM(data_norm=1.0,
                                  regularizer=lambda w: 0.5 * cvxpy.sum_squares(w) + cvxpy.sum(cvxpy.logistic(w)))
    with pytest.raises(dpcvx.SolverError, match="status 'infeasible'"):  # a private fit refuses it before the solve
        conic_only.fit_nonprivate(X, y)
    # where Newton's proved budget applies the conic point is a warm start only: Newton starts from the origin
    learner = dpcvx.PrivateERM(data_norm=1.0, solver="cvxpy")
    learner.fit(X, y, epsilon=1.0, random_state=0)
    assert "status 'infeasible'" in learner.diagnostics_.status and learner.diagnostics_.converged


def test_interrupt_leaves_no_partial_model(monkeypatch):
    X, y = make_data()
    erm = dpcvx.PrivateERM(data_norm=1.0)
    before = dict(vars(erm))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(solvers, "_newton_direction", interrupted)
    with pytest.raises(KeyboardInterrupt):
        erm.fit(X, y, epsilon=1.0)
    assert vars(erm) == before  # a declaration holds no fitted state; nothing half-made
    monkeypatch.undo()
    erm.fit(X, y, epsilon=1.0, random_state=0)
    assert erm.diagnostics_.converged


def test_interrupt_after_charging_keeps_the_charge(monkeypatch):
    # The budget is charged before any noise is drawn: an interrupted fit has spent it.
    X, y = make_data()
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    monkeypatch.setattr(solvers, "_newton_direction",
                        lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        dpcvx.PrivateERM(data_norm=1.0).fit(X, y, epsilon=0.4, accountant=accountant)
    assert accountant.spent.epsilon == pytest.approx(0.4)


def test_every_error_derives_from_one_base():
    for error in (dpcvx.InputError, dpcvx.AssumptionError, dpcvx.SolverError,
                  dpcvx.BudgetExceededError):
        assert issubclass(error, dpcvx.DPCVXError)
    assert issubclass(dpcvx.InputError, ValueError)
    assert issubclass(dpcvx.ClippingWarning, dpcvx.DPCVXWarning)


# --- the error table of docs/robustness.md ------------------------------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _generator():
    """docs/make_robustness.py, loaded as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_robustness", ROOT / "docs" / "make_robustness.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    return generator


@pytest.mark.slow  # the scenarios run fits and a fresh interpreter (NotFittedError without scikit-learn)
def test_error_table_is_generated():
    """The committed page shows exactly the table generated from dpcvx.cli.EXIT_CODES and the errors raised for
    real (docs/make_robustness.py's scenarios: each must raise its own class, or the generator stops)."""
    generator = _generator()
    page = (ROOT / "docs" / "robustness.md").read_text(encoding="utf-8")
    assert page == generator.render(page), "docs/robustness.md is out of date: run python docs/make_robustness.py"
    from dpcvx.cli import EXIT_CODES
    for row in EXIT_CODES:
        assert f"`dpcvx.exceptions.{row.error.__name__}`" in page
    assert generator.main(["--check"]) == 0
    # the examples are made, not written: each scenario raised the very class of its row (the generator checks it),
    # and its line is the one main() prints for it: dpcvx: <the kind of its EXIT_CODES row>: ...
    made = generator.examples()
    assert {f"{cls.__module__}.{cls.__qualname__}" for cls in made} == set(generator.SCENARIOS)
    for cls, line in made.items():
        kind = next(row.kind for ancestor in cls.__mro__ for row in EXIT_CODES if row.error is ancestor)
        assert line.startswith(f"dpcvx: {kind}: ") and "\n" not in line, (cls, line)


def test_every_error_class_has_a_row_with_its_exit_status_and_an_example():
    """docs/robustness.md listed 9 of dpcvx's 19 error classes (session 67, P5 F3): NormBoundError, RowError,
    NonFiniteError, InputTypeError and six more had no row, and NormBoundError was on no page. Every subclass of
    DPCVXError that dpcvx defines, found by walking the package, now has a row with the exit status main() returns
    for it and an example line; the generator's declared scenarios name exactly these classes, so a new error class
    without a scenario fails here (and stops docs/make_robustness.py)."""
    import re

    from dpcvx.cli import EXIT_CODES

    classes = defined_subclasses(dpcvx.DPCVXError)
    assert len(classes) >= 19
    names = {f"{cls.__module__}.{cls.__qualname__}": cls for cls in classes}
    page = (ROOT / "docs" / "robustness.md").read_text(encoding="utf-8")
    for name, cls in names.items():
        rows = [line for line in page.splitlines() if line.startswith(f"| `{name}`")]
        assert len(rows) == 1, f"{name} has {len(rows)} rows in docs/robustness.md's error table"
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", rows[0])[1:-1]]
        status = next(row.code for ancestor in cls.__mro__ for row in EXIT_CODES if row.error is ancestor)
        assert int(cells[1]) == status, name
        assert cells[2] and cells[3].startswith("`` dpcvx: ") and cells[3].endswith(" ``"), (name, cells)
    assert set(_generator().SCENARIOS) == set(names), "docs/make_robustness.py's SCENARIOS must name every class"


@pytest.mark.slow
def test_a_release_under_allow_estimates_saves_and_loads_and_its_statement_is_checked(tmp_path):
    """A fit with allow_estimates=True writes the opt-in and what it gave (conditional, estimated) into
    certificate.verification; the loader used to refuse those keys, so such a file could be saved but never read.
    It now loads; a conditional statement reads back as conditional; an edited statement is refused."""
    import json

    from dpcvx.release.records.release_certificate import _verification

    X, y = make_data()
    loss = lambda z: cvxpy.logistic(-z) + 0.1 * cvxpy.huber(z, 1)  # noqa: E731 (proved: the opt-in alone)
    model = dpcvx.PrivateERM(loss=loss, data_norm=1.0, allow_estimates=True).fit(X, y, epsilon=1.0, random_state=0)
    path = dpcvx.save(model, tmp_path / "opt_in.json")
    loaded = dpcvx.load(path)
    assert loaded.certificate.verification.allow_estimates and not loaded.certificate.verification.conditional
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    conditional = dpcvx.PrivateERM(loss=opaque_loss, data_norm=1.0, allow_estimates=True).verify(4)
    assert conditional.conditional
    read = _verification(json.loads(json.dumps(conditional.to_dict())))
    assert read.conditional and read.estimated() == conditional.estimated()
    edited = json.loads(json.dumps(conditional.to_dict()))
    edited["conditional"] = False   # claim an unconditional guarantee
    with pytest.raises(dpcvx.InputError, match="has been edited"):
        _verification(edited)


def test_an_estimator_s_overflowing_calibration_is_a_numeric_range_error_before_the_charge():
    """DPLogisticRegression(delta=1e-6, data_norm=1e20, lam=1e-150) raised Python's bare OverflowError from the
    Gaussian calibration's utility proxy (only the command line turned it into its typed error): every fit's
    calibration now says NumericRangeError, naming the public values, with nothing charged."""
    X, y = make_data(n=50, d=3)
    accountant = dpcvx.PrivacyAccountant(10.0, 0.5)
    with pytest.raises(dpcvx.exceptions.NumericRangeError, match=r"lam = 1e-150, R = 1e\+20\) are too extreme"):
        dpcvx.DPLogisticRegression(epsilon=1.0, delta=1e-6, data_norm=1e20, lam=1e-150,
                                   accountant=accountant, random_state=0).fit(X, (y > 0).astype(int))
    assert accountant.spent.epsilon == 0.0 and not accountant.ledger
