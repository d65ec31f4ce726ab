"""Record weights of a linear fit: ``sample_weight`` under a public bound, and public class weights.

The weighted risk J_s(w) = (1/n) sum_i s_i l(y_i w^T x_i) + Lam N(w) divides by the PUBLIC n, never by
sum_i s_i (a statistic of the data). With a public bound w_max >= s_i the per-record term s_i l is
(w_max L)-Lipschitz with curvature at most w_max c, so every theorem of docs/theory.md (sections 2-4, 12, 14)
holds with L and c multiplied by w_max (section 21), made in one place,
:meth:`~dpcvx.verification.problem.VerifiedProblem.weighted`.

* ``sample_weight`` needs ``sample_weight_bound`` (w_max): each s_i is clipped onto [0, w_max] (a
  :class:`~dpcvx.exceptions.ClippingWarning` tells the data owner how many; the count is never released).
* ``class_weight``: a public dict {class: weight >= 0} (classes not named weigh 1; w_max = the largest), or
  "balanced": w_k = min_j pi_j / pi_k (largest weight 1, so L and c are unchanged) from public rates pi:
  ``class_prior``, or one private class count (:mod:`dpcvx.models.class_count`).

:class:`RecordWeights` is what a fit's checks fixed, all public; its :meth:`RecordWeights.record` is the
certificate's ``weights``. Nothing here is charged or drawn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..advice import setting
from ..data.notes import warn_clipped
from ..exceptions import InputError, UnsupportedWeightsError
from ..release.draw_texts import WEIGHTS_THEOREM
from ..release.model import CertifiedWeights, ReleaseCertificate
from ..release.weight_rules import balanced_weights, mean_record_weight, weight_bound
from ..validation import LABEL_CHUNK, SignBits, check_bound, check_finite, fraction, non_negative, real_values

__all__ = ["RecordWeights", "WEIGHTS_THEOREM", "check_class_prior", "effective_view",
           "mean_weight",
           "plan_weights", "record_weights", "require_weight_bound"]



@dataclass(frozen=True)
class RecordWeights:
    """The public facts of a fit's record weights: where they came from ("sample_weight", "dict", "prior",
    "private count"), the class weights (None for ``sample_weight`` alone) and ``sample_weight_bound`` (None
    without ``sample_weight``). :attr:`bound` is w_max."""

    source: str
    class_weights: tuple[tuple[Any, float], ...] | None = None
    sample_bound: float | None = None
    rates: tuple[float, float] | None = None  # the PUBLIC class rates of "balanced" (a prior or a released count)

    @property
    def _weights(self) -> tuple[float, ...] | None:
        """The class weights alone, in the order of the classes."""
        return None if self.class_weights is None else tuple(weight for _, weight in self.class_weights)

    @property
    def mean_weight(self) -> float | None:
        """s_bar = sum_k pi_k w_k (2 pi_min for balanced weights) when the rates are public, else None
        (:func:`~dpcvx.release.weight_rules.mean_record_weight`)."""
        return mean_record_weight(self.rates, self._weights, self.sample_bound)

    @property
    def bound(self) -> float:
        """w_max (:func:`~dpcvx.release.weight_rules.weight_bound`)."""
        return weight_bound(self._weights, self.sample_bound)

    def record(self) -> CertifiedWeights:
        """The certificate's ``weights``: public inputs only (the bound, the class weights, their origin)."""
        return CertifiedWeights(
            source=self.source, bound=self.bound, sample_weight_bound=self.sample_bound,
            class_weights=None if self.class_weights is None else
            tuple((_plain(label), weight) for label, weight in self.class_weights),
            mean_weight=self.mean_weight, theorem=WEIGHTS_THEOREM)


def _plain(label: Any) -> Any:
    """A class label as JSON holds it (numpy scalars as Python numbers)."""
    return label.item() if isinstance(label, np.generic) else label


