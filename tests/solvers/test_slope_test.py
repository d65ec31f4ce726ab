"""Newton's full step accepted from its slope: phi(1) <= phi(0) + phi'(1) for the convex phi(t) = F(w + t d).

Where the step's pass brings the gradient at w + d, a slope phi'(1) <= min(1e-4 phi'(0), -guaranteed) proves
Armijo's decrease and the safeguard's comparison without F's values (one loss evaluation per row saved); a full
step whose fresh gradient passes the stopping test ends the solve without them (:func:`linear._ends_solve`).
These tests pin that the test is sound (its verdict agrees with F's exact values), that Newton's iterates are
bitwise those of the line search on values on every path, with and without the safeguard, and that values are
saved.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sparse

import dpcvx.solvers.linear as linear
from dpcvx import losses
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap
from dpcvx.solvers.blockwise import BlockwiseObjective
from dpcvx.solvers.objective import PerturbedObjective
from dpcvx.verification.verifier import verify_loss, verify_regularizer

LAM = 1e-4


def _logistic_rows(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the unit ball, labels of a logistic model with weights of scale 3 (full Newton steps from 0
    undershoot on them: the slope test has work to do)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-3 * X @ rng.normal(size=d))), 1.0, -1.0)
    return X, y


def _objective(kind: str, X: np.ndarray, y: np.ndarray, tmp_path) -> PerturbedObjective:
    d = X.shape[1]
    args = (y, verify_loss(losses.logistic()).derivatives, verify_regularizer(None, d).analysis.quadratic, LAM,
            np.random.default_rng(7).normal(size=d))
    if kind == "column-major":
        return PerturbedObjective(np.asfortranarray(X), *args, curvature_bound=0.25)
    if kind == "row-blocks":
        return BlockwiseObjective(X[:0], *args, curvature_bound=0.25, blocks=RowBlocks.views(X, RowMap(norm_bound=1.0)))
    np.save(tmp_path / "X.npy", X)
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    return BlockwiseObjective(X[:0], *args, curvature_bound=0.25,
                              blocks=RowBlocks(mapped, RowMap(norm_bound=1.0), block_rows=700))


def _solve(objective: PerturbedObjective, monkeypatch, slope_test: bool, beta: float | None):
    """(w, info, F's value evaluations) of a Newton solve with or without the slope test."""
    calls = []
    value = PerturbedObjective.value
    monkeypatch.setattr(PerturbedObjective, "value", lambda self, *a, **k: calls.append(1) or value(self, *a, **k))
    if not slope_test:  # the line search on values at every step
        monkeypatch.setattr(linear, "_slope_descends", lambda *args: False)
        monkeypatch.setattr(linear, "_step_descends", lambda *args: False)
        monkeypatch.setattr(linear, "_ends_solve", lambda *args: False)
    w, info = linear.newton(objective, gradient_tolerance=1e-8, beta=beta)
    monkeypatch.undo()
    return w, info, len(calls)


def _wide_sparse(n: int, d: int, per_row: int, seed: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Rows of ``per_row`` entries and norm below 1, logistic labels: beyond 400 columns every direction is CG's."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, per_row))
    values /= 1.01 * np.linalg.norm(values, axis=1)[:, None]
    columns = np.stack([rng.choice(d, size=per_row, replace=False) for _ in range(n)])
    X = sparse.csr_matrix((values.ravel(), columns.ravel(), np.arange(0, n * per_row + 1, per_row)), shape=(n, d))
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-3 * (X @ rng.normal(size=d)))), 1.0, -1.0)
    return X, y


# where the gradient at the full step costs no product of its own: the step's pass by row blocks, CG's last
# product on a sparse X, the next iteration's gradient on the margins CG's products updated (dense rows, both
# beyond 400 columns); in memory with a dense X's own step product, F's values decide full steps as before, and
# only the first step's line minimum (taken from all rows' Hessians, as at 6,000 x 15: objective.can_subsample) is
# proved by its slope
SAVES = {"row-blocks": True, "memmap": True, "column-major": True, "sparse, CG": True, "dense, CG": True}


