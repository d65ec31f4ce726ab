"""TDIL: the Test Data Independent Learner (Jain and Thakurta, ICML 2013, Algorithm 3).

Non-interactive: the learner itself picks the points where the public iterate
w_t = sum_tau a_tau phi(z_tau) is worst, from a net S of the input ball
{||z|| <= r} of R^d, with the exponential mechanism (McSherry and Talwar 2007):

    P(s) proportional to exp(eps_em |<w* - w_t, phi(s)>| / (2 Delta)),

then tests the gap at the chosen point with Laplace noise: above the
threshold tau it updates w_{t+1} = w_t + eta sign(d_t) phi(z_t); the first
round below it certifies |<w - w*, phi(s)>| <= net_accuracy on the whole net
and ends the run. At most B rounds; parameters from
:func:`dpcvx.kernel_calibrate.tdil_parameters`.

The net has about (r sqrt(d) / spacing)^d points: the cost is exponential
in the input dimension d (:class:`ExponentialCostWarning`). Use it for small
d only; TDDL or random Fourier features with PrivateERM scale to large d.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .calibrate import _positive
from .exceptions import DPCVXWarning, InputError
from .kernel_calibrate import TDILParameters, constraint_radius, tdil_parameters
from .kernel_learner import PrivateKernelLearner
from .kernel_model import KernelPredictor
from .kernels import as_rows
from .noise import sample_laplace
from .rng import resolve_rng

__all__ = ["TDIL", "ExponentialCostWarning", "ball_net", "MAX_NET_POINTS"]

MAX_NET_POINTS = 200_000


class ExponentialCostWarning(DPCVXWarning):
    """TDIL searches a net of the input ball whose size is exponential in the input dimension."""


def ball_net(dim: int, radius: float, spacing: float) -> np.ndarray:
    """Points of the ball {||z|| <= radius} of R^dim within ``spacing`` of every point of it.

    Cubic grid of step 2 spacing / sqrt(dim) (every point of R^dim is within
    spacing of a grid point); grid points within radius + spacing are kept and
    projected onto the ball, which moves none of them farther from a point of
    the ball (projection onto a convex set is non-expansive).
    """
    radius, spacing = _positive("input_bound", radius), _positive("net_spacing", spacing)
    step = 2 * spacing / math.sqrt(dim)
    half = math.ceil((radius + spacing) / step)
    per_axis = np.arange(-half, half + 1) * step
    grid_size = per_axis.size ** dim
    # the kept fraction of the cube is at most 1; estimate the ball's share to refuse early
    ball_share = math.pi ** (dim / 2) / math.gamma(dim / 2 + 1) / 2**dim
    if grid_size * ball_share > MAX_NET_POINTS:
        raise InputError(
            f"the net of the {dim}-dimensional ball of radius {radius:g} at spacing {spacing:g} "
            f"would have about {grid_size * ball_share:.3g} points (limit {MAX_NET_POINTS}); "
            "TDIL's cost is exponential in the dimension: raise net_spacing, or use TDDL or "
            "RandomFourierFeatures with PrivateERM"
        )
    axes = np.meshgrid(*([per_axis] * dim), indexing="ij")
    grid = np.stack([axis.ravel() for axis in axes], axis=1)
    norms = np.linalg.norm(grid, axis=1)
    kept, kept_norms = grid[norms <= radius + spacing], norms[norms <= radius + spacing]
    shrink = np.where(kept_norms > radius, radius / np.maximum(kept_norms, radius), 1.0)
    return kept * shrink[:, None]


class TDIL(PrivateKernelLearner):
    """Test Data Independent Learner (Jain and Thakurta, ICML 2013, Algorithm 3).

    Parameters as :class:`~dpcvx.kernel_learner.PrivateKernelLearner`, plus
    ``input_bound`` r (required: the ball the guarantee covers, and for linear
    and poly kernels the bound that gives R_phi), ``net_spacing`` (default r/10),
    ``failure_probability`` and ``rounds`` B (None: the B minimising the bound).

    ``fit(X, y)`` releases ``predictor_``; with probability >= 1 - beta,
    |<w - w*, phi(z)>| <= ``parameters_.accuracy`` for every ||z|| <= r.
    (epsilon, delta)-DP with respect to (X, y). Warns :class:`ExponentialCostWarning`.
    """

    algorithm = "TDIL (Jain and Thakurta 2013, Algorithm 3)"

    def __init__(self, kernel="rbf", *, lam: float, epsilon: float, delta: float = 0.0,
                 input_bound: float, net_spacing: float | None = None,
                 failure_probability: float = 0.05, rounds: int | None = None, **options):
        super().__init__(kernel, lam=lam, epsilon=epsilon, delta=delta, input_bound=input_bound,
                         **options)
        self.net_spacing = net_spacing
        self.failure_probability = failure_probability
        self.rounds = rounds
        self.parameters_: TDILParameters | None = None

    def fit(self, X, y) -> "TDIL":
        radius = _positive("input_bound", self.input_bound)
        spacing = radius / 10 if self.net_spacing is None else self.net_spacing
        rng = resolve_rng(self.random_state)
        X = as_rows(X)
        net = ball_net(X.shape[1], radius, spacing)  # refuse an oversized net before solving
        model = self._curator_model(X, y)
        kernel, loss = model.kernel, model.loss
        warnings.warn(
            f"TDIL searches a net of {net.shape[0]} points of the {model.n_features}-dimensional "
            f"ball (about (r sqrt(d) / spacing)^d points: exponential in d); use it only for "
            "low-dimensional inputs", ExponentialCostWarning, stacklevel=2)
        parameters = tdil_parameters(
            model.n, self.lam, loss.lipschitz, kernel.feature_bound,
            constraint_radius(self.lam, loss.lipschitz, kernel.feature_bound, loss.value_at_zero,
                              loss.infimum),
            self.epsilon, self.delta, net.shape[0], kernel.feature_distance(radius, spacing),
            self.failure_probability, self.rounds)
        private = model.predict(net)
        public = np.zeros(net.shape[0])
        centers, coef = [], []
        self.certified_ = False
        for round_index in range(parameters.rounds):
            scores = np.abs(private - public)
            logits = parameters.selection_epsilon * scores / (2 * parameters.score_sensitivity)
            weights = np.exp(logits - logits.max())
            chosen = rng.choice(net.shape[0], p=weights / weights.sum())
            gap = private[chosen] - public[chosen] + sample_laplace(1, parameters.answer_noise, rng)[0]
            if abs(gap) <= parameters.threshold:
                self.certified_ = True
                break
            centers.append(net[chosen])
            coef.append(parameters.step if gap >= 0 else -parameters.step)
            public += coef[-1] * kernel.gram(net, net[chosen:chosen + 1])[:, 0]
        self.rounds_used_ = round_index + 1
        self.parameters_ = parameters
        self.solve_report_ = model.report
        self.predictor_ = KernelPredictor(
            kernel, np.array(centers).reshape(-1, model.n_features), np.array(coef),
            self._privacy_record(model, **parameters.to_dict()))
        return self
