"""The training-rows check's counts (NOT PRIVATE) read from the solver's margins (dpcvx.models.fit_plan._confusion):
the same counts as a pass over the rows, each row predicted +1 exactly where x_i . w > 0, on adversarial rows near
the decision boundary and on every fit path."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sparse

import dpcvx
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap
from dpcvx.models import fit_plan, training_rows


def _exact_counts(X, w, labels, cut=0.0):
    """The counts of the exact sides of x_i . w against ``cut`` (rational arithmetic, row by row)."""
    dense = X.toarray() if sparse.issparse(X) else np.asarray(X)
    positive = [sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(row, w, strict=True)), Fraction(0))
                > Fraction(cut) for row in dense]
    return training_rows.sign_confusion(np.array(positive), labels)


def _recorded(monkeypatch, owner, name, record):
    """Wrap ``owner.name`` so that each call appends ``record(*its arguments)`` to the list returned."""
    seen, original = [], getattr(owner, name)

    def wrapper(*args):
        seen.append(record(*args))
        return original(*args)

    monkeypatch.setattr(owner, name, wrapper)
    return seen


def _adversarial(seed, n=400, d=60):
    """Rows of norm <= 1 with x . w exactly 0 (a row and its image under a swap of two equal weights), within
    rounding and 1e-300 of 0 either side, zero rows (a fiftieth of the rows each), and ordinary rows; w and a
    solver's point w~ near it, whose margins are 0 on every fiftieth row: under a tenth undecided."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    w[1] = w[0]
    X = rng.normal(size=(n, d))
    k = n // 50
    X[:k, 2:] = 0.0
    X[:k, 1] = -X[:k, 0]  # x . w = w0 (x0 - x0) = 0 exactly, whatever fl says
    X[k: 2 * k] = 0.0
    tiny = X[2 * k: 3 * k]
    tiny -= np.outer(tiny @ w / (w @ w), w)  # x . w within rounding of 0: the sign is a rounding artefact
    tiny[::2, 0] += rng.choice([-1, 1], size=tiny[::2].shape[0]) * 1e-300
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    labels = rng.choice([-1.0, 1.0], size=n)
    solved = w + rng.normal(size=d) * 1e-5
    margins = labels * (X @ solved)
    margins[::50] = 0.0  # the solver's margins exactly 0 on some rows
    return X, w, labels, solved, margins


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_the_signs_are_exact_whatever_the_layout(seed):
    X, w, labels, _, _ = _adversarial(seed)
    expected = _exact_counts(X, w, labels)
    for rows in (X, np.asfortranarray(X), sparse.csr_matrix(X)):
        np.testing.assert_array_equal(fit_plan._confusion(rows, w, labels, None, 1.0), expected)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_the_margins_give_the_counts_of_a_pass(seed, tmp_path):
    X, w, labels, solved, margins = _adversarial(seed)
    expected = _exact_counts(X, w, labels)
    bound = 1.0
    for rows in (X, np.asfortranarray(X), sparse.csr_matrix(X)):
        decided = fit_plan._decided(rows, w, labels, fit_plan._Solved(solved, margins), bound)
        assert decided is not None  # most rows are decided by their margins: the gather path ran
        np.testing.assert_array_equal(fit_plan._confusion(rows, w, labels, fit_plan._Solved(solved, margins), bound),
                                      expected)
    stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
    stored[:] = X
    stored.flush()
    source = np.load(tmp_path / "X.npy", mmap_mode="r")
    blocks = RowBlocks(source, RowMap(norm_bound=1.0), block_rows=64).trusted(0)
    assert blocks.checked
    np.testing.assert_array_equal(fit_plan._confusion(blocks, w, labels, fit_plan._Solved(solved, margins), bound),
                                  expected)
    np.testing.assert_array_equal(fit_plan._confusion(blocks, w, labels, None, bound), expected)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_a_callers_cut_is_counted_exactly(seed):
    """At a caller's cut c (an estimator's threshold): rows with x . w = c exactly (one entry 1/2, c = w_0 / 2),
    within 1e-300 of it either side, and ordinary rows; from the solver's margins and from a pass, each row on
    its exact side of c."""
    X, w, labels, solved, margins = _adversarial(seed)
    cut = 0.5 * float(w[0])
    X[-40:] = 0.0
    X[-40:, 0] = 0.5  # x . w = w_0 / 2 = c exactly
    X[-40::2, 2] = 1e-300  # within 1e-300 of c, either side
    margins = labels * (X @ solved)
    for c in (cut, -0.3, 1.7):
        expected = _exact_counts(X, w, labels, c)
        for rows in (X, np.asfortranarray(X), sparse.csr_matrix(X)):
            np.testing.assert_array_equal(fit_plan._confusion(rows, w, labels, None, 1.0, c), expected)
            np.testing.assert_array_equal(
                fit_plan._confusion(rows, w, labels, fit_plan._Solved(solved, margins), 1.0, c), expected)
        assert fit_plan._decided(X, w, labels, fit_plan._Solved(solved, margins), 1.0, c) is not None
    # a rule that read the margins' sign at a nonzero cut would miscount these rows
    assert not np.array_equal(_exact_counts(X, w, labels, cut), _exact_counts(X, w, labels))


