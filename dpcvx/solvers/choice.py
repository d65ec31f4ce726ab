"""Which solver reaches the public gradient bound for a verified problem: the choice of a linear learner.

:class:`SolverChoice` holds the learner's public solver settings and picks the path:

* a memmap or Dask X: blockwise Newton over row blocks (:mod:`.blockwise`);
* a KST12 problem (a constraint set, an L1 or a group term): proximal Newton (:mod:`.proximal`),
  after CVXPY's solve with ``solver="cvxpy"``;
* a user's solver (a callable): its point is checked against gamma and covered, never polished;
* a translated C^1 loss with a quadratic regularizer: damped Newton (:mod:`.linear`) unless
  ``solver="cvxpy"``, on an in-memory X whose records repeat from the minimiser over its distinct records
  (:mod:`.distinct`); otherwise CVXPY's conic solve, polished by Newton when it stops early.

Every refusal (:meth:`SolverChoice.check`) depends on public settings and the verified problem
only, and runs before the accountant is charged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, NoReturn

import numpy as np

from ..data.blocks import RowBlocks, take_rows
from ..data.rows import Matrix, RowMap
from ..exceptions import InputError, UnsupportedWeightsError
from ..privacy import calibrate
from ..progress import progress
from ..validation import MODERATE_MAX, SignBits
from ..verification.problem import VerifiedProblem
from .blockwise import BlockwiseObjective
from .budget import DescentRate, descent_rate
from .distinct import Distinct, distinct_records
from .linear import DENSE_NEWTON_MAX_DIM, SolveInfo, newton, solve_with_cvxpy
from .objective import PerturbedObjective
from .proximal import CompositeTerm, proximal_newton

__all__ = ["SolverChoice", "SOLVERS", "exceeds_limit", "refuse_unsafeguarded"]

SOLVERS = ("auto", "fast", "cvxpy")
DEFAULT_MAX_ITER = 100  # the iteration limit of a path without a proved budget (a loss without a proved c)
DISTINCT_TOLERANCE = 0.1  # the distinct records' solve aims at this share of the public gradient bound
MAX_PROVED_ITERATIONS = 10**7  # beyond this budget gradient steps are no practical safeguard: the path is unproved


def exceeds_limit(least: int) -> bool:
    """Whether a least proved iteration budget is above ``MAX_PROVED_ITERATIONS`` (the path is then unproved: gradient
    steps are no practical safeguard; :meth:`SolverChoice.proved_budget`, and the lam rule's grid)."""
    return least > MAX_PROVED_ITERATIONS


def refuse_unsafeguarded(learner: str, reason: str) -> NoReturn:
    """Refuse, before the charge, alone and inside composite procedures alike, a fit whose solve path has a proved
    budget beyond ``MAX_PROVED_ITERATIONS`` or none (``reason`` says which, with the fix; the linear fits' rule is
    :func:`~dpcvx.models.failure.require_proved`, which refuses through it): a user's solver or a conic-only problem
    (no budget: a plain fit charged, then failed on one neighbour and released on the other), or Newton whose
    safeguard is no practical one
    beyond the limit (its gradient steps crawled at a residual of 0.28 for hundreds of steps on collinear rows at
    Lam 1e-10), and Newton without it failed after the charge on one neighbour and not the other (a Huber SVM at
    h 0.01, Lam 1e-6: docs/theory.md, section 7.1). lam='auto' never chooses such a Lam. Without a proved curvature
    c there is no safeguard at any Lam, and no proved fallback within the limit (section 7.1, "Not yet covered"):
    a plain fit ran Newton unsafeguarded to 100 steps after its charge, where tune refused it before. The linear
    path (:class:`~dpcvx.models.fit_plan.FitPlan`) and the kernel learners' Newton solve
    (:func:`~dpcvx.solvers.kernel.newton_step_limit`) refuse through it; :mod:`dpcvx.models.failure` states the rule."""
    raise InputError(
        f"{learner} {reason}. Without a practical proved budget the solve could fail after the charge on some data "
        "sets and not on others, an event no theorem covers (docs/theory.md, section 7.1). Nothing was charged")


def curvature_bound(problem: VerifiedProblem) -> float:
    """The verified c >= l'' for the solver's Jacobi decision (:attr:`PerturbedObjective.jacobi_pays`), or inf
    when the certificate establishes none (output perturbation fits such a loss: the diagonal is then always
    taken, as before the decision existed)."""
    return math.inf if problem.certificate.curvature is None else problem.curvature


def _newton_unproved(problem: VerifiedProblem) -> str:
    """Why Newton's path has no proved budget at any Lam (:meth:`SolverChoice.unproved_reason`), naming the constant
    :func:`~dpcvx.solvers.budget.descent_rate` lacks, with the fix (public: the certificate only).

    No fallback is proved within ``MAX_PROVED_ITERATIONS``: without c the safeguard's gradient step and its linear
    rate are gone, and a method that needs no c (the subgradient method) bounds only J's gap, O(1 / k), not the
    gradient norm the release's proof certifies (docs/theory.md, section 7.1, "Not yet covered")."""
    certificate = problem.certificate
    if certificate.lipschitz is None or not math.isfinite(problem.lipschitz):
        missing = "its loss's Lipschitz constant L is not proved finite"
    elif certificate.curvature is None or not math.isfinite(problem.curvature):
        missing = "its loss's curvature c (a bound on l'') is not proved"
    else:
        missing = "its regularizer's strong convexity m is not proved"
    return (f"runs Newton's method, whose safeguard and proved iteration budget need a loss with proved finite L and "
            f"c and a strongly convex quadratic regularizer, and {missing}: no proved method solves this problem to "
            "the public bound. Use a loss whose curvature the verifier proves (a smooth loss such as 'logistic' or "
            "a Huber loss) and a strongly convex regularizer (a ridge part)")


def _distinct_start(objective: PerturbedObjective, distinct: Distinct, gradient_tolerance: float,
                    start: np.ndarray | None) -> tuple[np.ndarray | None, SolveInfo]:
    """(Newton's start on all rows, the grouped solve's record): the minimiser of F over the distinct records
    (:mod:`.distinct`: the same F, each record once with its group's weight), to a tenth of the public bound so
    that the check on all rows, whose sums round otherwise, passes at once; ``start`` where it is not finite.
    Unguarded and to ``DEFAULT_MAX_ITER`` iterations: only the start depends on it, and the solve on all rows
    from it keeps its own proved budget."""
    scale = objective.n / distinct.count  # k rows whose F is the n rows' F: n Lam = k (Lam n / k)
    grouped = replace(objective, X=take_rows(objective.X, distinct.first), y=objective.y[distinct.first],
                      lam=objective.lam * scale, extra_reg=objective.extra_reg * scale, weights=distinct.weights,
                      offset=None)  # the training-rows check's margins are those of all rows: not asked here
    w, info = newton(grouped, gradient_tolerance=DISTINCT_TOLERANCE * gradient_tolerance, w0=start,
                     max_iter=DEFAULT_MAX_ITER)
    return (w if np.all(np.isfinite(w)) else start), info


def _check_poseable(expressions: tuple[Any, ...], solver: str) -> None:
    """Refuse, before the charge, a loss or regularizer CVXPY cannot pose for a conic solver (an atom without a
    canonicalization: a user's subclass of a CVXPY atom): each is compiled alone for ``solver``, a problem of its own
    variable and no data, as the fit's solve would compile it after the charge."""
    import cvxpy as cp

    for expression in expressions:
        if expression is None:
            continue
        try:
            cp.Problem(cp.Minimize(expression)).get_problem_data(solver)
        except NotImplementedError:
            raise InputError("CVXPY cannot pose this loss or regularizer for a conic solver (an atom without a "
                             "canonicalization); write the loss and regularizer with CVXPY's own atoms. Nothing was "
                             "charged") from None
        except (cp.error.SolverError, cp.error.DCPError, ValueError, TypeError):
            pass  # not this check's: the solver's name and settings are checked where the fit's own are


def _public_start(start: np.ndarray | None, d: int) -> np.ndarray:
    """Where Newton starts when a conic warm start fails: the public start, else the origin."""
    return np.zeros(d) if start is None else start


@dataclass(frozen=True)
class SolverChoice:
    """The public solver settings of a linear learner (PrivateERM's ``solver``, ``cvxpy_solver``, ...)."""

    solver: Any  # "auto", "fast", "cvxpy" or a user's callable
    cvxpy_solver: str
    cvxpy_options: dict[str, Any] | None
    max_iter: int | None  # None: the proved budget (:mod:`.budget`), or DEFAULT_MAX_ITER where none is proved
    regression: bool
    verbose: bool = False

    def default_tol(self, problem: VerifiedProblem) -> float:
        """The default relative gradient tolerance of the path this problem takes (public)."""
        return calibrate.DEFAULT_TOL if self.newton_runs(problem) else calibrate.CONIC_TOL

    def newton_runs(self, problem: VerifiedProblem) -> bool:
        """Whether the fit's solve runs Newton on the verified derivatives: a translated C^1 loss and a quadratic
        regularizer (its quadratic part on the composite path), not a user's solver (with solver='cvxpy' Newton
        polishes the conic point). Such a solve is proved only with a :class:`DescentRate`; without one (a loss
        whose curvature c is not proved, J not strongly convex) a fit is refused before its charge, alone and
        inside a composite procedure alike (:meth:`FitPlan.bind <dpcvx.models.fit_plan.FitPlan.bind>`). Public:
        the declaration only."""
        quadratic = problem.smooth_quadratic if problem.kst12 else problem.quadratic
        return problem.derivatives is not None and quadratic is not None and not callable(self.solver)

    def solve(self, problem: VerifiedProblem, X: Matrix | RowBlocks, y: np.ndarray | SignBits, noise: np.ndarray,
              lam: float, extra_reg: float, gradient_tolerance: float, start: np.ndarray | None = None,
              n: int | None = None, rows: RowMap | None = None,
              weights: np.ndarray | None = None, offset: np.ndarray | None = None, *,
              proved: bool) -> tuple[np.ndarray, SolveInfo]:
        """A point with ||grad F|| <= gradient_tolerance / 2 for the verified problem.

        F = sum_i s_i l + n (Lam N(w) + (Delta/2) ||w||^2) + b^T w with ``n`` the public size
        (default: the number of rows, as under replace-one). The solvers work on the
        averaged form with the number of rows, so Lam and Delta are scaled by n / rows. ``rows``
        (the public row map of an in-memory X) lets Newton read a row-major X by cache-sized blocks. ``weights``
        (the records' s_i in [0, w_max], None for 1; the problem is :meth:`VerifiedProblem.weighted`'s) reach every
        path but a Dask X's (:meth:`check` refuses it): Newton on all rows in memory or over a memmap's row blocks,
        the conic solve, proximal Newton, a user's solver. ``offset`` (the
        release noise's move, drawn before the solve) is a vector u whose margins y_i x_i . u Newton's first
        pass over row blocks, its first Hessian product by blocks of a dense X, or its first product with a sparse
        X also computes (:attr:`PerturbedObjective.offset`), for the training-rows check; other paths (the
        conic solve, a user's solver, proximal Newton) leave them to that check. On Newton's path an in-memory X
        (dense or CSR) whose records repeat (:func:`~dpcvx.solvers.distinct.distinct_records`) is first solved on
        its distinct records, and Newton on all rows starts there (docs/theory.md, section 7).

        ``proved`` is the plan's public decision, made once before the charge: :meth:`proved_budget` at the public n
        and start is not None (it needs ``rows``). It is never re-made here at the rows' count (private under
        add/remove) or at a start drawn from the data (the distinct records' minimiser, a conic point): a proved
        solve runs to the budget of its own rows, start and noise, however large."""
        if proved and rows is None:
            raise InputError("a proved solve needs the public row map whose bound R its budget reads")
        scale = 1.0 if n is None or n == X.shape[0] else n / X.shape[0]
        lam, extra_reg = lam * scale, extra_reg * scale
        rate = descent_rate(problem, lam, extra_reg, rows.effective_norm_bound) if proved and rows is not None else None
        steps = self._newton_steps(rate, start, noise, X.shape[0], gradient_tolerance)
        column_scale = None if rows is None else rows.column_scale(X.shape[1])
        if isinstance(X, RowBlocks):  # check(), before charging: the Newton path applies
            assert problem.derivatives is not None and problem.quadratic is not None
            with progress(None, "dpcvx passes over X", unit="pass", verbose=self.verbose) as bar:
                blockwise = BlockwiseObjective(np.empty((0, X.shape[1])), y, problem.derivatives, problem.quadratic,
                                               lam, noise, extra_reg, self.regression,
                                               curvature_bound=curvature_bound(problem), weights=weights,
                                               column_scale=column_scale, blocks=X, bar=bar, offset=offset)
                return newton(blockwise, gradient_tolerance=gradient_tolerance, w0=start, **steps)
        assert isinstance(y, np.ndarray)  # rows in memory: their labels are an array (erm_inputs.fit_labels)
        if problem.kst12:
            return self._composite(problem, X, y, noise, lam, extra_reg, gradient_tolerance, start, weights, rate)
        derivatives, quadratic = problem.derivatives, problem.quadratic
        objective = None
        if derivatives is not None and quadratic is not None:
            objective = PerturbedObjective(X, y, derivatives, quadratic, lam, noise, extra_reg, self.regression,
                                           curvature_bound=curvature_bound(problem), weights=weights,
                                           column_scale=column_scale, offset=offset)
        if callable(self.solver):  # any solver: its point is checked against gamma and covered, never polished
            return solve_with_cvxpy(problem, X, y, lam, noise, extra_reg, gradient_tolerance=gradient_tolerance,
                                    reference=objective, regression=self.regression, user_solver=self.solver,
                                    weights=weights)
        assert not (self.solver == "fast" and objective is None), "check() refuses it before the charge"
        if objective is not None and self.solver in ("auto", "fast"):
            distinct = distinct_records(X, y, weights)  # None but for an in-memory X whose records repeat
            grouped: tuple[int, SolveInfo] | None = None  # (distinct records, their solve)
            if distinct is not None:  # Newton on all rows from the distinct records' minimiser, to its own budget
                start, first = _distinct_start(objective, distinct, gradient_tolerance, start)
                grouped = (distinct.count, first)
                steps = self._newton_steps(rate, start, noise, X.shape[0], gradient_tolerance)
            if rows is not None and isinstance(X, np.ndarray) and X.flags.c_contiguous \
                    and X.shape[1] <= DENSE_NEWTON_MAX_DIM and weights is None:
                # row-major: cache-sized row blocks, fused passes; beyond DENSE_NEWTON_MAX_DIM every direction
                # comes from CG, whose products give the step (no step pass), and X w and X^T u by whole-matrix
                # gemv beat the fused block pass (3e5 x 500: 1.24 against 1.37 of lbfgs's time, both ways in one
                # session; the fused pass cost 0.196 s against 0.140 s for the two products and the loss's
                # values; at d <= 400 the blocks' Hessians win: 1e5 x 200 1.03 against 1.21). A weighted fit in
                # memory keeps the objective on all rows, as its releases always were (a memmap's takes weights)
                objective = BlockwiseObjective(X[:0], y, objective.loss, objective.regularizer, lam, noise, extra_reg,
                                               self.regression, curvature_bound=objective.curvature_bound,
                                               column_scale=column_scale, blocks=RowBlocks.views(X, rows),
                                               offset=offset)
            w, info = newton(objective, gradient_tolerance=gradient_tolerance, w0=start, **steps)
            if grouped is None:
                return w, info
            count, first = grouped
            return w, replace(info, solver=f"{first.solver}+{info.solver}",
                              status=f"{first.status} on {count} distinct records, then on all rows: {info.status}",
                              iterations=first.iterations + info.iterations, seconds=first.seconds + info.seconds)
        w, info = solve_with_cvxpy(
            problem, X, y, lam, noise, extra_reg,
            solver=self.cvxpy_solver, solver_options=self.cvxpy_options,
            gradient_tolerance=gradient_tolerance, reference=objective, regression=self.regression, weights=weights,
            fallback=None if objective is None else _public_start(start, X.shape[1]),
        )
        if objective is None or info.converged:
            return w, info
        # Conic solvers stop near 1e-9 relative on exponential cones, or short of it at a user's iteration limit, or
        # fail: polish with Newton on the verified derivatives, starting from the solver's point (the public start
        # where it has none). The conic point is a warm start only: the polish runs to the proved budget from that
        # point (G_0 from its own weights: a bound for any start), so the solve cannot stop short whatever the conic
        # solver did
        polish = self._newton_steps(rate, w, noise, X.shape[0], gradient_tolerance)
        polished, steps_info = newton(objective, gradient_tolerance=gradient_tolerance, w0=w, **polish)
        return polished, replace(
            steps_info, solver=f"{info.solver}+{steps_info.solver}",
            status=f"{info.solver} {info.status}"
                   + (f" at ||grad F|| {info.gradient_norm:.1e}" if np.isfinite(info.gradient_norm) else "")
                   + f", polished: {steps_info.status}",
            iterations=info.iterations + steps_info.iterations, seconds=info.seconds + steps_info.seconds,
        )

    def _newton_steps(self, rate: DescentRate | None, start: np.ndarray | None, noise: np.ndarray | None,
                      rows: int, gradient_tolerance: float) -> dict[str, Any]:
        """Newton's ``max_iter`` and safeguard ``beta``: the proved budget for this start and noise (never less
        than a user's ``max_iter``, which :meth:`check_max_iter` refused below the least budget) where the path is
        proved (``rate``, given only where :meth:`proved_budget` found one from public values); else the user's limit
        (default ``DEFAULT_MAX_ITER``), unproved."""
        if rate is None:
            return {"max_iter": self._unproved_max_iter(), "beta": None}
        budget = rate.budget(start, noise, rows, gradient_tolerance)
        return {"max_iter": max(budget, self.max_iter or 0), "beta": rate.beta}

    def _unproved_max_iter(self) -> int:
        return DEFAULT_MAX_ITER if self.max_iter is None else self.max_iter

    def budgeted(self, problem: VerifiedProblem) -> bool:
        """Whether the path this choice takes for ``problem`` may have a proved iteration budget: not a user's
        solver (:meth:`proved_budget` is None there whatever the public constants). Public: the declaration only."""
        return not callable(self.solver)

    def least_budget(self, problem: VerifiedProblem, lam: float, extra_reg: float, rows: RowMap, n: int,
                     gradient_tolerance: float, start: np.ndarray | None) -> int | None:
        """The least proved iteration budget (at b = 0, for ``n`` public rows) of the path this choice takes,
        however large, or None where the path has none at any Lam: a user's solver, a problem without a
        :class:`DescentRate` (conic-only). Public: the declaration's constants, Lam, Delta, R, n, the tolerance and
        the public start (projected onto C on the proximal path, :mod:`.budget`)."""
        if not self.budgeted(problem):
            return None
        rate = descent_rate(problem, lam, extra_reg, rows.effective_norm_bound)
        return None if rate is None else rate.budget(start, None, n, gradient_tolerance)

    def proved_budget(self, problem: VerifiedProblem, lam: float, extra_reg: float, rows: RowMap, n: int,
                      gradient_tolerance: float, start: np.ndarray | None) -> int | None:
        """:meth:`least_budget` where it is at most ``MAX_PROVED_ITERATIONS``, else None (too ill-conditioned for
        gradient steps to be a practical safeguard): the path is proved. Public: composite procedures refuse a
        None before any charge (docs/theory.md, section 7.1). Under add/remove the rows are private: the check is
        made at n_public, and the solver uses the budget of its actual rows."""
        least = self.least_budget(problem, lam, extra_reg, rows, n, gradient_tolerance, start)
        return None if least is None or exceeds_limit(least) else least

    def unproved_reason(self, problem: VerifiedProblem) -> str:
        """Why :meth:`proved_budget` is None, with the way to a proved path (public)."""
        if callable(self.solver):
            return ("is set to a user's solver (solver= a callable), whose stopping no proved iteration budget covers, "
                    "so its point could miss the public gradient bound on some data sets and not on others; use "
                    "solver='auto' (the default) with a loss whose curvature the verifier proves and a strongly convex "
                    "quadratic regularizer")
        if self.newton_runs(problem) and descent_rate(problem, 1.0, 1.0, 1.0) is None:
            return _newton_unproved(problem)
        if descent_rate(problem, 1.0, 1.0, 1.0) is None:  # none even with a ridge Delta
            return ("would be solved by CVXPY's conic path alone, which has no proved iteration budget (the budget "
                    "needs a translated C^1 loss with proved finite L and c, and a quadratic, strongly convex "
                    "regularizer: a regularizer such as 0.5 ||w||^2 + log_sum_exp(w), or a loss the verifier does not "
                    "translate, leaves only the conic path), so the solve could stop short of the public gradient "
                    "bound on some data sets and not on others; use a loss whose curvature the verifier proves (e.g. "
                    "'logistic', a Huber loss) and a quadratic strongly convex regularizer (e.g. a ridge "
                    "0.5 * cp.sum_squares(w), with an L1 or group term if wanted), with solver='auto'")
        if not problem.strong_convexity > 0:
            return (f"has no proved iteration budget within {MAX_PROVED_ITERATIONS:.0e} iterations: its regularizer "
                    "adds no strong convexity (m = 0, an L1 term alone), so only objective perturbation's ridge Delta, "
                    "which falls as epsilon and n grow, bounds the budget (raising lam does not help); add a ridge "
                    "part to the regularizer (an elastic net) or fit at a smaller epsilon")
        return (f"has a proved iteration budget above {MAX_PROVED_ITERATIONS:.0e} iterations: m Lam + Delta is too "
                "small against c R^2 for gradient steps to be a practical safeguard; raise lam (lam='auto' chooses "
                "a Lam within the limit)")

    def check_max_iter(self, least: int | None) -> None:
        """Refuse, before charging, a ``max_iter`` below the least proved budget ``least`` (from
        :meth:`proved_budget`): a limit the solve might hit on some data sets and not on others."""
        if self.max_iter is not None and least is not None and self.max_iter < least:
            raise InputError(
                f"max_iter={self.max_iter} is below the proved iteration budget ({least} iterations for these public "
                "constants): the solve could then stop short of the public gradient bound on some data sets and not "
                "on others, and that event is not covered by the privacy proof. Leave max_iter=None (the proved "
                "budget; Newton's method usually stops after a few iterations)")

    def _composite(self, problem: VerifiedProblem, X: Matrix, y: np.ndarray, noise: np.ndarray, lam: float,
                   extra_reg: float, gradient_tolerance: float, start: np.ndarray | None,
                   weights: np.ndarray | None, rate: DescentRate | None) -> tuple[np.ndarray, SolveInfo]:
        """KST12 problems: proximal Newton (after CVXPY's solve with solver='cvxpy'), certified by a subgradient, to
        the proved budget of its start where ``rate`` is given (:mod:`.budget`, "The composite path")."""
        derivatives, quadratic = problem.derivatives, problem.smooth_quadratic
        assert derivatives is not None and quadratic is not None  # check(), before charging
        objective = PerturbedObjective(X, y, derivatives, quadratic, lam, noise, extra_reg, self.regression,
                                       curvature_bound=curvature_bound(problem), weights=weights)
        scale = X.shape[0] * lam
        g = CompositeTerm(scale * problem.l1_weight, problem.constraint_set,
                          tuple((np.array(indices), scale * weight) for indices, weight in problem.groups))
        mu = None if rate is None else rate.mu
        if self.solver != "cvxpy":
            return proximal_newton(objective, g, gradient_tolerance=gradient_tolerance, w0=start, mu=mu,
                                   **self._newton_steps(rate, start, noise, X.shape[0], gradient_tolerance))
        w, info = solve_with_cvxpy(problem, X, y, lam, noise, extra_reg, solver=self.cvxpy_solver,
                                   solver_options=self.cvxpy_options, gradient_tolerance=gradient_tolerance,
                                   regression=self.regression, weights=weights,
                                   fallback=_public_start(start, X.shape[1]))
        polished, steps = proximal_newton(objective, g, gradient_tolerance=gradient_tolerance, w0=w, mu=mu,
                                          **self._newton_steps(rate, w, noise, X.shape[0], gradient_tolerance))
        return polished, replace(steps, solver=f"{info.solver}+{steps.solver}",
                                 iterations=info.iterations + steps.iterations, seconds=info.seconds + steps.seconds)

    def check(self, problem: VerifiedProblem, X: Matrix | RowBlocks, weighted: bool = False) -> None:
        """Refuse, before charging, a problem or input this choice cannot solve to a certified point (``weighted``:
        a fit with record weights, which a Dask X's path does not take)."""
        self._check_composite(problem)
        self._check_blocks(problem, X)
        if self.solver == "fast" and not problem.kst12 and (problem.derivatives is None or problem.quadratic is None):
            # refused by the solve, after the charge, before (epsilon spent, nothing released; an audit of the test
            # suite, sixtieth session)
            raise InputError("solver='fast' needs a loss the verifier translated and proved C^1, and a quadratic "
                             "regularizer; use solver='cvxpy' (or 'auto') for this problem; nothing was charged")
        newton_form = problem.smooth_quadratic if problem.kst12 else problem.quadratic
        conic = self.solver == "cvxpy" or (not problem.kst12 and (problem.derivatives is None or newton_form is None))
        # a conic solve of the verified expressions: built (CVXPY imported) before the charge
        expressions = problem.expressions() if callable(self.solver) or conic else ()
        if conic and not all(expression is None or expression.is_convex() for expression in expressions):
            raise InputError(
                "the loss or the regularizer is convex by the verifier's proof but not by CVXPY's DCP rules, so a "
                "conic solver cannot take it (CVXPY would refuse it after the charge); "
                + ("use solver='auto' (Newton on the verified derivatives)" if problem.derivatives is not None
                   and newton_form is not None and not problem.kst12 else
                   "write it with CVXPY's DCP atoms (cp.logistic(z), not cp.log(1 + cp.exp(z)))")
                + "; nothing was charged")
        if conic:
            _check_poseable(expressions, self.cvxpy_solver)
        if weighted and isinstance(X, RowBlocks) and X.on_dask:
            raise UnsupportedWeightsError(
                "record weights, from sample_weight or from class_weight (a dict, or 'balanced': a weight per "
                "class is a weight per record), are taken for X in memory (numpy or scipy.sparse) or a numpy "
                "memmap, not for a Dask X, whose solve keeps its per-row vectors on the workers. Compute it into "
                "memory (np.asarray(X.compute())) or save it to a .npy file and fit np.load(path, mmap_mode='r') to "
                "fit with them, or fit the Dask X without sample_weight and class_weight; nothing was charged")

    @staticmethod
    def check_scale(problem: VerifiedProblem, n: int, norm_bound: float, noise_norm: float) -> None:
        """Refuse, before charging, constants whose scale the solver's arithmetic cannot hold: it squares gradients of
        F = n J_b, whose size is up to G = n L R + ||b|| (the loss's part and the noise's; ``noise_norm`` a public
        bound on ||b|| far in its tail), and forms Hessians of entries up to n c R^2. Beyond ``MODERATE_MAX`` (1e150)
        those squares and products overflow, so a fit that passed every check failed in the solve after the charge
        (a loss of L = 1e200: its gradient norms were infinite). A loss scaled down by a public constant k, with lam
        scaled by 1 / k, has the same minimiser and the same noise relative to it."""
        gradient_scale = n * problem.lipschitz * norm_bound + noise_norm
        curvature_scale = n * problem.curvature * norm_bound ** 2
        if gradient_scale <= MODERATE_MAX and curvature_scale <= MODERATE_MAX:
            return
        raise InputError(
            f"the solver's scale is beyond its floating point: the gradients of F = n J_b reach n L R + ||b|| = "
            f"{gradient_scale:.3g} and its Hessian n c R^2 = {curvature_scale:.3g} (n = {n}, "
            f"L = {problem.lipschitz:.3g}, c = {problem.curvature:.3g}, R = {norm_bound:.3g}), and above "
            f"{MODERATE_MAX:.0e} their squares "
            "overflow. Divide the loss by a public constant k and lam by the same k (the same minimiser, the same "
            "noise relative to it); nothing was charged")

    def _check_blocks(self, problem: VerifiedProblem, X: Matrix | RowBlocks) -> None:
        """Refuse, before charging, an out-of-core input for a problem only CVXPY or the proximal solver takes."""
        if callable(self.solver) and (problem.kst12 or isinstance(X, RowBlocks)):
            raise InputError("a user solver is offered for in-memory problems without a constraint set or an L1 "
                             "term (dpcvx checks its point by the gradient of the smooth objective)")
        if isinstance(X, RowBlocks) and (problem.kst12 or problem.derivatives is None or problem.quadratic is None
                                         or self.solver == "cvxpy"):
            raise InputError("a memmap or Dask X is solved by blockwise Newton, which needs a translated C^1 loss, a "
                             "quadratic regularizer and no constraint set (solver 'auto' or 'fast'); load the data "
                             "into memory (numpy or scipy.sparse) for this problem")

    @staticmethod
    def _check_composite(problem: VerifiedProblem) -> None:
        """Refuse, before charging, a KST12 problem the proximal solver cannot certify."""
        if problem.kst12 and (problem.derivatives is None or problem.smooth_quadratic is None):
            raise InputError(
                "a constraint set or an L1 regularizer is solved by proximal Newton on the verified loss "
                "derivatives; this loss was not translated to a C^1 formula (or N's quadratic part is too "
                "large to form). Write the loss with atoms the verifier translates (docs/verifier.md)")
