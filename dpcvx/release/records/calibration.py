"""A recorded calibration read back: which class reads a record, and the recompute-and-compare of its fields.

A linear release records its calibration as ``calibration.to_dict()``; :func:`read_linear` picks the
:class:`~dpcvx.privacy.calibration.LinearCalibration` class the record's ``mechanism`` and ``noise``
name (:data:`LINEAR_CALIBRATIONS`: the only table of them), rebuilds the library's own calibration
from the record's public inputs (``from_record``, the inverse of ``to_dict``) and refuses a record
whose fields disagree with the rebuilt one's, naming the field. The result is the typed calibration a
fitted release holds. A kernel release's record is recomputed by :func:`recompute_kernel`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...exceptions import InputError
from ...privacy.calibrate import ObjectivePerturbation, OutputPerturbation
from ...privacy.calibrate_gaussian import GaussianObjectivePerturbation, GaussianOutputPerturbation
from ...privacy.calibration import LinearCalibration, Noise, PublicFacts, Record
from ...privacy.kernel_calibrate import recompute_kernel_calibration
from ...privacy.lattice_objective import LatticeObjective
from ...privacy.lattice_output import LatticeGaussianOutput, LatticeLaplaceOutput
from ...privacy.lattice_predictions import recompute_lattice_tddl
from ...privacy.lattice_tdil import recompute_lattice_tdil

__all__ = ["LINEAR_CALIBRATIONS", "linear_class", "read_linear", "same_number", "recompute_kernel"]

#: Every calibration a linear release can carry (docs/architecture.md, "A new mechanism").
LINEAR_CALIBRATIONS: tuple[type[LinearCalibration], ...] = (
    OutputPerturbation, ObjectivePerturbation, GaussianOutputPerturbation, GaussianObjectivePerturbation,
    LatticeLaplaceOutput, LatticeGaussianOutput, LatticeObjective)
_BY_NAMES = {(kind.mechanism.value, kind.noise.value): kind for kind in LINEAR_CALIBRATIONS}


def linear_class(record: Record) -> type[LinearCalibration]:
    """The class whose record ``record`` is (a record that names no noise is l2-Laplace); InputError otherwise."""
    key = (str(record.get("mechanism")), str(record.get("noise", Noise.L2_LAPLACE.value)))
    if key not in _BY_NAMES:
        known = ", ".join(f"({mechanism}, {noise})" for mechanism, noise in _BY_NAMES)
        raise InputError(f"calibration.mechanism {key[0]!r} with noise {key[1]!r} is not a dpcvx calibration; "
                         f"known: {known}")
    return _BY_NAMES[key]


def same_number(recorded: Any, recomputed: Any) -> bool:
    """Whether a recorded field equals the recomputed one (numbers as floats, a bool only as a bool)."""
    if isinstance(recorded, bool) or isinstance(recomputed, bool):
        return recorded is recomputed
    if isinstance(recorded, numbers.Real) and isinstance(recomputed, numbers.Real):
        return float(recorded) == float(recomputed)
    return recorded == recomputed


def _compare(record: Record, recomputed: dict[str, Any], inputs: tuple[str, ...]) -> None:
    """Refuse a record whose fields are not those the library recomputes from its inputs, naming the field."""
    for key in [*recomputed, *(key for key in record if key not in recomputed)]:
        if key not in recomputed:
            raise InputError(f"certificate.calibration.{key} is not part of a dpcvx calibration; the "
                             "file has been edited")
        if key not in record:
            raise InputError(f"certificate.calibration.{key} is missing (recomputed "
                             f"{recomputed[key]!r}); the file is incomplete")
        if not same_number(record[key], recomputed[key]):
            used = ", ".join(k for k in inputs if k in record)
            raise InputError(f"certificate.calibration.{key}: recorded {record[key]!r}, recomputed "
                             f"{recomputed[key]!r} from {used}; the file has been edited")


def read_linear(record: Record) -> LinearCalibration:
    """The typed calibration of a linear release's record, recomputed from its public inputs and compared."""
    kind = linear_class(record)
    try:
        calibration = kind.from_record(record, PublicFacts())
    except InputError as error:
        raise InputError(f"certificate.calibration cannot be recomputed: {error}") from None
    _compare(record, calibration.to_dict(), kind.inputs)
    return calibration


# the float-safe forms of the kernel releases (TDDL / TDIL with float_safe=True), from their float records
_FLOAT_SAFE_KERNELS = {"TDDL": recompute_lattice_tddl, "TDIL": recompute_lattice_tdil}


def recompute_kernel(record: Record, algorithm: str, kernel: Any, centers: np.ndarray | None) -> dict[str, Any]:
    """The record the library computes for a kernel release (``algorithm``) from the public inputs it states."""
    recomputed = recompute_kernel_calibration(algorithm, dict(record), kernel=kernel, centers=centers)
    if record.get("sampler") == "exact" and algorithm in _FLOAT_SAFE_KERNELS:
        if centers is None:
            raise InputError("a float-safe kernel calibration needs the public centres")
        recomputed = _FLOAT_SAFE_KERNELS[algorithm](recomputed, kernel, centers.shape[1])
    return recomputed