def check_class_prior(class_prior: Any, classes: tuple[Any, Any]) -> tuple[float, float]:
    """The public rates (pi_negative, pi_positive) of ``class_prior``: a dict {class: rate} naming both
    classes, or a pair in the order of ``classes``; each rate in (0, 1), summing to 1 (within 1e-9)."""
    if isinstance(class_prior, Mapping):
        unknown = [key for key in class_prior if not any(key == label for label in classes)]
        if unknown or len(class_prior) != 2:
            raise InputError(f"class_prior must give the rate of each class of classes={classes!r}, got the keys "
                             f"{sorted(map(repr, class_prior))}")
        rates = [class_prior[next(key for key in class_prior if key == label)] for label in classes]
    elif (isinstance(class_prior, Sequence) and not isinstance(class_prior, str) and len(class_prior) == 2) or (
            isinstance(class_prior, np.ndarray) and class_prior.shape == (2,)):  # a numpy pair as a tuple
        rates = list(class_prior)
    else:
        raise InputError(f"class_prior must be a dict {{class: rate}} or a pair of rates in the order of classes="
                         f"{classes!r}, got {class_prior!r}")
    try:  # each rate as every probability of dpcvx is checked (a huge int raised a bare OverflowError)
        negative, positive = (fraction("class_prior", rate) for rate in rates)
    except InputError:
        negative = positive = math.nan
    if not abs(negative + positive - 1) <= 1e-9:
        raise InputError(f"{setting('class_prior')}'s rates must lie in (0, 1) and sum to 1, got {rates!r}: public "
                         "rates of the classes, known without looking at this data (a census, a published base rate)")
    return negative, positive


def _class_weight_dict(class_weight: Mapping[Any, Any], classes: tuple[Any, Any]) -> tuple[float, float]:
    """(w_negative, w_positive) of a public dict; a class it does not name weighs 1."""
    unknown = [key for key in class_weight if not any(key == label for label in classes)]
    if unknown:
        raise InputError(f"class_weight names {sorted(map(repr, unknown))}, which are not among the public "
                         f"classes={classes!r}")
    weights = []
    for label in classes:
        key = next((key for key in class_weight if key == label), None)
        weights.append(1.0 if key is None else non_negative(f"class_weight[{label!r}]", class_weight[key]))
    if max(weights) <= 0:
        raise InputError("class_weight gives every class weight 0: nothing would be fitted")
    return weights[0], weights[1]


def require_weight_bound(sample_weight: Any, sample_weight_bound: Any, owner: str) -> None:
    """Refuse ``sample_weight`` without a public ``sample_weight_bound``: a check without data, of :func:`plan_weights`
    and of the learners' ``check_options`` (an OpenDP measurement is refused when it is made)."""
    if sample_weight is not None and sample_weight_bound is None:
        raise UnsupportedWeightsError(
            f"{owner} takes sample_weight only with a PUBLIC bound sample_weight_bound=w_max >= every weight, "
            "chosen without looking at the data: the weighted loss is (w_max L)-Lipschitz, so the noise grows with "
            "w_max (docs/theory.md, section 21). Pass sample_weight_bound, or fit without weights; nothing was "
            "charged")


