"""The random draws of random Fourier features (Rahimi and Recht, NIPS 2007).

The frequencies and phases are drawn from the generator only, never from the
data; they are public (part of a released model). They live here because the
privacy layer is the one place that draws random numbers.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["draw_fourier_features"]


def draw_fourier_features(kernel: str, gamma: float, n_components: int, n_features: int,
                          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(Omega, phase): Omega's rows from the kernel's spectral density, phase ~ U[0, 2 pi).

    rbf exp(-gamma ||x - x'||^2): N(0, 2 gamma I); laplacian exp(-gamma ||x - x'||_1):
    independent Cauchy(0, gamma) coordinates.
    """
    shape = (n_components, n_features)
    if kernel == "rbf":
        frequencies = rng.normal(0.0, math.sqrt(2 * gamma), size=shape)
    else:
        frequencies = gamma * rng.standard_cauchy(size=shape)
    phases = rng.uniform(0.0, 2 * math.pi, size=n_components)
    return frequencies, phases
