"""What the kernel learners release: only public inputs and privatised values.

For TDDL, PINP and TDIL: two fits on neighbouring data sets (one row replaced, n the
same) with the same integer seed give releases (the saved file, compared by
dpcvx's release-diff, and the learner's repr, str and every public fitted attribute)
that agree in every field except the ones under "privatised"; two fits with
random_state=None give different privatised values (fresh noise); diagnostics
measured on the private data live only in ``diagnostics_``, marked NOT PRIVATE.
"""

import dataclasses
import json
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import DPCVXError
from dpcvx.models.pinp import PINP
from dpcvx.models.release_audit import release_diff
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.release.serialization import model_to_dict

NOT_PRIVATE = "NOT PRIVATE: do not publish"

LOSS = "huber_hinge:h=0.5"
SOLVER_WORDS = ("iterations", "seconds", "residual", "duality", "status", "objective",
                "distance_bound", "newton", "interior", "solve_report")
PRIVATISED_ATTRIBUTES = ("rounds_used_", "certified_", "updates_used_", "predictor_", "model_")


def circle_task(n, seed, d=2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d)) / np.sqrt(d)
    y = np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)
    return X, y


def neighbour(X, y):
    """The same data with row 0 replaced by a far-off point of the other label (n unchanged)."""
    X2, y2 = X.copy(), y.copy()
    X2[0] = -X[0] if np.linalg.norm(X[0]) > 0.1 else X[0] + 0.5
    y2[0] = -y[0]
    return X2, y2


def canonical(value):
    """A fitted attribute as plain data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def public_attributes(learner) -> dict:
    """Every public fitted attribute (name ends with _) except diagnostics_ and the privatised ones."""
    return {name: canonical(value) for name, value in vars(learner).items()
            if name.endswith("_") and not name.startswith("_") and name != "diagnostics_"
            and name not in PRIVATISED_ATTRIBUTES}


def file_text(release) -> str:
    return json.dumps(model_to_dict(release), sort_keys=True)


def assert_same_release(first, second, learners=(), privatised_differ=True):
    """Only privatised values differ: release-diff of the saved files, and the learners' public parts."""
    assert release_diff(first, second) == []
    if privatised_differ:
        assert release_diff(first, second, include_privatised=True)
    assert str(first.certificate) == str(second.certificate) and repr(first) == repr(second)
    if learners:
        one, two = learners
        assert public_attributes(one) == public_attributes(two)
        assert repr(one) == repr(two) and str(one) == str(two)


def assert_no_solver_statistics(release, learner):
    text = (file_text(release) + repr(release) + str(release) + repr(learner) + str(learner)).lower()
    for word in SOLVER_WORDS:
        assert word not in text, word
    assert repr(learner.diagnostics_).startswith(NOT_PRIVATE)
    assert str(learner.diagnostics_).startswith(NOT_PRIVATE)
    assert not hasattr(learner, "solve_report_") and not hasattr(learner, "least_squares_residual_")


def assert_states_neighbour_relation(release):
    certificate = release.certificate
    assert "replace-one" in certificate.neighbours and "n public" in certificate.neighbours
    assert "Jain and Thakurta" in certificate.theorem
    constants = certificate.constants
    assert constants.gamma > 0 and constants.sensitivity_used >= \
        constants.exact_sensitivity + 2 * constants.gamma * (1 - 1e-12)
    assert all(established for _, _, established in constants.statements())


# -- TDDL -----------------------------------------------------------------------------------


def fit_tddl(X, y, Z, random_state):
    learner = TDDL("rbf", gamma=2.0, lam=0.1, loss="hinge")
    return learner, learner.fit(X, y, 1.0, Z=Z, random_state=random_state)


