"""The calibrations of dpcvx, keyed by (mechanism, noise): the only place a record's kind is read.

A release records its calibration as a JSON object (``calibration.to_dict()``). Everything the
rest of the library needs to know about a recorded calibration is asked here, of the kind that
the record's ``mechanism`` and ``noise`` name:

* :func:`recompute`: the ONE recompute-on-load path. The record's public inputs are read back
  (``from_record``, the inverse of ``to_dict``), the library's own calibration is rebuilt from
  them, and its record is returned, so a loader refuses a file whose numbers disagree;
* :func:`recorded_inputs`, :func:`approximate`: which fields a kind is recomputed from, and
  whether its guarantee has a delta (the Gaussian and discrete Gaussian noises);
* :func:`describe`: the certificate's calibration line;
* :func:`expected_noise`: E||noise in w||, a public number (``dpcvx.sklearn.classifiers.noise_to_signal``).

Modules outside :mod:`dpcvx.privacy` never compare a mechanism or noise name: they call these.
A new mechanism is one :class:`CalibrationKind` passed to :func:`register` beside its
calibration class (docs/architecture.md, "A new mechanism").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, runtime_checkable

import numpy as np

from ..exceptions import InputError
from .adassp import adassp_calibration
from .calibrate import objective_perturbation, output_perturbation
from .calibrate_gaussian import KST12_PROBLEMS, gaussian_objective_perturbation, gaussian_output_perturbation
from .kernel_calibrate import recompute_kernel_calibration
from .lattice import lattice_noise_moments
from .lattice_objective import LatticeObjective
from .lattice_output import LatticeGaussianOutput, LatticeLaplaceOutput
from .lattice_predictions import recompute_lattice_tddl
from .lattice_tdil import recompute_lattice_tdil
from .noise import gaussian_moments, l2_laplace_moments, release_grid_spacing

__all__ = ["Calibration", "PerturbsObjective", "perturbs_objective", "CalibrationKey", "CalibrationKind", "PublicFacts",
           "register",
           "kind_of", "recompute", "sufficient_statistics", "recorded_inputs", "approximate", "describe",
           "expected_noise", "KINDS"]


class Calibration(Protocol):
    """What every calibration object offers: its record (inverse: its kind's ``from_record``)."""

    def to_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class PerturbsObjective(Protocol):
    """A calibration whose noise enters the objective (b^T w / n): the learner refuses, before charging,
    a public gradient bound that noise makes unreachable in floating point."""

    n: int
    L: float
    R: float
    epsilon: float
    tol: float | None

    @property
    def gradient_tolerance(self) -> float | None: ...

    def noise_rounding_floor(self, d: int) -> float: ...


_PERTURBS_OBJECTIVE: dict[type, bool] = {}


def perturbs_objective(calibration: object) -> TypeGuard[PerturbsObjective]:
    """Whether ``calibration`` is a :class:`PerturbsObjective`: the protocol's check, which reads every member
    (about a millisecond), made once per calibration class (its members are dataclass fields)."""
    kind = type(calibration)
    if kind not in _PERTURBS_OBJECTIVE:
        _PERTURBS_OBJECTIVE[kind] = isinstance(calibration, PerturbsObjective)
    return _PERTURBS_OBJECTIVE[kind]


@dataclass(frozen=True)
class CalibrationKey:
    """(mechanism, noise): ``mechanism`` as the record names it; ``noise`` "l2-laplace" when unnamed."""

    mechanism: str
    noise: str


@dataclass(frozen=True)
class PublicFacts:
    """What a loader knows besides the record: a kernel release's algorithm, kernel and public
    centres; AdaSSP's certificate-level epsilon, delta and bounds. All public."""

    algorithm: str | None = None
    kernel: Any = None
    centers: np.ndarray | None = None
    epsilon: float | None = None
    delta: float | None = None
    data_norm: float | None = None
    label_bound: float | None = None


Record = Mapping[str, Any]


@dataclass(frozen=True)
class CalibrationKind:
    """One (mechanism, noise): how its record is read back, described and measured."""

    key: CalibrationKey
    inputs: tuple[str, ...]  # the recorded fields it is recomputed from ("tol" may be absent)
    approximate: bool  # an (epsilon, delta) guarantee, delta > 0
    from_record: Callable[[Record, PublicFacts], Calibration]
    describe: Callable[[Record], str] = lambda record: ""
    expected_noise: Callable[[Record, int, float], float] | None = None  # (record, d, n (m Lam + Delta))


KINDS: dict[CalibrationKey, CalibrationKind] = {}
PURE_NOISE = "l2-laplace"  # the noise of a record that names none: density ~ exp(-beta ||b||)
KERNEL_NOISE = "the kernel learner's"  # a kernel release's calibration, keyed by its algorithm
_STATISTICS_MECHANISMS = ("adassp",)
_UNNAMED_NOISE = {"adassp": "gaussian"}  # records that name no noise: l2-Laplace unless listed here


def register(kind: CalibrationKind) -> CalibrationKind:
    """Add a kind to the registry (one per key)."""
    if kind.key in KINDS:
        raise ValueError(f"calibration kind {kind.key} is registered twice")
    KINDS[kind.key] = kind
    return kind


def _key(record: Record, facts: PublicFacts) -> CalibrationKey:
    if facts.algorithm is not None:
        return CalibrationKey(facts.algorithm, KERNEL_NOISE)
    mechanism = record.get("mechanism")
    return CalibrationKey(str(mechanism), str(record.get("noise", _UNNAMED_NOISE.get(str(mechanism), PURE_NOISE))))


def kind_of(record: Record, facts: PublicFacts | None = None) -> CalibrationKind:
    """The registered kind of a recorded calibration (InputError for an unknown one)."""
    key = _key(record, facts or PublicFacts())
    if key not in KINDS:
        known = ", ".join(f"({k.mechanism}, {k.noise})" for k in KINDS)
        raise InputError(f"calibration.mechanism {key.mechanism!r} with noise {key.noise!r} is not a dpcvx "
                         f"calibration; known: {known}")
    return KINDS[key]


def recompute(record: Record, facts: PublicFacts | None = None) -> dict[str, Any]:
    """The record the library computes from the public inputs ``record`` (and ``facts``) state.

    Raises InputError naming a missing or malformed input.
    """
    facts = facts or PublicFacts()
    return kind_of(record, facts).from_record(record, facts).to_dict()


def sufficient_statistics(certificate: Record) -> bool:
    """True for a release of noisy sufficient statistics (AdaSSP), whose certificate is not an ERM's."""
    return certificate.get("mechanism") in _STATISTICS_MECHANISMS


def recorded_inputs(record: Record) -> tuple[str, ...]:
    """The fields a recorded calibration is recomputed from."""
    return kind_of(record).inputs


def approximate(record: Record) -> bool:
    """True when the recorded calibration's guarantee is (epsilon, delta) with delta > 0."""
    return kind_of(record).approximate


def describe(record: Record) -> str:
    """The certificate's line for a recorded calibration."""
    return kind_of(record).describe(record)


def expected_noise(record: Record, d: int, n_strong: float) -> float:
    """E||noise in w|| of a linear release, ``n_strong`` = n (m Lam + Delta) (public).

    Output perturbation adds b to w: E||b|| = d / beta (l2-Laplace), <= sigma sqrt(d)
    (Gaussian). Objective perturbation adds b^T w / n to an (m Lam + Delta)-strongly convex
    objective, which moves the minimiser by at most ||b|| / (n (m Lam + Delta)), plus the
    approximate-minimiser noise added to w.
    """
    kind = kind_of(record)
    if kind.expected_noise is None:
        raise InputError(f"calibration {kind.key} has no expected noise in w")
    return kind.expected_noise(record, d, n_strong)


def _get(record: Record, key: str) -> Any:
    if key not in record:
        raise InputError(f"calibration.{key} is missing")
    return record[key]


def _gridded(calibration: Any, record: Record, scale: float | None) -> Any:
    """The calibration with the release grid the record states (the grid is a function of the scale)."""
    if record.get("release_grid") is None or scale is None:
        return calibration
    return calibration.with_release_grid(release_grid_spacing(scale))


# l2-Laplace (pure epsilon), JMLR 2011 Algorithms 1 and 2: privacy/calibrate.py
_PURE_OUTPUT = ("n", "lam", "epsilon", "L", "R", "m", "tol")
_PURE_OBJECTIVE = ("n", "lam", "epsilon", "c", "L", "R", "m", "split", "tol")
# (epsilon, delta) Gaussian forms: privacy/calibrate_gaussian.py
_GAUSSIAN_OUTPUT = ("n", "lam", "epsilon", "delta", "L", "R", "m", "tol", "dim", "neighbours")
_GAUSSIAN_OBJECTIVE = ("n", "lam", "epsilon", "delta", "c", "L", "R", "m", "tol", "dim", "neighbours")


def _pure_output(record: Record, facts: PublicFacts) -> Any:
    calibration = output_perturbation(_get(record, "n"), _get(record, "lam"), _get(record, "epsilon"),
                                      L=_get(record, "L"), R=_get(record, "R"), m=_get(record, "m"),
                                      tol=record.get("tol"))
    return _gridded(calibration, record, 1.0 / calibration.beta)


def _pure_objective(record: Record, facts: PublicFacts) -> Any:
    calibration = objective_perturbation(_get(record, "n"), _get(record, "lam"), _get(record, "epsilon"),
                                         _get(record, "c"), L=_get(record, "L"), R=_get(record, "R"),
                                         m=_get(record, "m"), split=_get(record, "split"), tol=record.get("tol"))
    return _gridded(calibration, record, None if calibration.amp_beta is None else 1.0 / calibration.amp_beta)


def _gaussian_common(record: Record) -> dict[str, Any]:
    return {key: _get(record, key) for key in ("L", "R", "m", "tol", "dim", "neighbours")}


def _gaussian_output(record: Record, facts: PublicFacts) -> Any:
    calibration = gaussian_output_perturbation(_get(record, "n"), _get(record, "lam"), _get(record, "epsilon"),
                                               _get(record, "delta"), **_gaussian_common(record))
    return _gridded(calibration, record, calibration.sigma)


def _gaussian_objective(record: Record, facts: PublicFacts) -> Any:
    calibration = gaussian_objective_perturbation(
        _get(record, "n"), _get(record, "lam"), _get(record, "epsilon"), _get(record, "delta"), _get(record, "c"),
        smooth_unconstrained=record.get("problem_class") != KST12_PROBLEMS, weight_norm=record.get("weight_norm"),
        **_gaussian_common(record))
    return _gridded(calibration, record, calibration.amp_sigma)


def _lattice_laplace_output(record: Record, facts: PublicFacts) -> Any:
    return LatticeLaplaceOutput(_pure_output({**record, "release_grid": None}, facts), _get(record, "dim"))


def _lattice_gaussian_output(record: Record, facts: PublicFacts) -> Any:
    return LatticeGaussianOutput(_gaussian_output({**record, "release_grid": None}, facts))


def _lattice_objective(record: Record, facts: PublicFacts) -> Any:
    return LatticeObjective(_pure_objective({**record, "release_grid": None}, facts), _get(record, "dim"))


def _adassp(record: Record, facts: PublicFacts) -> Any:
    try:
        return adassp_calibration(facts.epsilon, facts.delta, dim=record["dim"],  # type: ignore[arg-type]
                                  data_norm=facts.data_norm, label_bound=facts.label_bound,  # type: ignore[arg-type]
                                  neighbours=record["neighbours"], failure_probability=record["failure_probability"])
    except (TypeError, KeyError) as error:
        raise InputError(f"the recorded AdaSSP calibration lacks or garbles an input: {error!r}") from None


@dataclass(frozen=True)
class _Recorded:
    """A kernel learner's recomputed record (its calibration classes differ per algorithm)."""

    record: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.record


# the float-safe forms of the kernel releases (TDDL / TDIL with float_safe=True), from their float records
_FLOAT_SAFE_KERNELS = {"TDDL": recompute_lattice_tddl, "TDIL": recompute_lattice_tdil}


def _kernel(record: Record, facts: PublicFacts) -> Any:
    assert facts.algorithm is not None
    recomputed = recompute_kernel_calibration(facts.algorithm, dict(record), kernel=facts.kernel,
                                              centers=facts.centers)
    if record.get("sampler") == "exact" and facts.algorithm in _FLOAT_SAFE_KERNELS:
        if facts.centers is None:
            raise InputError("a float-safe kernel calibration needs the public centres")
        recomputed = _FLOAT_SAFE_KERNELS[facts.algorithm](recomputed, facts.kernel, facts.centers.shape[1])
    return _Recorded(recomputed)


def _describe_gaussian_objective(c: Record) -> str:
    return (f"calibration ({c['analysis']}, {c['neighbours']}): Gaussian sigma = {c['sigma']:.6g} "
            f"(sum form), Delta = {c['extra_reg']:.6g}, objective share (eps, delta) = "
            f"({c['objective_epsilon']:.6g}, {c['objective_delta']:.3g}); approximate-minimiser "
            f"noise sigma_2 = {c['amp_sigma']:.3g} for ({c['amp_epsilon']:.3g}, {c['amp_delta']:.3g})")


def _describe_lattice(c: Record) -> str:
    objective = c["mechanism"] == "objective"
    if c["noise"] == "discrete-gaussian":
        noise = (f"multivariate discrete Gaussian sigma^2 = {c['sigma2_steps']:.6g} steps^2, "
                 f"{c['zcdp_rho']:.6g}-zCDP, squared l2 sensitivity {c['lattice_l2_squared_sensitivity']} steps^2")
    else:
        scale = c["release_scale_steps" if objective else "noise_scale_steps"]
        noise = (f"product discrete Laplace of scale {scale:.6g} steps, "
                 f"l1 sensitivity {c['lattice_l1_sensitivity']} steps")
    line = f"calibration (exact sampler): release lattice {c['lattice']:.6g}, {noise}"
    if objective:
        line += (f"; objective noise on the lattice {c['noise_lattice']:.6g} (discrete Laplace of scale "
                 f"{c['noise_scale_steps']:.6g} steps, eps' = {c['epsilon_prime']:.6g}, Delta = {c['extra_reg']:.6g}), "
                 f"dithered radius {c['dithered_radius']:.3g}")
    return line


def _lattice_noise(c: Record, d: int, n_strong: float) -> float:
    """E||released lattice noise|| (:func:`lattice_noise_moments`), plus, objective, the moved minimiser."""
    noise = lattice_noise_moments(c, d)[0]
    if c["mechanism"] != "objective":
        return noise
    return noise + l2_laplace_moments(d, float(c["beta"]))[0] / n_strong


def _pure_objective_noise(c: Record, d: int, n_strong: float) -> float:
    noise = l2_laplace_moments(d, float(c["beta"]))[0] / n_strong
    return noise + l2_laplace_moments(d, float(c["amp_beta"]))[0] if c.get("amp_beta") else noise


def _gaussian_objective_noise(c: Record, d: int, n_strong: float) -> float:
    return (gaussian_moments(d, float(c["sigma"]))[0] / n_strong
            + gaussian_moments(d, float(c["amp_sigma"]))[0])


register(CalibrationKind(
    CalibrationKey("output", PURE_NOISE), _PURE_OUTPUT, False, _pure_output,
    lambda c: f"calibration: sensitivity = {c['sensitivity']:.6g}, beta = {c['beta']:.6g}",
    lambda c, d, n_strong: l2_laplace_moments(d, float(c["beta"]))[0]))
register(CalibrationKind(
    CalibrationKey("objective", PURE_NOISE), _PURE_OBJECTIVE, False, _pure_objective,
    lambda c: (f"calibration ({c['split']} split): eps' = {c['epsilon_prime']:.6g}, "
               f"Delta = {c['extra_reg']:.6g}, beta = {c['beta']:.6g}"),
    _pure_objective_noise))
register(CalibrationKind(
    CalibrationKey("output", "gaussian"), _GAUSSIAN_OUTPUT, True, _gaussian_output,
    lambda c: (f"calibration ({c['neighbours']}): sensitivity = {c['sensitivity']:.6g}, "
               f"analytic Gaussian sigma = {c['sigma']:.6g}"),
    lambda c, d, n_strong: gaussian_moments(d, float(c["sigma"]))[0]))
register(CalibrationKind(
    CalibrationKey("objective", "gaussian"), _GAUSSIAN_OBJECTIVE, True, _gaussian_objective,
    _describe_gaussian_objective, _gaussian_objective_noise))
# the floating-point-safe forms (privacy/float_safe.py): exact integer noise on a public lattice
register(CalibrationKind(
    CalibrationKey("output", "discrete-laplace"), _PURE_OUTPUT, False, _lattice_laplace_output, _describe_lattice,
    _lattice_noise))
register(CalibrationKind(
    CalibrationKey("output", "discrete-gaussian"), _GAUSSIAN_OUTPUT, True, _lattice_gaussian_output,
    _describe_lattice, _lattice_noise))
register(CalibrationKind(
    CalibrationKey("objective", "discrete-laplace"), _PURE_OBJECTIVE, False, _lattice_objective,
    _describe_lattice, _lattice_noise))
# AdaSSP (privacy/adassp.py): epsilon, delta and the bounds are the certificate's (PublicFacts)
register(CalibrationKind(
    CalibrationKey("adassp", "gaussian"), ("dim", "neighbours", "failure_probability"), True, _adassp))
# the kernel learners (privacy/kernel_calibrate.py), keyed by their algorithm
for _algorithm in ("TDDL", "PINP", "TDIL"):
    register(CalibrationKind(CalibrationKey(_algorithm, KERNEL_NOISE), (), True, _kernel))
