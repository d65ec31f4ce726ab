"""A per-column affine feature map with public (or privatised) parameters: x -> (x - centre) * multiplier.

The map of a fit with private column statistics (:mod:`dpcvx.models.column_statistics`): its centre and
multiplier are post-processing of one private release, and a released model keeps the map in its public
row map (``to_dict`` / ``from_dict``, a built-in feature map of the model file), so ``predict`` maps new rows
exactly as the fit did. Each row is mapped on its own; ``norm_bound`` is the public bound R the learner clips
the map's outputs onto (docs/theory.md, section 33).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..exceptions import InputError
from ..privacy.adassp import COLUMN_SPREAD, AdaSSPCalibration

__all__ = ["ColumnStandardiser", "adassp_map"]


class ColumnStandardiser:
    """x -> (x - centre) * multiplier, column by column; outputs clipped onto ``norm_bound`` by the learner."""

    def __init__(self, centre: ArrayLike, multiplier: ArrayLike, norm_bound: float) -> None:
        centre_, multiplier_ = (np.array(values, dtype=np.float64).ravel() for values in (centre, multiplier))
        if centre_.size == 0 or centre_.shape != multiplier_.shape:
            raise InputError(f"a standardiser needs one centre and one multiplier per column, got {centre_.size} "
                             f"and {multiplier_.size}")
        if not (np.all(np.isfinite(centre_)) and np.all(np.isfinite(multiplier_)) and np.all(multiplier_ > 0)):
            raise InputError("a standardiser's centres must be finite and its multipliers finite and positive")
        if isinstance(norm_bound, bool) or not isinstance(norm_bound, (int, float)) \
                or not math.isfinite(norm_bound) or norm_bound <= 0:
            raise InputError(f"norm_bound must be a finite positive number, got {norm_bound!r}")
        centre_.setflags(write=False)
        multiplier_.setflags(write=False)
        self.centre, self.multiplier, self.norm_bound = centre_, multiplier_, float(norm_bound)

    def transform(self, X: ArrayLike) -> np.ndarray:
        """The mapped rows, a new array (X is never written to)."""
        rows = np.asarray(X, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != self.centre.size:
            raise InputError(f"the standardiser maps rows of {self.centre.size} columns, got shape {rows.shape}")
        return (rows - self.centre) * self.multiplier

    def to_dict(self) -> dict[str, Any]:
        return {"type": "ColumnStandardiser", "centre": self.centre.tolist(), "multiplier": self.multiplier.tolist(),
                "norm_bound": self.norm_bound}

    @classmethod
    def from_moments(cls, mean: np.ndarray, second: np.ndarray, floor: float, norm_bound: float, spread: float,
                     shrink: float = 1.0) -> ColumnStandardiser:
        """The map of privatised column means and second moments, in units of R (post-processing only).

        variance v_j = max(second_j - mean_j^2, floor); multiplier max(spread / sqrt(d v_j), 1), so a column of
        sd sqrt(v_j) R leaves with sd spread R / sqrt(d) or more and never narrower than given; centre
        shrink * mean_j * R (docs/theory.md, sections 16 and 33)."""
        variance = np.maximum(second - mean * mean, floor)
        multiplier = np.maximum(spread / np.sqrt(mean.size * variance), 1.0)
        return cls(shrink * mean * norm_bound, multiplier, norm_bound)

    @classmethod
    def from_dict(cls, data: dict) -> ColumnStandardiser:
        """Rebuild a saved map (numbers only; nothing is executed)."""
        if not isinstance(data, dict) or data.get("type") != "ColumnStandardiser" \
                or set(data) != {"type", "centre", "multiplier", "norm_bound"}:
            raise InputError("not a saved ColumnStandardiser (its keys are type, centre, multiplier, norm_bound)")
        return cls(data["centre"], data["multiplier"], data["norm_bound"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ColumnStandardiser) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((tuple(self.centre), tuple(self.multiplier), self.norm_bound))

    def __repr__(self) -> str:
        return f"ColumnStandardiser({self.centre.size} columns, norm_bound={self.norm_bound:g})"


def adassp_map(released: np.ndarray, calibration: AdaSSPCalibration, norm: float, n: int) -> ColumnStandardiser:
    """The map of AdaSSP's released column sums and sums of squares (mechanism ``adassp-standardised``;
    post-processing with the public n, d and R): means and second moments in units of R, the variance floor twice
    the sd of a second moment's noise, spread ``COLUMN_SPREAD``, no shrink of the centre. The sums' sensitivities
    are stated at the calibration's R_eff >= R, which bounds the rows clipped onto R."""
    d = released.size // 2
    mean = np.clip(released[:d] / (n * norm), -1.0, 1.0)
    second = released[d:] / (n * norm * norm)
    floor = 2 * calibration.column_sigmas[1] / (n * norm * norm)
    return ColumnStandardiser.from_moments(mean, second, floor, norm, COLUMN_SPREAD)
