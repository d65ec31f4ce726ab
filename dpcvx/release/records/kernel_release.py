"""The record of a kernel release (kind ``"kernel"``): the predictor, the privatised values and the certificate,
every public constant and the calibration re-derived on reading.

The privatised values sit under ``"privatised"``: the coefficients always, the centres when a mechanism chose
them (PINP's updating queries, TDIL's selected points) and the algorithm's privatised outputs (TDIL's rounds used,
PINP's answers). :func:`kernel_release_from_dict` rebuilds the typed certificate a fit holds: the
:class:`~dpcvx.privacy.kernel_calibrate.KernelConstants` from the recorded n, lam, L (exact: its text beside its
double since format version 6), l(0), inf l and the
kernel's own feature bound, and the :class:`~dpcvx.privacy.kernel_calibrate.KernelCalibration` from the recorded
public inputs (:func:`~.calibration.read_kernel`); a recorded number that is not the re-derived one is refused,
naming the field. The budget and Lam are refused outside the ranges every kernel fit checks them in.

Since format version 8 the certificate of a release whose calibration states no input dimension (TDIL searching a
net) records it (``"n_features"``, :func:`records_dimension`): without it, a release that selected no
centre would hold its dimension in ``predictor.n_features`` alone, and an edit of it would load a model that takes
rows of another width.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from ...data.files import json_object
from ...data.kernels import Kernel, kernel_from_dict
from ...exceptions import InputError
from ...privacy.kernel_calibrate import KERNEL_ALGORITHMS, KernelConstants
from ...privacy.privacy_curve import check_recorded_curve
from ...privacy.rng import NoiseSource
from ...validation import check_delta, check_epsilon, check_lam
from ...verification.exact import exact_of_saved
from ..kernel_model import KERNEL_CLASSES, KernelPredictor, KernelReleaseCertificate, PrivateKernelModel
from .calibration_record import read_kernel, same_number
from .fields import _count, _exact_text, _flag, _integer, _number, _stated_relation

__all__ = ["kernel_release_to_dict", "kernel_release_from_dict", "DIMENSION_RECORD", "records_dimension"]

KERNEL_HOLDER = "a dpcvx kernel release"
_RELEASE_KEYS = {"format", "format_version", "kind", "library_version", "algorithm", "epsilon", "delta",
                 "classes", "privatised", "predictor", "certificate"}
_PREDICTOR_KEYS = {"kernel", "n_features", "centers"}
_CERTIFICATE_KEYS = {"algorithm", "theorem", "guarantee", "epsilon", "delta", "neighbours", "constants",
                     "calibration", "loss", "kernel", "library_version",
                     "noise_source"}
# the algorithms' privatised outputs besides the predictor, in the order the learners record them
_OUTPUTS: dict[str, tuple[str, ...]] = {"TDDL": (), "PINP": ("answers", "updates_used"),
                                        "TDIL": ("rounds_used", "certified")}


def _answers(what: str, value: Any) -> list[float]:
    if not isinstance(value, list):
        raise InputError(f"{what} must be a list of numbers")
    return [_number(f"{what}[{i}]", answer) for i, answer in enumerate(value)]


# each output's reader: the type the learner records
_OUTPUT_TYPES: dict[str, Callable[[str, Any], Any]] = {"answers": _answers, "updates_used": _integer,
                                                      "rounds_used": _integer, "certified": _flag}


DIMENSION_RECORD = "n_features"  # the certificate's record of the input dimension its calibration does not state


def records_dimension(algorithm: Any, calibration: Any) -> bool:
    """Whether a kernel certificate records its input dimension (:data:`DIMENSION_RECORD`): a TDIL release whose
    calibration states none (it searched a net: the net's size was computed from d, and the record holds the size
    only). The ball's search states it (``ball_dimension``), PINP's calibration states it (``n_features``), and TDDL's
    predictor holds its public sample."""
    return (algorithm == "TDIL" and isinstance(calibration, dict) and calibration.get("ball_dimension") is None
            and "n_features" not in calibration)


def kernel_release_to_dict(release: PrivateKernelModel, header: dict) -> dict:
    """The JSON-ready file form of a kernel release; ``header`` holds format, version and kind."""
    predictor, certificate = release.predictor, release.certificate.to_dict()
    if records_dimension(certificate["algorithm"], certificate["calibration"]):
        certificate[DIMENSION_RECORD] = predictor.n_features
    values = {"centers": predictor.centers.tolist(), "coef": predictor.coef.tolist()}
    privatised = {key: values[key] for key in ("centers", "coef") if key in predictor.privatised}
    privatised.update(release.outputs)
    return {
        **header,
        "library_version": certificate["library_version"],
        "algorithm": certificate["algorithm"],
        "epsilon": certificate["epsilon"],
        "delta": certificate["delta"],
        "classes": list(KERNEL_CLASSES),
        "privatised": privatised,
        "predictor": {"kernel": predictor.kernel.to_dict(), "n_features": predictor.n_features,
                      "centers": None if "centers" in predictor.privatised else values["centers"]},
        "certificate": certificate,
    }


def _matrix(what: str, data: Any, columns: int) -> np.ndarray:
    """Rows of ``columns`` finite numbers, each entry read by its type (numpy would read ``true`` as 1.0 and a
    list's rows of another width as a reshaped matrix)."""
    if not isinstance(data, list) or not all(isinstance(row, list) and len(row) == columns for row in data):
        raise InputError(f"{what} must be a list of rows of {columns} numbers (predictor.n_features)")
    if not data:
        try:
            return np.empty((0, columns))
        except ValueError:
            raise InputError(f"predictor.n_features is {columns}, more columns than an array holds") from None
    return np.array([[_number(f"{what}[{i}][{j}]", value) for j, value in enumerate(row)]
                     for i, row in enumerate(data)], dtype=float)


def _vector(what: str, data: Any) -> np.ndarray:
    """A list of finite numbers, each read by its type."""
    if not isinstance(data, list):
        raise InputError(f"{what} must be a list of numbers")
    return np.array([_number(f"{what}[{i}]", value) for i, value in enumerate(data)], dtype=float)


def _constants(certificate: dict, kernel: Kernel) -> KernelConstants:
    """The constants re-derived from the recorded n, lam, L, l(0), inf l, the loss and the kernel's feature bound,
    refused unless every recorded constant and its statement are the re-derived ones."""
    record = certificate["constants"]
    if not isinstance(record, dict) or not all(
            isinstance(item, dict) and set(item) == ({"value", "exact", "established"} if name == "L" else
                                                    {"value", "established"}) for name, item in record.items()):
        raise InputError("certificate.constants must map names to {value, established} (L: {value, exact, "
                         "established})")
    value = {name: item["value"] for name, item in record.items()}
    if "lam" in value:  # Lam as every kernel learner checks it (KernelLearner: check_lam), before C is derived from it
        check_lam("certificate.constants.lam.value", value["lam"])
    if "n" in value and (_integer("certificate.constants.n.value", value["n"]) < 1):
        raise InputError(f"certificate.constants.n.value must be a positive integer, got {value['n']!r}")
    if isinstance(record.get("L", {}).get("exact"), str):
        _exact_text("certificate.constants.L.exact", record["L"]["exact"],
                    _number("certificate.constants.L.value", value["L"]))
    try:
        infimum = value["loss_infimum"]
        exact = record["L"]["exact"]
        if not (exact is None or isinstance(exact, str)):
            raise TypeError(f"L's exact text must be a string or null, got {exact!r}")
        constants = KernelConstants(n=int(value["n"]), lam=float(value["lam"]), L=exact_of_saved(exact, value["L"]),
                                    R_phi=kernel.feature_bound, loss_at_zero=float(value["loss_at_zero"]),
                                    loss_infimum=None if infimum is None else float(infimum),
                                    loss=str(certificate["loss"]))
        recomputed = constants.to_dict()
    except (KeyError, TypeError, ValueError, InputError) as error:
        raise InputError(f"certificate.constants lacks or garbles an input: {error!r}") from None
    for name in sorted(set(recomputed) | set(record)):
        if name not in record or name not in recomputed:
            raise InputError(f"certificate.constants.{name} is {'missing' if name not in record else 'unknown'}")
        if record[name].get("exact") != recomputed[name].get("exact"):  # L's exact text: read back as it was
            raise InputError(f"certificate.constants.{name}.exact: recorded {record[name].get('exact')!r}, read "
                             f"{recomputed[name].get('exact')!r}; the file has been edited")
        if not same_number(record[name]["value"], recomputed[name]["value"]):
            raise InputError(f"certificate.constants.{name}: recorded {record[name]['value']!r}, "
                             f"re-derived {recomputed[name]['value']!r} from n, lam, L, the kernel and "
                             "the loss; the file has been edited")
        if record[name]["established"] != recomputed[name]["established"]:
            raise InputError(f"certificate.constants.{name}.established is not what dpcvx states for it; the "
                             "file has been edited")
    return constants


def _check_stated(calibration: Any, constants: KernelConstants, certificate: dict, algorithm: str) -> None:
    """The calibration's recorded inputs are the certificate's constants, epsilon and delta."""
    if not isinstance(calibration, dict):
        raise InputError("certificate.calibration must be an object")
    stated = {"n": constants.n, "lam": constants.lam, "L": float(constants.L), "R": constants.R_phi,
              "epsilon": certificate["epsilon"], "delta": certificate["delta"]}
    if algorithm != "TDDL":
        stated["C"] = constants.C
    for key, number in stated.items():
        if not same_number(calibration.get(key), number):
            raise InputError(f"certificate.calibration.{key} is {calibration.get(key)!r} but the certificate "
                             f"states {number!r}; the file has been edited")


def kernel_release_from_dict(data: dict) -> PrivateKernelModel:
    """Rebuild a kernel release from :func:`kernel_release_to_dict` output; every public constant and the
    calibration are re-derived from the stored public inputs, and a mismatch is refused."""
    item = json_object("the model file", data, _RELEASE_KEYS, holder=KERNEL_HOLDER)
    saved_certificate = item["certificate"]
    recorded_curve = saved_certificate.get("privacy_curve") if isinstance(saved_certificate, dict) else None
    certificate = json_object("certificate", {key: value for key, value in saved_certificate.items()
                                              if key not in ("privacy_curve", DIMENSION_RECORD)}
                              if isinstance(saved_certificate, dict) else saved_certificate, _CERTIFICATE_KEYS,
                              holder=KERNEL_HOLDER)
    algorithm = certificate["algorithm"]
    if algorithm not in KERNEL_ALGORITHMS:
        raise InputError(f"certificate.algorithm must be one of {KERNEL_ALGORITHMS}, got {algorithm!r}")
    for key in ("algorithm", "epsilon", "delta", "library_version"):
        if not same_number(item[key], certificate[key]):
            raise InputError(f"{key} is {item[key]!r} but the certificate records {certificate[key]!r}; "
                             "the file has been edited")
    # the budget as every kernel fit checked it (check_budget), before anything is derived from it
    check_epsilon(certificate["epsilon"], "certificate.epsilon")
    check_delta(certificate["delta"], "certificate.delta")
    classes = item["classes"]
    if not (isinstance(classes, list) and len(classes) == len(KERNEL_CLASSES)
            and all(map(same_number, classes, KERNEL_CLASSES))):
        raise InputError(f"classes of a kernel release are {list(KERNEL_CLASSES)}, got {item['classes']!r}")
    predictor_data = json_object("predictor", item["predictor"], _PREDICTOR_KEYS, holder=KERNEL_HOLDER)
    if json.dumps(predictor_data["kernel"], sort_keys=True) != json.dumps(certificate["kernel"], sort_keys=True):
        raise InputError("predictor.kernel differs from certificate.kernel; the file has been edited")
    kernel = kernel_from_dict(predictor_data["kernel"])
    d = predictor_data["n_features"]
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise InputError(f"predictor.n_features must be a positive integer, got {d!r}")
    privatised = item["privatised"]
    expected = {"coef"} | set(_OUTPUTS[algorithm]) | ({"centers"} if predictor_data["centers"] is None else set())
    json_object("privatised", privatised, expected, holder=KERNEL_HOLDER)
    centers_data = privatised["centers"] if predictor_data["centers"] is None else predictor_data["centers"]
    centers = _matrix("the centres", centers_data, d)
    coef = _vector("privatised.coef", privatised["coef"])
    if coef.size != centers.shape[0]:
        raise InputError(f"privatised.coef holds {coef.size} coefficients for {centers.shape[0]} centres; the file "
                         "has been edited")
    predictor = KernelPredictor(kernel, centers, coef,
                                privatised=("centers", "coef") if predictor_data["centers"] is None else ("coef",))

    constants = _constants(certificate, kernel)
    _check_stated(certificate["calibration"], constants, certificate, algorithm)
    loaded = KernelReleaseCertificate(
        algorithm=algorithm, theorem=str(certificate["theorem"]), epsilon=float(certificate["epsilon"]),
        delta=float(certificate["delta"]), constants=constants,
        calibration=read_kernel(certificate["calibration"], algorithm, kernel, centers),
        kernel=dict(certificate["kernel"]), library_version=str(certificate["library_version"]),
        noise_source=NoiseSource.parse(certificate["noise_source"], "certificate.noise_source"))
    check_recorded_curve(recorded_curve, loaded.privacy_curve)
    for key in ("n_features", "ball_dimension"):  # the input dimension, where the calibration reads it
        if certificate["calibration"].get(key) not in (None, d):
            raise InputError(f"predictor.n_features is {d} but certificate.calibration.{key} is "
                             f"{certificate['calibration'][key]!r}; the file has been edited")
    _check_dimension(saved_certificate, algorithm, d)
    if loaded.guarantee != certificate["guarantee"]:
        raise InputError("certificate.guarantee does not match what dpcvx states for this release; the file has "
                         "been edited")
    _stated_relation("certificate.neighbours", certificate["neighbours"], loaded.relation, loaded.neighbours)
    outputs = {key: _OUTPUT_TYPES[key](f"privatised.{key}", privatised[key]) for key in _OUTPUTS[algorithm]}
    _check_outputs(algorithm, outputs, centers.shape[0], loaded.calibration)
    return PrivateKernelModel(predictor, loaded, outputs)


def _check_dimension(saved: dict, algorithm: str, d: int) -> None:
    """The certificate records the input dimension exactly where its calibration states none
    (:func:`records_dimension`), and that record is ``predictor.n_features`` (``d``)."""
    what = f"certificate.{DIMENSION_RECORD}"
    if not records_dimension(algorithm, saved["calibration"]):
        if DIMENSION_RECORD in saved:
            raise InputError(f"{what} is recorded, but only a TDIL release whose calibration states no input "
                             "dimension (a net's) records it; the file has been edited")
        return
    if DIMENSION_RECORD not in saved:
        raise InputError(f"{what} is missing: a {algorithm} release that searched a net records its input dimension "
                         "there; the file has been edited")
    recorded = _count(what, saved[DIMENSION_RECORD])
    if recorded != d:
        raise InputError(f"predictor.n_features is {d} but {what} records {recorded}: the model was fitted on rows "
                         f"of {recorded} features; the file has been edited")


def _check_outputs(algorithm: str, outputs: dict, released: int, calibration: Any) -> None:
    """The algorithm's outputs are read off its released centres, and a recorded value other than the one they
    give is refused: PINP adds one centre per update (at most B, each with an answer) and answers at most T =
    ``max_queries`` queries, each 0 (the public iterate) until its first update; TDIL one per round until a
    round's test certifies or the B rounds end, so ``certified`` is (centres < B) and ``rounds_used`` the centres
    plus the certifying round."""
    if algorithm == "PINP":  # at most T answers; before its first update every answer is the public iterate's 0
        rounds, expected = calibration.max_updates, {"answers": outputs["answers"], "updates_used": released}
        answers = outputs["answers"]
        given = released <= len(answers) <= calibration.max_queries and (released > 0 or not any(answers))
    elif algorithm == "TDIL":
        rounds = getattr(calibration, "base", calibration).rounds
        certified = released < rounds
        expected, given = {"rounds_used": released + certified, "certified": certified}, True
    else:
        return
    if not (given and released <= rounds and outputs == expected):
        shown = {key: value for key, value in expected.items() if key != "answers"}
        raise InputError(f"privatised: the {released} released centres under B = {rounds} give {shown} (and an "
                         f"answer per update), not {({key: outputs[key] for key in shown})}; the file has been edited")
