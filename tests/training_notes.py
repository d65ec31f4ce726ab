"""The NOT PRIVATE notes on the training rows (:class:`~dpcvx.exceptions.TrainingRowsWarning`) that a call shows."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning


def told(call: Callable[..., Any], *args: Any) -> list[str]:
    """The texts of the TrainingRowsWarnings ``call(*args)`` shows (a fit: ``told(estimator.fit, X, y)``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*args)
    return [str(w.message) for w in caught if w.category is TrainingRowsWarning]


def heavy_spend(n: int, seed: int, spread: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """A lognormal spend column (log-scale ``spread``) driving its label, declared (0, 1e5), the label declared
    (-100, 1e5) (probeB r4): MAP_LOST fires on DPLinearRegression's default here; at spread 1.5 the release keeps about
    0.3 to 0.4 of least squares' R^2 before the map (weak), at 0.5 about 0.9 of it (useful)."""
    rng = np.random.default_rng(seed)
    spend = np.exp(rng.normal(5, spread, n))
    visits, age = rng.integers(0, 30, n).astype(float), rng.integers(18, 80, n).astype(float)
    y = 0.8 * spend + 5 * visits + rng.normal(0, 20, n)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("spend", 0, 1e5), dpcvx.NumericColumn("visits", 0, 31),
                                 dpcvx.NumericColumn("age", 17, 90)), norm=1.0)
    return schema.transform({"spend": spend, "visits": visits, "age": age}), np.clip(y, -100, 1e5)
