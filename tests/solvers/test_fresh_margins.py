"""Newton's full steps land on fresh margins X (w + d), so its stopping check needs no pass of its own.

The public gradient bound is checked on margins computed afresh from w (never on margins updated
step by step, whose round-off the proof does not cover). The step's pass now computes X (w + d)
itself; these tests pin that those margins are bitwise the ones a fresh computation gives, on every
path (dense in memory, row blocks of a row-major array, a memmap, sparse), that the gradient Newton
reports and stops on is bitwise the fresh one, and that the minimiser is unchanged (checked against
an independent numpy gradient and against the other paths).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sparse
from scipy.special import expit

import dpcvx
import dpcvx.solvers.linear as linear
from dpcvx import losses
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap
from dpcvx.solvers.blockwise import BlockwiseObjective
from dpcvx.solvers.objective import PerturbedObjective, hessian_sample_size, relative_residual
from dpcvx.verification.verifier import verify_loss, verify_regularizer

LAM = 1e-3


def _sparse_data(n: int, d: int, per_row: int, seed: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    rng = np.random.default_rng(seed)
    columns = np.stack([rng.choice(d, size=per_row, replace=False) for _ in range(n)])
    values = rng.normal(size=(n, per_row))
    values /= np.linalg.norm(values, axis=1)[:, None] * 1.01
    X = sparse.csr_matrix((values.ravel(), columns.ravel(), np.arange(0, n * per_row + 1, per_row)), shape=(n, d))
    y = np.where(X @ rng.normal(size=d) > 0, 1.0, -1.0)
    return X, y


def _gradient_norm(X, y: np.ndarray, w: np.ndarray, lam: float = LAM) -> float:
    """||grad F|| independently of dpcvx: -sum_i y_i sigma(-y_i w^T x_i) x_i + n Lam w."""
    return float(np.linalg.norm(np.asarray(X.T @ (-y * expit(-y * np.asarray(X @ w)))).ravel()
                                + X.shape[0] * lam * w))


def _objective(kind: str, X: np.ndarray, y: np.ndarray, tmp_path) -> PerturbedObjective:
    d = X.shape[1]
    derivatives = verify_loss(losses.logistic()).derivatives
    quadratic = verify_regularizer(None, d).analysis.quadratic
    args = (y, derivatives, quadratic, LAM, np.zeros(d))
    if kind == "column-major":
        return PerturbedObjective(np.asfortranarray(X), *args)
    if kind == "sparse":
        return PerturbedObjective(sparse.csr_matrix(X), *args)
    rows = RowMap(norm_bound=1.0)
    if kind == "row-blocks":
        return BlockwiseObjective(X[:0], *args, blocks=RowBlocks.views(X, rows))
    np.save(tmp_path / "X.npy", X)
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    return BlockwiseObjective(X[:0], *args, blocks=RowBlocks(mapped, rows, block_rows=300))  # mapped blocks


@pytest.mark.parametrize("kind", ["column-major", "sparse", "row-blocks", "memmap"])
def test_full_step_margins_are_bitwise_the_fresh_margins(rows_in_ball, kind, tmp_path):
    X, y = rows_in_ball(2_000, 12, seed=1)
    objective = _objective(kind, X, y, tmp_path)
    rng = np.random.default_rng(2)
    w, direction = rng.normal(size=12), 1e-3 * rng.normal(size=12)
    z = objective.margins(w)
    objective.gradient_terms(w, z)
    change = objective.margin_change(direction)
    full = objective.full_step_margins()
    fresh = objective.margins(w + 1.0 * direction)  # Newton's full step: w + step * d with step = 1.0
    assert full is not None and np.array_equal(full, fresh)
    np.testing.assert_allclose(change, y * (X @ direction), rtol=1e-9, atol=1e-15)
    # the check has teeth: margins updated incrementally, z + X d, are not bitwise the fresh ones
    assert not np.array_equal(z + y * (X @ direction), fresh)


@pytest.mark.parametrize("kind", ["column-major", "sparse", "row-blocks", "memmap"])
def test_newton_stops_on_the_fresh_gradient(rows_in_ball, kind, tmp_path):
    X, y = rows_in_ball(6_000, 15, seed=3)
    objective = _objective(kind, X, y, tmp_path)
    gamma = 1e-10 * X.shape[0]  # tol n L R with L = R = 1 (rows are inside the unit ball)
    w, info = linear.newton(objective, gradient_tolerance=gamma)
    assert info.status == "converged" and info.converged
    fresh = _objective(kind, X, y, tmp_path).residual(w)  # a new objective: nothing cached
    assert info.gradient_norm == fresh.absolute * X.shape[0]  # bitwise: the stopping check was on fresh margins
    assert _gradient_norm(X, y, w) <= gamma  # certified, by an independent gradient
    assert _gradient_norm(X, y, w * (1 + 1e-6)) > gamma  # which has teeth


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("regression", [False, True])
def test_the_final_check_reads_x_once_and_agrees_with_the_two_products(rows_in_ball, order, regression):
    """fresh_gradient_terms: the margins and the loss gradient by row blocks in one read of X; the margins
    bitwise X w's (each row's product is the same dot product), the gradient within the rounding of its
    block sums (docs/theory.md section 23)."""
    X, y = rows_in_ball(5_000, 30, seed=5)
    loss = losses.huber_regression() if regression else losses.logistic()
    labels = y + 0.5 if regression else y
    objective = PerturbedObjective(np.asarray(X, order=order), labels, verify_loss(loss).derivatives,
                                   verify_regularizer(None, 30).analysis.quadratic, LAM, np.zeros(30),
                                   regression=regression)
    w = np.random.default_rng(6).normal(size=30)
    margins, terms = objective.fresh_gradient_terms(w)
    expected = objective.margins(w)
    np.testing.assert_allclose(margins, expected, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(terms[0], objective.gradient_terms(w, expected)[0], rtol=1e-12, atol=1e-12)
    assert objective.residual(w) == relative_residual(terms, objective.n)  # residual(w) is this computation


@pytest.mark.parametrize("kind", ["column-major", "sparse"])
def test_newton_by_cg_stops_on_the_fresh_gradient(rows_in_ball, kind, monkeypatch):
    """Beyond DENSE_NEWTON_MAX_DIM every direction is from CG and steps update the margins; the final check
    is the fresh computation, and the gradient Newton reports is bitwise residual(w)'s."""
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", 5)
    X, y = rows_in_ball(6_000, 15, seed=3)
    objective = _objective(kind, X, y, None)
    gamma = 1e-10 * X.shape[0]
    w, info = linear.newton(objective, gradient_tolerance=gamma)
    assert info.status == "converged" and info.solver == "newton-cg"
    assert info.gradient_norm == _objective(kind, X, y, None).residual(w).absolute * X.shape[0]
    assert _gradient_norm(X, y, w) <= gamma


