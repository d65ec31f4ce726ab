"""Kernels with public feature bounds, and random Fourier features.

Every kernel k(x, x') = <phi(x), phi(x')> here knows R_phi, a PUBLIC bound on
||phi(x)|| = sqrt(k(x, x)) over its input domain; the private learners take
the sensitivity of the kernel ERM from it (Jain and Thakurta, ICML 2013,
Section 4). It is never read off the data:

* linear   <x, x'>                       R_phi = B (public bound B on ||x||)
* poly     (<x, x'> + c)^p, c >= 0       R_phi = (B^2 + c)^(p/2)
* rbf      exp(-gamma ||x - x'||^2)      R_phi = 1 on all of R^d
* laplacian exp(-gamma ||x - x'||_1)     R_phi = 1 on all of R^d
* a user callable with a declared ``feature_bound``.

Training rows with k(x, x) > R_phi^2 are scaled in feature space,
phi(x) -> phi(x) R_phi / ||phi(x)|| (:func:`feature_scaling`), a per-row map
that keeps the sensitivity analysis valid.

:class:`RandomFourierFeatures` is the data-independent map of Rahimi and Recht
(2007) used by Algorithm 3 of Chaudhuri, Monteleoni and Sarwate (JMLR 2011):
v(x) = sqrt(2/D) cos(Omega x + phi), ||v(x)|| <= sqrt(2).
"""

from __future__ import annotations

import math
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sparse
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from ..exceptions import InputError, InputTypeError, float_errors_ignored, withheld
from ..privacy.random_features import draw_fourier_features
from ..privacy.rng import RandomState, resolve_rng
from ..tables import check_names, feature_names
from ..validation import (
    check_bound,
    check_matrix,
    integer,
    non_negative,
    optional,
    positive,
    refuse_unknown_parameters,
    width_refusal,
)
from . import transformer_api
from .notes import warn_clipped, warn_far_apart

__all__ = [
    "Kernel",
    "KernelSpec",
    "LinearKernel",
    "PolynomialKernel",
    "RBFKernel",
    "LaplacianKernel",
    "CallableKernel",
    "quiet_after_charge",
    "make_kernel",
    "kernel_from_dict",
    "feature_scaling",
    "kernel_expansion",
    "as_rows",
    "RandomFourierFeatures",
    "feature_map_route",
]


def as_rows(X: ArrayLike, name: str = "X", n_features: int | None = None, *, one_point: bool = False,
            owner: str = "the model", note: str = "") -> np.ndarray:
    """X as a finite 2-D float64 array, one row per point: the library's one check of a matrix
    (:func:`dpcvx.validation.check_matrix`, its rules and messages: complex refused, a NaN named by its row and
    column, a 1-D X refused as every model's predict refuses it), for dense rows only (the kernels take no sparse
    matrix). With ``n_features`` the rows must have that many features (refused as ``owner`` expecting them,
    :func:`~dpcvx.validation.width_refusal`, ``note`` saying why), and with ``one_point`` (only PINP's ``query``,
    which answers one point) a 1-D array of that size is one point."""
    if sparse.issparse(X):
        raise InputTypeError(f"{name} is a sparse matrix; the kernel methods take dense rows: pass {name}.toarray()")
    if one_point and n_features is not None and np.ndim(X) == 1:
        if np.size(X) != n_features:
            raise InputError(f"{name} is a 1-D array, read as one point, of {np.size(X)} features, expected "
                             f"{n_features}; pass a point of {n_features} values, or points as a 2-D array (n samples "
                             f"x {n_features} features)")
        X = np.reshape(X, (1, -1))
    array = check_matrix(X, name)
    assert isinstance(array, np.ndarray), "sparse X is refused above"
    if n_features is not None and array.shape[1] != n_features:
        raise width_refusal(name, array.shape[1], n_features, owner, note=note)
    return array


class Kernel(ABC):
    """A positive semidefinite kernel with a public bound R_phi on ||phi(x)||."""

    name: ClassVar[str]

    @abstractmethod
    def gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """The matrix [k(x_i, y_j)]."""

    @abstractmethod
    def diagonal(self, X: np.ndarray) -> np.ndarray:
        """[k(x_i, x_i)] = squared feature norms."""

    @property
    @abstractmethod
    def feature_bound(self) -> float:
        """R_phi = sup over the public input domain of sqrt(k(x, x))."""

    @abstractmethod
    def to_dict(self) -> dict:
        """JSON-ready parameters; :func:`kernel_from_dict` rebuilds the kernel."""

    def feature_distance(self, radius: float, distance: float) -> float:
        """Bound on ||phi(x) - phi(x')|| for ||x||, ||x'|| <= radius and ||x - x'|| <= distance."""
        raise InputError(
            f"the {self.name} kernel has no feature-distance bound; the non-interactive learner "
            "TDIL needs a kernel on a ball of R^d (linear, poly, rbf or laplacian)"
        )

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
        X = as_rows(X)
        return self.gram(X, X if Y is None else as_rows(Y, "Y", X.shape[1], owner=f"the {self.name} kernel",
                                                          note=" (the width of X)"))


