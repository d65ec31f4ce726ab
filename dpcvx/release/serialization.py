"""Saved models: a release (:class:`~dpcvx.release.model.PrivateModel` or
:class:`~dpcvx.release.kernel_model.PrivateKernelModel`) as a JSON file, and back.

Both kinds share one format (``"format": "dpcvx-model"``, ``"format_version"``: :data:`MODEL_FORMAT_VERSION`)
with a ``"kind"`` field: ``"linear"`` (described below) or ``"kernel"`` (the
predictor's kernel and public centres, the privatised coefficients and the
:class:`~dpcvx.release.kernel_model.KernelReleaseCertificate`; see
:func:`dpcvx.release.records.kernel_release.kernel_release_to_dict`). Loading a kernel file
re-derives every public constant (R_phi from the kernel, C, s, gamma) and the
calibration from the stored public inputs and refuses a mismatch.
Files of an earlier format version (written by development commits before the first release) are
refused with the reason; ``docs/model-files.md`` states the compatibility policy from version 4 on.

:func:`save` writes the privatised weights, the public preprocessing (an
optional :class:`~dpcvx.data.preprocessing.PublicSchema` and the per-record
:class:`~dpcvx.data.rows.RowMap`: norm bound, intercept feature, feature map), the
release certificate (conditions, constants, neighbour relation, mechanism,
epsilon, calibration) and the library and format versions. The file carries
only what the privacy proof covers: public inputs, quantities computed from
them, and the outputs of the mechanisms. The fit's output sits under the
``"privatised"`` key; the outputs of the private draws made before it (a private
bound, class count or column statistics) sit in the certificate's records and the
row map they give, with what is computed from them (the class weights, lam, the
calibration at the drawn bound), each released by its own mechanism and charged.
No solver statistic (iterations,
time, status, residual) is written: those are measured on the private data
and no proof covers them. :func:`load` restores a model whose predictions
are identical bit for bit (JSON writes every float with the shortest text
that reads back exactly).

A model file is not trusted. Loading executes nothing (the file is parsed by
``json`` through :func:`dpcvx.data.files.read_json`, which refuses NaN, infinities,
repeated keys, huge integers and deep nesting), checks every field's type and
range (unknown, missing or duplicated keys are refused), recomputes the
calibration from the stated epsilon, n, lambda, R and constants with the
library's own formulas (:func:`dpcvx.release.records.calibration_record.read_linear`) and refuses a file
whose recorded calibration disagrees, naming the field. Last, it refuses a file whose content is not the one its
``"sha256"`` digest was written of (:func:`dpcvx.release.records.header.file_digest`): an edit after writing, also
of a field of which the file holds no other copy (the order of ``classes``, a kernel release's centres, a constant's
exact text), or corruption; not forgery, as whoever edits a file can compute the digest again. Every refusal is a
:class:`~dpcvx.exceptions.FileError` (an
:class:`~dpcvx.exceptions.InputError`). A feature map is rebuilt through a
registry keyed by the ``"type"`` name in the file, never by importing a path
the file names. The loaded certificate is data: :meth:`to_dict` returns
exactly what was saved; it is what the writing library certified, checked
for consistency, not a new proof.

Files are written by :func:`dpcvx.data.files.atomic_write`: the old file stays
intact unless the new one is complete. :func:`save` never replaces an existing
file unless called with ``overwrite=True``: a released model's file holds a
release whose privacy budget was spent, which no refit gives back.

Linear file format (``"format": "dpcvx-model"``, ``"format_version"``: :data:`MODEL_FORMAT_VERSION`)::

    {
      "format": "dpcvx-model",
      "format_version": 18,
      "kind": "linear",
      "library_version": "0.1.0",
      "mechanism": "objective",               # or "output"
      "epsilon": 0.1,
      "delta": 0.0,
      "classes": [-1, 1],                     # public (negative, positive) labels
      "privatised": {                         # the fit's output (the draws before it: their own records)
        "coef": [0.12, ...],                  # weights on the mapped features
        "intercept": 0.0
      },
      "preprocessing": {
        "schema": null,                       # or a PublicSchema.to_dict() object
        "row_map": {"norm_bound": 1.0, "fit_intercept": false,
                    "intercept_scaling": 1.0, "feature_map": null}
      },
      "certificate": { ... },                 # ReleaseCertificate.to_dict(); with a schema, its record
                                              # "schema": {"sha256": ...} (records.row_map.schema_record); with
                                              # a tuning record, its "tuning": {"sha256": ...} (tuning_digest);
                                              # of the logistic loss, "probabilities" (probability_record)
      "tuning": null,                         # or, for a model dpcvx.tune selected, its TuningRecord: the
                                              # tuning certificate's text and record, total_epsilon, total_delta
      "feature_names": ["age", ...],          # only for an estimator fitted on a DataFrame: its column names,
                                              # which the loaded model checks as the estimator does
      "decision_cut": -0.847,                 # only when not 0: the cut c of a binary classifier's predict
                                              # (classes[1] where w^T x + b > c), its estimator's threshold;
                                              # a multiclass file's k cuts t (the class of the largest
                                              # s_c - t_c), written when one is not 0
      "sha256": "5f0c0d3c..."                 # every kind: the SHA-256 digest of the rest of the file
                                              # (records.header.file_digest), checked last by load
    }

A file of format version 4 to 12 is read through :mod:`dpcvx.release.records.upgrade`, one step a version
(``tuning`` null; a kernel L's exact text null; a linear release's own feature map recorded; no label shift; a TDIL
net's input dimension recorded; the schema, the tuning record and a logistic loss's probabilities recorded; the
digest of what the file holds recorded; a statistics map's ``input_bound`` null; from version 11, the version only:
a gradient-ranged calibration of version 12 may record the level and T = 60, one of version 11 neither; from version
12, the curve's parts of private draws before the fit named by what they drew, each of which version 12 named
"private bound (exponential-mechanism quantile)").

A file of an earlier format version is refused with an explanation: refit and save again.

An unbounded constant (one the mechanism did not need) is written as
``{"exact": "oo", "float": null}``; the file is standard JSON (no ``Infinity``
or ``NaN``).
"""