@pytest.mark.parametrize("kind", list(SAVES))
@pytest.mark.parametrize("beta", [None, 0.25])
def test_iterates_are_bitwise_those_of_the_line_search_on_values(kind, beta, monkeypatch, tmp_path):
    def objective() -> PerturbedObjective:
        if kind == "sparse, CG":
            S, labels = _wide_sparse(4_000, 600, 20, seed=3)
            d = S.shape[1]
            return PerturbedObjective(S, labels, verify_loss(losses.logistic()).derivatives,
                                      verify_regularizer(None, d).analysis.quadratic, 3e-3,
                                      np.random.default_rng(7).normal(size=d), curvature_bound=0.25)
        if kind == "dense, CG":
            X, labels = _logistic_rows(3_000, 450, seed=3)
            return PerturbedObjective(X, labels, verify_loss(losses.logistic()).derivatives,
                                      verify_regularizer(None, 450).analysis.quadratic, 3e-3,
                                      np.random.default_rng(7).normal(size=450), curvature_bound=0.25)
        return _objective(kind, *_logistic_rows(6_000, 15, seed=3), tmp_path)

    w_values, info_values, calls_values = _solve(objective(), monkeypatch, False, beta)
    w_slope, info_slope, calls_slope = _solve(objective(), monkeypatch, True, beta)
    assert info_values.converged and info_slope.converged
    assert np.array_equal(w_slope, w_values)
    assert info_slope.iterations == info_values.iterations
    assert info_slope.gradient_norm == info_values.gradient_norm
    if SAVES[kind]:  # F's values were skipped on the steps whose slope proved the decrease
        assert calls_slope < calls_values
    else:
        assert calls_slope == calls_values


@pytest.mark.parametrize("curvature_bound", [np.inf, 0.25])
def test_the_verdict_agrees_with_the_values(curvature_bound, tmp_path):
    """Whenever the slope test accepts a step, F's exact values show Armijo's decrease and at least the
    safeguard's guaranteed one. Without a verified curvature bound it never accepts a step that overshoots
    (phi'(1) > 0); with the logistic loss's c = 1/4 (phi'' <= c ||dz||^2 + q) it accepts some that do."""
    X, y = _logistic_rows(3_000, 10, seed=5)
    objective = _objective("column-major", X, y, tmp_path)
    objective.curvature_bound = curvature_bound
    rng = np.random.default_rng(11)
    verdicts, overshoots = [], []
    for fraction in (0.3, 0.7, 1.0, 1.3, 1.6, 2.0, 3.0):  # of the Newton step: short ones undershoot
        for _ in range(3):
            w = rng.normal(size=10)
            gradient = objective.gradient(w)
            H = objective.hessian(w)
            direction = -fraction * np.linalg.solve(np.triu(H) + np.triu(H, 1).T, gradient)
            slope = float(gradient @ direction)
            guaranteed = float(gradient @ gradient) / (2 * objective.n * 0.25)
            terms = objective.gradient_terms(w + direction)
            change = objective.margins(w + direction) - objective.margins(w)
            accepted = linear._slope_descends(objective, terms, direction, change, slope, guaranteed)
            decrease = objective.value(w) - objective.value(w + direction)
            if accepted:
                assert decrease >= -1e-4 * slope and decrease >= guaranteed
            if float(linear.add_terms(terms) @ direction) > 0:
                overshoots.append(accepted)
            verdicts.append(accepted)
    assert any(verdicts) and not all(verdicts)  # both verdicts were exercised
    assert any(overshoots) == np.isfinite(curvature_bound) and not all(overshoots)


@pytest.mark.parametrize("kind", ["row-blocks", "memmap"])
def test_a_full_step_that_ends_the_solve_takes_no_values(kind, monkeypatch, tmp_path):
    """Newton's last step lands where the gradient, on the step pass's fresh margins, passes the stopping test:
    it is taken without F's two values, where the slope test (phi'(1) near 0 there) cannot prove it, and the
    solve stops on the next check with the same point, iterations and gradient as the line search on values."""
    X, y = _logistic_rows(6_000, 15, seed=4)
    verdicts: list[bool] = []
    ends_solve = linear._ends_solve
    monkeypatch.setattr(linear, "_ends_solve", lambda *args: verdicts.append(ends_solve(*args)) or verdicts[-1])
    w_ends, info_ends = linear.newton(_objective(kind, X, y, tmp_path), gradient_tolerance=1e-8, beta=0.25)
    monkeypatch.undo()
    assert verdicts[-1] and not any(verdicts[:-1])  # only the last step was accepted for ending the solve
    w_slope, info_slope, calls_slope = _solve(_objective(kind, X, y, tmp_path), monkeypatch, True, 0.25)
    monkeypatch.setattr(linear, "_ends_solve", lambda *args: False)
    w_values, info_values, calls_values = _solve(_objective(kind, X, y, tmp_path), monkeypatch, True, 0.25)
    assert np.array_equal(w_ends, w_values) and np.array_equal(w_slope, w_values)
    assert info_ends.converged and info_ends.iterations == info_values.iterations
    assert info_ends.gradient_norm == info_values.gradient_norm
    assert calls_slope < calls_values  # phi(1) of the last step, and phi(0) unless the step before computed it


