"""The multiclass release: k one-vs-rest linear models over PUBLIC classes, one total budget.

Made by :class:`dpcvx.models.multiclass.PrivateMulticlassERM`. ``coef_`` is
(k, d) and ``intercept_`` (k,), one row per public class in the declared
order; ``decision_function`` gives the k scores s_c = w_c^T x + b_c, ``predict`` the class of the
largest s_c - t_c, t the (k,) ``decision_cut`` (0 unless set: a classifier's ``threshold="prior"`` with
``class_prior="private"`` cuts each class at the log-odds of its released count, docs/theory.md section 15),
``predict_proba`` the softmax of s - t (a monotone map of what ``predict`` compares, so its largest column is
the class ``predict`` says; not a calibrated probability) for the logistic loss, absent for a loss without
probabilities. The certificate states the one total (epsilon, delta), how it was
split over the classes, and each class's release certificate; with private column
statistics drawn once before the k fits, their record too (``column_statistics``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..data.rows import RowMap
from ..exceptions import InputError
from ..privacy.float_guarantee import FloatGuarantee
from ..privacy.privacy_curve import CandidateMark, CurvePart, PrivacyCurve, drawn_curve_parts, mark_candidate
from ..privacy.rng import NoiseSource
from ..validation import (
    class_labels,
    delta_value,
    epsilon_value,
    instance_of,
    optional,
    real_values,
    tuple_of,
)
from .model import (
    Release,
    ReleaseCertificate,
    WholeCost,
    block_share,
    check_certificate,
    check_feature_names,
    composed_line,
    conditional_mark,
    drawn_parts,
    release_scores,
    require_probabilities,
    scoring_weights,
    statistics_text,
    weighted_share,
)

__all__ = ["MulticlassCertificate", "PrivateMulticlassModel", "class_parts", "softmax_in_place"]


def class_parts(classes: Sequence[Any], curves: Sequence[PrivacyCurve]) -> tuple[CurvePart, ...]:
    """The parts of one-vs-rest's k releases, each named by its class ("class 'yes' against the rest: ..."), where a
    report listed k parts alike; ``curves`` in the classes' order (the composition is the same)."""
    return tuple(replace(part, what=f"class {label!r} against the rest: {part.what}")
                 for label, curve in zip(classes, curves, strict=True) for part in curve.parts)


