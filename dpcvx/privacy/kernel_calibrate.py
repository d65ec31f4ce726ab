"""Calibration of the private kernel learners of Jain and Thakurta (ICML 2013).

Derivations: ``docs/theory.md (section 11)``. Notation: n training points, ridge
lam (the ERM is (1/n) sum l(y_i <w, phi(x_i)>) + (lam/2)||w||^2), loss
Lipschitz constant L, public feature bound R = R_phi >= ||phi(x)||.

* Neighbours: replace-one with n public (D and D' have the same size n and
  differ in one row); every bound below is for that relation.
* Minimiser sensitivity: ||w*_D - w*_D'|| <= s = 2 L R / (lam n) for neighbours.
  The solver returns an approximate minimiser w~ and certifies, before
  anything is released, ||w~ - w*|| <= gamma = SOLVE_RTOL s, a PUBLIC
  tolerance (:func:`solve_tolerance`). Both neighbours' solutions lie within
  gamma of their exact minimisers, so ||w~_D - w~_D'|| <= s + 2 gamma: the
  enlarged sensitivity every mechanism is calibrated with
  (:func:`weight_sensitivity`; the constants a release states: :class:`KernelConstants`).
* Norm bound: ||w*|| <= min(L R / lam, sqrt(2 (l(0) - inf l) / lam)):
  :func:`constraint_radius` (the paper's 2 L R / lam is valid but loose).
* TDDL (Algorithm 2): :func:`tddl_calibration`.
* PINP (Algorithm 1): :func:`pinp_parameters`.
* TDIL (Algorithm 3): :func:`tdil_parameters`.

Each result is a :class:`KernelCalibration` (the kernel family of
:class:`~dpcvx.privacy.calibration.Calibration`): the certificate holds it, it names its
floating-point guarantee, states its certificate line and record, and rebuilds itself from a
record's public inputs (``from_record``; the file codec, :mod:`dpcvx.release.records.kernel_release`,
compares the two). The float-safe forms are :class:`~dpcvx.privacy.lattice_predictions.LatticeTDDL`
and :class:`~dpcvx.privacy.lattice_tdil.LatticeTDIL`.

Every quantity that privacy depends on is rounded by a relative 1e-12 in
the safe direction (as in :mod:`dpcvx.privacy.calibrate`).
"""

from __future__ import annotations

import math
import numbers
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeVar

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import eigh
from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigsh

from ..exceptions import InputError
from ..rounding import round_down, round_up
from ..validation import _short, check_choice, fraction, positive
from ..verification.exact import Exact, exact_text
from .calibrate import minimiser_sensitivity
from .calibration import Calibration, Noise, PublicFacts, Record, recorded
from .composition import check_delta, round_epsilon
from .float_guarantee import FloatGuarantee
from .gaussian import analytic_gaussian_sigma
from .lattice import discrete_laplace_tail, float_kernel_name, lattice_sensitivity, lattice_spacing, pinp_float_terms
from .least_value import bisect_ends
from .noise import grid_record, release_grid_spacing, sample_gaussian, sample_laplace

if TYPE_CHECKING:
    from ..verification.kernel_loss import KernelLoss

__all__ = [
    "SOLVE_RTOL", "NEIGHBOUR_RELATION", "solve_tolerance", "weight_sensitivity", "constraint_radius",
    "top_eigenvalue_bound", "gram_top_eigenvalue_bound", "certified_top_eigenvalue", "deflated_bound",
    "KernelCalibration",
    "FloatSafeKernel", "TDDLCalibration", "tddl_calibration",
    "PINPParameters", "pinp_parameters", "pinp_options", "TDILParameters", "tdil_parameters", "tdil_options",
    "MAX_ROUNDS", "MAX_QUERIES", "check_max_queries", "check_max_updates", "check_rounds", "check_failure_probability",
    "gram_spectrum", "numerical_range", "is_indefinite", "vacuous_accuracy",
    "MINIMISER_SPANS", "KernelConstants", "KERNEL_ALGORITHMS",
]

SOLVE_RTOL = 1e-3
# a public sample of at least this many points has the top eigenvalue of its Gram matrix bounded by Lanczos and a
# certified bound on load (gram_top_eigenvalue_bound): O(|Z|^2) per product instead of the O(|Z|^3) of eigh
LANCZOS_FROM = 512
# the certified bound is used when it is within this relative distance of its own lower bound on lambda_max (else eigh)
CERTIFIED_SLACK = 1e-10
# the numbers of Ritz vectors deflated together, in turn, when one does not certify a tight bound (deflated_bound)
DEFLATED_VECTORS = (4, 16)
# the most rounds B of PINP (max_updates) and TDIL (rounds): the range over which B=None chooses it; each round's
# epsilon shrinks like epsilon / sqrt(B) (epsilon / B at delta = 0): at 10^7, epsilon / 16,900 at delta = 1e-6
MAX_ROUNDS = 10**7
# the most queries T PINP's accuracy bound may cover: 2^53, the largest count a double holds exactly (T enters the
# bound through ln(3 T / beta) and a release file records it as a number)
MAX_QUERIES = 2**53
NEIGHBOUR_RELATION = ("replace-one, n public: neighbouring data sets have the same public size n "
                      "and differ in one row (x_i, y_i)")


class _Accurate(Protocol):
    @property
    def accuracy(self) -> float: ...


Rounds = TypeVar("Rounds", bound=_Accurate)


