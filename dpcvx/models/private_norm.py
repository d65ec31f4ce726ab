"""Fitting without a public norm bound: a share of the budget buys R (opt-in), then the fit clips to it.

:func:`fit_private_norm` is the opt-in for a user who has no public bound R on ||x_i||:

1. every input is checked first, with the learner set to the smallest and to the largest R of the public
   grid (the calibration is monotone in R, so a fit at any grid point is accepted when both are);
2. the accountant is charged ONCE with the total epsilon = eps_q + eps_fit (a refused call spends nothing);
3. R is drawn by the exponential-mechanism quantile of the row norms (:mod:`dpcvx.privacy.quantile`,
   eps_q-DP under replace-one, drawn exactly), over the powers of two in the public [r_min, r_max];
4. the learner is fitted with ``data_norm=R`` (rows beyond R clipped onto it) and eps_fit.

By sequential composition the pair (R, model) is (eps_q + eps_fit)-DP; the model's own certificate is
the fit's (eps_fit, given R) and :class:`PrivateNormResult` states the total. Pure epsilon only: the
quantile has no Gaussian curve to compose with an (epsilon, delta) fit's curve here. The default of every
learner stays a public bound or a refusal; a bound is never read off the data without this charge.
"""

from __future__ import annotations

import copy
import math
import warnings
from dataclasses import dataclass
from typing import Any

from numpy.typing import ArrayLike

from ..exceptions import ClippingWarning, InputError
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.neighbours import Neighbours
from ..privacy.quantile import NormBound, power_of_two_grid, private_norm_bound
from ..privacy.rng import RandomState, resolve_rng
from ..validation import check_epsilon

__all__ = ["fit_private_norm", "PrivateNormResult", "split_budget", "NORM_SHARE", "NORM_QUANTILE"]

NORM_SHARE = 0.1      # eps_q = 10% of the budget by default
NORM_QUANTILE = 0.95  # the target quantile q of the row norms


def split_budget(epsilon: float, share: float) -> tuple[float, float]:
    """(eps_q, eps_fit) with eps_q = share epsilon and eps_q + eps_fit <= epsilon in floating point."""
    epsilon = check_epsilon(epsilon)
    if not 0 < share < 1:
        raise InputError(f"share must lie in (0, 1), got {share}")
    eps_q = epsilon * share
    eps_fit = epsilon - eps_q
    while eps_q + eps_fit > epsilon:
        eps_fit = math.nextafter(eps_fit, 0.0)
    return eps_q, eps_fit


@dataclass(frozen=True)
class PrivateNormResult:
    """The release: the model (fitted with ``data_norm = norm.bound`` and eps_fit) and the bound's record.

    ``epsilon`` = eps_q + eps_fit is what the whole cost and what the accountant was charged; the model's
    own certificate states eps_fit, its part given R.
    """

    model: Any
    norm: NormBound
    fit_epsilon: float

    @property
    def epsilon(self) -> float:
        return self.norm.epsilon + self.fit_epsilon

    @property
    def guarantee(self) -> str:
        return (f"({self.epsilon:g}, 0)-differential privacy (replace-one): the row-norm bound R = {self.norm.bound:g} "
                f"was drawn by the exponential-mechanism quantile (q = {self.norm.quantile:g}) with "
                f"eps_q = {self.norm.epsilon:g}, then the model was fitted with R and eps_fit = {self.fit_epsilon:g}; "
                "sequential composition")

    def to_dict(self) -> dict:
        release = getattr(getattr(self.model, "certificate", None), "to_dict", None)
        return {"guarantee": self.guarantee, "epsilon": self.epsilon, "delta": 0.0, "fit_epsilon": self.fit_epsilon,
                "norm_bound": self.norm.to_dict(), "release": release() if release else None}


def _with_bound(learner: Any, bound: float) -> Any:
    candidate = copy.deepcopy(learner)
    candidate.set_params(data_norm=bound)
    return candidate


def fit_private_norm(learner: Any, X: Any, y: ArrayLike, epsilon: float, *, r_min: float, r_max: float,
                     share: float = NORM_SHARE, quantile: float = NORM_QUANTILE,
                     accountant: PrivacyAccountant | None = None, random_state: RandomState = None,
                     **fit_params: Any) -> PrivateNormResult:
    """Fit ``learner`` (a :class:`~dpcvx.PrivateERM` or any learner with ``set_params(data_norm=)``,
    ``check_fit_inputs`` and ``fit(X, y, epsilon=, random_state=)``) with a privately chosen row-norm bound.

    ``[r_min, r_max]`` is the public range of the grid; ``share`` the fraction eps_q / epsilon; ``quantile``
    the target q. ``fit_params`` go to every fit (not delta: pure epsilon only). Module docstring for the order.
    """
    eps_q, eps_fit = split_budget(epsilon, share)
    if fit_params.get("delta", 0) or Neighbours.parse(fit_params.get("neighbours", Neighbours.REPLACE_ONE)) \
            is not Neighbours.REPLACE_ONE:
        raise InputError("a private norm bound is offered for pure epsilon under replace-one neighbours (the "
                         "quantile's sensitivity and the composition are proved there); nothing was charged")
    check_accountant(accountant)
    grid = power_of_two_grid(r_min, r_max)
    if not 0 < quantile < 1:
        raise InputError(f"quantile must lie in (0, 1), got {quantile}")
    with warnings.catch_warnings():  # the checks at the grid's ends: their clipping counts are not the fit's
        warnings.simplefilter("ignore", ClippingWarning)
        for bound in {grid[0], grid[-1]}:
            _with_bound(learner, bound).check_fit_inputs(X, y, epsilon=eps_fit, **fit_params)
    if accountant is not None:
        accountant.spend(eps_q + eps_fit, 0.0, description=f"private norm bound (eps_q={eps_q:g}) and fit "
                         f"(eps_fit={eps_fit:g})", neighbours=Neighbours.REPLACE_ONE)
    rng = None if random_state is None else resolve_rng(random_state)  # one stream for the draw and the fit
    norm = private_norm_bound(X, epsilon=eps_q, r_min=r_min, r_max=r_max, quantile=quantile, random_state=rng)
    model = _with_bound(learner, norm.bound).fit(X, y, epsilon=eps_fit, random_state=rng, **fit_params)
    return PrivateNormResult(model=model, norm=norm, fit_epsilon=eps_fit)
