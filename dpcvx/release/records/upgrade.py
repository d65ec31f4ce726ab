"""Reading older model files: one upgrade step per format version (docs/model-files.md, compatibility).

Format version 5 added the top-level ``tuning`` field (:class:`dpcvx.release.tuning_record.TuningRecord`: the
tuning certificate and total privacy spent of a model :func:`dpcvx.tune` selected, or null). A version 4 file was
written by a dpcvx that never saved one, so its step sets ``tuning`` to null, what that library's file meant: the
loaded release claims no tuning, and its own certificate is read and re-derived as before. Nothing else changed
between the versions. Tested on files written by format version 4 (``tests/release/fixtures/format4``).

Format version 6 records a kernel release's L exactly: the ``L`` entry of its ``certificate.constants`` holds
``"exact"`` (its exact text, "1" or "1/4", or null for a double) beside ``"value"``. A version 5 file was written by
a dpcvx whose kernel certificate held L as a double, so its step sets ``"exact"`` to null: the loaded L is that
double, what the writing library's certificate held. Tested on the format 4 fixtures (through both steps) and on a
kernel file written as version 5.

Format version 7 records, in the certificate of a release in the linear layout fitted with a feature map of its own
(not its column statistics' map), the map's type and digest (``certificate.feature_map``,
:func:`.row_map.map_record`), so that a file whose map was removed, added or changed is refused. A version 6 (or
older) file holds the map its writer fitted with and no record, so its step records the map the file holds: such a
file's map is read as before, unprotected against that edit. Tested on version 5 and version 6 linear files with a
map, and through every step on the format 4 fixtures.

Format version 7 also records a regression's public label shift s = (lo + hi) / 2 of a declared range
``label_bound=(lo, hi)`` (``certificate.label_shift``, written only when not 0), which the fit added to the intercept,
so that the intercept of a release without an intercept feature is re-derived (the labels' private centre plus s) in
every regression file, AdaSSP's included. A version 6 file records no shift, and is read with s = 0 (no key): in the
linear layout its reader refused any intercept other than the private centre, and so does this one; an AdaSSP
file's intercept was not checked, and a shifted one's cannot be without s, so an AdaSSP file of version 6 fitted
on an uneven public range without an intercept feature is refused (refit and save again). A mark that left such a
file's intercept unchecked was tried and withdrawn: the same mark in any version 7 file switched the check off.

Format version 8 records, in the certificate of a kernel release whose calibration states no input dimension (TDIL
searching a net: the record states the net's size, not its dimension), the dimension d (``certificate.n_features``,
:func:`.kernel_release.records_dimension`), so that a file whose ``predictor.n_features`` was edited is refused: such a
release holds no other record of d when it released no centre, and the loaded model would take rows of another width.
A version 7 (or older) file holds no record, so its step records the ``predictor.n_features`` the file holds: such a
file is read as before, unprotected against that edit. Tested on files of every kind written as version 7
(``tests/release/fixtures/format7``) and through every step on the format 4 to 6 fixtures.

Format version 9 records, in the certificate of a release saved with a schema (the public encoder of a table into
the release's rows), the schema's digest (``certificate.schema``, :func:`.row_map.schema_record`; in a multiclass
file, in every per-class entry's certificate, of the file's one schema), so that a file whose schema was edited (its
norm, a column's bounds, categories, name or order, a column added or dropped), removed or added is refused: the
loaded model would encode tables into other rows than the ones it was fitted on. A version 8 (or older) file holds
no record, so its step records the schema the file holds: such a file is read as before, unprotected against that
edit. Tested on files of every kind that carries a schema written as version 8 (``tests/release/fixtures/format8``).

Format version 9 also records, in the certificate of a release :func:`dpcvx.tune` selected (a multiclass file's in
every per-class entry's), the digest of the file's ``tuning`` record (``certificate.tuning``,
:func:`dpcvx.release.tuning_record.tuning_digest`), so that a file whose tuning record was removed (the loaded model
then claimed only the selected candidate's epsilon), added or edited is refused. A version 8 (or older) file holds no
record, so its step records the tuning record the file holds: such a file is read as before, unprotected against that
edit.

Format version 9 also records, in a certificate in the linear layout whose loss is the logistic loss, that its
probabilities come from that loss (``certificate.probabilities``, :func:`.release_certificate.probability_record`):
whether a loaded classifier offers ``predict_proba`` (and ``dpcvx predict`` a probability column) is decided by the
loss text, which an edit into the logistic loss's (a Huber release's, say) made available. A version 8 (or older)
file holds no record, so its step records the one its loss text gives: such a file is read as before, unprotected
against that edit.

Format version 10 ends every model file with the SHA-256 digest of the rest of it (``sha256``,
:func:`.header.file_digest`), so that an edit of a field no check compares with another copy (the order of
``classes``, a kernel release's centres, ``feature_names``, ``decision_cut``, a constant's exact text) is refused. A
version 9 (or older) file holds no digest, so its step records the digest of the file it holds: such a file is read
as before, unprotected against those edits (save it again with this dpcvx to bind it). A version 9 file that holds a
``sha256`` key was not written by dpcvx (a later file relabelled, whose steps would give back the content its
digest was made of): it is refused before any step, and so is one of an older version. Tested on files of
every kind written as version 9 (``tests/release/fixtures/format9``) and through every step on the older fixtures.

Format version 11 adds the ``input_bound`` of a ``ColumnStandardiser``: a map of private column statistics written
by this dpcvx scales each row onto ||x|| <= R before it centres and scales the columns, as the statistics were
released from the rows clipped onto R (:mod:`dpcvx.data.standardiser`). A version 10 map read the raw rows (on rows
beyond R, coded columns with R = 1, all were mapped onto one clipped corner, and the model predicted one class). Its
step records what the writing library did: ``input_bound`` null (the rows read as they are) in a map of private column
statistics, so a version 10 file predicts every row as written; a version 10 statistics map that already holds the
key was not written by dpcvx, and is refused. In a version 11 file such a map must hold the key: R, or null (a
version 10 release saved again); a map without it is refused as edited. The step's version changes what the file's
digest covers, so the digest of a file is made again of what the step made. A file of version 10 or later whose
digest is not the one of what it holds, as it is labelled, is refused before any step (:func:`upgraded`): edited, or
a later file relabelled as an older version with its digest kept (whose steps would give back the content its digest
was made of). Tested on files of every kind written as version 10
(``tests/release/fixtures/format10``, whose schema rows lie beyond the learner's R = 1) and through every step on the
older fixtures.

Format version 12 lets the calibration of a ``gradient-ranged`` regression (noisy gradient descent on private ranges,
:class:`dpcvx.privacy.gradient_descent.GradientCalibration`) record the level released after the steps (``"level":
true`` with ``level_share``, ``level_sensitivity``, ``level_sigma`` and ``level_grid``) and the longer descent's T =
``LONG_STEPS`` (60) in ``steps``. A version 11 dpcvx released no level and took T = ``STEPS`` (20), so its step changes
the version only, and the digest of a file as dpcvx wrote it is made again (as the step from version 10 does); a
version 11 calibration that records the level or T = 60 was not written by dpcvx, and is refused (the dpcvx that
wrote version 11 refused it too, as edited, and refuses a version 12 file: upgrade dpcvx). Tested on files of every
kind written as version 11 (``tests/release/fixtures/format11``) and through every step on the older fixtures.

Format version 13 names each part of a release's curve (``certificate.privacy_curve``) for a private draw before the
fit by what it drew (:class:`dpcvx.privacy.privacy_curve.DrawnPart`): a class count, column ranges, a label range, or
column sums as discrete Laplace releases, a bound R or B as the exponential-mechanism quantile. A version 12 (or
older) dpcvx named every such part "private bound (exponential-mechanism quantile)" (its epsilons, and each record's
theorem, were right), so its step names each part that carries that name by the record the certificate holds of the
draw (:func:`dpcvx.release.model.drawn_parts`), in the records' order; a part named otherwise is kept, and the
loader refuses it as edited. The digest of a file as dpcvx wrote it is made again (as the step from version 10
does). Tested on files of the kinds that draw such statistics written as version 12
(``tests/release/fixtures/format12``) and through every step on the older fixtures.

Format version 14 records, in a multiclass file, private column statistics drawn once before its k one-vs-rest fits
(``column_statistics``, the draw's record, and ``fit_epsilon``, the fits' total, at the top level): the entries'
shared map must be the one they give. A version 13 dpcvx drew none for one-vs-rest (it refused them), so its step
sets both to null, what that file meant, and makes the digest of a file as dpcvx wrote it again. Tested on a
multiclass file written as version 13 (``tests/release/fixtures/format13``) and through every step on the older
fixtures.

Format version 15 lets the calibration of a ``gradient-ranged`` regression record the heavy-ball momentum of its steps
(``momentum``, written only when positive: ``MOMENTUM`` where n epsilon / d >= ``MOMENTUM_AT``). A version 14 dpcvx
took plain steps, so its step changes the version only and makes the digest of a file as dpcvx wrote it again; a
version 14 calibration that records a momentum was not written by dpcvx, and is refused. Tested on a regression file
written as version 14 (``tests/release/fixtures/format14``) and through every step on the older fixtures.

Format version 16 lets a kernel file hold ``feature_names``, the column names of the table its learner (TDDL, TDIL,
PINP) was fitted on, which the loaded release's predictions check as a linear one's: before, a kernel release kept no
names, and a table with its columns swapped was predicted without a word (TDDL 0.965 -> 0.550 accuracy). A version
15 kernel file held none, so its step changes the version only and makes the digest of a file as dpcvx wrote it
again; a version 15 kernel file that holds ``feature_names`` was not written by dpcvx, and is refused. Tested on a
kernel file written as version 15 (``tests/release/fixtures/format15``) and through every step on the older fixtures.

Format version 16 also records the fit of the analytic Gaussian output perturbation after private draws (the column
ranges, a class count, a private bound) as the Gaussian of multiplier z(eps_fit, delta) in the certificate's privacy
curve, where version 15 recorded the (eps_fit, delta) pair: the release's sigma is z Delta rounded up whatever Delta
the drawn values give, so that Gaussian covers it for every drawn value (docs/theory.md, 'Private norm bounds'), and a
ledger composes it with its other Gaussians in closed form (ten such releases at delta 1e-5: epsilon 10 -> 3.13). The
step records the Gaussian for the pair of such a version 15 certificate: the same release, a tighter statement.

Format version 17 lets the calibration of a Gaussian objective perturbation state that its sigma was calibrated by the
one-sign profile of docs/theory.md, section 12.3 (``"loss_slope": "one-signed"``, written only then), which a fit
uses exactly when its certificate's verified condition ``slope_sign`` proves that l' has one sign on R (the
reader refuses a record whose statement and condition disagree, and recomputes sigma with the profile stated). A
version 16 dpcvx calibrated every loss by the general profile and wrote neither, so its step changes the version only
and makes the digest of a file as dpcvx wrote it again: such a file loads with the general profile, as written.
Tested on a logistic Gaussian objective perturbation written as version 16 (``tests/release/fixtures/format16``),
whose loss a fit of this dpcvx calibrates by the one-sign profile.

Format version 18 records the privacy curve of a pure-epsilon calibration released at a stated delta > 0 (the pure
objective perturbation, chosen under replace-one where its public excess-risk bound is the smaller: docs/theory.md,
section 12.5) as the pure part (epsilon, 0) it is, where a version 17 dpcvx before the sixty-fourth session recorded
the part (epsilon, delta) of the statement (a bridge then refused the release, which no dp-accounting event of an
(epsilon, delta) pair represents). The stated and charged (epsilon, delta) did not change. The step records the pure
part for such a version 17 certificate (its one part the statement's pair, its calibration the pure one) and makes the
digest of a file as dpcvx wrote it again; a version 17 file already holding the pure part (written in the sixty-fourth
session) is left as it is. The version marks the change: a version 17 dpcvx reading a file written now says it needs
a newer dpcvx, where it refused the curve as an edit. Tested on files the version 17 dpcvx wrote
(``tests/release/fixtures/format17``: a ball-constrained logistic ERM, a ``DPLogisticRegression`` and a one-vs-rest
release, each at delta 1e-6).

Format version 19 records in every release certificate (a multiclass file's in every per-class entry's) where the
release's noise came from (``certificate.noise_source``, :class:`dpcvx.privacy.rng.NoiseSource`): "os-entropy"
(``random_state=None``) or "seed" (an int or a generator: a reproducible experiment, not private against anyone who
knows the seed), never the seed itself. A version 18 dpcvx recorded neither, so its step records "not-recorded",
what that file states, and makes the digest of a file as dpcvx wrote it again; a version 18 certificate that already
holds the key was not written by dpcvx, and is refused. The reader takes one of the three values (a release loaded
from an older file and saved again keeps "not-recorded"). Tested on files of every kind the version 18 dpcvx wrote
(``tests/release/fixtures/format18``) and through every step on the older fixtures.

Format version 20 records, in a file of a release :func:`dpcvx.tune` selected, that each curve of one candidate's
fit is a share of the selection (``"candidate_share": true``, :attr:`dpcvx.privacy.privacy_curve.PrivacyCurve.
candidate_share`): the certificate's ``privacy_curve`` (a multiclass file records none of the whole release: each
class's, ``per_class[i].certificate.privacy_curve``), and in the tuning record the selected release's
``certificate.release.privacy_curve`` (a multiclass release's ``per_class[i].privacy_curve`` too) and a full-data
selection's ``candidate_curves``. A version 19 file recorded them unmarked (the loaded certificate was marked by its
tuning record), so that ``PrivacyCurve.from_dict`` of the file's curve composed a share as a whole release (0.667 of
a release that spent 2). Its step marks them, makes each certificate's record of the changed tuning record again
(where it was the record of the file's one) and the digest of a file as dpcvx wrote it; a version 19 certificate
curve that holds the mark was not written by dpcvx, and is refused. A version 20 tuned file whose certificate's
curve (a class's) or tuning record's curve lacks the mark is refused as edited. Tested on tuned files of both
procedures the version 19 dpcvx wrote (``tests/release/fixtures/format19``) and through every step on the older
tuned fixtures.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from ...exceptions import InputError, UnprotectedFileWarning, user_stacklevel
from ...privacy.gradient_descent import GRADIENT_RANGED, LONG_STEPS
from ...privacy.privacy_curve import AFTER_DRAWS, EPSILON_DELTA, STATEMENT, DrawnPart, fit_after_draws_part
from ...privacy.rng import NoiseSource
from ..model import drawn_part, drawn_parts, drawn_records
from ..tuning_record import mark_candidate_records, record_tuning
from .fields import _integer
from .header import DIGEST, MODEL_FORMAT, MODEL_FORMAT_VERSION, check_digest, file_digest
from .kernel_release import DIMENSION_RECORD, records_dimension
from .release_certificate import PROBABILITY_RECORD, probability_record
from .row_map import MAP_RECORD, SCHEMA_RECORD, own_map_record, schema_record

__all__ = ["DIGEST_VERSION", "FIRST_READ_VERSION", "NOISE_RECORD", "format_version", "upgraded"]

NOISE_RECORD = "noise_source"  # a release certificate's record of where its noise came from (format version 19)

FIRST_READ_VERSION = 4  # the oldest format version this dpcvx reads (versions 1 to 3: development only)


def format_version(data: dict, where: str = "") -> int:
    """The ``format_version`` of a model record (a file, or a multiclass file's entry ``where``), a JSON integer:
    a list or an object, a flag or 6.0 is refused, naming the field, before it is looked up or compared."""
    return _integer(f"{where}format_version", data.get("format_version"))


def _entries_at(data: dict, version: int) -> list[dict]:
    """A multiclass file's per-class entries of format ``version`` (the others are refused by the reader)."""
    entries = data.get("per_class")
    return [entry for index, entry in enumerate(entries) if isinstance(entry, dict)
            and format_version(entry, f"per_class[{index}].") == version] if isinstance(entries, list) else []


def _bumped(data: dict, version: int) -> tuple[dict, list[dict]]:
    """A deep copy of the version ``version`` file ``data`` at version + 1, with a multiclass file's per-class entries
    of that version carrying it too: (the copy, those entries)."""
    upgraded_ = {**copy.deepcopy(data), "format_version": version + 1}
    entries = _entries_at(upgraded_, version)
    for entry in entries:
        entry["format_version"] = version + 1
    return upgraded_, entries


def _digest_made_again(data: dict, upgraded_: dict) -> None:
    """The digest of a file made again of the upgraded file, whose version the digest covers: :func:`upgraded` has
    refused a file whose digest is not the one of what it holds, as it is labelled; one without a digest keeps none,
    and is refused."""
    if DIGEST in data:
        upgraded_[DIGEST] = file_digest(upgraded_)


def _from_4(data: dict) -> dict:
    """Version 4 -> 5: ``tuning`` is null; a multiclass file's per-class entries carry version 5 too."""
    upgraded_, _ = _bumped(data, 4)
    upgraded_["tuning"] = None
    return upgraded_


def _from_5(data: dict) -> dict:
    """Version 5 -> 6: a kernel release's L is the double it recorded (``"exact"``: null)."""
    upgraded_, _ = _bumped(data, 5)
    certificate = upgraded_.get("certificate")
    constants = certificate.get("constants") if isinstance(certificate, dict) and upgraded_.get("kind") == "kernel" \
        else None
    if isinstance(constants, dict) and isinstance(constants.get("L"), dict):
        constants["L"] = {"value": constants["L"].get("value"), "exact": None,
                          "established": constants["L"].get("established")}
    return upgraded_


def _from_6(data: dict) -> dict:
    """Version 6 -> 7: a record with a feature map of its own records the map it holds (:func:`_record_map`); its
    label shift is 0 (no key: module docstring)."""
    upgraded_, _ = _bumped(data, 6)
    for record in [upgraded_, *_entries_at(upgraded_, 7)]:
        _record_map(record)
    return upgraded_


def _saved_map(record: dict) -> Any:
    """A record's ``preprocessing.row_map.feature_map`` as the file holds it, or None where a level is missing."""
    preprocessing = record.get("preprocessing")
    row_map = preprocessing.get("row_map") if isinstance(preprocessing, dict) else None
    return row_map.get("feature_map") if isinstance(row_map, dict) else None


def _record_map(record: dict) -> None:
    """A version 6 record in the linear layout with a feature map of its own (not its column statistics'): the
    certificate records the map the file holds (``certificate.feature_map``), which its writer fitted with."""
    certificate, saved = record.get("certificate"), _saved_map(record)
    if isinstance(certificate, dict) and "verification" in certificate and MAP_RECORD not in certificate:
        made = own_map_record(saved, certificate.get("column_statistics"))
        if made is not None:
            certificate[MAP_RECORD] = made


def _from_7(data: dict) -> dict:
    """Version 7 -> 8: a kernel release whose calibration states no input dimension records the one its predictor
    holds (module docstring)."""
    upgraded_, _ = _bumped(data, 7)
    certificate, predictor = upgraded_.get("certificate"), upgraded_.get("predictor")
    if (upgraded_.get("kind") == "kernel" and isinstance(certificate, dict) and isinstance(predictor, dict)
            and records_dimension(certificate.get("algorithm"), certificate.get("calibration"))
            and DIMENSION_RECORD not in certificate):
        certificate[DIMENSION_RECORD] = predictor.get("n_features")
    return upgraded_


def _from_8(data: dict) -> dict:
    """Version 8 -> 9: a record saved with a schema records the one the file holds (module docstring): a linear,
    regression or AdaSSP record its own ``preprocessing.schema``, a multiclass file's entries the file's ``schema``;
    a certificate of the logistic loss records its probabilities; the release certificates of a tuned model record
    the file's ``tuning``."""
    upgraded_, entries = _bumped(data, 8)
    multiclass, preprocessing = upgraded_.get("kind") == "multiclass", upgraded_.get("preprocessing")
    made = schema_record(upgraded_.get("schema") if multiclass else
                         preprocessing.get("schema") if isinstance(preprocessing, dict) else None)
    for record in entries if multiclass else [upgraded_]:
        certificate = record.get("certificate")
        if made is not None and isinstance(certificate, dict) and SCHEMA_RECORD not in certificate:
            certificate[SCHEMA_RECORD] = dict(made)
        if upgraded_.get("kind") != "kernel":  # a kernel certificate states its loss in its own layout
            _record_probabilities(certificate)
    record_tuning(upgraded_)
    return upgraded_


def _record_probabilities(certificate: Any) -> None:
    """A version 8 certificate in the linear layout of the logistic loss: it records the loss its probabilities come
    from (``certificate.probabilities``), what the file's loss text gave it."""
    verification = certificate.get("verification") if isinstance(certificate, dict) else None
    loss = verification.get("loss") if isinstance(verification, dict) else None
    made = probability_record(loss) if isinstance(loss, str) else None
    if made is not None and PROBABILITY_RECORD not in certificate:
        certificate[PROBABILITY_RECORD] = made


def _from_9(data: dict) -> dict:
    """Version 9 -> 10: the file records the digest of what it holds (module docstring); a multiclass file's
    per-class entries carry version 10 too (they hold no digest: the file's covers them; :func:`upgraded` refuses a
    file of version 9 or older that holds one)."""
    upgraded_, _ = _bumped(data, 9)
    upgraded_[DIGEST] = file_digest(upgraded_)
    return upgraded_


def _from_10(data: dict) -> dict:
    """Version 10 -> 11: a map of private column statistics records ``input_bound`` null, the raw rows its writer read
    (module docstring); the digest is made again of the new version (:func:`_digest_made_again`)."""
    upgraded_, _ = _bumped(data, 10)
    for record in [upgraded_, *_entries_at(upgraded_, 11)]:
        _raw_statistics_map(record)
    _digest_made_again(data, upgraded_)
    return upgraded_


def _raw_statistics_map(record: dict) -> None:
    """A version 10 record whose certificate holds ``column_statistics`` and whose row map holds a
    ``ColumnStandardiser``, the map those statistics give: ``input_bound`` null, what its writer did; a map that
    already holds the key is refused (no version 10 dpcvx wrote it)."""
    certificate, saved = record.get("certificate"), _saved_map(record)
    if not (isinstance(certificate, dict) and isinstance(certificate.get("column_statistics"), dict)
            and isinstance(saved, dict) and saved.get("type") == "ColumnStandardiser"):
        return
    if "input_bound" in saved:
        raise InputError("preprocessing.row_map.feature_map holds input_bound in a file of format version 10, which "
                         "no version 10 dpcvx wrote (format version 11 added it); the file has been edited")
    saved["input_bound"] = None


#: the keys of a gradient-ranged calibration's level, which format version 12 added (:func:`_from_11`)
_LEVEL_KEYS = ("level", "level_share", "level_sensitivity", "level_sigma", "level_grid")


def _from_11(data: dict) -> dict:
    """Version 11 -> 12: the version only (a version 11 gradient-ranged calibration released no level and took T =
    20); a calibration that records either is refused (:func:`_check_no_level`); the digest is made again of
    the new version (:func:`_digest_made_again`)."""
    _check_no_level(data)
    upgraded_, _ = _bumped(data, 11)
    _digest_made_again(data, upgraded_)
    return upgraded_


def _check_no_level(data: dict) -> None:
    """Refuse a version 11 gradient-ranged calibration that records the level or T = ``LONG_STEPS``: no version 11
    dpcvx wrote either (format version 12 added them)."""
    recorded = _gradient_calibration(data)
    if recorded is None:
        return
    held = [key for key in _LEVEL_KEYS if key in recorded]
    steps = recorded.get("steps")
    if held or (type(steps) is int and steps == LONG_STEPS):
        found = f"holds {', '.join(held)}" if held else f"records steps {LONG_STEPS}"
        raise InputError(f"certificate.calibration {found} in a file of format version 11, which no version 11 dpcvx "
                         f"wrote (format version 12 added the level and T = {LONG_STEPS}); the file has been edited")


def _gradient_calibration(data: dict) -> dict | None:
    """A file's gradient-ranged calibration record, or None (another mechanism, or no such object)."""
    certificate = data.get("certificate")
    recorded = certificate.get("calibration") if isinstance(certificate, dict) and certificate.get(
        "mechanism") == GRADIENT_RANGED else None
    return recorded if isinstance(recorded, dict) else None


def _from_12(data: dict) -> dict:
    """Version 12 -> 13: the curve's parts of the private draws before the fit named by what they drew
    (:func:`_named_draws`); the digest of a file that is as dpcvx wrote it is made again of the new version (of any
    other, kept: it is refused)."""
    return _each_certificate(data, 12, _named_draws)


def _each_certificate(data: dict, version: int, change: Callable[[Any], None]) -> dict:
    """The step from ``version`` that ``change`` s each certificate in place (the file's, and a multiclass file's
    per-class entries' of that version), then makes the digest of a file that is as dpcvx wrote it again."""
    upgraded_, entries = _bumped(data, version)
    for record in [upgraded_, *entries]:
        change(record.get("certificate"))
    _digest_made_again(data, upgraded_)
    return upgraded_


def _named_draws(certificate: Any) -> None:
    """A version 12 certificate's curve: each part of a private draw before the fit that carries the quantile's name,
    which that version gave every draw, named by the record of the draw (module docstring). A certificate whose
    records are not all of a draw (an edited one, refused by the loader) is left as it is."""
    if not isinstance(certificate, dict):
        return
    weights, curve = certificate.get("weights"), certificate.get("privacy_curve")
    records = drawn_records(certificate.get("private_bound"), certificate.get("private_label_bound"),
                            weights.get("private_count") if isinstance(weights, dict) else None,
                            certificate.get("column_statistics"))
    parts = curve.get("parts") if isinstance(curve, dict) else None
    if not isinstance(parts, list) or not all(isinstance(record, dict) and "epsilon" in record
                                              and drawn_part(record) is not None for record in records):
        return
    for part, (what, _) in zip(parts, drawn_parts(records), strict=False):  # the fit's part(s) after the draws'
        if isinstance(part, dict) and part.get("what") == DrawnPart.QUANTILE.value:
            part["what"] = what.value


def _from_13(data: dict) -> dict:
    """Version 13 -> 14: a multiclass file's ``column_statistics`` and ``fit_epsilon`` are null (no draw; a version
    13 file that holds either key was not written by dpcvx, and is refused by the reader as edited); the digest of a
    file that is as dpcvx wrote it is made again of the new version (of any other, kept: it is refused)."""
    upgraded_, _ = _bumped(data, 13)
    if upgraded_.get("kind") == "multiclass":
        for key in ("column_statistics", "fit_epsilon"):
            if key in upgraded_:
                raise InputError(f"{key} in a multiclass file of format version 13, which no version 13 dpcvx wrote "
                                 "(format version 14 added it); the file has been edited")
            upgraded_[key] = None
    _digest_made_again(data, upgraded_)
    return upgraded_


def _from_14(data: dict) -> dict:
    """Version 14 -> 15: the version only (a version 14 gradient-ranged calibration took plain steps); a calibration
    that records a momentum is refused; the digest of a file that is as dpcvx wrote it is made again of the new
    version (of any other, kept: it is refused)."""
    recorded = _gradient_calibration(data)
    if recorded is not None and "momentum" in recorded:
        raise InputError("certificate.calibration holds momentum in a file of format version 14, which no version 14 "
                         "dpcvx wrote (format version 15 added it); the file has been edited")
    upgraded_, _ = _bumped(data, 14)
    _digest_made_again(data, upgraded_)
    return upgraded_


def _from_15(data: dict) -> dict:
    """Version 15 -> 16: the version only (a version 15 kernel file held no column names); a kernel file that holds
    ``feature_names`` is refused; the digest of a file that is as dpcvx wrote it is made again of the new version (of
    any other, kept: it is refused)."""
    if data.get("kind") == "kernel" and "feature_names" in data:
        raise InputError("feature_names in a kernel file of format version 15, which no version 15 dpcvx wrote "
                         "(format version 16 added them); the file has been edited")
    return _each_certificate(data, 15, _gaussian_after_draws)


def _gaussian_after_draws(certificate: Any) -> None:
    """A version 15 certificate of the analytic Gaussian output perturbation after private draws: its fit's part, the
    (eps_fit, delta) pair that version recorded, as the Gaussian of multiplier z(eps_fit, delta) that covers the same
    release (module docstring). Any other certificate is left as it is (an edited one is refused by the reader)."""
    if not isinstance(certificate, dict):
        return
    calibration, curve = certificate.get("calibration"), certificate.get("privacy_curve")
    parts = curve.get("parts") if isinstance(curve, dict) else None
    if not (isinstance(calibration, dict) and calibration.get("mechanism") == "output"
            and calibration.get("noise") == "gaussian" and isinstance(parts, list) and len(parts) > 1):
        return
    fit = parts[-1]
    if (isinstance(fit, dict) and fit.get("kind") == EPSILON_DELTA and fit.get("what") == AFTER_DRAWS
            and type(fit.get("epsilon")) is float and type(fit.get("delta")) is float and fit["delta"] > 0):
        parts[-1] = fit_after_draws_part(fit["epsilon"], fit["delta"], gaussian=True).to_dict()


def _from_16(data: dict) -> dict:
    """Version 16 -> 17: the version only (a version 16 Gaussian objective perturbation was calibrated by the general
    profile, which a record without ``loss_slope`` states); the digest of a file that is as dpcvx wrote it is made
    again of the new version (of any other, kept: it is refused)."""
    upgraded_, _ = _bumped(data, 16)
    _digest_made_again(data, upgraded_)
    return upgraded_


def _from_17(data: dict) -> dict:
    """Version 17 -> 18: the pure part (epsilon, 0) of a pure calibration at a stated delta > 0 (module docstring);
    the digest of a file that is as dpcvx wrote it is made again of the new version (of any other, kept: refused)."""
    return _each_certificate(data, 17, _pure_part_at_delta)


def _pure_part_at_delta(certificate: Any) -> None:
    """A version 17 certificate of a pure calibration (a ``beta``, no noise named) at a stated delta > 0 whose curve
    is the one part (epsilon, delta) of its statement: that part's delta is 0, the curve of the mechanism that ran
    (:meth:`dpcvx.privacy.calibration.LinearCalibration.privacy_curve`). Any other certificate is left as it is (an
    edited one is refused by the reader)."""
    if not isinstance(certificate, dict):
        return
    calibration, curve = certificate.get("calibration"), certificate.get("privacy_curve")
    parts = curve.get("parts") if isinstance(curve, dict) else None
    if not (isinstance(calibration, dict) and "beta" in calibration and "noise" not in calibration
            and isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict)):
        return
    (part,) = parts
    delta = certificate.get("delta")
    if (part.get("kind") == EPSILON_DELTA and part.get("what") == STATEMENT and type(delta) is float and delta > 0
            and part.get("delta") == delta and part.get("epsilon") == certificate.get("epsilon")):
        part["delta"] = 0.0


