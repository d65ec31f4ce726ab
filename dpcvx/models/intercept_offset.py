"""A public intercept offset for rare classes: the ridge centred at the public log-odds, fixed before the fit.

With public class rates (pi_-, pi_+) (``class_prior``) and no class weights, the Bayes intercept of a model
without signal is b0 = log(pi_+ / pi_-), about -3.5 at 3% positives: a ridge centred at 0 pulls the intercept
away from it, and noise of the same size swamps it. The estimators then regularize the intercept column's
weight v around b0 / s (s the intercept scaling), N(w) = (1/2) ||w - w0||^2, w0 = (0, ..., 0, b0 / s):

* N is the default ridge moved by a public vector: convex, m = 1, twice differentiable, proved by the verifier
  like any declared regularizer (its text shows w0); L, c and m are unchanged, and so is every calibration
  (docs/theory.md, section 21, "The intercept offset");
* the release is an ordinary linear model whose intercept includes the offset, so ``predict_proba``
  (sigmoid(w^T x + b)) is the released model's own link, before and after ``save``/``load``;
* the noise warning measures the signal against the offset model: the loss at w = w0 is at most
  H(pi) = -pi_+ log pi_+ - pi_- log pi_- on average over the prior (:func:`prior_entropy`), not log 2.

Off unless ``class_prior`` is given with ``class_weight=None`` (balanced weights make the weighted log-odds 0).
"""

from __future__ import annotations

import math

from ..release.weight_rules import CentredRidge, log_odds
from ..validation import check_threshold, decision_cut, or_literal

#: A binary classifier's public threshold: "prior" or a probability in (0, 1) (the estimators' parameter check)
THRESHOLD = or_literal("prior", check_threshold)

# CentredRidge, the offset's ridge, is release.weight_rules' (the model file reader rebuilds its text too): named here
__all__ = ["THRESHOLD", "threshold_cut", "CentredRidge", "prior_entropy"]


def threshold_cut(threshold: float | str, rates: tuple[float, float] | None) -> float | None:
    """The decision cut of a binary classifier's public ``threshold`` on w^T x + b: log(t / (1 - t)) of a probability
    t (:func:`~dpcvx.validation.check_threshold`), or for "prior" the log-odds of the class ``rates`` (public, or
    those of a released count: a public function of the release); None for "prior" without rates. The estimators'
    ``threshold`` and the command line's ``--threshold`` both cut here."""
    checked = THRESHOLD("threshold", threshold)  # a text other than "prior" was read as "prior" (set_params)
    if checked == "prior":
        return None if rates is None else log_odds(rates)
    return decision_cut(checked, True)


def prior_entropy(rates: tuple[float, float]) -> float:
    """H(pi) in nats: the logistic loss of the offset model b0 = log(pi_+ / pi_-), averaged over the prior."""
    return -sum(rate * math.log(rate) for rate in rates)