def test_undecided_rows_are_gathered_a_cache_block_at_a_time(monkeypatch, tmp_path):
    """The rows the margins leave undecided (up to a tenth of X) are read a cache block at a time, never as one
    copy: on a memmap a tenth of the file as a copy grew the fit's anonymous memory past a tenth of the file
    (benchmarks/results/input_memory.md). The counts are those of a pass."""
    X, w, labels, solved, margins = _adversarial(0)
    stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
    stored[:] = X
    stored.flush()
    blocks = RowBlocks(np.load(tmp_path / "X.npy", mmap_mode="r"), RowMap(norm_bound=1.0), block_rows=64).trusted(0)
    monkeypatch.setattr(fit_plan, "cache_block_rows", lambda width: 7)
    taken = _recorded(monkeypatch, RowBlocks, "take", lambda self, rows: len(rows))
    counts = fit_plan._confusion(blocks, w, labels, fit_plan._Solved(solved, margins), 1.0)
    np.testing.assert_array_equal(counts, _exact_counts(X, w, labels))
    assert len(taken) > 1 and max(taken) <= 7


def test_margins_far_from_the_release_fall_back_to_a_pass():
    X, w, labels, _, _ = _adversarial(0)
    far = w + 10.0  # the noise of output perturbation: every margin undecided
    solved = fit_plan._Solved(far, labels * (X @ far))
    assert fit_plan._decided(X, w, labels, solved, 1.0) is None
    np.testing.assert_array_equal(fit_plan._confusion(X, w, labels, solved, 1.0), _exact_counts(X, w, labels))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_the_release_noise_margins_decide_the_rows(seed):
    """A release far from the solver's point (w = w~ + u, rounded to a grid: output perturbation's noise) with
    the margins of u that the solve's first pass computes: the rows are decided as if by the point itself, and the
    counts are the exact ones (a rule that left u's margins out would miscount; one that kept ||w - w~|| in its
    threshold would decide no row)."""
    X, w, labels, _, _ = _adversarial(seed)
    rng = np.random.default_rng(seed + 10)
    solved = w - rng.normal(size=w.size)  # ||u|| about 8: without u's margins every row is undecided
    offset = w - solved + rng.normal(size=w.size) * 1e-12  # released - w~ up to a grid's rounding
    margins, moved = labels * (X @ solved), labels * (X @ offset)
    assert fit_plan._decided(X, w, labels, fit_plan._Solved(solved, margins), 1.0) is None
    with_offset = fit_plan._Solved(solved, margins, offset, moved)
    decided = fit_plan._decided(X, w, labels, with_offset, 1.0)
    assert decided is not None
    expected = _exact_counts(X, w, labels)
    for rows in (X, np.asfortranarray(X), sparse.csr_matrix(X)):
        np.testing.assert_array_equal(fit_plan._confusion(rows, w, labels, with_offset, 1.0), expected)


