"""When a release is mostly noise: :class:`NoiseDominatesWarning`, from public quantities only.

The estimators (:mod:`dpcvx.estimators`, :mod:`dpcvx.regressors`) call
:func:`warn_if_noise_dominates` after each fit. It compares the expected noise of the
release with public scales of the signal, computed from the release certificate
(epsilon, n, d, lam and the verified L, m, R), never from the data or the fitted
weights; docs/theory.md, section 21, gives the two rules. The warning points at the
user's line (:func:`dpcvx.exceptions.user_stacklevel`), also through scikit-learn's
wrappers. Its advice on lam points at lam='auto', the documented public rule
(docs/theory.md, section 25); the classifiers also name the value that rule gives.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import cvxpy as cp

from .exceptions import DPCVXWarning, user_stacklevel
from .release.model import ReleaseCertificate
from .verification.verifier import Loss

__all__ = ["NoiseDominatesWarning", "NOISE_RATIO_LIMIT", "MARGIN_SCALE", "loss_at_zero", "noise_to_signal",
           "noise_in_predictions", "warn_if_noise_dominates"]


class NoiseDominatesWarning(DPCVXWarning):
    """The release is mostly noise: the expected noise in the released weights exceeds
    ``NOISE_RATIO_LIMIT`` times the largest norm the non-private weights can have (or, for a
    regressor, its share of a prediction exceeds the label bound). Computed from public
    quantities only (see :func:`warn_if_noise_dominates`)."""


#: Warn when the expected noise norm exceeds this many times the bound on ||w*|| (or, for output
#: perturbation, the noise in a prediction exceeds this many times the useful scale). Near 1 the
#: release may still carry some signal (the bound is attained only by extreme data); at 2 the
#: noise is expected to be twice as large as any weights the data could give.
NOISE_RATIO_LIMIT = 2.0


def loss_at_zero(loss: Loss) -> float | None:
    """l(0), the loss of the zero model at every record (public: a property of the loss)."""
    try:
        computed = loss(cp.Constant(0.0)).value
        value = float(computed) if computed is not None else math.nan
    except Exception:  # noqa: BLE001 - any callable may fail here: use the Lipschitz bound alone
        return None
    return value if math.isfinite(value) and value > 0 else None


def noise_to_signal(certificate: ReleaseCertificate, loss_at_zero: float | None = None) -> tuple[float, float]:
    """(expected norm of the noise in w, upper bound on the norm of the non-private minimiser).

    Both are functions of the release certificate only (epsilon, n, d, lam and the verified
    constants L, m, R): public, never a statistic of the data.

    * Noise. Output perturbation adds b with density ~ exp(-beta ||b||), so E||b|| = d / beta.
      Objective perturbation adds b^T w / n to an objective that is (m lam + Delta)-strongly
      convex, which moves the minimiser by at most ||b|| / (n (m lam + Delta)): about
      d / (beta n (m lam + Delta)) (plus the small approximate-minimiser noise d / beta_2).
      With delta > 0 the noise is N(0, sigma^2 I), E||b|| <= sigma sqrt(d), in the same places.
    * Signal. The minimiser w* of J(w) + (Delta/2) ||w||^2, J(w) = (1/n) sum l + lam N(w)
      with N(w) >= m/2 ||w||^2 (Delta = 0 for output perturbation), is s-strongly convex with
      s = m lam + Delta; so s ||w*|| <= L R (the gradient of the loss term is at most L R) and,
      from J(w*) <= J(0), s/2 ||w*||^2 <= l(0) (for a loss >= 0 and N(0) = 0, as in the
      catalogue): ||w*|| <= min(L R / s, sqrt(2 l(0) / s)).

    A ratio above 1 means the expected noise is larger than any weights the data could give.
    """
    constants, calibration = certificate.constants, certificate.calibration
    n, d = int(constants["n"]), int(constants["d"])
    lam, L, m, R = (float(constants[key]) for key in ("lam", "L", "m", "R"))
    strong = m * lam + float(calibration.get("extra_reg", 0.0))
    if calibration.get("noise") == "gaussian":
        root_d = math.sqrt(d)
        if certificate.mechanism == "objective":
            noise = float(calibration["sigma"]) * root_d / (n * strong) + float(calibration["amp_sigma"]) * root_d
        else:
            noise = float(calibration["sigma"]) * root_d
    elif certificate.mechanism == "objective":
        noise = d / (float(calibration["beta"]) * n * strong)
        if calibration.get("amp_beta"):
            noise += d / float(calibration["amp_beta"])
    else:
        noise = d / float(calibration["beta"])
    bound = L * R / strong
    if loss_at_zero is not None:
        bound = min(bound, math.sqrt(2 * loss_at_zero / strong))
    return noise, bound


def noise_in_predictions(certificate: ReleaseCertificate, noise: float) -> float:
    """The noise's typical share of one prediction at the public row bound: E||b|| R / sqrt(d) (public).

    The noise b in the weights is isotropic (its density is a function of ||b||: the
    Laplace-ball and Gaussian samplers), so for a row x the prediction's noise b^T x has
    standard deviation ||x|| sqrt(E||b||^2 / d), about E||b|| ||x|| / sqrt(d); at ||x|| = R
    (the effective R, intercept included) that is E||b|| R / sqrt(d).
    """
    constants = certificate.constants
    return noise * float(constants["R"]) / math.sqrt(int(constants["d"]))


#: The scale a useful classifier's decision values reach: the margin 1 at which the catalogue's
#: margin losses turn flat (hinge family) or bend (logistic).
MARGIN_SCALE = 1.0


def warn_if_noise_dominates(owner: str, certificate: ReleaseCertificate, loss_at_zero: float | None,
                            prediction_scale: float = MARGIN_SCALE,
                            lam_advice: Callable[[], str] | None = None) -> None:
    """Warn :class:`NoiseDominatesWarning` when a release is mostly noise, from public quantities only.

    * weights (either mechanism): the expected noise norm E||b|| against the largest norm the
      non-private weights can have on ANY data, min(L R / s, sqrt(2 l(0) / s))
      (:func:`noise_to_signal`). Above it the noise is larger than any signal could be.
    * predictions (output perturbation, whose E||b|| = d / beta or sigma sqrt(d) is exact,
      not an upper bound as for objective perturbation): the noise's typical share of a
      prediction at ||x|| = R, E||b|| R / sqrt(d) (:func:`noise_in_predictions`), against
      ``prediction_scale``, the public scale of a useful model's predictions: the margin 1
      for a classifier (:data:`MARGIN_SCALE`), the label bound B for a regressor (labels in
      [-B, B] have standard deviation at most B). The bound on ||w*|| is attained only by
      extreme data, so this catches releases whose noise is below that bound but far above
      what a useful model needs.

    Either ratio above ``NOISE_RATIO_LIMIT`` warns. The fitted weights and the data are never
    looked at. ``lam_advice`` (called only when the warning fires) names the value of the public
    rule ``lam="auto"`` (docs/theory.md, section 25). The warning points at the user's line
    (:func:`dpcvx.exceptions.user_stacklevel`), also through scikit-learn's wrappers.
    """
    noise, bound = noise_to_signal(certificate, loss_at_zero)
    ratio = noise / bound
    shown = (f"the expected noise in the weights (norm about {noise:.3g}) is {ratio:.3g} times {bound:.3g}, the "
             "largest norm the non-private weights can have")
    if certificate.mechanism == "output":
        spread = noise_in_predictions(certificate, noise)
        ratio = max(ratio, spread / prediction_scale)
        shown += (f"; at ||x|| = R it moves a prediction by about {spread:.3g}, {spread / prediction_scale:.3g} "
                  f"times {prediction_scale:g}, the scale of a useful model's predictions")
    if ratio <= NOISE_RATIO_LIMIT:
        return
    constants = certificate.constants
    warnings.warn(
        f"{owner}: the model is mostly noise: {shown}. This compares public quantities only "
        f"(epsilon={certificate.epsilon:g}, n={int(constants['n'])}, d={int(constants['d'])} with the intercept, "
        f"lam={float(constants['lam']):g}, L, m, R), never the data. To lower the noise: raise epsilon or the "
        "number of rows, use fewer features, or choose lam by its documented rule (see lam='auto'"
        + ("" if lam_advice is None else f": {lam_advice()}") + ")",
        NoiseDominatesWarning, stacklevel=user_stacklevel(),
    )