def _required_bound(name: str, value: float | None, need: str) -> float:
    """A kernel's public bound ``name`` in [BOUND_MIN, BOUND_MAX] like every public bound
    (:func:`dpcvx.validation.check_bound`: the calibrations square it), refused with ``need`` (what it is)
    when missing."""
    if value is None:
        raise InputError(need)
    return check_bound(name, value)


def _input_bound(value: float | None) -> float:
    return _required_bound("input_bound", value, "this kernel needs input_bound, a public bound B on ||x||_2 (for "
                           "example 1.0 after scaling features by public ranges); it must not be computed from the "
                           "private data")


def _feature_bound(value: float | None) -> float:
    return _required_bound("feature_bound", value, "a callable kernel needs feature_bound, a public bound R_phi on "
                           "sqrt(k(x, x)) over the input domain; rows above it are scaled down in feature space")


@dataclass(frozen=True)
class LinearKernel(Kernel):
    """k(x, x') = <x, x'>; R_phi = B."""

    input_bound: float
    name: ClassVar[str] = "linear"

    def __post_init__(self) -> None:
        object.__setattr__(self, "input_bound", _input_bound(self.input_bound))

    def gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return X @ Y.T

    def diagonal(self, X: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", X, X)

    @property
    def feature_bound(self) -> float:
        return self.input_bound

    def feature_distance(self, radius: float, distance: float) -> float:
        return float(distance)

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.name, "input_bound": self.input_bound}


@dataclass(frozen=True)
class PolynomialKernel(Kernel):
    """k(x, x') = (<x, x'> + c)^p with integer p >= 1 and c >= 0; R_phi = (B^2 + c)^(p/2).

    The cubic kernel (<x, y> + 1)^3 is the one of Jain and Thakurta's CoverType experiment.
    """

    degree: int
    input_bound: float
    offset: float = 1.0
    name: ClassVar[str] = "poly"

    def __post_init__(self) -> None:
        offset = non_negative("offset", self.offset)  # c >= 0: a PSD kernel
        object.__setattr__(self, "degree", integer("degree", self.degree))
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "input_bound", _input_bound(self.input_bound))
        try:
            bound = (self.input_bound**2 + offset) ** (self.degree / 2)
        except OverflowError:
            bound = math.inf
        # R_phi is a public bound like input_bound; every Gram entry is at most R_phi^2 (Cauchy-Schwarz)
        check_bound(f"the poly kernel's feature bound R_phi = (input_bound^2 + offset)^(degree / 2) at degree "
                    f"{self.degree}", bound)

    def gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return (X @ Y.T + self.offset) ** self.degree

    def diagonal(self, X: np.ndarray) -> np.ndarray:
        return (np.einsum("ij,ij->i", X, X) + self.offset) ** self.degree

    @property
    def feature_bound(self) -> float:
        return (self.input_bound**2 + self.offset) ** (self.degree / 2)

    def feature_distance(self, radius: float, distance: float) -> float:
        # Lipschitz constant of phi on the ball: the Jacobian satisfies
        # ||D phi(x) h||^2 = p (|x|^2 + c)^(p-1) |h|^2 + p (p-1) (|x|^2 + c)^(p-2) <x, h>^2.
        p, c, r2 = self.degree, self.offset, float(radius) ** 2
        if r2 + c == 0:
            return 0.0 if p > 1 else float(distance)
        lipschitz = math.sqrt(p * (r2 + c) ** (p - 2) * (p * r2 + c))
        return lipschitz * float(distance)

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.name, "degree": self.degree, "input_bound": self.input_bound,
                "offset": self.offset}


@dataclass(frozen=True)
class _StationaryKernel(Kernel):
    """k(x, x') = exp(-gamma dist(x, x')) for a metric ``dist``: k(x, x) = 1, so R_phi = 1 on all of R^d."""

    gamma: float
    name: ClassVar[str]
    metric: ClassVar[str]  # scipy.spatial.distance.cdist's name of dist

    def __post_init__(self) -> None:
        object.__setattr__(self, "gamma", positive("gamma", self.gamma))

    def gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):  # a distance beyond floating point gives -inf, exp(-inf) = 0: the value
            return np.exp(-self.gamma * cdist(X, Y, self.metric))  # (a warning on one neighbour told it apart)

    def diagonal(self, X: np.ndarray) -> np.ndarray:
        return np.ones(X.shape[0])

    @property
    def feature_bound(self) -> float:
        return 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.name, "gamma": self.gamma}


@dataclass(frozen=True)
class RBFKernel(_StationaryKernel):
    """k(x, x') = exp(-gamma ||x - x'||^2); R_phi = 1 on all of R^d."""

    name: ClassVar[str] = "rbf"
    metric: ClassVar[str] = "sqeuclidean"

    def feature_distance(self, radius: float, distance: float) -> float:
        # ||phi(x) - phi(x')||^2 = 2 - 2 exp(-gamma ||x - x'||^2), increasing in the distance.
        return math.sqrt(-2 * math.expm1(-self.gamma * float(distance) ** 2))


