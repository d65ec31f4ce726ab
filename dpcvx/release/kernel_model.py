"""The kernel release: the predictor f(x) = sum_t coef_t k(center_t, x) and its certificate.

The centres are public points (TDDL's public sample Z, PINP's queries, TDIL's
net points), never training rows, so the released predictor is the triple
(centres, coefficients, kernel). It holds no noise and no training data.

A :class:`PrivateKernelModel` is the same kind of object as the linear
:class:`~dpcvx.release.model.PrivateModel` (both are a
:class:`~dpcvx.release.model.Release`): a predictor and a certificate. The
:class:`KernelReleaseCertificate` states the theorem (Jain and Thakurta, ICML
2013, and which algorithm), the neighbour relation (replace-one, n public),
every constant with how it was established (n, lam, L, R_phi, l(0), inf l, C,
the exact sensitivity s, the solve tolerance gamma, s + 2 gamma), epsilon,
delta and the calibration of the algorithm.

In the file form (:func:`release_to_dict`, format version 4 with ``"kind":
"kernel"``) the privatised values sit under "privatised": the coefficients
always, the centres when a mechanism chose them (PINP's updating queries,
TDIL's selected points) and the algorithm's privatised outputs (TDIL's
rounds used, PINP's answers). :func:`release_from_dict` re-derives every
public constant and the calibration from the stored public inputs and
refuses a file that disagrees.
"""

from __future__ import annotations

import copy
import math
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..data.files import json_object
from ..data.kernels import Kernel, as_rows, kernel_expansion, kernel_from_dict
from ..exceptions import InputError
from ..privacy.float_guarantee import FloatGuarantee
from ..privacy.kernel_calibrate import (
    KERNEL_ALGORITHMS,
    NEIGHBOUR_RELATION,
    release_constants,
)
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import PrivacyCurve, check_recorded_curve, epsilon_delta_curve
from ..rounding import ROUNDING
from ..solvers.kernel import as_labels
from .model import Release
from .records.calibration import recompute_kernel

__all__ = ["KernelPredictor", "KernelReleaseCertificate", "PrivateKernelModel", "release_to_dict",
           "release_from_dict", "KERNEL_CLASSES"]
KERNEL_HOLDER = "a dpcvx kernel release"

KERNEL_CLASSES = (-1.0, 1.0)  # the public label pair of the kernel learners (labels are never mapped)
# a recomputed constant may differ from the recorded one by at most the library's safe-side rounding
# margin (another machine's eigensolver may move lambda_max(K_Z) by a few ulps, far below it)
MATCH_RTOL = ROUNDING


