"""The release report: what a release protects, how strongly, and what it does not cover, in plain words.

``model.report()`` gives a :class:`ReleaseReport` of any dpcvx release (linear,
regression, multiclass, kernel); ``dpcvx report model.json`` writes the one of a
model file. It is written for the person who signs a release off (a data
protection officer, a reviewer) rather than for a differential-privacy expert:

* a summary: the release's kind, budget and relation, where its noise came from (a release drawn from a caller's
  seed is said plainly to be a reproducible experiment, not private against whoever knows the seed:
  :class:`~dpcvx.privacy.rng.NoiseSource`), and the certificate's public findings (a classifier that
  predicts one class on every row it can score: :func:`~dpcvx.release.usefulness.one_class_findings`), which the
  auditor's section states too;
* what was protected: one person's record, under the release's neighbour
  relation (replace-one or add-remove, :mod:`dpcvx.privacy.neighbours`);
* how strongly: epsilon as the bound e^epsilon on how much the release can
  change an attacker's odds about that record (Dwork and Roth 2014, chapter 2;
  Kasiviswanathan and Smith 2014), and delta against 1/n at this n;
* for a model :func:`dpcvx.tune` selected: that its settings were chosen privately, how (the procedure, its
  number of fits K or K's distribution), and that the whole selection's total is the budget stated;
* the public inputs the guarantee takes as given, apart from those dpcvx chose privately inside the budget
  (the statistics, bounds and selections :func:`~dpcvx.release.records.privatised.drawn_releases` finds in the
  release: one declaration, :data:`~dpcvx.release.records.privatised.PRIVATE_RELEASES`);
* what is NOT covered: choices made outside dpcvx, repeated releases, the
  floating-point status (:class:`~dpcvx.privacy.float_guarantee.FloatGuarantee`)
  in plain words;
* the privacy curve (delta against epsilon, :meth:`PrivacyCurve.profile`) as a
  plot: inline SVG with matplotlib (the ``plot`` extra), else a note, with the same
  curve as a table either way; the HTML page holds the plot, the Markdown text only when asked
  (``embed_plot=True``: its data URI is one line of some 24,000 characters), else a note saying where it is;
* for an auditor: the theorem, the relation, every constant and how it was
  established, the calibration and the certificate's own text.

The report reads the typed certificate (fitted or loaded alike: its relation,
constants, calibration, the verifier's conditions, its privacy curve and its
text), its tuning record and its public schema: it holds nothing that the release does
not already publish. Its tables show each value as the model file writes it. ``to_markdown`` and ``to_html``
render one list of sections, each escaping the text it renders (user strings such as column names and class
labels among it: :func:`_markdown_text`, ``html.escape``), and write a control character of such a string as its
escape (:func:`dpcvx.data.files.printable`: a terminal showing the report never acts on it); ``_repr_html_`` shows it
in Jupyter.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import io
import math
import re
import sys
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..data.files import atomic_write, check_writable, file_path, printable
from ..data.kernels import RandomFourierFeatures
from ..data.standardiser import ColumnStandardiser, label_range
from ..exceptions import InputError
from ..privacy.adassp import AdaSSPCalibration
from ..privacy.float_guarantee import FloatGuarantee
from ..privacy.gradient_descent import GradientCalibration
from ..privacy.kernel_calibrate import KernelConstants
from ..privacy.neighbours import Neighbours, group_epsilon_delta
from ..privacy.privacy_curve import GAUSSIAN, PrivacyCurve
from ..privacy.rng import NoiseSource
from ..validation import check_choice, check_flag, number_text
from ..verification.exact import exact_text
from ..verification.kernel_loss import loss_words
from .constants import Constants, written
from .encodable import domain_finding, encodable_finding
from .records.privatised import PrivateRelease, drawn_releases
from .tuning_record import TuningRecord
from .weight_rules import count_rates, log_odds

__all__ = ["ReleaseReport", "REPORT_FORMATS", "check_embed_plot"]

REPORT_FORMATS = ("markdown", "html")


def check_embed_plot(format: str, embed_plot: Any, names: tuple[str, str] = ("embed_plot=True", "format='html'")
                     ) -> bool:
    """``embed_plot`` checked (:func:`~dpcvx.validation.check_flag`) for a report in ``format``: it embeds the plot
    of the privacy curve in Markdown, and an HTML report always holds the plot, so with "html" it would change
    nothing and is refused (an InputError), as every option that would change nothing is (docs/cli.md: it was
    accepted, and the page was the same bytes, as if it did). ``names`` are the caller's words for the two (the
    command line's ``--embed-plot`` and its HTML output)."""
    embed_plot = check_flag("embed_plot", embed_plot)
    if embed_plot and format == "html":
        raise InputError(f"{names[0]} embeds the plot of the privacy curve in a Markdown report; the HTML report "
                         f"({names[1]}) always holds it, so {names[0]} would change nothing: leave it out")
    return embed_plot
PRIORS = (0.01, 0.1, 0.5)  # an attacker's prior beliefs, for the odds table
PLOT_NOTE = ('No plot: drawing the privacy curve needs matplotlib (pip install "dpcvx[plot]"); '
             "the table below gives the same curve.")
# the text forms (print(report), standard output, a .txt or .md file) leave the plot out unless asked: its SVG as a
# data URI is one line of some 24,000 characters that buries the sections around it in a terminal, ticket or e-mail
PLOT_ELSEWHERE = ("The plot of this curve is in the HTML report (`report.write('report.html')`, or `dpcvx report "
                  "MODEL.json --out report.html`); a Markdown file embeds it when asked (`embed_plot=True`, or "
                  "`--embed-plot`). The table below gives the same curve.")
DELTA_FLOOR = 1e-16  # delta = 0 is drawn at this height on the logarithmic axis
LARGEST_FACTOR = 1e15  # e^epsilon above this is written as a power of ten
# characters Markdown or HTML would read as markup; each becomes an entity or a backslash escape (CommonMark)
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]#|~<>&]|^[-+=](?=\s|$)")
_LIST_NUMBER = re.compile(r"^(\d+)([.)])(?=\s|$)")  # "1." or "1)" starting a line opens an ordered list
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}

BlockKind = Literal["p", "ul", "table", "pre", "figure"]


@dataclass(frozen=True)
class Block:
    """One piece of a section: a paragraph, a bullet list, a table (header, rows), preformatted text, or
    the figure (a function of no arguments that returns its SVG text, None without matplotlib: drawn on the first
    call, since matplotlib's import and the drawing take most of a report's time and the Markdown form without
    ``embed_plot`` does not show it)."""

    kind: BlockKind
    content: Any


@dataclass(frozen=True)
class Section:
    anchor: str
    title: str
    blocks: tuple[Block, ...]


def _column_line(column: Any) -> str:
    """One schema column as the report lists it: its public bounds (and log scale) or categories, and its public rule
    for a missing value (the imputed value or category, the indicator, the missing codes and texts)."""
    if not hasattr(column, "lo"):
        rule = "" if column.missing is None else f"; a missing value is the category {column.missing}"
        return f"{column.name}: one of {', '.join(map(str, column.categories))}{rule}"
    parts = [f"{column.name}: numeric in [{column.lo:g}, {column.hi:g}]"
             + (", on the log scale" if column.scale == "log" else "")]
    if column.missing is not None:
        parts.append(f"a missing value imputed as {column.missing:g}"
                     + (", with a missing indicator" if column.missing_indicator else ""))
    if column.missing_codes:
        parts.append(f"the codes {', '.join(f'{code:g}' for code in column.missing_codes)} read as missing")
    if column.missing_texts:
        parts.append(f"the texts {', '.join(repr(text) for text in column.missing_texts)} read as missing")
    return "; ".join(parts)


def _p(text: str) -> Block:
    return Block("p", text)