from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..advice import a_few
from ..data.files import (
    MAX_JSON_DEPTH,
    atomic_write,
    check_writable,
    file_path,
    json_depth,
    json_object,
    read_json,
    unpaired_surrogate,
)
from ..data.preprocessing import PublicSchema, schema_step_route
from ..exceptions import FileError, InputError, NonPublicSchemaError, not_fitted_error
from ..tables import repeated_names
from ..validation import _short
from ..version import __version__
from .encodable import warn_if_encodable_constant
from .kernel_model import CURATOR, NO_SCHEMA, PrivateKernelModel
from .model import LinearModel, PrivateModel, Release
from .multiclass_model import PrivateMulticlassModel
from .records.fields import _number
from .records.header import DIGEST, KINDS, MODEL_FORMAT, MODEL_FORMAT_VERSION, check_digest, file_digest
from .records.kernel_release import kernel_release_from_dict, kernel_release_to_dict
from .records.linear_release import _MODEL_KEYS, linear_from_dict, linear_to_dict
from .records.multiclass_release import multiclass_from_dict, multiclass_to_dict
from .records.regression_release import regression_from_dict, regression_to_dict
from .records.release_certificate import SavedReleaseCertificate
from .records.row_map import _FEATURE_MAPS as _FEATURE_MAPS  # the registry of feature maps, re-exported
from .records.row_map import register_feature_map
from .records.upgrade import FIRST_READ_VERSION, format_version, upgraded
from .regression_model import PrivateRegressionModel
from .tuning_record import (
    TuningRecord,
    check_candidate_mark,
    check_tuning_records,
    nested_shares,
    record_tuning,
    set_aside_candidate_mark,
    set_aside_tuning_records,
)

FEATURE_NAMES = "feature_names"  # the optional top-level key of the estimator's column names
DECISION_CUT = "decision_cut"  # the optional top-level key of a classifier's decision cut(s) (not all 0)

__all__ = ["save", "write_model", "load", "model_to_dict", "model_from_dict", "register_feature_map",
           "SavedReleaseCertificate", "MODEL_FORMAT", "MODEL_FORMAT_VERSION", "refuse_non_public_schema"]


