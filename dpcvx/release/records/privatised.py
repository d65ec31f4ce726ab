"""Which saved paths of a release hold privatised values, or public functions of them: the one declaration.

A release holds public inputs, quantities computed from them, and privatised values: the mechanism's output
and, for a composite procedure, every earlier private release it made (a class count, column statistics, a
norm bound, a selected candidate). Each :class:`PrivateRelease` names the mechanism that produced its
``values`` and the saved paths ``derived`` from them: post-processing, public functions of those values and of
public inputs (the class weights of a released count, the calibration at a released norm bound, the
standardiser's centre). :func:`dpcvx.models.release_audit.audit_release_file` reads :data:`PRIVATE_RELEASES`:
on two neighbouring data sets only declared values may differ, and a derived path only when a value it is
derived from differs too; anything else is a leak.

A path is the dotted key path of a JSON leaf, list items as ``[i]`` (``certificate.weights.class_weights[1][1]``).
A pattern names a subtree: ``*`` is one key, ``[*]`` one list item, and a leading ``**.`` any record that
holds the path (the file itself, a multiclass file's ``per_class[i]``, a tuning result's ``model``).
:data:`PUBLIC_CERTIFICATE_KEYS` lists the certificate keys that hold public inputs only; every key a
certificate can write is in it or in a declaration (``tests/release/test_release_file_composites.py`` checks it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

__all__ = ["PrivateRelease", "PRIVATE_RELEASES", "PUBLIC_CERTIFICATE_KEYS", "OUTPUT", "leaves", "drawn_releases"]

# what a calibration and the lam rule are recomputed from; a privately drawn input makes them derived from it
_CALIBRATED = ("**.certificate.calibration", "**.certificate.constants.lam", "**.certificate.lam_rule",
               "**.certificate.guarantee")
# a tuned model's tuning record: its text and the release certificate's digest of it state the selected release's
# certificate, so every value a draw of that release made moves them (dpcvx.release.tuning_record)
_TUNING_RECORD = ("**.tuning.text", "**.certificate.tuning")
_CERTIFICATE, _SELECTED = "**.certificate.", "**.certificate.release."  # a certificate's path; the tuning record's copy


def _tuned(patterns: tuple[str, ...]) -> tuple[str, ...]:
    """``patterns`` and, for each in a certificate, its copy in a tuning record's selected release
    (``certificate.release``: a TuningResult's and a saved tuned model's ``tuning.certificate.release``)."""
    return tuple(dict.fromkeys(
        copy for pattern in patterns
        for copy in (pattern, *((_SELECTED + pattern[len(_CERTIFICATE):],) if pattern.startswith(_CERTIFICATE)
                                else ()))))


@dataclass(frozen=True)
class PrivateRelease:
    """One private release saved in a file: the mechanism, where its values sit, and what is derived from them.

    ``record`` is the saved path of the release's own record (its epsilon and theorem), None for the
    mechanism's output, which the certificate states as a whole. ``plain`` says what was drawn in a reader's words,
    with no module or symbol (the release report's public inputs; the auditor's section keeps ``mechanism``).
    """

    mechanism: str
    values: tuple[str, ...]
    derived: tuple[str, ...] = ()
    record: str | None = None
    plain: str = ""
    #: ``plain`` of a ranged regression whose search drew the label's range alone (its calibration's ``range_columns``
    #: is 1: the rows' map is public), where ``plain`` says every column's was drawn; "" where no such case exists
    plain_label_alone: str = ""

    @cached_property
    def _value_patterns(self) -> tuple[re.Pattern[str], ...]:
        return tuple(_compile(pattern) for pattern in self.values)

    @cached_property
    def _derived_patterns(self) -> tuple[re.Pattern[str], ...]:
        return tuple(_compile(pattern) for pattern in self.derived)

    def holds(self, path: str) -> bool:
        """Whether ``path`` is one of the released values."""
        return any(pattern.match(path) for pattern in self._value_patterns)

    def derives(self, path: str) -> bool:
        """Whether ``path`` is declared a public function of the released values (and public inputs)."""
        return any(pattern.match(path) for pattern in self._derived_patterns)


def _compile(pattern: str) -> re.Pattern[str]:
    """A pattern (module docstring) as a regular expression matching the paths of its subtree."""
    anywhere = pattern.startswith("**.")
    parts = re.split(r"(\[\*\]|\.)", pattern[3:] if anywhere else pattern)
    text = "".join(r"\[\d+\]" if part == "[*]" else r"\." if part == "." else r"[^.\[\]]+" if part == "*"
                   else re.escape(part) for part in parts)
    return re.compile(("(?:.*[.\\]])?" if anywhere else "") + text + r"(?:$|[.\[])")


def _drawn(mechanism: str, record: str, value: str, derived: tuple[str, ...], *, plain: str,
           calibrated: bool = True) -> PrivateRelease:
    """A private draw before the fit, saved in its certificate ``record`` with the released ``value``; when it is an
    input of the calibration or the lam rule (``calibrated``), those and the guarantee's text are derived from it."""
    return PrivateRelease(mechanism, _tuned((f"**.{record}.{value}",)),
                          _tuned((*derived, *(_CALIBRATED if calibrated else ()))) + _TUNING_RECORD, record, plain)