class KernelPredictor:
    """f(x) = sum_t coef_t k(z_t, x); predicts sign(f(x)) (+1 where f(x) > 0).

    ``privatised`` names the fields a mechanism produced ("coef" always,
    "centers" when the mechanism chose them).
    """

    def __init__(self, kernel: Kernel, centers: ArrayLike, coef: ArrayLike, privatised: tuple[str, ...] = ("coef",)):
        self.kernel = kernel
        centers = np.asarray(centers, dtype=float)
        coef = np.asarray(coef, dtype=float)
        if centers.ndim != 2 or coef.shape != (centers.shape[0],) \
                or not (np.all(np.isfinite(centers)) and np.all(np.isfinite(coef))):
            raise InputError("a kernel predictor needs finite centres of shape (T, d) and "
                             "finite coefficients of shape (T,)")
        self.centers, self.coef = centers, coef
        if not set(privatised) <= {"centers", "coef"}:
            raise InputError(f"privatised names fields among 'centers' and 'coef', got {privatised!r}")
        self.privatised = tuple(privatised)

    @property
    def n_features(self) -> int:
        return int(self.centers.shape[1])

    @property
    def rkhs_norm(self) -> float:
        """||w|| = sqrt(coef^T K_Z coef)."""
        if self.coef.size == 0:
            return 0.0
        return math.sqrt(max(float(self.coef @ self.kernel.gram(self.centers, self.centers) @ self.coef), 0.0))

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        X = as_rows(X, "X", self.n_features)
        if self.coef.size == 0:
            return np.zeros(X.shape[0])
        return kernel_expansion(self.kernel, X, self.centers, self.coef)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Labels in {-1, +1}: +1 where the decision value is > 0 (as for the linear models)."""
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)

    def score(self, X: ArrayLike, y: ArrayLike) -> float:
        """Accuracy on labels y in {-1, +1}."""
        X = as_rows(X, "X", self.n_features)
        return float(np.mean(self.predict(X) == as_labels(y, X.shape[0])))

    def __repr__(self) -> str:
        return f"KernelPredictor(kernel={self.kernel!r}, centers={self.centers.shape[0]})"


@dataclass(frozen=True)
class KernelReleaseCertificate:
    """What a kernel release relies on (Jain and Thakurta, ICML 2013), every field public.

    ``constants`` maps each constant to ``{"value", "established"}`` (see
    :func:`dpcvx.privacy.kernel_calibrate.release_constants`); ``calibration``
    is the algorithm's derivation (TDDL's noise, PINP's and TDIL's rounds,
    thresholds and noise scales) as computed from the constants, epsilon and
    delta; ``loss`` the verified margin loss; ``kernel`` the kernel's parameters.
    """

    algorithm: str  # "TDDL", "PINP" or "TDIL"
    theorem: str
    epsilon: float
    delta: float
    constants: dict
    calibration: dict
    loss: str
    kernel: dict
    library_version: str
    neighbours: str = NEIGHBOUR_RELATION
    saved: dict | None = field(default=None, repr=False, compare=False)

    @property
    def mechanism(self) -> str:
        return self.algorithm

    @property
    def guarantee(self) -> str:
        return (f"({self.epsilon:g}, {self.delta:g})-differential privacy for the "
                f"{self.constant('n'):g} training rows ({self.algorithm}; {self.theorem})")

    @property
    def float_guarantee(self) -> FloatGuarantee | None:
        """The floating-point guarantee the calibration names (None: none named)."""
        named = self.calibration.get("float_guarantee")
        return None if named is None else FloatGuarantee.parse(named, "calibration.float_guarantee")

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """The release's privacy curve (:mod:`dpcvx.privacy.privacy_curve`): its (epsilon, delta), replace-one (the
        kernel learners' relation)."""
        return epsilon_delta_curve(self.epsilon, self.delta, Neighbours.REPLACE_ONE)

    def constant(self, name: str) -> float:
        value = self.constants[name]["value"]
        return math.nan if value is None else float(value)

    def to_dict(self) -> dict:
        if self.saved is not None:  # read from a file: exactly what was saved
            return copy.deepcopy(self.saved)
        return {"algorithm": self.algorithm, "theorem": self.theorem, "guarantee": self.guarantee,
                "epsilon": self.epsilon, "delta": self.delta, "neighbours": self.neighbours,
                "constants": copy.deepcopy(self.constants), "calibration": dict(self.calibration),
                "loss": self.loss, "kernel": dict(self.kernel), "library_version": self.library_version,
                "privacy_curve": self.privacy_curve.to_dict()}

    def __str__(self) -> str:
        lines = [f"dpcvx kernel release: {self.algorithm}, epsilon = {self.epsilon:g} (delta = {self.delta:g})",
                 f"guarantee: {self.guarantee}",
                 f"neighbours: {self.neighbours}",
                 f"loss: {self.loss}; kernel: {self.kernel}"]
        for name, item in self.constants.items():
            value = item["value"]
            shown = "not established" if value is None else f"{value:.6g}"
            lines.append(f"  {name} = {shown}: {item['established']}")
        lines.append("calibration: " + ", ".join(
            f"{key} = {value:.6g}" if isinstance(value, float) else f"{key} = {value}"
            for key, value in self.calibration.items()))
        if self.float_guarantee is not None:
            lines.append(self.float_guarantee.statement)
        return "\n".join(lines)