def model_to_dict(model: Release, schema: PublicSchema | None = None, *, feature_names: Any = None,
                  decision_cut: Any = None) -> dict:
    """The JSON-ready form of a release (see the module docstring): written by its kind's writer.

    A schema with a column read off the data is refused (:func:`refuse_non_public_schema`). ``feature_names``, the
    column names of the DataFrame a dpcvx estimator was fitted on (its ``feature_names_in_``; by default the
    release's own, a loaded model's), are written as ``"feature_names"`` when there are any: the loaded model
    refuses a table whose columns differ in names or order, as the estimator does. ``decision_cut``, the cut of a
    dpcvx classifier's public ``threshold`` (its ``decision_cut_``; by default the release's own
    :attr:`~dpcvx.release.model.LinearModel.decision_cut`), is written as ``"decision_cut"`` when it is not 0: the
    loaded model predicts at it, as the estimator does; a multiclass release's k cuts (one-vs-rest's
    ``threshold="prior"``: its ``decision_cut_``) as a list. Files of the default threshold 0.5 stay as they were.
    Last, ``"sha256"`` holds the digest of all the rest (:func:`dpcvx.release.records.header.file_digest`), which
    :func:`model_from_dict` checks: a field edited after writing is refused, also one that has no other copy.
    """
    if isinstance(schema, PublicSchema):  # anything else is refused by the kind's writer
        refuse_non_public_schema(schema)
    kind = next((_BY_CLASS[cls] for cls in type(model).__mro__ if cls in _BY_CLASS), None)
    if kind is None:
        if isinstance(getattr(model, "release", None), Release):  # dpcvx.tune's result: it holds its selected model
            raise InputError(f"got {type(model).__name__}, the result of dpcvx.tune: save its selected model, "
                             "dpcvx.save(result.model, path) (the file keeps the tuning record and its total cost)")
        raise InputError(f"only private releases can be saved, got {_not_a_release(model)}")
    tuning = model.tuning
    data = {**kind.write(model, schema), "tuning": None if tuning is None else tuning.to_dict()}
    record_tuning(data)  # the selected release's certificate records the tuning record (tuning_record.py)
    names = model.feature_names_in_ if feature_names is None else feature_names
    if names is not None:  # written only when the estimator had them: files without names stay as they were
        data[FEATURE_NAMES] = _feature_names(list(names), model)
    cut = getattr(model, "decision_cut", None) if decision_cut is None else decision_cut
    if cut is not None and np.any(np.asarray(cut) != 0):  # written when not 0: a file of threshold 0.5 is as it was
        data[DECISION_CUT] = _decision_cut(cut, model)
    try:  # last: the digest of everything above (records/header.py), which load checks
        data[DIGEST] = file_digest(data)
    except InputError as error:
        raise InputError(f"the model cannot be saved: {error} (the previous file, if any, is unchanged)") from None
    return data


def _not_a_release(model: Any) -> str:
    """What :func:`model_to_dict` was given instead of a release, and what to save, for its refusal: a class, a
    non-private model, a scikit-learn object (not private), random Fourier features (a public map: the learner
    holding it is saved), a dpcvx learner whose ``fit`` returns its release (PrivateERM), else the type's name."""
    name = type(model).__name__
    route = "; save a fitted dpcvx estimator, dpcvx.save(estimator, path), or a release from PrivateERM.fit"
    if isinstance(model, type):
        return f"the class {model.__name__}, not a fitted object{route}"
    if isinstance(model, LinearModel):
        return f"a non-private LinearModel (fit_nonprivate){route}"
    package = type(model).__module__.partition(".")[0]
    if package == "sklearn":
        return f"{name}, a scikit-learn object: it is not private{route}"
    if isinstance(model, PublicSchema):
        return (f"{name}, the public columns of a table, not a release: save it with the model fitted on its rows, "
                "dpcvx.save(model, path, schema=schema), or save the fitted pipeline make_pipeline(schema, estimator)")
    if package == "dpcvx" and callable(getattr(model, "fit", None)):
        from ..data.kernels import FEATURE_MAP_ROUTE, RandomFourierFeatures  # scipy's distances load late

        if isinstance(model, RandomFourierFeatures):
            return f"{name}, a public feature map, not a release. {FEATURE_MAP_ROUTE}"
        return f"{name}, whose fit returns its release: save that, dpcvx.save(learner.fit(X, y, ...), path)"
    return f"{name}{route}"


