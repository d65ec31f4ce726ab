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

The certificate holds typed values, fitted and loaded alike: the constants a
:class:`~dpcvx.privacy.kernel_calibrate.KernelConstants`, the calibration a
:class:`~dpcvx.privacy.kernel_calibrate.KernelCalibration`. Its file form is the
codec's (:mod:`dpcvx.release.records.kernel_release`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..data.blocks import by_row_blocks, is_dask, public_shape
from ..data.kernels import Kernel, as_rows, expansion_rows, kernel_expansion
from ..exceptions import InputError
from ..privacy.float_guarantee import FloatGuarantee
from ..privacy.kernel_calibrate import NEIGHBOUR_RELATION, KernelCalibration, KernelConstants
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import CandidateMark, PrivacyCurve
from ..solvers.kernel import as_labels
from ..validation import delta_value, epsilon_value, instance_of, integer, real_values, width_refusal
from .model import NoiseRecord, Release, WholeCost, check_certificate, check_feature_names, weighted_share

#: What PINP is, in the words of every entry that refuses it as one release (dpcvx.save, as_opendp_measurement): its
#: release is :meth:`PINP.release() <dpcvx.models.pinp.PINP.release>`, the transcript so far
CURATOR = ("PINP is an interactive curator: its fit charges the budget once and returns the curator, which then "
           "answers each query with noise of its own")
#: Each kernel algorithm in plain words (Jain and Thakurta, ICML 2013, Algorithms 1 to 3), for a reader who is not a
#: privacy expert: :attr:`KernelReleaseCertificate.description`
KERNEL_ALGORITHMS = {
    "TDDL": "test-data-dependent learning: a kernel classifier trained on the private rows, whose predictions at the "
            "public sample Z are released with noise and refitted on Z",
    "PINP": "interactive private predictions: a public copy of a kernel classifier trained on the private rows "
            "answers each prediction query with noise, and is updated when a noisy test finds it too far from the "
            "private one",
    "TDIL": "test-data-independent learning: a kernel classifier rebuilt from a few noisy corrections at points of "
            "the input ball where a noisy test finds it too far from one trained on the private rows",
}
#: Why a kernel release has no schema (dpcvx.save refuses one; dpcvx predict, given a kernel model file, says so)
NO_SCHEMA = "a kernel release takes no schema: its inputs are the raw feature rows"

__all__ = ["KernelPredictor", "KernelReleaseCertificate", "PrivateKernelModel", "KERNEL_CLASSES", "kernel_labels",
           "CURATOR", "NO_SCHEMA"]

