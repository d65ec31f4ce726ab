"""The calibration family: what every calibration of a release offers, typed.

A release's certificate holds its calibration object (never its record): one of
:class:`~.calibrate.OutputPerturbation`, :class:`~.calibrate.ObjectivePerturbation` (JMLR 2011,
Algorithms 1 and 2), :class:`~.calibrate_gaussian.GaussianOutputPerturbation`,
:class:`~.calibrate_gaussian.GaussianObjectivePerturbation` (docs/theory.md, section 12) and the
float-safe forms :class:`~.lattice_output.LatticeLaplaceOutput`,
:class:`~.lattice_output.LatticeGaussianOutput` and :class:`~.lattice_objective.LatticeObjective`.
Each is a :class:`LinearCalibration`, which answers every question the rest of the library asks of
a calibration:

* ``mechanism`` (:class:`~dpcvx.verification.verdict.Mechanism`), ``noise`` (:class:`Noise`),
  ``approximate`` (an (epsilon, delta) guarantee with delta > 0) and ``relation`` (the
  :class:`~.neighbours.Neighbours` its sensitivity is computed for);
* :meth:`~LinearCalibration.noise_moments`: E||b||, E||b||^2 of the noise b of the objective (or of w)
  and of the approximate-minimiser noise b_2 added to w;
* :meth:`~LinearCalibration.expected_noise`: E||noise in w|| (output: E||b||; objective: the moved
  minimiser E||b|| / (n (m Lam + Delta)) plus E||b_2||);
* :meth:`~Calibration.privacy_curve`: the release's privacy curve (:mod:`.privacy_curve`);
* :meth:`~Calibration.describe`: the certificate's calibration line;
* :meth:`~Calibration.to_dict` and its inverse :meth:`~Calibration.from_record`: the record a model
  file holds, and the calibration the library computes from that record's public inputs (the file
  codec, :mod:`dpcvx.release.records.calibration_record`, compares the two).

A kernel learner's calibration is the sibling family :class:`~.kernel_calibrate.KernelCalibration`
(TDDL, PINP, TDIL and the float-safe forms). A new mechanism is one more subclass (docs/architecture.md,
"A new mechanism").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeGuard, runtime_checkable

import numpy as np

from ..exceptions import InputError
from ..verification.verdict import Mechanism
from .float_guarantee import FloatGuarantee
from .neighbours import Neighbours
from .privacy_curve import CurvePart, PrivacyCurve, epsilon_delta_curve, fit_after_draws_part

__all__ = ["Noise", "NoiseMoments", "PublicFacts", "Record", "Calibration", "LinearCalibration",
           "PerturbsObjective", "perturbs_objective", "recorded"]

Record = Mapping[str, Any]


class Noise(str, Enum):
    """The noise a calibration draws: the typed choice beside :class:`~dpcvx.verification.verdict.Mechanism`.

    A ``str`` enum whose values are the names a model file writes (``calibration.noise``; a record that
    names none is l2-Laplace).
    """

    L2_LAPLACE = "l2-laplace"  # density ~ exp(-beta ||b||) (JMLR 2011)
    LAPLACE = "laplace"  # i.i.d. Laplace coordinates (TDDL's noisy predictions)
    GAUSSIAN = "gaussian"  # the analytic Gaussian (Balle and Wang, ICML 2018)
    DISCRETE_LAPLACE = "discrete-laplace"  # exact, on a public lattice (float-safe)
    DISCRETE_GAUSSIAN = "discrete-gaussian"  # exact, on a public lattice (Canonne, Kamath and Steinke 2020)

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass(frozen=True)
class NoiseMoments:
    """E||b||, E||b||^2 of the main noise and of the approximate-minimiser noise b_2 (0 if none)."""

    first: float
    second: float
    amp_first: float = 0.0
    amp_second: float = 0.0


@dataclass(frozen=True)
class PublicFacts:
    """What a loader knows besides a calibration's record: a kernel release's algorithm, kernel and public
    centres; AdaSSP's certificate-level epsilon, delta and bounds. All public."""

    algorithm: str | None = None
    kernel: Any = None
    centers: np.ndarray | None = None
    epsilon: float | None = None
    delta: float | None = None
    data_norm: float | None = None
    label_bound: float | None = None


def recorded(record: Record, key: str) -> Any:
    """``record[key]``, or InputError naming the missing input."""
    if key not in record:
        raise InputError(f"calibration.{key} is missing")
    return record[key]


