"""The fixed texts a certificate records for a private draw before a fit (column statistics, a label's range, a class
count): the theorem it rests on and how it composes with the fit; and the guarantee of such a release, made from the
draws' values by one function per draw (:func:`count_guarantee`, :func:`statistics_guarantee`,
:func:`bounds_guarantee`), which the writers call and the file reader calls again on the recorded values, refusing
any other text (a reader that only picked numbers out of the text loaded free words and an extra earlier share).
The writers (:mod:`dpcvx.models.column_statistics`,
:mod:`dpcvx.models.class_count`) record them and the file reader (:mod:`dpcvx.release.records.release_certificate`)
refuses a record holding another text, so one definition serves both (an edited theorem loaded and a report showed
it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..validation import number_text

__all__ = ["drawn_opening", "class_text", "class_texts", "count_guarantee", "statistics_guarantee", "bounds_guarantee",
           "former_number", "former_bound_guarantee", "written_until", "COUNT_COMPOSITION", "COUNT_THEOREM",
           "FORMER_BOUND_LAST", "FORMER_BOUND_NUMBERS_LAST", "FORMER_CLASS_LAST", "FORMER_NUMBERS_LAST",
           "FORMER_QUANTILE_LAST", "FORMER_RANGES_LAST", "NUMPY_CLASS_LAST",
           "FORMER_QUANTILE_COMPOSITIONS", "FORMER_RANGES_THEOREMS",
           "LABEL_BOUND_THEOREM", "LABEL_THEOREM", "OFFSET_COMPOSITION", "OFFSET_THEOREM", "RANGES_THEOREM",
           "STATISTICS_COMPOSITION", "STATISTICS_THEOREM", "WEIGHTS_THEOREM", "ROWS_CLIPPED",
           "BOUNDS_CLIPPED", "NOT_CLIPPED"]

STATISTICS_THEOREM = ("the per-column sums and sums of squares of the rows clipped onto ||x|| <= R, each record's "
                      "contribution rounded to the lattice R 2^-B (squares: R^2 2^-B) and capped in L1 norm, plus "
                      "i.i.d. discrete Laplace noise of scale (L1 sensitivity) / eps_s (the geometric mechanism, "
                      "Ghosh, Roughgarden and Sundararajan 2009; exact sampler, Canonne, Kamath and Steinke 2020): "
                      "eps_s-DP under replace-one with n public (docs/theory.md, section 33)")
RANGES_THEOREM = ("per-column histograms of the rows clipped onto ||x|| <= R on the public grid of 2^D cells over "
                  "[-R, R], plus i.i.d. discrete Laplace noise of scale 2 d / eps_s (L1 sensitivity 2 d: one record "
                  "moves two cells of each column by 1; the geometric mechanism, Ghosh, Roughgarden and Sundararajan "
                  "2009; exact sampler, Canonne, Kamath and Steinke 2020): eps_s-DP under replace-one; the ranges "
                  "(cells above a public threshold, their mass's q and 1 - q points, on the grid or on the coarser "
                  "grids that sums of adjacent noisy cells make) are post-processing (docs/theory.md, section 34)")
LABEL_THEOREM = ("the histogram of the labels clipped onto [-B, B] on the public grid of 2^D cells over [-B, B], plus "
                 "i.i.d. discrete Laplace noise of scale 2 / eps_l (L1 sensitivity 2: one record moves two cells by "
                 "1; the geometric mechanism): eps_l-DP under replace-one; the label's centre c and bound B' (the "
                 "levels q and 1 - q of the running noisy counts) are post-processing; the fit sees y - c clipped "
                 "onto [-B', B'] and c is added to the intercept (docs/theory.md, section 34.1)")
STATISTICS_COMPOSITION = ("sequential composition of the eps_s-DP statistics and the fit with the map they give, "
                          "which is (eps_fit, delta)-DP for every map: (eps_s + eps_fit, delta)-DP (docs/theory.md, "
                          "sections 29, 33)")
#: a private label bound's theorem (:mod:`dpcvx.models.private_norm`; a row-norm bound's is
#: :data:`dpcvx.privacy.quantile.THEOREM`)
LABEL_BOUND_THEOREM = ("the exponential mechanism (McSherry and Talwar 2007) with score -|#{i : |y_i| <= b} - q n| of "
                       "sensitivity 1 over a public grid (Smith, STOC 2011): eps_q-DP, replace-one neighbours")
COUNT_THEOREM = ("the positive class's count plus discrete Laplace noise of scale 1 / eps_c (the geometric "
                 "mechanism, Ghosh, Roughgarden and Sundararajan 2009; exact sampler, Canonne, Kamath and Steinke "
                 "2020): the count has sensitivity 1 when one record is replaced and n is public, so eps_c-DP; "
                 "clamped onto [f, n - f] (post-processing)")
COUNT_COMPOSITION = ("sequential composition of the eps_c-DP count and the fit at the weights it gives, which is "
                     "(eps_fit, delta)-DP for every count: (eps_c + eps_fit, delta)-DP (docs/theory.md, sections "
                     "21, 29)")
OFFSET_COMPOSITION = ("sequential composition of the eps_c-DP count and the fit at the intercept offset it gives, "
                      "which is (eps_fit, delta)-DP for every count: (eps_c + eps_fit, delta)-DP (docs/theory.md, "
                      "sections 21, 29)")

#: the texts earlier dpcvx versions recorded for the same draws (their files still load, FORMER_RANGES_LAST and
#: FORMER_QUANTILE_LAST: files of those versions only): the ranges' theorem before it
#: named the coarser grids, a private bound's composition (:data:`dpcvx.privacy.quantile.COMPOSITION`) before it
#: named the label's bound
FORMER_RANGES_THEOREMS = (
    "per-column histograms of the rows clipped onto ||x|| <= R on the public grid of 2^D cells over [-R, R], plus "
    "i.i.d. discrete Laplace noise of scale 2 d / eps_s (L1 sensitivity 2 d: one record moves two cells of each column "
    "by 1; the geometric mechanism, Ghosh, Roughgarden and Sundararajan 2009; exact sampler, Canonne, Kamath and "
    "Steinke 2020): eps_s-DP under replace-one; the ranges (cells above a public threshold, their mass's q and 1 - q "
    "points) are post-processing (docs/theory.md, section 34)",)
FORMER_QUANTILE_COMPOSITIONS = (
    "sequential composition of the eps_q-DP quantile and the fit at the drawn bound, which is (eps_fit, delta)-DP at "
    "every grid point: (eps_q + eps_fit, delta)-DP (docs/theory.md, section 'Private norm bounds')",)

#: The last model format version whose writers wrote each former text (files of that version or older may hold it;
#: a file of a later version holding it is refused, :func:`written_until`). The reader accepted every former text in a
#: file of any version, so a re-digested version 19 one-vs-rest entry could name another class of the same model
#: (an attacker probe, session 69, P9 F3). Each from the commit that changed the writer, at the version it carried:
#: every number ``:g`` in a class count's and column statistics' guarantee (e89070cb, version 17), and in the opening
#: of a drawn bound's (d6f4b718, version 18); a one-vs-rest entry naming its own positive class 1 (897c8d45, version
#: 17); a class given as a NumPy scalar named by its repr (9dd0ae66, version 18); the ranges' theorem before the
#: coarser grids (b2578a76, version 12); the first private-norm guarantee and the quantile's composition before the
#: label's bound (043a1f3c and 140b12db, version 3, which no dpcvx reads: refused in every file read)
FORMER_NUMBERS_LAST = 17
FORMER_BOUND_NUMBERS_LAST = 18
FORMER_CLASS_LAST = 17
NUMPY_CLASS_LAST = 18
FORMER_RANGES_LAST = 12
FORMER_BOUND_LAST = 3
FORMER_QUANTILE_LAST = 3


def written_until(last: int, written: int, texts: Sequence[str]) -> tuple[str, ...]:
    """``texts``, former texts whose writers wrote them up to format version ``last``, when the file is of version
    ``written`` (as written, before its upgrade steps), else none: a later file holding one has been edited."""
    return tuple(texts) if written <= last else ()


#: the record weights' theorem (models.record_weights), and the unit weights' of a count that sets the intercept
#: offset (models.class_count): ``certificate.weights.theorem``, compared on load by its source (an edited one loaded)
WEIGHTS_THEOREM = ("the weighted loss s_i l(y_i w^T x_i), 0 <= s_i <= w_max public, divided by the public n: "
                   "L and c multiplied by w_max in every calibration (docs/theory.md, section 21)")
OFFSET_THEOREM = ("no record weights (w_max = 1); the released count sets the intercept offset: the ridge centred at "
                  "b0 = log(count / (n - count)) (divided by the intercept scaling), fixed before the fit, leaves L, "
                  "c and m and every calibration unchanged (docs/theory.md, section 21, 'The intercept offset')")

#: ``certificate.clipping``: what a fit did with a row beyond its bound, compared on load (an edited one loaded): the
#: linear fits clip rows onto R (models.fit_plan), AdaSSP clips rows and labels onto their bounds
#: (models.linear_regression); with clip=False a row beyond is refused
ROWS_CLIPPED = "clipped to R"
BOUNDS_CLIPPED = "clipped to the bounds"
NOT_CLIPPED = "refused"


#: how a number in a guarantee of private draws reads: as it reads back (``number_text``); ``former_number`` is how
#: every number there read before the sixty-eighth session (``:g``), which files of that time hold
Number = Callable[[float], str]


def former_number(number: float) -> str:
    """A number as the guarantees of private draws wrote it before the sixty-eighth session (``:g``)."""
    return f"{number:g}"


def drawn_opening(total: float, delta: float, number: Number = number_text) -> str:
    """How the guarantee of a release with private draws before its fit opens: its total (the draws' and the fit's
    epsilon, :func:`~dpcvx.release.model.composed_epsilon`) and delta, as they read back (``number_text``), then what
    the draws and the fit are. The one text of every writer (column statistics, a class count, a private bound) and
    of the file reader, which derives it from the recorded total and delta and refuses another (an edited file stated
    "(0.5, 0)" there next to a recorded epsilon of 1)."""
    return f"({number(total)}, {number(delta)})-differential privacy (replace-one) by sequential composition: "


def class_text(label: Any, against_rest: bool = False) -> str:
    """The public class a private count counts, as a guarantee names it: its repr as the file records it (a NumPy
    scalar as the Python value a file holds), and one-vs-rest's class " against the rest"."""
    value = label.item() if isinstance(label, np.generic) else label
    return f"{value!r}{' against the rest' if against_rest else ''}"


