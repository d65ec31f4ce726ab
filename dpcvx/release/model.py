"""Released models: weights, the per-record input map, and the proof obligations met.

A :class:`PrivateModel` is what leaves dpcvx: the privatised weights, the
public input map (feature map, norm bound, intercept feature) and the
:class:`ReleaseCertificate` (theorem, neighbour relation, constants and how
each was established, epsilon and the calibration). Everything in a release
is a function of public inputs or of the privatised weights: no solver
statistic measured on the private data (iterations, time, status, residual,
objective value) is part of it. Those go to the learner's ``diagnostics_``,
marked not private. The noise vector is never stored.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit

from ..data.blocks import by_row_blocks, is_dask, public_shape
from ..data.rows import RowMap
from ..exceptions import InputError
from ..losses import LOGISTIC_TEXT, has_probabilities
from ..privacy.accountant import PrivacyCost
from ..privacy.calibrate import ObjectivePerturbation, add_remove_rows_limit, rows_domain
from ..privacy.calibration import LinearCalibration
from ..privacy.composition import sequential_epsilon
from ..privacy.float_guarantee import FloatGuarantee
from ..privacy.float_safe import continuous_calibration
from ..privacy.lam_rule import LamChoice
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import CandidateMark, DrawnPart, PrivacyCurve, draws_then_fit_curve
from ..privacy.rng import NoiseSource
from ..tables import check_names, feature_names, few_names
from ..validation import (
    check_classes,
    check_fields,
    check_finite,
    check_flag,
    check_labels,
    delta_value,
    epsilon_value,
    finite,
    instance_of,
    number_text,
    optional,
    positive,
    real_values,
    tuple_of,
)
from ..verification.certificate import Certificate as VerificationCertificate
from ..verification.certificate import Condition
from ..verification.exact import Exact, exact_value
from ..verification.prox_form import NonsmoothForm
from ..verification.verdict import Mechanism
from .constants import Constants, written
from .input_record import HoldsNoInput
from .range_clip import scored_rows
from .records.privatised import drawn_releases
from .sparsify import Sparsifiable
from .tuning_record import TuningRecord
from .usefulness import one_class_findings

if TYPE_CHECKING:  # pragma: no cover - the report module is imported where a report is asked for
    from .report import ReleaseReport

__all__ = ["WholeCost", "Release", "check_feature_names", "named", "linear_scores", "release_scores", "LinearModel",
           "PrivateModel",
           "ReleaseCertificate", "CertifiedWeights", "check_certificate",
           "OFFSET_SOURCE", "drawn_records", "drawn_part", "drawn_parts",
           "drawn_epsilons", "composed_epsilon", "composed_line", "statistics_text",
           "label_shift_text", "require_probabilities", "scoring_weights", "weighted_share", "block_share",
           "conditional_mark", "release_curve"]

#: any release (:func:`named` returns the one it is given)
ReleaseT = TypeVar("ReleaseT", bound="Release")

#: the ``weights`` source of a private class count that sets the intercept offset (dpcvx.models.class_count)
OFFSET_SOURCE = "private count, intercept offset"


#: which certificate record is which draw (:class:`~dpcvx.privacy.privacy_curve.DrawnPart`): the key it alone holds
#: (a norm bound's q, a class count's count, the ranges' cells, the sums); a label range's eps_l sits in the ranges'
_DRAWN_BY_KEY = (("quantile", DrawnPart.QUANTILE), ("count", DrawnPart.COUNT), ("cells", DrawnPart.RANGES),
                 ("sums", DrawnPart.SUMS))


def drawn_records(private_bound: Any, private_label_bound: Any, private_count: Any,
                  column_statistics: Any) -> tuple[Any, ...]:
    """The records of a certificate's private draws before the fit, in their one order (the curve's, the total's):
    R's and B's bounds, a class count, column statistics; the absent (None) left out."""
    return tuple(record for record in (private_bound, private_label_bound, private_count, column_statistics)
                 if record is not None)


def drawn_part(record: dict) -> DrawnPart | None:
    """What the record of a private draw before the fit drew (by :data:`_DRAWN_BY_KEY`); None for a record of none
    of them (DPLinearRegression's Gaussian ranges are part of its release's own curve)."""
    return next((part for key, part in _DRAWN_BY_KEY if key in record), None)


def drawn_parts(records: Sequence[dict]) -> list[tuple[DrawnPart, float]]:
    """The private draws before a fit as its curve's parts, in order: each record's (what it drew, eps), and a
    label range's (:attr:`~dpcvx.privacy.privacy_curve.DrawnPart.LABEL_RANGE`, eps_l) after its column ranges'
    (DPHuberRegressor's column_statistics)."""
    parts = []
    for record in records:
        what = drawn_part(record)
        assert what is not None  # a certificate's records (checked when loaded)
        parts.append((what, record["epsilon"]))
        if record.get("label_epsilon") is not None:
            parts.append((DrawnPart.LABEL_RANGE, record["label_epsilon"]))
    return parts


def drawn_epsilons(records: Sequence[dict]) -> list[float]:
    """The pure epsilons of the private draws before a fit, in order (:func:`drawn_parts`)."""
    return [epsilon for _, epsilon in drawn_parts(records)]


def composed_epsilon(records: Sequence[dict], epsilon: float) -> float:
    """The total epsilon of the private draws ``records`` (in the order of
    :attr:`ReleaseCertificate.private_bounds`) followed by a fit at ``epsilon``: sequential composition, summed in
    that one order (:func:`~dpcvx.privacy.composition.sequential_epsilon`). The certificate's ``total_epsilon``, the
    ``total_epsilon`` each record states, the loader's check of it and the charge of the fit that made the release
    (its shares in this order: :meth:`dpcvx.models.column_statistics.StandardisedPlan.shares`) are this sum, so they
    agree to the last bit."""
    return sequential_epsilon([*drawn_epsilons(records), epsilon])


def composed_line(first: str, eps_fit: float, total: float, composition: str) -> str:
    """A certificate line of a private value drawn before the fit: what it is (``first``), then the fit's and the
    total epsilon and how they compose (a linear release's and a multiclass release's)."""
    return f"{first}; fit eps_fit = {number_text(eps_fit)}; total epsilon = {number_text(total)} ({composition})"


def statistics_text(statistics: dict) -> str:
    """A certificate's words for its record of private column statistics (models.column_statistics): the ranges'
    histograms or the sums, eps_s and the L1 sensitivity."""
    if "cells" in statistics:
        return (f"private column ranges (column_statistics='ranges'): per-column histograms on the public grid of "
                f"2^{statistics['depth']} cells with discrete Laplace noise, eps_s = "
                f"{number_text(statistics['epsilon'])} (L1 sensitivity {statistics['sensitivity']}), each range the "
                f"kept mass's {statistics['level']:g} and "
                f"{1 - statistics['level']:g} points")
    return (f"private column statistics: per-column sums and sums of squares with eps_s = "
            f"{number_text(statistics['epsilon'])} (L1 sensitivity {statistics['sensitivity']} on the lattice "
            f"2^-{statistics['lattice_bits']})")


def label_shift_text(shift: float) -> str:
    """A regression certificate's words for its public label shift s (``label_shift``, not 0): the centre
    (lo + hi) / 2 of the declared range label_bound=(lo, hi), the labels' bound B a bound on |y - s|; nothing for 0."""
    return (f"; the labels centred at the public s = {shift:g}, the midpoint of label_bound=(lo, hi): the fit saw "
            "y - s and s is added to the intercept (post-processing)") if shift else ""


@dataclass(frozen=True)
class NoiseRecord:
    """The record of where a release's noise came from (:class:`~dpcvx.privacy.rng.NoiseSource`: the fit's
    ``random_state`` None or a seed, never the seed), stated once for the certificates that draw noise of their own
    (linear, kernel, sufficient statistics; a multiclass certificate combines its classes'): the field, its check
    (:func:`check_certificate`) and its record (:meth:`noise_record`). Keyword-only, as
    :class:`~dpcvx.privacy.privacy_curve.CandidateMark`, so that it follows each certificate's own fields;
    "not-recorded" by default, what a file of format version 18 or older states."""

    noise_source: NoiseSource = field(default=NoiseSource.NOT_RECORDED, kw_only=True)

    def noise_record(self) -> dict[str, str]:
        """The certificate record's ``noise_source`` entry (its ``to_dict``, so a model file's)."""
        return {"noise_source": self.noise_source.value}


def check_certificate(certificate: Any, constraints: dict[str, Any]) -> None:
    """A release certificate's fields checked (:func:`~dpcvx.validation.check_fields`, by its ``__post_init__``: at
    construction and at ``dataclasses.replace``), ``noise_source`` with them when it has one (:class:`NoiseRecord`),
    then its ``epsilon`` and ``delta`` against those its calibration was computed for: a certificate states the
    budget its noise was drawn for."""
    if isinstance(certificate, NoiseRecord):
        constraints = {**constraints, "noise_source": instance_of(NoiseSource)}
    check_fields(certificate, constraints)
    owner = type(certificate).__name__
    for name in ("epsilon", "delta"):
        calibrated = getattr(getattr(certificate, "calibration", None), name, None)
        if calibrated is not None and calibrated != getattr(certificate, name):
            raise InputError(f"{owner}.{name} = {getattr(certificate, name)!r} is not the {name} its calibration "
                             f"was computed for ({calibrated!r}): a certificate states the budget its noise was "
                             "drawn for")


@dataclass(frozen=True)
class ReleaseCertificate(CandidateMark, NoiseRecord):
    """What a private release relies on, with every constant and how it was established.

    ``verification`` is the :class:`~dpcvx.verification.certificate.Certificate` of the loss
    and regularizer at the fitted dimension; ``calibration`` holds eps', Delta
    and beta (objective) or the sensitivity and beta (output), and the public
    gradient tolerance the solve was held to with the approximate-minimiser
    noise that covers it. ``neighbours`` is the neighbour relation the
    guarantee is proved for. Every field is public: a function of the
    declared problem, the public bounds, n and epsilon.
    """

    mechanism: Mechanism
    guarantee: str
    epsilon: float
    delta: float
    calibration: LinearCalibration
    verification: VerificationCertificate
    data_norm: float
    effective_norm_bound: float
    fit_intercept: bool
    intercept_scaling: float
    clipping: str
    library_version: str
    constants: Constants
    label_bound: float | None = None  # regression: the public bound B on |y| (labels clipped to [-B, B])
    lam_rule: LamChoice | None = None  # lam="auto": the public rule and the value it chose (dpcvx.privacy.lam_rule)
    post_processing: tuple[str, ...] = ()  # public rules applied to the released weights (release/sparsify.py)
    findings: tuple[str, ...] = ()  # public checks of the released weights (release/usefulness.py)
    # data_norm / label_bound = "private": the drawn R / B, its eps_q, the public grid and q (models.private_norm)
    private_bound: dict | None = None
    private_label_bound: dict | None = None
    # record weights: their source, bound w_max, class weights (and a private count's record): models.record_weights
    weights: CertifiedWeights | None = None
    # column_statistics=True: the released per-column sums, eps_s and the mechanism (models.column_statistics);
    # column_statistics='ranges': the released ranges' grid cells instead (privacy.column_histogram)
    column_statistics: dict | None = None
    # regression with a public label range label_bound=(lo, hi): its centre (lo + hi) / 2, which the fit subtracted
    # from the labels and added to the intercept (0: none; written only when not 0, :func:`label_shift_text`)
    label_shift: float = 0.0

    def __post_init__(self) -> None:
        """Every field checked (:func:`~dpcvx.validation.check_fields`), by its constructor and by
        ``dataclasses.replace``, as every public value type checks its own."""
        check_certificate(self, {
            "mechanism": instance_of(Mechanism), "guarantee": instance_of(str), "epsilon": epsilon_value,
            "delta": delta_value, "calibration": instance_of(LinearCalibration),
            "verification": instance_of(VerificationCertificate), "data_norm": positive,
            "effective_norm_bound": positive, "fit_intercept": check_flag, "intercept_scaling": positive,
            "clipping": instance_of(str), "library_version": instance_of(str), "constants": instance_of(Constants),
            "label_bound": optional(positive), "lam_rule": optional(instance_of(LamChoice)),
            "post_processing": tuple_of(str), "findings": tuple_of(str), "private_bound": optional(instance_of(dict)),
            "private_label_bound": optional(instance_of(dict)), "weights": optional(instance_of(CertifiedWeights)),
            "column_statistics": optional(instance_of(dict)), "label_shift": finite,
        })

    @property
    def neighbours(self) -> str:
        """The neighbour relation as the certificate states it (the public size n under add/remove)."""
        return self.relation.statement(self.constants.n)

    @property
    def rows_limit(self) -> int | None:
        """Under add/remove, the most records a fit at this release's public tol and n_public accepts
        (:func:`~dpcvx.privacy.calibrate.add_remove_rows_limit`: a larger data set is refused before any charge, so
        the guarantee is proved between neighbours within that domain, docs/theory.md section 23); None under
        replace-one (n is public) or for a calibration without a tol. Derived from the recorded tol and n, not a
        field of the file."""
        tol = getattr(self.calibration, "tol", None)
        if self.relation is not Neighbours.ADD_REMOVE or tol is None or self.constants.n is None:
            return None
        return add_remove_rows_limit(tol, int(self.constants.n))

    @property
    def domain(self) -> str | None:
        """The public domain of an add/remove guarantee in words (:func:`~dpcvx.privacy.calibrate.rows_domain`), or
        None where :attr:`rows_limit` is None."""
        tol = getattr(self.calibration, "tol", None)
        if self.rows_limit is None or tol is None:
            return None
        return rows_domain(tol, int(self.constants.n))

    @property
    def private_bounds(self) -> tuple[dict, ...]:
        """The records of the private draws before the fit: R, B, a private class count, column statistics."""
        count = None if self.weights is None else self.weights.private_count
        return drawn_records(self.private_bound, self.private_label_bound, count, self.column_statistics)

    @property
    def total_epsilon(self) -> float:
        """What this certificate's fit cost: ``epsilon`` (the fit's, which the calibration uses) plus, for privately
        drawn bounds, the quantiles' eps_q (sequential composition). For a model :func:`dpcvx.tune` selected this is
        the selected candidate's share only: what the release cost is the whole selection's, the release's
        ``epsilon`` (its tuning record's ``total_epsilon``), which ``PrivacyAccountant.spend_release`` and the report
        state."""
        return composed_epsilon(self.private_bounds, self.epsilon)

    @property
    def cost(self) -> PrivacyCost:
        """What the release this certificate states cost in total (the :class:`Certificate` property every
        certificate type has): (:attr:`total_epsilon`, ``delta``): the private draws before the fit are pure, so
        they add to epsilon only. For a model :func:`dpcvx.tune` selected, the release's cost is its tuning record's
        (:attr:`Release.cost`), of which this is the candidate's share."""
        return PrivacyCost(self.total_epsilon, self.delta)

    @property
    def sparse_regularizer(self) -> bool:
        """Whether N has an L1 or group term (whose exact zeros the noise removes: see ``sparsify``)."""
        prox = self.verification.by_name.get("regularizer_prox")
        return prox is not None and isinstance(prox.value, NonsmoothForm) and prox.value.sparse

    @property
    def relation(self) -> Neighbours:
        """The neighbour relation the guarantee is proved for (``neighbours`` states it in words)."""
        return self.calibration.relation

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return self.verification.conditions

    def _verified(self, name: str) -> Exact | None:
        value = getattr(self.verification, name)
        return None if value is None else exact_value(value)

    @property
    def lipschitz(self) -> Exact | None:
        """L as the verifier proved it, in a release's exact form (:func:`~dpcvx.verification.exact.exact_value`:
        a Fraction, an Irrational or a float, fitted and loaded alike)."""
        return self._verified("lipschitz")

    @property
    def curvature(self) -> Exact | None:
        """c, as :attr:`lipschitz`."""
        return self._verified("curvature")

    @property
    def strong_convexity(self) -> Exact | None:
        """m, as :attr:`lipschitz`."""
        return self._verified("strong_convexity")

    @property
    def _pure_objective(self) -> ObjectivePerturbation | None:
        """Algorithm 2's pure calibration (of the float-safe form too), else None."""
        pure = continuous_calibration(self.calibration)
        return pure if isinstance(pure, ObjectivePerturbation) else None

    @property
    def epsilon_prime(self) -> float | None:
        """eps' of pure objective perturbation's b (Algorithm 2), else None."""
        pure = self._pure_objective
        return None if pure is None else pure.epsilon_prime

    @property
    def split(self) -> str | None:
        """The budget split of pure objective perturbation (:data:`dpcvx.privacy.calibrate.SPLITS`), else None."""
        pure = self._pure_objective
        return None if pure is None else pure.split

    @property
    def extra_reg(self) -> float:
        return self.calibration.extra_reg

    @property
    def effective_lam(self) -> float | None:
        """The lam the solved objective has when objective perturbation's Delta raised it, else None.

        Objective perturbation minimises (1/n) sum l + Lam N(w) + (Delta / 2) ||w||^2 (JMLR 2011,
        Algorithm 2), whose strong convexity is m Lam + Delta: that of lam_eff = Lam + Delta / m. Delta > 0
        is c R^2 / (n (e^{eps/k} - 1)) - m Lam (:mod:`dpcvx.privacy.calibrate`), so lam_eff is then the same
        for every smaller Lam: the release no longer depends on Lam. The certificate and the estimators'
        repr state it.
        """
        m, lam = self.calibration.m, self.constants.lam
        if self.extra_reg <= 0 or not m or lam is None:
            return None
        return float(lam) + self.extra_reg / float(m)

    @property
    def beta(self) -> float | None:
        """beta of the l2 Laplace noise exp(-beta ||b||) (objective: of b); None when the release draws no
        such noise (the Gaussian and the float-safe output releases: see ``calibration.noise``)."""
        return self.calibration.laplace_beta

    @property
    def float_guarantee(self) -> FloatGuarantee | None:
        """The floating-point guarantee the calibration gives (None: a release not rounded to a grid)."""
        return self.calibration.float_guarantee

    @property
    def conditional(self) -> bool:
        """True when a constant is an opted-in estimate: the guarantee then holds only if it is right."""
        return bool(getattr(self.verification, "conditional", False))

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """The release's privacy curve, from its calibration (:mod:`dpcvx.privacy.privacy_curve`); with private
        draws before the fit (a bound, a count, column statistics), a part for each, named by what it drew, and the
        fit's (eps_fit, delta) part."""
        return self.marked(release_curve(self.calibration, self.epsilon, self.delta,
                                                   drawn_parts(self.private_bounds), self.conditional))

    def to_dict(self) -> dict:
        return {
            "mechanism": self.mechanism.value,
            "guarantee": self.guarantee,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "calibration": self.calibration.to_dict(),
            "constants": self.constants.to_dict(),
            "data_norm": self.data_norm,
            "effective_norm_bound": self.effective_norm_bound,
            "fit_intercept": self.fit_intercept,
            "intercept_scaling": self.intercept_scaling,
            "clipping": self.clipping,
            "neighbours": self.neighbours,
            "privacy_curve": self.privacy_curve.to_dict(),
            "verification": self.verification.to_dict(),
            "library_version": self.library_version,
            **self.noise_record(),
            **({} if self.label_bound is None else {"label_bound": self.label_bound}),
            **({} if self.lam_rule is None else {"lam_rule": self.lam_rule.to_dict()}),
            **({} if self.private_bound is None else {"private_bound": dict(self.private_bound)}),
            **({} if self.private_label_bound is None else {"private_label_bound": dict(self.private_label_bound)}),
            **({} if self.weights is None else {"weights": self.weights.to_dict()}),
            **({} if self.column_statistics is None else {"column_statistics": dict(self.column_statistics)}),
            **({"label_shift": self.label_shift} if self.label_shift else {}),
            **({"post_processing": list(self.post_processing)} if self.post_processing else {}),
            **({"findings": list(self.findings)} if self.findings else {}),
        }

    @property
    def description(self) -> str:
        """The mechanism in words, the certificate's first line (the release report's name of it): "objective
        perturbation" or "output perturbation"."""
        return f"{self.mechanism} perturbation"

    def _composed(self, first: str, composition: str) -> str:
        """A certificate line of a private value drawn before the fit (:func:`composed_line`)."""
        return composed_line(first, self.epsilon, self.total_epsilon, composition)

    def __str__(self) -> str:
        c = self.calibration
        # what the release cost first: a fit after private draws spent less than the release did
        spent = (f"epsilon = {number_text(self.epsilon)}" if self.total_epsilon == self.epsilon else
                 f"epsilon = {number_text(self.total_epsilon)} in total, the fit's {number_text(self.epsilon)}")
        lines = [
            f"dpcvx release: {self.description}, {spent} (delta = {self.delta:g})",
            f"guarantee: {self.guarantee}",
            f"neighbours: {self.neighbours}",
            *(() if self.domain is None else (f"domain: {self.domain}",)),
            "constants: " + ", ".join(  # the one format of a constant (written): R as the next line's effective R
                f"{key} = {written(value)}" for key, value in self.constants.items()
            ),
            f"norm bound: R = {self.data_norm:g}, effective R = {self.effective_norm_bound:g}"
            + (f" (intercept feature {self.intercept_scaling:g})" if self.fit_intercept else "")
            + f"; rows beyond R: {self.clipping}",
        ]
        for name, bound in (("norm bound: R", self.private_bound), ("label bound: B", self.private_label_bound)):
            if bound is not None:
                lines.append(self._composed(
                    f"private {name} = {bound['bound']:g} drawn from the public grid {bound['grid']} by the "
                    f"exponential-mechanism quantile (q = {bound['quantile']:g}) with eps_q = "
                    f"{number_text(bound['epsilon'])}",
                    bound["composition"]))
        if self.weights is not None:
            lines.append(self.weights.line(self.epsilon, self.total_epsilon))
        statistics = self.column_statistics
        if statistics is not None:
            lines.append(self._composed(statistics_text(statistics), statistics["composition"]))
            if "label_cells" in statistics:
                lines.append(
                    f"private label range: the labels' histogram on the public grid over [-B, B] with B = "
                    f"{statistics['label_bound']:g}, discrete Laplace noise, eps_l = "
                    f"{number_text(statistics['label_epsilon'])} (L1 sensitivity 2); "
                    + ("too few rows for its level: the fit keeps B" if statistics[
                        "label_level"] is None else f"its levels {statistics['label_level']:g} and "
                        f"{1 - statistics['label_level']:g} centre the labels and set the fit's B"))
        if self.lam_rule is not None:
            read = any(release.derives("certificate.lam_rule")  # a private draw the rule reads (a count, a bound)
                       for release in drawn_releases({"certificate": self.to_dict()}))
            spent = ("post-processing of the private draws above: no further privacy spent" if read else
                     "no privacy spent")
            lines.append(f"lam = {self.lam_rule.lam:g} chosen by the public rule {self.lam_rule.rule} with "
                         f"comparator norm W = {self.lam_rule.comparator_norm:g} ({spent})")
        if self.label_bound is not None:
            ranged = statistics is not None and statistics.get("label_level") is not None
            origin = "drawn privately, above" if self.private_label_bound is not None else \
                "from the private label range, above; the labels centred at its midpoint" if ranged else "public"
            lines.append(f"regression: loss of the residual w^T x - y, labels in [-B, B] with B = "
                         f"{self.label_bound:g} ({origin}; labels beyond it {self.clipping.replace('R', 'B')})"
                         + label_shift_text(self.label_shift))
        lines.append(c.describe())
        if self.effective_lam is not None:
            lines.append(f"effective lam = Lam + Delta / m = {self.effective_lam:g}: Delta raised lam = "
                         f"{self.constants.lam:g} to it (any smaller lam gives the "
                         "same release)")
        if c.gradient_tolerance is not None:
            lines.append(
                f"approximate minimiser: ||grad F|| <= {c.gradient_tolerance:.3g} (public), "
                f"covered by {c.approximate_minimiser}"
            )
        if self.float_guarantee is not None:
            lines.append(self.float_guarantee.statement)
        lines.append(self.noise_source.statement)
        if self.post_processing:
            lines += [f"post-processing: {step}" for step in self.post_processing]
        elif self.sparse_regularizer:
            lines.append("sparsity: the L1/group term zeroes weights of the minimiser, but the noise reaches every "
                         "coordinate, so the release has no exact zeros; model.sparsify(threshold) or "
                         "model.sparsify(keep=k) with a public number gives them at no privacy cost")
        lines += [f"finding: {finding}" for finding in self.findings]
        lines.append(self.verification.report(self.delta))  # the verdict at the release's delta
        return "\n".join(lines)


def scoring_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """The weights of a score's ``n`` rows (scikit-learn's ``score(X, y, sample_weight=None)``): None for equal
    weights, else a float64 n-vector of finite numbers whose sum is not zero (the weighted mean's denominator)."""
    if sample_weight is None:
        return None
    weights = check_finite("sample_weight", sample_weight, "give each row a finite weight")
    if weights.shape != (n,):
        raise InputError(f"sample_weight must hold one number per row, shape ({n},), got shape {weights.shape}")
    if float(np.sum(weights)) == 0:
        raise InputError("the sample weights sum to zero: a weighted score divides by their sum")
    return weights


def weighted_share(right: np.ndarray, sample_weight: Any) -> float:
    """sum_i w_i [right_i] / sum_i w_i (the share of rows ``right``, each weighing w_i; 1 without weights): the
    accuracy of every release's ``score``, scikit-learn's ``accuracy_score`` with ``sample_weight``."""
    weights = scoring_weights(sample_weight, right.shape[0])
    return float(np.mean(right) if weights is None else np.dot(weights, right) / np.sum(weights))


def block_share(right: np.ndarray, weights: np.ndarray | None, start: int) -> float:
    """A block's term of :func:`weighted_share`'s numerator: its rows ``right`` from row ``start``, counted or
    weighed."""
    if weights is None:
        return float(np.count_nonzero(right))
    return float(np.dot(weights[start:start + right.shape[0]], right))


def named(release: ReleaseT, names: np.ndarray | None) -> ReleaseT:
    """``release`` with ``names``, the column names of the table it was fitted on (:func:`dpcvx.tables.feature_names`
    of X, read before anything is charged: names that mix text with other types are refused; public, the table's
    declared columns, never a value), as its ``feature_names_in_``, which :func:`check_feature_names` reads and
    ``dpcvx.save`` writes; None (X without names) leaves it as it is. A learner of the mathematical layer (PrivateERM,
    PrivateLinearRegression, PrivateMulticlassERM, the kernel learners TDDL, TDIL and PINP) fitted on a table gives its
    release the names, as an estimator keeps them: a model reads a row's entries by position, so a table with its
    columns reordered was predicted without a word."""
    if names is not None:
        release.feature_names_in_ = names
    return release


def check_feature_names(model: Any, X: Any) -> None:
    """Refuse a table X whose column names differ, in names or in order, from the model's ``feature_names_in_`` (the
    column names of the table a dpcvx estimator was fitted on, which ``dpcvx.save`` writes and :func:`dpcvx.load`
    sets): the one check of the names of an estimator's predictions and of a loaded model's, for every table whose
    names :func:`dpcvx.tables.feature_names` reads (pandas, polars, pyarrow). A model reads a row's entries by
    position, so swapped columns would be predicted without a word. X without names is warned of (scikit-learn's
    warning), unless the model has a saved schema, whose ``transform`` gives rows without names (the way to predict a
    table); a model without names is not checked. A table of the records a model's saved schema encodes (one that
    names every column the schema reads) is refused as such, whether or not the model has names: it predicts on the
    encoded rows. The model's own names pass, those of the named encoded rows it was fitted on (a pipeline's with
    pandas output), unless they name every column the schema reads too: encoded features are never named as columns
    (a numeric column's is ``name:scaled``), but a file written before that named a numeric schema's encoded features
    as its columns, so that a table of the raw columns bore them, and was taken for encoded rows."""
    schema = getattr(model, "schema", None)
    fitted = getattr(model, "feature_names_in_", None)
    if schema is not None:
        given = feature_names(X)
        if given is None:  # rows without names: model.schema.transform(X)'s, read by position
            return
        columns = set(schema.column_names)
        if columns <= set(given.tolist()) and (fitted is None or given.tolist() != list(fitted)
                                               or columns <= set(list(fitted))):
            raise InputError(f"X holds the records the model's schema encodes (its columns {few_names(list(given))}); "
                             "the model predicts on the encoded rows: pass model.schema.transform(X) (dpcvx predict "
                             "encodes a data file by the saved schema itself)")
    check_names(type(model).__name__, fitted, X)


def linear_scores(rows: RowMap, X: Any, coef: np.ndarray, intercept: float | np.ndarray,
                  note: Callable[[Any], None] | None = None) -> np.ndarray:
    """The one linear predictor: w^T x + b for a weight vector ((n,) scores), or W x + b for a (k, d)
    matrix ((n, k) scores), over rows mapped as in training (feature map, clipped to R; :meth:`RowMap.scores
    <dpcvx.data.rows.RowMap.scores>`). The intercept is added in place: one (n, k) array, not two. A Dask X is
    computed :meth:`RowMap.block_rows <dpcvx.data.rows.RowMap.block_rows>` rows at a time
    (:func:`~dpcvx.data.blocks.by_row_blocks`), the blocks its rows are scored by once computed: never whole, unless
    the feature map maps rows only whole. ``note``, if given, is called on the rows scored once they are checked
    (X, or each computed block of a Dask X): the count of rows a release's private ranges clip
    (:func:`release_scores`)."""
    shape = public_shape(X) if is_dask(X) else None
    step = None if shape is None else rows.block_rows(shape[1])

    def scored(block: Any) -> np.ndarray:
        values = rows.scores(block, coef)
        if note is not None:
            note(block)
        return values

    scores = scored(X) if step is None else by_row_blocks(X, step, scored)
    scores += intercept
    return scores


def release_scores(release: Any, X: Any) -> np.ndarray:
    """A linear release's scores of X (:func:`linear_scores`), with the share of X's rows its private column ranges
    clip told once (:mod:`dpcvx.release.range_clip`): what every linear release's ``decision_function`` returns."""
    tally = scored_rows(release, X)
    scores = linear_scores(release.rows, X, release.coef_, release.intercept_, None if tally is None else tally.add)
    if tally is not None:
        tally.said(type(release).__name__, getattr(release, "feature_names_in_", None))
    return scores


class LinearModel:
    """A linear classifier over the mapped rows: ``classes_[1]`` where w^T x + b > ``decision_cut``, else
    ``classes_[0]``; labels are the public classes.

    Built by dpcvx (a fit without a privacy guarantee, a release's ``predictor``); a user may build one. Checked at
    construction (an InputError naming the field): ``coef`` a non-empty 1-D vector of finite real numbers
    (:func:`~dpcvx.validation.check_finite`), ``intercept`` a finite number, ``classes`` the public pair
    (:func:`~dpcvx.validation.check_classes`), ``rows`` a :class:`~dpcvx.data.rows.RowMap`."""

    #: a loaded model's column names (:func:`check_feature_names`); None: not checked
    feature_names_in_: np.ndarray | None = None
    #: the decision cut c: :meth:`predict` says ``classes_[1]`` where w^T x + b > c. 0 (sign(w^T x + b)) unless
    #: set: a dpcvx classifier's public ``threshold`` t is the cut log(t / (1 - t)) (its ``decision_cut_``), which
    #: ``dpcvx.save(estimator)`` writes and :func:`dpcvx.load` sets, so that the loaded model predicts what the
    #: estimator predicted. A public number (post-processing, no privacy cost); not part of the certificate
    decision_cut: float = 0.0

    def __init__(self, coef: np.ndarray, intercept: float, classes: tuple, rows: RowMap):
        self.coef_ = check_finite("coef", coef)
        if self.coef_.ndim != 1 or not self.coef_.size:
            raise InputError(f"coef must be a non-empty 1-D vector of weights, got shape {self.coef_.shape}")
        self.intercept_ = finite("intercept", intercept)
        self.classes_ = np.asarray(check_classes(classes, saved=True))  # a model file fitted before a refusal loads
        if not isinstance(rows, RowMap):
            raise InputError(f"rows must be a dpcvx RowMap (the public input map), got {type(rows).__name__}")
        self.rows = rows

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """w^T x + b for rows mapped as in training (feature map, clipped to R); a release whose rows map through
        private column ranges says the share of X's rows they clip (:func:`release_scores`)."""
        check_feature_names(self, X)
        return release_scores(self, X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """``classes_[1]`` where w^T x + b > :attr:`decision_cut`, else ``classes_[0]``."""
        return self.predictions(self.decision_function(X))

    def predictions(self, scores: np.ndarray) -> np.ndarray:
        """:meth:`predict`'s labels from the rows' decision values ``scores`` (:meth:`decision_function`'s)."""
        return np.where(real_values("scores", scores) > self.decision_cut, self.classes_[1], self.classes_[0])

    def score_rows(self, width: int) -> int | None:
        """How many rows :meth:`decision_function` scores at a time (:meth:`RowMap.block_rows`)."""
        return self.rows.block_rows(width)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Any = None) -> float:
        """Accuracy on (X, y), weighted by ``sample_weight`` when given (:func:`weighted_share`, scikit-learn's
        ``score``); y must use the model's classes.

        A 2-D numeric array (a memmap) is scored a block of rows at a time (:meth:`RowMap.score_blocks
        <dpcvx.data.rows.RowMap.score_blocks>`, the scores of :meth:`decision_function` bit for bit) against its
        labels held as bits (:class:`~dpcvx.validation.SignBits`), checked first: the same accuracy, where the whole
        scores, predictions and labels were float64 n-vectors (3.1 times a 10,000,000 x 1 file, issue 44)."""
        classes = tuple(self.classes_.tolist())
        if not self.rows.reads_by_blocks(X):
            predictions = self.predict(X)
            labels = check_labels(y, predictions.shape[0], classes, scored=True)
            return weighted_share(np.where(predictions == self.classes_[1], 1.0, -1.0) == labels, sample_weight)
        check_feature_names(self, X)
        assert isinstance(X, np.ndarray)
        signs = check_labels(y, X.shape[0], classes, packed=True, scored=True)
        weights = scoring_weights(sample_weight, X.shape[0])
        right = 0.0
        for start, scores in self.rows.score_blocks(X, self.coef_):
            scores += self.intercept_
            positive = self.predictions(scores) == self.classes_[1]  # predict's one rule, a block at a time
            right += block_share(positive == (signs[start:start + scores.shape[0]] > 0), weights, start)
        return right / (X.shape[0] if weights is None else float(np.sum(weights)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(d={self.coef_.shape[0]}, intercept={self.intercept_:.4g})"


class Certificate(Protocol):
    """What every release's certificate states (linear, kernel, multiclass, sufficient statistics):
    the budget, the privacy curve an accountant composes, the record written to a model file, and its
    text (the theorem, the neighbour relation, every constant and how it was established)."""

    @property
    def epsilon(self) -> float: ...

    @property
    def delta(self) -> float: ...

    @property
    def privacy_curve(self) -> PrivacyCurve: ...

    @property
    def cost(self) -> PrivacyCost:
        """What the release cost in total: epsilon with what was drawn before the fit (private bounds, column
        statistics, a private count) and delta. The one total every reader uses (:attr:`Release.cost`, the
        accountant's ``spend_release``, the report, the OpenDP bridge); ``epsilon`` may be the fit's part only."""
        ...

    @property
    def noise_source(self) -> NoiseSource:
        """Where the release's noise came from (:class:`~dpcvx.privacy.rng.NoiseSource`): operating-system entropy,
        a caller's seed (a reproducible experiment, not private against whoever knows the seed), or not recorded (a
        file of format version 18 or older)."""
        ...

    def to_dict(self) -> dict[str, Any]: ...


class WholeCost:
    """The :attr:`Certificate.cost` of a certificate whose ``epsilon`` and ``delta`` are already its release's whole
    cost: the kernel learners', a sufficient-statistics regression's (its column statistics' share inside its
    epsilon), one-vs-rest's (the k fits and the statistics drawn before them together) and a tuning procedure's (the
    selection's). A linear release's certificate, whose ``epsilon`` is the fit's part when it drew first, states its
    own (:attr:`ReleaseCertificate.cost`)."""

    epsilon: float
    delta: float

    @property
    def cost(self) -> PrivacyCost:
        """What the release cost in total, (``epsilon``, ``delta``)."""
        return PrivacyCost(self.epsilon, self.delta)


class Release(HoldsNoInput, ABC):
    """What leaves dpcvx: a predictor and the certificate of its privacy, and no record of its input
    (:class:`~dpcvx.release.input_record.HoldsNoInput`).

    ``kind`` is "linear" (:class:`PrivateModel`: a :class:`LinearModel` with a
    :class:`ReleaseCertificate`) or "kernel"
    (:class:`dpcvx.release.kernel_model.PrivateKernelModel`: a
    :class:`~dpcvx.release.kernel_model.KernelPredictor` with a
    :class:`~dpcvx.release.kernel_model.KernelReleaseCertificate`). Both
    certificates state the theorem, the neighbour relation, every constant
    and how it was established, epsilon, delta and the calibration;
    :func:`dpcvx.save` and :func:`dpcvx.load` handle both kinds.
    """

    kind: ClassVar[str]
    certificate: Certificate
    schema: Any = None  # the public encoder of table records into input rows, when one was saved
    # the column names of the DataFrame the saving estimator was fitted on, when its file has them (public: the
    # declared columns, not values); its predictions refuse a table with other names (:func:`check_feature_names`)
    feature_names_in_: np.ndarray | None = None
    tuning: TuningRecord | None = None  # the tuning certificate and total cost, when dpcvx.tune selected it

    @abstractmethod
    def decision_function(self, X: ArrayLike) -> np.ndarray: ...

    @abstractmethod
    def predict(self, X: ArrayLike) -> np.ndarray: ...

    @abstractmethod
    def predictions(self, scores: np.ndarray) -> np.ndarray:
        """What :meth:`predict` gives rows whose :meth:`decision_function` is ``scores``: a reader of a file scores
        each row once and takes its prediction, decision value and probabilities from that score (``dpcvx
        predict``)."""

    @abstractmethod
    def score_rows(self, width: int) -> int | None:
        """How many rows of ``width`` features :meth:`decision_function` scores at a time, from row 0: scoring rows in
        groups of this many gives the values of all of them scored at once bit for bit, so a reader of a file in
        chunks regroups its rows to it (``dpcvx predict --chunk-rows``); None when the rows are scored whole."""

    @abstractmethod
    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Any = None) -> float: ...

    @property
    def predict_proba(self) -> Callable[[ArrayLike], np.ndarray]:
        """The class probabilities of a classifier released with the logistic loss, a function of X: a binary
        release's (n, 2) and a one-vs-rest release's (n, k) (:class:`PrivateModel`,
        :class:`~dpcvx.release.multiclass_model.PrivateMulticlassModel` give it). Any other release (a regression, a
        kernel learner's, the Huber hinge) has no probability model: the attribute is absent (AttributeError, as
        scikit-learn's ``available_if``), so ``hasattr(model, "predict_proba")`` says which. Declared here so that a
        type checker accepts ``dpcvx.load(path).predict_proba(X)``, which the docs show for a loaded classifier."""
        raise AttributeError(f"{type(self).__name__} has no predict_proba: only a linear classifier released with "
                             "the logistic loss (binary or one-vs-rest) has a probability model; use predict or "
                             "decision_function")

    @property
    def cost(self) -> PrivacyCost:
        """What the release cost in total, (epsilon, delta): for a model :func:`dpcvx.tune` selected, the whole
        selection's (:attr:`TuningRecord.cost`), of which the certificate's is one candidate's share; else its
        certificate's :attr:`Certificate.cost` (with privately drawn bounds or statistics, their budget plus the
        fit's)."""
        return self.tuning.cost if self.tuning is not None else self.certificate.cost

    @property
    def noise_source(self) -> NoiseSource:
        """Where the release's noise came from, its certificate's :attr:`Certificate.noise_source`: for a model
        :func:`dpcvx.tune` selected, the selected fit's, which drew from tune's own ``random_state`` as the selection
        did (seeded fits exactly when the selection was)."""
        return self.certificate.noise_source

    @property
    def epsilon(self) -> float:
        """The epsilon of :attr:`cost`, what the release cost."""
        return self.cost.epsilon

    @property
    def delta(self) -> float:
        """The delta of :attr:`cost`."""
        return self.cost.delta

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """The curve of what the release cost (:attr:`epsilon`, :attr:`delta`): the tuning selection's for a tuned
        model (:attr:`TuningRecord.privacy_curve`), else the certificate's."""
        return self.tuning.privacy_curve if self.tuning is not None else self.certificate.privacy_curve

    @property
    @abstractmethod
    def predictor(self) -> Any:
        """The released prediction function (no certificate)."""

    def report(self) -> ReleaseReport:
        """The plain-language privacy report of this release (:mod:`dpcvx.release.report`): what was
        protected, epsilon and delta explained, the public inputs, what is not covered, the privacy
        curve and the constants; ``report().write("report.html")`` saves it."""
        from .report import ReleaseReport

        return ReleaseReport(self)

    def _repr_html_(self) -> str:  # Jupyter shows a release as its report
        return self.report()._repr_html_()


def require_probabilities(certificate: ReleaseCertificate) -> None:
    """Raise AttributeError, so that ``predict_proba`` is absent (as scikit-learn's ``available_if``), for a release
    whose loss has no probability model (:func:`dpcvx.losses.has_probabilities`): the one rule of a binary release's
    ``predict_proba`` and of a one-vs-rest release's (each class's certificate holds the one loss)."""
    loss = certificate.verification.loss
    if not has_probabilities(loss):
        raise AttributeError(f"predict_proba: the release's loss l(z) = {loss} is not the logistic loss "
                             f"{LOGISTIC_TEXT}, so its scores have no probability model; use decision_function")


class PrivateModel(LinearModel, Sparsifiable, Release):  # LinearModel first: its prediction methods win
    """A linear classifier released under differential privacy, with its certificate.

    Returned by a fit and by :func:`dpcvx.load`, not built by users; checked at construction as
    :class:`LinearModel` is, and ``certificate`` must be a :class:`ReleaseCertificate` whose dimension d is the
    weights' (one more with an intercept), else an InputError naming the field."""

    kind = "linear"

    def __init__(self, coef: np.ndarray, intercept: float, classes: Any, rows: RowMap,  # classes: the public pair
                 certificate: ReleaseCertificate) -> None:
        super().__init__(coef, intercept, classes, rows)
        if not isinstance(certificate, ReleaseCertificate):
            raise InputError(f"certificate must be a dpcvx.ReleaseCertificate, got {type(certificate).__name__}")
        if certificate.constants.d != self.coef_.size + rows.fit_intercept:
            raise InputError(f"coef has {self.coef_.size} weights{' and an intercept' * rows.fit_intercept} but the "
                             f"certificate was issued for d = {certificate.constants.d}")
        self.certificate = certificate

    def public_findings(self) -> tuple[str, ...]:
        """Whether the release predicts one class on every row of norm <= R (public: weights and R only)."""
        return one_class_findings(self.coef_, self.intercept_, self.classes_, self.rows.norm_bound)

    @property
    def predictor(self) -> LinearModel:
        """The released prediction function: the weights, the input map and the decision cut (no certificate)."""
        predictor = LinearModel(self.coef_, self.intercept_, tuple(self.classes_.tolist()), self.rows)
        predictor.decision_cut = self.decision_cut
        return predictor

    @property
    def predict_proba(self) -> Callable[[ArrayLike], np.ndarray]:
        """(n, 2) probabilities of ``classes_[0]`` and ``classes_[1]``: 1 - s and s, s = sigmoid(w^T x + b).

        The logistic loss l(z) = log(1 + e^{-z}) is the negative log-likelihood of P(y = 1 | x) =
        sigmoid(w^T x + b), so a release of that loss (its certificate's loss, saved with the model)
        has this link: a public function of the release. They are the fitted objective's probabilities: a release
        fitted with class weights (``class_weight``, ``certificate.weights``) gives those of the re-weighted
        classes, pushed toward 1/2 for a rare class, not the population's (docs/getting-started.md, "Imbalanced
        classes"); a decision threshold (``threshold=``) changes the predicted class only. Any other loss (the
        Huber hinge) has no
        probability model, and the attribute is absent (AttributeError, as scikit-learn's ``available_if``).
        A loaded model's loss text is checked against the file's record of its probabilities
        (``certificate.probabilities``, :func:`dpcvx.release.records.release_certificate.check_probability_record`).
        """
        require_probabilities(self.certificate)
        return self._logistic_probabilities

    def _logistic_probabilities(self, X: ArrayLike) -> np.ndarray:
        positive = self.decision_function(X)
        expit(positive, out=positive)  # in place: the scores are this call's own
        return np.column_stack([1.0 - positive, positive])

    def __repr__(self) -> str:
        return (f"PrivateModel(mechanism={self.certificate.mechanism.value!r}, "
                f"epsilon={number_text(self.epsilon)}, d={self.coef_.shape[0]}{conditional_mark(self.certificate)})")


def release_curve(calibration: Any, epsilon: float, delta: float, draws: Sequence[tuple[DrawnPart, float]],
                  conditional: bool) -> PrivacyCurve:
    """A linear release's privacy curve: its calibration's at (epsilon, delta), after the parts of the private draws
    before the fit (``draws``, :func:`drawn_parts`) when there are any, then the fit's part for every drawn value
    (the calibration's ``after_draws_part``); ``conditional`` when a constant is an estimate."""
    curve = (draws_then_fit_curve(draws, calibration.after_draws_part(epsilon, delta)) if draws
             else calibration.privacy_curve(epsilon, delta))
    return replace(curve, conditional=conditional)


def conditional_mark(certificate: Any) -> str:
    """What a release's repr adds when its guarantee is conditional on an opted-in estimate (every release's one)."""
    return ", CONDITIONAL on estimated constants" if getattr(certificate, "conditional", False) else ""


@dataclass(frozen=True)
class CertifiedWeights:
    """The record weights a release states (:mod:`dpcvx.models.record_weights`): their source ("sample_weight",
    "dict", "prior", "private count", or :data:`OFFSET_SOURCE`: a private count that sets the intercept offset, with
    unit weights), w_max (``bound``, multiplying L and c), ``sample_weight_bound``, the
    class weights as (class, weight) pairs, the public mean weight s_bar, the theorem and, for the source
    "private count", the count's record (:mod:`dpcvx.models.class_count`). All public."""

    source: str
    bound: float
    sample_weight_bound: float | None
    class_weights: tuple[tuple[Any, float], ...] | None
    mean_weight: float | None
    theorem: str
    private_count: dict | None = None

    def __post_init__(self) -> None:
        check_fields(self, {
            "source": instance_of(str), "bound": positive, "sample_weight_bound": optional(positive),
            "class_weights": optional(tuple_of(tuple)), "mean_weight": optional(positive),
            "theorem": instance_of(str), "private_count": optional(instance_of(dict)),
        })

    @property
    def sets_offset(self) -> bool:
        """Whether the private count sets the intercept offset, whose centre b0 / s the ridge holds."""
        return self.source == OFFSET_SOURCE

    def to_dict(self) -> dict[str, Any]:
        """The file form (``class_weights`` as [class, weight] lists)."""
        return {"source": self.source, "bound": self.bound, "sample_weight_bound": self.sample_weight_bound,
                "class_weights": None if self.class_weights is None else
                [[label, weight] for label, weight in self.class_weights],
                "mean_weight": self.mean_weight, "theorem": self.theorem,
                **({} if self.private_count is None else {"private_count": dict(self.private_count)})}

    def line(self, epsilon: float, total: float) -> str:
        """The certificate's line: the source, w_max and a private count's record."""
        pairs = self.class_weights
        classes = "" if pairs is None else ", class weights " + ", ".join(f"{label!r}: {w:.4g}" for label, w in pairs)
        count = self.private_count
        if self.sets_offset and count is not None:
            b0 = math.log(count["count"] / (count["n"] - count["count"]))
            return (f"intercept offset b0 = log({count['count']} / ({count['n']} - {count['count']})) = "
                    f"{b0:.6g}: the ridge centred at b0 / s, from the private count {count['count']} of "
                    f"{count['n']} (floor {count['floor']}, eps_c = {number_text(count['epsilon'])}); no record "
                    f"weights; fit eps_fit = {number_text(epsilon)}; total epsilon = {number_text(total)} "
                    f"({count['composition']})")
        drawn = "" if count is None else (
            f"; from the private count {count['count']} of {count['n']} (floor {count['floor']}, eps_c = "
            f"{number_text(count['epsilon'])}); fit eps_fit = {number_text(epsilon)}; total epsilon = "
            f"{number_text(total)} ({count['composition']})")
        return f"record weights ({self.source}): w_max = {self.bound:g} multiplies L and c{classes}{drawn}"
