"""Selecting the floating-point-safe form of a linear release (``PrivateERM(..., float_safe=True)``).

=========================  =========================================  ==================
float calibration          float-safe form                            guarantee
=========================  =========================================  ==================
output, pure epsilon       product discrete Laplace on a lattice      EXACT
output, (epsilon, delta)   multivariate discrete Gaussian (zCDP)      EXACT
objective, pure epsilon    dithered lattice noise + lattice b_2       DITHERED_LATTICE
objective, (eps, delta)    none: refused (check_float_safe_form)      -
=========================  =========================================  ==================

The Gaussian objective has no float-safe form: ``float_safe=True`` would change nothing there (its release keeps
the grid of round_to_grid, MITIGATION_ONLY, as without it), so :func:`check_float_safe_form` refuses it before
anything is charged, in Python and on the command line alike, rather than accept a flag that does nothing.

Proofs: docs/theory.md, section "Floating point: the linear releases". The exact samplers draw
from the OS CSPRNG unless a seed is given (:func:`~dpcvx.privacy.exact_sampling.integer_source`).
"""

from __future__ import annotations

import numpy as np

from ..advice import setting
from ..exceptions import InputError
from .calibrate import ObjectivePerturbation, OutputPerturbation
from .calibrate_gaussian import GaussianOutputPerturbation, ReleaseCalibration
from .calibration import LinearCalibration
from .exact_sampling import IntegerSource
from .lattice_objective import LatticeObjective
from .lattice_output import LatticeGaussianOutput, LatticeLaplaceOutput

__all__ = ["LatticeCalibration", "LATTICE_CALIBRATIONS", "check_float_safe_form", "continuous_calibration",
           "float_safe_calibration",
           "draw_objective_noise",
           "draw_release_noise", "release_offset", "float_safe_guarantee"]

LatticeCalibration = LatticeLaplaceOutput | LatticeGaussianOutput | LatticeObjective
LATTICE_CALIBRATIONS = (LatticeLaplaceOutput, LatticeGaussianOutput, LatticeObjective)


def check_float_safe_form(objective: bool, delta: float) -> None:
    """Refuse ``float_safe=True`` for objective perturbation with delta > 0 (``objective``: the mechanism is
    objective perturbation; ``delta`` checked): the Gaussian objective has no float-safe form (the table above), so
    the flag would change nothing and the release would be the float one (MITIGATION_ONLY). The one rule of the
    learners' checks before anything is charged (:meth:`dpcvx.PrivateERM.check_options`, every fit) and so of
    ``dpcvx fit --float-safe`` (a usage error there)."""
    if objective and delta > 0:
        output = setting("mechanism", repr("output"), "output")
        raise InputError(
            f"{setting('float_safe', 'True')} has no floating-point-safe form for objective perturbation with delta "
            "> 0 (the Gaussian objective): it would change nothing, and the release's floating-point guarantee would "
            f"stay 'mitigation-only'. For a release proved for floating point use {output} (a discrete Gaussian on a "
            f"lattice) or {setting('delta', '0', 'None')} (pure epsilon: dithered-lattice objective perturbation); "
            f"else fit with {setting('float_safe', 'False')}. Nothing was charged")


def float_safe_calibration(calibration: ReleaseCalibration, dim: int) -> ReleaseCalibration | LatticeCalibration:
    """The lattice form of a linear release's calibration (a Gaussian objective, which has none and which
    :func:`check_float_safe_form` refuses before a fit, is returned unchanged: a saved file's calibration as it
    was)."""
    if isinstance(calibration, OutputPerturbation):
        return LatticeLaplaceOutput(calibration, dim)
    if isinstance(calibration, GaussianOutputPerturbation):
        return LatticeGaussianOutput(calibration)
    if isinstance(calibration, ObjectivePerturbation):
        return LatticeObjective(calibration, dim)
    return calibration


def continuous_calibration(calibration: LinearCalibration) -> LinearCalibration:
    """The continuous mechanism a float-safe calibration puts on its lattice (its ``base``), else ``calibration``:
    what a fit calibrates before :func:`float_safe_calibration`, and so what ``lam="auto"``'s rule reads (the loader
    re-derives the rule's bound at it)."""
    return calibration.base if isinstance(calibration, LATTICE_CALIBRATIONS) else calibration


def draw_objective_noise(calibration: ReleaseCalibration | LatticeCalibration, d: int,
                         rng: np.random.Generator, source: IntegerSource) -> np.ndarray:
    """The objective's noise: exact integer noise for a lattice calibration, else the float sampler."""
    if isinstance(calibration, LATTICE_CALIBRATIONS):
        return calibration.draw_objective_noise(d, source)
    return calibration.draw_objective_noise(d, rng)


def draw_release_noise(calibration: ReleaseCalibration | LatticeCalibration, d: int,
                       rng: np.random.Generator, source: IntegerSource) -> np.ndarray:
    """The release's noise (output perturbation's b, or objective perturbation's b_2 covering the approximate
    minimiser): exact integer lattice steps for a lattice calibration, else the float sampler. It does not depend
    on the weights, so a fit draws it with the objective's noise, before the solve (nothing is drawn in between,
    so a seeded fit draws the same values as when it was drawn after)."""
    if isinstance(calibration, LATTICE_CALIBRATIONS):
        return calibration.draw_release_noise(d, source)
    return calibration.draw_release_noise(d, rng)


def release_offset(calibration: ReleaseCalibration | LatticeCalibration, noise: np.ndarray) -> np.ndarray:
    """The drawn release noise as a move of the weights: released - w is this up to the rounding onto the grid
    or lattice (the noise itself, or a lattice's steps times its spacing)."""
    if isinstance(calibration, LATTICE_CALIBRATIONS):
        return calibration.release_offset(noise)
    return noise


_SECTION = "docs/theory.md, section 'Floating point: the linear releases'"
_THEOREMS = {
    LatticeLaplaceOutput: "the noise is a product discrete Laplace on a public lattice, calibrated to the l1 bound "
                          f"sqrt(d) Delta_2 plus the rounding ({_SECTION})",
    LatticeGaussianOutput: "the noise is a multivariate discrete Gaussian on a public lattice, rho-zCDP (Canonne, "
                           "Kamath and Steinke 2020) converted to (epsilon, delta) by their Corollary 13, in place "
                           f"of the analytic Gaussian ({_SECTION})",
    LatticeObjective: "the objective's noise lies on a public lattice, proved through a uniform dither of its cell, "
                      "and the approximate-minimiser noise is a product discrete Laplace on a lattice "
                      f"({_SECTION})",
}


def float_safe_guarantee(calibration: LinearCalibration, guarantee: str) -> str:
    """The release's guarantee sentence, with the float-safe mechanism named when there is one (a fitted or a loaded
    release's calibration: the file's reader compares the recorded sentence with it)."""
    if isinstance(calibration, LATTICE_CALIBRATIONS):
        return f"{guarantee}; {_THEOREMS[type(calibration)]}"
    return guarantee