def _markdown_text(text: str) -> str:
    """``text`` as Markdown that renders as exactly that text: every character Markdown or HTML reads as markup
    escaped (``<``, ``>``, ``&`` as entities, the others with a backslash) and line breaks as spaces, so a column
    name, a category or a class label (``<script>``, ``a|b``) cannot add markup, a tag or a table cell."""
    escaped = _MARKDOWN_SPECIAL.sub(lambda match: _ENTITIES.get(match.group(), "\\" + match.group()),
                                    " ".join(text.splitlines()))
    return _LIST_NUMBER.sub(r"\1\\\2", escaped)


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``, so the text cannot close it (CommonMark)."""
    return "`" * max(3, 1 + max((len(run) for run in re.findall("`+", text)), default=0))


def _factor(epsilon: float) -> str:
    """e^epsilon as text: to four digits, or as a power of ten when it is astronomically large."""
    if epsilon * math.log10(math.e) < math.log10(LARGEST_FACTOR):
        return f"{math.exp(epsilon):.4g}"
    return f"10^{epsilon * math.log10(math.e):.1f}"


def _float_words(guarantee: FloatGuarantee | None) -> str:
    """The floating-point status in plain words, for the 'not covered' section."""
    if guarantee is FloatGuarantee.MITIGATION_ONLY:
        return ("Computer arithmetic: the proof is written for exact real numbers, and computers round. dpcvx "
                "rounds every released number to a coarse grid, which stops the known attack that reads the "
                "lowest digits of the noise (Mironov 2012), but that is a protection, not a proof: the "
                "guarantee above is proved for exact arithmetic only.")
    if guarantee is None:
        return "Computer arithmetic: the certificate names no floating-point guarantee; treat it as not covered."
    return (f"Computer arithmetic: covered. The noise is drawn exactly and the rounding is part of the proof "
            f"({guarantee.statement.removeprefix('floating point: ')}).")


def _noise_words(source: NoiseSource) -> str:
    """Where the release's noise came from, in plain words, for the summary: a seeded release is said plainly to be
    an experiment, not a private release (:class:`~dpcvx.privacy.rng.NoiseSource`)."""
    if source is NoiseSource.SEED:
        return ("NOT A PRIVATE RELEASE: its noise was drawn from a caller's seed (random_state an integer or a "
                "generator). It is a reproducible experiment, not private against anyone who knows or can guess the "
                "seed: they can recompute the noise and subtract it, and two releases made with the same seed on "
                "neighbouring data cancel it. The guarantee below holds for noise drawn afresh only. To release "
                "it, refit with random_state=None (fresh operating-system entropy).")
    if source is NoiseSource.NOT_RECORDED:
        return ("Noise source: not recorded (a file written before dpcvx recorded it, format version 18 or "
                "older). Had it been fitted with a seed (random_state an integer or a generator), it would not be "
                "private against anyone who knows the seed: ask how it was fitted, or refit with "
                "random_state=None and save it again.")
    return ("Noise source: operating-system entropy (random_state=None): fresh noise drawn for this release alone, "
            "which no seed reproduces.")


def _posterior(prior: float, epsilon: float) -> float:
    """The largest belief an attacker with belief ``prior`` can hold after the release: odds times e^epsilon."""
    odds = math.log(prior / (1 - prior)) + epsilon  # log-odds of the belief after the release
    return 1 / (1 + math.exp(-odds)) if odds > -700 else 0.0


def _number(value: Any) -> str:
    """A value for a reader: a number to six digits, a flag as yes or no, a list joined, None (a field the release does
    not use, such as TDIL's ball dimension under a net search) as "not used", not Python's None or True."""
    if value is None:
        return "not used"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_number(item) for item in value)
    return str(value)


def _class(value: Any) -> str:
    """A declared class as ``classes_`` shows it, its Python repr: a text quoted ('not 1', the other labels of a
    command line's ``--positive 1``), a flag False or True (not :func:`_number`'s yes or no), a number as written."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _six_digits(text: str) -> str:
    """An expression's text with each decimal number of more than six significant digits shown to six (a Huber
    width 2.833209511073866 as 2.83321): the reader's form (the model file keeps every digit)."""
    return re.sub(r"(?<![\w.])\d+\.\d{6,}(?:e[+-]?\d+)?", lambda found: f"{float(found.group()):.6g}", text)


def _written(value: Any) -> str:
    """A constant or a condition's value: :func:`~dpcvx.release.constants.written` for a number (the certificate's
    format), :func:`_number` for anything else (a flag, a list, None)."""
    if exact_text(value) is None and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return _number(value)
    return written(value)


def _count_log_odds(count: dict[str, Any]) -> float:
    """The log-odds of a released class count's rates (its record's ``count`` of ``n``): the intercept offset's centre
    and the cut of threshold "prior", by the fit's own formula (:func:`~dpcvx.release.weight_rules.log_odds`)."""
    return log_odds(count_rates(count["count"], count["n"]))


def _kernel_words(kernel: Any) -> str:
    """A kernel release's recorded kernel (``{"kernel": "rbf", "gamma": 1.0}``) in words: "the rbf kernel with gamma =
    1"; another record as text."""
    if not isinstance(kernel, dict) or "kernel" not in kernel:
        return f"the kernel {kernel}"
    settings = ", ".join(f"{name} = {_number(value)}" for name, value in kernel.items() if name != "kernel")
    return f"the {kernel['kernel']} kernel" + (f" with {settings}" if settings else "")


def _map_words(feature_map: Any) -> str:
    """A row map in words: a standardiser's formula (its released values: the auditor's section), random Fourier
    features by their public parameters, another map by its type."""
    if isinstance(feature_map, ColumnStandardiser):
        return ("each column centred and scaled, x_j becoming (x_j - centre_j) multiplier_j (the values as released: "
                "the auditor's section)")
    if isinstance(feature_map, RandomFourierFeatures):
        return (f"{feature_map.n_components} random Fourier features of the {feature_map.kernel} kernel at gamma = "
                f"{feature_map.gamma:g}, drawn without the data")
    return f"a {type(feature_map).__name__}"


def _map_table(feature_map: Any, names: Any) -> Block | None:
    """A standardiser's released centres and multipliers, a row a column (by ``names`` when the release has them),
    at most ``_MAP_ROWS`` rows; None for another map."""
    if not isinstance(feature_map, ColumnStandardiser):
        return None
    labels = [str(name) for name in names] if names is not None and len(names) == feature_map.centre.size \
        else [f"column {j}" for j in range(feature_map.centre.size)]
    rows = [[label, f"{centre:.6g}", f"{multiplier:.6g}"] for label, centre, multiplier in
            zip(labels, feature_map.centre, feature_map.multiplier, strict=True)][:_MAP_ROWS]
    if feature_map.centre.size > _MAP_ROWS:
        rows.append([f"... {feature_map.centre.size - _MAP_ROWS} more (the model file holds them all)", "", ""])
    return Block("table", (["encoded column", "centre", "multiplier"], rows))


#: The most columns of a standardiser the report lists
_MAP_ROWS = 60


def _name(value: Any) -> str:
    """A typed name (the Mechanism enum) or a name as text."""
    return str(value.value) if isinstance(value, Enum) else str(value)


def _established(certificate: Any, name: str) -> str:
    """How a linear release's certificate established its constant ``name``: a verified constant (L, c, m) by the
    method and detail of its condition, as the verification certificate records them; R, lam, n and d are inputs of
    the fit, which no condition proves: public, or chosen privately inside the budget, as "Public inputs" says. With
    an intercept R is that of the rows the theorems see, sqrt(R^2 + s^2) of the rows' bound and the intercept's
    feature (:attr:`dpcvx.data.rows.RowMap.effective_norm_bound`), which the row says: "Public inputs" lists the
    rows' bound, a different number."""
    verification = getattr(certificate, "verification", None)
    condition = None if verification is None else verification.proof_of(name)
    if condition is None:
        if name == "R" and getattr(certificate, "fit_intercept", False):
            return (f"sqrt(R^2 + s^2) of the rows' bound R = {certificate.data_norm:g} and the intercept's feature "
                    f"s = {certificate.intercept_scaling:g}: inputs of the fit, not proved (how they were chosen: "
                    "Public inputs)")
        return "an input of the fit, not proved (how it was chosen: Public inputs)"
    return f"condition {condition.name}, {condition.method}" + (f": {condition.detail}" if condition.detail else "")


def _plot_importable() -> bool:
    """Whether matplotlib, which :func:`_svg` draws with, can be imported, without importing it (an import blocked
    by ``sys.modules["matplotlib"] = None`` cannot): the Markdown form says where the plot is without drawing it."""
    if "matplotlib" in sys.modules:
        return sys.modules["matplotlib"] is not None
    return importlib.util.find_spec("matplotlib") is not None


def _svg(curve: PrivacyCurve, epsilons: np.ndarray, deltas: np.ndarray, epsilon: float, delta: float) -> str | None:
    """The privacy curve as inline SVG text (text kept as text), or None without matplotlib."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        return None
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "dpcvx-report"}):
        figure = Figure(figsize=(6.4, 3.8))
        ax = figure.add_subplot()
        ax.plot(epsilons, np.maximum(deltas, DELTA_FLOOR), color="#1f5f9f", linewidth=2,
                label=f"privacy curve ({curve.neighbours})")
        ax.plot([epsilon], [max(delta, DELTA_FLOOR)], "o", color="#c0392b", markersize=8,
                label=f"this release: epsilon = {epsilon:.3g}, delta = {delta:.3g}")
        ax.set_yscale("log")
        ax.set_ylim(DELTA_FLOOR / 2, 2.0)
        ax.set_yticks([10.0**power for power in range(-16, 1, 4)], minor=False)
        ax.set_yticks([], minor=True)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.0e}"))  # no mathtext: fast
        ax.set_xlabel("epsilon")
        ax.set_ylabel("delta (0 drawn at 1e-16)")
        ax.set_title("Every (epsilon, delta) on or above the curve holds")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="upper right", fontsize=8)
        figure.tight_layout()
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})  # the same release, the same page
    text = buffer.getvalue()
    return text[text.index("<svg"):]


#: What the calibration's fields mean, for the auditor's table: the words of a field common to several calibrations
#: (:data:`CLASS_WORDS` has those whose meaning depends on the calibration; epsilon and delta, and the shares of
#: noisy gradient descent, are worded for the release: :meth:`ReleaseReport._calibration_meaning`). Every field of
#: every calibration type has its words (tests/release/test_report_calibration_words.py). Each a function of public
#: inputs only.
CALIBRATION_WORDS = {
    "mechanism": "where the noise is added: to the objective, to the minimiser (output), or the learner's own",
    "noise": ("the noise's distribution: gaussian, or, drawn exactly on a lattice, discrete-laplace or "
              "discrete-gaussian"),
    "n": "the number of records the calibration uses (n_public under add-remove)",
    "lam": "the regularisation strength Lam",
    "L": "the loss's gradient bound: |l'(z)| <= L",
    "c": "the loss's curvature bound: |l''(z)| <= c",
    "m": "the regularizer's strong convexity",
    "R": "the bound on a row's norm (rows beyond it scaled onto it)",
    "dim": "d, the number of weights (features, and the intercept's when fitted)",
    "neighbours": "the neighbour relation the sensitivities are computed for",
    "split": "how objective perturbation splits epsilon (JMLR 2011, Algorithm 2)",
    "epsilon_prime": "eps', the part of epsilon the objective's noise b is calibrated to",
    "beta": "the rate of the noise density exp(-beta ||b||)",
    "extra_reg": "Delta, the extra regularisation Algorithm 2 adds when eps' would be too small",
    "sensitivity": "how far the minimisers of two neighbouring data sets can lie apart (L2), the noise's scale",
    "sigma": "the standard deviation of each Gaussian noise coordinate",
    "tol": "the solver's public relative gradient tolerance",
    "gradient_tolerance": "gamma = tol n L R: the released point's gradient is at most this; the noise covers the gap",
    "approximate_minimiser": "how the gap between the solver's point and the exact minimiser is covered",
    "release_grid": "the grid the released doubles are rounded to (floating-point mitigation)",
    "float_guarantee": "what holds in floating point: a proof on the lattice, or mitigation only",
    "analysis": "the privacy analysis of Gaussian objective perturbation",
    "objective_epsilon": "the (epsilon, delta) share of the objective's noise",
    "objective_delta": "the delta of the objective's noise",
    "jacobian_epsilon": "the part of epsilon the Jacobian term of the analysis uses",
    "loss_slope": ("one-signed: the verifier proved that l' has one sign (l' <= 0 everywhere, or l' >= 0), so sigma "
                   "comes from the tighter one-sign profile (docs/theory.md, section 12.3); without it, the general "
                   "profile"),
    "problem_class": ("a constraint set or a non-smooth regularizer: only the analysis of Kifer, Smith and Thakurta "
                      "2012 applies"),
    "weight_norm": ("a public scale of ||w*|| that chooses Delta where m Lam = 0 (utility only: it never enters the "
                    "privacy analysis)"),
    "amp_epsilon": "the part of epsilon that covers the solver's gap (approximate minima perturbation)",
    "amp_delta": "the part of delta that covers the solver's gap",
    "amp_sensitivity": "the sensitivity of the solver's gap",
    "amp_beta": "the rate of the gap-covering noise's density",
    "amp_sigma": "the standard deviation of the gap-covering Gaussian noise",
    "T": "the number of public points of the sample Z",
    "label_bound": "the bound on the size of a (centred) label",
    "data_norm": "the bound on a row's norm",
    # the exact samplers' lattice forms (float_safe=True)
    "sampler": "exact: the integer noise is drawn by an exact sampler, with no floating-point draw",
    "lattice": "gamma_L, the spacing (a power of two) of the public lattice the released values lie on",
    "lattice_l1_sensitivity": ("K_1: how far the released values of two neighbouring data sets, rounded to the "
                               "lattice, can lie apart in lattice steps (l1)"),
    "lattice_l2_squared_sensitivity": ("K_2: how far the released values of two neighbouring data sets, rounded to "
                                       "the lattice, can lie apart in squared lattice steps (squared l2)"),
    "noise_scale_steps": "K_1 / epsilon: the discrete Laplace noise's scale, in lattice steps",
    "zcdp_rho": ("rho: the discrete Gaussian is rho-zCDP, which gives (epsilon, delta) (Canonne, Kamath and Steinke "
                 "2020, Corollary 13)"),
    "sigma2_steps": "K_2 / (2 rho): the discrete Gaussian noise's variance, in squared lattice steps",
    "coefficient_bound": ("A = 2 L / lam: the bound on sum_i |beta_i| of the solver's coefficients, checked before "
                          "any noise is drawn (0: none, the evaluation error is not proved)"),
    "evaluation_error": ("E: the proved bound on the floating-point error of a computed <w~, phi(z)> (0: not "
                         "proved, the guarantee is mitigation only)"),
    # AdaSSP and noisy gradient descent: one joint Gaussian on all their releases (docs/theory.md, section 16)
    "failure_probability": ("rho: the probability that the high-probability bounds of the noise (the eigenvalue's "
                            "margin, the ridge) fail; it costs accuracy, never privacy"),
    "column_statistics": ("yes: the columns were first centred and scaled by private column sums and sums of "
                          "squares, in the same joint Gaussian"),
    "range_columns": ("k, the columns whose private range was searched first: the features and the label, or the "
                      "label's alone (1)"),
    "unit_sigma": ("sigma, the joint Gaussian's noise at (epsilon, delta) for sensitivity sqrt(sum of the shares f_i) "
                   "(the analytic Gaussian); release i's noise is its sensitivity times sigma / sqrt(f_i)"),
    "release_grids": "the grids (2^-30 of each sigma) the noisy releases are rounded to (floating-point mitigation)",
    "range_share": "f of the range search's counts in the joint Gaussian (the shares of all the releases sum to 4)",
    "search_depth": "D: the depth of each column's binary search, on a public grid of 2^D cells",
    "count_sigma": ("sigma_c = sigma sqrt(2 k D / range_share): the noise on each count of the search (sensitivity 1 "
                    "per count)"),
    "column_shares": "f of the column sums and of the sums of squares in the joint Gaussian",
    "column_sensitivities": "the L2 sensitivities of the column sums (2 R) and of the sums of squares (sqrt(2) R^2)",
    "column_sigmas": "sigma_i = Delta_i sigma / sqrt(f_i) of the column sums and of the sums of squares",
    "steps": "T, the number of noisy gradient steps (a public rule of n, epsilon and d)",
    "momentum": "beta, the steps' heavy-ball momentum (a public rule of n, epsilon and d)",
    "lambda_share": "f of the noisy top eigenvalue lambda_max(Z^T Z) in the joint Gaussian",
    "residual_clip": "tau = B' / 3: the clip of each residual, the label range's implied standard deviation",
    "level": "yes: the label's level (the intercept's move) is released after the steps",
    "level_share": "f of the level's sum in the joint Gaussian, taken out of gradient_share",
    "level_sensitivity": "4 B': the L2 sensitivity of the level's sum of residuals, each in [-2B', 2B']",
    "level_sigma": "sigma_b = level_sensitivity sigma / sqrt(level_share): the noise on the level's sum",
    "level_grid": "the grid (2^-30 of sigma_b) the noisy level is rounded to (floating-point mitigation)",
    # the kernel learners (Jain and Thakurta 2014; docs/theory.md, section 11)
    "weight_sensitivity": ("s + 2 gamma: how far the solver's points of two neighbouring data sets can lie apart in "
                           "the feature space"),
    "minimiser_sensitivity": "s = 2 L R / (lam n): how far the exact minimisers can lie apart",
    "solve_tolerance": "gamma: the public bound on the distance of the solver's point to the exact minimiser",
    "minimiser_span": ("the subspace the ERM is minimised over: the whole feature space (training) or the span of "
                       "the public sample's features (public); the sensitivities hold for both"),
    "C": "the bound on ||w*|| (the constant C above)",
    "max_queries": "the most queries answered",
    "max_updates": "B: the most queries that may touch the private model (rounds of the sparse-vector test)",
    "query_sensitivity": "Delta = (s + 2 gamma) R: the sensitivity of a query's value <w~, phi(z)>",
    "threshold_noise": "the scale of the noise on the sparse-vector threshold (2K / eps_svt lattice steps)",
    "query_noise": "the scale of the noise on each query's gap (4K / eps_svt lattice steps)",
    "gap": "g: with probability 1 - beta, an update is made only where the gap |<w* - w_t, phi(z)>| is at least g",
    "threshold": "tau: the noisy gap is compared with this threshold",
    "step": "eta = g / R^2: the coefficient of an update",
    "kernel_name": ("the kernel, for the floating-point proof: rbf and laplacian have a proved evaluation error, "
                    "other kernels not"),
    "n_features": "the input dimension (the evaluation error's bound reads it)",
    "magnitude_bound": "M = (C + gamma) R: every computed <w~, phi(z)> is clamped onto [-M, M]",
    "lattice_sensitivity": "K = floor((Delta + 2 E) / gamma_L) + 1: a query's sensitivity in lattice steps",
    "threshold_steps": "ceil(tau / gamma_L): the threshold in lattice steps",
    "selection": "how a round's point is chosen: from a finite net of the input ball, or from the whole ball",
    "net_size": "|S|, the number of points of the net",
    "ball_dimension": "the dimension of the ball searched (linear kernel)",
    "feature_distance": "the bound on ||phi(z) - phi(s)|| between a point z of the ball and its net point s",
    "rounds": "B, the most rounds",
    "score_sensitivity": "Delta = (s + 2 gamma) R: the sensitivity of a round's score |<w* - w_t, phi(s)>|",
    "selection_epsilon": "the exponential mechanism's epsilon in each round (half the round's)",
    "net_accuracy": ("with probability 1 - beta the released w is within this of w* at every candidate point, "
                     "|<w - w*, phi(s)>|"),
    "score_error": "E_s: the proved bound on the floating-point error of a computed gap or score",
    "test_scale_steps": "K / eps_test: the test's discrete Laplace scale, in lattice steps",
    "selection_sensitivity": "Delta + 2 E_s: the computed scores' sensitivity, which the exact selection uses",
}

_ADASSP_WORDS = {
    "sensitivities": ("Delta_i, the L2 sensitivities of lambda_min(X^T X), of X^T X (its upper triangle) and of "
                      "X^T y, for the neighbour relation"),
    "sigmas": ("sigma_i = Delta_i sigma / sqrt(f_i) of lambda_min(X^T X), X^T X and X^T y, with the shares f = "
               "0.05, 1.15 and 1.8"),
    "eigenvalue_margin": ("the margin the noisy lambda_min(X^T X) is lowered by: its noise stays below it with "
                          "probability 1 - rho / 3"),
    "ridge_bound": ("sqrt(d ln(2 d^2 / rho)) sigma_2: Wang's high-probability bound on the norm of X^T X's noise, "
                    "which sets the ridge"),
    "label_bound": "B: the bound on the size of a label (a ranged fit's: the released B', labels centred on c)",
    "data_norm": "R: the bound on a row's norm (a ranged fit's: R_eff, of the rows its ranges map)",
}
_GRADIENT_WORDS = {
    "sensitivities": ("the L2 sensitivities of lambda_max(Z^T Z) (R_eff^2, Weyl) and of each step's Z^T r "
                      "(2 R_eff tau)"),
    "sigmas": ("(sigma_l, sigma_g): the noise on the top eigenvalue, R_eff^2 sigma / sqrt(lambda_share), and on each "
               "step's gradient, 2 R_eff tau sigma / sqrt(f_t), f_t each step's share (gradient_share)"),
    "eigenvalue_margin": ("m = z_(1 - rho/2) sigma_l: the noisy lambda_max is raised by it, so the step's curvature "
                          "Lambda bounds lambda_max(Z^T Z) with probability 1 - rho / 2"),
    "failure_probability": ("rho: the probability that the curvature Lambda is below lambda_max(Z^T Z) (the "
                            "eigenvalue's margin fails); it costs accuracy, never privacy"),
    "label_bound": "B': the released bound on a centred label's size (labels y - c clipped onto [-B', B'])",
    "data_norm": "R_eff: the bound on the norm of a row the ranges map",
}
_KERNEL_WORDS = {
    "R": "R_phi: the kernel's bound on a feature vector's norm ||phi(x)||",
    "failure_probability": "beta: the accuracy guarantee may fail with this probability (utility, never privacy)",
}
_TDDL_WORDS = {
    **_KERNEL_WORDS,
    "mechanism": "the noise on the predictions: Laplace (delta = 0) or Gaussian",
    "sum_of_test_norms": "sum_t ||phi(z_t)|| over the public sample Z",
    "test_operator_norm": "sqrt(lambda_max(K_Z)), bounded above: the operator norm of the public sample's features",
    "l1_sensitivity": ("(s + 2 gamma) min(sum_t ||phi(z_t)||, sqrt(T lambda_max(K_Z))): the predictions' L1 "
                       "sensitivity, which Laplace noise uses"),
    "l2_sensitivity": "(s + 2 gamma) ||Phi_Z||_op: the predictions' L2 sensitivity, which Gaussian noise uses",
    "scale": "the noise on each prediction: the Laplace scale l1_sensitivity / epsilon, or the Gaussian's sigma",
    "lattice": "gamma_L, the spacing (a power of two) of the public lattice the released predictions lie on",
    "lattice_l1_sensitivity": ("K_1 = floor((l1_sensitivity + 2 T E) / gamma_L) + T: the rounded predictions' l1 "
                               "shift between neighbours, in lattice steps"),
    "lattice_l2_squared_sensitivity": ("K_2: the rounded predictions' squared l2 shift between neighbours, in squared "
                                       "lattice steps (l2_sensitivity + 2 sqrt(T) E before rounding)"),
}
_PINP_WORDS = {
    **_KERNEL_WORDS,
    "round_epsilon": ("eps_r, each round's epsilon (B rounds compose to epsilon and delta); half to the sparse-vector "
                      "test (eps_svt), half to the answer"),
    "answer_noise": "the scale of the noise on an update's released answer (K / eps_ans lattice steps)",
    "accuracy": "sigma: with probability 1 - beta every answer is within it of <w*, phi(z)>",
    "lattice": "gamma_L, the spacing (a power of two) of the public lattice the test's values and the answers lie on",
}
_TDIL_WORDS = {
    **_KERNEL_WORDS,
    "round_epsilon": ("eps_r, each round's epsilon (B rounds compose to epsilon and delta); half to the selection, "
                      "half to the test"),
    "answer_noise": "the Laplace scale of each round's test, score_sensitivity / (eps_r / 2)",
    "gap": ("g: with probability 1 - beta, an update is made only where the gap |<w* - w_t, phi(s)>| at the chosen "
            "point is at least g"),
    "accuracy": ("with probability 1 - beta the released w is within this of w* everywhere on the ball: net_accuracy "
                 "+ C feature_distance"),
    "lattice": "gamma_L, the spacing (a power of two) of the public lattice each round's gap is rounded to",
    "lattice_sensitivity": "K = floor((Delta + 2 E_s) / gamma_L) + 1: the test's sensitivity in lattice steps",
}
#: The words of the fields whose meaning depends on the calibration's type (by class name), over CALIBRATION_WORDS
CLASS_WORDS: dict[str, dict[str, str]] = {
    "AdaSSPCalibration": _ADASSP_WORDS,
    "GradientCalibration": _GRADIENT_WORDS,
    "LatticeLaplaceOutput": {
        "lattice": "gamma_L, the spacing (a power of two) of the public lattice the released weights lie on",
        "lattice_l1_sensitivity": ("K_1 = floor(sqrt(d) sensitivity / gamma_L) + d: the rounded weights' l1 shift "
                                   "between neighbours, in lattice steps")},
    "LatticeGaussianOutput": {
        "lattice": "gamma_L, the spacing (a power of two) of the public lattice the released weights lie on",
        "lattice_l2_squared_sensitivity": ("K_2: the rounded weights' squared l2 shift between neighbours, in squared "
                                           "lattice steps")},
    "LatticeObjective": {
        "noise_lattice": "gamma_b, the spacing of the lattice the objective's noise b is drawn on",
        "noise_l1_sensitivity": ("K_b = floor(sqrt(d) 2 L R / gamma_b) + d: the l1 shift of b between neighbours, in "
                                 "lattice cells"),
        "noise_scale_steps": "t_b = K_b / eps': the discrete Laplace scale of the objective's noise b, in steps",
        "dithered_radius": ("r: the solver's point lies within r of the minimiser of the dithered objective (the "
                            "solver's gap and half a noise cell)"),
        "amp_sensitivity": "2 r: how far two computed points of one dithered minimiser can lie apart",
        "lattice": "gamma_2, the spacing (a power of two) of the public lattice the released weights lie on",
        "lattice_l1_sensitivity": ("K_2 = floor(sqrt(d) 2 r / gamma_2) + d: the rounded weights' l1 shift, in "
                                   "lattice steps"),
        "release_scale_steps": "K_2 / amp_epsilon: the released weights' discrete Laplace scale, in lattice steps"},
    "TDDLCalibration": _TDDL_WORDS,
    "LatticeTDDL": _TDDL_WORDS,
    "PINPParameters": _PINP_WORDS,
    "TDILParameters": _TDIL_WORDS,
    "LatticeTDIL": _TDIL_WORDS,
}


def _gradient_share_words(calibration: GradientCalibration) -> str:
    """What gradient_share is for this release, and the share f_t each step's noise sigma_g uses (docs/theory.md,
    section 16.1, "Shares and composition")."""
    record = calibration.to_dict()
    share, steps = record["gradient_share"], record["steps"]
    if record.get("level") is True:
        return (f"f of the {steps} steps and the level together: the level takes level_share of it, so each step's "
                f"share is f_t = (gradient_share - level_share) / steps = ({share:g} - {record['level_share']:g}) / "
                f"{steps} = {calibration.step_share:.6g}, the f_t of sigma_g")
    return (f"f of the {steps} steps together: each step's share is f_t = gradient_share / steps = {share:g} / {steps} "
            f"= {calibration.step_share:.6g}, the f_t of sigma_g")


class ReleaseReport:
    """The plain-language report of one release (module docstring); render it with :meth:`to_markdown`,
    :meth:`to_html` or :meth:`write`.

    Parameters
    ----------
    release : dpcvx.release.model.Release
        A released model (``PrivateModel``, ``PrivateRegressionModel``,
        ``PrivateMulticlassModel``, ``PrivateKernelModel``), fitted or loaded.
        Only its typed certificate and its public schema are read.

    Attributes
    ----------
    epsilon, delta : float
        What the release cost in total (``release.epsilon``, ``release.delta``: with privately drawn bounds or
        statistics, their budget included; for a model dpcvx.tune selected, the whole selection's).
    neighbours : Neighbours
        The relation the guarantee is proved for.
    sections : tuple of Section
        The content, in reading order.
    """

    def __init__(self, release: Any) -> None:
        certificate = getattr(release, "certificate", None)
        if certificate is None or not hasattr(certificate, "to_dict"):
            fitted = getattr(release, "model_", None) is not None  # a fitted estimator: its release is model_
            raise InputError(f"a release report needs a dpcvx release with a certificate, got "
                             f"{type(release).__name__}" + (
                                 f"; a fitted estimator's release is its model_: {type(release).__name__}"
                                 ".model_.report()" if fitted else ""))
        self.certificate = certificate
        per_class = getattr(certificate, "per_class", None)  # multiclass: the classes' certificates
        # the certificate that holds the calibration: the release's own, or the first class's (multiclass)
        self.first = certificate if per_class is None else per_class[0]
        self.tuning: TuningRecord | None = getattr(release, "tuning", None)
        self.curve: PrivacyCurve = release.privacy_curve  # a tuned model's: the selection's
        self.epsilon = float(release.epsilon)
        self.delta = float(release.delta)
        # a pure-epsilon calibration under a stated delta > 0 (Certificate.release_theorem, verdict.pure_at_delta):
        # the mechanism that ran is pure; the certificate states and the charge counts (epsilon, delta). Read off the
        # calibration's kind, not delta (an attacker probe, session 63: the report said its loss could exceed
        # epsilon); a tuned model's selection proves its one (epsilon, delta) point and stays approximate
        fits = (certificate,) if per_class is None else tuple(per_class)
        self.pure_at_delta = bool(self.delta > 0 and self.tuning is None and all(
            getattr(getattr(fit, "calibration", None), "approximate", True) is False for fit in fits))
        self.classes = getattr(certificate, "classes", None) or getattr(release, "classes_", None)
        self.feature_map = getattr(getattr(release, "rows", None), "feature_map", None)
        self.release_names = getattr(release, "feature_names_in_", None)  # a table's column names, when it had them
        self.decision_cut = getattr(release, "decision_cut", None)  # a classifier's public threshold's cut, or 0
        # a probability model (a linear release of the logistic loss): the report names predict_proba only then
        self.probabilities = hasattr(release, "predict_proba")
        # the private draws the release holds (its statistics, bounds, a tuning selection), by the one declaration
        self.drawn: tuple[PrivateRelease, ...] = drawn_releases(self._saved_records())
        self.neighbours: Neighbours = self.curve.neighbours
        self.kind = str(getattr(release, "kind", "release"))
        self.certificate_text = str(certificate)
        self.conditional = bool(getattr(certificate, "conditional", False))
        self.float_guarantee: FloatGuarantee | None = self.first.float_guarantee
        # where the noise came from (a learner from outside dpcvx records none: not recorded)
        self.noise_source: NoiseSource = getattr(release, "noise_source", NoiseSource.NOT_RECORDED)
        self.schema = getattr(release, "schema", None)
        self._release = release  # read by encodable, the public check of the weights on the saved schema
        # a kernel release's predictor's centres (TDDL's public sample Z), public unless a mechanism privatised them
        predictor = getattr(release, "predictor", None)
        privatised, centres = getattr(predictor, "privatised", None), getattr(predictor, "centers", None)
        self.public_centres = None if privatised is None or centres is None or "centers" in privatised \
            else int(np.shape(centres)[0])
        # the curve: epsilon from 0 to three times the release's (at least 1), delta on a log scale
        self.curve_epsilons = np.linspace(0.0, max(3 * self.epsilon, 1.0), 121)
        self.curve_deltas = self.curve.profile(self.curve_epsilons)
        self.sections = (self._summary(), self._protected(), self._strength(),
                         *(() if self.tuning is None else (self._tuning_section(self.tuning),)),
                         self._public_inputs(), self._not_covered(), self._curve_section(), self._auditor())

    @cached_property
    def figure(self) -> str | None:
        """The privacy curve as inline SVG text (:func:`_svg`; None without matplotlib), drawn on first read: about
        0.12 s warm and 0.5 s more for matplotlib's first import, which a report written as Markdown without its
        plot never pays (s62)."""
        return _svg(self.curve, self.curve_epsilons, self.curve_deltas, self.epsilon, self.delta)

    def _figure(self) -> str | None:
        """The figure block's content: :attr:`figure`, drawn when a writer first calls it."""
        return self.figure

    # --- reading the certificate ------------------------------------------------------------

    @property
    def n(self) -> int | None:
        """The public number of records the calibration used (n under replace-one, n_public under add-remove): the
        calibration's, the constants', or under replace-one the one a private search or column statistics record
        states (DPLinearRegression's: "does not use the number of records" was said of a release whose search, curvature
        cap and level read it); for a tuned model, the rows the whole selection read (its candidates trained on parts
        of them)."""
        if self.tuning is not None:
            return self.tuning.n
        constants = getattr(self.first, "constants", None)
        statistics = getattr(self.first, "column_statistics", None)  # a search's or statistics' record states n
        stated = statistics.get("n") if isinstance(statistics, dict) and self.neighbours is Neighbours.REPLACE_ONE \
            else None
        for value in (getattr(self.first.calibration, "n", None), None if constants is None else constants.n,
                      stated):
            if isinstance(value, (int, float)) and value > 0:
                return int(value)
        return None

    @property
    def relation_text(self) -> str:
        return str(self.first.neighbours)

    def _saved_records(self) -> dict[str, Any]:
        """The records of the release's file that hold the values of its private draws, at their paths in the
        file (:mod:`dpcvx.release.serialization`): the certificate's (a multiclass file's per-class ones) and
        the tuning record."""
        certificate = self.certificate.to_dict()
        per_class = certificate.get("per_class")
        record: dict[str, Any] = {"certificate": certificate} if per_class is None else {
            "per_class": [{"certificate": item} for item in per_class],
            "column_statistics": certificate.get("column_statistics")}  # drawn once for the k fits
        return {**record, "tuning": None if self.tuning is None else self.tuning.to_dict()}

    def _calibration_meaning(self, key: str) -> str:
        """What the auditor's calibration field ``key`` means: the words of its calibration's type
        (:data:`CLASS_WORDS`), else the common ones (:data:`CALIBRATION_WORDS`); epsilon and delta as what they are in
        this release (:meth:`_budget_meaning`), and noisy gradient descent's gradient_share with the share each step
        takes of it."""
        calibration = self.first.calibration
        if key in ("epsilon", "delta"):
            return self._budget_meaning(key, calibration.to_dict()[key])
        if key == "gradient_share" and isinstance(calibration, GradientCalibration):
            return _gradient_share_words(calibration)
        return CLASS_WORDS.get(type(calibration).__name__, {}).get(key) or CALIBRATION_WORDS.get(key, "")

    def _budget_meaning(self, key: str, value: Any) -> str:
        """The calibration's epsilon or delta (``key``, ``value``) against the release's total: the whole of it (a
        joint calibration's, whose private draws are among its releases: AdaSSP's and noisy gradient descent's), the
        fit's share beside the private draws, one class's of a one-vs-rest release, or the selected run's of a
        selection."""
        total = self.epsilon if key == "epsilon" else self.delta
        per_class = getattr(self.certificate, "per_class", None)
        drawn = "the private draws listed under Public inputs"
        if self.tuning is not None:
            return (f"the selected run's {key}: a share of the selection's total {key} = {total:.6g}, which the "
                    "report states (How the settings were chosen)")
        if per_class is not None:
            return (f"each class's fit's {key} (this table is the first class's calibration): the {len(per_class)} "
                    f"fits" + (f" and {drawn}" if self.drawn else "") + f" together cost the total {key} = "
                    f"{total:.6g}")
        if value is None or not math.isclose(float(value), total, rel_tol=1e-9, abs_tol=1e-300):
            return (f"the fit's share of the release's total {key} = {total:.6g}"
                    + (f"; the rest paid for {drawn}" if self.drawn else ""))
        if not self.drawn:
            return f"the release's whole {key}"
        if isinstance(self.first.calibration, (AdaSSPCalibration, GradientCalibration)):
            return f"the release's whole {key}: {drawn} are calibrated jointly with the fit inside it"
        return f"the release's whole {key}: {drawn} spent none of it"

    def _mechanism(self, certificate: Any) -> str:
        """The mechanism a certificate states: its name followed by its plain words (the certificate's own
        ``description``: "gradient-ranged, least squares by noisy gradient descent ..."), the words alone when they
        hold the name ("objective perturbation"); a kernel release: its algorithm; multiclass: its classes'."""
        if hasattr(certificate, "per_class"):  # one-vs-rest: every class's fit by the same mechanism
            weights = getattr(certificate.per_class[0], "weights", None)
            counted = getattr(weights, "private_count", None) is not None  # class_prior="private": one count a class
            return (f"{self._mechanism(certificate.per_class[0])}, one fit per class against the rest"
                    + (", each after a private count of its class (the geometric mechanism) inside its share of "
                       "epsilon" if counted else ""))
        name = _name(getattr(certificate, "algorithm", None) or certificate.mechanism)
        words = str(getattr(certificate, "description", name))
        return words if name.lower() in words.lower() else f"{name}, {words}"

    # --- the sections -----------------------------------------------------------------------

    @cached_property
    def _ball_stated(self) -> bool:
        """Whether the certificate's own check (its findings, made at cut 0) already says the classifier predicts one
        class, and the model cuts at 0: :attr:`encodable` and :attr:`nearly_one_class` then add nothing."""
        return bool(getattr(self.certificate, "findings", ())) and not np.any(self.decision_cut)

    @cached_property
    def encodable(self) -> str | None:
        """The statement that a classifier saved with its schema predicts one class on every record the schema can
        encode (:func:`~dpcvx.release.encodable.encodable_finding`, at the model's decision cut), where the
        certificate's ball check (at cut 0) does not say so already; None otherwise. A public check of the schema,
        the row map and the weights, made when the summary is written (a search of at most
        :data:`~dpcvx.release.encodable.WORK` column bounds: at most some 0.4 s of CPU from 8 to 200 columns,
        benchmarks/results/report_speed.md)."""
        return None if self.classes is None or self._ball_stated else encodable_finding(self._release, self.schema)

    @cached_property
    def nearly_one_class(self) -> str | None:
        """Where neither the certificate's findings nor :attr:`encodable` say the classifier predicts one class, the
        statement that it predicts one class on almost all of a uniform law on its saved schema's domain (a
        one-vs-rest release: the classes it predicts on almost none of it)
        (:func:`~dpcvx.release.encodable.domain_finding`, at the model's decision cut); None otherwise. Public: the
        schema, the row map, the weights and a public seed (20,000 records scored when the summary is written: 0.05 s
        of CPU for a 5-class, 125-column KDD release, benchmarks/results/multiclass_domain.md)."""
        if self.classes is None or self._ball_stated or self.encodable is not None:
            return None
        return domain_finding(self._release, self.schema)

    @property
    def _domain_heading(self) -> str:
        """The summary's name for :attr:`nearly_one_class`: a binary release's one class, a one-vs-rest release's
        classes it names."""
        binary = np.asarray(getattr(self._release, "coef_", None)).ndim == 1
        return "Near one class" if binary else "Classes nearly never predicted"

    def _summary(self) -> Section:
        mechanism = self._mechanism(self.certificate)
        return Section("summary", "Summary", (_p(
            f"This is a {self.kind} model released by dpcvx {self.first.library_version} with "
            f"differential privacy: epsilon = {number_text(self.epsilon)}, delta = {number_text(self.delta)}, "
            f"under the {self.neighbours} neighbour relation (mechanism: {mechanism})."
            + ("" if self.tuning is None else " Its settings were chosen privately by dpcvx.tune; epsilon and "
               "delta are the whole selection's total.")
            + (" CONDITIONAL: a constant of the proof is an estimate, not a proof; the guarantee holds only "
               "if it is right." if self.conditional else "")),
            # the certificate's public findings (a constant classifier: release/usefulness.py), stated in the
            # auditor's section too, belong where a reader decides whether to use the model
            _p(_noise_words(self.noise_source)),
            *(_p(f"Not useful: {finding}.") for finding in getattr(self.certificate, "findings", ())),
            *(() if self.encodable is None else (_p(f"Not useful: {self.encodable}."),)),
            *(() if self.nearly_one_class is None else (_p(f"{self._domain_heading}: {self.nearly_one_class}."),))))

    def _protected(self) -> Section:
        if self.neighbours is Neighbours.REPLACE_ONE:
            relation = ("Take the training data and replace any one person's record by any other possible "
                        "record. The number of records n stays the same: n is public, and the release may use "
                        "it. The model is almost equally likely to come out either way, so it reveals little "
                        "about whether that record was there or what it said.")
        else:
            relation = ("Take the training data and add or remove any one person's record. The model is almost "
                        "equally likely to come out either way, so it reveals little about whether that person "
                        "took part; the number of records itself is protected.")
        per_class = getattr(self.certificate, "per_class", None)  # multiclass: its classes share the fit's domain
        domain = getattr(per_class[0] if per_class else self.certificate, "domain", None)
        if domain is not None:  # add/remove: a data set beyond the public limit is refused before any charge
            relation += f" This holds on {domain}."
        return Section("protected", "What was protected", (
            _p("One person's record: a row of the training data (its features and its label)."),
            _p(f"Neighbour relation: {self.neighbours}. {relation}"),
            _p(f"As the certificate states it: {self.relation_text}."),
            _p(self._group_privacy()),
        ))

    def _group_privacy(self) -> str:
        """The group-privacy paragraph (docs/datasets.md, "One person, several rows", says the same): k records are
        k neighbouring steps apart, so k epsilon and, with delta > 0, delta's growth
        (dpcvx.privacy.neighbours.group_epsilon_delta, the one formula), at k = 2 and 3 as the guarantee gives them;
        the odds bound e^(k epsilon), which grows exponentially in k (the former "about k times" read as linear);
        what the relation covers of a person (under replace-one, their k records replaced by k others, never
        whether they took part, which changes the public n); and how a public cap k on a person's records divides
        a person-level budget."""
        text = ("A person who contributed k records is protected at k epsilon, by group privacy (k records are k "
                "neighbouring steps apart)")
        if self.delta > 0:
            groups = "; ".join(f"k = {k}: epsilon = {e:.4g}, delta = {d:.3g}"
                               for k, (e, d) in ((k, group_epsilon_delta(self.epsilon, self.delta, k)) for k in (2, 3)))
            text += (", and delta grows to delta (1 + e^epsilon + ... + e^((k - 1) epsilon)), at most k "
                     "e^((k - 1) epsilon) delta, reaching 1 (no guarantee) within a few records at a large epsilon "
                     f"({groups})")
            if self.pure_at_delta:
                text += (". The mechanism that ran is pure epsilon-DP, so k epsilon with delta = 0 holds too; the "
                         "figures keep the stated delta, as the certificate and the accountant do")
        odds = ", ".join(f"{_factor(k * self.epsilon)} at k = {k}" for k in (2, 5, 20))
        beyond = (", except on events of probability at most the grown delta above" if self.delta > 0 else "")
        text += (f". The odds an attacker holds about those k records can be multiplied by up to e^(k epsilon)"
                 f"{beyond}: {odds}, against {_factor(self.epsilon)} for one record. The loss grows exponentially "
                 "with k, not k times. ")
        if self.neighbours is Neighbours.REPLACE_ONE:
            text += ("Under replace-one this covers the person's k records replaced by k other records; whether "
                     "the person took part at all changes n, which replace-one does not cover: for that, fit with "
                     "neighbours=\"add-remove\" (offered with a positive delta). ")
        else:
            text += "Under add-remove this covers adding or removing all k of the person's records. "
        split = " and delta_P / (1 + e^(epsilon_P / k) + ... + e^((k - 1) epsilon_P / k))" if self.delta > 0 else ""
        return text + ("Give each person one record by a public rule; or, with a public cap k on the records any "
                       "person may hold (enforced before the fit), fit at epsilon_P / k" + split + " for a "
                       "person-level budget epsilon_P" + (", delta_P" if self.delta > 0 else "") + ".")

    def _strength(self) -> Section:
        rows = [[f"{prior:.0%}", f"{_posterior(prior, self.epsilon):.1%}"] for prior in PRIORS]
        blocks = [
            _p(f"epsilon = {number_text(self.epsilon)}. Whatever an attacker believed about one person's record before "
               f"seeing the model, seeing it can multiply their odds for any conclusion about that record by at "
               f"most e^epsilon = {_factor(self.epsilon)}, whatever else they know."),
            Block("table", (["attacker's belief before", "at most, after the release"], rows)),
        ]
        n = self.n
        # a conditional release's guarantee holds only if its estimated constant is right: so does "no exception"
        unless = " (CONDITIONAL: if the estimated constant of its proof is right)" if self.conditional else ""
        if self.delta == 0:
            blocks.append(_p(f"delta = 0: the bound above holds with no exception{unless} (pure differential "
                             "privacy)."))
        else:
            stated = number_text(self.delta)
            text = (f"delta = {stated}: stated and charged, but not used by the mechanism that ran. Its noise "
                    "was calibrated by a pure-epsilon mechanism (the guarantee, in the auditor's section, says which "
                    "and why it was chosen at this delta), so this release's privacy loss never exceeds "
                    f"epsilon{unless}: the bound above holds with no exception. Its certificate still states, and a "
                    "privacy accountant still charges, the (epsilon, delta) that was asked for: a pure epsilon-DP "
                    "mechanism is (epsilon, delta)-DP for every delta, and the figures of this report keep that "
                    "stated pair. For comparison, a release that printed one randomly chosen record in full would "
                    "have delta = 1/n.") if self.pure_at_delta else (
                    f"delta = {stated}: a slack added to the bound above. For any conclusion about one "
                    "person's record, its probability after seeing the model is at most e^epsilon times its "
                    f"probability without that record, plus {stated}. delta is not the chance that the "
                    "bound fails: this release's privacy loss can exceed epsilon more often than delta, by a little "
                    "(the privacy curve below gives the bound at every epsilon). For comparison, a release that "
                    "printed one randomly chosen record in full would have delta = 1/n.")
            if n is not None:
                ratio = 1 / (n * self.delta)
                size = (f"n = {n} records" if self.neighbours is Neighbours.REPLACE_ONE else
                        f"the calibration used the public size n_public = {n} (the number of records itself is "
                        "protected)")
                name = "n" if self.neighbours is Neighbours.REPLACE_ONE else "n_public"
                compared = (f"{ratio:,.0f} times smaller" if ratio >= 10 else f"{ratio:.2g} times smaller"
                            if ratio > 1 else "equal to it" if ratio == 1 else f"{1 / ratio:.3g} times larger")
                text += (f" Here {size}, so 1/{name} = {1 / n:.3g}: this delta is {compared}"
                         + (f" (small against 1/{name}, as it should be)." if ratio >= 100 else
                            f". WARNING: delta is not small against 1/{name}; choose delta well below 1/{name}."))
            else:  # a calibration that does not use n (noisy gradient sums): the release holds none
                text += (" This release's calibration does not use the number of records, so it does not state "
                         "it: compare delta with 1/n for the table it was fitted on (delta well below 1/n).")
            blocks.append(_p(text))
        if self.drawn:
            blocks.append(_p("The total includes the budget dpcvx spent to choose some inputs privately (listed "
                             "under Public inputs, chosen privately by dpcvx)."))
        return Section("strength", "How strongly: epsilon and delta", tuple(blocks))

    def _tuning_section(self, tuning: TuningRecord) -> Section:
        """That dpcvx.tune chose the settings privately: the procedure, its fits, the public grid and the total."""
        own = self.certificate.cost  # the selected candidate's fit (its draws before the fit included)
        grid = "; ".join("{" + ", ".join(f"{name} = {_number(value)}" for name, value in candidate.items()) + "}"
                         for candidate in tuning.candidates)
        selected = ", ".join(f"{name} = {_number(value)}" for name, value in tuning.selected_params.items())
        return Section("tuning", "How the settings were chosen: privately, by dpcvx.tune", (
            _p(f"The settings of this model were chosen privately by dpcvx.tune ({tuning.procedure}), which fitted "
               f"and compared candidates on the private records. The selection is one private release: its total, "
               f"epsilon = {number_text(tuning.total_epsilon)}, delta = {number_text(tuning.total_delta)}, is the "
               f"budget this report states. The selected model's own certificate (in the auditor section) states its "
               f"own fit, epsilon = {number_text(own.epsilon)} and delta = {number_text(own.delta)}: a share of that "
               "total, not the cost of the selection."),
            _p(f"How many fits: {tuning.runs}."),
            _p(f"The candidates' grid is public (chosen without looking at the private records): {grid}."),
            _p(f"Selected privately: {selected}. Which candidate was selected is the selection's private output, "
               "covered by the total."),
            Block("pre", tuning.text),
        ))

    def _inputs(self) -> list[tuple[str, bool]]:
        """Each input the guarantee rests on, in words, and whether dpcvx chose it privately: a value a declared
        private draw of this release holds or derives (:attr:`drawn`), or a setting dpcvx.tune selected."""
        first = self.first
        verification = getattr(first, "verification", None)
        constants = getattr(first, "constants", None)
        selected = {} if self.tuning is None else self.tuning.selected_params
        # (text, the saved path of its value or None when no private draw can set it, the tune parameter)
        inputs: list[tuple[str, str | None, str | None]] = []
        weights = getattr(first, "weights", None)
        if verification is not None:  # a drawn label bound sets a Huber loss's m; a drawn count the intercept
            # offset's centre of the ridge, when it sets an offset (else the declared regularizer is the user's)
            centred = getattr(weights, "sets_offset", False) is True
            inputs.append((f"the loss l(z) = {_six_digits(verification.loss)}", "certificate.verification.loss",
                           "loss"))
            dim = verification.dim
            counted = (f"d = {dim} ({dim - 1} features and the intercept's)"
                       if getattr(first, "fit_intercept", False) else f"d = {dim} features")
            inputs.append((f"the regularizer N(w) = {_six_digits(verification.regularizer)}, at {counted}"
                           + (self._offset_words() if centred else ""),
                           "certificate.verification.regularizer" if centred else None, "regularizer"))
        class_weights = getattr(weights, "class_weights", None)
        if class_weights:
            shown = ", ".join(f"{label!r}: {weight:.4g}" for label, weight in class_weights)
            inputs.append((f"the class weights {{{shown}}}", "certificate.weights.class_weights", "class_weight"))
        if getattr(first, "kernel", None) is not None:
            inputs.append((f"{loss_words(first.loss)} and {_kernel_words(first.kernel)}", None, "kernel"))
        if self.public_centres is not None:
            inputs.append((f"the public sample Z of {self.public_centres} points, published in the model as it is "
                           "(its predictor's centres): points from a public source, never the private records, "
                           "which would be released verbatim", None, None))
        if getattr(first, "data_norm", None) is not None:
            inputs.append((f"the bound R = {first.data_norm:g} on the norm of a row (rows beyond it: "
                           f"{first.clipping})", "certificate.data_norm", "data_norm"))
        if getattr(first, "label_bound", None) is not None:
            shift = getattr(first, "label_shift", None)  # a public range's midpoint s (label_bound=(lo, hi))
            inputs.append((f"the bound B = {first.label_bound:g} on the size of a label"
                           + (f" from the public centre s = {shift:g}" if shift else ""), "certificate.label_bound",
                           "label_bound"))
        statistics = getattr(first, "column_statistics", None)
        declared = statistics.get("label_bound") if isinstance(statistics, dict) else None
        if (isinstance(declared, (int, float)) and not isinstance(declared, bool)  # the range a private one was sought
                and declared != getattr(first, "label_bound", None)):  # in, where the fit's B is the drawn one
            inputs.append((f"the declared bound B = {declared:g} on the size of a label, within which the label's "
                           "private range was sought", None, None))
        located = getattr(getattr(first, "calibration", None), "label_bound", None)  # B', the label's range's
        if isinstance(statistics, dict) and "ranges" in statistics and located is not None:
            centre, _ = label_range(np.asarray(statistics["ranges"], dtype=float)[:, -1:], statistics["level"],
                                    statistics["label_bound"])  # the label's released range's, as the fit drew it
            shift = getattr(first, "label_shift", 0.0) or 0.0  # a declared range's public midpoint s, if any
            units = (f" from the public centre s = {shift:g}, so {shift + centre:.6g} in the labels' units, and"
                     if shift else " and")
            inputs.append((f"the labels' centre c = {centre:.6g}{units} bound B' = {located:.6g} (the fit saw "
                           f"y{' - s' if shift else ''} - c clipped onto [-B', B'])",
                           "certificate.calibration.label_bound", None))
        if self.feature_map is not None:  # the encoding of the columns; a private draw may have set it
            inputs.append((f"the encoding of the columns before the norm bound: {_map_words(self.feature_map)}",
                           "preprocessing.row_map.feature_map.centre", None))
        if constants is not None:
            rule = getattr(first, "lam_rule", None) is not None  # lam="auto": the rule's inputs may be drawn
            inputs.append((f"the regularisation strength lam = {constants.lam:g}" + (
                " (set by the lam rule)" if rule else ""), "certificate.lam_rule" if rule else None, "lam"))
        if self.classes is not None:
            inputs.append((self._classes_words(), None, None))
        if getattr(first, "fit_intercept", False):
            inputs.append((f"an intercept, fitted as a feature of value {first.intercept_scaling:g}",
                           "certificate.intercept_scaling", "fit_intercept"))
        threshold = self._threshold_words()
        if threshold:  # chosen privately when it is the released count's log-odds (threshold "prior")
            inputs.append((threshold, "decision_cut" if self._cut_of_counts() else None, "threshold"))
        if self.tuning is not None and self.n is not None:
            inputs.append((f"the number of records n = {self.n}, of which the whole selection read its parts", None,
                           None))
        elif self.neighbours is Neighbours.REPLACE_ONE and self.n is not None:
            inputs.append((f"the number of records n = {self.n}", None, None))
        elif self.n is not None:
            inputs.append((f"the public size n_public = {self.n} used in place of n by the calibration", None, None))
        inputs.append(("epsilon and delta" + (" (the selection's total)" if self.tuning else ""), None, None))
        inputs.append((f"the mechanism ({self._mechanism(first)})", None, "mechanism"))
        chosen = [(text, param in selected or path is not None and any(
                       release.holds(path) or release.derives(path) for release in self.drawn))
                  for text, path, param in inputs]
        named = {param for _, _, param in inputs}
        chosen += [(f"the setting {name} = {_number(value)}, selected by dpcvx.tune", True)
                   for name, value in selected.items() if name not in named]
        if self.tuning is not None and "part_sizes" not in self.tuning.certificate and constants is not None:
            chosen.append((f"the selected run's training part of {constants.n:g} rows (the coin-chosen part of the "
                           "run dpcvx.tune released)", True))
        return chosen

    def _counts(self) -> list[dict[str, Any]]:
        """The records of the private class counts (one; one per class of a one-vs-rest release), or none."""
        per_class = getattr(self.certificate, "per_class", None) or (self.certificate,)
        counts = [getattr(getattr(one, "weights", None), "private_count", None) for one in per_class]
        return [count for count in counts if isinstance(count, dict)]

    def _offset_words(self) -> str:
        """What the centre of an intercept offset's ridge is, in words: the log-odds of the released count."""
        counts = self._counts()
        if len(counts) != 1:
            return ("; its centre pulls each class's intercept towards the log-odds of that class's noisy count "
                    "(below)")
        count, n = counts[0]["count"], counts[0]["n"]
        return (f"; its centre pulls the intercept towards log({count} / ({n} - {count})) = "
                f"{_count_log_odds(counts[0]):.3g}, the log-odds of the noisy count below (divided by the "
                "intercept's feature value)")

    def _cut_of_counts(self) -> bool:
        """Whether the decision cut(s) are the log-odds of the released class counts (threshold "prior" with
        class_prior="private"), a function of a private draw; another threshold's cut is public."""
        counts = self._counts()
        if not counts or self.decision_cut is None:
            return False
        odds = [_count_log_odds(count) for count in counts]
        cut = np.atleast_1d(np.asarray(self.decision_cut, dtype=float))
        return cut.shape == (len(odds),) and bool(np.allclose(cut, odds, rtol=1e-12, atol=0))

    def _positive_class(self) -> str:
        """A binary release's positive class as the report writes it (its second declared class, :func:`_class`)."""
        return _class(np.asarray(self.classes).tolist()[1]) if self.classes is not None else "the second class"

    def _classes_words(self) -> str:
        """The declared classes as ``classes_`` and ``dpcvx predict`` name them (:func:`_class`), a binary release's
        positive class named: "the classes not 1, 1" read as a negation of a list, and (False, True) as "no, yes"."""
        classes = [_class(value) for value in np.asarray(self.classes).tolist()]
        if len(classes) == 2:  # predict_proba named only where the release has it (P5 F2, session 70: a kernel's)
            listed = (f"{classes[0]} and {classes[1]} (the positive class: decision_function > 0"
                      + (", predict_proba's second column)" if self.probabilities else ")"))
        else:
            listed = ", ".join(classes)
        return f"the classes {listed}, declared (never read off the data)"

    def _threshold_words(self) -> str:
        """The public decision threshold when predict does not cut at 0 (a dpcvx classifier's ``threshold``, its
        ``decision_cut``): what it is and that it changes the predictions, not the privacy; "" at the default."""
        cut = self.decision_cut
        if cut is None or not np.any(np.asarray(cut) != 0):
            return ""
        if np.ndim(cut):
            shown = ", ".join(f"{value:.3g}" for value in np.asarray(cut, dtype=float))
            return (f"the decision cuts ({shown}), one per class: a row is predicted as the class whose score minus "
                    "its cut is largest (the threshold 'prior'), not the largest score; they change which class is "
                    "predicted, not the privacy")
        positive = self._positive_class()
        threshold = 1.0 / (1.0 + math.exp(-float(cut)))
        return (f"the decision threshold {threshold:.3g}: a row is predicted as {positive} when its score is above "
                f"log({threshold:.3g} / {1 - threshold:.3g}) = {float(cut):.3g} instead of 0 (the default threshold "
                "0.5); it changes which class is predicted, not the privacy")

    def _drawn_words(self, release: PrivateRelease) -> str:
        """A private draw in a reader's words (:attr:`PrivateRelease.plain`): for the class count, which option
        asked for it and the count released; then the share of epsilon it took (its record's)."""
        text, share = release.plain or release.mechanism, None
        if release.plain_label_alone and getattr(getattr(self.first, "calibration", None), "range_columns", 0) == 1:
            text = release.plain_label_alone  # as the release's description says: the label's range alone was drawn
        counts = self._counts()
        if release.record == "certificate.weights.private_count" and counts:
            weights = getattr(self.first, "weights", None)
            option, use = (("class_prior='private'", "which sets the intercept's starting point")
                           if getattr(weights, "sets_offset", False) else
                           ("class_weight='balanced'", "which sets the class weights"))
            if len(counts) == 1:
                text = (f"a noisy count of the records of class {self._positive_class()} (released as "
                        f"{counts[0]['count']} of {counts[0]['n']}), asked for by {option}, {use}")
            else:
                labels = np.asarray(self.classes).tolist() if self.classes is not None else range(len(counts))
                shown = ", ".join(f"{_class(label)}: {count['count']}" for label, count in zip(labels, counts,
                                                                                              strict=False))
                text = (f"a noisy count of the records of each class (released as {shown}, of {counts[0]['n']}), "
                        f"asked for by {option}, {use}")
            share = sum(float(count["epsilon"]) for count in counts)
        elif release.record is not None:
            record: Any = self._saved_records()
            for key in release.record.split("."):
                record = record.get(key) if isinstance(record, dict) else None
            value = record.get("epsilon") if isinstance(record, dict) else None
            share = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        return text + ("" if share is None else  # as they read back (number_text): the shares add up to the charge
                       f", using {number_text(share)} of the epsilon of {number_text(self.epsilon)}")

    def _public_inputs(self) -> Section:
        inputs = self._inputs()
        blocks = [_p("The guarantee takes these as public: chosen without looking at the private records."),
                  Block("ul", [text for text, private in inputs if not private])]
        if self.drawn:
            blocks += [
                _p("Chosen privately by dpcvx, inside this budget: drawn from the private records by the private "
                   "mechanisms below, whose cost is part of epsilon and delta above, so the guarantee covers "
                   "them (the values as released):"),
                Block("ul", [text for text, private in inputs if private] or ["no value listed above"]),
                _p("The private mechanisms that chose them:"),
                Block("ul", [self._drawn_words(release) for release in self.drawn])]
        if self.schema is not None and hasattr(self.schema, "columns"):
            blocks += [_p("The public schema that encodes a table's records into rows (its bounds, categories, "
                          "imputed values and missing codes and texts are public inputs too):"),
                       Block("ul", [_column_line(column) for column in self.schema.columns])]
        return Section("public-inputs", "Public inputs", tuple(blocks))

    def _not_covered(self) -> Section:
        items = [
            "Choices made outside dpcvx: cleaning, deduplication, selecting rows or columns, and the public inputs "
            "above. If any of them was made by looking at the private records, that choice is a release of its "
            "own, and this guarantee does not cover it. "
            + ("The inputs dpcvx chose privately (listed above) are covered." if self.drawn else ""),
            "Repeated releases: this report covers this one release. Every other release computed from the same "
            "people (another model, a refit, a statistic) adds to what they reveal; k releases at (epsilon, delta) "
            "cost up to (k epsilon, k delta). Count them all with dpcvx.PrivacyAccountant.",
            _float_words(self.float_guarantee),
            "What was measured while fitting (the learner's diagnostics_: time, iterations, solver status) is "
            "NOT private: it is not part of the release and must not be published.",
            "Facts about the population: differential privacy protects each person's record, not conclusions "
            "about groups; the model is meant to learn those.",
        ]
        if self.conditional:
            items.append("A constant of the proof is an estimate (opted in), not proved: if it is wrong, "
                         "the guarantee does not hold.")
        return Section("not-covered", "What is NOT covered", (Block("ul", [item.strip() for item in items]),))

    def _curve_section(self) -> Section:
        paired = [part for part in self.curve.parts if part.kind != GAUSSIAN and part.delta]
        picks = sorted({0.25 * self.epsilon, 0.5 * self.epsilon, self.epsilon, 1.5 * self.epsilon,
                        2 * self.epsilon, 3 * self.epsilon})
        rows = [[f"{e:.4g}", f"{d:.3g}" if d < 1 else "1 (no guarantee)"]
                for e, d in zip(picks, self.curve.profile(np.asarray(picks)), strict=True)]
        return Section("privacy-curve", "The privacy curve", (
            _p("A release satisfies a whole curve of (epsilon, delta) pairs: a larger epsilon never needs a larger "
               "delta, and mostly comes with a smaller one. The certified pair is the marked point."
               + (" The mechanism that ran is pure epsilon-DP (its delta is 0 from epsilon on); the curve below is "
                  "the stated and charged one, whose (epsilon, delta) part (" + "; ".join(
                      sorted({part.what for part in paired})) + ") stays at the stated delta beyond it: a "
                  "conservative bound." if paired and self.pure_at_delta else
                  " A part of this proof is known only by its one (epsilon, delta) pair, delta above 0 ("
                  + "; ".join(sorted({part.what for part in paired})) + "): the curve stays at that part's delta "
                  "beyond it." if paired else
                  " The mechanism that ran is pure epsilon-DP (its delta is 0 from epsilon on), and the curve below "
                  "is its own; the certificate states, and the accountant charges, the (epsilon, delta) asked for, "
                  "which it implies." if self.pure_at_delta else "")
               + ("" if self.tuning is None else " For a model dpcvx.tune selected, the curve is the selection's: "
                  "its theorem proves the one (epsilon, delta) point of its total, so no smaller delta is claimed "
                  "at a larger epsilon.")),
            Block("figure", self._figure),
            Block("table", (["epsilon", "delta"], rows)),
        ))

    def _auditor(self) -> Section:
        first = self.first
        gaussian = "a curve (see its multiplier)"  # a Gaussian part has a whole curve, no one (epsilon, delta)
        parts = [[part.kind, part.what, f"{part.noise_multiplier:.6g}" if part.noise_multiplier else "not used",
                  gaussian if part.epsilon is None else number_text(part.epsilon),
                  gaussian if part.kind == GAUSSIAN else number_text(part.delta)]
                 for part in self.curve.parts]
        blocks = [_p(f"Guarantee: {self.certificate.guarantee}"), _p(f"Neighbour relation: {self.relation_text}")]
        constants = getattr(first, "constants", None)
        if isinstance(constants, Constants):
            blocks.append(Block("table", (["constant", "value", "how established"], [
                [name, _written(value), _established(first, name)]
                for name, value in constants.items()])))
        elif isinstance(constants, KernelConstants):
            blocks.append(Block("table", (["constant", "value", "how established"], [
                [name, _number(value), established] for name, value, established in constants.statements()])))
        verification = getattr(first, "verification", None)
        if verification is not None and verification.conditions:
            blocks.append(Block("table", (["condition", "value", "established", "status"], [
                [item.name, _written(item.value), item.method, status]  # the certificate's own status words
                for item, status in verification.statuses(first.delta)])))
        encoding = _map_table(self.feature_map, self.release_names)
        if encoding is not None:
            blocks.append(encoding)
        blocks.append(Block("table", (["calibration", "value", "meaning"],  # its fields as the file writes them
                                      [[key, _number(value), self._calibration_meaning(key)]
                                       for key, value in first.calibration.to_dict().items()])))
        blocks.append(Block("table", (["curve part", "what", "noise multiplier", "epsilon", "delta"], parts)))
        blocks.append(Block("pre", self.certificate_text))
        return Section("auditor", "For an auditor: theorems and constants", tuple(blocks))

    # --- rendering --------------------------------------------------------------------------

    def to_markdown(self, *, embed_plot: bool = False) -> str:
        """The report as Markdown. The plot of the privacy curve is left out (a note says where it is, and its
        table stays); ``embed_plot=True`` embeds it as an SVG data URI image, one line of some 24,000
        characters, for a Markdown file a viewer renders."""
        embed_plot = check_flag("embed_plot", embed_plot)
        lines = ["# Privacy report", ""]
        for section in self.sections:
            lines += [f"## {_markdown_text(section.title)}", ""]
            for block in section.blocks:
                if block.kind == "p":
                    lines += [_markdown_text(block.content), ""]
                elif block.kind == "ul":
                    lines += [f"- {_markdown_text(item)}" for item in block.content] + [""]
                elif block.kind == "table":
                    header, rows = block.content
                    lines += ["| " + " | ".join(_markdown_text(cell) for cell in header) + " |",
                              "|" + " --- |" * len(header)]
                    lines += ["| " + " | ".join(_markdown_text(str(cell)) for cell in row) + " |"
                              for row in rows] + [""]
                elif block.kind == "pre":
                    fence = _fence(block.content)
                    lines += [f"{fence}text", block.content, fence, ""]
                elif not embed_plot and _plot_importable():  # where the plot is, without drawing it
                    lines += [f"*{PLOT_ELSEWHERE}*", ""]  # public words, with Markdown's code marks
                elif (figure := block.content()) is None:
                    lines += [f"*{PLOT_NOTE}*", ""]
                elif not embed_plot:
                    lines += [f"*{PLOT_ELSEWHERE}*", ""]
                else:
                    encoded = base64.b64encode(figure.encode()).decode()
                    lines += [f"![the privacy curve](data:image/svg+xml;base64,{encoded})", ""]
        return printable("\n".join(lines))  # a control character of a file's text, as an escape a reader sees

    def to_html(self) -> str:
        """The report as one self-contained HTML page (the figure as inline SVG)."""
        body = ['<div class="dpcvx-report">', "<h1>Privacy report</h1>"]
        for section in self.sections:
            body.append(f'<section id="{section.anchor}"><h2>{html.escape(section.title)}</h2>')
            for block in section.blocks:
                if block.kind == "p":
                    body.append(f"<p>{html.escape(block.content)}</p>")
                elif block.kind == "ul":
                    body.append("<ul>" + "".join(f"<li>{html.escape(item)}</li>" for item in block.content)
                                + "</ul>")
                elif block.kind == "table":
                    header, rows = block.content
                    body.append("<table><thead><tr>" + "".join(f"<th>{html.escape(cell)}</th>" for cell in header)
                                + "</tr></thead><tbody>" + "".join(
                                    "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row)
                                    + "</tr>" for row in rows) + "</tbody></table>")
                elif block.kind == "pre":
                    body.append(f"<pre>{html.escape(block.content)}</pre>")
                elif (figure := block.content()) is None:
                    body.append(f'<p class="note" id="no-plot">{html.escape(PLOT_NOTE)}</p>')
                else:
                    body.append(f'<figure id="privacy-curve-plot">{figure}'
                                "<figcaption>delta against epsilon for this release</figcaption></figure>")
            body.append("</section>")
        body.append("</div>")
        return printable("\n".join(body))  # a control character of a file's text, as an escape a reader sees

    def html_page(self) -> str:
        """:meth:`to_html` in a complete page with a style sheet."""
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>dpcvx privacy report"
                f"</title><style>{_STYLE}</style></head><body>\n{self.to_html()}\n</body></html>\n")

    def render(self, format: str = "markdown", *, embed_plot: bool = False) -> str:
        """The report as ``format``: "markdown" or "html" (a complete page, with the plot inline). Markdown leaves
        the plot out unless ``embed_plot=True`` (:meth:`to_markdown`); ``embed_plot=True`` with "html", which always
        holds the plot, would change nothing and is refused (:func:`check_embed_plot`)."""
        check_choice("format", format, tuple(REPORT_FORMATS))
        embed_plot = check_embed_plot(format, embed_plot)  # with "html" it would change nothing: refused
        return self.html_page() if format == "html" else self.to_markdown(embed_plot=embed_plot)

    def write(self, path: str | Path, format: str | None = None, *, overwrite: bool = False,
              embed_plot: bool = False) -> Path:
        """Write the report to ``path`` (atomically); ``format`` defaults to html for a .html/.htm name and to
        markdown for a .md/.markdown/.txt name or one without a suffix; another suffix (.pdf, .docx) needs
        ``format`` (a report.pdf holding Markdown opened as no PDF). HTML holds the plot of the privacy curve;
        Markdown leaves it out (its table stays) unless ``embed_plot=True``. Returns the path. An existing file
        is kept and refused with an :class:`~dpcvx.exceptions.OverwriteError` before anything is written, unless
        ``overwrite=True``, which replaces it."""
        path = file_path(path, "report")
        if format is None:
            format = suffix_format(path)
            if format is None:
                raise InputError(f"the report is written as HTML or Markdown, and the name {path.name!r} says "
                                 "neither: name it .html or .md, or give the format (format='markdown' or 'html')")
        check_embed_plot(format, embed_plot)  # before the file is checked: a refused call leaves it as it was
        path = check_writable(path, "report", overwrite=overwrite)
        text = self.render(format, embed_plot=embed_plot)
        return atomic_write(path, lambda handle: handle.write(text), what="report", overwrite=overwrite)

    def _repr_html_(self) -> str:  # Jupyter
        return f"<style>{_STYLE}</style>{self.to_html()}"

    def __str__(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        return f"ReleaseReport(kind={self.kind!r}, epsilon={self.epsilon:g}, delta={self.delta:g}, " \
               f"neighbours={self.neighbours.value!r})"


#: The format :meth:`ReleaseReport.write` reads off a file name's suffix
REPORT_SUFFIXES = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown", ".txt": "markdown",
                   "": "markdown"}


def suffix_format(path: str | Path) -> str | None:
    """The report format a file name's suffix says (:data:`REPORT_SUFFIXES`), or None (another suffix: .pdf,
    .docx, which needs the format given)."""
    return REPORT_SUFFIXES.get(Path(path).suffix.lower())


_STYLE = (".dpcvx-report{font-family:system-ui,sans-serif;max-width:60em;line-height:1.45;color:#222}"
          ".dpcvx-report table{border-collapse:collapse;margin:0.5em 0}"
          ".dpcvx-report td,.dpcvx-report th{border:1px solid #ccc;padding:0.2em 0.6em;text-align:left}"
          ".dpcvx-report pre{background:#f6f6f6;padding:0.6em;overflow-x:auto;font-size:0.85em}"
          ".dpcvx-report figure{margin:0.5em 0}.dpcvx-report .note{font-style:italic}"
          "#not-covered{border-left:4px solid #c0392b;padding-left:0.8em}")
