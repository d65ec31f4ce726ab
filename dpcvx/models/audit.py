"""Empirical privacy audit: a statistical lower bound on the epsilon a learner really has.

The hypothesis-testing view of differential privacy (Wasserman and Zhou 2010;
Kairouz, Oh and Viswanath, ICML 2015): a mechanism M is (eps, delta)-DP if and
only if every test that guesses, from one output, whether it came from D or
from a neighbour D' has false positive rate FPR and false negative rate FNR with

    FPR + e^eps FNR >= 1 - delta   and   e^eps FPR + FNR >= 1 - delta,

that is  eps >= log((1 - delta - FNR) / FPR)  and  eps >= log((1 - delta - FPR) / FNR).

Running the real release path many times on a hard pair (D, D'), counting the
errors of one test and replacing FPR and FNR by Clopper-Pearson upper
confidence bounds turns this into a lower bound on the epsilon the
implementation really achieves, valid at a stated confidence (Jagielski,
Ullman and Oprea, NeurIPS 2020; Nasr, Song, Thakurta, Papernot and Carlini,
IEEE S&P 2021). If it exceeds the claimed epsilon, the implementation is not
private as claimed. A lower bound at or below the claim is evidence, not
proof: other pairs or tests might do better. Method, neighbours and measured
bounds: ``docs/audit.md``.

The test's region is chosen on one part of the runs (the selection runs) and
its errors are counted on the other, fresh part (the evaluation runs), so the
bound holds without any correction for the number of regions tried.

A second, deterministic audit (:mod:`dpcvx.models.release_audit`) checks the release FILE
rather than the weights: :func:`~dpcvx.models.release_audit.audit_release_file` fits on two neighbouring data sets with
the same seed, saves both releases as files and reports, with
:func:`~dpcvx.models.release_audit.release_diff`, every saved field that differs other than the
privatised values. Any such field (a solver statistic, a count, a timing) is
a function of the private data that no proof covers.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse, stats

from ..data.files import atomic_write, check_writable  # every file dpcvx writes goes through the one writer
from ..exceptions import ConstantPredictionWarning, InputError, TrainingRowsWarning, a_value_of
from ..limits import CANARY_MAX_ENTRIES
from ..privacy.rng import RandomState, resolve_rng
from ..tables import is_number, own_types, reading_key
from ..validation import (
    check_bound,
    check_choice,
    check_delta,
    check_matrix,
    fraction,
    integer,
    missing_labels,
    missing_refusal,
    non_negative,
    positive,
    refuse_misread,
    sample_size,
)
from .contract import binding_error

__all__ = [
    "NeighbouringPair",
    "canary_pair",
    "clopper_pearson",
    "epsilon_lower_bound",
    "AuditReport",
    "audit",
    "REPLACEMENTS",
]

REPLACEMENTS = ("zero", "flip")
# The candidate region ends are this many quantiles of the pooled selection statistics.
CANDIDATE_CUTS = 64
# canary_pair(lam=...): the largest margin L x CANARY_MARGIN the canary may reach at either exact minimiser.
CANARY_MARGIN = 0.1


def _noise_pair_size(data_norm: float, lam: float) -> float:
    """R^2 / (CANARY_MARGIN lam): the n from which a canary of norm R moves the minimiser of a loss with gradient bound
    L and strong convexity lam (m Lam) by at most L R / (n lam), so that its margin stays at most CANARY_MARGIN L
    (:func:`canary_pair`'s ``lam``); infinite where it overflows."""
    R, strength = check_bound("data_norm", data_norm), positive("lam", lam)
    with np.errstate(over="ignore"):
        return float(np.float64(R) * R / (CANARY_MARGIN * strength))


# --- neighbouring datasets ----------------------------------------------------------------


def _labels_differ(y: np.ndarray, y_prime: np.ndarray) -> np.ndarray:
    """Which rows' labels differ between D and D': by value, as every fit reads a label against its classes
    (:func:`dpcvx.validation.declared_labels`): 1, 1.0, "1" and "true" are one label (:func:`dpcvx.tables.
    reading_key`). Compared as arrays, the text that one record of a list makes of every label (numpy makes
    [0, 1, "1"] all text) made every row of y differ from the numbers of y', and the pair was refused as differing
    in n records (sixty-fourth session)."""
    if y.dtype.kind not in "OUS" and y_prime.dtype.kind not in "OUS":
        return np.asarray(y != y_prime, dtype=bool)
    return np.fromiter((not (a == b or (reading_key(a) is not None and reading_key(a) == reading_key(b)))
                        for a, b in zip(y.tolist(), y_prime.tolist(), strict=True)), dtype=bool, count=y.size)


@dataclass(frozen=True)
class NeighbouringPair:
    """Two datasets of the same size that differ in exactly one record (replace-one).

    ``direction`` is the statistic's projection vector: the released weights
    ``coef_`` (length d) or ``(coef_, intercept_)`` (length d + 1) are
    projected on it. Replace-one neighbours with the same n are the
    neighbouring relation of Chaudhuri, Monteleoni and Sarwate (JMLR 2011).
    """

    X: np.ndarray
    y: np.ndarray
    X_prime: np.ndarray
    y_prime: np.ndarray
    direction: np.ndarray
    description: str = "user-supplied pair"

    def __post_init__(self) -> None:
        arrays = {}
        for name in ("X", "X_prime"):  # the one check of X (text, complex, a table's columns: by name), dense
            matrix = check_matrix(getattr(self, name), f"NeighbouringPair.{name}")
            dense = matrix.toarray() if isinstance(matrix, sparse.csr_matrix) else matrix
            arrays[name] = np.array(dense, dtype=float)
        for name in ("y", "y_prime"):
            refuse_misread(f"NeighbouringPair.{name}", getattr(self, name), labels=True)
            labels = own_types(getattr(self, name), f"NeighbouringPair.{name}").ravel()  # its own type
            missing = np.flatnonzero(missing_labels(labels))
            if missing.size:  # NaN != NaN: a missing label would count as a difference of the two data sets
                raise missing_refusal(f"NeighbouringPair.{name}", int(missing.size), int(missing[0]))
            arrays[name] = labels
        direction = np.array(self.direction, dtype=float).ravel()
        X, X_prime = arrays["X"], arrays["X_prime"]
        y, y_prime = arrays["y"], arrays["y_prime"]
        if X.shape != X_prime.shape or y.shape != y_prime.shape or y.shape[0] != X.shape[0]:
            raise InputError(
                f"neighbouring datasets must have the same shape (replace-one neighbours): "
                f"X {X.shape}, y {y.shape}, X_prime {X_prime.shape}, y_prime {y_prime.shape}"
            )
        differing = np.flatnonzero(np.any(X_prime != X, axis=1) | _labels_differ(y, y_prime))
        if differing.size != 1:
            raise InputError(
                f"D and D' must differ in exactly one record, they differ in {differing.size}; "
                "replace one row of X (and/or its label) and keep the others identical"
            )
        if direction.size not in (X.shape[1], X.shape[1] + 1) or not np.any(direction):
            raise InputError(
                f"direction must be a non-zero vector of length d = {X.shape[1]} (projects coef_) "
                f"or d + 1 = {X.shape[1] + 1} (projects coef_ and intercept_), got "
                f"length {direction.size}"
            )
        for name, value in (*arrays.items(), ("direction", direction)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def replaced_index(self) -> int:
        """Row index of the record in which D and D' differ."""
        differs = np.any(self.X_prime != self.X, axis=1) | (self.y != self.y_prime)
        return int(np.flatnonzero(differs)[0])


def canary_pair(
    n: int = 10,
    d: int = 1,
    data_norm: float = 1.0,
    *,
    replacement: str = "zero",
    lam: float | None = None,
    random_state: RandomState = 0,
) -> NeighbouringPair:
    """The default hard pair: a canary on the norm ball's boundary, off the data's span (the canary pair of the
    audits of Jagielski, Ullman and Oprea, NeurIPS 2020, and Nasr et al., IEEE S&P 2021; docs/audit.md).

    D holds n - 1 base records whose features lie in the span of the first
    d - 1 coordinates (norms in [R/2, R), labels from a fixed linear rule; for
    d = 1 they are zero vectors with random labels) and the canary (R e_d, +1): on the boundary
    of the ball of radius R, in the one direction no other record touches, so
    the release's e_d coordinate is moved by the canary and the noise alone.
    In D' the canary is replaced by

    * ``"zero"``: (0, +1), a record with no gradient and no curvature in any
      direction. Both parts of the privacy loss are exercised: the gradient
      part (the noise calibration) and the Jacobian part (the eps' and Delta
      of objective perturbation), whatever the loss.
    * ``"flip"``: (R e_d, -1), the canary with the opposite label: twice the
      gradient difference of "zero" (2 L R where |l'| reaches L), but the
      same curvature for a loss with an even l'' (logistic), so it cannot see
      a Jacobian error there.

    d = 1 (the default) makes the noise along e_d one-dimensional, a Laplace
    variable whose privacy loss a one-number statistic sees in full; in d
    dimensions the projection of noise with density exp(-beta ||b||) is not
    Laplace and the audit needs more runs for the same bound. The statistic's
    direction is e_d. Labels are -1/+1.

    ``lam`` (the learner's strong convexity m Lam: Lam for the ridge, m = 1) sizes the pair for the noise
    calibration: n is raised to at least

        n_lam = ceil(R^2 / (CANARY_MARGIN m Lam)),   CANARY_MARGIN = 0.1,

    the extra records being base records (zero vectors for d = 1, which add neither gradient nor curvature).
    The canary moves the minimiser along e_d by at most L R / (n m Lam) (its gradient L R over n, against the
    strong convexity m Lam), so its margin ``|<w*, R e_d>|`` stays at most L R^2 / (n m Lam) <= CANARY_MARGIN L:
    the canary's loss is read near margin 0, where the logistic |l'| is 1/2 and the Huber hinge's is L. With
    ``replacement="flip"`` the two exact minimisers then lie apart by nearly all of output perturbation's
    sensitivity 2 L R / (n m Lam) (Chaudhuri, Monteleoni and Sarwate, JMLR 2011, Corollary 1): the whole of it
    for the Huber hinge (its linear part, margin below 1 - h), about half of it for the logistic loss (0.49 at
    n = n_lam; the flip moves the logistic gradient by R at every w, since sigma(z) + sigma(-z) = 1). At the
    default n = 10 and a small Lam the canary's margin grows to ~log(R^2 / (n Lam)) instead, its gradient
    vanishes, and the minimisers lie a small part of the sensitivity apart (logistic, flip: 0.40 of it at
    Lam = 0.1, 0.16 at 1e-2, 0.034 at 1e-3), so that a noise scale ten times too small is hidden from every
    test on that pair. Without ``lam`` the pair is the small one (n as given), which is what a Jacobian error
    of objective perturbation needs: its privacy loss 1 + c R^2 / (n m Lam) is large only when n m Lam is small.

    n >= 2 and d >= 1 are integers, with n x d at most ``dpcvx.limits.CANARY_MAX_ENTRIES`` (10^8): InputError
    otherwise, before anything is allocated.
    """
    n = sample_size(n)
    d = sample_size(d, "d")
    if n < 2:
        raise InputError(f"canary_pair needs n >= 2 (base records and the canary), got n={n}")
    R = check_bound("data_norm", data_norm)
    if lam is not None:
        asked = _noise_pair_size(R, lam)
        if not asked * d <= CANARY_MAX_ENTRIES:
            raise InputError(f"canary_pair(lam={lam:g}) asks for n >= R^2 / ({CANARY_MARGIN:g} lam) = {asked:.3g} "
                             f"records of d = {d}, more than {CANARY_MAX_ENTRIES:.0e} entries "
                             "(dpcvx.limits.CANARY_MAX_ENTRIES), which an audit refits on hundreds of times; choose a "
                             "larger lam, a smaller data_norm or d")
        n = max(n, 2, math.ceil(asked))
    if n * d > CANARY_MAX_ENTRIES:
        raise InputError(f"canary_pair's data sets would hold n x d = {n} x {d} entries each, more than "
                         f"{CANARY_MAX_ENTRIES:.0e} (dpcvx.limits.CANARY_MAX_ENTRIES), which an audit refits on "
                         "hundreds of times; choose a smaller n or d (the default pair has n = 10, d = 1)")
    check_choice("replacement", replacement, tuple(REPLACEMENTS))
    rng = resolve_rng(random_state)
    X = np.zeros((n, d))
    if d > 1:
        base = rng.standard_normal((n - 1, d - 1))
        base /= np.linalg.norm(base, axis=1, keepdims=True)
        X[:-1, :-1] = base * R * rng.uniform(0.5, 1.0, size=(n - 1, 1)) * (1 - 1e-9)
        labels = np.where(X[:-1, :-1] @ rng.standard_normal(d - 1) >= 0, 1.0, -1.0)
    else:
        labels = rng.choice([-1.0, 1.0], size=n - 1)
    X[-1, -1] = R
    X_prime = X.copy()
    y = np.append(labels, 1.0)
    y_prime = y.copy()
    if replacement == "zero":
        X_prime[-1] = 0.0
        description = f"canary (R e_d, +1) vs (0, +1); n={n}, d={d}, R={R:g}"
    else:
        y_prime[-1] = -1.0
        description = f"canary (R e_d, +1) vs (R e_d, -1); n={n}, d={d}, R={R:g}"
    return NeighbouringPair(X, y, X_prime, y_prime, np.eye(d)[-1], description)


# --- confidence bounds -----------------------------------------------------------------------


def clopper_pearson(successes: ArrayLike, trials: ArrayLike, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided exact binomial interval (Clopper and Pearson, Biometrika 1934).

    With a = 1 - confidence, k successes in n trials:
    lower = B(a/2; k, n - k + 1) (0 if k = 0), upper = B(1 - a/2; k + 1, n - k)
    (1 if k = n), B(q; s, t) the q-quantile of the Beta(s, t) distribution.
    Each end alone is a one-sided bound at level 1 - a/2. Vectorised.
    """
    confidence = fraction("confidence", confidence)
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if np.any(k < 0) or np.any(k > n) or np.any(n < 1):
        raise InputError("clopper_pearson needs 0 <= successes <= trials and trials >= 1")
    tail = (1 - confidence) / 2
    lower = np.where(k > 0, stats.beta.ppf(tail, np.maximum(k, 1), n - k + 1), 0.0)
    upper = np.where(k < n, stats.beta.ppf(1 - tail, k + 1, np.maximum(n - k, 1)), 1.0)
    return lower, upper


def _log_ratio(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray:
    """log(numerator / denominator), -inf where the numerator is not positive."""
    numerator = np.asarray(numerator, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(numerator > 0, np.log(np.maximum(numerator, 1e-300) / denominator), -np.inf)


def epsilon_lower_bound(false_positives: ArrayLike, negatives: ArrayLike, false_negatives: ArrayLike,
                        positives: ArrayLike, confidence: float = 0.95, delta: float = 0.0) -> np.ndarray:
    """Lower confidence bound on epsilon from the error counts of one fixed test.

    The test says "D" or "D'". ``false_positives`` of ``negatives`` runs on D'
    said "D"; ``false_negatives`` of ``positives`` runs on D said "D'". With
    FPR+ and FNR+ the upper ends of two-sided Clopper-Pearson intervals at
    ``confidence`` (each a one-sided bound at level (1 + confidence)/2, so both
    hold together with probability at least ``confidence``), (eps, delta)-DP
    requires (Kairouz, Oh and Viswanath, ICML 2015)

        eps >= max(log((1 - delta - FNR+) / FPR+), log((1 - delta - FPR+) / FNR+), 0).

    The test must not have been chosen on the runs counted here. Vectorised.
    """
    delta = check_delta(delta)
    _, fpr_upper = clopper_pearson(false_positives, negatives, confidence)
    _, fnr_upper = clopper_pearson(false_negatives, positives, confidence)
    bound = np.maximum(_log_ratio(1 - delta - fnr_upper, fpr_upper),
                       _log_ratio(1 - delta - fpr_upper, fnr_upper))
    return np.maximum(bound, 0.0)


# --- the region of the test ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Region:
    low: float
    high: float
    indicates: str  # "D" or "D'"

    def contains(self, values: np.ndarray) -> np.ndarray:
        return (values >= self.low) & (values < self.high)


def _choose_region(selection_d: np.ndarray, selection_d_prime: np.ndarray, confidence: float,
                   delta: float) -> _Region:
    """The interval [low, high) and its orientation with the best bound on the selection runs.

    Candidate ends: quantiles of the pooled selection statistics and +-inf
    (so one-sided thresholds are among the candidates).
    """
    pooled = np.concatenate([selection_d, selection_d_prime])
    cuts = np.unique(np.quantile(pooled, np.linspace(0, 1, CANDIDATE_CUTS)))
    cuts = np.concatenate([[-np.inf], cuts, [np.inf]])
    below_d = np.searchsorted(np.sort(selection_d), cuts, side="left")
    below_d_prime = np.searchsorted(np.sort(selection_d_prime), cuts, side="left")
    low, high = np.triu_indices(cuts.size, k=1)
    in_d = below_d[high] - below_d[low]
    in_d_prime = below_d_prime[high] - below_d_prime[low]
    n_d, n_d_prime = selection_d.size, selection_d_prime.size
    indicates_d = epsilon_lower_bound(in_d_prime, n_d_prime, n_d - in_d, n_d, confidence, delta)
    indicates_d_prime = epsilon_lower_bound(in_d, n_d, n_d_prime - in_d_prime, n_d_prime,
                                            confidence, delta)
    best_d, best_d_prime = int(np.argmax(indicates_d)), int(np.argmax(indicates_d_prime))
    if indicates_d[best_d] >= indicates_d_prime[best_d_prime]:
        return _Region(float(cuts[low[best_d]]), float(cuts[high[best_d]]), "D")
    return _Region(float(cuts[low[best_d_prime]]), float(cuts[high[best_d_prime]]), "D'")


# --- the report ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditReport:
    """The outcome of :func:`audit`.

    The test says ``region_indicates`` ("D" or "D'") when the statistic lies in
    ``threshold`` = [low, high) and the other dataset otherwise. Its errors are
    counted on the evaluation runs only: ``false_positives`` of
    ``evaluation_trials`` runs on the other dataset fell in the region,
    ``false_negatives`` of ``evaluation_trials`` runs on the indicated one fell
    outside. ``statistics_d`` and ``statistics_d_prime`` hold every run's
    statistic, the first ``selection_trials`` of each being the selection runs.

    Returned by :func:`audit`, not built by users; its fields are still checked at construction (an InputError
    naming the field): the claimed epsilon and the lower bound finite numbers >= 0, the claimed delta in [0, 1),
    the confidence in (0, 1), the threshold a pair of numbers, ``region_indicates`` "D" or "D'", the run counts
    integers >= 0 with at least one evaluation run and no more errors than evaluation runs.
    """

    claimed_epsilon: float
    claimed_delta: float
    confidence: float
    epsilon_lower_bound: float
    threshold: tuple[float, float]
    region_indicates: str
    false_positives: int
    false_negatives: int
    evaluation_trials: int
    selection_trials: int
    statistics_d: np.ndarray = field(repr=False)
    statistics_d_prime: np.ndarray = field(repr=False)
    neighbours: str = ""
    seconds: float = 0.0
    conditional: bool = False  # the claim rests on an opted-in estimate (every release audited says so)

    def __post_init__(self) -> None:
        non_negative("claimed_epsilon", self.claimed_epsilon)
        check_delta(self.claimed_delta, "claimed_delta")
        fraction("confidence", self.confidence)
        non_negative("epsilon_lower_bound", self.epsilon_lower_bound)
        if not (isinstance(self.threshold, tuple) and len(self.threshold) == 2
                and all(is_number(end) and not isinstance(end, bool) for end in self.threshold)
                and self.threshold[0] < self.threshold[1]):
            raise InputError(f"threshold must be a pair of numbers low < high (either may be infinite), got "
                             f"{self.threshold!r}")
        check_choice("region_indicates", self.region_indicates, ("D", "D'"))
        evaluation = integer("evaluation_trials", self.evaluation_trials)
        integer("selection_trials", self.selection_trials, minimum=0)
        integer("false_positives", self.false_positives, minimum=0, maximum=evaluation)
        integer("false_negatives", self.false_negatives, minimum=0, maximum=evaluation)

    @property
    def passed(self) -> bool:
        """True when the lower bound does not exceed the claim: no violation was found."""
        return self.epsilon_lower_bound <= self.claimed_epsilon

    @property
    def trials(self) -> int:
        """Runs of the mechanism on each of D and D'."""
        return self.selection_trials + self.evaluation_trials

    @property
    def seconds_per_fit(self) -> float:
        return self.seconds / (2 * self.trials)

    def lower_bound(self, delta: float = 0.0) -> float:
        """The epsilon lower bound for a given delta (0: pure epsilon), same test and runs."""
        return float(epsilon_lower_bound(self.false_positives, self.evaluation_trials,
                                         self.false_negatives, self.evaluation_trials,
                                         self.confidence, delta))

    def __str__(self) -> str:
        low, high = self.threshold
        verdict = "passed" if self.passed else "FAILED: the claim is violated"
        return "\n".join([
            f"privacy audit: {verdict}",
            f"claimed epsilon = {self.claimed_epsilon:g} (delta = {self.claimed_delta:g}); "
            f"lower bound = {self.epsilon_lower_bound:.4g} at confidence {self.confidence:g}",
            *(["the claim is CONDITIONAL on estimated constants: an audit finds violations, it proves none; "
               "passing it does not confirm the estimates"] if self.conditional else []),
            f"neighbours: {self.neighbours}",
            f"test: say {self.region_indicates} when the statistic is in [{low:.4g}, {high:.4g})",
            f"evaluation runs per dataset: {self.evaluation_trials}; false positives "
            f"{self.false_positives}, false negatives {self.false_negatives} "
            f"(region chosen on {self.selection_trials} other runs per dataset)",
            f"{2 * self.trials} fits in {self.seconds:.3g} s "
            f"({1e3 * self.seconds_per_fit:.3g} ms each)",
        ])

    def plot(self, path_or_ax: Any, *, overwrite: bool = False) -> Any:  # a file name or a matplotlib Axes
        """Histograms of the evaluation statistics under D and D', and the test's region.

        ``path_or_ax`` is a file name (the figure is saved there; returns the
        path) or a matplotlib Axes (drawn into; returns it). Needs matplotlib.
        An existing file is kept and refused with an
        :class:`~dpcvx.exceptions.OverwriteError` before anything is drawn,
        unless ``overwrite=True``, which replaces it.
        """
        try:
            from matplotlib.figure import Figure
        except ImportError as error:
            raise ImportError(
                "AuditReport.plot needs matplotlib, which is not installed; install it with "
                "pip install 'dpcvx[plot]'"
            ) from error
        if isinstance(path_or_ax, (str, os.PathLike)):
            figure = Figure(figsize=(7, 4))
            kind = Path(path_or_ax).suffix.lstrip(".").lower() or "png"
            formats = figure.canvas.get_supported_filetypes()
            if kind not in formats:  # matplotlib's bare ValueError, after the figure was drawn
                raise InputError(f"plot writes an image, and the name {Path(path_or_ax).name!r} is no image format "
                                 f"matplotlib writes; name it .png, .svg or .pdf (one of {', '.join(sorted(formats))})")
            path = check_writable(Path(path_or_ax), "audit plot", overwrite=overwrite)
            self._draw(figure.add_subplot())
            figure.tight_layout()
            atomic_write(path, lambda handle: figure.savefig(handle, format=kind), binary=True,
                         what="audit plot", overwrite=overwrite)
            return path_or_ax
        if not hasattr(path_or_ax, "hist"):
            raise InputError(f"plot needs a file path or a matplotlib Axes, got "
                             f"{type(path_or_ax).__name__}")
        self._draw(path_or_ax)
        return path_or_ax

    def _draw(self, ax: Any) -> None:  # a matplotlib Axes
        start = self.selection_trials
        under_d, under_d_prime = self.statistics_d[start:], self.statistics_d_prime[start:]
        pooled = np.concatenate([under_d, under_d_prime])
        # heavy tails (tiny Lam) would squeeze the histogram: values beyond the central 99%
        # are piled into the outermost bins
        left, right = np.quantile(pooled, [0.005, 0.995])
        if not right > left:
            left, right = left - 0.5, right + 0.5
        bins = np.linspace(left, right, 61)
        ax.hist(np.clip(under_d, left, right), bins=bins, alpha=0.5, label="D (canary)")
        ax.hist(np.clip(under_d_prime, left, right), bins=bins, alpha=0.5, label="D' (replaced)")
        low, high = self.threshold
        ax.axvspan(max(low, left), min(high, right), color="grey", alpha=0.15,
                   label=f"[{low:.3g}, {high:.3g}) says {self.region_indicates}")
        for end in self.threshold:
            if left <= end <= right:
                ax.axvline(end, color="black", linestyle="--", linewidth=1)
        ax.set_xlabel("statistic on the evaluation runs (outer 1% in the end bins)")
        ax.set_ylabel("runs")
        ax.set_title(f"claimed eps = {self.claimed_epsilon:g}, lower bound = "
                     f"{self.epsilon_lower_bound:.3g} (confidence {self.confidence:g})")
        ax.legend()


# --- the audit -------------------------------------------------------------------------------------


def _default_pair(learner: Any) -> NeighbouringPair:
    if getattr(learner, "feature_map", None) is not None:
        raise InputError(
            "the default canary lives in the input space, but this learner applies a feature "
            "map, so the canary may not reach the norm bound after it; pass neighbours= with a "
            "NeighbouringPair built for the mapped space"
        )
    data_norm = getattr(learner, "data_norm", None)
    if data_norm is None and callable(getattr(learner, "get_params", None)):  # BudgetInConstructor's parameters
        data_norm = learner.get_params().get("data_norm")
    if data_norm is None:
        raise InputError(
            "the default neighbours need the learner's public norm bound (attribute data_norm, or the data_norm of "
            "its get_params()); "
            "set it, or pass neighbours=canary_pair(data_norm=R) or your own NeighbouringPair"
        )
    return canary_pair(data_norm=data_norm)


def _projection(pair: NeighbouringPair) -> Callable[[Any], float]:
    direction = pair.direction
    d = pair.X.shape[1]

    def project(model: Any) -> float:
        coef = np.asarray(model.coef_, dtype=float).ravel()
        if direction.size == d + 1:
            coef = np.append(coef, float(getattr(model, "intercept_", 0.0)))
        if coef.size != direction.size:
            raise InputError(
                f"the released weights have length {coef.size} but the pair's direction has "
                f"length {direction.size}; give a direction of the weights' length"
            )
        return float(coef @ direction)

    return project


def _claim(model: Any, epsilon: float, delta: float) -> tuple[float, float, bool]:
    """What a release claims: its (epsilon, delta) and whether the claim is conditional on an estimate."""
    certificate = getattr(model, "certificate", None)
    claimed_epsilon = float(getattr(certificate, "epsilon", epsilon))
    claimed_delta = float(getattr(certificate, "delta", delta))
    return claimed_epsilon, claimed_delta, bool(getattr(certificate, "conditional", False))


def _number(value: Any) -> float:
    """A statistic's value as a float; InputError when it is not one real number (a string, an array of many)."""
    if not is_number(value) and not (isinstance(value, np.ndarray) and value.size == 1 and is_number(value.item())):
        raise InputError(f"the statistic must map a release to one real number, got {a_value_of(value)}")
    return float(value)


def _check_fit(learner: Any, epsilon: float, fit_params: dict[str, Any]) -> None:
    """Refuse, before any fit, a learner whose ``fit`` :func:`audit` cannot call as
    ``fit(X, y, epsilon=, random_state=, **fit_params)``: a class rather than an instance, an estimator that takes its
    budget in its constructor, a fit that needs an argument ``fit_params`` does not give (AdaSSP's delta)."""
    name = learner.__name__ if isinstance(learner, type) else type(learner).__name__
    why = "it is the class, not an instance" if isinstance(learner, type) else binding_error(
        learner.fit, None, None, epsilon=epsilon, random_state=0, **fit_params)
    if why is not None:
        raise InputError(f"audit calls learner.fit(X, y, epsilon=..., random_state=..., **fit_params) on each "
                         f"neighbouring data set, and {name}'s cannot be called so ({why}). A learner that takes its "
                         "budget in its constructor (the estimators) goes in BudgetInConstructor(its class, ...); "
                         "fit's other arguments (AdaSSP's delta) go in fit_params")


def audit(
    learner: Any,
    epsilon: float,
    *,
    trials: int = 2000,
    neighbours: NeighbouringPair | None = None,
    confidence: float = 0.95,
    delta: float = 0.0,
    statistic: Callable[[Any], float] | None = None,
    selection_fraction: float = 0.5,
    fit_params: dict[str, Any] | None = None,
    random_state: RandomState = None,
) -> AuditReport:
    """Audit ``learner``: lower-bound the epsilon of its real release path at ``confidence``.

    ``learner.fit(X, y, epsilon=epsilon, random_state=seed, **fit_params)`` is
    called ``trials`` times on each of D and D' (``neighbours``, default
    :func:`canary_pair` at the learner's ``data_norm``: ten records, the pair for a Jacobian error of objective
    perturbation; to audit a noise calibration at any lam, pass
    ``canary_pair(data_norm=R, replacement="flip", lam=m * lam)``, whose minimisers lie the whole sensitivity
    2 L R / (n m lam) apart for the Huber hinge and half of it for the logistic loss at every lam, where the ten
    records' lie a part of it that shrinks with lam).
    Each release is
    reduced to one number by ``statistic(model)`` (default: the projection of
    ``coef_``, or of ``(coef_, intercept_)``, on the pair's direction). The
    first ``selection_fraction`` of the runs choose the test's region; the
    rest count its errors (:func:`epsilon_lower_bound`).

    The claimed (epsilon, delta) are read from ``model.certificate`` when the
    release carries one, else they are ``epsilon`` and ``delta``. Errors raised
    by ``fit`` propagate: a refusal is not a release the audit can score.
    ``random_state`` draws the seed of every fit (None: from OS entropy).

    Method: the lower-bound audit of Jagielski, Ullman and Oprea (NeurIPS 2020) and Nasr, Song, Thakurta, Papernot
    and Carlini (IEEE S&P 2021), eps >= log((1 - delta - FNR) / FPR) from the hypothesis-testing view of Kairouz,
    Oh and Viswanath (ICML 2015), with Clopper-Pearson bounds on FPR and FNR (module docstring; docs/audit.md).
    """
    trials = sample_size(trials, "trials")
    confidence = fraction("confidence", confidence)
    share = fraction("selection_fraction", selection_fraction)
    selection = int(round(share * trials))
    if not 1 <= selection < trials:
        raise InputError(
            f"selection_fraction={selection_fraction} of trials={trials} leaves no runs to "
            "select the test or none to evaluate it; use a fraction in (0, 1) and more trials"
        )
    if not callable(getattr(learner, "fit", None)):
        raise InputError(f"learner must have a fit(X, y, epsilon=..., random_state=...) method, "
                         f"got {type(learner).__name__}")
    if fit_params is not None and not isinstance(fit_params, Mapping):
        raise InputError(f"fit_params must be a dict of fit's keyword arguments, got {type(fit_params).__name__}")
    if statistic is not None and not callable(statistic):
        raise InputError(f"statistic must be a function of a release to one number, statistic(model), got "
                         f"{type(statistic).__name__}")
    extra = dict(fit_params or {})
    for reserved in ("epsilon", "random_state"):
        if reserved in extra:
            raise InputError(f"pass {reserved} to audit itself, not inside fit_params")
    _check_fit(learner, epsilon, extra)
    pair = _default_pair(learner) if neighbours is None else neighbours
    if not isinstance(pair, NeighbouringPair):
        raise InputError(f"neighbours must be a NeighbouringPair (see canary_pair), got "
                         f"{type(pair).__name__}")
    score = _projection(pair) if statistic is None else statistic
    delta = check_delta(delta)

    rng = resolve_rng(random_state)
    seeds = rng.integers(0, 2**63 - 1, size=(2, trials))
    datasets = ((pair.X, pair.y), (pair.X_prime, pair.y_prime))
    values = np.empty((2, trials))
    claims = set()
    start = time.perf_counter()
    with warnings.catch_warnings():  # the releases of a canary pair are often constant: that is not the question
        warnings.simplefilter("ignore", ConstantPredictionWarning)
        warnings.simplefilter("ignore", TrainingRowsWarning)
        for side, (X, y) in enumerate(datasets):
            for run in range(trials):
                model = learner.fit(X, y, epsilon=epsilon, random_state=int(seeds[side, run]), **extra)
                values[side, run] = _number(score(model))
                claims.add(_claim(model, epsilon, delta))
    seconds = time.perf_counter() - start
    if not np.all(np.isfinite(values)):
        raise InputError("the statistic was NaN or infinite for some release; use a statistic "
                         "that maps every release to a finite number")
    if len(claims) != 1:
        raise InputError(f"the releases claim different privacy levels {sorted(claims)}; "
                         "audit a learner whose claim does not depend on the data")
    claimed_epsilon, claimed_delta, conditional = claims.pop()

    region = _choose_region(values[0, :selection], values[1, :selection], confidence,
                            claimed_delta)
    indicated, other = (values[0], values[1]) if region.indicates == "D" else (values[1], values[0])
    evaluation = trials - selection
    false_positives = int(np.count_nonzero(region.contains(other[selection:])))
    false_negatives = int(evaluation - np.count_nonzero(region.contains(indicated[selection:])))
    bound = float(epsilon_lower_bound(false_positives, evaluation, false_negatives, evaluation,
                                      confidence, claimed_delta))
    return AuditReport(
        claimed_epsilon=claimed_epsilon,
        claimed_delta=claimed_delta,
        confidence=confidence,
        epsilon_lower_bound=bound,
        threshold=(region.low, region.high),
        region_indicates=region.indicates,
        false_positives=false_positives,
        false_negatives=false_negatives,
        evaluation_trials=evaluation,
        selection_trials=selection,
        statistics_d=values[0],
        statistics_d_prime=values[1],
        neighbours=pair.description,
        seconds=seconds,
        conditional=conditional,
    )
