"""A two-piece loss whose kink no margin can reach (public constants: C R_phi < |z_k|) is solved in closed form, with
no shifted system: its KernelERM holds the Gram matrix alone, not the n x n workspace of the Cholesky solves, so it
fits in half the memory; a loss solved by Newton or the interior point keeps its workspace, allocated before any
charge."""

import tracemalloc

import numpy as np

from dpcvx.data.kernels import RBFKernel
from dpcvx.solvers.kernel import KernelERM
from dpcvx.verification.kernel_loss import resolve_loss

N = 300
GRAM_BYTES = 8 * N * N


def _built(loss, lam):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    kernel, resolved = RBFKernel(1.0), resolve_loss(loss)
    tracemalloc.start()
    try:
        erm = KernelERM(X, y, kernel=kernel, loss=resolved, lam=lam, solve=False)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return erm, held


def test_the_closed_form_holds_no_workspace():
    erm, held = _built("hinge", 1e4)  # C R_phi < 1 = |z_k|: every margin on one piece
    assert held < 1.5 * GRAM_BYTES, held
    erm.solve()
    assert erm.report is not None and erm.report.method == "dual closed form"
    assert erm.report.distance_bound <= erm.report.tolerance


def test_newton_and_the_interior_point_keep_theirs():
    for loss, lam in (("logistic", 1e-2), ("hinge", 1e-2)):
        erm, held = _built(loss, lam)
        assert held >= 2 * GRAM_BYTES, (loss, held)
        erm.solve()
        assert erm.report is not None and erm.report.method != "dual closed form"
