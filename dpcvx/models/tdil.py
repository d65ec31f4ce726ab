"""TDIL: the Test Data Independent Learner (Jain and Thakurta, ICML 2013, Algorithm 3).

Non-interactive: the learner itself picks the points where the public iterate
w_t = sum_tau a_tau phi(z_tau) is worst, with the exponential mechanism
(McSherry and Talwar 2007)

    P(s) proportional to exp(eps_em |<w* - w_t, phi(s)>| / (2 Delta)),

then tests the gap at the chosen point with Laplace noise: above the
threshold tau it updates w_{t+1} = w_t + eta sign(d_t) phi(z_t); the first
round below it certifies the accuracy on every candidate and ends the run.
At most B rounds; parameters from :func:`dpcvx.privacy.kernel_calibrate.tdil_parameters`.

* Linear, polynomial and rbf kernels: the candidates are a net S of the input
  ball {||z|| <= r} of R^d. The net has about (r sqrt(d) / spacing)^d points,
  so the cost is exponential in d (:class:`ExponentialCostWarning`).
* Linear kernel: the candidates are the whole ball, sampled exactly as a
  mixture of two log-concave densities (:mod:`dpcvx.privacy.ball_sampler`); no net,
  cost linear in d per round, and the accuracy holds on the whole ball directly.

w* is the minimiser certified to the public tolerance gamma; the score and
test sensitivities use (2 L R / (lam n) + 2 gamma) R. Privacy: Jain and
Thakurta 2013, Theorem 7, for replace-one neighbours with n public,
re-derived in docs/theory.md (section 11, K6).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..data.kernels import Kernel, KernelSpec, LinearKernel, as_rows
from ..data.notes import checks_then_notes
from ..exceptions import ExponentialCostWarning, InputError, float_errors_ignored
from ..privacy.accountant import PrivacyAccountant
from ..privacy.ball_sampler import sample_ball_exponential
from ..privacy.exact_sampling import IntegerSource, integer_source
from ..privacy.exponential import sample_exponential
from ..privacy.kernel_calibrate import (
    TDILParameters,
    check_failure_probability,
    check_rounds,
    loss_radius,
    tdil_parameters,
)
from ..privacy.lattice import float_kernel_name
from ..privacy.lattice_tdil import LatticeTDIL
from ..privacy.noise import sample_laplace
from ..privacy.rng import RandomState
from ..progress import progress
from ..release.kernel_model import KernelPredictor, PrivateKernelModel
from ..release.model import named
from ..solvers.kernel import KernelERM
from ..validation import check_bound, check_flag, number_text, optional, positive
from .kernel_learner import Budget, Diagnostics, TrainingSetLearner, check_budget, check_coefficient_bound

__all__ = ["TDIL", "ExponentialCostWarning", "ball_net", "MAX_NET_POINTS"]

MAX_NET_POINTS = 200_000


def ball_net(dim: int, radius: float, spacing: float) -> np.ndarray:
    """Points of the ball {||z|| <= radius} of R^dim within ``spacing`` of every point of it.

    Cubic grid of step 2 spacing / sqrt(dim) (every point of R^dim is within
    spacing of a grid point); grid points within radius + spacing are kept and
    projected onto the ball, which moves none of them farther from a point of
    the ball (projection onto a convex set is non-expansive).
    """
    radius, spacing = positive("input_bound", radius), positive("net_spacing", spacing)
    step = 2 * spacing / math.sqrt(dim)
    reach = (radius + spacing) / step  # grid steps from the centre to the cube's face: inf beyond the float range
    # the kept fraction of the cube is at most 1; the ball's share of it, in logarithms (no overflow at any dim),
    # estimates the net's size to refuse early, before any grid is built
    log_share = dim / 2 * math.log(math.pi) - math.lgamma(dim / 2 + 1) - dim * math.log(2)
    log_points = dim * math.log(2 * math.ceil(reach) + 1) + log_share if math.isfinite(reach) else math.inf
    if log_points > math.log(MAX_NET_POINTS):
        points = f"{math.exp(log_points):.3g}" if log_points < 709.0 else "more than 1e308"
        raise InputError(
            f"the net of the {dim}-dimensional ball of radius {radius:g} at spacing {spacing:g} "
            f"would have about {points} points (limit {MAX_NET_POINTS}); "
            "TDIL's cost is exponential in the dimension: raise net_spacing, or use TDDL or "
            "RandomFourierFeatures with PrivateERM"
        )
    half = math.ceil(reach)
    per_axis = np.arange(-half, half + 1) * step
    axes = np.meshgrid(*([per_axis] * dim), indexing="ij")
    grid = np.stack([axis.ravel() for axis in axes], axis=1)
    norms = np.linalg.norm(grid, axis=1)
    kept, kept_norms = grid[norms <= radius + spacing], norms[norms <= radius + spacing]
    shrink = np.where(kept_norms > radius, radius / np.maximum(kept_norms, radius), 1.0)
    return kept * shrink[:, None]


class _NetSearch:
    """Candidates: the points of a net; scores from <w*, phi(s)> (private) and <w_t, phi(s)>."""

    def __init__(self, model: KernelERM, net: np.ndarray, parameters: TDILParameters):
        self.kernel, self.net, self.parameters = model.kernel, net, parameters
        self.private = model.predict(net)
        self.public = np.zeros(net.shape[0])

    def choose(self, rng: np.random.Generator | IntegerSource, sensitivity: float) -> tuple[np.ndarray, float]:
        """A net point from the exponential mechanism and its gap <w* - w_t, phi(s)>."""
        gaps = self.private - self.public
        chosen = sample_exponential(np.abs(gaps), self.parameters.selection_epsilon, sensitivity, rng)
        return self.net[chosen], float(gaps[chosen])

    def update(self, point: np.ndarray, coef: float) -> None:
        self.public += coef * self.kernel.gram(self.net, point[None, :])[:, 0]


class _BallSearch:
    """Linear kernel: candidates are the whole ball; w* and w_t are explicit vectors."""

    def __init__(self, model: KernelERM, radius: float, parameters: TDILParameters):
        self.radius, self.parameters = radius, parameters
        self.private = model.predict(np.eye(model.n_features))  # <w*, e_j> = w*_j
        self.public = np.zeros(model.n_features)

    def choose(self, rng: np.random.Generator | IntegerSource, sensitivity: float) -> tuple[np.ndarray, float]:
        """A point of the ball from the continuous exponential mechanism (a double sampler: ``rng`` is the
        Generator) and its gap."""
        assert isinstance(rng, np.random.Generator), "the ball sampler draws doubles"
        difference = self.private - self.public
        kappa = self.parameters.selection_epsilon / (2 * sensitivity)
        point = sample_ball_exponential(difference, kappa, self.radius, rng)
        return point, float(difference @ point)

    def update(self, point: np.ndarray, coef: float) -> None:
        self.public += coef * point


class TDIL(TrainingSetLearner):
    """Test Data Independent Learner (Jain and Thakurta, ICML 2013, Algorithm 3).

    Parameters as :class:`~dpcvx.models.kernel_learner.PrivateKernelLearner`, plus
    ``input_bound`` r (required: the ball the guarantee covers, and for linear
    and poly kernels the bound that gives R_phi), ``net_spacing`` (default r/10;
    not used by the linear kernel, which searches the whole ball),
    ``failure_probability`` and ``rounds`` B (None: the B minimising the bound).

    ``fit(X, y, epsilon, delta=0.0, *, random_state=None, accountant=None)`` returns the
    release (a :class:`~dpcvx.release.kernel_model.PrivateKernelModel`, also kept as
    ``model_``; its predictor is ``predictor_``); with probability >= 1 - beta,
    ``|<w - w*, phi(z)>|`` <= ``parameters_.accuracy`` for every ||z|| <= r.
    (epsilon, delta)-DP with respect to (X, y). Warns
    :class:`ExponentialCostWarning` when it searches a net.

    ``float_safe`` (default False): True runs each round's test on a public lattice with exact discrete
    Laplace noise and the exact exponential mechanism at a sensitivity that charges the computed
    scores' error (:mod:`dpcvx.privacy.lattice_tdil`): "exact" over a net with the rbf or laplacian
    kernel, "mitigation-only" otherwise (the linear kernel's continuous ball sampler, other kernels). The
    default's double Laplace test names "mitigation-only" (docs/theory.md, section 28).

    ``rounds_used_`` and ``certified_`` are functions of the privatised
    transcript (the number of released centres, and whether it is below B);
    ``diagnostics_`` (NOT PRIVATE) holds the solve report.
    """

    algorithm = "TDIL (Jain and Thakurta 2013, Algorithm 3)"
    theorem = ("Jain and Thakurta (ICML 2013), Theorem 7 (privacy of TDIL, Algorithm 3), as re-derived "
               "in docs/theory.md (section 11, K6): exponential-mechanism selection plus a Laplace test per "
               "round, composed over at most B rounds, with the score sensitivity enlarged by "
               "2 gamma R for the certified approximate minimiser")
    _param_names = TrainingSetLearner._param_names + ("net_spacing", "failure_probability", "rounds",
                                                         "float_safe")
    # input_bound r a public bound in [1e-75, 1e75] (check_bound, as the kernel's at fit: positive() took 1e100 here
    # and fit refused it), net_spacing None or > 0 (and <= r: :meth:`_net_spacing`), beta in (0, 1), rounds None or in
    # [2, 10^7] (:func:`~dpcvx.privacy.kernel_calibrate.tdil_options`): checked by the constructor, set_params and fit
    # before any data is read
    net_spacing: float | None
    failure_probability: float
    rounds: int | None
    float_safe: bool
    _parameter_checks = {**TrainingSetLearner._parameter_checks, "input_bound": check_bound,
                         "net_spacing": optional(positive), "failure_probability": check_failure_probability,
                         "rounds": check_rounds, "float_safe": check_flag}

    def __init__(self, kernel: KernelSpec = "rbf", *, lam: float, input_bound: float, net_spacing: float | None = None,
                 failure_probability: float = 0.05, rounds: int | None = None, float_safe: bool = False,
                 **options: Any) -> None:
        super().__init__(kernel, lam=lam, **options)
        self.set_params(input_bound=input_bound, net_spacing=net_spacing, failure_probability=failure_probability,
                        rounds=rounds, float_safe=float_safe)
        self.parameters_: TDILParameters | None = None

    @staticmethod
    def _net_spacing(kernel: Kernel, radius: float, net_spacing: float | None) -> float | None:
        """The net's spacing from the checked ``net_spacing``: None for the linear kernel, which searches the whole
        ball exactly (and takes no ``net_spacing``); otherwise ``net_spacing`` (default r/10), at most the radius r:
        the origin alone is within r of every point of the ball, so a larger spacing covers nothing more and only
        enlarges the accuracy's term C psi(spacing) (docs/theory.md, section 11, K6)."""
        if isinstance(kernel, LinearKernel):
            if net_spacing is not None:
                raise InputError("the linear kernel searches the whole ball exactly; drop net_spacing")
            return None
        spacing = radius / 10 if net_spacing is None else net_spacing
        if spacing > radius:
            raise InputError(f"net_spacing={number_text(spacing)} is above input_bound={number_text(radius)}, the "
                             "radius of the ball: the origin alone is within the radius of every point of the ball, "
                             "so a larger spacing covers nothing more and only loosens the accuracy bound; use "
                             "net_spacing <= input_bound")
        return spacing

    def _check_settings(self) -> None:
        """The settings of every kernel learner (``input_bound``, ``net_spacing``, ``failure_probability`` and
        ``rounds`` among them), then ``net_spacing`` against the kernel and the radius: what :meth:`fit` checks
        without data, in its order (:meth:`check_options`)."""
        self._ball()

    def _ball(self) -> tuple[float, float | None]:
        """(r, the net's spacing or None for the whole ball) from the checked settings (:meth:`_check_settings`)."""
        checked, kernel, _ = self._settings()
        return checked["input_bound"], self._net_spacing(kernel, checked["input_bound"], checked["net_spacing"])

    def _check(self, X: ArrayLike, y: ArrayLike, budget: Budget
               ) -> tuple[KernelERM, float, np.ndarray | None, TDILParameters | LatticeTDIL]:
        """Every input and public constant of a fit; raises before anything is charged or solved."""
        with checks_then_notes():  # the clipping count shown once every check below has passed
            radius, spacing = self._ball()
            # the net (of the public width d) refused when huge before the Gram matrix of the training rows is built
            net = None if spacing is None else ball_net(as_rows(X).shape[1], radius, spacing)
            model = self._check_training(X, y, delta=budget.delta)
            kernel, loss, dim = model.kernel, model.loss, model.n_features
            common = (model.n, self.lam, loss.lipschitz_bound, kernel.feature_bound,
                      loss_radius(self.lam, loss, kernel.feature_bound),
                      budget.epsilon, budget.delta)
            if net is None or spacing is None:
                parameters = tdil_parameters(*common, ball_dimension=dim,
                                             failure_probability=self.failure_probability,
                                             rounds=self.rounds)
            else:
                parameters = tdil_parameters(*common, net_size=net.shape[0],
                                             feature_distance=kernel.feature_distance(radius, spacing),
                                             failure_probability=self.failure_probability,
                                             rounds=self.rounds)
            if self.float_safe:
                return model, radius, net, LatticeTDIL.of(parameters, float_kernel_name(kernel), dim)
            return model, radius, net, parameters

    @float_errors_ignored
    def fit(self, X: ArrayLike, y: ArrayLike, epsilon: float, delta: float = 0.0, *, random_state: RandomState = None,
            accountant: PrivacyAccountant | None = None,
            sample_weight: None = None) -> PrivateKernelModel:
        """Release the predictor. Every input is checked first, then ``accountant`` (optional)
        is charged (epsilon, delta) once, then the model is solved and the rounds run.

        Paper: Jain and Thakurta (ICML 2013), Algorithm 3 and Theorem 7 (privacy of TDIL); proof: docs/theory.md,
        section 11, K6."""
        budget = check_budget(epsilon, delta, random_state, accountant, type(self).__name__, sample_weight)
        model, radius, net, checked = self._check(X, y, budget)
        lattice = checked if isinstance(checked, LatticeTDIL) else None
        parameters = checked.base if isinstance(checked, LatticeTDIL) else checked
        rng = budget.rng
        source = integer_source(None if random_state is None else rng)
        dim = model.n_features
        if net is not None:
            warnings.warn(
                f"TDIL searches a net of {net.shape[0]} points of the {dim}-dimensional ball "
                "(about (r sqrt(d) / spacing)^d points: exponential in d); use it only for "
                "low-dimensional inputs", ExponentialCostWarning, stacklevel=2)
        self._charge(budget)
        model = self.solve_curator_model(model)
        if lattice is not None:
            check_coefficient_bound(model, lattice.coefficient_bound, "nothing was released")
        kernel = model.kernel
        search = _BallSearch(model, radius, parameters) if net is None else _NetSearch(model, net, parameters)
        centers: list[np.ndarray] = []
        coef: list[float] = []
        certified = False
        rounds_used = 0
        with progress(parameters.rounds, "TDIL rounds (at most)", unit="round", verbose=self.verbose) as bar:
            for _ in range(parameters.rounds):
                rounds_used += 1
                if lattice is None:
                    point, gap = search.choose(rng, parameters.score_sensitivity)
                    noisy_gap = gap + sample_laplace(1, parameters.answer_noise, rng)[0]
                    below, positive_gap = abs(noisy_gap) <= parameters.threshold, noisy_gap >= 0
                else:  # exact selection (net) at the charged sensitivity; the lattice test
                    point, gap = search.choose(source if net is not None else rng, lattice.selection_sensitivity)
                    below, positive_gap = lattice.test(gap, source)
                bar.update()
                if below:
                    certified = True
                    break
                centers.append(point)
                coef.append(parameters.step if positive_gap else -parameters.step)
                search.update(point, coef[-1])
        self.certified_ = certified
        self.rounds_used_ = rounds_used
        self.parameters_ = parameters
        self.diagnostics_ = Diagnostics(solve_report=model.report)
        self.predictor_ = KernelPredictor(kernel, np.array(centers).reshape(-1, dim), np.array(coef),
                                          privatised=("centers", "coef"))
        self.model_ = named(PrivateKernelModel(self.predictor_, self._certificate(model, budget, checked),
                                               {"rounds_used": self.rounds_used_, "certified": self.certified_}),
                            self._names_read[0])  # the table's column names, which its predictions check
        self._after_release(parameters.vacuous_finding(), model.fitted_rows, y)
        return self.model_