OUTPUT = PrivateRelease(
    mechanism="the release's own mechanism (certificate.mechanism: objective or output perturbation, AdaSSP, a "
              "kernel learner's; a multiclass file's per-class releases; a tuning selection's index and "
              "parameters)",
    values=("**.privatised",),
    # the public checks of the released weights (release/usefulness.py); the digest of the whole file (a saved file's
    # and a tuning result's model's, records/header.py), which the privatised values are part of
    derived=("**.certificate.findings", "sha256", "model.sha256"),
)

PRIVATE_RELEASES: tuple[PrivateRelease, ...] = (
    OUTPUT,
    _drawn("the private class count of class_weight='balanced' or class_prior='private' (dpcvx.models.class_count: "
           "discrete Laplace, eps_c, clamped onto [floor, n - floor])", "certificate.weights.private_count", "count",
           ("**.certificate.weights.class_weights", "**.certificate.weights.mean_weight",
            "**.certificate.verification.regularizer",  # the intercept offset's centre b0 / s, in the ridge's text
            "**.decision_cut"),  # threshold='prior': the cut at the log-odds of the count's rates
           plain="a noisy count of the records of each class (the report says which option asked for it)"),
    # a release's certificate.column_statistics, or a multiclass file's top-level column_statistics (drawn once for
    # its k fits, whose entries' certificates record the digest of the map it gives: certificate.feature_map)
    # (the map's outputs are clipped onto the public R: no constant depends on the statistics)
    PrivateRelease("the private column statistics of column_statistics=True (dpcvx.models.column_statistics: "
                   "discrete Laplace on the lattice sums, eps_s)", ("**.column_statistics.sums",),
                   _tuned(("**.preprocessing.row_map.feature_map.centre",
                           "**.preprocessing.row_map.feature_map.multiplier", "**.certificate.feature_map"))
                   + _TUNING_RECORD, "certificate.column_statistics",
                   "noisy sums of each column (column_statistics=True), which centre and scale the columns"),
    # its record is the one above too (column_statistics, with cells in place of sums); the map's outputs are
    # clipped onto the public R: no constant depends on the ranges
    PrivateRelease("the private column ranges of column_statistics 'auto' or 'ranges' "
                   "(dpcvx.privacy.column_histogram: discrete Laplace on per-column histograms, eps_s)",
                   ("**.column_statistics.cells",),
                   _tuned(("**.preprocessing.row_map.feature_map.centre",
                           "**.preprocessing.row_map.feature_map.multiplier",
                           "**.preprocessing.row_map.feature_map.clip", "**.certificate.feature_map"))
                   + _TUNING_RECORD, plain="noisy histograms of each column (column_statistics 'auto' or 'ranges'), "
                   "whose ranges centre, scale and clip the columns"),
    # its record is the one above (certificate.column_statistics, with eps_l beside eps_s); B' is the fit's label
    # bound, so m = B' / 4, the constants, the verified loss and the lam rule are derived from the label's cells
    PrivateRelease("the private label range of DPHuberRegressor's default (column_statistics 'auto' or 'ranges'; "
                   "with the ranges: dpcvx.privacy.column_histogram, discrete Laplace on the labels' histogram, "
                   "eps_l)",
                   ("**.certificate.column_statistics.label_cells",),
                   ("**.certificate.label_bound", "**.certificate.constants", "**.certificate.verification",
                    *_CALIBRATED), plain="a noisy histogram of the labels, whose range sets the labels' centre and "
                   "bound"),
    # its record is the one above (certificate.column_statistics, whose mechanism the certificate names); B' sets
    # the sigma of X^T y, so the calibration is derived from the ranges
    PrivateRelease("the private ranges of DPLinearRegression's default (mechanisms gradient-ranged and "
                   "adassp-ranged; dpcvx.privacy.column_ranges: a noisy binary search of Gaussian counts in the "
                   "release's joint Gaussian)",
                   ("**.certificate.column_statistics.ranges",),
                   ("**.preprocessing.row_map.feature_map.centre", "**.preprocessing.row_map.feature_map.multiplier",
                    *_CALIBRATED), plain="noisy ranges of each column and of the labels, which centre and scale them",
                   plain_label_alone="a noisy range of the labels alone, which centres and bounds them (the columns "
                   "are mapped by their public bounds)"),
    _drawn("the private row-norm bound of data_norm='private' (dpcvx.models.private_norm: the exponential-mechanism "
           "quantile over a public grid, eps_q)", "certificate.private_bound", "bound",
           ("**.certificate.data_norm", "**.certificate.effective_norm_bound", "**.certificate.constants.R",
            "**.certificate.intercept_scaling", "**.preprocessing.row_map.norm_bound",
            "**.preprocessing.row_map.intercept_scaling"),
           plain="a noisy choice of the bound R on a row's norm (data_norm='private'), from a public list of "
                 "candidates"),
    _drawn("the private label bound of label_bound='private' (dpcvx.models.private_norm: the exponential-mechanism "
           "quantile of |y| over a public grid, eps_q)", "certificate.private_label_bound", "bound",
           ("**.certificate.label_bound", "**.certificate.constants", "**.certificate.verification"),
           plain="a noisy choice of the bound on a label's size (label_bound='private'), from a public list of "
                 "candidates"),
    PrivateRelease(
        mechanism="dpcvx.tune's selection (the exponential mechanism of the split procedure, or the best of K noisy "
                  "runs of the full-data procedure), in TuningResult.to_dict(): the selected candidate and the "
                  "selected run's training part (full-data: its size n is that of the coin-chosen part of the run "
                  "released)",
        values=("privatised.params", "certificate.privatised", "model.certificate.constants.n",
                "certificate.release.constants.n", "tuning.certificate.privatised",
                "tuning.certificate.release.constants.n"),
        # the selected model's release: a function of the selection; in a saved tuned model, its tuning record
        # (dpcvx.release.tuning_record: the tuning certificate's text and record, a function of the selection) and
        # the release certificate's digest of that record
        derived=("model", "certificate.release", "tuning.text", "tuning.certificate.release",
                 "**.certificate.tuning",
                 # a saved tuned model's own certificate: the selected run's (full-data: its part's size n, and the
                 # calibration at that n)
                 "certificate.constants.n", *_CALIBRATED),
        plain="dpcvx.tune's private choice among the settings tried",
    ),
)



