"""The fixed texts a certificate records for a private draw before a fit (column statistics, a label's range, a class
count): the theorem it rests on and how it composes with the fit. The writers (:mod:`dpcvx.models.column_statistics`,
:mod:`dpcvx.models.class_count`) record them and the file reader (:mod:`dpcvx.release.records.release_certificate`)
refuses a record holding another text, so one definition serves both (an edited theorem loaded and a report showed
it)."""

from __future__ import annotations

__all__ = ["COUNT_COMPOSITION", "COUNT_THEOREM", "FORMER_QUANTILE_COMPOSITIONS", "FORMER_RANGES_THEOREMS",
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

#: the texts earlier dpcvx versions recorded for the same draws (their files still load): the ranges' theorem before it
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