def _holds_its_release(saved: Any) -> bool:
    """Whether ``saved`` is a dpcvx learner whose ``fit`` keeps its release as ``model_``: a dpcvx.sklearn
    estimator or a kernel learner (their modules are loaded when one exists: none is imported here)."""
    import sys

    bases = [getattr(sys.modules.get(module), name, None) for module, name in (
        ("dpcvx.sklearn.estimator_plan", "PlansFirst"), ("dpcvx.models.kernel_learner", "PrivateKernelLearner"))]
    return any(isinstance(base, type) and isinstance(saved, base) for base in bases)


def _decision_cut(cut: Any, release: Release) -> float | list[float]:
    """The ``"decision_cut"`` of a release: a finite number, of a binary linear classifier (the one release whose
    predict cuts one decision value at 0 unless told otherwise), or a list of k finite numbers, of a multiclass
    release (the cuts t of its predict, the class of the largest s_c - t_c); refused otherwise, naming the field."""
    if isinstance(release, PrivateMulticlassModel):
        cuts = cut.tolist() if isinstance(cut, np.ndarray) else cut
        if not isinstance(cuts, list) or len(cuts) != len(release.classes_):
            raise InputError(f"{DECISION_CUT} of a multiclass release must be a list of {len(release.classes_)} "
                             f"numbers, one cut per class, got {_short(cuts)}")
        return [_number(f"{DECISION_CUT}[{index}]", value) for index, value in enumerate(cuts)]
    number = _number(DECISION_CUT, cut)
    if not isinstance(release, PrivateModel):
        raise InputError(f"a {release.kind} release takes no {DECISION_CUT}: it is the cut of a binary "
                         "classifier's decision value (its threshold), and this model predicts without one")
    return number


def _feature_names(names: Any, release: Release) -> list[str]:
    """The ``"feature_names"`` of a release: distinct texts, one per input column where the release's width says
    how many (no feature map; a kernel release's input width); refused otherwise, naming the field."""
    if (not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names)
            or repeated_names(names)):
        raise InputError(f"{FEATURE_NAMES} must be a non-empty list of distinct column names (strings), got "
                         f"{_short(names)}")
    width: int | None
    if isinstance(release, PrivateKernelModel):
        width = release.predictor.n_features
    else:
        assert isinstance(release, (PrivateModel, PrivateMulticlassModel, PrivateRegressionModel))  # every other kind
        width = None if release.rows.feature_map is not None else np.shape(release.coef_)[-1]
    if width is not None and len(names) != width:
        raise InputError(f"{FEATURE_NAMES} names {len(names)} columns but the model takes {width}")
    return names


def refuse_non_public_schema(schema: PublicSchema) -> None:
    """Raise :class:`~dpcvx.exceptions.NonPublicSchemaError` if a column's bounds or categories were
    read off the data (:attr:`PublicSchema.read_off_data`, a loader's ``mode="paper"``).

    A release holds only public inputs and the privatised output (docs/theory.md, section 30):
    such a schema would publish column minima and maxima and the set of categories present,
    statistics of the data that no privacy proof covers. It is refused, never stripped
    silently; the error names the columns, never their values.
    """
    names = schema.read_off_data
    if names:
        shown = a_few([repr(name) for name in names])
        raise NonPublicSchemaError(
            f"the schema's column(s) {shown} were read off the data (mode='paper' or paper_schema: a minimum, "
            "maximum or the categories present), which a release must not hold. Declare public bounds, "
            "for example NumericColumn('age', 17, 90, source='the documented domain') and "
            "CategoricalColumn('sex', ('Female', 'Male')), or use the loader's default mode='private' "
            "(its schema is public), and pass that schema to save(model, path, schema=...)")