@pytest.mark.parametrize("kind", ["row-blocks", "memmap"])
def test_a_step_tested_on_its_fresh_gradient_hands_its_residual_on(kind, monkeypatch, tmp_path):
    """A full step's gradient, which :func:`linear._ends_solve` tests on the pass's fresh margins, is the next
    iteration's: its residual is computed once, at that test (one a step and the first iteration's, where each was
    computed twice: at the test and at the next iteration's start), with the same iterates."""
    X, y = _logistic_rows(6_000, 15, seed=4)
    w_before, info_before = linear.newton(_objective(kind, X, y, tmp_path), gradient_tolerance=1e-8, beta=0.25)
    computed = []
    residual = linear.relative_residual
    monkeypatch.setattr(linear, "relative_residual", lambda *args: computed.append(1) or residual(*args))
    w, info = linear.newton(_objective(kind, X, y, tmp_path), gradient_tolerance=1e-8, beta=0.25)
    assert np.array_equal(w, w_before) and info.iterations == info_before.iterations >= 4 and info.converged
    assert len(computed) <= info.iterations + 1


@pytest.mark.parametrize("layout", ["row-major", "memmap"])
def test_the_fit_gives_newton_the_verified_curvature_bound(layout, monkeypatch, tmp_path):
    """The blockwise objectives of a fit carry the certificate's c >= l'' (1/4 for the logistic loss), which the
    slope test's crossing bound needs (inf would fall back to convexity alone)."""
    from dpcvx import PrivateERM

    X, y = _logistic_rows(2_000, 8, seed=6)
    if layout == "memmap":
        np.save(tmp_path / "X.npy", X)
        X = np.load(tmp_path / "X.npy", mmap_mode="r")
    seen = []
    newton = linear.newton
    monkeypatch.setattr(linear, "newton", lambda objective, **k: seen.append(objective) or newton(objective, **k))
    import dpcvx.solvers.choice as choice
    monkeypatch.setattr(choice, "newton", linear.newton)
    PrivateERM(losses.logistic(), lam=LAM, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    assert seen and all(isinstance(o, BlockwiseObjective) and o.curvature_bound == 0.25 for o in seen)


@pytest.mark.parametrize("kind", ["row-blocks", "column-major"])
def test_the_first_steps_line_minimum_is_proved_without_values(kind, monkeypatch, tmp_path):
    """The first step from 0, lengthened to t > 1 by Newton in t, is proved by the same bound at step t (phi'(t)
    from Newton in t): no F value for it, and the iterates bitwise those of the line search on values."""
    X, y = _logistic_rows(20_000, 10, seed=8)  # a subsample of 4,000 rows: 400 per feature, the line minimum pays
    proved: list[tuple[float, bool]] = []
    step_descends = linear._step_descends

    def recording(objective, direction, change, t, *args):
        proved.append((t, step_descends(objective, direction, change, t, *args)))
        return proved[-1][1]

    monkeypatch.setattr(linear, "_step_descends", recording)
    w_proved, info_proved = linear.newton(_objective(kind, X, y, tmp_path), gradient_tolerance=1e-8, beta=0.25)
    monkeypatch.undo()
    assert any(t > 1.0 and accepted for t, accepted in proved)
    w_values, info_values, _ = _solve(_objective(kind, X, y, tmp_path), monkeypatch, False, 0.25)
    assert np.array_equal(w_proved, w_values) and info_proved.iterations == info_values.iterations
    assert info_proved.converged and info_proved.gradient_norm == info_values.gradient_norm
