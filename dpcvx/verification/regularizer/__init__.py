"""A calculus over the CVXPY tree of a regularizer N(w).

Strong convexity. N is split into terms; every recognised quadratic term
contributes its constant Hessian, every other convex term contributes 0 (its
Hessian is PSD). The modulus is a PROVED lower bound of lambda_min of the
sum, derived from the structure of the expression, never from a dense
eigendecomposition of a d x d matrix the user did not write:

* Affine maps ``A w + b`` inside the squares are tracked structurally: a
  scaled identity ``s w`` (s exact), a coordinate map (``multiply(a, w)``,
  ``w[1:]``, ``w / a``: row r reads one coordinate with coefficient a_r,
  together with a rigorous bound on the rounding of a_r), or a dense matrix
  (``A @ w``: the user's matrix; products carry a Frobenius error bound).
  A constant counts as a scalar only when it has ONE entry: an all-equal
  matrix ``c * ones((d, d))`` is a rank-one matrix, not ``c I``.
* Squares on coordinate maps (``sum_squares``, ``sum(square)``,
  ``sum(multiply(a, square(.)))``, ``a @ square(.)``, ``norm(.)**2``,
  ``quad_over_lin(., y)``, ``quad_form`` with a diagonal P) give a diagonal
  Hessian: the scaled-identity part is an exact rational (Fraction), and the minimum of
  the diagonal is computed exactly (rational arithmetic, at the few candidate coordinates
  that floating point cannot separate) when every coefficient is exact, else
  rounded down with a rigorous error bound. The convention is the Hessian's:
  ``0.5 ||w||^2`` has m = 1, ``sum(multiply(a, square(w)))`` has m = 2 min(a).
* Dense terms (``sum_squares(A @ w)``, ``quad_form(x, P)`` with a dense P)
  are bounded one by one from the user's matrices: ``2 sigma_min(A)^2`` for a
  tall or square A (0 for a wide one, whose Gram matrix is singular) by an
  SVD of A, ``lambda_min(P + P^T) s^2`` by eigvalsh of P, each minus a
  rigorous multiple of eps times a Frobenius norm. The sum of per-term lower
  bounds is a lower bound of the sum (Weyl). For d <= ``COMBINE_LIMIT`` the
  whole Hessian (which the Newton solver forms anyway) is also bounded at
  once, and the larger of the two proved bounds is kept.

Differentiability: a term is C^2 when every atom in it is smooth, C^1 when
the only non-smooth atom is ``huber``, and not differentiable when it contains
``abs``, ``max``, a norm (outside ``norm(.)**2``) or similar. Atoms not in the
table (:mod:`.atoms`) are "not established", never assumed smooth.

When N is quadratic, ``N(w) = 0.5 w^T (alpha I + diag(diagonal) + dense) w
+ linear^T w + const``; the fast solver uses that form (``Quadratic``).

* :mod:`.affine`: affine maps ``A w + b`` read off the CVXPY tree of a regularizer, with rigorous error bounds;
* :mod:`.analysis`: analyse_regularizer: what the calculus establishes for N(w) at one dimension;
* :mod:`.curvature`: the Hessian of the quadratic terms of N and a proved lower bound of its smallest eigenvalue;
* :mod:`.norms`: the non-smooth terms a proximal solver handles: a ||w||_1 and group norms b_g ||w_g||_2;
* :mod:`.quadratic`: the numeric quadratic N(w) = 0.5 w^T (alpha I + diag(diagonal) + dense) w + linear^T w;
* :mod:`.spectral`: proved bounds on the extreme eigenvalues and singular values of float matrices;
* :mod:`.terms`: the terms of N: its split into scaled terms, the quadratic ones, and each atom's smoothness.
"""

from .analysis import RegularizerAnalysis, analyse_regularizer
from .quadratic import Quadratic

__all__ = ["Quadratic", "RegularizerAnalysis", "analyse_regularizer"]