@dataclass(frozen=True)
class MulticlassCertificate(WholeCost, CandidateMark):
    """One total (epsilon, delta) for k one-vs-rest releases, with the split and each class's certificate.

    ``column_statistics``: the record of private column statistics drawn once before the k fits
    (:mod:`dpcvx.models.column_statistics`: eps_s, the released values, its theorem and ``total_epsilon``), whose map
    every class's rows share; ``fit_epsilon`` the k fits' total eps_fit, split over the classes (epsilon = eps_s +
    eps_fit by sequential composition). Both None when none was drawn (eps_fit = epsilon).
    """

    epsilon: float
    delta: float
    classes: tuple[Any, ...]
    composition: str
    class_epsilon: float
    class_delta: float
    per_class: tuple[ReleaseCertificate, ...]
    findings: tuple[str, ...] = ()  # public checks of the released weights (release/usefulness.py)
    column_statistics: dict | None = None
    fit_epsilon: float | None = None

    def __post_init__(self) -> None:
        """Every field checked, by the constructor and by ``dataclasses.replace`` (:func:`check_certificate`)."""
        check_certificate(self, {
            "epsilon": epsilon_value, "delta": delta_value, "classes": instance_of(tuple),
            "composition": instance_of(str), "class_epsilon": epsilon_value, "class_delta": delta_value,
            "per_class": tuple_of(ReleaseCertificate), "findings": tuple_of(str),
            "column_statistics": optional(instance_of(dict)), "fit_epsilon": optional(epsilon_value),
        })
        if len(self.per_class) != len(self.classes):
            raise InputError(f"MulticlassCertificate holds {len(self.per_class)} per-class certificate(s) for "
                             f"{len(self.classes)} classes: one for each public class")
        if self.candidate_of_tuning is True:  # a copy of a marked certificate (``replace``): its classes' too
            mark_candidate(self)

    def composed_certificates(self) -> tuple[ReleaseCertificate, ...]:
        """Each class's certificate: its curve is a part of this one's, so it is one candidate's share whenever this
        is (:func:`~dpcvx.privacy.privacy_curve.mark_candidate` marks them with it)."""
        return self.per_class

    @property
    def mechanism(self) -> str:
        return f"one-vs-rest {self.per_class[0].mechanism} perturbation"

    @property
    def neighbours(self) -> str:
        return self.per_class[0].neighbours

    @property
    def guarantee(self) -> str:
        statistics = self.column_statistics
        drawn = "" if statistics is None else (
            f": private column statistics (eps_s = {statistics['epsilon']:g}), drawn once, then the one-vs-rest fits "
            f"on the columns they centre and scale (eps_fit = {self.fit_epsilon:g}) by sequential composition, the "
            "fits")
        first = self.per_class[0].guarantee
        each = (f"each class: {first}" if all(other.guarantee == first for other in self.per_class) else
                f"each class as its own certificate states (each counts its class), the first, class "
                f"{self.classes[0]!r}: {first}")
        return (f"({self.epsilon:g}, {self.delta:g})-differential privacy for the whole model of "
                f"{len(self.classes)} public classes{drawn} by {self.composition}; {each}")

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """The composition of the column statistics' draw (when made) and the k releases' curves."""
        curves = [certificate.privacy_curve for certificate in self.per_class]
        drawn = () if self.column_statistics is None else drawn_curve_parts(drawn_parts((self.column_statistics,)))
        return self.marked(PrivacyCurve(drawn + class_parts(self.classes, curves), curves[0].neighbours,
                                                  any(curve.conditional for curve in curves)))

    @property
    def float_guarantee(self) -> FloatGuarantee:
        """The floating-point guarantee every class's release holds (one learner: the same for all)."""
        return self.per_class[0].calibration.float_guarantee or FloatGuarantee.MITIGATION_ONLY

    @property
    def conditional(self) -> bool:
        return any(certificate.conditional for certificate in self.per_class)

    @property
    def noise_source(self) -> NoiseSource:
        """Where the k releases' noise came from, seeded if any class's was (:meth:`NoiseSource.combined
        <dpcvx.privacy.rng.NoiseSource.combined>`): each class's certificate records its own (a file's per-class
        entries), and the column statistics drawn before the fits take their seed from the same ``random_state`` as
        the classes' (:func:`~dpcvx.privacy.rng.child_seeds`), so they are seeded exactly when the classes are."""
        return NoiseSource.combined(certificate.noise_source for certificate in self.per_class)

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "classes": list(self.classes),
                "composition": self.composition, "class_epsilon": self.class_epsilon,
                "class_delta": self.class_delta, "guarantee": self.guarantee,
                "privacy_curve": self.privacy_curve.to_dict(),
                "per_class": [certificate.to_dict() for certificate in self.per_class],
                **({"findings": list(self.findings)} if self.findings else {}),
                **({} if self.column_statistics is None else {"column_statistics": dict(self.column_statistics),
                                                              "fit_epsilon": self.fit_epsilon})}

    def __str__(self) -> str:
        return "\n".join([f"dpcvx multiclass release: {len(self.classes)} public classes {list(self.classes)}, "
                          f"epsilon = {self.epsilon:g} (delta = {self.delta:g}) in total",
                          f"guarantee: {self.guarantee}",
                          f"per class: epsilon = {self.class_epsilon:.6g}, delta = {self.class_delta:.3g}",
                          *([] if self.column_statistics is None or self.fit_epsilon is None else [composed_line(
                              f"{statistics_text(self.column_statistics)}, drawn once for every class",
                              self.fit_epsilon, self.epsilon, self.column_statistics["composition"])]),
                          f"neighbours: {self.neighbours}", self.float_guarantee.statement,
                          self.noise_source.statement,
                          *(f"finding: {finding}" for finding in self.findings)])


def softmax_in_place(scores: np.ndarray) -> np.ndarray:
    """The rows' softmax, :meth:`PrivateMulticlassModel.predict_proba` of rows whose (n, k) decision values are
    ``scores``, computed in ``scores`` itself (one (n, k) array; a caller's scores it owns, as ``predict_proba``'s
    and ``dpcvx predict``'s fresh ones): exp(s_j - max s) / sum_i exp(s_i - max s)."""
    scores -= scores.max(axis=1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=1, keepdims=True)
    return scores