def _release_and_schema(saved: Any, schema: PublicSchema | None) -> tuple[Any, PublicSchema | None, Any, Any]:
    """(the release, the schema, the column names, the decision cut) of what :func:`save` was given: a release, a
    fitted estimator (its ``feature_names_in_`` and a binary classifier's ``decision_cut_``, the cut of its
    ``threshold``; else None), or a pipeline of a PublicSchema and a fitted estimator (duck-typed: ``steps`` and
    ``model_``; scikit-learn is optional)."""
    if isinstance(saved, Release):
        return saved, schema, None, None
    steps = getattr(saved, "steps", None)
    if isinstance(steps, list):
        kinds = [type(step).__name__ for _, step in steps]
        if len(steps) != 2 or not isinstance(steps[0][1], PublicSchema):
            from ..data.kernels import feature_map_route  # the refusal's route only: scipy's distances load late

            raise InputError(f"a pipeline is saved when its steps are a PublicSchema and a fitted dpcvx estimator, "
                             f"in that order; this one's steps are {kinds}. Other steps are not part of a model "
                             "file, so a loaded model could not predict what the pipeline predicts"
                             f"{schema_step_route(steps)}{feature_map_route(steps)}")
        if schema is not None and schema != steps[0][1]:
            raise InputError("schema= differs from the pipeline's PublicSchema; leave schema= out: the pipeline's "
                             "own is saved")
        schema, saved = steps[0][1], steps[1][1]
    if callable(getattr(saved, "release", None)) and getattr(saved, "parameters_", None) is not None:
        # a fitted curator (PINP), whose release() makes its release: a model_ it holds may predate later queries
        raise InputError(f"{CURATOR}, not one release: save its transcript so far, dpcvx.save(curator.release(), "
                         "path) (release() spends nothing; fitting again would spend the budget again)")
    release = getattr(saved, "model_", None)
    if isinstance(release, Release):
        return release, schema, getattr(saved, "feature_names_in_", None), getattr(saved, "decision_cut_", None)
    if _holds_its_release(saved):
        raise not_fitted_error(f"{type(saved).__name__} is not fitted: dpcvx.save writes a release, which fit makes; "
                               "fit it first")
    return saved, schema, None, None  # not a release: refused by model_to_dict, naming what it got


def _kernel_to_dict(model: PrivateKernelModel, schema: PublicSchema | None) -> dict:
    if schema is not None:
        raise InputError(NO_SCHEMA)
    return kernel_release_to_dict(model, {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
                                          "kind": "kernel"})


def save(model: Any, path: str | Path, *, schema: PublicSchema | None = None, overwrite: bool = False) -> Path:
    """Write a release (linear, multiclass, regression or kernel) to ``path`` as JSON; return the path.

    An existing file at ``path`` is kept and refused with an
    :class:`~dpcvx.exceptions.OverwriteError` (a FileExistsError) before anything is written, unless
    ``overwrite=True``, which replaces it atomically; a file that appears while the model is written is
    not replaced either (:func:`~dpcvx.data.files.atomic_write`).

    ``model`` is a release, a fitted dpcvx estimator (its release ``model_`` is written), or a
    scikit-learn ``Pipeline`` of two steps, a :class:`~dpcvx.data.preprocessing.PublicSchema` and a
    fitted dpcvx estimator: the schema is saved with the release, and the loaded model's ``schema``
    encodes tables as the pipeline did (``loaded.predict(loaded.schema.transform(table))`` is the
    pipeline's ``predict(table)``, ``predict_proba`` included). A pipeline with other steps is
    refused: they are not part of a model file, so a loaded model could not predict what it predicts.
    A binary classifier's public ``threshold`` is saved as its decision cut (``decision_cut_``; the key
    ``"decision_cut"``, written when the threshold is not 0.5): the loaded model's ``predict`` (its
    :attr:`~dpcvx.release.model.LinearModel.decision_cut`) says what the estimator's said.

    ``schema`` is the public encoder from table records to the model's input
    rows, if one was used (the command line always saves one). A model read
    by :func:`load` keeps its schema, so it can be saved again unchanged.

    A schema that is not public is refused with
    :class:`~dpcvx.exceptions.NonPublicSchemaError` before anything is written:
    one with a column whose bounds or categories were read off the data
    (``load_adult(mode="paper").schema``, :func:`~dpcvx.data.preprocessing.paper_schema`;
    the column's ``source`` says "NOT private"). The error names the columns; declare
    public bounds for them (``NumericColumn(name, lo, hi, source=...)``) or use the
    loader's default ``mode="private"``. It is refused rather than dropped: a release
    file without its encoder would predict on rows nobody can reproduce.

    A linear classifier saved with a schema that predicts one class on every record the schema can encode (at its
    decision cut) is written, with a :class:`~dpcvx.exceptions.ConstantPredictionWarning` saying so
    (:func:`~dpcvx.release.encodable.warn_if_encodable_constant`: a public check of the schema, the row map and
    the released weights), unless the fit said so already from the ball ||x|| <= R: a pipeline's estimator fits
    the schema's rows without the schema, so its fit could not.
    """
    return write_model(model, check_writable(path, "model", overwrite=overwrite), schema=schema, overwrite=overwrite,
                       warn=True)