def leaves(data: Any, path: str = "") -> dict[str, Any]:
    """Every JSON leaf of ``data`` by its path (module docstring; an empty object or list is a leaf)."""
    if isinstance(data, dict) and data:
        return {leaf: value for key, item in data.items()
                for leaf, value in leaves(item, f"{path}.{key}" if path else str(key)).items()}
    if isinstance(data, list) and data:
        return {leaf: value for index, item in enumerate(data)
                for leaf, value in leaves(item, f"{path}[{index}]").items()}
    return {path: data}


def drawn_releases(record: Any) -> tuple[PrivateRelease, ...]:
    """The private releases a saved release ``record`` holds values of, besides its mechanism's output
    (:data:`OUTPUT`): the statistics, bounds and selections dpcvx drew privately before the fit, in the order of
    :data:`PRIVATE_RELEASES`. The release report names them, and what is derived from them, as chosen privately."""
    paths = tuple(leaves(record))
    return tuple(release for release in PRIVATE_RELEASES
                 if release is not OUTPUT and any(release.holds(path) for path in paths))


# certificate keys (ReleaseCertificate.to_dict) that hold public inputs, or quantities computed from them only;
# a key a private release's values can move is named by that release (its record or derived paths) as well
PUBLIC_CERTIFICATE_KEYS = frozenset({
    "mechanism", "guarantee", "epsilon", "delta", "calibration", "constants", "data_norm", "effective_norm_bound",
    "fit_intercept", "intercept_scaling", "clipping", "neighbours", "library_version", "verification",
    "label_bound", "label_shift", "lam_rule", "post_processing", "privacy_curve", "weights",
    # not a key of the record (its curve's candidate_share says it): whether dpcvx.tune selected the release, public
    "candidate_of_tuning",
    "noise_source",  # the caller's choice of random_state (None or a seed), never the seed
})