class PrivateMulticlassModel(Release):
    """k one-vs-rest linear scores over public classes, released under one total budget."""

    kind = "multiclass"
    certificate: MulticlassCertificate

    def __init__(self, coef: np.ndarray, intercept: np.ndarray, classes: tuple[Any, ...], rows: RowMap,
                 certificate: MulticlassCertificate) -> None:
        self.coef_ = np.asarray(coef, dtype=float)
        self.intercept_ = np.asarray(intercept, dtype=float)
        self.classes_ = np.asarray(classes)
        self.rows = rows
        self.certificate = certificate
        #: the (k,) decision cuts t: :meth:`predict` says the class of the largest s_c - t_c (the module docstring).
        #: Zeros unless set: a dpcvx classifier's ``threshold="prior"`` with ``class_prior="private"`` sets t_c to the
        #: log-odds of class c's released count (:func:`dpcvx.models.class_count.prior_cuts`, its
        #: ``decision_cut_``), which ``dpcvx.save``
        #: writes and :func:`dpcvx.load` sets. Public numbers (post-processing of the release); not in the certificate
        self.decision_cut = np.zeros(len(self.classes_))

    def decision_function(self, X: Any) -> np.ndarray:
        """(n, k) scores s_c = w_c^T x + b_c for rows mapped as in training (before the cuts: :meth:`predict`
        compares s_c - t_c); a release whose rows map through private column ranges says the share of X's rows
        they clip (:func:`~dpcvx.release.model.release_scores`)."""
        check_feature_names(self, X)
        return release_scores(self, X)

    def predict(self, X: Any) -> np.ndarray:
        """The class of the largest s_c - t_c (:attr:`decision_cut` t; the largest score when t is 0)."""
        return self.predictions(self.decision_function(X))

    def predictions(self, scores: np.ndarray) -> np.ndarray:
        """The class of the largest of each row's (n, k) ``scores`` (:meth:`decision_function`'s) minus
        :attr:`decision_cut`."""
        return self.classes_[np.argmax(self._cut_scores(scores), axis=1)]

    def _cut_scores(self, scores: np.ndarray) -> np.ndarray:
        """``scores`` (n, k) checked, minus the cuts (a new array when a cut is not 0; ``scores`` itself otherwise)."""
        scores = real_values("scores", scores)
        if scores.ndim != 2 or scores.shape[1] != len(self.classes_):
            raise InputError(f"scores must be an (n, {len(self.classes_)}) array of decision values, one column per "
                             f"class, got shape {scores.shape}")
        return scores - self.decision_cut if np.any(self.decision_cut) else scores  # no copy at the default cuts 0

    def score_rows(self, width: int) -> int | None:
        """How many rows :meth:`decision_function` scores at a time (:meth:`RowMap.block_rows`)."""
        return self.rows.block_rows(width)

    @property
    def predict_proba(self) -> Callable[[Any], np.ndarray]:
        """(n, k) softmax of the scores, columns in the order of ``classes_``, for a release of the logistic loss.
        Another loss (the Huber hinge) has no probability model: the attribute is absent (AttributeError), as a
        binary release's (:func:`~dpcvx.release.model.require_probabilities`, the one rule, which ``dpcvx predict``'s
        probability columns follow too)."""
        require_probabilities(self.certificate.per_class[0])
        return self._softmax

    def _softmax(self, X: Any) -> np.ndarray:
        """The softmax of s - t (:attr:`decision_cut`): its largest column is the class :meth:`predict` says."""
        return softmax_in_place(self._cut_scores(self.decision_function(X)))

    @property
    def _classes(self) -> tuple:
        """The public classes as Python values (a refusal names them as the user declared them, not numpy's
        ``np.int64(0)``)."""
        return tuple(self.classes_.tolist())

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy on (X, y), weighted by ``sample_weight`` when given (:func:`~dpcvx.release.model.weighted_share`,
        scikit-learn's ``score``).

        A 2-D numeric array (a memmap) with as many labels is scored a block of rows at a time
        (:meth:`RowMap.score_blocks <dpcvx.data.rows.RowMap.score_blocks>`, the scores of :meth:`decision_function`
        bit for bit), each block's predictions compared with its labels: the same accuracy without the (n, k) scores
        and the n predictions. Labels outside the model's classes are refused (counted and placed, never shown), as
        the binary model's score refuses them: a missing or misspelt label is no mistake of the model."""
        if not self.rows.reads_by_blocks(X):
            predictions = self.predict(X)
            return weighted_share(predictions == class_labels(y, predictions.shape[0], self._classes), sample_weight)
        check_feature_names(self, X)
        labels = class_labels(y, X.shape[0], self._classes)
        weights = scoring_weights(sample_weight, X.shape[0])
        right = 0.0
        for start, scores in self.rows.score_blocks(X, self.coef_):
            scores += self.intercept_  # predictions subtract the cuts
            right += block_share(self.predictions(scores) == labels[start:start + scores.shape[0]], weights, start)
        return right / (X.shape[0] if weights is None else float(np.sum(weights)))

    @property
    def predictor(self) -> PrivateMulticlassModel:
        return self

    def __repr__(self) -> str:
        return (f"PrivateMulticlassModel(classes={self.classes_.tolist()}, epsilon={self.epsilon:g}, "
                f"d={self.coef_.shape[1]}{conditional_mark(self.certificate)})")
