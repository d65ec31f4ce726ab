"""When an AdaSSP release is predicted to keep less than half of the signal: public rules from its noise scales.

:class:`dpcvx.DPLinearRegression` calls :func:`warn_if_adassp_noise_dominates` after an AdaSSP
fit, before the fit returns, as the other estimators call
:func:`dpcvx.sklearn.noise_warning.warn_if_noise_dominates`. It reads the release certificate's
calibration (epsilon, delta, d, the public bounds R and B or the private label bound B' it released, hence the
sigmas of X^T X and X^T y, and the mechanism) and n, never the data or the fitted weights; docs/theory.md, section
30, derives it. Issue 42's bar: the defaults recover at least half of the gap between the labels' mean and a
non-private model, else they warn.

The ratio. Take the most favourable public picture: rows at the bound R that fill the d
directions evenly, so X^T X = lam_bar I with lam_bar = n R^2 / d (trace X^T X <= n R^2), and a
signal that uses the whole label bound B at a typical row (||theta*|| R / sqrt(d) = B). AdaSSP
solves (X^T X + E + rho I) theta = X^T y + e with E symmetric Gaussian of entry scale sigma_2
and e Gaussian of scale sigma_3 (Wang, UAI 2018, Algorithm 2; :mod:`dpcvx.privacy.adassp`).
At a typical row, in units of B, the signal kept is lam_bar / (lam_bar + rho) and the noise
is N / (lam_bar + rho), N = sqrt((sigma_3 R / B)^2 + d sigma_2^2) (e moves a prediction by
sigma_3 R / (lam_bar + rho), E theta* by sigma_2 sqrt(d) B / (lam_bar + rho)). Their ratio

    N / lam_bar = d sqrt((sigma_3 R / B)^2 + d sigma_2^2) / (n R^2)

does not depend on the ridge rho (nor on B: sigma_3 is proportional to it). Real rows fill a part of the picture's
eigenvalue that no public quantity tells, so the limit is not the picture's 1 but ``ADASSP_RATIO_LIMIT``, fitted on
a synthetic family of tables shaped like users' (columns in a part of their public ranges, skewed columns, one-hot
blocks, labels in a part of a loose public range) and frozen before any held-out table was fitted
(benchmarks/adassp_warning_fit.py; benchmarks/results/adassp_warning_fit.md and adassp_warning_held_out.md).

Where the picture holds at all. The ratio assumes rows that fill their map. With the columns' private ranges
(mechanism ``adassp-ranged`` over every column) or private column statistics, the map is drawn from the rows, and
they fill it by construction; on the public row map (the label's range alone, or plain AdaSSP) how much of their
public ranges the rows fill is not public, and on the synthetic family such fits kept less than half of the signal in
209 of 210 cells at every ratio. So the warning also fires when the columns' ranges were not located at an n below
the one at which ``column_statistics="auto"`` searches them all (:func:`columns_search_rows`: epsilon, delta, d and n),
and says so with that n. Above it (a plain AdaSSP chosen by the caller, or rows out of core) the ratio alone is read.

Noisy gradient descent (mechanism ``gradient-ranged``, DPLinearRegression's default where it searches at least the
label's range) has no fitted ratio: its noise is not AdaSSP's, and no limit was fitted for it. The second rule holds
for it, as a likelihood rather than a prediction: with the label's range alone (an n below
:func:`columns_search_rows`) the descent runs on the rows' public map, and such fits kept less than half of the gap
in 117 of 164 cells of the synthetic family of benchmarks/adassp_warning_fit.py and in 15 of 25 cells of the held-out
tables of benchmarks/gradient_regression.py (epsilon 0.2 to 0.5), with no trend in n / :func:`columns_search_rows`
or in n epsilon / d (a third to a half kept more in every band, up to n just below that n), while every cell from
that n to 1.5 times it kept more than half (52 of 52): which side a table falls on is how much of their public
ranges its columns fill, which is not public (benchmarks/columns_not_located.py;
benchmarks/results/columns_not_located.md). So the warning fires, says the fit is likely (about two in three), not
predicted, to keep less than half, and names that n. Its label is always located (the descent is refused without
the label's search).

The advice names epsilon, n and d only, never a ridge: AdaSSP
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
from dataclasses import replace

import numpy as np

from ..advice import setting
from ..data.standardiser import label_range, least_label_bound
from ..exceptions import NoiseDominatesWarning
from ..privacy.adassp import AdaSSPCalibration, label_search_rows
from ..privacy.column_ranges import SEARCH_DEPTH, grid_cell, least_rows
from ..privacy.gradient_descent import GradientCalibration
from ..privacy.neighbours import Neighbours
from ..release.regression_model import SufficientStatisticsCertificate
from ..release.usefulness import speaker, warn_release
from .noise_warning import epsilon_quoted, label_not_located, label_unresolved_text, whole_epsilon

__all__ = ["ADASSP_RATIO_LIMIT", "LOCATED_EVIDENCE_WIDTH", "adassp_noise_to_signal", "columns_search_rows",
           "warn_if_adassp_noise_dominates"]

#: AdaSSP warns when :func:`adassp_noise_to_signal` exceeds this: the one fitted constant of the rule, chosen on the
#: synthetic family of benchmarks/adassp_warning_fit.py (the fewest fits on the wrong side of issue 42's half of the
#: gap: 7 false alarms, no miss in 475 cells) and frozen before the held-out tables were fitted. The picture's own 1
#: (the predicted error at the zero model's) left 120 of those cells silent below half of the gap.
ADASSP_RATIO_LIMIT = 0.316


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


def columns_search_rows(calibration: AdaSSPCalibration | GradientCalibration, width: int) -> int:
    """The least n at which ``column_statistics="auto"`` searches the private ranges of all ``width`` feature columns
    and the label (:func:`~dpcvx.privacy.adassp.range_search_level` defined at width + 1 columns), in the release's
    joint Gaussian (AdaSSP's or the descent's: the same counts' noise): a function of epsilon and delta (the search's
    noise) and the width only."""
    searched = (replace(calibration, range_columns=width + 1) if isinstance(calibration, GradientCalibration)
                else replace(calibration, column_statistics=False, range_columns=width + 1))
    return least_rows(searched.count_sigma)


def _columns_not_located(width: int, needed: int, gradient: bool) -> str:
    """The reason "the columns' ranges were not located" of a release on the rows' public map at an n below
    ``needed`` (:func:`columns_search_rows`), for AdaSSP or (``gradient``) noisy gradient descent: the evidence of
    each (module docstring). Public only."""
    evidence = ("such fits of noisy gradient descent kept less than half of the gap between the labels' mean and a "
                "non-private model in 117 of 164 synthetic cells and 15 of 25 held-out ones at every n below that "
                "(benchmarks/columns_not_located.py), but in 9 of 24 on benchmarks/regression_advice.py's trending "
                "demand tables, where 9 kept more than 0.8 of it (tables whose columns fill most of their public "
                f"ranges keep more, which is not public), and every fit from n = {needed} to 1.5 times it kept more "
                "than half (52 of 52)"
                if gradient else "such fits on synthetic tables kept less than half of the gap between the labels' "
                "mean and a non-private model")
    method = "noisy gradient descent on clipped residuals" if gradient else "AdaSSP"
    return (f"the columns' ranges were not located (the private search of all {width + 1} columns' ranges, which "
            f"column_statistics='auto' runs on dense rows in memory or a numpy.memmap, needs n >= {needed} at this "
            f"epsilon and delta), so the rows keep their public map, and how much of their public ranges they fill is "
            f"not public: {evidence}. The fit still ran {method} on the label's private range (its centre and "
            f"bound), which the search's share of epsilon bought: {setting('column_statistics', 'False')} is not this "
            "fit without that share, it changes the mechanism (plain AdaSSP, the label only clipped onto its "
            "declared bound)")


def warn_if_adassp_noise_dominates(owner: str, certificate: SufficientStatisticsCertificate, n: int,
                                   also: str | None = None) -> None:
    """Warn :class:`~dpcvx.sklearn.noise_warning.NoiseDominatesWarning` when :func:`adassp_noise_to_signal` exceeds
    ``ADASSP_RATIO_LIMIT``, when the columns' ranges were not located below :func:`columns_search_rows`, or when
    the label was not located (module docstring). Reads the certificate (public) and n; the message holds them only.
    ``also``: the text of another public rule that fired (the estimator's: its default drew no label range for the
    input's kind or its settings), given in the same warning. Under add/remove n is the public ``n_public`` (the
    number of records is private) and the ratio alone is read: no private range is searched there. A release of
    noisy gradient descent (mechanism ``gradient-ranged``) is told only that its columns were not located
    (:func:`_gradient_columns_not_located`): the ratio reads AdaSSP's sigmas. Points at the user's line
    (:func:`user_stacklevel`)."""
    calibration = certificate.calibration
    if isinstance(calibration, GradientCalibration):  # replace-one only
        _gradient_columns_not_located(owner, certificate, calibration, n, also)
        return
    ratio = adassp_noise_to_signal(calibration, n)
    searched = calibration.neighbours is Neighbours.REPLACE_ONE  # where a range search is offered
    located = calibration.range_columns > 0 or calibration.column_statistics
    least = None if located or not searched else label_search_rows(calibration.epsilon, calibration.delta)
    texts = [] if least is None or n >= least else [
        label_not_located(n, least, calibration.label_bound, epsilon=calibration.epsilon, delta=calibration.delta)]
    unresolved = label_unresolved(certificate, n)
    if unresolved is not None:
        texts.append(unresolved)
    if also is not None:
        texts.append(also)
    width = calibration.dim - (1 if certificate.fit_intercept else 0)
    mapped = calibration.range_columns > 1 or calibration.column_statistics
    needed = None if mapped or texts or not searched else columns_search_rows(calibration, width)
    reasons: list[str] = []
    if ratio > ADASSP_RATIO_LIMIT:
        reasons.append(
            f"AdaSSP's noise moves a typical prediction by about {ratio:.3g} times the largest signal the label "
            f"bound allows (rows at the bound R filling the d directions), above {ADASSP_RATIO_LIMIT:g}, beyond which "
            f"fits on synthetic tables kept less than half of the gap between the labels' mean and a non-private model")
    if needed is not None and n < needed:
        reasons.append(_columns_not_located(width, needed, gradient=False))
    if not reasons and not texts:
        return
    # B is the declared bound, or the half-width of the label's range the fit drew privately (a released value)
    label_source = "" if calibration.label_bound == certificate.label_bound else ", drawn privately and released"
    if reasons:
        texts.insert(0, (
            "the model is predicted to keep less than half of the signal: " + "; and ".join(reasons) + ". "
            f"This reads public quantities and released values only "
            f"({epsilon_quoted(calibration.epsilon, whole_epsilon(certificate))}, "
            f"{setting('delta', f'{calibration.delta:g}')}, n={n}, d={calibration.dim} and "
            f"R={calibration.data_norm:g} with the intercept, "
            f"B={calibration.label_bound:g}{label_source}: the sigmas of X^T X and X^T y, and the mechanism), "
            "never the data "
            "(docs/theory.md, section 30). To keep more: raise epsilon or the number of rows, or use fewer features. "
            f"AdaSSP already chooses its ridge from these public quantities ({setting('lam', repr('auto'), 'auto')}, "
            "the default, adds none); an extra ridge is not advised"))
    warn_release(f"{speaker(owner)}: " + "; and ".join(texts), NoiseDominatesWarning)


def label_unresolved(certificate: SufficientStatisticsCertificate, n: int) -> str | None:
    """The reason "the label's range was not resolved" of a release whose private label range is the least its grid
    gives (:func:`~dpcvx.data.standardiser.least_label_bound` at the search's level q), else None. The search's grid
    has 2^D cells over the declared [-B, B]: at the least B' the labels' q ... 1 - q spread was narrower than it
    resolves, so B' is an upper bound the labels may lie far inside, and the fit's clipping and noise are set at its
    scale (a label of spread 40 declared in (0, 1e7): R^2 -34 against 0.86 declared in (0, 240), with no public
    word). Post-processing of the released B' with public B, n and q only."""
    calibration = certificate.calibration
    level = calibration.range_level(n) if calibration.range_columns else None
    if level is None or calibration.label_bound > least_label_bound(certificate.label_bound, level) * (1 + 1e-9):
        return None
    record = certificate.column_statistics
    centre = (_cells_centre(np.asarray(record["ranges"], dtype=float)[:, -1:], record["level"], record["label_bound"])
              if isinstance(record, dict) and "ranges" in record else 0.0)
    return label_unresolved_text(certificate.label_bound, SEARCH_DEPTH, calibration.label_bound, centre, linear=True,
                                 n=n)


def _cells_centre(ranges: np.ndarray, level: float, label_bound: float) -> float:
    """The centre of the grid cells a released label range (2 x 1, the search's grid points) spans, which
    :func:`~dpcvx.validation.released_ends` reads: c - cell / 2, c the centre the fit drew
    (:func:`~dpcvx.data.standardiser.label_range`). Each end of the search is the grid point t(i) = -B + 2 B i / 2^D,
    i = 1 ... 2^D, at which its noisy count crossed (:func:`~dpcvx.privacy.column_ranges.release_ranges`): the UPPER
    edge of the cell (t(i) - cell, t(i)] the level lay in, so the released points run from -B + cell (labels piled
    on, or clipped onto, -B) to B. Read at c itself the lower end sat exactly one cell inside -B and was never named
    (|c| > B - cell failed on equality: -999.8779 against 999.8779, B = 1000; an analyst probe, session 63), while
    the histogram's ranges, whose ends are cell edges on both sides, were. Post-processing of the released range
    with the public B and grid only."""
    centre = label_range(ranges, level, label_bound)[0]
    return centre - float(grid_cell(np.array([label_bound]))[0]) / 2


#: the widest table (encoded columns) of the evidence of :func:`_columns_not_located`'s descent text
#: (benchmarks/results/columns_not_located.md: d 19 to 60); above it the warning does not promise that locating the
#: ranges helps (:data:`_WIDE_CAVEAT`)
LOCATED_EVIDENCE_WIDTH = 60
_WIDE_CAVEAT = (
    "On rows of more than 60 encoded columns a larger epsilon is not known to help: the evidence above is from tables "
    "of at most 60 columns, and on one-hot blocks of 100 to 400 columns at n 6,000 the first epsilon that located "
    "the ranges fitted worse than the public map had (R^2 0.675 to 0.544, 0.577 to 0.435, 0.558 to 0.434), while a "
    "signal column among 200 gained (0.209 to 0.717; benchmarks/results/descent_advice_dev.md); on an analyst's "
    "200-level block at n 7,000 (session 68) R^2 was no higher at epsilon 2, 3 or 5 than at 1, and higher only at "
    "10. What may help there: fewer features (a categorical's levels grouped by a public rule, a coarser "
    "classification known without the data, never by their counts in it), or declared column ranges that the "
    "columns' values fill (public ranges known without looking at the data, as tight as they truly are); more rows "
    "(n >= {needed}) or a larger epsilon locate the ranges, which helped on the narrower tables only")


def _columns_advice(width: int, needed: int) -> str:
    """The advice of the descent's "columns not located" text: on rows of at most :data:`LOCATED_EVIDENCE_WIDTH`
    encoded columns, where the evidence was measured, a larger epsilon or n >= ``needed`` first; on wider rows the
    caveat that a larger epsilon is not known to help leads, and the advice is fewer features or tighter declared
    ranges (:data:`_WIDE_CAVEAT`), so that one warning never advises raising epsilon and then says it is not known
    to help (an analyst, session 68, read the first and not the last)."""
    if width > LOCATED_EVIDENCE_WIDTH:
        return _WIDE_CAVEAT.format(needed=needed)
    return (f"To keep more: raise epsilon or the number of rows to n >= {needed}, use fewer features, or declare "
            "column ranges that the columns' values fill (public ranges known without looking at the data, as tight "
            "as they truly are)")


def _gradient_columns_not_located(owner: str, certificate: SufficientStatisticsCertificate,
                                  calibration: GradientCalibration, n: int, also: str | None) -> None:
    """The warning of a release of noisy gradient descent (module docstring): its columns' ranges were not located
    (the label's range alone searched, n below :func:`columns_search_rows`), and ``also``. No ratio: none is fitted
    for the descent. Public only: epsilon, delta, d, n and the searched columns."""
    width = calibration.dim - (1 if certificate.fit_intercept else 0)
    needed = columns_search_rows(calibration, width)
    texts = [text for text in (label_unresolved(certificate, n), also) if text is not None]
    if calibration.range_columns == 1 and n < needed:
        texts.insert(0, (
            "a public condition under which such fits often kept less than half of the signal holds (a rule of "
            "n, epsilon and d, which does not read this fit; check it on held-out rows): "
            f"{_columns_not_located(width, needed, gradient=True)}. This reads public quantities only "
            f"({epsilon_quoted(calibration.epsilon, whole_epsilon(certificate))}, "
            f"{setting('delta', f'{calibration.delta:g}')}, "
            f"n={n}, d={calibration.dim} with the intercept, and the columns searched), never the data. "
            + _columns_advice(width, needed)))
    if texts:
        warn_release(f"{speaker(owner)}: " + "; and ".join(texts), NoiseDominatesWarning)