def test_tddl_release_of_neighbours_differs_only_in_privatised_values():
    X, y = circle_task(150, 1)
    Z, _ = circle_task(25, 2)
    (one, first), (two, second) = fit_tddl(X, y, Z, 7), fit_tddl(*neighbour(X, y), Z, 7)
    assert_same_release(first, second, (one, two))
    assert release_diff(first, second, include_privatised=True)[0].startswith("privatised.coef")
    assert_no_solver_statistics(first, one)
    assert_states_neighbour_relation(first)
    # the diagnostics the curator may see: the solve and the post-processing's KKT residual
    report = one.diagnostics_["solve_report"]
    assert report.distance_bound <= report.tolerance
    assert one.diagnostics_["least_squares_residual"] <= 1e-6


def test_tddl_fresh_noise_without_a_seed():
    X, y = circle_task(150, 3)
    Z, _ = circle_task(25, 4)
    (_, first), (_, second) = fit_tddl(X, y, Z, None), fit_tddl(X, y, Z, None)
    assert release_diff(first, second) == []
    assert np.max(np.abs(first.coef - second.coef)) > 1e-6


# -- PINP -----------------------------------------------------------------------------------


def run_pinp(X, y, queries, random_state):
    # a large epsilon, so that some queries update (and their answers carry noise)
    curator = PINP("rbf", gamma=4.0, lam=0.1, max_queries=len(queries), loss=LOSS)
    curator.fit(X, y, 1e4, 1e-6, random_state=random_state)
    return curator, curator.decision_function(queries)


def test_pinp_release_of_neighbours_differs_only_in_privatised_values():
    X, y = circle_task(400, 5)
    queries, _ = circle_task(15, 6)
    # seed 10: both curators make the same number of updates (the repr names the count of centres)
    (one, answers_1), (two, answers_2) = run_pinp(X, y, queries, 10), run_pinp(*neighbour(X, y), queries, 10)
    first, second = one.release(), two.release()
    assert_same_release(first, second, (one, two))
    assert first.outputs["answers"] == answers_1.tolist()
    assert first.outputs["updates_used"] >= 1
    assert not np.array_equal(answers_1, answers_2)
    assert_no_solver_statistics(first, one)
    assert_states_neighbour_relation(first)
    saved = model_to_dict(first)
    assert {"centers", "coef", "answers", "updates_used"} <= set(saved["privatised"])
    assert saved["predictor"]["centers"] is None  # the chosen queries are privatised


def test_pinp_fresh_noise_without_a_seed():
    X, y = circle_task(400, 9)
    queries, _ = circle_task(15, 10)
    (one, answers_1), (two, answers_2) = run_pinp(X, y, queries, None), run_pinp(X, y, queries, None)
    assert release_diff(one.release(), two.release()) == []
    assert np.max(np.abs(answers_1 - answers_2)) > 1e-6


# -- TDIL -----------------------------------------------------------------------------------


def linear_task(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X @ np.array([1.0, -1.0, 0.5]) >= 0, 1.0, -1.0)


def fit_tdil(X, y, random_state):
    learner = TDIL("linear", lam=0.1, input_bound=1.0, loss=LOSS)
    return learner, learner.fit(X, y, 200.0, 1e-6, random_state=random_state)


def test_tdil_release_of_neighbours_differs_only_in_privatised_values():
    X, y = linear_task(400, 11)
    (one, first), (two, second) = fit_tdil(X, y, 12), fit_tdil(*neighbour(X, y), 12)
    assert first.outputs["rounds_used"] >= 2  # updates were made
    # TDIL's selections may coincide for neighbours under one seed: only the public part must
    assert_same_release(first, second, (one, two), privatised_differ=False)
    assert_no_solver_statistics(first, one)
    assert_states_neighbour_relation(first)


def test_tdil_fresh_noise_without_a_seed():
    X, y = linear_task(400, 13)
    (_, first), (_, second) = fit_tdil(X, y, None), fit_tdil(X, y, None)
    assert release_diff(first, second) == []
    centers = [release.centers for release in (first, second)]
    assert centers[0].size and centers[1].size
    assert centers[0].shape != centers[1].shape or np.max(np.abs(centers[0] - centers[1])) > 1e-6


