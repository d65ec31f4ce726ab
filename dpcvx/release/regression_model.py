"""Regression releases: a linear predictor w^T x + b and its certificate.

:class:`LinearRegressionModel` is the predictor (also what ``fit_nonprivate``
returns for a regression); :class:`PrivateRegressionModel` adds the
certificate of the release (``certificate.label_bound`` is the public bound
B on |y|). ``score`` is the coefficient of determination R^2, as in
scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..data.rows import RowMap
from ..exceptions import InputError
from ..privacy.adassp import (
    ADASSP,
    ADASSP_RANGED,
    ADASSP_STANDARDISED,
    ADASSP_THEOREM,
    LABEL_RANGE_THEOREM,
    RANGED_THEOREM,
    STANDARDISED_THEOREM,
    AdaSSPCalibration,
)
from ..privacy.float_guarantee import FloatGuarantee
from ..privacy.gradient_descent import GRADIENT_RANGED, GradientCalibration, gradient_theorem
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import CandidateMark, PrivacyCurve
from ..validation import (
    check_flag,
    delta_value,
    epsilon_value,
    finite,
    instance_of,
    one_dimensional_labels,
    optional,
    positive,
    real_values,
    refuse_non_finite_targets,
    refuse_non_number_targets,
)
from .model import (
    NoiseRecord,
    Release,
    WholeCost,
    check_certificate,
    check_feature_names,
    conditional_mark,
    label_shift_text,
    release_scores,
    scoring_weights,
)
from .sparsify import Sparsifiable

__all__ = ["LinearRegressionModel", "PrivateRegressionModel", "SufficientStatisticsCertificate", "r2_score"]


def r2_score(y: Any, predictions: np.ndarray, sample_weight: Any = None) -> float:
    """1 - sum w (y - p)^2 / sum w (y - ybar)^2, ybar = sum w y / sum w (w = 1 without ``sample_weight``; scikit-learn's
    ``r2_score``): 0 ... 1 for a useful model; can be negative. Targets are checked as a fit checks them: text, dates,
    and missing, NaN or infinite values are refused by their row (a NaN made the sums NaN and the score 0.0, and
    text was read as numbers)."""
    refuse_non_number_targets("y", y)
    truth = one_dimensional_labels(real_values("y", y))  # a column flattened, a row (1, n) refused, as at fit
    if truth.shape != predictions.shape:
        raise InputError(f"y has {truth.size} values for {predictions.size} predictions")
    refuse_non_finite_targets(truth)
    weights = scoring_weights(sample_weight, truth.shape[0])
    weights = np.ones_like(truth) if weights is None else weights
    spread = float(np.dot(weights, (truth - np.dot(weights, truth) / np.sum(weights)) ** 2))
    residual = float(np.dot(weights, (truth - predictions) ** 2))
    return 1.0 - residual / spread if spread > 0 else (1.0 if residual == 0 else 0.0)


class LinearRegressionModel:
    """The linear predictor w^T x + b over rows mapped as in training (feature map, clipped to R)."""

    def __init__(self, coef: np.ndarray, intercept: float, rows: RowMap) -> None:
        self.coef_ = np.asarray(coef, dtype=float)
        self.intercept_ = float(intercept)
        self.rows = rows

    def decision_function(self, X: Any) -> np.ndarray:
        check_feature_names(self, X)  # a loaded model's column names, if its file has them
        return release_scores(self, X)  # a release of private ranges says the share of X's rows they clip

    def predict(self, X: Any) -> np.ndarray:
        return self.decision_function(X)

    def predictions(self, scores: np.ndarray) -> np.ndarray:
        """:meth:`predict`'s values from the rows' decision values: the same."""
        return real_values("scores", scores)

    def score_rows(self, width: int) -> int | None:
        """How many rows :meth:`decision_function` scores at a time (:meth:`RowMap.block_rows`)."""
        return self.rows.block_rows(width)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """R^2 of the predictions on (X, y), weighted by ``sample_weight`` when given (:func:`r2_score`)."""
        return r2_score(y, self.predict(X), sample_weight)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(d={self.coef_.shape[0]}, intercept={self.intercept_:.4g})"


class PrivateRegressionModel(LinearRegressionModel, Sparsifiable, Release):
    """A linear regression released under differential privacy, with its certificate."""

    kind = "regression"

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(epsilon={self.epsilon:g}, d={self.coef_.shape[0]}, "
                f"intercept={self.intercept_:.4g}{conditional_mark(self.certificate)})")

    def __init__(self, coef: np.ndarray, intercept: float, rows: RowMap, certificate: Any) -> None:
        super().__init__(coef, intercept, rows)
        self.certificate = certificate

    @property
    def predictor(self) -> LinearRegressionModel:
        return LinearRegressionModel(self.coef_, self.intercept_, self.rows)

    def shifted(self, shift: float) -> PrivateRegressionModel:
        """This release with the private label range's centre c added to the intercept (the fit saw y - c):
        post-processing by a value the certificate's column statistics record, from which a loader re-derives it."""
        return PrivateRegressionModel(self.coef_, self.intercept_ + finite("shift", shift), self.rows, self.certificate)

    def label_shifted(self, shift: float) -> PrivateRegressionModel:
        """This release with the public label shift s = (lo + hi) / 2 of a declared range label_bound=(lo, hi) added
        to the intercept (the fit saw y - s): post-processing by a public constant (docs/theory.md, section 21),
        recorded in the certificate (``label_shift``), so that a file's intercept without an intercept feature is
        re-derived from it. A fit's release, whose certificate records no shift yet."""
        shift = finite("shift", shift)
        certificate = replace(self.certificate, label_shift=shift)
        return PrivateRegressionModel(self.coef_, self.intercept_ + shift, self.rows, certificate)