def _fitted_counts(monkeypatch, X, labels, **options):
    """(the counts the check read, the counts of a pass over the mapped rows) of one fit."""
    seen, passes = [], []
    original = fit_plan._confusion

    def spy(mapped, w, y, solved, bound, cut=0.0):
        seen.append(original(mapped, w, y, solved, bound, cut))
        passes.append(original(mapped, w, y, None, bound, cut))
        return seen[-1]

    monkeypatch.setattr(fit_plan, "_confusion", spy)
    mechanism = options.pop("mechanism", "objective")
    model = dpcvx.PrivateERM(dpcvx.losses.logistic(), data_norm=1.0, **options).fit(
        X, labels, epsilon=1.0, mechanism=mechanism, random_state=3)
    [counts], [passed] = seen, passes
    return model, counts, passed


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("intercept", [False, True])
def test_every_fit_path_counts_as_a_pass(monkeypatch, tmp_path, mechanism, intercept):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3000, 6))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    X[:200] = 0.0  # zero rows: decision exactly 0, predicted -1
    labels = np.where(X @ rng.normal(size=6) + 0.3 * rng.normal(size=3000) > 0, 1.0, -1.0)
    stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
    stored[:] = X
    stored.flush()
    inputs = [X, sparse.csr_matrix(X), np.load(tmp_path / "X.npy", mmap_mode="r")]
    try:
        import dask.array as da
        inputs.append(da.from_array(X, chunks=(700, 6)))
    except ImportError:
        pass
    for rows in inputs:
        model, counts, passed = _fitted_counts(monkeypatch, rows, labels, lam=1e-3, fit_intercept=intercept,
                                               mechanism=mechanism)
        np.testing.assert_array_equal(counts, passed)
        expected = training_rows.confusion(model.predict(X), labels, np.array([-1.0, 1.0]))
        np.testing.assert_array_equal(counts, expected)
        assert model.certificate is not None