class _IncrementalMargins(PerturbedObjective):
    """The broken variant: full steps land on z + X d, which it claims are fresh."""

    def margin_change(self, direction: np.ndarray) -> np.ndarray:
        change = self.y * (self.X @ direction)
        self._full = None if self._base is None else self._base[1] + change
        return change


def test_newton_trusting_incremental_margins_reports_a_gradient_it_did_not_check(rows_in_ball):
    """What the previous test rules out: a gradient checked on margins updated step by step."""
    X, y = rows_in_ball(6_000, 15, seed=3)
    fresh_objective = _objective("column-major", X, y, None)
    broken = _IncrementalMargins(fresh_objective.X, y, fresh_objective.loss, fresh_objective.regularizer, LAM,
                                 np.zeros(15))
    w, info = linear.newton(broken, gradient_tolerance=1e-10 * X.shape[0])
    assert info.gradient_norm != fresh_objective.residual(w).absolute * X.shape[0]


def test_sparse_conjugate_gradients_reach_the_dense_minimiser(monkeypatch, count_calls):
    """Sparse X beyond the dense limit: CG preconditioned by diag(H), the last one reused near the optimum."""
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", 50)
    X, y = _sparse_data(4_000, 120, per_row=8, seed=4)
    calls = count_calls(PerturbedObjective, "hessian_diagonal")
    erm = dpcvx.PrivateERM(losses.logistic(), lam=LAM, data_norm=1.0)
    w = erm.fit_nonprivate(X, y).coef_
    info = erm.diagnostics_
    assert info.solver == "newton-cg" and info.converged
    assert 0 < len(calls) < info.iterations - 1  # reused in the local regime
    gamma = info.gradient_tolerance
    assert _gradient_norm(X, y, w) <= gamma and _gradient_norm(X, y, w * (1 + 1e-6)) > gamma
    dense = erm.fit_nonprivate(np.asfortranarray(X.toarray()), y).coef_  # CG on exact H v, unpreconditioned
    np.testing.assert_allclose(w, dense, rtol=1e-7, atol=1e-9)