def _from_18(data: dict) -> dict:
    """Version 18 -> 19: each release certificate records its noise source "not-recorded" (:func:`_noise_not_recorded`,
    module docstring); the digest of a file that is as dpcvx wrote it is made again of the new version (of any
    other, kept: refused)."""
    return _each_certificate(data, 18, _noise_not_recorded)


def _noise_not_recorded(certificate: Any) -> None:
    """A version 18 release certificate: its noise source is not recorded (no version 18 dpcvx recorded it); one that
    already holds ``noise_source`` is refused as edited. Anything else (no certificate object: refused by the
    reader) is left as it is."""
    if not isinstance(certificate, dict):
        return
    if NOISE_RECORD in certificate:
        raise InputError(f"certificate.{NOISE_RECORD} in a file of format version 18, which no version 18 dpcvx "
                         "wrote (format version 19 added it); the file has been edited")
    certificate[NOISE_RECORD] = NoiseSource.NOT_RECORDED.value


def _from_19(data: dict) -> dict:
    """Version 19 -> 20: a tuned file's curves of one candidate record the mark
    (:func:`~dpcvx.release.tuning_record.mark_candidate_records`, module docstring), and the certificates' records of
    its tuning record are made again; the digest of a file that is as dpcvx wrote it is made again of the new
    version (of any other, kept: refused)."""
    upgraded_, _ = _bumped(data, 19)
    mark_candidate_records(upgraded_)
    _digest_made_again(data, upgraded_)
    return upgraded_