#: The neighbour relation in the words an AdaSSP certificate states it (its ``neighbours``), which a loaded file's
#: must be (the fit's table, models.linear_regression.RELATIONS, holds the same words: a fitted release that did
#: not would not load)
ADASSP_STATEMENTS = {
    Neighbours.REPLACE_ONE: "replace-one: neighbouring data sets differ in one record, replaced by another",
    Neighbours.ADD_REMOVE: "add-remove: neighbouring data sets differ by one record added or removed (n is not used)",
}


def sufficient_statistics_statement(calibration: AdaSSPCalibration | GradientCalibration) -> tuple[str, str]:
    """(mechanism, guarantee) of a release at ``calibration``: noisy gradient descent on the private ranges of every
    column or of the label alone; AdaSSP on privately standardised columns, on private ranges (every column's, or the
    label's alone) or plain. The fit states it and the loader compares a file's against it: one rule."""
    if isinstance(calibration, GradientCalibration):
        mechanism, theorem = GRADIENT_RANGED, gradient_theorem(calibration.range_columns, calibration.level)
    elif calibration.column_statistics:
        mechanism, theorem = ADASSP_STANDARDISED, STANDARDISED_THEOREM
    elif calibration.range_columns:
        mechanism = ADASSP_RANGED
        theorem = RANGED_THEOREM if calibration.range_columns > 1 else LABEL_RANGE_THEOREM
    else:
        mechanism, theorem = ADASSP, ADASSP_THEOREM
    return mechanism, "(epsilon, delta)-differential privacy by " + theorem