class PrivateKernelModel(Release):
    """A kernel predictor released under differential privacy, with its certificate.

    ``outputs`` holds the algorithm's other privatised values (TDIL:
    ``rounds_used``, ``certified``; PINP: ``answers``, ``updates_used``).
    """

    kind = "kernel"
    classes_ = np.array(KERNEL_CLASSES)
    certificate: KernelReleaseCertificate

    def __init__(self, predictor: KernelPredictor, certificate: KernelReleaseCertificate,
                 outputs: dict | None = None):
        self._predictor = predictor
        self.certificate = certificate
        self.outputs = dict(outputs or {})

    @property
    def predictor(self) -> KernelPredictor:
        return self._predictor

    @property
    def kernel(self) -> Kernel:
        return self._predictor.kernel

    @property
    def centers(self) -> np.ndarray:
        return self._predictor.centers

    @property
    def coef(self) -> np.ndarray:
        return self._predictor.coef

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        return self._predictor.decision_function(X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        return self._predictor.predict(X)

    def score(self, X: ArrayLike, y: ArrayLike) -> float:
        return self._predictor.score(X, y)

    def __str__(self) -> str:
        return str(self.certificate)

    def __repr__(self) -> str:
        return (f"PrivateKernelModel(algorithm={self.certificate.algorithm!r}, epsilon={self.epsilon:g}, "
                f"delta={self.delta:g}, centers={self.centers.shape[0]})")


# --- the file form (format version 4, kind "kernel") ------------------------------------------

_RELEASE_KEYS = {"format", "format_version", "kind", "library_version", "algorithm", "epsilon", "delta",
                 "classes", "privatised", "predictor", "certificate"}
_PREDICTOR_KEYS = {"kernel", "n_features", "centers"}
_CERTIFICATE_KEYS = {"algorithm", "theorem", "guarantee", "epsilon", "delta", "neighbours", "constants",
                     "calibration", "loss", "kernel", "library_version"}
# the algorithms' privatised outputs besides the predictor, in the order the learners record them
_OUTPUTS: dict[str, tuple[str, ...]] = {"TDDL": (), "PINP": ("answers", "updates_used"),
                                        "TDIL": ("rounds_used", "certified")}


def release_to_dict(release: PrivateKernelModel, header: dict) -> dict:
    """The JSON-ready file form of a kernel release; ``header`` holds format, version and kind."""
    predictor, certificate = release.predictor, release.certificate.to_dict()
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


def _same(recorded: Any, recomputed: Any) -> bool:
    if isinstance(recomputed, bool) or not isinstance(recomputed, numbers.Real):
        return bool(recorded == recomputed)
    if isinstance(recorded, bool) or not isinstance(recorded, numbers.Real):
        return False
    return math.isclose(float(recorded), float(recomputed), rel_tol=MATCH_RTOL, abs_tol=0.0)


def _matrix(what: str, data: Any, columns: int) -> np.ndarray:
    try:
        array = np.asarray(data, dtype=float).reshape(-1, columns)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a list of rows of {columns} numbers") from None
    if not np.all(np.isfinite(array)):
        raise InputError(f"{what} must hold finite numbers")
    return array


def _check_constants(certificate: dict, kernel: Kernel) -> dict:
    """The recorded constants against the ones re-derived from n, lam, L, the kernel and the loss."""
    constants = certificate["constants"]
    if not isinstance(constants, dict) or not all(
            isinstance(item, dict) and set(item) == {"value", "established"} for item in constants.values()):
        raise InputError("certificate.constants must map names to {value, established}")
    try:
        value = {name: item["value"] for name, item in constants.items()}
        recomputed = release_constants(int(value["n"]), float(value["lam"]), float(value["L"]),
                                       kernel.feature_bound, float(value["loss_at_zero"]),
                                       None if value["loss_infimum"] is None else float(value["loss_infimum"]))
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"certificate.constants lacks or garbles an input: {error!r}") from None
    for name in sorted(set(recomputed) | set(constants)):
        if name not in constants or name not in recomputed:
            raise InputError(f"certificate.constants.{name} is {'missing' if name not in constants else 'unknown'}")
        if not _same(constants[name]["value"], recomputed[name]["value"]):
            raise InputError(f"certificate.constants.{name}: recorded {constants[name]['value']!r}, "
                             f"re-derived {recomputed[name]['value']!r} from n, lam, L, the kernel and "
                             "the loss; the file has been edited")
    return value