_STEPS = {4: _from_4, 5: _from_5, 6: _from_6, 7: _from_7, 8: _from_8, 9: _from_9, 10: _from_10, 11: _from_11,
          12: _from_12, 13: _from_13, 14: _from_14, 15: _from_15, 16: _from_16,
          17: _from_17, 18: _from_18, 19: _from_19}
assert set(_STEPS) == set(range(FIRST_READ_VERSION, MODEL_FORMAT_VERSION))


#: the first format version whose files carry the digest of what they hold (:func:`_from_9`)
DIGEST_VERSION = 10


def upgraded(data: Any) -> Any:
    """``data`` read as the current format version: each step in turn from its version; anything else as it is
    (a model record whose ``format_version`` is not an integer is refused). A file from before the digest is read
    with an :class:`~dpcvx.exceptions.UnprotectedFileWarning`: nothing tells a file of that version from a current
    one relabelled, its digest deleted, whose edits of the classes' order, a loss text or a decision cut then load.
    An older file that holds a digest is refused before any step unless the digest is the one of what it holds, as
    it is labelled (:func:`~.header.check_digest`): an older file holding one that is not (before the digest's
    version, any) is a later file relabelled, or edited."""
    if isinstance(data, dict) and data.get("format") == MODEL_FORMAT and format_version(data) < DIGEST_VERSION \
            and format_version(data) in _STEPS:
        if DIGEST in data:
            raise InputError(f"{DIGEST} in a file of format version {data['format_version']}, which no dpcvx of that "
                             f"version wrote (format version {DIGEST_VERSION} added it): a later file relabelled; the "
                             "file has been edited")
        warnings.warn(f"this model file is of format version {data['format_version']}, written before model files "
                      f"carried a digest (format version {DIGEST_VERSION}): an edit of a field no check compares with "
                      "another copy (the order of the classes, feature names, a decision cut, a loss text) cannot be "
                      "detected in it, and a current file relabelled as this version without its digest reads the "
                      "same. Load only a file whose origin you trust; dpcvx.save writes it again bound by a digest",
                      UnprotectedFileWarning, stacklevel=user_stacklevel())
    if isinstance(data, dict) and data.get("format") == MODEL_FORMAT and format_version(data) in _STEPS \
            and DIGEST in data:
        check_digest(data)  # as it is labelled: a later file relabelled, digest kept, is an edited file
    while isinstance(data, dict) and data.get("format") == MODEL_FORMAT and format_version(data) in _STEPS:
        data = _STEPS[data["format_version"]](data)
    return data