@dataclass(frozen=True)
class LaplacianKernel(_StationaryKernel):
    """k(x, x') = exp(-gamma ||x - x'||_1); R_phi = 1 on all of R^d."""

    name: ClassVar[str] = "laplacian"
    metric: ClassVar[str] = "cityblock"

    def feature_distance(self, radius: float, distance: float) -> float:
        raise InputError(
            "the laplacian kernel's feature map is not Lipschitz (||phi(x) - phi(x')||^2 = "
            "2 - 2 exp(-gamma ||x - x'||_1) grows like the square root of the distance), so TDIL's "
            "net bound does not apply; use the rbf kernel for TDIL"
        )


@contextmanager
def quiet_after_charge() -> Iterator[None]:
    """Silence warnings and floating-point signals while a user's kernel callable runs on the private rows after a
    learner's charge: whether it warns may depend on the rows (:meth:`CallableKernel.total_gram`, and the NOT
    PRIVATE training-rows notes of TDDL, TDIL and PINP, which evaluate it again on the rows as fitted). The one place
    this is done; dpcvx's own warnings about a release are issued outside it."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


@dataclass(frozen=True)
class CallableKernel(Kernel):
    """A user kernel ``function(X, Y) -> Gram matrix`` with a declared public ``feature_bound``.

    The function must be positive semidefinite; dpcvx checks symmetry and the
    solvers refuse a Gram matrix they cannot factor. It cannot be saved: a
    released model with a callable kernel would need code to be loaded.
    """

    function: Callable[[np.ndarray, np.ndarray], np.ndarray]
    bound: float
    name: ClassVar[str] = "callable"

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise InputError("kernel must be a string, a dpcvx Kernel or a callable (X, Y) -> Gram")
        object.__setattr__(self, "bound", _feature_bound(self.bound))

    def gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        matrix = self._called(X, Y)
        if not np.all(np.isfinite(matrix)):
            raise InputError(f"the kernel callable returned a NaN or infinite entry on arrays of shapes {X.shape}, "
                             f"{Y.shape}: a kernel must be finite on the rows it is given")
        return matrix

    def _called(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """The user's function on (X, Y), of the shape a Gram matrix has, its entries as they come."""
        try:
            with np.errstate(all="ignore"):  # an overflow is the caller's to judge (feature_scaling, gram)
                matrix = np.asarray(self.function(X, Y), dtype=float)
        except Exception as error:  # the user's code on the data: its text can quote a row
            raise InputError(f"the kernel callable failed on arrays of shapes {X.shape}, {Y.shape}: "
                             f"it raised {withheld(error)}; call it on these arrays yourself to see "
                             "why") from None
        if matrix.shape != (X.shape[0], Y.shape[0]):
            raise InputError(f"the kernel callable must return a matrix of shape ({X.shape[0]}, {Y.shape[0]}), got "
                             f"shape {matrix.shape}")
        return matrix

    def total_gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """[k(x_i, y_j)] by a public per-entry rule that never raises, for an evaluation after a learner's charge
        whose ``Y`` are private rows (PINP's answers, TDDL's predictions at Z:
        :meth:`dpcvx.solvers.kernel.KernelERM.answer`). At most 1 + |Y| (|X| + 1) calls (PINP: one query, 2 n + 1).

        An entry that is not finite, or whose evaluation raises, is 0: what the proof already takes as the row's
        term when it is beyond floating point (its zero feature, :func:`feature_scaling`). The block is tried whole;
        when it fails (an exception, a matrix of another shape, or an entry that is not finite) each column y_j is
        evaluated alone, and a column that fails too is evaluated entry by entry, so that each entry is the function's
        value on its own pair (x_i, y_j) up to the function's own rounding: one row's failure zeroes only its own
        entries, but it moves the others from the block's evaluation to the column's, and a function whose block
        and column evaluations round differently (a matrix product A @ B.T sums in another order) gives them other
        last bits. Nothing proved rests on those bits: where the rule fires the callable is outside K1 and nothing
        is proved, and the lattice's exact evaluation-error bound covers dpcvx's own rbf and laplacian kernels only
        (a callable's float guarantee is mitigation-only). Warnings of the user's code are silenced here
        (:func:`quiet_after_charge`: whether it warns may depend on the rows). For a positive semidefinite k the rule
        never fires on a checked query (Cauchy-Schwarz bounds every entry; docs/theory.md, section 11, K5, "A
        callable kernel's answers are total"); it turns the failure that told one neighbour from the other (a
        raised query spent nothing) into an answer the proof covers."""
        with quiet_after_charge():
            block = self._attempt(X, Y)
            if block is not None and np.all(np.isfinite(block)):
                return block
            matrix = np.zeros((X.shape[0], Y.shape[0]))
            for j in range(Y.shape[0]):
                column = self._attempt(X, Y[j:j + 1])
                if column is None or not np.all(np.isfinite(column)):  # entry by entry: each pair alone
                    column = np.array([[self._entry(X[i:i + 1], Y[j:j + 1])] for i in range(X.shape[0])])
                matrix[:, j] = column[:, 0]
            return matrix

    def _attempt(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray | None:
        """The user's function on (X, Y) as :meth:`_called` gives it, None where that raises."""
        try:
            return self._called(X, Y)
        except InputError:
            return None

    def _entry(self, x: np.ndarray, y: np.ndarray) -> float:
        """k(x, y) for one pair, 0 where the call raises or the value is not finite (:meth:`total_gram`)."""
        value = self._attempt(x, y)
        return float(value[0, 0]) if value is not None and np.isfinite(value[0, 0]) else 0.0

    def diagonal(self, X: np.ndarray) -> np.ndarray:
        """k(x, x) for each row as the function gives it: inf or NaN where it is beyond floating point, which
        :func:`feature_scaling` maps to the zero feature (a finite row is no error of the data's)."""
        return np.array([self._called(row[None], row[None])[0, 0] for row in X])

    @property
    def feature_bound(self) -> float:
        return self.bound

    def to_dict(self) -> dict[str, Any]:
        raise InputError(
            "a model with a callable kernel cannot be saved as data (loading it would need code); "
            "use one of the named kernels 'linear', 'poly', 'rbf', 'laplacian' to save models"
        )


KERNELS = ("linear", "poly", "rbf", "laplacian")
# What a learner takes as its kernel: a name of KERNELS, a Kernel, or a callable (X, Y) -> Gram matrix.
KernelSpec = str | Kernel | Callable[[np.ndarray, np.ndarray], np.ndarray]


def make_kernel(kernel: KernelSpec = "rbf", *,
                gamma: float | None = None, degree: int = 3, offset: float = 1.0,
                input_bound: float | None = None, feature_bound: float | None = None) -> Kernel:
    """Build a kernel from a name ("linear", "poly", "rbf", "laplacian"), a Kernel or a callable.

    gamma has no data-dependent default: it is part of the released model and
    choosing it from the private data would leak. Every parameter given is checked whether or not the kernel uses it
    (as scikit-learn's ``_parameter_constraints`` check SVC's): ``gamma`` > 0, ``degree`` a positive integer,
    ``offset`` >= 0, the bounds public bounds (:func:`~dpcvx.validation.check_bound`).
    """
    gamma = optional(positive)("gamma", gamma)
    degree = integer("degree", degree)
    offset = non_negative("offset", offset)
    input_bound = optional(check_bound)("input_bound", input_bound)
    feature_bound = optional(check_bound)("feature_bound", feature_bound)
    if isinstance(kernel, Kernel):
        return kernel
    if callable(kernel):
        return CallableKernel(kernel, _feature_bound(feature_bound))
    if not isinstance(kernel, str):
        raise InputError(f"kernel must be one of {KERNELS}, a Kernel or a callable (X, Y) -> Gram, got "
                         f"{type(kernel).__name__}")
    if kernel in ("rbf", "laplacian"):
        if gamma is None:
            raise InputError(f"the {kernel} kernel needs gamma > 0 (a public choice, e.g. 1/d)")
        return RBFKernel(gamma) if kernel == "rbf" else LaplacianKernel(gamma)
    if kernel == "linear":
        return LinearKernel(_input_bound(input_bound))
    if kernel in ("poly", "polynomial"):
        return PolynomialKernel(degree, _input_bound(input_bound), offset)
    raise InputError(f"unknown kernel {kernel!r}; choose one of {KERNELS}, a Kernel or a callable")


def kernel_from_dict(data: dict) -> Kernel:
    """Rebuild a named kernel from :meth:`Kernel.to_dict` output (data only, never code)."""
    if not isinstance(data, dict) or data.get("kernel") not in KERNELS:
        raise InputError(f"not a saved dpcvx kernel: expected 'kernel' in {KERNELS}, got {data!r}")
    parameters = {key: value for key, value in data.items() if key != "kernel"}
    for key, value in parameters.items():  # JSON numbers: a flag is no width, degree or bound
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"the {data['kernel']} kernel's {key} must be a number, got {value!r}")
    builders = {"linear": LinearKernel, "poly": PolynomialKernel, "rbf": RBFKernel,
                "laplacian": LaplacianKernel}
    try:
        return builders[data["kernel"]](**parameters)
    except TypeError as error:
        raise InputError(f"bad parameters for the {data['kernel']} kernel: {error}") from None


