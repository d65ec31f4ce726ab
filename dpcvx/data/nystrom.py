"""Nystrom features of PUBLIC landmarks: coordinates of the projection onto span phi(Z).

For a public sample Z = {z_1..z_T} with Gram matrix K_Z = U diag(lam) U^T,
the functions e_j = sum_t U_tj phi(z_t) / sqrt(lam_j) are an orthonormal
basis of span phi(Z) (Williams and Seeger, NIPS 2001). The coordinates of the
orthogonal projection P phi(x) in that basis are

    psi(x) = diag(lam_r)^(-1/2) U_r^T k_Z(x),   k_Z(x) = (k(z_t, x))_t,

so <psi(x), psi(x')> = <P phi(x), P phi(x')> and ||psi(x)|| <= ||phi(x)||.
Only the numerical range of K_Z is kept (:func:`dpcvx.privacy.kernel_calibrate.numerical_range`).

Restricting a kernel ERM to w in span phi(Z) is then the linear ERM on the
rows psi(x_i): the feature map is a function of public inputs only (the
landmarks must not be drawn from the private training data), and its rows
keep the public bound R_phi, so every sensitivity argument that needs
||phi(x)|| <= R_phi holds unchanged (docs/theory.md, section 11).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..exceptions import InputError
from ..privacy.kernel_calibrate import gram_spectrum, numerical_range
from .kernels import Kernel, as_rows, kernel_expansion

__all__ = ["NystromFeatures", "symmetric_gram"]


def symmetric_gram(kernel: Kernel, rows: np.ndarray) -> np.ndarray:
    """k(rows, rows), symmetrised; a typed error when the kernel is not symmetric beyond rounding."""
    gram = kernel.gram(rows, rows)
    asymmetry = float(np.max(np.abs(gram - gram.T)))
    if asymmetry > 1e-10 * max(float(np.max(np.abs(gram))), 1.0):
        raise InputError(f"the kernel is not symmetric (max |K - K^T| = {asymmetry:.3g}); "
                         "a kernel must satisfy k(x, x') = k(x', x)")
    return (gram + gram.T) / 2


class NystromFeatures:
    """x -> psi(x), the coordinates of P phi(x) in an orthonormal basis of span phi(Z)."""

    def __init__(self, kernel: Kernel, landmarks: ArrayLike) -> None:
        self.kernel = kernel
        # a copy of its own: the projection below is computed from these landmarks, and a Z the caller changed in
        # place afterwards mapped rows through the old projection and the new landmarks (sixty-seventh session)
        self.landmarks = np.array(as_rows(landmarks, "Z"))
        eigenvalues, vectors = gram_spectrum(symmetric_gram(kernel, self.landmarks))
        keep = numerical_range(eigenvalues)
        if not np.any(keep):
            raise InputError("the Gram matrix of the public sample is zero: phi(z_t) = 0 for all t")
        self._projection = vectors[:, keep] / np.sqrt(eigenvalues[keep])
        self._spectrum: tuple[np.ndarray, np.ndarray] | None = (eigenvalues, vectors)

    def take_spectrum(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The eigenvalues and eigenvectors of K_Z computed here (:func:`~dpcvx.privacy.kernel_calibrate.gram_spectrum`
        of (G + G^T) / 2, G = k(Z, Z)), once, for a caller that needs the same decomposition (TDDL's post-processing
        over the same public Z: one O(|Z|^3) eigendecomposition instead of two); None once taken. Public: a function
        of the public landmarks only."""
        spectrum, self._spectrum = self._spectrum, None
        return spectrum

    @property
    def rank(self) -> int:
        """r, the dimension of the numerical range of K_Z."""
        return int(self._projection.shape[1])

    def transform(self, X: ArrayLike, scaling: np.ndarray | None = None) -> np.ndarray:
        """The n x r matrix of psi(x_i), row i times ``scaling[i]`` when given.

        With ``scaling`` (the factors that enforce ||s_i phi(x_i)|| <= R_phi,
        :func:`dpcvx.data.kernels.feature_scaling`) each computed row is also
        clipped to norm R_phi, so rounding cannot lift it above the bound the
        privacy proof uses. Computed in row blocks.
        """
        X = as_rows(X, "X", self.landmarks.shape[1])
        features = kernel_expansion(self.kernel, X, self.landmarks, self._projection)
        if scaling is not None:
            norms = np.linalg.norm(features * scaling[:, None], axis=1)
            bound = self.kernel.feature_bound
            clip = np.where(norms > bound, bound / np.where(norms > bound, norms, 1.0), 1.0)
            features *= (scaling * clip)[:, None]
        return features