def test_hessian_subsample_costs_half_a_pass_with_at_least_twenty_rows_per_feature():
    assert hessian_sample_size(10_000, 20) == 1_000
    assert hessian_sample_size(100_000, 20) == 10_000  # 2 n / d: m d^2 = 2 n d flops
    assert hessian_sample_size(1_000_000, 20) == 100_000
    assert hessian_sample_size(100_000, 80) == 2_500  # below 100 columns: 2 n / d, 20 d, 1000 only
    assert hessian_sample_size(500, 20) == 500  # never more than n


def test_no_hessian_subsample_for_an_x_of_at_most_subsample_min_entries(rows_in_ball, count_calls):
    """At most SUBSAMPLE_MIN_ENTRIES entries n d: all rows' Hessians from the first step (fewer iterations where a
    Newton iteration's fixed cost outweighs the Hessian's flops); above it, the subsample while n >= 4 m."""
    from dpcvx.solvers.objective import SUBSAMPLE_MIN_ENTRIES

    def can(n: int, d: int) -> bool:
        return _objective("column-major", np.zeros((n, d)), np.ones(n), None).can_subsample

    assert SUBSAMPLE_MIN_ENTRIES == 300_000
    assert not can(10_000, 20) and not can(15_000, 20) and can(15_001, 20) and can(20_000, 20)
    assert not can(6_000, 50) and can(6_001, 50) and not can(3_999, 100)  # n < 4 m = 4,000 at 100 columns
    # a solve at 10,000 x 20 asks no subsampled Hessian, and reaches the certified minimiser
    X, y = rows_in_ball(10_000, 20, seed=8)
    sampled = count_calls(PerturbedObjective, "_sampled_rows")
    erm = dpcvx.PrivateERM(losses.logistic(), lam=LAM, data_norm=1.0)
    w = erm.fit_nonprivate(np.asfortranarray(X), y).coef_
    assert not sampled and erm.diagnostics_.converged
    assert _gradient_norm(X, y, w) <= erm.diagnostics_.gradient_tolerance
    erm.fit_nonprivate(np.asfortranarray(np.vstack([X, X[:5_001]])), np.concatenate([y, y[:5_001]]))
    assert sampled  # the check has teeth: 15,001 rows take the subsample


