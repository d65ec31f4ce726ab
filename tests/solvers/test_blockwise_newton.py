"""Row-major dense X is solved by row blocks (fused passes, preconditioned CG): the same certified minimiser.

Each new path is checked against an independent computation: the gradient of
F(w) = sum_i log(1 + exp(-y_i w^T x_i)) + n Lam ||w||^2 / 2 written here with
numpy, at the returned weights, must be within the public bound gamma; and the
weights must match scipy's L-BFGS-B run to a far tighter tolerance, and the
column-major input (the path that reads X by BLAS directly).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

import dpcvx
import dpcvx.solvers.choice as choice_module
import dpcvx.solvers.linear as linear
from dpcvx import losses

LAM = 1e-3


def _gradient(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """grad F, independently of dpcvx: -sum_i y_i sigma(-y_i w^T x_i) x_i + n Lam w."""
    return -X.T @ (y * expit(-y * (X @ w))) + X.shape[0] * LAM * w


def _reference(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = X.shape[0]

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        return float(np.sum(np.logaddexp(0.0, -y * (X @ w))) + 0.5 * n * LAM * w @ w), _gradient(X, y, w)

    result = minimize(objective, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                      options={"gtol": 1e-12, "ftol": 1e-16, "maxiter": 10_000})
    return np.asarray(result.x)


@pytest.mark.parametrize(("n", "d", "dense_limit", "solver"), [
    (12_000, 20, 400, "newton"),       # all-rows Hessians by syrk on the blocks
    (12_000, 120, 400, "newton-cg"),   # one all-rows Hessian, then CG preconditioned by its factor
    (12_000, 30, 10, "newton-cg"),     # beyond the dense limit: CG on H v from the start, no Hessian formed
], ids=["hessian", "stale-factor-cg", "plain-cg"])
def test_row_blocks_reach_the_certified_minimiser(rows_in_ball, n, d, dense_limit, solver, monkeypatch):
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", dense_limit)
    X, y = rows_in_ball(n, d, seed=d)
    erm = dpcvx.PrivateERM(losses.logistic(), lam=LAM, data_norm=1.0)
    model = erm.fit_nonprivate(X, y)
    info = erm.diagnostics_
    assert info.solver == solver and info.status == "converged"
    gamma = info.gradient_tolerance
    w = model.coef_
    # certified: the independent gradient is within the public bound gamma
    assert np.linalg.norm(_gradient(X, y, w)) <= gamma
    # and the check has teeth: a point 1e-6 away (relative) is outside it
    assert np.linalg.norm(_gradient(X, y, w * (1 + 1e-6))) > gamma
    np.testing.assert_allclose(w, _reference(X, y), rtol=1e-6, atol=1e-8)
    column_major = erm.fit_nonprivate(np.asfortranarray(X), y).coef_
    np.testing.assert_allclose(w, column_major, rtol=1e-8, atol=1e-10)


def _blocks_newton_reads(monkeypatch) -> list:
    """The list to which each Newton solve of the solver choice appends the array its row blocks read."""
    seen = []
    original = linear.newton

    def recording(objective, **kwargs):
        seen.append(objective.blocks.source)
        return original(objective, **kwargs)

    monkeypatch.setattr(choice_module, "newton", recording)  # the solver choice calls Newton
    return seen


def test_row_major_input_is_not_copied(rows_in_ball, monkeypatch):
    """A row-major float64 X is read where it lies: no column-major copy is made for the solver."""
    X, y = rows_in_ball(5_000, 10, seed=1)
    before = X.copy()
    seen = _blocks_newton_reads(monkeypatch)
    dpcvx.PrivateERM(losses.logistic(), lam=LAM, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    assert len(seen) == 1 and seen[0] is X
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("layout", ["C", "F"])
def test_the_intercept_column_is_read_by_row_blocks(rows_in_ball, monkeypatch, layout):
    """With an intercept column (every estimator's default) the mapped rows are one row-major copy, which Newton
    reads by row blocks as it reads a row-major X (issue 44: the column-major copy was solved by whole-matrix
    products), whatever the caller's layout; the caller's X is left as it was."""
    X, y = rows_in_ball(5_000, 10, seed=2)
    X = np.asfortranarray(X) if layout == "F" else X
    before = X.copy()
    seen = _blocks_newton_reads(monkeypatch)
    erm = dpcvx.PrivateERM(losses.logistic(), lam=LAM, data_norm=1.0, fit_intercept=True)
    erm.fit(X, y, epsilon=1.0, random_state=0)
    assert len(seen) == 1 and seen[0].flags.c_contiguous and seen[0].shape == (5_000, 11)
    np.testing.assert_array_equal(seen[0][:, :-1], X)  # rows inside R copied as they are
    assert np.all(seen[0][:, -1] == 1.0) and erm.diagnostics_.passes is not None
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("single", [True, False])
def test_an_all_rows_hessian_scales_its_blocks_into_one_buffer_bitwise_as_into_new_arrays(single):
    """blockwise._weighted_gram with a scratch list: the same block terms to the bit (a shorter last block
    included), one buffer allocated for the taller blocks and reused for the shorter one."""
    from dpcvx.solvers.blockwise import _weighted_gram

    rng = np.random.default_rng(3)
    X = rng.normal(size=(2_500, 30)) / 6
    z = rng.normal(size=2_500)
    def second(v: np.ndarray) -> np.ndarray:  # the logistic loss's l''
        return expit(v) * expit(-v)

    scratch: list[np.ndarray] = []
    buffers = set()
    for rows in (slice(0, 1_000), slice(1_000, 2_000), slice(2_000, 2_500)):
        fresh = _weighted_gram(X[rows], z[rows], None, single, second)
        reused = _weighted_gram(X[rows], z[rows], None, single, second, scratch=scratch)
        assert fresh.dtype == reused.dtype == (np.float32 if single else np.float64)
        assert np.array_equal(np.triu(fresh), np.triu(reused))
        buffers.add(id(scratch[0]))
    assert len(buffers) == 1 and scratch[0].shape == (1_000, 30)



def test_a_memmaps_hessian_subsample_is_read_again_by_blocks_and_equals_the_one_held_for_rows_in_memory(tmp_path):
    """The subsampled Hessian of a memmap (its rows read again by cache blocks, no copy of the sample held) and
    that of the same rows in memory (their float32 copy kept, one Gram product) are both within float32 rounding
    of (n / m) sum over the sampled rows of l''(z_i) x_i x_i^T + n Lam I."""
    from dpcvx.data.blocks import RowBlocks
    from dpcvx.data.rows import RowMap
    from dpcvx.solvers.blockwise import BlockwiseObjective
    from dpcvx.solvers.objective import hessian_sample_size
    from dpcvx.verification.verifier import verify_loss, verify_regularizer

    rng = np.random.default_rng(5)
    n, d = 60_000, 120  # 50 d = 6,000 sampled rows: three cache blocks of 2,184 rows, the last one short
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1)[:, None]
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    np.save(tmp_path / "X.npy", X)
    memmap = np.load(tmp_path / "X.npy", mmap_mode="r")
    w = rng.normal(size=d)
    args = (y, verify_loss(losses.logistic()).derivatives, verify_regularizer(None, d).analysis.quadratic, LAM,
            np.zeros(d))
    hessians = []
    for source in (X, memmap):
        objective = BlockwiseObjective(X[:0], *args, blocks=RowBlocks.views(source, RowMap(norm_bound=1.0)))
        hessians.append(np.triu(objective.hessian(w, subsample=True, single=True)))
    m = hessian_sample_size(n, d)
    rows = np.linspace(0, n - 1, m).astype(np.intp)
    z = y[rows] * (X[rows] @ w)
    exact = (n / m) * (X[rows].T * (expit(z) * expit(-z))) @ X[rows] + n * LAM * np.eye(d)
    for hessian in hessians:
        np.testing.assert_allclose(hessian, np.triu(exact), rtol=0, atol=1e-5 * np.abs(exact).max())
    assert not np.array_equal(hessians[0], hessians[1])  # the memmap's by blocks: another order of float32 sums


def _row_blocks_objective(X: np.ndarray, y: np.ndarray, source: np.ndarray | None = None, block_rows: int = 0):
    """The logistic objective on X's row blocks: cache-sized views of X, or ``block_rows``-row blocks read from
    ``source`` (a memmap of X)."""
    from dpcvx.data.blocks import RowBlocks
    from dpcvx.data.rows import RowMap
    from dpcvx.solvers.blockwise import BlockwiseObjective
    from dpcvx.verification.verifier import verify_loss, verify_regularizer

    d = X.shape[1]
    rows = RowMap(norm_bound=1.0)
    blocks = RowBlocks.views(X, rows) if source is None else RowBlocks(source, rows, block_rows=block_rows)
    return BlockwiseObjective(X[:0], y, verify_loss(losses.logistic()).derivatives,
                              verify_regularizer(None, d).analysis.quadratic, LAM, np.zeros(d), blocks=blocks)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["row-blocks", "memmap"])
def test_a_hessian_formed_ahead_by_the_step_pass_is_bitwise_its_own_pass_and_reads_nothing(rows_in_ball, kind,
                                                                                          tmp_path):
    """hessian_ahead: the step's pass forms the float32 all-rows Hessian at its full step from its cache blocks
    (25,000 x 200: 19 views of 1,310 rows and a short one, into SYRK_BLOCKS = 8 of them a Gram product; or a
    memmap's 700-row blocks, one product each), which ``hessian`` at those margins then returns with no pass of
    its own: bitwise the Hessian its own pass computes there. Asked for one pass only; at other margins, or in
    double precision, ``hessian`` reads X as before."""
    X, y = rows_in_ball(25_000, 200, seed=6)
    source = None
    if kind == "memmap":
        np.save(tmp_path / "X.npy", X)
        source = np.load(tmp_path / "X.npy", mmap_mode="r")
    rng = np.random.default_rng(7)
    w, direction = rng.normal(size=200), 0.1 * rng.normal(size=200)
    ahead, own = (_row_blocks_objective(X, y, source, block_rows=700) for _ in range(2))
    for objective in (ahead, own):
        objective.gradient_terms(w)
    ahead.hessian_ahead = True
    ahead.margin_change(direction)
    assert not ahead.hessian_ahead  # for that pass only
    own.margin_change(direction)
    full = ahead.full_step_margins()
    assert full is not None and np.array_equal(full, own.full_step_margins())
    passes = ahead.passes
    formed = ahead.hessian(w + direction, full, single=True)
    assert ahead.passes == passes  # no read of X
    read = own.hessian(w + direction, own.full_step_margins(), single=True)
    assert own.passes == passes + 1
    assert np.array_equal(np.triu(formed), np.triu(read))
    ahead.hessian(w + direction, full, single=False)  # double precision: its own pass
    ahead.hessian(w, ahead.margins(w), single=True)  # other margins: a pass for the margins, one for the Hessian
    assert ahead.passes == passes + 3
    ahead.margin_change(direction)  # not asked again: formed no more
    assert ahead._ahead is None


def test_newton_forms_the_first_all_rows_hessian_in_the_step_pass_before_it(rows_in_ball, monkeypatch):
    """At 40,000 x 20 Newton takes subsampled directions, then one all-rows Hessian near the optimum: the step's
    pass before it forms it ahead (linear._hessian_ahead), one read of X fewer, and the solve is the same to
    the bit (the same Hessian, directions and steps) as with the Hessian read by its own pass."""
    X, y = rows_in_ball(40_000, 20, seed=8)
    gamma = 1e-10 * X.shape[0]
    w, info = linear.newton(_row_blocks_objective(X, y), gradient_tolerance=gamma)
    monkeypatch.setattr(linear, "_hessian_ahead", lambda *args: False)
    w_own, info_own = linear.newton(_row_blocks_objective(X, y), gradient_tolerance=gamma)
    assert info.status == info_own.status == "converged"
    assert np.array_equal(w, w_own) and info.gradient_norm == info_own.gradient_norm
    assert info.iterations == info_own.iterations and info.passes == info_own.passes - 1
    np.testing.assert_array_less(np.linalg.norm(_gradient(X, y, w)), gamma)