class Calibration(ABC):
    """What every calibration offers: its relation, privacy curve, certificate line and record."""

    @property
    def relation(self) -> Neighbours:
        """The neighbour relation the sensitivity is computed for (replace-one unless the class says)."""
        return Neighbours.REPLACE_ONE

    def privacy_curve(self, epsilon: float, delta: float) -> PrivacyCurve:
        """The release's privacy curve: one (epsilon, delta) part unless the calibration knows a tighter one."""
        return epsilon_delta_curve(epsilon, delta, self.relation)

    def after_draws_part(self, epsilon: float, delta: float) -> CurvePart:
        """The fit's part of a release whose private draws came first, one that holds for every value they may take
        (:func:`~dpcvx.privacy.privacy_curve.fit_after_draws_part`): the (epsilon, delta) pair unless the
        calibration's curve is a function of (epsilon, delta) alone."""
        return fit_after_draws_part(epsilon, delta, gaussian=False)

    @abstractmethod
    def describe(self) -> str:
        """The certificate's calibration line."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The record a model file holds (its inverse: :meth:`from_record`)."""

    @classmethod
    @abstractmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> Self:
        """The calibration the library computes from the public inputs ``record`` (and ``facts``) state.

        Raises InputError naming a missing or malformed input.
        """


class LinearCalibration(Calibration):
    """A linear release's calibration (Algorithm 1 or 2, pure, Gaussian or float-safe)."""

    mechanism: ClassVar[Mechanism]
    noise: ClassVar[Noise]
    #: True when the guarantee is (epsilon, delta) with delta > 0
    approximate: ClassVar[bool]
    #: the recorded fields it is recomputed from ("tol" may be absent)
    inputs: ClassVar[tuple[str, ...]]
    #: True for the float-safe forms, whose noise is drawn exactly on a public lattice
    exact_sampler: ClassVar[bool] = False

    if TYPE_CHECKING:  # the public inputs and results every linear calibration has (fields or properties)
        n: int
        epsilon: float

        @property
        def lam(self) -> float: ...

        @property
        def m(self) -> float: ...

        @property
        def extra_reg(self) -> float: ...

        @property
        def gradient_tolerance(self) -> float | None: ...

        @property
        def approximate_minimiser(self) -> str: ...

    def privacy_curve(self, epsilon: float, delta: float) -> PrivacyCurve:
        """The release's privacy curve: one (epsilon, delta) part, where a pure calibration (:attr:`approximate`
        False) has delta = 0 whatever delta the release states. A pure epsilon-DP mechanism chosen where the user gave
        (epsilon, delta > 0) (the pure objective perturbation, :func:`~.linear_calibration.pure_competitor`;
        :func:`~dpcvx.verification.verdict.pure_at_delta`) is epsilon-DP, which implies the stated (epsilon,
        delta); its curve says the stronger, true statement, so that a bridge translates it faithfully
        (:meth:`~.privacy_curve.PrivacyCurve.to_dp_events`: an epsilon-DP event, where an (epsilon, delta > 0) part
        has none and was refused) and a ledger composes it as the pure part it is. The release still states, and is
        charged, the (epsilon, delta) asked for. The calibrations with a tighter curve override this (the Gaussian
        ones)."""
        return epsilon_delta_curve(epsilon, delta if self.approximate else 0.0, self.relation)

    @property
    def float_guarantee(self) -> FloatGuarantee | None:
        """The floating-point guarantee the release gives: mitigation only once rounded to its grid."""
        return None if getattr(self, "release_grid", None) is None else FloatGuarantee.MITIGATION_ONLY

    @property
    def laplace_beta(self) -> float | None:
        """beta of l2-Laplace noise exp(-beta ||b||) the release draws (objective: of b), else None."""
        return None

    @abstractmethod
    def noise_moments(self, d: int) -> NoiseMoments:
        """E||b||, E||b||^2 of the noise b (objective: in the objective; output: added to w) and of the
        approximate-minimiser noise b_2 added to w (objective only; 0 without one)."""

    def expected_noise(self, d: int, n_strong: float) -> float:
        """E||noise in w|| of a linear release, ``n_strong`` = n (m Lam + Delta) (public).

        Output perturbation adds b to w. Objective perturbation adds b^T w / n to an (m Lam +
        Delta)-strongly convex objective, which moves the minimiser by at most ||b|| / (n (m Lam +
        Delta)), plus the approximate-minimiser noise b_2 added to w.
        """
        moments = self.noise_moments(d)
        if self.mechanism is Mechanism.OUTPUT:
            return moments.first
        return moments.first / n_strong + moments.amp_first


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
