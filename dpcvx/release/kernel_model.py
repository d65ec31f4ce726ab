"""The released kernel predictor f(x) = sum_t coef_t k(center_t, x).

The centres are public points (TDDL's public sample Z, PINP's queries, TDIL's
net points), never training rows, so the released object is the triple
(centres, coefficients, kernel). It holds no noise and no training data.

In :meth:`KernelPredictor.to_dict` the privatised values sit under the key
"privatised": the coefficients always (functions of the noisy answers), and
the centres when a mechanism chose them (PINP's updating queries, TDIL's
selected points); TDDL's centres are the public sample Z.
"""

from __future__ import annotations

import json
import math

import numpy as np

from ..exceptions import InputError
from ..models.kernels import Kernel, as_rows, kernel_expansion, kernel_from_dict
from ..solvers.kernel import as_labels

__all__ = ["KernelPredictor"]


class KernelPredictor:
    """f(x) = sum_t coef_t k(z_t, x); predicts sign(f(x)) (ties go to +1)."""

    def __init__(self, kernel: Kernel, centers, coef, privacy: dict | None = None,
                 privatised: tuple[str, ...] = ("coef",)):
        self.kernel = kernel
        centers = np.asarray(centers, dtype=float)
        coef = np.asarray(coef, dtype=float)
        if centers.ndim != 2 or coef.shape != (centers.shape[0],) \
                or not (np.all(np.isfinite(centers)) and np.all(np.isfinite(coef))):
            raise InputError("a kernel predictor needs finite centres of shape (T, d) and "
                             "finite coefficients of shape (T,)")
        self.centers, self.coef = centers, coef
        self.privacy = dict(privacy or {})
        if not set(privatised) <= {"centers", "coef"}:
            raise InputError(f"privatised names fields among 'centers' and 'coef', got {privatised!r}")
        self.privatised = tuple(privatised)

    @property
    def n_features(self) -> int:
        return self.centers.shape[1]

    @property
    def rkhs_norm(self) -> float:
        """||w|| = sqrt(coef^T K_Z coef)."""
        if self.coef.size == 0:
            return 0.0
        return math.sqrt(max(float(self.coef @ self.kernel.gram(self.centers, self.centers) @ self.coef), 0.0))

    def decision_function(self, X) -> np.ndarray:
        X = as_rows(X, "X", self.n_features)
        if self.coef.size == 0:
            return np.zeros(X.shape[0])
        return kernel_expansion(self.kernel, X, self.centers, self.coef)

    def predict(self, X) -> np.ndarray:
        """Labels in {-1, +1}: +1 where the decision value is > 0 (as for the linear models)."""
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)

    def score(self, X, y) -> float:
        """Accuracy on labels y in {-1, +1}."""
        X = as_rows(X, "X", self.n_features)
        return float(np.mean(self.predict(X) == as_labels(y, X.shape[0])))

    def to_dict(self) -> dict:
        """JSON-ready: kernel parameters, the privacy record, and the centres and coefficients
        (under "privatised" when a mechanism produced them)."""
        values = {"centers": self.centers.tolist(), "coef": self.coef.tolist()}
        public = {key: value for key, value in values.items() if key not in self.privatised}
        return {
            "type": "KernelPredictor",
            "kernel": self.kernel.to_dict(),
            "n_features": self.n_features,
            **public,
            "privatised": {key: values[key] for key in ("centers", "coef") if key in self.privatised},
            "privacy": self.privacy,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> KernelPredictor:
        """Rebuild a saved predictor from data (numbers and names only; nothing is executed)."""
        if not isinstance(data, dict) or data.get("type") != "KernelPredictor":
            raise InputError("not a saved KernelPredictor (missing type field)")
        try:
            privatised = data.get("privatised", {})
            fields = {key: privatised[key] if key in privatised else data[key] for key in ("centers", "coef")}
            centers = np.asarray(fields["centers"], dtype=float).reshape(-1, int(data["n_features"]))
            return cls(kernel_from_dict(data["kernel"]), centers, fields["coef"], data.get("privacy"),
                       privatised=tuple(key for key in ("centers", "coef") if key in privatised)
                       if "privatised" in data else ("coef",))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise InputError(f"malformed KernelPredictor data: {error}") from None

    @classmethod
    def from_json(cls, text: str) -> KernelPredictor:
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return f"KernelPredictor(kernel={self.kernel!r}, centers={self.centers.shape[0]})"
