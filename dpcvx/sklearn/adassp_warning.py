"""When an AdaSSP release is mostly noise: a public rule from its own noise scales.

:class:`dpcvx.DPLinearRegression` calls :func:`warn_if_adassp_noise_dominates` after an AdaSSP
fit, before the fit returns, as the other estimators call
:func:`dpcvx.sklearn.noise_warning.warn_if_noise_dominates`. It reads the release certificate's
calibration (epsilon, delta, d, the public bounds R and B, hence the sigmas of X^T X and
X^T y) and n, never the data or the fitted weights; docs/theory.md, section 30, derives it.

The rule. Take the most favourable public picture: rows at the bound R that fill the d
directions evenly, so X^T X = lam_bar I with lam_bar = n R^2 / d (trace X^T X <= n R^2), and a
signal that uses the whole label bound B at a typical row (||theta*|| R / sqrt(d) = B). AdaSSP
solves (X^T X + E + rho I) theta = X^T y + e with E symmetric Gaussian of entry scale sigma_2
and e Gaussian of scale sigma_3 (Wang, UAI 2018, Algorithm 2; :mod:`dpcvx.privacy.adassp`).
At a typical row, in units of B, the signal kept is lam_bar / (lam_bar + rho) and the noise
is N / (lam_bar + rho), N = sqrt((sigma_3 R / B)^2 + d sigma_2^2) (e moves a prediction by
sigma_3 R / (lam_bar + rho), E theta* by sigma_2 sqrt(d) B / (lam_bar + rho)). Their ratio

    N / lam_bar = d sqrt((sigma_3 R / B)^2 + d sigma_2^2) / (n R^2)

does not depend on the ridge rho. Above ``ADASSP_RATIO_LIMIT`` (1: the noise in a prediction
exceeds the largest signal B allows) the release is predicted to do worse than predicting
0 and the warning fires. The advice names epsilon, n and d only, never a ridge: AdaSSP
chooses its own ridge from public quantities (lam="auto", the default, adds none). The
extra ridge rho* / n that the rule's picture predicts best (docs/theory.md, section 30)
helped on synthetic rows of that picture (benchmarks/results/adassp_warning.md) and raised
the test MSE on real tables (issue 42's wages table 2465 -> 3397;
benchmarks/results/warning_advice.md), so it is no longer advised.

A second public rule (docs/theory.md section 16, "the label's range alone"): a plain AdaSSP release
(no private range of the label) at an n too small for the label's range search at this epsilon and delta
(:func:`~dpcvx.privacy.adassp.label_search_rows`) centres the label at the public midpoint and scales its noise
with the public half-width B. When the labels fill a small part of their public range, its predictions can then
be far worse than the labels' mean (issue 42: R^2 about -10,000 on a label near 300 in [0, 100000]), and nothing
public can tell, so the warning fires whenever that holds: it reads epsilon, delta, n and the mechanism only.

Under add/remove neighbours n is private: the rule needs it, so no warning is given
(nor advice: ``lam > 0`` is refused there).
"""

from __future__ import annotations

import math
import warnings

from ..exceptions import user_stacklevel
from ..privacy.adassp import AdaSSPCalibration, label_search_rows
from ..privacy.neighbours import Neighbours
from ..release.regression_model import SufficientStatisticsCertificate
from .noise_warning import NoiseDominatesWarning, label_not_located

__all__ = ["ADASSP_RATIO_LIMIT", "adassp_noise_to_signal",
           "warn_if_adassp_noise_dominates"]

#: AdaSSP warns when the noise in a typical prediction exceeds this many times the signal's share
#: (:func:`adassp_noise_to_signal`); 1 is where the predicted error reaches the zero model's.
ADASSP_RATIO_LIMIT = 1.0


def _typical_eigenvalue(calibration: AdaSSPCalibration, n: int) -> float:
    """lam_bar = n R^2 / d: X^T X's eigenvalue for n rows at the bound filling d directions (public)."""
    return n * calibration.data_norm**2 / calibration.dim


def _noise_scale(calibration: AdaSSPCalibration) -> float:
    """N = sqrt((sigma_3 R / B)^2 + d sigma_2^2), the noise of a typical prediction times (lam_bar + rho) / B."""
    _, sigma_gram, sigma_moment = calibration.sigmas
    return math.hypot(sigma_moment * calibration.data_norm / calibration.label_bound,
                      math.sqrt(calibration.dim) * sigma_gram)


def adassp_noise_to_signal(calibration: AdaSSPCalibration, n: int) -> float:
    """N / lam_bar, the noise's share of a typical prediction over the signal's (module docstring).

    A function of epsilon, delta, d, R, B (through the calibration's sigmas) and n only."""
    return _noise_scale(calibration) / _typical_eigenvalue(calibration, n)


def warn_if_adassp_noise_dominates(owner: str, certificate: SufficientStatisticsCertificate, n: int,
                                   also: str | None = None) -> None:
    """Warn :class:`~dpcvx.sklearn.noise_warning.NoiseDominatesWarning` when :func:`adassp_noise_to_signal` exceeds
    ``ADASSP_RATIO_LIMIT`` or the label was not located at n (module docstring). Reads the certificate (public) and n;
    the message holds them only. ``also``: the text of another public rule that fired (the estimator's: its default
    drew no label range for the input's kind or its settings), given in the same warning. Nothing under add/remove
    (n is private). Points at the user's line (:func:`user_stacklevel`)."""
    calibration = certificate.calibration
    if calibration.neighbours is not Neighbours.REPLACE_ONE:
        return
    ratio = adassp_noise_to_signal(calibration, n)
    located = calibration.range_columns > 0 or calibration.column_statistics
    least = None if located else label_search_rows(calibration.epsilon, calibration.delta)
    texts = [] if least is None or n >= least else [
        label_not_located(n, least, calibration.label_bound, epsilon=calibration.epsilon, delta=calibration.delta)]
    if also is not None:
        texts.append(also)
    if ratio <= ADASSP_RATIO_LIMIT and not texts:
        return
    noise = (
        f"the model is mostly noise: AdaSSP's noise moves a typical prediction by about {ratio:.3g} "
        f"times the largest signal the label bound allows (rows at the bound R filling the d directions). "
        f"This compares public quantities only (epsilon={calibration.epsilon:g}, delta={calibration.delta:g}, "
        f"n={n}, d={calibration.dim} and R={calibration.data_norm:g} with the intercept, "
        f"B={calibration.label_bound:g}: the sigmas of X^T X and X^T y), never the data. To lower the noise: "
        f"raise epsilon or the number of rows, or use fewer features. AdaSSP already chooses its ridge from these "
        f"public quantities (lam='auto', the default, adds none); an extra ridge is not advised")
    if ratio > ADASSP_RATIO_LIMIT:
        texts.insert(0, noise)
    warnings.warn(f"{owner}: " + "; and ".join(texts), NoiseDominatesWarning, stacklevel=user_stacklevel())