def test_unfitted_learner_has_no_release():
    with pytest.raises(DPCVXError, match="not fitted"):
        TDDL("rbf", gamma=1.0, lam=0.1).predict(np.zeros((1, 2)))
    with pytest.raises(DPCVXError, match="not fitted"):
        PINP("rbf", gamma=1.0, lam=0.1, max_queries=3).release()


def test_release_file_audit_works_on_kernel_learners():
    """dpcvx's own audit fits on D and a neighbour and diffs the saved files."""
    from dpcvx.models.release_audit import audit_release_file

    X, y = circle_task(120, 40)
    Z, _ = circle_task(20, 41)
    audit = audit_release_file(TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS), X, y, epsilon=1.0,
                               mechanism=None, Z=Z)
    assert audit.clean and audit.privatised


# -- the public solve tolerance gamma in the proof --------------------------------------------


def test_noise_covers_the_public_solve_tolerance(monkeypatch):
    import dpcvx.solvers.kernel as kernel_erm

    tolerances = []
    solve = kernel_erm.solve_kernel_erm

    def recording_solve(gram, y, lam, loss, tolerance, feature_bound, *rest):  # rest: the progress bar
        tolerances.append(tolerance)
        return solve(gram, y, lam, loss, tolerance, feature_bound, *rest)

    monkeypatch.setattr(kernel_erm, "solve_kernel_erm", recording_solve)
    X, y = circle_task(150, 14)
    Z, _ = circle_task(25, 15)
    learner, release = fit_tddl(X, y, Z, 16)
    constants = release.certificate.constants
    s = 2 * 1.0 * 1.0 / (0.1 * 150)  # 2 L R / (lam n): hinge L = 1, rbf R = 1
    assert constants.exact_sensitivity == pytest.approx(s, rel=1e-10)
    assert constants.gamma == pytest.approx(1e-3 * s, rel=1e-10)
    assert tolerances == [constants.gamma]  # the solver was asked for exactly the released gamma
    assert learner.diagnostics_["solve_report"].distance_bound <= constants.gamma
    assert constants.sensitivity_used >= s + 2 * constants.gamma
    assert constants.sensitivity_used == pytest.approx(s + 2 * constants.gamma, rel=1e-10)
    # TDDL: L1 sensitivity of the exact minimiser's predictions plus the 2 gamma term
    gram = learner.predictor_.kernel.gram(Z, Z)
    operator_norm = float(np.sqrt(np.linalg.eigvalsh(gram).max()))
    calibration = learner.calibration_
    assert calibration.solve_tolerance == constants.gamma
    assert calibration.l2_sensitivity == pytest.approx(s * operator_norm + 2 * constants.gamma * operator_norm,
                                                       rel=1e-9)
    assert calibration.l1_sensitivity >= (s + 2 * constants.gamma) * min(
        np.sqrt(np.diag(gram)).sum(), np.sqrt(len(Z)) * operator_norm) * (1 - 1e-9)
    for name, learner in [("PINP", run_pinp(*circle_task(400, 17), circle_task(3, 18)[0], 19)[0]),
                          ("TDIL", fit_tdil(*linear_task(400, 20), 21)[0])]:
        stated = (learner.model_ if name == "TDIL" else learner.release()).certificate.constants
        sensitivity = (learner.parameters_.query_sensitivity if name == "PINP"
                       else learner.parameters_.score_sensitivity)
        assert sensitivity == pytest.approx(stated.sensitivity_used * stated.R_phi, rel=1e-10), name
        assert learner.parameters_.solve_tolerance == stated.gamma, name


def test_a_solve_that_cannot_reach_gamma_is_refused_after_the_charge(monkeypatch):
    """The documented residual risk: the refusal comes after the charge, which stays spent."""
    import dpcvx.solvers.kernel as kernel_erm

    def failing_solve(*args, **kwargs):
        raise dpcvx.SolverError("could not certify ||w - w*|| <= gamma")

    monkeypatch.setattr(kernel_erm, "solve_kernel_erm", failing_solve)
    X, y = circle_task(100, 22)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    learner = TDDL("rbf", gamma=2.0, lam=0.1)
    with pytest.raises(dpcvx.SolverError):
        learner.fit(X, y, 1.0, Z=X[:10], random_state=0, accountant=accountant)
    assert accountant.spent.epsilon == 1.0 and learner.predictor_ is None