def write_model(model: Any, path: Path, *, schema: PublicSchema | None = None, overwrite: bool = False,
                option: str = "overwrite=True", warn: bool = False) -> Path:
    """:func:`save` to a ``path`` its caller checked (:func:`~dpcvx.data.files.check_writable`, once, at its entry:
    the command line before the fit); without ``overwrite`` a file that appeared since is not replaced (the error
    names ``option``, the caller's way to allow it). ``warn``: :func:`save`'s warning of a classifier constant on
    its schema, written (the command line gives its own, with its fit's advice)."""
    model, schema, names, cut = _release_and_schema(model, schema)
    if schema is None:
        schema = getattr(model, "schema", None)
    data = model_to_dict(model, schema, feature_names=names, decision_cut=cut)
    if unpaired_surrogate(data) is not None:  # the loader refuses it: nothing is written that cannot be read back
        raise InputError("the model cannot be saved: a text it holds (a class, a column or a category name) is not "
                         "valid Unicode (a lone surrogate: a byte that is not UTF-8, read by Python's "
                         "surrogateescape); name it in UTF-8 (the previous file, if any, is unchanged)")

    def write(handle: IO[str]) -> None:
        try:
            json.dump(data, handle, indent=2, allow_nan=False)
        except (TypeError, ValueError) as error:  # a NaN, or an object JSON cannot hold
            raise InputError(f"the model cannot be saved: {error}; only finite numbers, strings and "
                             f"lists can be written (the previous file, if any, is unchanged)") from None
        handle.write("\n")

    written = atomic_write(path, write, what="model", overwrite=overwrite, option=option)
    if warn and isinstance(model, (PrivateModel, PrivateMulticlassModel)):
        warn_if_encodable_constant("dpcvx.save", model, schema,
                                   getattr(model, "decision_cut", 0.0) if cut is None else cut)
    return written


# --- reading -----------------------------------------------------------------------------


def model_from_dict(data: Any) -> Release:
    """Rebuild a release from :func:`model_to_dict` output (validated; runs no code).

    A linear model has a ``schema`` attribute: the saved
    :class:`~dpcvx.data.preprocessing.PublicSchema`, or None. A kernel release
    (``"kind": "kernel"``) is checked by :func:`dpcvx.release.records.kernel_release.kernel_release_from_dict`.
    """
    if json_depth(data) > MAX_JSON_DEPTH:  # load() has checked this already; direct callers have not
        raise InputError(f"the model data nest more than {MAX_JSON_DEPTH} levels deep; it is not a dpcvx model")
    # the version as written, before the steps: it decides which former texts the file may hold (the steps relabel it)
    written = format_version(data) if isinstance(data, dict) and data.get("format") == MODEL_FORMAT \
        and isinstance(data.get("format_version"), int) else MODEL_FORMAT_VERSION
    data = upgraded(data)  # an older format version, one step per version (records/upgrade.py)
    if not (isinstance(data, dict) and data.get("format") == MODEL_FORMAT
            and data.get("format_version") == MODEL_FORMAT_VERSION):
        return _release_from_dict(data)  # refused there, naming what is wrong
    if "tuning" not in data:
        raise InputError("the model file lacks keys ['tuning'] (null when the model was not selected by "
                         "dpcvx.tune); the file has been edited")
    unmarked, marked = set_aside_candidate_mark(data)  # the curve's mark is checked against the tuning record last
    release_data, records = set_aside_tuning_records(unmarked)
    release = _release_from_dict({key: value for key, value in release_data.items()
                                  if key not in ("tuning", FEATURE_NAMES, DECISION_CUT, DIGEST)}, written=written)
    if data["tuning"] is not None:  # its own checks first, then its record in the certificate
        TuningRecord.from_dict(data["tuning"], release.epsilon, release.delta,
                               nested_shares(getattr(release, "certificate", None))).attach(release)
    check_tuning_records(data["tuning"], records)
    check_candidate_mark(data["tuning"], marked)
    if FEATURE_NAMES in data:  # optional: written when the saved estimator was fitted on named columns
        release.feature_names_in_ = np.asarray(_feature_names(data[FEATURE_NAMES], release), dtype=object)
    if DECISION_CUT in data:  # optional: written when the saved classifier's threshold was not 0.5
        cut = _decision_cut(data[DECISION_CUT], release)
        if isinstance(cut, list):  # a multiclass release's k cuts
            assert isinstance(release, PrivateMulticlassModel)
            release.decision_cut = np.array(cut)
        else:
            assert isinstance(release, PrivateModel)  # _decision_cut refuses every other release
            release.decision_cut = cut
    check_digest(data)  # last: every check of a field has its own refusal, which names the field
    return release