@pytest.mark.parametrize("layout", ["array", "csr", "wide"])
def test_the_learner_keeps_no_margins(monkeypatch, layout):
    """The solve's margins and the release noise's margins reach the check (rows by blocks, a CSR's first
    product, beyond 400 columns CG's first Hessian product by blocks), and the learner keeps neither."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, 420 if layout == "wide" else 4)) / 3
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    labels = np.where(X[:, 0] > 0, 1.0, -1.0)
    X = sparse.csr_matrix(X) if layout == "csr" else X
    learner = dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1e-2, data_norm=1.0)
    kept = []
    original = fit_plan._confusion
    monkeypatch.setattr(fit_plan, "_confusion", lambda *args: kept.append(args[3]) or original(*args))
    learner.fit(X, labels, epsilon=1.0, random_state=0)
    assert kept[0] is not None and kept[0].margins.shape == (500,)  # Newton's margins reached the check
    assert kept[0].offset_margins is not None and kept[0].offset_margins.shape == (500,)  # and the noise's
    assert learner.diagnostics_.final_margins is None and learner.diagnostics_.offset_margins is None
    assert "final_margins" not in learner.diagnostics_.to_dict()
    assert "offset_margins" not in learner.diagnostics_.to_dict()
    learner.fit_nonprivate(X, labels)  # the baseline's record too: no n-vector of the data kept
    assert learner.diagnostics_.converged and learner.diagnostics_.final_margins is None


@pytest.mark.parametrize("layout", ["array", "csr"])
@pytest.mark.parametrize("cut", [0.0, -0.25, 0.25])
def test_rows_of_zero_terms_are_decided_without_rational_arithmetic(monkeypatch, cut, layout):
    """Zero rows, rows whose entries meet only w's zeros and explicitly stored zeros sum to 0 exactly: 0 > cut, with
    no rational; only the near rows with a nonzero term x_j w_j reach rational arithmetic, and every side is the exact
    one (a per-row rational sum over 3,000 zero rows took 80 % of a 10,000 x 20 fit)."""
    rng = np.random.default_rng(11)
    w = rng.normal(size=8)
    w[[2, 5]] = 0.0
    w[1] = w[0]
    X = rng.normal(size=(60, 8)) / 4
    X[:20] = 0.0  # zero rows
    X[20:30] = 0.0
    X[20:30, [2, 5]] = rng.normal(size=(10, 2))  # entries only where w is 0
    X[30:35] = 0.0
    X[30:35, :2] = [[0.5, -0.5]] * 5  # exact cancellation: nonzero terms summing to 0
    rows = sparse.csr_matrix(X)
    rows.data[rows.indptr[40]] = 0.0  # an explicitly stored zero in an ordinary row
    dense = rows.toarray()
    expected = [sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(row, w, strict=True)), Fraction(0))
                > Fraction(cut) for row in dense]
    built = []

    class Counted(Fraction):
        def __new__(cls, *args):
            built.append(args)
            return Fraction(*args)

    monkeypatch.setattr(fit_plan, "Fraction", Counted)
    positive = fit_plan._positive(rows if layout == "csr" else dense, w, 1.0, cut)
    np.testing.assert_array_equal(positive, expected)
    # at cut 0, rows 30 to 34 alone, their two entries each: two rationals an entry, one zero a row, and the cut's
    # once; every other cut is far from all the rows' x . w (0 or ordinary)
    assert len(built) == (2 * 2 * 5 + 5 + 1 if cut == 0 else 0)


@pytest.mark.slow  # about 5 s
def test_a_csr_s_near_and_undecided_rows_are_gathered_at_once(monkeypatch):
    """A cache block of a wide CSR's rows is a few hundred: gathered block by block, three tenths of the rows empty
    (near the cut) took 90 ms of a 0.22 s fit at 200,000 x 10,000. A CSR's near rows (in a pass) and undecided rows
    (from the margins) are each gathered once, the sides the exact ones (a twentieth of the rows empty here)."""
    rng = np.random.default_rng(8)
    X = sparse.random(2000, 200, density=0.05, format="csr", random_state=3)
    X = sparse.csr_matrix(sparse.diags((rng.random(2000) >= 0.05).astype(float)) @ X)
    X.eliminate_zeros()
    X = sparse.csr_matrix(sparse.diags(1.0 / np.maximum(1.0, np.sqrt(X.multiply(X).sum(axis=1).A.ravel()))) @ X)
    w = rng.normal(size=200)
    labels = rng.choice([-1.0, 1.0], size=2000)
    monkeypatch.setattr(fit_plan, "cache_block_rows", lambda width: 7)
    gathers = _recorded(monkeypatch, fit_plan, "take_rows", lambda rows, part: len(part))
    expected = _exact_counts(X, w, labels)
    np.testing.assert_array_equal(fit_plan._confusion(X, w, labels, None, 1.0), expected)
    assert len(gathers) == 1 and gathers[0] >= 60  # the empty rows, near the cut, in one gather
    positives = _recorded(monkeypatch, fit_plan, "_positive", lambda rows, *rest: rows.shape[0])
    margins = labels * (X @ w)
    undecided = rng.choice(2000, size=60, replace=False)
    margins[undecided] = 0.0  # with the empty rows under a tenth of the rows left to X: one gather of them
    counts = fit_plan._confusion(X, w, labels, fit_plan._Solved(w, margins), 1.0)
    np.testing.assert_array_equal(counts, expected)
    assert positives == [np.unique(np.concatenate([undecided, np.flatnonzero(margins == 0)])).size]