def class_texts(label: Any, written: int) -> tuple[str, ...]:
    """How a guarantee in a file of format version ``written`` may name the binary class ``label`` it records:
    :func:`class_text` (first), and, in a file of version :data:`NUMPY_CLASS_LAST` or older, as writers then named a
    class given as a NumPy scalar (``classes=np.unique(y)``): its NumPy repr (under NumPy 2, "np.int64(1)"), which the
    file records as the Python value."""
    value = label.item() if isinstance(label, np.generic) else label
    scalar = repr(np.array([value])[0])
    return (class_text(value),) + written_until(NUMPY_CLASS_LAST, written,
                                                (scalar,) if scalar != class_text(value) else ())


def count_guarantee(total: float, delta: float, counted: str, count: int, eps_count: float, use: str,
                    eps_fit: float, fitted: str, number: Number = number_text) -> str:
    """The guarantee of a fit after a private class count (models.class_count; the file reader rebuilds it from the
    records and refuses another text): the opening, the count of class ``counted`` (:func:`class_text`) released as
    ``count`` at eps_c, the fit with the ``use`` (balanced class weights, the intercept offset) it gives at
    ``eps_fit``, then the fit's own guarantee ``fitted``."""
    return (f"{drawn_opening(total, delta, number)}the count of class {counted} released as {count} "
            f"(eps_c = {number(eps_count)}), then the fit with the {use} it gives (eps_fit = {number(eps_fit)}): "
            f"{fitted}")