def release_from_dict(data: dict) -> PrivateKernelModel:
    """Rebuild a kernel release from :func:`release_to_dict` output; every public constant and the
    calibration are re-derived from the stored public inputs, and a mismatch is refused."""
    item = json_object("the model file", data, _RELEASE_KEYS, holder=KERNEL_HOLDER)
    saved_certificate = item["certificate"]
    recorded_curve = saved_certificate.get("privacy_curve") if isinstance(saved_certificate, dict) else None
    certificate = json_object("certificate", {key: value for key, value in saved_certificate.items()
                                              if key != "privacy_curve"} if isinstance(saved_certificate, dict)
                              else saved_certificate, _CERTIFICATE_KEYS, holder=KERNEL_HOLDER)
    algorithm = certificate["algorithm"]
    if algorithm not in KERNEL_ALGORITHMS:
        raise InputError(f"certificate.algorithm must be one of {KERNEL_ALGORITHMS}, got {algorithm!r}")
    for key in ("algorithm", "epsilon", "delta", "library_version"):
        if item[key] != certificate[key]:
            raise InputError(f"{key} is {item[key]!r} but the certificate records {certificate[key]!r}; "
                             "the file has been edited")
    if item["classes"] != list(KERNEL_CLASSES):
        raise InputError(f"classes of a kernel release are {list(KERNEL_CLASSES)}, got {item['classes']!r}")
    predictor_data = json_object("predictor", item["predictor"], _PREDICTOR_KEYS, holder=KERNEL_HOLDER)
    if predictor_data["kernel"] != certificate["kernel"]:
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
    coef = _matrix("privatised.coef", privatised["coef"], 1).ravel()
    predictor = KernelPredictor(kernel, centers, coef,
                                privatised=("centers", "coef") if predictor_data["centers"] is None else ("coef",))

    value = _check_constants(certificate, kernel)
    calibration = certificate["calibration"]
    if not isinstance(calibration, dict):
        raise InputError("certificate.calibration must be an object")
    stated = {"n": value["n"], "lam": value["lam"], "L": value["L"], "R": value["R_phi"],
              "epsilon": certificate["epsilon"], "delta": certificate["delta"]}
    if algorithm != "TDDL":
        stated["C"] = value["C"]
    for key, number in stated.items():
        if not _same(calibration.get(key), number):
            raise InputError(f"certificate.calibration.{key} is {calibration.get(key)!r} but the certificate "
                             f"states {number!r}; the file has been edited")
    recomputed = recompute_kernel(calibration, algorithm, kernel, centers)
    for key in sorted(set(recomputed) | set(calibration)):
        if key not in recomputed or key not in calibration or not _same(calibration[key], recomputed[key]):
            raise InputError(f"certificate.calibration.{key}: recorded {calibration.get(key)!r}, recomputed "
                             f"{recomputed.get(key)!r} from the public inputs; the file has been edited")
    saved = KernelReleaseCertificate(
        algorithm=algorithm, theorem=str(certificate["theorem"]), epsilon=float(certificate["epsilon"]),
        delta=float(certificate["delta"]), constants=copy.deepcopy(certificate["constants"]),
        calibration=dict(calibration), loss=str(certificate["loss"]), kernel=dict(certificate["kernel"]),
        library_version=str(certificate["library_version"]), neighbours=str(certificate["neighbours"]),
        saved=copy.deepcopy(saved_certificate))
    check_recorded_curve(recorded_curve, saved.privacy_curve)
    if saved.guarantee != certificate["guarantee"] or Neighbours.of_statement(saved.neighbours) is not \
            Neighbours.REPLACE_ONE:
        raise InputError("certificate.guarantee or certificate.neighbours does not match what dpcvx states "
                         "for this release; the file has been edited")
    outputs = {key: privatised[key] for key in _OUTPUTS[algorithm]}
    return PrivateKernelModel(predictor, saved, outputs)