ROUNDING_SLACK = 1e-9


# k(x, x) above this is taken as beyond floating point: a Gram entry k(x, x') of such a row may overflow (|k(x, x')|
# <= sqrt(k(x, x) k(x', x')) only up to rounding)
LARGEST_DIAGONAL = float(np.finfo(float).max) / 4


def feature_scaling(kernel: Kernel, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows the Gram matrix is computed on and per-row factors s_i that enforce ||s_i phi(x_i)|| <= R_phi.

    s_i = min(1, R_phi / ||phi(x_i)||); the scaled kernel is s_i s_j k(x_i, x_j). A row whose k(x, x) is beyond
    ``LARGEST_DIAGONAL`` (the linear kernel at ||x|| above about 1e154, the cubic one above about 1e51) has no
    finite feature norm in floating point: it maps to the zero feature (s_i = 0, and the row itself is replaced by
    zeros, so no product with it overflows to inf and 0 * inf to NaN). Both are functions of the row alone, as the
    sensitivity analysis needs (docs/theory.md, section 11, K1). Warns (:class:`~dpcvx.exceptions.ClippingWarning`,
    for the curator's eyes only) when some row exceeds the bound by more than rounding
    (:func:`~dpcvx.data.notes.warn_clipped`: a fit shows it once its checks have passed, and its training-rows check
    says first when most rows were scaled).
    """
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is what the test below is for
        diagonal = kernel.diagonal(X)
    finite = diagonal <= LARGEST_DIAGONAL  # False for inf and NaN too
    norms = np.sqrt(np.maximum(np.where(finite, diagonal, 0.0), 0.0))
    bound = kernel.feature_bound
    scaled = norms > bound
    beyond_rounding = (norms > bound * (1 + ROUNDING_SLACK)) | ~finite  # rows normalised to the bound are not news
    if np.any(beyond_rounding):
        clipped = int(beyond_rounding.sum())
        warn_clipped(f"NOT PRIVATE: do not publish (a count read off the training data): "
                     f"{clipped} of {len(norms)} training rows have ||phi(x)|| above the public "
                     f"bound R_phi = {bound:g} and were scaled down to it in feature space", clipped, len(norms))
    factors = np.where(scaled, bound / np.where(scaled, norms, 1.0), 1.0)
    if np.all(finite):
        return X, factors
    return np.where(finite[:, None], X, 0.0), np.where(finite, factors, 0.0)


BLOCK_ENTRIES = 2**22  # kernel entries evaluated at once (32 MB)


def expansion_rows(centers: int) -> int:
    """How many rows :func:`kernel_expansion` expands at a time against ``centers`` centres (BLOCK_ENTRIES kernel
    values), its blocks starting at row 0: expanding X's rows in groups of this many from row 0 gives the values of
    X whole bit for bit (BLAS may sum a block of another size in another order)."""
    return max(1, BLOCK_ENTRIES // max(1, centers))


def kernel_expansion(kernel: Kernel, X: np.ndarray, centers: np.ndarray,
                     coef: np.ndarray, *, total: bool = False) -> np.ndarray:
    """sum_j coef_j k(x, c_j) for each row x of X, in row blocks of :func:`expansion_rows` (never one huge matrix).
    ``total`` (private ``centers``, after a learner's charge): a callable kernel's entries by the per-entry rule of
    :meth:`CallableKernel.total_gram`, which never raises (the named kernels' ``gram`` raises on no values)."""
    rows = expansion_rows(centers.shape[0])
    gram = kernel.total_gram if total and isinstance(kernel, CallableKernel) else kernel.gram
    return np.concatenate([gram(X[start:start + rows], centers) @ coef
                           for start in range(0, X.shape[0], rows)])


# --- random Fourier features ------------------------------------------------------------


FOURIER_KERNELS = ("rbf", "laplacian")
MAX_PARAMETERS = 10**9  # frequencies a map may hold (n_components x n_features doubles, 8 GB)
# The fields of RandomFourierFeatures.to_dict, and nothing else
FOURIER_FIELDS = ("type", "kernel", "gamma", "n_components", "norm_bound", "frequencies", "phases")


def _saved_numbers(name: str, values: Any) -> np.ndarray:
    """A saved array of JSON numbers as float64: every entry an int or a float (no text, flag, null or nested
    list of another length), within the float range."""
    entries = np.asarray(values, dtype=object)
    if not all(type(entry) in (int, float) for entry in entries.flat):
        raise InputError(f"malformed RandomFourierFeatures data: {name} must be a regular array of numbers (no "
                         "text, true/false or null)")
    try:
        return entries.astype(float)
    except OverflowError:
        raise InputError(f"malformed RandomFourierFeatures data: {name} holds a number beyond the float "
                         "range") from None


class RandomFourierFeatures:
    """v(x) = sqrt(2/D) cos(Omega x + phase), Rahimi and Recht (NIPS 2007).

    E[v(x)^T v(x')] = k(x - x') when the rows of Omega are drawn from the
    spectral density of k: N(0, 2 gamma I) for the rbf kernel
    exp(-gamma ||x - x'||^2), independent Cauchy(0, gamma) coordinates for the
    laplacian kernel exp(-gamma ||x - x'||_1); phase ~ U[0, 2 pi). This is the
    map of Algorithm 3 of Chaudhuri, Monteleoni and Sarwate (JMLR 2011);
    ||v(x)||^2 = (2/D) sum cos^2 <= 2, so ``norm_bound`` = sqrt(2) is the R
    of the linear learner.

    The parameters are drawn from ``random_state`` only (never from data; the
    input dimension is the only thing read from X) and are public: they are
    part of the released model (:meth:`to_dict`, :meth:`from_dict`). Fitted by
    the user or a Pipeline, the map's NOT PRIVATE note reads the rows' scale
    (:class:`~dpcvx.exceptions.KernelScaleWarning`: rows too far apart at gamma
    for the features to carry anything); it changes nothing the map holds.

    Two rules differ from the estimators', because the map is public and a learner uses it unfitted:
    :meth:`transform` before :meth:`fit` draws the map (at X's width, or ``n_features``) rather than raising a
    not-fitted error, since ``PrivateERM(feature_map=RandomFourierFeatures(...))`` draws it that way (scikit-learn's
    tag ``requires_fit`` is False); and ``random_state`` may be a ``numpy.random.Generator``, which the estimators
    refuse (``clone`` copies it, so two clones would draw the same noise): two clones of the map draw the same
    public frequencies, which reveals nothing.
    """

    norm_bound: float = math.sqrt(2.0)

    def __init__(self, kernel: str = "rbf", *, gamma: float, n_components: int = 100,
                 n_features: int | None = None, random_state: RandomState = None):
        # scikit-learn's rule: each parameter stored unchanged, checked when the map is drawn (fit, or its first
        # use), so that a grid search refuses only the candidate with the bad value
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.n_features = n_features  # the declared input width; None when fit reads X's
        self.random_state = random_state

    def _checked(self) -> tuple[str, float, int, int | None]:
        """(kernel, gamma, n_components, n_features) checked: the one check of the parameters, when the map is drawn
        (:meth:`_draw`), saved (:meth:`to_dict`) or loaded (:meth:`from_dict`)."""
        if not isinstance(self.kernel, str) or self.kernel not in FOURIER_KERNELS:
            raise InputError(f"random Fourier features need a translation-invariant kernel, one of "
                             f"{FOURIER_KERNELS}; got {self.kernel!r}")
        return (self.kernel, positive("gamma", self.gamma), integer("n_components", self.n_components),
                optional(integer)("n_features", self.n_features))

    def _draw(self, n_features: int) -> None:
        """Draw the map's frequencies and phases (``frequencies_``, ``phases_``) for inputs of ``n_features``, from
        ``random_state`` (its generator kept for the next draws until a refit restarts it)."""
        kernel, gamma, components, _ = self._checked()
        n_features = integer("n_features", n_features)
        if components * n_features > MAX_PARAMETERS:
            raise InputError(f"n_components x n_features = {components} x {n_features} frequencies is above "
                             f"the limit of {MAX_PARAMETERS:.0e} ({8 * MAX_PARAMETERS // 10**9} GB of doubles); "
                             "choose fewer components or reduce the features first")
        if "_rng" not in vars(self):
            self._rng = resolve_rng(self.random_state)
        self.frequencies_, self.phases_ = draw_fourier_features(kernel, gamma, components, n_features, self._rng)

    def _drawn(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(frequencies, phases), drawn now for a map of a declared ``n_features`` used before any fit; None for a map
        not drawn yet whose width comes from the X it is fitted on."""
        if "frequencies_" not in vars(self):
            if self.n_features is None:
                return None
            self._draw(self.n_features)
        return self.frequencies_, self.phases_

    @property
    def frequencies(self) -> np.ndarray | None:
        """Omega, shape (n_components, n_features) (``frequencies_``); None before the map is drawn."""
        drawn = self._drawn()
        return None if drawn is None else drawn[0]

    @property
    def phases(self) -> np.ndarray | None:
        """The phases, shape (n_components,) (``phases_``); None before the map is drawn."""
        drawn = self._drawn()
        return None if drawn is None else drawn[1]

    @property
    def n_features_in_(self) -> int:
        """The input width the map was drawn for, as scikit-learn's fitted transformers state it (a Pipeline's
        ``n_features_in_`` reads its first step's); AttributeError before the map is drawn."""
        frequencies = self.frequencies
        if frequencies is None:
            raise AttributeError("n_features_in_: the map is not drawn yet (fit it, or pass n_features)")
        return int(frequencies.shape[1])

    @property
    def exact_kernel(self) -> Kernel:
        """The kernel this map approximates."""
        kernel, gamma, _, _ = self._checked()
        return RBFKernel(gamma) if kernel == "rbf" else LaplacianKernel(gamma)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters as given, as scikit-learn's ``clone`` and ``set_params`` read them (``deep``
        is accepted for its signature): ``random_state=None`` for a loaded map (its draw came from elsewhere). A clone
        is a map of the same parameters not drawn yet, as scikit-learn's clone of a fitted transformer is unfitted."""
        return {"kernel": self.kernel, "gamma": self.gamma, "n_components": self.n_components,
                "n_features": self.n_features, "random_state": self.random_state}

    def set_params(self, **params: Any) -> RandomFourierFeatures:
        """These constructor parameters stored as given, the others kept, and checked when the map is next drawn (as
        scikit-learn's estimators check theirs at fit); the map is forgotten (the frequencies drawn belong to the old
        parameters). An unknown name is refused as every learner refuses it."""
        refuse_unknown_parameters(type(self).__name__, params, tuple(self.get_params()))
        for name, value in params.items():
            setattr(self, name, value)
        self._forget()
        return self

    def _forget(self) -> None:
        """Forget the map drawn, the names of the table it was drawn on and its generator."""
        for name in ("frequencies_", "phases_", "feature_names_in_", "_rng"):
            vars(self).pop(name, None)

    @float_errors_ignored
    def fit(self, X: ArrayLike, y: object = None) -> RandomFourierFeatures:
        """Check the parameters and draw the map for X's input dimension (the only thing read from X), and keep a
        table's column names as ``feature_names_in_`` (:func:`dpcvx.tables.feature_names`): the frequencies read a
        row's entries by position, so a table with those columns in another order is refused later
        (:meth:`transform`), as the estimators refuse it. A map drawn at an earlier X's width is drawn afresh
        (:meth:`_restart`), as scikit-learn's fit starts over."""
        kernel, gamma, _, _ = self._checked()
        rows = as_rows(X)
        self._restart()
        self._drawn_for(X, rows)
        warn_far_apart(rows, gamma, kernel)  # NOT PRIVATE, the user's own fit only (data.notes)
        return self

    def _restart(self) -> None:
        """Forget a map drawn at an earlier X's width (no ``n_features`` given): the next use draws it again from
        ``random_state`` (the same map for a seed) at the width of the X it is fitted on, and keeps that X's names.
        A refit on another width or other names was refused ("the map was drawn for 3 features") where
        scikit-learn's fit starts over; a map of a declared width keeps it."""
        if self.n_features is None and "frequencies_" in vars(self):
            self._forget()

    def _drawn_for(self, X: ArrayLike, rows: np.ndarray) -> None:
        """:meth:`fit` of X read as ``rows`` (:meth:`transform` reads X once for both)."""
        drawn = self._drawn()
        if drawn is None:
            names = feature_names(X)  # refused (names mixing text with other types) before the map is drawn
            self._draw(rows.shape[1])
            if names is not None:
                self.feature_names_in_ = names
            return
        width = drawn[0].shape[1]
        if rows.shape[1] != width:
            raise width_refusal("X", rows.shape[1], width, type(self).__name__, note=" (the map was drawn for them)")
        check_names(type(self).__name__, vars(self).get("feature_names_in_"), X)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The output feature names, as scikit-learn names a transformer's new features:
        randomfourierfeatures0, ..., randomfourierfeatures{D-1}. ``input_features``, when given, must have one
        name per input column of a drawn map."""
        frequencies = self.frequencies
        if input_features is not None and frequencies is not None and len(input_features) != frequencies.shape[1]:
            raise InputError(f"input_features has {len(input_features)} names, the map was drawn for "
                             f"{frequencies.shape[1]} features")
        prefix = type(self).__name__.lower()
        return np.asarray([f"{prefix}{i}" for i in range(self._checked()[2])], dtype=object)

    def set_output(self, *, transform: str | None = None) -> RandomFourierFeatures:
        """The container :meth:`transform` returns: "default" (a numpy array), "pandas" or "polars" (a DataFrame
        with :meth:`get_feature_names_out` as columns); None keeps the current one. scikit-learn's API
        (:mod:`~dpcvx.data.transformer_api`: a clone keeps it); not a parameter of the map, never saved."""
        transformer_api.set_output(self, transform)
        return self

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's tags of a transformer of numbers that draws its map when first used."""
        return transformer_api.transformer_tags(needs_fit=False, text=False)

    @float_errors_ignored
    def transform(self, X: ArrayLike) -> Any:
        """v(X), one row per point, shape (rows, n_components) (a DataFrame after :meth:`set_output`); draws the
        parameters if needed.

        The phases, cosine and scale are applied in place on the product X Omega^T: the same floats as
        sqrt(2 / D) cos(X Omega^T + phase), where each step made a new (rows, D) array and two of them were alive at
        once (a fit of 200,000 rows at D = 400 peaked at twice the 640 MB of its features)."""
        return self._features(X, as_rows(X))

    def _features(self, X: ArrayLike, rows: np.ndarray) -> Any:
        """:meth:`transform` of X read as ``rows``. A row whose Omega x overflows floating point (entries near
        1e308) maps to the zero vector: cos(inf) is NaN, and a finite row refused on one neighbour and not the other
        told the two apart. A function of the row alone, of norm 0 <= sqrt(2), as the sensitivity needs."""
        self._drawn_for(X, rows)
        frequencies, phases = self._parameters()
        with np.errstate(over="ignore", invalid="ignore"):
            features = rows @ frequencies.T
            features += phases
            np.cos(features, out=features)
        features *= math.sqrt(2.0 / frequencies.shape[0])
        beyond = ~np.isfinite(features.sum(axis=1))  # a finite row's entries are at most sqrt(2 / D): no overflow
        if beyond.any():
            features[beyond] = 0.0
        return transformer_api.contained(self, features, self.get_feature_names_out(), X)

    def _parameters(self) -> tuple[np.ndarray, np.ndarray]:
        drawn = self._drawn()
        if drawn is None:
            raise InputError("the map has no parameters yet: call fit(X) or pass n_features")
        return drawn

    @float_errors_ignored
    def fit_transform(self, X: ArrayLike, y: object = None) -> np.ndarray:
        """:meth:`fit` then :meth:`transform` (a Pipeline's fit calls it), X read once."""
        kernel, gamma, _, _ = self._checked()
        rows = as_rows(X)
        self._restart()
        features = self._features(X, rows)
        warn_far_apart(rows, gamma, kernel)  # NOT PRIVATE, the user's own fit only (data.notes)
        return features

    def to_dict(self) -> dict:
        """JSON-ready public parameters (kernel, gamma, frequencies, phases)."""
        frequencies, phases = self._parameters()
        kernel, gamma, components, _ = self._checked()
        return {
            "type": "RandomFourierFeatures",
            "kernel": kernel,
            "gamma": gamma,
            "n_components": components,
            "norm_bound": self.norm_bound,
            "frequencies": frequencies.tolist(),
            "phases": phases.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> RandomFourierFeatures:
        """Rebuild a saved map from data (numbers only; nothing is executed)."""
        if not isinstance(data, dict) or data.get("type") != "RandomFourierFeatures":
            raise InputError("not a saved RandomFourierFeatures map (missing type field)")
        unknown = sorted(map(str, set(data) - set(FOURIER_FIELDS)))
        if unknown:
            raise InputError(f"malformed RandomFourierFeatures data: unknown field(s) {unknown}; a saved map has "
                             f"{list(FOURIER_FIELDS)}")
        if "norm_bound" in data and data["norm_bound"] != cls.norm_bound:
            raise InputError(f"malformed RandomFourierFeatures data: norm_bound is sqrt(2) = {cls.norm_bound!r} for "
                             f"every map (||v(x)||^2 <= 2), got {data['norm_bound']!r}")
        try:
            frequencies = _saved_numbers("frequencies", data["frequencies"])
            phases = _saved_numbers("phases", data["phases"])
            # random_state=0 only avoids drawing OS entropy: the loaded parameters replace the draw
            features = cls(data["kernel"], gamma=data["gamma"], n_components=data["n_components"])
            features.kernel, features.gamma, features.n_components, _ = features._checked()  # checked as a fit's
        except (KeyError, TypeError, ValueError) as error:
            raise InputError(f"malformed RandomFourierFeatures data: {error}") from None
        if (frequencies.ndim != 2 or frequencies.shape[0] != features.n_components or frequencies.shape[1] < 1
                or phases.shape != (features.n_components,)
                or not (np.all(np.isfinite(frequencies)) and np.all(np.isfinite(phases)))):
            raise InputError("malformed RandomFourierFeatures data: frequencies must be a finite "
                             "(n_components, n_features) array with n_features >= 1 and phases a finite vector")
        features.frequencies_, features.phases_ = frequencies, phases  # random_state None: not reproducible from it
        return features

    def __eq__(self, other: object) -> bool:
        """Maps are equal when their public parameters are (kernel, gamma, n_components, frequencies, phases: what
        :meth:`to_dict` records), as a saved map equals the map it was saved from. A map not drawn yet equals only
        itself: its parameters are still to be drawn from its generator."""
        if other is self:
            return True
        if not isinstance(other, RandomFourierFeatures) or self._drawn() is None or other._drawn() is None:
            return False
        return ((self.kernel, self.gamma, self.n_components) == (other.kernel, other.gamma, other.n_components)
                and all(np.array_equal(mine, theirs)
                        for mine, theirs in zip(self._parameters(), other._parameters(), strict=True)))

    def __hash__(self) -> int:
        """From the parameters fixed at construction (drawing the frequencies does not change it), so equal maps hash
        alike and a map keeps its hash when fitted."""
        return hash((type(self).__name__, self.kernel, self.gamma, self.n_components))

    def __repr__(self) -> str:
        width = self.n_features if "frequencies_" not in vars(self) else self.frequencies_.shape[1]
        return (f"RandomFourierFeatures(kernel={self.kernel!r}, gamma={self.gamma!r}, "
                f"n_components={self.n_components!r}, n_features={width!r})")


def feature_map_route(steps: list) -> str:
    """What a refusal of a pipeline adds when one of its ``steps`` (scikit-learn's (name, step) pairs) is a
    :class:`RandomFourierFeatures`: the learner that holds the map itself, whose model file keeps it and which
    :func:`dpcvx.tune` tunes. Neither ``dpcvx.save`` nor ``tune`` takes a pipeline with the map as a step (a file
    holds one row map), and their refusals named no route; "" when no step is the map."""
    if not any(isinstance(step, tuple) and len(step) == 2 and isinstance(step[1], RandomFourierFeatures)
               for step in steps):
        return ""
    return f". {FEATURE_MAP_ROUTE}"


#: Where random Fourier features go in a model file: the learner that holds the map (:func:`feature_map_route`,
#: and ``dpcvx.save``'s refusal of the map itself)
FEATURE_MAP_ROUTE = ("For random Fourier features, PrivateERM(feature_map=features, fit_intercept=True, classes=...) "
                     "holds the map itself (R is the map's norm_bound: no data_norm): fitted on the schema's rows, "
                     "dpcvx.save(model, path, schema=schema) keeps both, and dpcvx.tune tunes it (docs/kernels.md)")

