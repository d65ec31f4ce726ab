"""The NOT PRIVATE notes on the training rows (:class:`~dpcvx.exceptions.TrainingRowsWarning`) that a call shows."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from dpcvx.exceptions import TrainingRowsWarning


def told(call: Callable[..., Any], *args: Any) -> list[str]:
    """The texts of the TrainingRowsWarnings ``call(*args)`` shows (a fit: ``told(estimator.fit, X, y)``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*args)
    return [str(w.message) for w in caught if w.category is TrainingRowsWarning]