# -- a row beyond floating point -----------------------------------------------------------


def far_neighbour(X, far):
    """X with row 0 replaced by a row whose k(x, x) overflows (n unchanged)."""
    X2 = X.copy()
    X2[0] = 0.0
    X2[0, 0] = far
    return X2


FAR_FITS = {
    "TDDL linear": lambda X, y, Z, accountant: TDDL("linear", lam=0.01, input_bound=1.0).fit(
        X, y, 1.0, Z=Z, random_state=3, accountant=accountant),
    "TDDL cubic": lambda X, y, Z, accountant: TDDL("poly", lam=0.01, input_bound=1.0).fit(
        X, y, 1.0, Z=Z, random_state=3, accountant=accountant),
    "TDDL cubic, span of Z": lambda X, y, Z, accountant: TDDL("poly", lam=0.01, input_bound=1.0, span="public").fit(
        X, y, 1.0, Z=Z, random_state=3, accountant=accountant),
    "TDIL linear": lambda X, y, Z, accountant: TDIL("linear", lam=0.01, input_bound=1.0).fit(
        X, y, 1.0, 1e-6, random_state=3, accountant=accountant),
    "PINP linear": lambda X, y, Z, accountant: PINP("linear", lam=0.01, input_bound=1.0, max_queries=len(Z)).fit(
        X, y, 1.0, 1e-6, random_state=3, accountant=accountant),
}


@pytest.mark.parametrize("far", [1e160, 1e300])
@pytest.mark.parametrize("name", list(FAR_FITS))
def test_a_far_row_beyond_floating_point_releases_as_its_neighbour_does(name, far):
    """A training row whose k(x, x) overflows (||x|| 1e160 under the linear kernel) maps to the zero feature: the fit
    releases as on its neighbour, charged once, with finite answers. It was charged and then refused with a
    SolverError (0 * inf = NaN in the scaled Gram matrix), where its neighbour released: a refusal that told the two
    apart with certainty, and spent the budget."""
    X, y = circle_task(200, 11, d=3)
    Z, _ = circle_task(10, 12, d=3)
    releases = []
    for rows in (X, far_neighbour(X, far)):
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
        with warnings.catch_warnings():
            # the curator's clipping note on the far row
            warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
            warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
            release = FAR_FITS[name](rows, y, Z, accountant)
        assert len(accountant.ledger) == 1
        answers = release.decision_function(Z)
        assert np.all(np.isfinite(answers))
        releases.append(release)
    if not isinstance(releases[0], PINP):
        assert release_diff(*releases) == []


@pytest.mark.parametrize(("kernel", "far"), [({"kernel": lambda A, B: A @ B.T, "feature_bound": 1.0}, 1e154),
                                             ({"kernel": "rbf", "gamma": 2.0}, 1e154),
                                             ({"kernel": "laplacian", "gamma": 2.0}, 1.7e308)],
                         ids=["callable", "rbf", "laplacian"])
def test_a_far_row_under_a_callable_or_stationary_kernel_releases_without_a_word_of_numpy(kernel, far):
    """A callable kernel's k(x, x) of a finite row [1e200, 0] is inf: its Gram check refused the fit (the named
    linear kernel released), and an rbf or laplacian distance beyond floating point showed numpy's overflow warning on
    that neighbour only. The far row is the zero feature under a callable too, and the stationary kernels' exp(-inf)
    = 0 is computed without a warning."""
    X, y = circle_task(200, 13, d=2)
    Z, _ = circle_task(10, 14, d=2)
    for rows in (X, far_neighbour(X, far)):
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
            release = TDDL(lam=0.01, **kernel).fit(rows, y, 1.0, Z=Z, random_state=3, accountant=accountant)
        assert len(accountant.ledger) == 1 and np.all(np.isfinite(release.decision_function(Z)))
