"""Selecting the floating-point-safe form of a linear release (``PrivateERM(..., float_safe=True)``).

=========================  =========================================  ==================
float calibration          float-safe form                            guarantee
=========================  =========================================  ==================
output, pure epsilon       product discrete Laplace on a lattice      EXACT
output, (epsilon, delta)   multivariate discrete Gaussian (zCDP)      EXACT
objective, pure epsilon    dithered lattice noise + lattice b_2       DITHERED_LATTICE
objective, (eps, delta)    unchanged (the grid of round_to_grid)      MITIGATION_ONLY
=========================  =========================================  ==================

Proofs: docs/theory.md, section "Floating point: the linear releases". The exact samplers draw
from the OS CSPRNG unless a seed is given (:func:`~dpcvx.privacy.exact.integer_source`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import InputError
from .calibrate import ObjectivePerturbation, OutputPerturbation, objective_perturbation, output_perturbation
from .calibrate_gaussian import GaussianOutputPerturbation, ReleaseCalibration, gaussian_output_perturbation
from .exact import IntegerSource
from .lattice_objective import LatticeObjective
from .lattice_output import LatticeGaussianOutput, LatticeLaplaceOutput

__all__ = ["LatticeCalibration", "LATTICE_CALIBRATIONS", "float_safe_calibration", "draw_objective_noise",
           "perturb_release", "recompute_float_safe", "lattice_description",
           "float_safe_guarantee"]

LatticeCalibration = LatticeLaplaceOutput | LatticeGaussianOutput | LatticeObjective
LATTICE_CALIBRATIONS = (LatticeLaplaceOutput, LatticeGaussianOutput, LatticeObjective)


def float_safe_calibration(calibration: ReleaseCalibration, dim: int) -> ReleaseCalibration | LatticeCalibration:
    """The lattice form of a linear release's calibration (the Gaussian objective is returned unchanged)."""
    if isinstance(calibration, OutputPerturbation):
        return LatticeLaplaceOutput(calibration, dim)
    if isinstance(calibration, GaussianOutputPerturbation):
        return LatticeGaussianOutput(calibration)
    if isinstance(calibration, ObjectivePerturbation):
        return LatticeObjective(calibration, dim)
    return calibration


def draw_objective_noise(calibration: ReleaseCalibration | LatticeCalibration, d: int,
                         rng: np.random.Generator, source: IntegerSource) -> np.ndarray:
    """The objective's noise: exact integer noise for a lattice calibration, else the float sampler."""
    if isinstance(calibration, LATTICE_CALIBRATIONS):
        return calibration.draw_objective_noise(d, source)
    return calibration.draw_objective_noise(d, rng)


def perturb_release(calibration: ReleaseCalibration | LatticeCalibration, w: np.ndarray,
                    rng: np.random.Generator, source: IntegerSource
                    ) -> tuple[np.ndarray, ReleaseCalibration | LatticeCalibration]:
    """The released point and the calibration to record (lattice: exact noise; float: the grid)."""
    if isinstance(calibration, LATTICE_CALIBRATIONS):
        return calibration.perturb_release(w, source)
    return calibration.perturb_release(w, rng)


def recompute_float_safe(recorded: dict[str, Any]) -> dict[str, Any]:
    """The calibration dict of a saved float-safe release, recomputed from its public inputs."""
    def get(key: str) -> Any:
        if key not in recorded:
            raise InputError(f"calibration.{key} is missing")
        return recorded[key]

    mechanism, noise = get("mechanism"), get("noise")
    common = {"L": get("L"), "R": get("R"), "m": get("m"), "tol": get("tol")}
    if mechanism == "output" and noise == "discrete-gaussian":
        return LatticeGaussianOutput(gaussian_output_perturbation(
            get("n"), get("lam"), get("epsilon"), get("delta"), dim=get("dim"), neighbours=get("neighbours"),
            **common)).to_dict()
    if mechanism == "output" and noise == "discrete-laplace":
        return LatticeLaplaceOutput(output_perturbation(get("n"), get("lam"), get("epsilon"), **common),
                                    get("dim")).to_dict()
    if mechanism == "objective" and noise == "discrete-laplace":
        base = objective_perturbation(get("n"), get("lam"), get("epsilon"), get("c"), split=get("split"), **common)
        return LatticeObjective(base, get("dim")).to_dict()
    raise InputError(f"calibration.noise {noise!r} with mechanism {mechanism!r} is not a float-safe release")


def lattice_description(calibration: dict[str, Any]) -> str:
    """One line of the certificate for a float-safe calibration (its recorded fields)."""
    c = calibration
    if c["noise"] == "discrete-gaussian":
        noise = (f"multivariate discrete Gaussian sigma^2 = {c['sigma2_steps']:.6g} steps^2, "
                 f"{c['zcdp_rho']:.6g}-zCDP, squared l2 sensitivity {c['lattice_l2_squared_sensitivity']} steps^2")
    else:
        scale = c["noise_scale_steps" if c["mechanism"] == "output" else "release_scale_steps"]
        noise = (f"product discrete Laplace of scale {scale:.6g} steps, "
                 f"l1 sensitivity {c['lattice_l1_sensitivity']} steps")
    line = f"calibration (exact sampler): release lattice {c['lattice']:.6g}, {noise}"
    if c["mechanism"] == "objective":
        line += (f"; objective noise on the lattice {c['noise_lattice']:.6g} (discrete Laplace of scale "
                 f"{c['noise_scale_steps']:.6g} steps, eps' = {c['epsilon_prime']:.6g}, Delta = {c['extra_reg']:.6g}), "
                 f"dithered radius {c['dithered_radius']:.3g}")
    return line


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


def float_safe_guarantee(calibration: ReleaseCalibration | LatticeCalibration, guarantee: str) -> str:
    """The release's guarantee sentence, with the float-safe mechanism named when there is one."""
    if isinstance(calibration, LATTICE_CALIBRATIONS):
        return f"{guarantee}; {_THEOREMS[type(calibration)]}"
    return guarantee