def _release_from_dict(data: Any, against_rest: Any = None, written: int = MODEL_FORMAT_VERSION) -> Release:
    """A release without the top-level ``tuning`` field (a whole file's, or a multiclass file's per-class entry, whose
    class fitted against the rest is ``against_rest``: :func:`~.records.linear_release.linear_from_dict`), of a file
    of format version ``written`` as written (before its upgrade steps), which decides the former texts its
    certificates may hold."""
    if isinstance(data, dict) and data.get("format") == MODEL_FORMAT and format_version(data) in range(
            1, FIRST_READ_VERSION):
        raise InputError(f"format_version {data['format_version']} was written by a development version of dpcvx "
                         "before its first release, and this dpcvx does not read it (docs/model-files.md, "
                         "compatibility). Refit the model and save it with this version of dpcvx "
                         f"(format_version {MODEL_FORMAT_VERSION})")
    if isinstance(data, dict) and data.get("format") == MODEL_FORMAT and format_version(data) > MODEL_FORMAT_VERSION:
        raise InputError(f"format_version {data['format_version']} was written by a newer dpcvx than this one "
                         f"(dpcvx {__version__} reads format versions up to {MODEL_FORMAT_VERSION}): upgrade dpcvx to "
                         "load it (docs/model-files.md, compatibility)")
    if isinstance(data, dict) and "solve" in data:
        raise InputError("solve holds solver statistics measured on the private data; no privacy proof "
                         "covers them, so a dpcvx model file never carries them. Refit and save with this "
                         "version of dpcvx")
    if not isinstance(data, dict):
        json_object("the model file", data, _MODEL_KEYS)  # refuses: not a JSON object
    if data.get("format") != MODEL_FORMAT or data.get("format_version") != MODEL_FORMAT_VERSION:
        got = (data.get("format"), data.get("format_version"))
        raise InputError(
            f'not a dpcvx model file: need "format": "{MODEL_FORMAT}" and "format_version": '
            f"{MODEL_FORMAT_VERSION}, got {_short(got)}"
        )
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _BY_NAME:
        raise InputError(f'"kind" must be one of {list(KINDS)}, got {_short(kind)}')
    if against_rest is not None and kind == "linear":
        return linear_from_dict(data, against_rest, written)
    return _BY_NAME[kind].read(data, written=written)


@dataclass(frozen=True)
class ReleaseKind:
    """One kind of model file: the release class it holds, its writer and its reader."""

    name: str
    release: type
    write: Callable[[Any, PublicSchema | None], dict]
    read: Callable[..., Release]  # (the record, written=its file's format version as written)


RELEASE_KINDS = (
    ReleaseKind("linear", PrivateModel, linear_to_dict, linear_from_dict),
    # a kernel file holds no former text
    ReleaseKind("kernel", PrivateKernelModel, _kernel_to_dict, lambda data, written: kernel_release_from_dict(data)),
    ReleaseKind("multiclass", PrivateMulticlassModel, multiclass_to_dict,
                partial(multiclass_from_dict, read_entry=_release_from_dict)),
    ReleaseKind("regression", PrivateRegressionModel, regression_to_dict, regression_from_dict),
)
_BY_NAME = {kind.name: kind for kind in RELEASE_KINDS}
_BY_CLASS = {kind.release: kind for kind in RELEASE_KINDS}
assert tuple(_BY_NAME) == KINDS


def load(path: str | Path) -> Release:
    """Read a release written by :func:`save`; predictions are identical to the saved model's.

    Nothing in the file is executed: it is parsed as JSON and validated. The
    returned model has a ``schema`` attribute (the saved public encoder, or None).
    """
    path = file_path(path, "model file")
    data = read_json(path, "model file")
    try:
        return model_from_dict(data)
    except InputError as error:  # a FileError too
        raise FileError(f"model file {path}: {error}") from None