def _count(name: str, value: object, limit: int | None = None, reason: str = "") -> int:
    """``value`` as a positive integer (bool and float refused), at most ``limit`` when given (``reason`` says why)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InputError(f"{name} must be a positive integer, got {_short(value)}")
    if limit is not None and int(value) > limit:
        raise InputError(f"{name} must be at most {limit:,} ({reason}), got {_short(value)}")
    return int(value)


def check_failure_probability(name: str, value: Any) -> float:
    """PINP's and TDIL's failure probability beta of the accuracy bound: a number in (0, 1)
    (:func:`dpcvx.validation.fraction`, as every probability's check)."""
    return fraction(name, value)


def check_max_queries(name: str, value: Any) -> int:
    """PINP's T, the number of answers the accuracy bound covers: an integer in [1, :data:`MAX_QUERIES`]."""
    return _count(name, value, MAX_QUERIES, "2^53, the largest count a double holds exactly; the accuracy bound "
                                            "grows with ln(3 T / beta)")


def check_max_updates(name: str, value: Any) -> int | None:
    """PINP's B: None (chosen by :func:`pinp_parameters`) or an integer in [1, :data:`MAX_ROUNDS`]."""
    return None if value is None else _count(name, value, MAX_ROUNDS, _ROUNDS_REASON)


def check_rounds(name: str, value: Any) -> int | None:
    """TDIL's B: None (chosen by :func:`tdil_parameters`) or an integer in [2, :data:`MAX_ROUNDS`] (one round may be
    spent on an update, so a certifying round needs a second)."""
    if value is None:
        return None
    count = _count(name, value, MAX_ROUNDS, _ROUNDS_REASON)
    if count < 2:
        raise InputError(f"TDIL needs {name} >= 2 (one round may be spent on an update), got {count}")
    return count


_ROUNDS_REASON = ("the range over which None chooses it; each round's epsilon shrinks like epsilon / sqrt(B), "
                  "epsilon / B at delta = 0")


def _minimiser_sensitivity(n: int, lam: float, L: float, R: float) -> float:
    """s = 2 L R / (lam n) (:func:`dpcvx.privacy.calibrate.minimiser_sensitivity` with
    strong convexity lam): ||w*_D - w*_D'|| in the RKHS for neighbouring D, D'."""
    return minimiser_sensitivity(_count("n", n), positive("L", L), positive("R", R), positive("lam", lam))


def solve_tolerance(n: int, lam: float, L: float, R: float) -> float:
    """gamma = SOLVE_RTOL 2 L R / (lam n): the PUBLIC bound on ||w~ - w*|| every solve certifies.

    It depends on public constants only, so neither the tolerance nor the
    sensitivity derived from it reveals anything about the data.
    """
    return round_down(SOLVE_RTOL * _minimiser_sensitivity(n, lam, L, R))


def weight_sensitivity(n: int, lam: float, L: float, R: float) -> float:
    """s + 2 gamma: ||w~_D - w~_D'|| for approximate minimisers certified to gamma = solve_tolerance.

    ||w~_D - w~_D'|| <= ||w~_D - w*_D|| + ||w*_D - w*_D'|| + ||w*_D' - w~_D'|| <= gamma + s + gamma.
    """
    return round_up(round_up(_minimiser_sensitivity(n, lam, L, R)) + 2 * solve_tolerance(n, lam, L, R))


def constraint_radius(lam: float, L: float, R: float, value_at_zero: float | None = None,
                      infimum: float | None = None) -> float:
    """C with ||w*|| <= C: min(L R / lam, sqrt(2 (l(0) - inf l) / lam)).

    First-order optimality gives w* = -(1/(lam n)) sum g_i y_i phi(x_i) with
    |g_i| <= L, hence ||w*|| <= L R / lam. Comparing J(w*) with J(0) = l(0)
    gives (lam/2)||w*||^2 <= l(0) - inf l. The second bound is used when
    inf l is known (finite).
    """
    lam, L, R = positive("lam", lam), positive("L", L), positive("R", R)
    radius = L * R / lam
    if value_at_zero is not None and infimum is not None:
        radius = min(radius, math.sqrt(2 * max(value_at_zero - infimum, 0.0) / lam))
    return round_up(radius)


def loss_radius(lam: float, loss: KernelLoss, R: float) -> float:
    """:func:`constraint_radius` of a verified kernel loss: its L rounded up, its l(0) and inf l as the verifier
    recorded them (rounded outwards, :func:`~dpcvx.verification.kernel_loss.kernel_facts`)."""
    return constraint_radius(lam, loss.lipschitz_bound, R, loss.value_at_zero, loss.infimum)


def top_eigenvalue_bound(eigenvalues: np.ndarray) -> float:
    """An upper bound on lambda_max of a PSD T x T matrix from its computed eigenvalues.

    A backward-stable symmetric eigensolver is off by at most about
    T eps ||K||_2 (Weyl), so the largest computed eigenvalue is padded by that.
    """
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    top = float(np.max(np.abs(eigenvalues)))
    return round_up(float(eigenvalues.max()) + eigenvalues.size * np.finfo(float).eps * top)


def gram_top_eigenvalue_bound(gram: np.ndarray, eigenvalues: np.ndarray | None = None) -> float:
    """An upper bound on lambda_max of the symmetrised Gram matrix K = (G + G^T) / 2 of a public sample G: the one
    bound on lambda_max(K_Z) of TDDL's calibration, computed alike by the fit (:meth:`dpcvx.models.tddl.TDDL.fit`)
    and by a load recomputing it from a model file (:meth:`TDDLCalibration.from_record`), so that a loaded
    certificate is the fitted one and a loaded model saves back to the same bytes.

    From ``LANCZOS_FROM`` points on, the bound of :func:`certified_top_eigenvalue` (Lanczos, O(T^2) per product, and
    a rigorous bound) when it lies within a relative ``CERTIFIED_SLACK`` of its own lower bound on lambda_max. Below
    ``LANCZOS_FROM`` points, and wherever that bound is not tight, :func:`top_eigenvalue_bound` of the computed
    eigenvalues of K (a full eigendecomposition, O(T^3)): ``eigenvalues`` where the caller already holds them (the
    fit, whose post-processing decomposes the same K: they must be :func:`gram_spectrum` ``(gram)[0]``), else
    computed here. Either is an upper bound on lambda_max (docs/theory.md, section 11, K4, "On load").
    """
    gram = np.asarray(gram, dtype=float)
    if gram.ndim == 2 and gram.shape[0] == gram.shape[1] and gram.shape[0] >= LANCZOS_FROM:
        bound = certified_top_eigenvalue((gram + gram.T) / 2)
        if bound is not None:
            return bound
    return top_eigenvalue_bound(gram_spectrum(gram)[0] if eigenvalues is None else eigenvalues)


def certified_top_eigenvalue(symmetric: np.ndarray) -> float | None:
    """A rigorous upper bound on lambda_max of the symmetric T x T float matrix K, or None where no bound within a
    relative ``CERTIFIED_SLACK`` of its own lower bound was found: :func:`deflated_bound` from Lanczos' top Ritz
    vector (k = 1), then from its top k of ``DEFLATED_VECTORS`` in turn (a top eigenvalue close to the next ones, as
    the linear and polynomial kernels' on isotropic inputs, needs them deflated together)."""
    T = symmetric.shape[0]
    if T < 3 or T * T * float(np.finfo(float).eps) > 0.25:
        return None
    for count in (1, *DEFLATED_VECTORS):
        if count >= T - 1:
            break
        try:
            _, vectors = eigsh(symmetric, k=count, which="LA", v0=np.ones(T), tol=0.0 if count == 1 else 1e-12)
        except (ArpackNoConvergence, ArpackError):
            continue
        bound = deflated_bound(symmetric, np.asarray(vectors, dtype=float).reshape(T, count))
        if bound is not None and bound[1] <= bound[0] * (1 + CERTIFIED_SLACK):
            return bound[1]
    return None


def _absolute_product_norm(matrix: np.ndarray, absolute: np.ndarray, block: int = 256) -> float:
    """||fl(|K| |U|)||_F for ``absolute`` = |U|, |K| taken a block of rows at a time (no T x T temporary)."""
    total = 0.0
    for start in range(0, matrix.shape[0], block):
        part = np.abs(matrix[start:start + block]) @ absolute
        total += float(np.vdot(part, part))
    return math.sqrt(total)


def deflated_bound(symmetric: np.ndarray, vectors: np.ndarray) -> tuple[float, float] | None:
    """(a_low, a rigorous upper bound on lambda_max(K)) for any T x k ``vectors`` U with U^T U near I, a_low a lower
    bound on the top eigenvalue of K compressed to span U (so on lambda_max(K)); None where a pad fails (U far from
    orthonormal, non-finite values, a_low <= 0). The upper bound holds whatever U is: Lanczos' Ritz vectors only
    make it tight.

    Let V = U S, S = (U^T U)^(-1/2), the orthonormal basis of span U, and W one of its complement. With A = V^T K V,
    E = W^T K V and C = W^T K W, every unit v = V alpha + W w has v^T K v <= lambda_max(A) ||alpha||^2 +
    2 ||E|| ||alpha|| ||w|| + lambda_max(C) ||w||^2, so

        lambda_max(K) <= (a + c) / 2 + sqrt(((a - c) / 2)^2 + b^2)   (about a + b^2 / (a - c)),

    increasing in a >= lambda_max(A), b >= ||E|| and c >= lambda_max(C). A = S M S with M = U^T K U, so
    lambda_max(A) lies within the factors 1 / (1 + delta) and 1 / (1 - delta) of lambda_max(M) (Ostrowski's theorem;
    delta >= ||U^T U - I||_2) and ||A||_F >= ||M||_F / (1 + delta). E = W^T (K U - U B) S for any k x k B (W^T U = 0),
    so b = ||K U - U m||_F (1 + 2 delta) with m the computed U^T K U; and ||C||_F^2 = ||K||_F^2 - ||A||_F^2 -
    2 ||E||_F^2 gives c <= sqrt(||K||_F^2 - ||A||_F^2).

    Pads (gamma_m = m u / (1 - m u) <= m eps, u = eps / 2; Higham, Accuracy and Stability of Numerical Algorithms,
    2nd ed., section 3.1): fl(U^T U) errs by gamma_T (|U|^T |U|)_ij per entry; fl(K U) by gamma_T (|K| |U|)_ij (|K| |U|
    computed by blocks of rows, its rounding padded by gamma_T); fl(U^T Y) by |U|^T |E_Y| + gamma_T |U|^T |Y|; the
    k x k eigenvalue by 8 k eps ||m||_F (a backward-stable symmetric eigensolver, as the fit's Weyl pad); ||K||_F^2,
    T^2 non-negative terms, by gamma_(T^2) ||K||_F^2. Each bound is taken at its safe end and the result rounded up
    by a relative 1e-12 (:func:`~dpcvx.rounding.round_up`), which covers the few roundings of the closing arithmetic.
    """
    T, count = vectors.shape
    eps = float(np.finfo(float).eps)
    gamma_t = T * eps
    if not (np.all(np.isfinite(vectors)) and np.all(np.isfinite(symmetric))):
        return None
    frobenius_up = float(np.vdot(symmetric, symmetric)) * (1 + 2 * T * gamma_t + 4 * eps)
    absolute = np.abs(vectors)
    gram = vectors.T @ vectors
    delta = (float(np.linalg.norm(gram - np.eye(count)))
             + 2 * gamma_t * float(np.linalg.norm(absolute.T @ absolute))) * (1 + 4 * eps)
    if not delta <= 1e-6:
        return None
    y = symmetric @ vectors
    y_error = gamma_t * _absolute_product_norm(symmetric, absolute) * (1 + 2 * gamma_t + 4 * eps)  # ||E_Y||_F
    product = vectors.T @ y
    m_error = (math.sqrt(1 + delta) * y_error
               + 2 * gamma_t * float(np.linalg.norm(absolute.T @ np.abs(y))) + eps * float(np.linalg.norm(product)))
    m = (product + product.T) / 2
    m_norm = float(np.linalg.norm(m))
    top = float(np.linalg.eigvalsh(m)[-1])
    pad = 8 * count * eps * m_norm + m_error  # |top - lambda_max(U^T K U)|
    if not top - pad > 0:
        return None
    a_up, a_low = (top + pad) / (1 - delta), (top - pad) / (1 + delta)
    residual = y - vectors @ m
    r_error = y_error + (count + 2) * eps * (float(np.linalg.norm(absolute @ np.abs(m))) + float(np.linalg.norm(y)))
    b_up = (float(np.linalg.norm(residual)) * (1 + 2 * T * count * eps) + r_error * (1 + 4 * eps)) * (1 + 2 * delta)
    a_frobenius_low = max(m_norm * (1 - 2 * count * eps) - m_error, 0.0) / (1 + delta)
    c_up = math.sqrt(max(frobenius_up - a_frobenius_low * a_frobenius_low * (1 - 4 * eps), 0.0)) * (1 + 4 * eps)
    half = (a_up - c_up) / 2
    bound = round_up((a_up + c_up) / 2 + math.sqrt(half * half + b_up * b_up))
    a_low = round_down(a_low)
    if not (math.isfinite(bound) and math.isfinite(a_low)):
        return None
    return a_low, bound


# --- the kernel family of calibrations ------------------------------------------------------


class KernelCalibration(Calibration):
    """A kernel release's calibration: TDDL's noise on its T predictions, PINP's and TDIL's rounds, and
    the float-safe forms of TDDL and TDIL.

    Replace-one with n public (:data:`NEIGHBOUR_RELATION`), the relation every bound of this module is
    proved for; the privacy curve is the release's one (epsilon, delta) part
    (:meth:`~dpcvx.privacy.calibration.Calibration.privacy_curve`). No noise moments: the noise is added to
    predictions, answers or tests, not to the weights. ``from_record`` reads the public facts
    ``facts.kernel`` and ``facts.centers`` (TDDL's public sample; PINP's and TDIL's released centres,
    whose width is the input dimension).
    """

    #: the learner whose calibration this is: "TDDL", "PINP" or "TDIL" (:data:`KERNEL_ALGORITHMS`)
    algorithm: ClassVar[str]
    #: True for the float-safe forms, whose noise is drawn exactly on a public lattice
    exact_sampler: ClassVar[bool] = False
    #: the floating-point guarantee: a field of the calibrations that prove one (PINP's, the float-safe forms');
    #: mitigation only for TDDL's and TDIL's double noise (rounded to a grid of the scale; a double Laplace added to
    #: a computed gap)
    guarantee: FloatGuarantee = FloatGuarantee.MITIGATION_ONLY

    @property
    def float_guarantee(self) -> FloatGuarantee:
        """The floating-point guarantee the release gives (:class:`~dpcvx.privacy.float_guarantee.FloatGuarantee`)."""
        return self.guarantee

    def describe(self) -> str:
        """The certificate's calibration line: every field of the record, numbers to six digits."""
        return "calibration: " + ", ".join(
            f"{key} = {value:.6g}" if isinstance(value, float) else f"{key} = {value}"
            for key, value in self.to_dict().items())


class FloatSafeKernel(KernelCalibration):
    """The float-safe form of a kernel calibration: the float calibration ``base`` it wraps (recomputed from the
    same record), its noise drawn exactly on a public lattice, and the floating-point ``guarantee`` it proves."""

    exact_sampler: ClassVar[bool] = True
    #: the float calibration class this form wraps
    float_class: ClassVar[type[KernelCalibration]]

    @classmethod
    @abstractmethod
    def of(cls, base: Any, kernel_name: str, n_features: int) -> Self:
        """The float-safe form of ``base`` for the kernel named ``kernel_name`` (:func:`~.lattice.float_kernel_name`)
        on inputs of dimension ``n_features``."""

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> Self:
        """The float calibration recomputed from the record's public inputs, in its float-safe form."""
        kernel, centers = _public_sample(facts)
        return cls.of(cls.float_class.from_record(record, facts), float_kernel_name(kernel), centers.shape[1])


def _common_inputs(record: Record) -> tuple[int, float, float, float, float, float]:
    """(n, lam, L, R, epsilon, delta) as a kernel calibration's record states them."""
    return (int(recorded(record, "n")), float(recorded(record, "lam")), float(recorded(record, "L")),
            float(recorded(record, "R")), float(recorded(record, "epsilon")), float(recorded(record, "delta")))


def _public_sample(facts: PublicFacts) -> tuple[Any, np.ndarray]:
    """The kernel and the public centres a kernel calibration is recomputed with; InputError without them."""
    if facts.kernel is None or facts.centers is None:
        raise InputError("a kernel calibration is recomputed from the kernel and the public centres")
    return facts.kernel, facts.centers


# --- TDDL -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TDDLCalibration(KernelCalibration):
    """Noise of TDDL's T noisy predictions <w, phi(z_t)> + b_t (Jain and Thakurta, Algorithm 2).

    epsilon-DP (delta = 0): b_t i.i.d. Laplace(scale = l1_sensitivity / epsilon).
    (epsilon, delta)-DP: b_t i.i.d. N(0, scale^2), scale = analytic Gaussian
    sigma for l2_sensitivity.
    """

    n: int
    lam: float
    L: float
    R: float
    epsilon: float
    delta: float
    T: int
    weight_sensitivity: float
    sum_of_test_norms: float
    test_operator_norm: float
    l1_sensitivity: float
    l2_sensitivity: float
    mechanism: Noise  # LAPLACE (delta = 0) or GAUSSIAN; the record's name for it is "mechanism"
    scale: float
    solve_tolerance: float = 0.0  # gamma: public bound on ||w~ - w*|| (weight_sensitivity = s + 2 gamma)
    minimiser_sensitivity: float = 0.0  # s = 2 L R / (lam n), for the exact minimisers
    minimiser_span: str = "training"  # the subspace the ERM is minimised over (MINIMISER_SPANS)

    algorithm: ClassVar[str] = "TDDL"

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> Self:
        """Recomputed from n, lam, L, R, epsilon, delta, minimiser_span and the public sample Z = ``facts.centers``
        (sum_t ||phi(z_t)|| and lambda_max(K_Z) from ``facts.kernel``). The bound on lambda_max(K_Z) is
        :func:`gram_top_eigenvalue_bound`'s, the fit's own: from ``LANCZOS_FROM`` points on, Lanczos with a certified
        bound where it is tight, not a full eigendecomposition (the fit needs one for its post-processing; a load
        does not)."""
        kernel, centers = _public_sample(facts)
        calibration = tddl_calibration(*_common_inputs(record), np.sqrt(np.maximum(kernel.diagonal(centers), 0.0)),
                                       gram_top_eigenvalue_bound(kernel.gram(centers, centers)),
                                       str(recorded(record, "minimiser_span")))
        assert isinstance(calibration, cls)
        return calibration

    @property
    def noise_deviation(self) -> float:
        """The standard deviation of each prediction's noise: sqrt(2) ``scale`` (Laplace) or ``scale`` (Gaussian)."""
        return round_up(math.sqrt(2) * self.scale) if self.mechanism is Noise.LAPLACE else self.scale

    def noise_finding(self, magnitude: float) -> str | None:
        """Why the released predictor is expected to be mostly noise, from public quantities alone, else None: each
        noisy prediction on the public sample Z (which the released coefficients reproduce) carries noise of
        standard deviation at least ``magnitude`` = (C + gamma) R, the bound on every noiseless prediction
        |<w~, phi(z)>| (a helper's circle table at epsilon 1, n 400: deviation 14.4 against 14.1, test accuracy 0.50
        to 0.70 against 0.88 without noise)."""
        if self.noise_deviation < magnitude:
            return None
        return (f"each noisy prediction on the public sample Z carries noise of standard deviation "
                f"{self.noise_deviation:.4g}, at least the bound |<w~, phi(z)>| <= (C + gamma) R = {magnitude:.4g} "
                "on every noiseless prediction, so the released predictor is expected to be mostly noise. Public "
                f"quantities only (n = {self.n}, lam = {self.lam:g}, L, R, epsilon = {self.epsilon:g}, delta = "
                f"{self.delta:g}, T = {self.T} public points). To gain: raise epsilon or n, or use fewer public "
                "points Z (the noise grows with their number)")

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` i.i.d. draws of the prediction noise: Laplace(scale) (delta = 0) or N(0, scale^2)."""
        sampler = sample_laplace if self.mechanism is Noise.LAPLACE else sample_gaussian
        return sampler(size, self.scale, rng)

    def to_dict(self) -> dict:
        """The record; the float release is rounded to :func:`~dpcvx.privacy.noise.release_grid_spacing` (scale)."""
        return {**asdict(self), "mechanism": self.mechanism.value, **grid_record(release_grid_spacing(self.scale))}


# The subspace of the RKHS that TDDL's ERM is minimised over (a public choice, docs/theory.md section 11):
# "training", the whole RKHS (the representer theorem puts w* in span phi(X)); "public", the closed
# subspace span phi(Z) of the public sample (Nystrom features), where the same lam-strong convexity and
# ||P phi(x)|| <= ||phi(x)|| <= R give the same sensitivity 2 L R / (lam n).
MINIMISER_SPANS = ("training", "public")


def tddl_calibration(n: int, lam: float, L: float, R: float, epsilon: float, delta: float,
                     test_feature_norms: ArrayLike, test_gram_top_eigenvalue: float,
                     minimiser_span: str = "training") -> TDDLCalibration:
    """Calibrate the noisy predictions on the public sample Z.

    The prediction vector is p(w) = Phi_Z^T w. For replace-one neighbours the
    approximate minimisers satisfy ||w~ - w~'|| <= s + 2 gamma =
    :func:`weight_sensitivity` (exact sensitivity s plus twice the public
    solve tolerance gamma), so

    * L2: ||p - p'||_2 <= (s + 2 gamma) ||Phi_Z||_op = (s + 2 gamma) sqrt(lambda_max(K_Z)),
      i.e. the exact minimiser's s ||Phi_Z||_op plus 2 gamma ||Phi_Z||_op;
    * L1: ||p - p'||_1 <= (s + 2 gamma) min(sum_t ||phi(z_t)||, sqrt(T lambda_max(K_Z))).

    ``test_feature_norms`` are sqrt(k(z_t, z_t)); ``test_gram_top_eigenvalue``
    is an upper bound on lambda_max(K_Z) (see :func:`top_eigenvalue_bound`).
    ``minimiser_span`` (:data:`MINIMISER_SPANS`) is recorded: the bounds hold
    for the minimiser over the RKHS and over its subspace span phi(Z) alike.
    """
    epsilon, delta = positive("epsilon", epsilon), check_delta(delta)
    check_choice("minimiser_span", minimiser_span, tuple(MINIMISER_SPANS))
    norms = np.asarray(test_feature_norms, dtype=float)
    if norms.ndim != 1 or norms.size == 0 or not np.all(np.isfinite(norms)) or np.any(norms < 0):
        raise InputError("test_feature_norms must be a non-empty vector of finite norms")
    T = norms.size
    top = float(test_gram_top_eigenvalue)
    if not (math.isfinite(top) and top >= 0):
        raise InputError(f"test_gram_top_eigenvalue must be finite and >= 0, got {top}")
    sensitivity = weight_sensitivity(n, lam, L, R)
    sum_of_norms = round_up(float(np.sum(norms)))
    operator_norm = round_up(math.sqrt(top))
    l1 = round_up(sensitivity * min(sum_of_norms, round_up(math.sqrt(T) * operator_norm)))
    l2 = round_up(sensitivity * operator_norm)
    if l1 == 0:
        raise InputError("every test point has phi(z) = 0; the predictions carry no information")
    if delta == 0:
        mechanism, scale = Noise.LAPLACE, round_up(l1 / epsilon)
    else:
        mechanism, scale = Noise.GAUSSIAN, analytic_gaussian_sigma(l2, epsilon, delta)
    return TDDLCalibration(
        n=n, lam=lam, L=L, R=R, epsilon=epsilon, delta=delta, T=T,
        weight_sensitivity=sensitivity, sum_of_test_norms=sum_of_norms,
        test_operator_norm=operator_norm, l1_sensitivity=l1, l2_sensitivity=l2,
        mechanism=mechanism, scale=scale, solve_tolerance=solve_tolerance(n, lam, L, R),
        minimiser_sensitivity=round_up(_minimiser_sensitivity(n, lam, L, R)), minimiser_span=minimiser_span,
    )


# --- PINP and TDIL: rounds of pure-DP steps -------------------------------------------------


def _laplace_tail(scale: float, draws: int, failure: float) -> float:
    """a with P(some of ``draws`` Laplace(scale) variables exceeds a in size) <= failure."""
    return scale * math.log(draws / failure)


def _best_over_rounds(build: Callable[[int], Rounds], fewest: int) -> Rounds:
    """The parameters with the smallest ``accuracy`` over a geometric grid of round counts."""
    grid = np.unique(np.round(np.geomspace(fewest, MAX_ROUNDS, 400)).astype(int))
    return min((build(int(rounds)) for rounds in grid), key=lambda parameters: parameters.accuracy)


def vacuous_accuracy(answers: str, accuracy: float, failure: float, bound_name: str, bound: float, threshold: float,
                     threshold_name: str, stopped: str, inputs: str, gain: str) -> str | None:
    """The finding of PINP's and TDIL's public parameters when their accuracy guarantee says nothing, else None:
    ``answers`` lie within ``accuracy`` of <w*, phi(z)> (probability 1 - ``failure``), and so does 0, since
    |<w*, phi(z)>| <= ``bound`` (named ``bound_name``); with accuracy >= bound the guarantee is no better than the
    answer 0's. Where ``threshold`` >= bound too, the first round's gap (at most the bound, the public iterate
    being 0) crosses it only by noise: ``stopped`` says what follows. Public quantities only (``inputs``);
    ``gain`` names the settings that help."""
    if accuracy < bound:
        return None
    never = (f"; {threshold_name} tau = {threshold:.4g} is above every gap |<w*, phi(z)>| <= {bound:.4g} the first "
             f"round can see, so {stopped}" if threshold >= bound else "")
    return (f"its accuracy guarantee is vacuous: {answers} is within {accuracy:.4g} of <w*, phi(z)> (probability "
            f"{1 - failure:g}), and so is the answer 0, as |<w*, phi(z)>| <= {bound_name} = {bound:.4g}{never}. "
            f"Public quantities only ({inputs}). To gain: {gain}")


@dataclass(frozen=True)
class PINPParameters(KernelCalibration):
    """Private Interactive Non-linear Prediction (Jain and Thakurta, Algorithm 1), as derived in
    docs/theory.md (section 11, K5): rounds of AboveThreshold (Dwork and Roth, Algorithm 1) followed by
    one noisy answer; at most ``max_updates`` rounds.

    Every noisy quantity lives on the public lattice of spacing ``lattice`` (a power of two) with
    exact discrete Laplace noise (:mod:`dpcvx.privacy.lattice`, docs/theory.md "Floating point:
    PINP's answers"): the secret <w~, phi(z)> is clamped to +-``magnitude_bound``, rounded to the
    lattice, and has integer sensitivity ``lattice_sensitivity`` K (Delta, twice the proved
    floating-point ``evaluation_error`` and the rounding); the integer scales are 2K / eps_svt,
    4K / eps_svt and K / eps_ans (:meth:`lattice_scales`). The ``*_noise`` fields are those scales
    times the lattice spacing (in the units of the answers).

    With probability >= 1 - failure_probability, each of the first ``max_queries``
    answers is within ``accuracy`` of <w*, phi(z)>, and no more than
    ``max_updates`` updates are needed.
    """

    n: int
    lam: float
    L: float
    R: float
    C: float
    epsilon: float
    delta: float
    max_queries: int
    failure_probability: float
    max_updates: int
    round_epsilon: float
    query_sensitivity: float
    threshold_noise: float  # scale of the round's threshold perturbation (lattice units times spacing)
    query_noise: float  # scale of the noise added to each |<w* - w_t, phi(z)>|
    answer_noise: float  # scale of an update's released answer
    gap: float  # every update has |<w* - w_t, phi(z)>| >= gap
    threshold: float
    accuracy: float  # sigma
    step: float  # eta, the update coefficient
    solve_tolerance: float = 0.0  # gamma: query_sensitivity = (s + 2 gamma) R
    kernel_name: str = "other"  # "rbf" / "laplacian": the evaluation error is proved
    n_features: int = 0
    coefficient_bound: float = 0.0  # A >= sum_i |w_i| (checked at fit; 2 L / lam, twice the KKT bound)
    evaluation_error: float = 0.0  # E >= |fl(<w~, phi(z)>) - <w~, phi(z)>|
    magnitude_bound: float = 0.0  # M = (C + gamma) R (1 + 1e-9) >= |<w~, phi(z)>| (queries: ||phi|| <= R (1 + 1e-12))
    lattice: float = 0.0  # gamma_L
    lattice_sensitivity: int = 1  # K
    threshold_steps: int = 0  # ceil(threshold / gamma_L)
    guarantee: FloatGuarantee = FloatGuarantee.MITIGATION_ONLY  # EXACT when the evaluation error is proved

    algorithm: ClassVar[str] = "PINP"

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> Self:
        """Recomputed from the recorded inputs (n, lam, L, R, C, epsilon, delta, max_queries,
        failure_probability, max_updates), the kernel's name and the input dimension."""
        kernel, centers = _public_sample(facts)
        n, lam, L, R, epsilon, delta = _common_inputs(record)
        parameters = pinp_parameters(n, lam, L, R, float(recorded(record, "C")), epsilon, delta,
                                     recorded(record, "max_queries"), float(recorded(record, "failure_probability")),
                                     recorded(record, "max_updates"), kernel_name=float_kernel_name(kernel),
                                     n_features=centers.shape[1])
        assert isinstance(parameters, cls)
        return parameters

    def vacuous_finding(self) -> str | None:
        """Why the answers are expected to be no better than the answer 0, from these public parameters alone, else
        None (:func:`vacuous_accuracy`, M = ``magnitude_bound`` = (C + gamma) R: PINP answers from w~). Then also
        the threshold tau exceeds M - (gap - tau of the tails) as the sparse-vector test sees it: with w_0 = 0 the
        first round's gap |<w*, phi(z)>| is at most M, so a query crosses tau >= M only by noise, and the answers
        are the public iterate's, 0 (every query predicted the class -1: a tie at 0 is -1,
        :func:`~dpcvx.release.kernel_model.kernel_labels`)."""
        return vacuous_accuracy(
            "each answer", self.accuracy, self.failure_probability, "(C + gamma) R", self.magnitude_bound,
            self.threshold, "its sparse-vector threshold", "a query crosses it only by noise and the answers are "
            "expected to be the public iterate's, 0 (the class -1 on every query)",
            f"n = {self.n}, lam = {self.lam:g}, L, R, epsilon = {self.epsilon:g}, max_queries = {self.max_queries}, "
            f"B = {self.max_updates} updates", "raise epsilon or n, lower max_queries")

    def lattice_scales(self) -> tuple[Fraction, Fraction, Fraction]:
        """The exact integer scales (threshold, query, answer): 2K / eps_svt, 4K / eps_svt, K / eps_ans."""
        half = Fraction(round_down(self.round_epsilon / 2))
        K = self.lattice_sensitivity
        return 2 * K / half, 4 * K / half, K / half

    def to_dict(self) -> dict:
        fields = asdict(self)
        del fields["guarantee"]
        return {**fields, "float_guarantee": self.guarantee.value}


def pinp_parameters(n: int, lam: float, L: float, R: float, C: float, epsilon: float,
                    delta: float, max_queries: int, failure_probability: float = 0.05,
                    max_updates: int | None = None, *, kernel_name: str = "other",
                    n_features: int = 0) -> PINPParameters:
    """Derive PINP's lattice, noise, threshold, step and update budget B (minimising sigma when B is None).

    Per round eps_r = :func:`dpcvx.privacy.composition.round_epsilon` (epsilon, delta, B),
    half to AboveThreshold, half to the answer; Delta = weight_sensitivity R; lattice
    gamma_L = :func:`~dpcvx.privacy.lattice.lattice_spacing` (Delta), K = floor((Delta + 2 E) / gamma_L) + 1,
    value scales b_rho = gamma_L 2K / eps_svt, b_nu = gamma_L 4K / eps_svt, b_zeta = gamma_L K / eps_ans.
    Tails (failure split in three, :func:`~dpcvx.privacy.lattice.discrete_laplace_tail`):
    a_rho = b_rho ln(3B/beta) + gamma_L, a_nu = b_nu ln(3T/beta) + gamma_L, a_zeta = b_zeta ln(3B/beta) + gamma_L;
    lattice error l = 2 gamma_L + E. gap g = max(C R / sqrt(B), a_zeta + l); threshold
    tau = g + a_rho + a_nu + l; sigma = tau + a_rho + a_nu + l; step eta = g / R^2.
    """
    epsilon, delta = positive("epsilon", epsilon), check_delta(delta)
    C = positive("C", C)
    T, beta, max_updates = pinp_options(max_queries, failure_probability, max_updates)
    sensitivity = round_up(weight_sensitivity(n, lam, L, R) * R)
    tolerance = solve_tolerance(n, lam, L, R)
    bound, error, guarantee = pinp_float_terms(kernel_name, n, n_features, L, lam)
    spacing = lattice_spacing(sensitivity)
    K = lattice_sensitivity(sensitivity, error, spacing)
    slack = round_up(2 * spacing + error)

    def build(rounds: int) -> PINPParameters:
        per_round = round_epsilon(epsilon, delta, rounds)
        half = round_down(per_round / 2)
        threshold_noise, query_noise = round_up(2 * K * spacing / half), round_up(4 * K * spacing / half)
        answer_noise = round_up(K * spacing / half)
        a_rho = discrete_laplace_tail(threshold_noise, spacing, 3 * rounds, beta)
        a_nu = discrete_laplace_tail(query_noise, spacing, 3 * T, beta)
        a_zeta = discrete_laplace_tail(answer_noise, spacing, 3 * rounds, beta)
        gap = max(C * R / math.sqrt(rounds), a_zeta + slack)
        threshold = gap + a_rho + a_nu + slack
        return PINPParameters(
            n=n, lam=lam, L=L, R=R, C=C, epsilon=epsilon, delta=delta, max_queries=T,
            failure_probability=beta, max_updates=rounds, round_epsilon=per_round,
            query_sensitivity=sensitivity, threshold_noise=threshold_noise, query_noise=query_noise,
            answer_noise=answer_noise, gap=gap, threshold=threshold,
            accuracy=threshold + a_rho + a_nu + slack, step=gap / R**2, solve_tolerance=tolerance,
            kernel_name=kernel_name, n_features=n_features, coefficient_bound=bound, evaluation_error=error,
            magnitude_bound=round_up((C + tolerance) * R * (1 + 1e-9)), lattice=spacing, lattice_sensitivity=K,
            threshold_steps=math.ceil(Fraction(threshold) / Fraction(spacing)), guarantee=guarantee,
        )

    return _best_over_rounds(build, 1) if max_updates is None else build(max_updates)


def pinp_options(max_queries: int, failure_probability: float,
                 max_updates: int | None) -> tuple[int, float, int | None]:
    """PINP's settings checked, which need no data: (T, beta, B) by :func:`check_max_queries`,
    :func:`check_failure_probability` and :func:`check_max_updates` (B None: chosen by :func:`pinp_parameters`), the
    checks :class:`dpcvx.PINP` runs on construction, ``set_params`` and fit before any data is read."""
    return (check_max_queries("max_queries", max_queries),
            check_failure_probability("failure_probability", failure_probability),
            check_max_updates("max_updates", max_updates))


@dataclass(frozen=True)
class TDILParameters(KernelCalibration):
    """Test Data Independent Learner (Jain and Thakurta, Algorithm 3), as derived in
    docs/theory.md (section 11, K6): at most ``rounds`` rounds of the exponential mechanism
    (over a net of the input ball, or over the whole ball for the linear kernel)
    plus one Laplace-noised test.

    With probability >= 1 - failure_probability the released w satisfies
    |<w - w*, phi(s)>| <= net_accuracy at every candidate s (net points, or the
    whole ball) and |<w - w*, phi(z)>| <= accuracy = net_accuracy + C * feature_distance
    on the whole ball.
    """

    n: int
    lam: float
    L: float
    R: float
    C: float
    epsilon: float
    delta: float
    failure_probability: float
    selection: str  # "net" (finite net) or "ball" (continuous, linear kernel)
    net_size: int | None
    ball_dimension: int | None
    feature_distance: float  # bound on ||phi(z) - phi(s)|| for z in the ball, s its net point
    rounds: int
    round_epsilon: float
    score_sensitivity: float
    selection_epsilon: float  # exponential mechanism: P(s) ~ exp(selection_epsilon score(s) / (2 Delta))
    answer_noise: float
    gap: float
    threshold: float
    net_accuracy: float
    accuracy: float
    step: float
    solve_tolerance: float = 0.0  # gamma: score_sensitivity = (s + 2 gamma) R

    algorithm: ClassVar[str] = "TDIL"

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> Self:
        """Recomputed from the recorded inputs (n, lam, L, R, C, epsilon, delta, net_size or ball_dimension,
        feature_distance, failure_probability, rounds); no kernel needed."""
        n, lam, L, R, epsilon, delta = _common_inputs(record)
        parameters = tdil_parameters(n, lam, L, R, float(recorded(record, "C")), epsilon, delta,
                                     net_size=recorded(record, "net_size"),
                                     ball_dimension=recorded(record, "ball_dimension"),
                                     feature_distance=float(recorded(record, "feature_distance")),
                                     failure_probability=float(recorded(record, "failure_probability")),
                                     rounds=recorded(record, "rounds"))
        assert isinstance(parameters, cls)
        return parameters

    def vacuous_finding(self) -> str | None:
        """Why the released predictor is expected to be no better than 0, from these public parameters alone, else
        None (:func:`vacuous_accuracy`, with |<w*, phi(z)>| <= C R). Where the threshold tau is at least C R too,
        the first round's gap |<w*, phi(s)>| <= C R (w_0 = 0) is expected below it, and the rounds stop with the
        public iterate w = 0, one constant prediction (a helper's circle table: all coefficients 0 at epsilon 1,
        10 and 100, n 400 and 2,400)."""
        return vacuous_accuracy(
            "the released predictor at every z of the ball", self.accuracy, self.failure_probability, "C R",
            round_up(self.C * self.R), self.threshold, "its threshold",
            "the rounds are expected to stop with w = 0, one constant prediction",
            f"n = {self.n}, lam = {self.lam:g}, L, R, C, epsilon = {self.epsilon:g}, {self.rounds} rounds",
            "raise epsilon or n")

    def to_dict(self) -> dict:
        """The record; the default (double) rounds are "mitigation-only": the test adds a double Laplace to a
        computed gap whose error no sensitivity charges (only the decision and its sign are released)."""
        return {**asdict(self), "float_guarantee": FloatGuarantee.MITIGATION_ONLY.value}


def _ball_selection_tail(kappa: float, dim: int, R: float, C: float, rounds: int, beta: float) -> float:
    """a_em for the continuous exponential mechanism with score |<v, z>| on the ball ||z|| <= R.

    P(score <= OPT - 2t) <= e^(-kappa t) / P_uniform(score >= OPT - t) <= e^(-kappa t) (2 R C / t)^dim,
    because {score >= OPT - t} contains a cap of height t / ||v|| >= t / C, which contains a
    ball of radius t / (2C). Solve kappa t + dim ln(t / (2 R C)) = ln(2B / beta); a_em = 2 t.
    """
    target = math.log(2 * rounds / beta)

    def excess(t: float) -> float:
        return kappa * t + dim * math.log(t / (2 * R * C)) - target

    low, high = 0.0, 2 * R * C
    while excess(high) < 0:
        low, high = high, 2 * high
    return 2 * bisect_ends(lambda t: not excess(t) < 0, low, high)


def tdil_parameters(n: int, lam: float, L: float, R: float, C: float, epsilon: float,
                    delta: float, *, net_size: int | None = None, ball_dimension: int | None = None,
                    feature_distance: float = 0.0, failure_probability: float = 0.05,
                    rounds: int | None = None) -> TDILParameters:
    """Derive TDIL's selection budget, noise, threshold, step and rounds B (B >= 2).

    Exactly one of ``net_size`` (a finite net S) and ``ball_dimension`` (the
    whole ball of radius R in that dimension, linear kernel) is given.
    Per round eps_r = round_epsilon(epsilon, delta, B), half to the exponential
    mechanism (score |<w* - w_t, phi(s)>|, sensitivity Delta = weight_sensitivity R),
    half to the Laplace test. Tails (failure split in two): over a net
    a_em = (2 Delta / eps_em)(ln|S| + ln(2B/beta)); over the ball
    :func:`_ball_selection_tail`; a_zeta = (Delta / eps_lap) ln(2B/beta).
    g = max(C R / sqrt(B - 1), a_zeta); tau = g + a_zeta; the first round
    without an update certifies net_accuracy = tau + a_zeta + a_em; there is one
    because at most C^2 R^2 / g^2 <= B - 1 updates happen.
    """
    epsilon, delta = positive("epsilon", epsilon), check_delta(delta)
    C = positive("C", C)
    if (net_size is None) == (ball_dimension is None):
        raise InputError("give exactly one of net_size (a net) and ball_dimension (the whole ball)")
    size = None if net_size is None else _count("net_size", net_size)
    dim = None if ball_dimension is None else _count("ball_dimension", ball_dimension)
    beta, rounds = tdil_options(failure_probability, rounds)
    feature_distance = float(feature_distance)
    if not (math.isfinite(feature_distance) and feature_distance >= 0):
        raise InputError(f"feature_distance must be finite and >= 0, got {feature_distance}")
    sensitivity = round_up(weight_sensitivity(n, lam, L, R) * R)

    def build(count: int) -> TDILParameters:
        per_round = round_epsilon(epsilon, delta, count)
        half = round_down(per_round / 2)
        answer_noise = round_up(sensitivity / half)
        if size is not None:
            a_em = 2 * sensitivity / half * (math.log(size) + math.log(2 * count / beta))
        elif dim is not None:
            a_em = _ball_selection_tail(half / (2 * sensitivity), dim, R, C, count, beta)
        else:  # excluded above: exactly one of net_size and ball_dimension is given
            raise InputError("give exactly one of net_size (a net) and ball_dimension (the whole ball)")
        a_zeta = _laplace_tail(answer_noise, 2 * count, beta)
        gap = max(C * R / math.sqrt(count - 1), a_zeta)
        threshold = gap + a_zeta
        net_accuracy = threshold + a_zeta + a_em
        return TDILParameters(
            n=n, lam=lam, L=L, R=R, C=C, epsilon=epsilon, delta=delta,
            failure_probability=beta, selection="net" if size is not None else "ball",
            net_size=size, ball_dimension=dim, feature_distance=feature_distance,
            rounds=count, round_epsilon=per_round, score_sensitivity=sensitivity,
            selection_epsilon=half, answer_noise=answer_noise, gap=gap, threshold=threshold,
            net_accuracy=net_accuracy, accuracy=net_accuracy + C * feature_distance,
            step=gap / R**2, solve_tolerance=solve_tolerance(n, lam, L, R),
        )

    return _best_over_rounds(build, 2) if rounds is None else build(rounds)


def tdil_options(failure_probability: float, rounds: int | None) -> tuple[float, int | None]:
    """TDIL's settings checked, which need no data: (beta, B) by :func:`check_failure_probability` and
    :func:`check_rounds` (None: chosen by :func:`tdil_parameters`), the checks :class:`dpcvx.TDIL` runs on
    construction, ``set_params`` and fit before any data is read."""
    return check_failure_probability("failure_probability", failure_probability), check_rounds("rounds", rounds)


# --- one derivation for the learners and for a loaded release ---------------------------------

KERNEL_ALGORITHMS = ("TDDL", "PINP", "TDIL")


def gram_spectrum(gram: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues and eigenvectors of the symmetrised Gram matrix (K + K^T) / 2 of a public sample."""
    gram = np.asarray(gram, dtype=float)
    eigenvalues, vectors = eigh((gram + gram.T) / 2)
    return eigenvalues, vectors


def is_indefinite(eigenvalues: np.ndarray) -> bool:
    """Whether a computed Gram spectrum has an eigenvalue below -sqrt(eps) max |lambda| (or one that is not finite):
    a kernel's Gram matrix is positive semidefinite, and rounding leaves negative eigenvalues of about
    n eps lambda_max only. The one test of TDDL's public k(Z, Z) and of a callable kernel's Gram matrix of the
    training rows (:class:`~dpcvx.solvers.kernel.KernelERM`)."""
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    if not np.all(np.isfinite(eigenvalues)):
        return True
    return float(eigenvalues.min()) < -np.sqrt(np.finfo(float).eps) * float(np.max(np.abs(eigenvalues)))


def numerical_range(eigenvalues: np.ndarray) -> np.ndarray:
    """The eigenpairs of a computed T x T Gram spectrum kept as its numerical range.

    Eigenvalues at or below T eps lambda_max are rounding (a backward-stable
    eigensolver is off by about that much), so their directions are dropped:
    the mask of lambda_j > T eps max(lambda_max, 0).
    """
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    top = max(float(eigenvalues.max()), 0.0)
    return eigenvalues > eigenvalues.size * np.finfo(float).eps * top


_GAMMA_DERIVATION = (
    "exact_sensitivity s = 2 L R_phi / (lam n) bounds ||w*_D - w*_D'||_H for replace-one "
    "neighbours (lam-strong convexity); the solver iterates until it certifies "
    "||w~ - w*||_H <= ||grad J(w~)||_H / lam (smooth losses) or sqrt(2 gap / lam) (dual "
    f"solve) <= gamma = {SOLVE_RTOL:g} s, a public tolerance, so "
    "||w~_D - w~_D'||_H <= s + 2 gamma = sensitivity_used, which calibrates every noise "
    "scale and threshold; see docs/kernels.md")


@dataclass(frozen=True)
class KernelConstants:
    """The public constants every kernel release rests on, each with how it was established.

    Given: n (public under replace-one), lam (the user's), L (proved by :func:`dpcvx.verify` for the margin
    loss ``loss``, exact as the verified kernel loss carries it: a Fraction, an Irrational or a double; the formulas
    read its double), R_phi (the kernel's feature bound),
    l(0) and inf l (``None``: not established). Derived (properties, one formula each): the norm bound C
    (:func:`constraint_radius`), the exact sensitivity s = 2 L R_phi / (lam n), the solve tolerance gamma
    (:func:`solve_tolerance`) and the sensitivity used s + 2 gamma (:func:`weight_sensitivity`).
    :meth:`statements` lists them in the certificate's order, :meth:`to_dict` is the file's record.
    """

    n: int
    lam: float
    L: Exact
    R_phi: float
    loss_at_zero: float
    loss_infimum: float | None
    loss: str  # the verified margin loss's text, which L is proved for

    @property
    def C(self) -> float:
        """||w*|| <= C = min(L R_phi / lam, sqrt(2 (l(0) - inf l) / lam))."""
        return constraint_radius(self.lam, float(self.L), self.R_phi, self.loss_at_zero, self.loss_infimum)

    @property
    def exact_sensitivity(self) -> float:
        """s = 2 L R_phi / (lam n), rounded up."""
        return round_up(_minimiser_sensitivity(self.n, self.lam, float(self.L), self.R_phi))

    @property
    def gamma(self) -> float:
        """The public solve tolerance gamma = SOLVE_RTOL s."""
        return solve_tolerance(self.n, self.lam, float(self.L), self.R_phi)

    @property
    def sensitivity_used(self) -> float:
        """s + 2 gamma, rounded up: ||w~_D - w~_D'||_H."""
        return weight_sensitivity(self.n, self.lam, float(self.L), self.R_phi)

    def statements(self) -> tuple[tuple[str, float | None, str], ...]:
        """(name, value, how it was established) of each constant, in the certificate's order (L's double: its exact
        value is ``L``, recorded beside it by :meth:`to_dict`)."""
        return (
            ("n", self.n, "public: the number of training rows (replace-one neighbours keep it)"),
            ("lam", self.lam, "public: chosen by the user, not from the data"),
            ("L", float(self.L), f"proved by dpcvx.verify: Lipschitz constant of the margin loss {self.loss}"),
            ("R_phi", self.R_phi, "the kernel's public feature bound sup ||phi(x)|| = sqrt(sup k(x, x)); training "
                                  "rows beyond it are scaled to it"),
            ("loss_at_zero", self.loss_at_zero, "l(0), exact (sympy) or evaluated"),
            ("loss_infimum", self.loss_infimum, "inf_z l(z), exact (sympy); null when not established"),
            ("C", self.C, "||w*|| <= min(L R_phi / lam, sqrt(2 (l(0) - inf l) / lam)) (first-order optimality; "
                          "J(w*) <= J(0))"),
            ("exact_sensitivity", self.exact_sensitivity, "s = 2 L R_phi / (lam n) (lam-strong convexity, "
                                                          "dpcvx.privacy.calibrate.minimiser_sensitivity)"),
            ("gamma", self.gamma, _GAMMA_DERIVATION),
            ("sensitivity_used", self.sensitivity_used, "s + 2 gamma, rounded up: ||w~_D - w~_D'||_H"),
        )

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The file's record: ``{name: {"value": number or None, "established": text}}``; L's also holds its exact
        text (``"exact"``: "1/4", "sqrt(2)", or null for a double), as a linear release's constants do."""
        record = {name: {"value": value, "established": text} for name, value, text in self.statements()}
        record["L"] = {"value": record["L"]["value"], "exact": exact_text(self.L),
                       "established": record["L"]["established"]}
        return record
