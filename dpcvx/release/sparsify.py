"""Exact zeros for L1, elastic-net and group-lasso releases: public-rule thresholding, a post-processing.

Why a release has no exact zeros. The L1 (or group) term makes exact zeros in
the minimiser of the perturbed objective, but every mechanism then adds noise
to every coordinate of the weights: objective perturbation covers the
approximate minimiser with output noise (approximate minima perturbation,
docs/theory.md section 7), output perturbation adds its noise to the whole
vector. The released weights are non-zero with probability one.

What is offered. :meth:`Sparsifiable.sparsify` sets to zero the weights whose
magnitude is at most a public ``threshold``, or keeps the ``keep`` largest
magnitudes. Both rules read only the released weights and a public number
chosen without looking at the data, so the result is a function of the
release: post-processing, which keeps the release's (epsilon, delta) and is
charged nothing (Dwork and Roth 2014, Proposition 2.1). The certificate
records the rule.

What the rule changes in predictions, exactly: w^T x changes by
-sum_{j zeroed} w_j x_j, so by at most ``threshold * ||x_Z||_1`` (Z the zeroed
coordinates) and by at most ``threshold * sqrt(|Z|) * R`` for a row of norm R;
rows that are zero on Z are predicted as before. The intercept is never
thresholded.

What is not offered: a private support selection (choosing the coordinates from
the data, e.g. a top-k by the exponential mechanism or report-noisy-max on a
per-coordinate score). Its cost depends on the sensitivity of the score, which
dpcvx has not proved for these problems; it is documented as not offered.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..validation import integer, non_negative

__all__ = ["Sparsifiable", "threshold_rule"]


def threshold_rule(coef: np.ndarray, threshold: float | None, keep: int | None) -> tuple[np.ndarray, str]:
    """(the thresholded weights, the rule as the certificate states it); exactly one of the two rules."""
    if (threshold is None) == (keep is None):
        raise InputError("give exactly one public rule: threshold=t (zero |w_j| <= t) or keep=k (keep the k largest "
                         "|w_j|), chosen without looking at the data")
    weights = np.array(coef, dtype=float)
    magnitude = np.abs(weights)
    if threshold is not None:  # a public number >= 0, checked as every number of dpcvx (numpy's scalars taken)
        cut = non_negative("threshold", threshold)
        weights[magnitude <= cut] = 0.0
        return weights, f"weights with |w_j| <= {cut!r} set to 0"
    size = weights.shape[0]
    keep = integer("keep", keep, minimum=0, maximum=size)  # at most the number of features
    order = np.argsort(-magnitude, kind="stable")  # ties broken by index: a function of the release only
    weights[order[keep:]] = 0.0
    return weights, f"all but the {int(keep)} largest |w_j| set to 0"


class Sparsifiable:
    """``sparsify`` for a linear release (``coef_``, ``certificate`` with ``post_processing``)."""

    coef_: np.ndarray
    certificate: Any

    def sparsify(self, threshold: float | None = None, *, keep: int | None = None) -> Any:
        """A copy of this release with exact zeros: a public-rule post-processing, charged nothing.

        ``threshold``: set to 0 every weight with |w_j| <= threshold. ``keep``:
        keep the ``keep`` largest |w_j| and set the others to 0. The number must
        be public, fixed without looking at the data (for example a multiple of
        the weights' noise scale computed from the certificate's public
        calibration, or the number of features a user wants); a number tuned on
        the private data would leak. The intercept is not changed. The new
        model's certificate lists the rule under ``post_processing``; its
        epsilon and delta are the release's (post-processing, docs/theory.md).
        """
        if getattr(self.certificate, "post_processing", None) is None or np.ndim(self.coef_) != 1:
            raise InputError("sparsify is offered for a binary classifier or a regression released by PrivateERM")
        weights, rule = threshold_rule(self.coef_, threshold, keep)
        released = copy.copy(self)
        released.coef_ = weights
        steps = (*self.certificate.post_processing, f"{rule} (public rule on the released weights: "
                 "post-processing, no privacy cost)")
        released.certificate = replace(self.certificate, post_processing=steps,
                                       findings=released.public_findings())
        return released

    def public_findings(self) -> tuple[str, ...]:
        """The public checks of the released weights the certificate states (a classifier's:
        :func:`dpcvx.release.usefulness.one_class_findings`; none for a regression)."""
        return ()
