"""A kernel fit that passes its checks completes after the charge: its certificate is not lost to the rounding of
n-term sums at large n, its memory is allocated before the charge, and a fit too large for memory is refused
before it (docs/theory.md, section 11, K2 "Certificates"; docs/kernels.md)."""

import math
import tracemalloc
import warnings

import numpy as np
import pytest

from dpcvx.exceptions import InputError, NoiseDominatesWarning
from dpcvx.models import kernel_learner
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.solvers import gram as gram_module
from dpcvx.solvers import kernel as kernel_module
from dpcvx.solvers.gram import DenseGram, FactoredGram, sum_by_blocks
from dpcvx.verification.kernel_loss import resolve_loss

EPS = np.finfo(float).eps


def circle(n, seed=0, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)


@pytest.mark.parametrize("n", [1, 2, 17, 100, 1000])
def test_sums_by_blocks_err_within_their_shorter_bound(n):
    rng = np.random.default_rng(n)
    matrix, vector = rng.normal(size=(3, n)) * 10.0 ** rng.integers(-3, 4, size=(3, n)), rng.normal(size=n)
    total, terms = sum_by_blocks(matrix, vector, along_rows=False)
    size = math.isqrt(n - 1) + 1
    assert terms == size + -(-n // size)
    for row, value in zip(matrix, total, strict=True):
        exact = math.fsum(float(a) * float(b) for a, b in zip(row, vector, strict=True))
        # products rounded too: within terms eps sum |a_j b_j| (first order) plus the exact sum's own rounding
        assert abs(value - exact) <= terms * EPS * float(np.sum(np.abs(row * vector))) + EPS * abs(exact)
    transposed, terms_t = sum_by_blocks(matrix.T, vector, along_rows=True)
    assert terms_t == terms and np.allclose(transposed, total, rtol=1e-12, atol=1e-12)


def test_both_gram_operators_multiply_by_blocks():
    rng = np.random.default_rng(3)
    factor = rng.normal(size=(400, 7))
    v = rng.normal(size=400)
    product, terms = FactoredGram(factor).by_blocks(v)
    assert terms == 20 + 20 + 7 and np.allclose(product, factor @ (factor.T @ v))
    product, terms = DenseGram(factor @ factor.T).by_blocks(v)
    assert terms == 40 and np.allclose(product, factor @ (factor.T @ v))


def test_the_hinge_certificate_uses_the_blocked_margins_when_the_n_term_pad_cannot_certify():
    """All rows on the kink (K = I, lam n < 1): the n-term margin pad of the duality gap, n eps ||beta||_1 per row,
    exceeds the tolerance's gap; the blocked margins' pad, (b + n / b) eps ||beta||_1, does not."""
    n, lam = 3000, 3e-4
    gram = DenseGram(np.eye(n))
    pieces = resolve_loss("hinge").pieces
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    u = np.full(n, -lam * n)  # at the minimiser z_i = -u_i / (lam n) = 1, the kink
    tolerance = 1e-3 * 2 / (lam * n)
    _, gap = kernel_module._fenchel_gap(gram, y, lam, pieces, u, 1.0)
    _, blocked = kernel_module._fenchel_gap(gram, y, lam, pieces, u, 1.0, by_blocks=True)
    assert math.sqrt(2 * gap / lam) > tolerance >= math.sqrt(2 * blocked / lam)
    assert blocked < gap * (55 + 55) / n * 1.01  # b + n / b = 110 terms instead of n
    assert kernel_module._certified_gap(gram, y, lam, pieces, u, 1.0, gap, tolerance) == blocked
    assert kernel_module._certified_gap(gram, y, lam, pieces, u, 1.0, blocked / 2, tolerance) == blocked / 2


def _peaks(monkeypatch, fit):
    """(the traced peak up to the charge, the traced peak after it) of ``fit``."""
    peaks = []
    charge = kernel_learner.PrivateKernelLearner._charge

    def recording(self, budget):
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.reset_peak()
        charge(self, budget)

    monkeypatch.setattr(kernel_learner.PrivateKernelLearner, "_charge", recording)
    monkeypatch.setattr(gram_module, "BLOCK_ENTRIES", 4096)  # the bound of a temporary block, small at this n
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoiseDominatesWarning)
            fit()
        peaks.append(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()
    return peaks


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
@pytest.mark.parametrize("learner", ["TDDL", "PINP"])
def test_the_whole_rkhs_solve_allocates_no_n_by_n_array_after_the_charge(monkeypatch, loss, learner):
    """The interior point's n x n buffer and the copy LAPACK took of the C-ordered system (the hinge), the Newton
    block's temporaries (logistic) were allocated after the charge: a peak of 4 n^2 doubles against 3 before it, so a
    fit whose checks fitted in memory could fail after spending its budget."""
    X, y = circle(400)
    if learner == "TDDL":
        def fit():
            TDDL("rbf", gamma=1.0, lam=1e-2, loss=loss, span="training").fit(X, y, 1.0, Z=X[:20], random_state=0)
    else:
        def fit():
            PINP("rbf", gamma=1.0, lam=1e-2, loss=loss, max_queries=5).fit(X, y, 1.0, random_state=0)
    before, after = _peaks(monkeypatch, fit)
    assert after <= before
    assert before < 3.5 * 8 * 400**2


def test_a_kernel_erm_too_large_for_memory_is_refused_before_the_charge(monkeypatch):
    X, y = circle(50)

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(gram_module, "_committed", no_memory)
    for span, match in [("training", r"two 50 x 50 arrays of doubles.*nothing was charged.*TDDL\(span='public'\)"),
                        ("public", r"three 50 x \d+ arrays of doubles.*nothing was charged.*a smaller public sample")]:
        accountant = PrivacyAccountant(10.0)
        with pytest.raises(InputError, match=match):
            TDDL("rbf", gamma=1.0, lam=1e-2, span=span).fit(X, y, 1.0, Z=X[:10], accountant=accountant)
        assert accountant.ledger == []


@pytest.mark.slow
@pytest.mark.parametrize(("loss", "lam"), [("hinge", 1e-2), ("logistic", 2e-6)])
def test_tddl_on_100000_rows_completes_after_the_charge(loss, lam):
    """TDDL on 100,000 rows (span 'auto': the public span) spent its budget, then raised SolverError: the
    certificate's n-term rounding pads exceeded the tolerance 2e-3 L R / (lam n) (the hinge's interior point ran its
    200 steps; Newton at lam = 1e-6). Newton at 2e-6: since the seventieth session lam = 1e-6 is refused before the
    charge at this n (its proved budget, 1.23e7 steps, is beyond the limit; the least lam is 1.23e-6)."""
    X, y = circle(100_000)
    Z, _ = circle(100, seed=1)
    accountant = PrivacyAccountant(10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        model = TDDL("rbf", gamma=1.0, lam=lam, loss=loss).fit(X, y, 1.0, Z=Z, random_state=0, accountant=accountant)
    assert model.certificate.calibration.minimiser_span == "public" and len(accountant.ledger) == 1