KERNEL_CLASSES = (-1.0, 1.0)  # the public label pair of the kernel learners (labels are never mapped)


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
        """f(x) for each row of X, checked as :func:`~dpcvx.data.kernels.as_rows` checks it. A 2-D numeric array the
        check would copy (a float32 or integer memmap, a Fortran-order or strided view) and a Dask input are read,
        converted and checked :meth:`score_rows` rows at a time, the blocks the expansion goes by: no float64 copy of
        the whole of X, the values of X converted whole bit for bit, a NaN named by its row in the whole of X."""
        shape = public_shape(X) if is_dask(X) or _copied_whole(X) else None
        if shape is None:  # rows used as they are (contiguous float64), or an input checked whole (a list, a table)
            X = as_rows(X, "X", self.n_features)
            return self._expanded(X)
        if shape[1] != self.n_features:
            raise width_refusal("X", shape[1], self.n_features)
        return by_row_blocks(X, expansion_rows(self.centers.shape[0]),
                             lambda block: self._expanded(as_rows(block, "X", self.n_features)))

    def _expanded(self, X: np.ndarray) -> np.ndarray:
        """f(x) for each row of checked rows X (:func:`~dpcvx.data.kernels.kernel_expansion`)."""
        if self.coef.size == 0:
            return np.zeros(X.shape[0])
        return kernel_expansion(self.kernel, X, self.centers, self.coef)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Labels in {-1, +1}: +1 where the decision value is > 0 (as for the linear models)."""
        return self.predictions(self.decision_function(X))

    @staticmethod
    def predictions(scores: np.ndarray) -> np.ndarray:
        """:meth:`predict`'s labels from the rows' decision values ``scores`` (:func:`kernel_labels`)."""
        return kernel_labels(real_values("scores", scores))

    def score_rows(self, width: int) -> int | None:
        """How many rows :meth:`decision_function` expands at a time (:func:`expansion_rows`; any width)."""
        integer("width", width)
        return expansion_rows(self.centers.shape[0])

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Any = None) -> float:
        """Accuracy on labels y in {-1, +1}, weighted by ``sample_weight`` when given
        (:func:`~dpcvx.release.model.weighted_share`)."""
        predictions = self.predict(X)
        return weighted_share(predictions == as_labels(y, predictions.shape[0]), sample_weight)

    def __repr__(self) -> str:
        return f"KernelPredictor(kernel={self.kernel!r}, centers={self.centers.shape[0]})"


def kernel_labels(scores: np.ndarray) -> np.ndarray:
    """The kernel learners' one decision rule: +1 where a decision value (a score or an answer) is > 0, else -1, so
    a tie at exactly 0 is -1, as for the linear models (w^T x + b > cut). Every release of TDDL and TDIL
    (:meth:`KernelPredictor.predictions`) and PINP's answers (:meth:`dpcvx.models.pinp.PINP.predict`, where a query
    answered without an update is answered exactly 0) are labelled by it."""
    return np.where(scores > 0, 1.0, -1.0)


def _copied_whole(X: object) -> bool:
    """Whether X is a 2-D numeric array that :func:`~dpcvx.data.kernels.as_rows` would copy whole into float64 (another
    dtype, or not contiguous), which :meth:`KernelPredictor.decision_function` reads by blocks of rows instead."""
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "biuf" and not (
        X.dtype == np.float64 and (X.flags.c_contiguous or X.flags.f_contiguous))


@dataclass(frozen=True)
class KernelReleaseCertificate(WholeCost, CandidateMark, NoiseRecord):
    """What a kernel release relies on (Jain and Thakurta, ICML 2013), every field public.

    ``constants`` (:class:`~dpcvx.privacy.kernel_calibrate.KernelConstants`) states each constant with how
    it was established; ``calibration`` (a :class:`~dpcvx.privacy.kernel_calibrate.KernelCalibration`) is
    the algorithm's derivation (TDDL's noise, PINP's and TDIL's rounds, thresholds and noise scales) as
    computed from the constants, epsilon and delta; ``kernel`` the kernel's parameters. The loss is the
    one L is proved for (``constants.loss``); the relation is the calibration's (replace-one, n public).
    """

    algorithm: str  # "TDDL", "PINP" or "TDIL"
    theorem: str
    epsilon: float
    delta: float
    constants: KernelConstants
    calibration: KernelCalibration
    kernel: dict
    library_version: str

    def __post_init__(self) -> None:
        """Every field checked, by the constructor and by ``dataclasses.replace`` (:func:`check_certificate`)."""
        check_certificate(self, {
            "algorithm": instance_of(str), "theorem": instance_of(str), "epsilon": epsilon_value,
            "delta": delta_value, "constants": instance_of(KernelConstants),
            "calibration": instance_of(KernelCalibration), "kernel": instance_of(dict),
            "library_version": instance_of(str),
        })

    @property
    def mechanism(self) -> str:
        return self.algorithm

    @property
    def description(self) -> str:
        """The algorithm in plain words (:data:`KERNEL_ALGORITHMS`; the release report's name of the mechanism),
        else its name."""
        return KERNEL_ALGORITHMS.get(self.algorithm, self.algorithm)

    @property
    def loss(self) -> str:
        """The verified margin loss."""
        return self.constants.loss

    @property
    def relation(self) -> Neighbours:
        """The neighbour relation the guarantee is proved for (``neighbours`` states it in words)."""
        return self.calibration.relation

    @property
    def neighbours(self) -> str:
        return NEIGHBOUR_RELATION

    @property
    def guarantee(self) -> str:
        return (f"({self.epsilon:g}, {self.delta:g})-differential privacy for the "
                f"{self.constants.n:g} training rows ({self.algorithm}; {self.theorem})")

    @property
    def float_guarantee(self) -> FloatGuarantee:
        """The floating-point guarantee the calibration gives."""
        return self.calibration.float_guarantee

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """The release's privacy curve (:mod:`dpcvx.privacy.privacy_curve`): its (epsilon, delta), replace-one (the
        kernel learners' relation)."""
        return self.marked(self.calibration.privacy_curve(self.epsilon, self.delta))

    def to_dict(self) -> dict:
        return {"algorithm": self.algorithm, "theorem": self.theorem, "guarantee": self.guarantee,
                "epsilon": self.epsilon, "delta": self.delta, "neighbours": self.neighbours,
                "constants": self.constants.to_dict(), "calibration": self.calibration.to_dict(),
                "loss": self.loss, "kernel": dict(self.kernel), "library_version": self.library_version,
                **self.noise_record(), "privacy_curve": self.privacy_curve.to_dict()}

    def __str__(self) -> str:
        lines = [f"dpcvx kernel release: {self.algorithm}, epsilon = {self.epsilon:g} (delta = {self.delta:g})",
                 f"guarantee: {self.guarantee}",
                 f"neighbours: {self.neighbours}",
                 f"loss: {self.loss}; kernel: {self.kernel}"]
        for name, value, established in self.constants.statements():
            shown = "not established" if value is None else f"{value:.6g}"
            lines.append(f"  {name} = {shown}: {established}")
        lines += [self.calibration.describe(), self.float_guarantee.statement, self.noise_source.statement]
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
        check_feature_names(self, X)  # a table of the records a saved schema encodes
        return self._predictor.decision_function(X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        check_feature_names(self, X)
        return self._predictor.predict(X)

    def predictions(self, scores: np.ndarray) -> np.ndarray:
        return self._predictor.predictions(scores)

    def score_rows(self, width: int) -> int | None:
        return self._predictor.score_rows(width)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Any = None) -> float:
        check_feature_names(self, X)
        return self._predictor.score(X, y, sample_weight)

    def __str__(self) -> str:
        return str(self.certificate)

    def __repr__(self) -> str:
        return (f"PrivateKernelModel(algorithm={self.certificate.algorithm!r}, epsilon={self.epsilon:g}, "
                f"delta={self.delta:g}, centers={self.centers.shape[0]})")