@dataclass(frozen=True)
class SufficientStatisticsCertificate(WholeCost, CandidateMark, NoiseRecord):
    """What an AdaSSP release (or one of noisy gradient descent on privately mapped rows, mechanism
    ``gradient-ranged``) relies on: the theorem, the public bounds, the calibration (all public)."""

    mechanism: str
    guarantee: str
    epsilon: float
    delta: float
    calibration: AdaSSPCalibration | GradientCalibration
    data_norm: float
    effective_norm_bound: float
    label_bound: float
    fit_intercept: bool
    intercept_scaling: float
    clipping: str
    neighbours: str
    library_version: str
    #: ADASSP_STANDARDISED only: {"n", "spread", "sums"}, the released column sums and sums of squares;
    #: ADASSP_RANGED only: {"n", "level", "label_bound", "ranges"}, the released ranges and the public label bound
    #: (``label_bound`` is the public B; ``calibration.label_bound`` the bound B' the ranges give); GRADIENT_RANGED:
    #: the same record as ADASSP_RANGED
    column_statistics: dict | None = None
    #: a public label range label_bound=(lo, hi): its centre (lo + hi) / 2, subtracted from the labels and added to
    #: the intercept (0: none; written only when not 0; a format 6 file's reads as 0: records.upgrade)
    label_shift: float = 0.0

    def __post_init__(self) -> None:
        """Every field checked, by the constructor and by ``dataclasses.replace`` (:func:`check_certificate`)."""
        check_certificate(self, {
            "mechanism": instance_of(str), "guarantee": instance_of(str), "epsilon": epsilon_value,
            "delta": delta_value, "calibration": instance_of(AdaSSPCalibration, GradientCalibration),
            "data_norm": positive, "effective_norm_bound": positive, "label_bound": positive,
            "fit_intercept": check_flag, "intercept_scaling": positive, "clipping": instance_of(str),
            "neighbours": instance_of(str), "library_version": instance_of(str),
            "column_statistics": optional(instance_of(dict)), "label_shift": finite,
        })

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """One Gaussian mechanism on the scaled statistics (sensitivity sqrt(sum f_i) together)."""
        return self.marked(self.calibration.privacy_curve(self.epsilon, self.delta))

    @property
    def relation(self) -> Neighbours:
        """The neighbour relation the calibration is for (``neighbours`` states it in words)."""
        return self.calibration.relation

    @property
    def conditional(self) -> bool:
        return False

    @property
    def float_guarantee(self) -> FloatGuarantee:
        """Mitigation only: each noisy statistic (gradient) is rounded to its grid (the calibration's
        ``release_grids``)."""
        return FloatGuarantee.MITIGATION_ONLY

    def to_dict(self) -> dict[str, Any]:
        return {"mechanism": self.mechanism, "guarantee": self.guarantee, "epsilon": self.epsilon,
                "delta": self.delta, "calibration": self.calibration.to_dict(), "data_norm": self.data_norm,
                "effective_norm_bound": self.effective_norm_bound, "label_bound": self.label_bound,
                "fit_intercept": self.fit_intercept, "intercept_scaling": self.intercept_scaling,
                "clipping": self.clipping, "neighbours": self.neighbours, "library_version": self.library_version,
                **self.noise_record(), "privacy_curve": self.privacy_curve.to_dict(),
                **({} if self.column_statistics is None else {"column_statistics": self.column_statistics}),
                **({"label_shift": self.label_shift} if self.label_shift != 0.0 else {})}

    @property
    def description(self) -> str:
        """The method in plain words, the certificate's first line (the release report's name of the mechanism):
        AdaSSP or noisy gradient descent, on what rows."""
        ranged = self.column_statistics is not None and "ranges" in self.column_statistics
        alone = getattr(self.calibration, "range_columns", 0) == 1  # the label's range alone: the rows' map is public
        mapped = ("publicly mapped rows and a label mapped by its private range" if alone
                  else "columns and a label mapped by private ranges")
        standardised = "" if self.column_statistics is None else (
            f" on {mapped}" if ranged else " on columns centred and scaled by private column statistics")
        method = ("least squares by noisy gradient descent on clipped residuals"
                  if isinstance(self.calibration, GradientCalibration) else "AdaSSP least squares")
        return f"{method}{standardised}"

    def __str__(self) -> str:
        ranged = self.column_statistics is not None and "ranges" in self.column_statistics
        named = "" if self.column_statistics is None else f" (mechanism {self.mechanism})"
        label = f"|y{' - s' if self.label_shift else ''}| <= {self.label_bound:g}" + (
            f" (the fit saw y - c clipped onto |y - c| <= {self.calibration.label_bound:g}, c and that bound from the "
            f"private label range)" if ranged else "") + label_shift_text(self.label_shift)
        return "\n".join([
            f"dpcvx release: {self.description}{named}, epsilon = {self.epsilon:g} (delta = {self.delta:g})",
            f"guarantee: {self.guarantee}",
            f"neighbours: {self.neighbours}",
            f"public bounds: ||x|| <= {self.data_norm:g} (effective {self.effective_norm_bound:g}), "
            f"{label}; beyond them: {self.clipping}",
            self.calibration.describe(),
            self.float_guarantee.statement,
            self.noise_source.statement,
        ])