def plan_weights(*, sample_weight: Any, sample_weight_bound: Any, class_weight: Any, class_prior: Any,
                 classes: tuple[Any, Any] | None, owner: str) -> RecordWeights | None:
    """The public weights of a fit, checked before anything is charged (None: unit weights).

    "balanced" without ``class_prior`` is planned by :mod:`dpcvx.models.class_count` (a private count), which
    calls the fit again with the drawn weights as a dict; here it is refused."""
    require_weight_bound(sample_weight, sample_weight_bound, owner)
    if isinstance(class_prior, str) and class_prior == "private":
        raise InputError("class_prior='private' draws one private class count inside fit (dpcvx.models.class_count); "
                         "this path takes public rates only. Nothing was charged")
    if class_weight is None and sample_weight is None:
        if class_prior is not None:
            raise InputError("class_prior is read only with class_weight='balanced'")
        return None
    if class_weight is not None and classes is None:
        raise InputError("class_weight is for classification; a regression takes sample_weight only")
    bound = None if sample_weight is None else check_bound("sample_weight_bound", sample_weight_bound)
    if class_weight is None:
        return RecordWeights("sample_weight", sample_bound=bound)
    assert classes is not None
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise InputError(f"class_weight must be None, a dict {{class: weight}} or 'balanced', got "
                             f"{class_weight!r}")
        if class_prior is None:
            raise InputError("class_weight='balanced' without class_prior draws one private class count "
                             "(dpcvx.models.class_count); this path takes public rates only")
        rates = check_class_prior(class_prior, classes)
        weights, source = balanced_weights(rates), "prior"
    elif isinstance(class_weight, Mapping):
        if class_prior is not None:
            raise InputError("class_prior is read only with class_weight='balanced'")
        weights, source, rates = _class_weight_dict(class_weight, classes), "dict", None
    else:
        raise InputError(f"class_weight must be None, a dict {{class: weight}} or 'balanced', got {class_weight!r}")
    plan = RecordWeights(source, tuple(zip(classes, weights, strict=True)), bound, rates)
    check_bound("the largest class weight" + ("" if bound is None else " times sample_weight_bound"), plan.bound)
    return plan


def record_weights(plan: RecordWeights, sample_weight: Any, labels: np.ndarray | SignBits, n: int) -> np.ndarray:
    """s_i for the fit's ``n`` records (``labels`` -1/+1 in the order of the public classes): the class weight of
    y_i times sample_weight[i] clipped onto [0, sample_weight_bound]. The clipping count goes to the data owner
    in a ClippingWarning only.

    One float64 n-vector, the class weights multiplied into it a chunk of labels at a time: the whole labels, class
    weights and product beside it were 2.1 times a 10,000,000 x 1 memmap's bytes in its fit (issue 44), now 1.04."""
    weights = np.ones(n)
    if plan.sample_bound is not None:
        given = real_values("sample_weight", sample_weight)
        if given.shape != (n,):
            raise InputError(f"sample_weight must hold one number per record, shape ({n},), got shape {given.shape}")
        check_finite("sample_weight", given, "give each record a finite weight")
        bound = plan.sample_bound
        clipped = int(np.count_nonzero((given < 0) | (given > bound)))
        if clipped:
            warn_clipped(f"{clipped} of {n} sample weights lay outside [0, sample_weight_bound = {bound:g}] and were "
                         "clipped onto it. NOT PRIVATE: this count is shown to you only and is not part of the "
                         "release")
        weights = np.clip(given, 0.0, bound)
    if plan.class_weights is not None:  # in place, LABEL_CHUNK labels at a time (SignBits of row blocks too)
        (_, negative), (_, positive) = plan.class_weights
        for start in range(0, n, LABEL_CHUNK):
            part = weights[start:start + LABEL_CHUNK]
            part *= np.where(labels[start:start + LABEL_CHUNK] > 0, positive, negative)
    return weights


def effective_view(certificate: ReleaseCertificate) -> ReleaseCertificate:
    """The certificate as the unweighted release it is equivalent to, for the public noise warning: with mean
    weight s_bar (public), (1/n) sum s_i l + Lam N + b^T w / n = s_bar [(1/(n s_bar)) sum s_i l + (Lam / s_bar) N
    + b^T w / (n s_bar)], so n s_bar records, Lam / s_bar and Delta / s_bar (docs/theory.md, section 21): the
    view's constants are n s_bar and Lam / s_bar; the warning divides Delta by :func:`mean_weight`.
    Unchanged without a public mean weight."""
    mean = mean_weight(certificate)
    if mean == 1:
        return certificate
    constants = certificate.constants
    return replace(certificate, constants=replace(constants, n=max(1, round(constants.n * mean)),
                                                  lam=constants.lam / mean))


def mean_weight(certificate: ReleaseCertificate) -> float:
    """s_bar, the public mean record weight the certificate states (balanced class weights), else 1."""
    mean = None if certificate.weights is None else certificate.weights.mean_weight
    return 1.0 if mean is None else float(mean)