def statistics_guarantee(total: float, delta: float, eps_statistics: float, eps_label: float | None,
                         eps_fit: float, fitted: str, number: Number = number_text) -> str:
    """The guarantee of a fit after private column statistics (models.column_statistics; rebuilt by the file reader):
    the opening, eps_s, a label range's eps_l (DPHuberRegressor), the fit's eps_fit (with a class count drawn inside
    it, the count's and the fit's together), then ``fitted``, the fit's own guarantee (a class count's, when one is
    drawn inside eps_fit)."""
    label = f" and the label's range (eps_l = {number(eps_label)})" if eps_label else ""
    return (f"{drawn_opening(total, delta, number)}private column statistics (eps_s = {number(eps_statistics)})"
            f"{label}, then the fit on the columns they centre and scale (eps_fit = {number(eps_fit)}): {fitted}")


def bounds_guarantee(total: float, delta: float, bounds: Sequence[tuple[str, float, float]], eps_fit: float,
                     fitted: str, number: Number = number_text) -> str:
    """The guarantee of a fit after privately drawn bounds (models.private_norm; rebuilt by the file reader): the
    opening, each bound (its name "R" or "B", value and eps_q, as ``:g`` has always written them), then the fit's
    eps_fit (``:g`` too) and ``fitted``. ``number`` sets the opening's numbers only."""
    drawn = ", ".join(f"{name} = {bound:g} (eps_q = {epsilon:g})" for name, bound, epsilon in bounds)
    return (f"{drawn_opening(total, delta, number)}the bounds {drawn} drawn from public grids by the "
            f"exponential-mechanism quantile, then the fit at them (eps_fit = {eps_fit:g}): {fitted}")


def former_bound_guarantee(total: float, delta: float, bound: float, eps_bound: float, eps_fit: float,
                           fitted: str) -> str:
    """A row-norm bound's guarantee as the first writer of ``data_norm="private"`` made it (one bound R, every
    number ``:g``), which files of that time hold; the file reader accepts it as this exact text only."""
    return (f"{drawn_opening(total, delta, former_number)}the row-norm bound R = {bound:g} drawn from the public grid "
            f"by the exponential-mechanism quantile (eps_q = {eps_bound:g}), then the fit at R (eps_fit = "
            f"{eps_fit:g}): {fitted}")