def test_wide_hessian_subsample_takes_fifty_rows_per_feature_while_its_flops_stay_within_twenty_passes_entries():
    assert hessian_sample_size(100_000, 200) == 10_000  # 50 d = 20 n / d
    assert hessian_sample_size(100_000, 100) == 5_000  # 50 d
    assert hessian_sample_size(100_000, 400) == 8_000  # 20 n / d = 5,000 is below 20 d: 20 d stays
    assert hessian_sample_size(1_000_000, 200) == 10_000  # 50 d
    for n, d in [(30_000, 100), (40_000, 200), (39_999, 200), (200_000, 400), (300_000, 500), (20_000, 1_000)]:
        old = min(n, max(1000, 20 * d, 2 * n // d))  # the rule before: can_subsample (n >= 4 m) answers alike
        assert (n >= 4 * hessian_sample_size(n, d)) == (n >= 4 * old)
        assert hessian_sample_size(n, d) >= old


def test_line_derivatives_are_those_of_the_objective_along_the_direction(rows_in_ball):
    """phi'(t), phi''(t) of phi(t) = F(w + t d), from margins z + t dz alone, against differences of F."""
    X, y = rows_in_ball(3_000, 8, seed=5)
    rng = np.random.default_rng(6)
    objective = _objective("column-major", X, y, None)
    objective.noise = rng.normal(size=8)  # every term of F: loss, regularizer, noise, extra ridge
    objective.extra_reg = 1e-3
    w, direction = rng.normal(size=8), rng.normal(size=8)
    z, change = objective.margins(w), y * (X @ direction)
    t, h = 0.7, 1e-4

    def phi(s: float) -> float:
        return objective.value(w + s * direction)

    first, second = objective.line_derivatives(w, direction, z, change, t)
    assert first == pytest.approx((phi(t + h) - phi(t - h)) / (2 * h), rel=1e-6)
    assert second == pytest.approx((phi(t + h) - 2 * phi(t) + phi(t - h)) / h**2, rel=1e-4)
    # the check has teeth: the slope without the noise term b . d is off
    assert first - float(objective.noise @ direction) != pytest.approx((phi(t + h) - phi(t - h)) / (2 * h), rel=1e-6)


def test_first_step_from_zero_is_lengthened_and_the_minimiser_is_unchanged(rows_in_ball, monkeypatch):
    """Logistic from w = 0: the first Newton step undershoots; its line minimum (t > 1) saves iterations."""
    X, y = rows_in_ball(20_000, 20, seed=7)  # 2 n / d = 2000 rows sampled: 100 per feature, accurate enough
    steps = []
    line_minimum = linear._line_minimum

    def recording(*args):
        steps.append(line_minimum(*args)[0])
        return steps[-1], None

    monkeypatch.setattr(linear, "_line_minimum", recording)
    erm = dpcvx.PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0)
    w = erm.fit_nonprivate(X, y).coef_
    lengthened = erm.diagnostics_
    assert len(steps) == 1 and steps[0] > 1.2  # the first step only
    monkeypatch.setattr(linear, "_line_minimum", lambda *args: (1.0, None))
    plain = erm.fit_nonprivate(X, y).coef_
    assert lengthened.converged and lengthened.iterations < erm.diagnostics_.iterations
    np.testing.assert_allclose(w, plain, rtol=1e-8, atol=1e-10)
    gamma = lengthened.gradient_tolerance
    assert _gradient_norm(X, y, w, lam=1e-4) <= gamma < _gradient_norm(X, y, w * (1 + 1e-6), lam=1e-4)


@pytest.mark.parametrize("d", [20, 100, 500, 1500])
@pytest.mark.parametrize("order", ["C", "F"])
def test_the_gradients_transposed_product_agrees_with_blas_at_every_width(d, order):
    """X^T u read from memory goes by einsum on row-major blocks of EINSUM_WIDTHS columns (faster there on this
    machine), by BLAS otherwise: the same vector within the rounding of its block sums, both memory orders.
    Within BLOCK_READ_WIDTHS a row-major X is read by the cache-sized blocks either way (d = 500: einsum on each
    block with AVX-512, else BLAS), so the gradient is the blocks' sum in block order, bit for bit (docs/theory.md
    section 23)."""
    from dpcvx.data.blocks import cache_block_rows
    from dpcvx.solvers.objective import BLOCK_READ_WIDTHS, EINSUM_WIDTHS, row_product, transposed_product

    rng = np.random.default_rng(d)
    X = np.asarray(rng.normal(size=(3_000, d)) / np.sqrt(d), order=order)
    u = rng.normal(size=3_000)
    np.testing.assert_allclose(transposed_product(X, u), X.T @ u, rtol=1e-12, atol=1e-12)
    y = np.where(rng.random(3_000) < 0.5, 1.0, -1.0)
    objective = PerturbedObjective(X, y, verify_loss(losses.logistic()).derivatives,
                                   verify_regularizer(None, d).analysis.quadratic, LAM, np.zeros(d))
    w = rng.normal(size=d) / np.sqrt(d)
    z = objective.margins(w)
    expected = X.T @ (-y * expit(-z))
    np.testing.assert_allclose(objective.gradient_terms(w, z)[0], expected, rtol=1e-11, atol=1e-11)
    assert (EINSUM_WIDTHS[0] <= d <= EINSUM_WIDTHS[1]) == (d == 100 or (d == 500 and EINSUM_WIDTHS[1] >= 500))
    assert (BLOCK_READ_WIDTHS[0] <= d <= BLOCK_READ_WIDTHS[1]) == (d in (100, 500))
    if order == "C" and d == 500:
        step, u = cache_block_rows(d), y * objective.loss.first(z)  # the objective's own u, bit for bit
        blocks = [transposed_product(X[a:a + step], u[a:a + step]) for a in range(0, 3_000, step)]
        assert len(blocks) > 1 and np.array_equal(objective.gradient_terms(w, z)[0], sum(blocks[1:], blocks[0]))
    # X v likewise (row_product); on a row-major X the margins at one point are the same to the bit whether
    # fresh or by the final check's blocks (a column-major X: within rounding)
    np.testing.assert_allclose(row_product(X, w), X @ w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(z, y * (X @ w), rtol=1e-12, atol=1e-12)
    fresh, _ = objective.fresh_gradient_terms(w)
    if order == "C":
        assert np.array_equal(fresh, z)
    np.testing.assert_allclose(fresh, z, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("kind", ["column-major", "sparse"])
def test_a_cg_step_that_can_end_the_solve_brings_its_fresh_gradient(rows_in_ball, kind, monkeypatch):
    """When a CG step can end the solve (Newton's quadratic term below the target's share), its pass computes
    the margins at w + d afresh and the gradient there: one gradient an iteration, the last on fresh margins,
    and no check of its own after it (before: a gradient on updated margins, then the fresh check)."""
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", 5)
    X, y = rows_in_ball(6_000, 15, seed=3)
    objective = _objective(kind, X, y, None)
    gradients, depth = [], [0]

    def counted(method):
        def call(self, *args, **kwargs):
            depth[0] += 1
            try:
                return method(self, *args, **kwargs)
            finally:
                depth[0] -= 1
                gradients.append(method.__name__) if depth[0] == 0 else None
        return call

    for name in ("gradient_terms", "fresh_gradient_terms"):
        monkeypatch.setattr(PerturbedObjective, name, counted(getattr(PerturbedObjective, name)))
    # a dense X's CG computes the gradient at its step in the step's own read (step_pass): counted where CG
    # returns those terms to Newton, as fresh when the read computed the margins afresh
    landed: dict[int, bool] = {}
    step_pass, cg = PerturbedObjective.step_pass, linear.preconditioned_cg

    def passed(self, *args, **kwargs):
        result = step_pass(self, *args, **kwargs)
        landed[id(result.terms)] = kwargs["fresh"]
        return result

    def solved(*args, **kwargs):
        direction, change, terms = cg(*args, **kwargs)
        if terms is not None and id(terms) in landed:
            gradients.append("fresh_gradient_terms" if landed[id(terms)] else "gradient_terms")
        return direction, change, terms

    monkeypatch.setattr(PerturbedObjective, "step_pass", passed)
    monkeypatch.setattr(linear, "preconditioned_cg", solved)
    gamma = 1e-10 * X.shape[0]
    w, info = linear.newton(objective, gradient_tolerance=gamma)
    assert info.status == "converged"
    assert len(gradients) == info.iterations and gradients[-1] == "fresh_gradient_terms"
    # a dense X's steps took the fused read; a sparse X's only where a step can end the solve, on fresh margins
    assert bool(landed) if kind != "sparse" else all(landed.values())
    assert info.gradient_norm == _objective(kind, X, y, None).residual(w).absolute * X.shape[0]


def test_a_cg_step_is_held_to_the_target_only_when_the_observed_quadratic_term_lets_it_end():
    """The step that can end the solve takes CG to the target's floor; whether it can is judged by the last full
    step's observed constant r_k / r_(k-1)^2 (at least 1). The numbers are those of a 20,000 x 1,000 fit: from
    r = 1.16e-3 a full step reached 1.26e-5 (constant 9.4), so the next step's quadratic term is about
    9.4 r^2 = 1.5e-9, above a target that the assumed constant 1 (r^2 = 1.6e-10) would have met."""
    floor = linear.CG_TARGET_FRACTION * 1.45e-5  # the target's share: floor / fraction = target n / ||g||
    observed = linear._quadratic(1.26e-5, 1.16e-3, True, 1.0)
    assert observed == pytest.approx(1.26e-5 / 1.16e-3**2)
    assert linear._can_end(1.26e-5, floor, 1.0) and not linear._can_end(1.26e-5, floor, observed)
    assert linear._forcing(1.26e-5, floor, 1.0) == floor
    assert linear._forcing(1.26e-5, floor, observed) == pytest.approx(np.sqrt(1.26e-5))
    # a constant below 1 is taken as 1; a damped step, or no step yet, keeps the last one
    assert linear._quadratic(1e-3, 1e-1, True, 7.0) == 1.0
    assert linear._quadratic(1e-3, 1e-2, False, 7.0) == 7.0
    assert linear._quadratic(1e-3, np.inf, True, 1.0) == 1.0


@pytest.mark.parametrize("kind", ["row-blocks", "memmap"])
def test_the_loss_at_zero_margins_is_two_evaluations_and_bitwise_the_n_evaluations(rows_in_ball, kind, tmp_path):
    """At w = 0 the margins y * 0 are +0 or -0: F and its gradient there take l and l' at the two signed zeros,
    not at n rows, and equal to the bit what n evaluations give (the same margins as a copy, which is not
    recognised as the zero margins, are evaluated row by row)."""
    X, y = rows_in_ball(5_000, 7, seed=11)
    objective = _objective(kind, X, y, tmp_path)
    evaluated: list[tuple[str, int]] = []

    def counted(name: str):
        function = getattr(objective.loss, name)
        return lambda z: evaluated.append((name, np.size(z))) or function(z)

    objective.loss = dataclasses.replace(objective.loss, value=counted("value"), first=counted("first"))
    w = np.zeros(X.shape[1])
    zero = objective.margins(w)
    assert set(np.unique(zero)) == {0.0} and np.any(np.signbit(zero)) and not np.all(np.signbit(zero))
    value, terms = objective.value(w, zero), objective.gradient_terms(w, zero)
    assert sorted(evaluated) == [("first", 2), ("value", 2)]
    evaluated.clear()
    copy = np.array(zero)  # a memmap's recomputed margins (RowMargins) as their values
    assert objective.value(w, copy) == value
    assert np.array_equal(objective.gradient_terms(w, copy)[0], terms[0])
    assert sum(size for _, size in evaluated) == 2 * X.shape[0]


def test_a_subsampled_factor_serves_again_while_its_steps_contract_fast(rows_in_ball, monkeypatch):
    """Rows well inside the bound: the regularizer dominates the Hessian, a subsampled step cuts the residual more
    than REUSE_CONTRACTION-fold, and from HESSIAN_FREE_MIN_DIM columns its factor serves again while each step cuts it
    SAMPLED_REUSE_CONTRACTION-fold: no all-rows Hessian, the same certified minimiser."""
    rng = np.random.default_rng(12)
    X = rng.normal(size=(20_000, 100))
    X *= 0.1 / np.linalg.norm(X, axis=1)[:, None]  # every row at a tenth of the bound, as the family's "inside"
    y = np.where(rng.random(X.shape[0]) < expit(3 * X @ rng.normal(size=100)), 1.0, -1.0)
    lam, gamma = 1e-3, 1e-9 * X.shape[0]

    def solve() -> tuple[np.ndarray, list[bool]]:
        objective = _objective("row-blocks", X, y, None)
        objective.lam = lam
        subsampled: list[bool] = []
        hessian = objective.hessian
        objective.hessian = lambda *a, **k: subsampled.append(bool(k.get("subsample"))) or hessian(*a, **k)
        w, info = linear.newton(objective, gradient_tolerance=gamma)
        assert info.status == "converged"
        assert np.linalg.norm(X.T @ (-y * expit(-y * (X @ w))) + X.shape[0] * lam * w) <= gamma  # independently
        return w, subsampled

    w, subsampled = solve()
    assert subsampled == [True]  # one subsampled Hessian, its factor reused to the end
    # the check has teeth: without the reuse, an all-rows Hessian follows the subsampled step
    monkeypatch.setattr(linear, "SAMPLED_REUSE_CONTRACTION", np.inf)
    monkeypatch.setattr(linear, "REUSE_CONTRACTION", np.inf)
    w_all, subsampled_all = solve()
    assert False in subsampled_all
    # both within the bound of the one minimiser: ||w - w*|| <= ||grad F(w)|| / (n Lam) (strong convexity)
    assert np.linalg.norm(w - w_all) <= 2 * gamma / (X.shape[0] * lam)
