"""Full-batch differentially private gradient descent (DP-GD), a baseline for benchmarks/delta_mechanisms.py.

Objective (the one dpcvx's PrivateERM minimises, no intercept, the constant
feature inside the rows):

    F(w) = (1/n) sum_i l(y_i w^T x_i) + (Lam / 2) ||w||^2.

Each step adds Gaussian noise to the full averaged gradient:

    w_{t+1} = w_t - eta (grad F(w_t) + N(0, s^2 I)),   s = z * 2 L R / n.

Rows have ||x_i|| <= R (checked, public bound) and |l'| <= L, so one record's
gradient has norm <= L R; under replace-one neighbours (n public) the averaged
data gradient moves by at most 2 L R / n. The ridge term does not depend on
the data. z is the noise multiplier.

Accounting (Renyi DP): one step of the Gaussian mechanism with sensitivity D
and noise s has RDP alpha D^2 / (2 s^2) = alpha / (2 z^2) at every order
alpha > 1; T adaptive steps compose to T alpha / (2 z^2). The (epsilon, delta)
guarantee is the improved conversion (Balle et al. 2020, Thm 21), dpcvx's
:func:`dpcvx.privacy.privacy_curve.rdp_conversion` (the RDP curve of one step is
dpcvx's :class:`~dpcvx.privacy.privacy_curve.CurvePart` of a Gaussian), minimised
over a finer grid of orders than dpcvx's accountant uses, then refined:

    epsilon = min_{alpha > 1} [ rdp(alpha) + log((alpha - 1) / alpha) - (log delta + log alpha) / (alpha - 1) ].

:func:`noise_multiplier` finds the smallest z (bisection, rounded up) whose T
steps meet (epsilon, delta). The released point is the LAST iterate (it is a
post-processing of the T noisy gradients).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit

from dpcvx.privacy.privacy_curve import CurvePart, rdp_conversion

__all__ = ["rdp_epsilon", "gaussian_rdp", "noise_multiplier", "dpgd", "margin_derivative", "LOSS_LIPSCHITZ"]

# Orders searched (then refined by a bounded scalar search around the best grid point).
_ALPHAS = 1.0 + np.logspace(-4, 5, 2000)

LOSS_LIPSCHITZ = 1.0  # logistic and Huber hinge: |l'| <= 1


def gaussian_rdp(alpha, noise_multiplier: float, steps: int):
    """RDP of ``steps`` compositions (RDP adds up) of the Gaussian mechanism with noise multiplier z = s / D."""
    step = CurvePart("gaussian", "one DP-GD step", noise_multiplier=noise_multiplier)
    return steps * step.rdp(np.asarray(alpha, dtype=float))


def rdp_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    """The (epsilon, delta) epsilon of T Gaussian steps by the improved RDP conversion, min over alpha."""
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    if noise_multiplier <= 0 or steps < 1:
        raise ValueError("noise_multiplier must be positive and steps >= 1")
    values = rdp_conversion(gaussian_rdp(_ALPHAS, noise_multiplier, steps), _ALPHAS, delta)
    best = int(np.argmin(values))
    low = _ALPHAS[max(best - 1, 0)]
    high = _ALPHAS[min(best + 1, len(_ALPHAS) - 1)]
    refined = minimize_scalar(
        lambda a: float(rdp_conversion(gaussian_rdp(a, noise_multiplier, steps), a, delta)),
        bounds=(low, high), method="bounded", options={"xatol": 1e-10})
    return float(min(values[best], refined.fun))


def noise_multiplier(epsilon: float, delta: float, steps: int) -> float:
    """The smallest z (to 1e-10 relative, rounded up) such that T steps are (epsilon, delta)-DP by RDP."""
    if epsilon <= 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    low, high = 1e-3, 1.0
    while rdp_epsilon(high, steps, delta) > epsilon:
        low, high = high, 2 * high
    while low > 1e-12 and rdp_epsilon(low, steps, delta) <= epsilon:
        low /= 2
    while (high - low) > 1e-10 * high:
        middle = (low + high) / 2
        if rdp_epsilon(middle, steps, delta) <= epsilon:
            high = middle
        else:
            low = middle
    return high


def margin_derivative(loss: str, z: np.ndarray, h: float = 0.5) -> np.ndarray:
    """l'(z) of the margin loss: logistic log(1 + e^-z) or the Huber hinge of JMLR 2011 (eq. 23)."""
    if loss == "logistic":
        return -expit(-z)
    if loss == "huber":
        out = np.where(z < 1 - h, -1.0, -(1 + h - z) / (2 * h))
        return np.where(z > 1 + h, 0.0, out)
    raise ValueError(f"unknown loss {loss!r}")


def dpgd(X: np.ndarray, y: np.ndarray, lam: float, *, epsilon: float | None, delta: float, steps: int,
         step_size: float, rng: np.random.Generator | None, loss: str = "logistic", norm_bound: float = 1.0,
         h: float = 0.5, neighbours: str = "replace-one") -> tuple[np.ndarray, dict]:
    """Run DP-GD from w = 0 and return (last iterate, info).

    ``epsilon=None`` runs the same iteration without noise (non-private GD).
    ``info`` holds the noise multiplier z, the per-coordinate noise s and the
    RDP epsilon actually achieved. ``neighbours``: replace-one moves the averaged gradient by
    at most 2 L R / n, add/remove (n then the public size) by L R / n.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    if np.max(np.linalg.norm(X, axis=1)) > norm_bound * (1 + 1e-12):
        raise ValueError("a row exceeds the public norm bound R; DP-GD's sensitivity would not hold")
    sensitivity = (2.0 if neighbours == "replace-one" else 1.0) * LOSS_LIPSCHITZ * norm_bound / n
    if epsilon is None:
        z, scale, achieved = 0.0, 0.0, math.inf
    else:
        z = noise_multiplier(epsilon, delta, steps)
        scale = z * sensitivity
        achieved = rdp_epsilon(z, steps, delta)
    w = np.zeros(d)
    yX = X * y[:, None]
    for _ in range(steps):
        grad = yX.T @ margin_derivative(loss, yX @ w, h) / n + lam * w
        if scale > 0:
            grad = grad + scale * rng.standard_normal(d)
        w = w - step_size * grad
    info = {"noise_multiplier": z, "noise_std": scale, "sensitivity": sensitivity, "steps": steps,
            "step_size": step_size, "rdp_epsilon": achieved, "delta": delta, "released": "last iterate"}
    return w, info
