"""The per-record map from a raw row x to the vector the privacy theorems see.

1. An optional public feature map (for example random Fourier features), whose
   output norm is bounded by its ``norm_bound``.
2. Rows with ||x|| > R are scaled onto the sphere of radius R (``clip=True``,
   the default) or refused (``clip=False``). R is a public input, never read
   off the data.
3. With an intercept, a constant feature s is appended, so ||(x, s)|| <= sqrt(R^2 + s^2):
   the intercept is an ordinary coordinate, inside the norm bound, the
   regularizer and the noise (no unregularised, perturbed coordinate).

Every step is a function of one record alone, so the map preserves
neighbouring datasets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sparse

from .exceptions import InputError
from .validation import check_matrix

__all__ = ["RowMap"]

# Scale clipped rows to R (1 - _SHRINK) so rounding never leaves them above R.
_SHRINK = 4 * np.finfo(float).eps
# Rows within this relative margin of R (round-off of a normalisation) are scaled
# onto the bound like any other, but not counted, warned about or refused.
_ROUNDOFF = 1e-9


def _row_norms(X) -> np.ndarray:
    if sparse.issparse(X):
        return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return np.sqrt(np.einsum("ij,ij->i", X, X))


@dataclass(frozen=True)
class RowMap:
    """Feature map, clipping to the public bound R, optional intercept feature."""

    norm_bound: float
    feature_map: Any = None
    fit_intercept: bool = False
    intercept_scaling: float = 1.0

    @property
    def effective_norm_bound(self) -> float:
        """R of the vectors the theorems see: sqrt(R^2 + s^2) with an intercept."""
        if self.fit_intercept:
            return math.hypot(self.norm_bound, self.intercept_scaling)
        return self.norm_bound

    def dimension(self, input_dim: int) -> int:
        return input_dim + (1 if self.fit_intercept else 0)

    def features(self, X: Any) -> np.ndarray | sparse.csr_matrix:
        """Checked input, through the feature map if there is one (no clipping)."""
        X = check_matrix(X)
        if self.feature_map is not None:
            X = check_matrix(self.feature_map.transform(X), "feature_map.transform(X)")
        return X

    def clip(self, X, refuse: bool = False, in_place: bool = False):
        """(rows with norm above R scaled onto the bound, how many were).

        ``in_place`` scales the rows of X itself: only for an array dpcvx made.
        """
        norms = _row_norms(X)
        beyond = norms > self.norm_bound
        count = int(np.count_nonzero(norms > self.norm_bound * (1 + _ROUNDOFF)))
        if count and refuse:
            raise InputError(
                f"{count} rows have norm above data_norm={self.norm_bound:g}; nothing was "
                "fitted. Rescale the data with public bounds, raise data_norm, or pass "
                "clip=True to scale those rows onto the bound"
            )
        if np.any(beyond):
            factors = np.ones_like(norms)
            factors[beyond] = self.norm_bound / norms[beyond] * (1 - _SHRINK)
            if sparse.issparse(X):
                return sparse.diags(factors) @ X, count
            if not in_place:
                X = X.copy(order="K")
            X[beyond] *= factors[beyond, None]
        return X, count

    def with_intercept(self, X):
        if not self.fit_intercept:
            return X
        if sparse.issparse(X):
            column = sparse.csr_matrix(np.full((X.shape[0], 1), self.intercept_scaling))
            return sparse.hstack([X, column], format="csr")
        out = np.empty((X.shape[0], X.shape[1] + 1), order="F")
        out[:, :-1] = X
        out[:, -1] = self.intercept_scaling
        return out

    def apply(self, X: Any, refuse: bool = False):
        """(the mapped rows the theorems see, how many rows were clipped). X is never modified."""
        features = self.features(X)
        owned = not (isinstance(X, np.ndarray) and np.shares_memory(features, X))
        clipped, count = self.clip(features, refuse, in_place=owned)
        return self.with_intercept(clipped), count
