"""A recorded calibration read back: which class reads a record, and the recompute-and-compare of its fields.

A release records its calibration as ``calibration.to_dict()``. :func:`read_linear` picks the
:class:`~dpcvx.privacy.calibration.LinearCalibration` class the record's ``mechanism`` and ``noise``
name (:data:`LINEAR_CALIBRATIONS`), :func:`read_kernel` the
:class:`~dpcvx.privacy.kernel_calibrate.KernelCalibration` class of the certificate's algorithm and the
record's sampler (:data:`KERNEL_CALIBRATIONS`); these are the only tables of calibration classes. Each
rebuilds the library's own calibration from the record's public inputs (``from_record``, the inverse of
``to_dict``) and refuses a record whose fields disagree with the rebuilt one's (:func:`same_number`),
naming the field. The result is the typed calibration a fitted release holds. Every kind's reader rebuilds through
:func:`rebuild`, the one place where a recorded number no field check caught (an overflow, a division by zero) is
refused as a typed error naming the record.
"""

from __future__ import annotations

import numbers
from typing import Any, TypeVar

import numpy as np

from ...exceptions import InputError
from ...privacy.calibrate import ObjectivePerturbation, OutputPerturbation
from ...privacy.calibrate_gaussian import GaussianObjectivePerturbation, GaussianOutputPerturbation
from ...privacy.calibration import Calibration, LinearCalibration, Noise, PublicFacts, Record
from ...privacy.kernel_calibrate import KernelCalibration, PINPParameters, TDDLCalibration, TDILParameters
from ...privacy.lattice_objective import LatticeObjective
from ...privacy.lattice_output import LatticeGaussianOutput, LatticeLaplaceOutput
from ...privacy.lattice_predictions import LatticeTDDL
from ...privacy.lattice_tdil import LatticeTDIL
from ...rounding import same_recorded

__all__ = ["LINEAR_CALIBRATIONS", "KERNEL_CALIBRATIONS", "linear_class", "read_linear", "read_kernel", "rebuild",
           "same_number", "same_json_type", "compare_recorded"]

C = TypeVar("C", bound=Calibration)

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


#: Every calibration a kernel release can carry, by the certificate's algorithm and whether the record's noise is
#: drawn exactly on a lattice (``"sampler": "exact"``, the float-safe forms).
KERNEL_CALIBRATIONS: tuple[type[KernelCalibration], ...] = (
    TDDLCalibration, LatticeTDDL, PINPParameters, TDILParameters, LatticeTDIL)
_KERNEL_BY_NAMES = {(kind.algorithm, kind.exact_sampler): kind for kind in KERNEL_CALIBRATIONS}


def same_number(recorded: Any, recomputed: Any) -> bool:
    """Whether a recorded field is the recomputed one: a bool only as the same bool, an integer as the same integer,
    another number within a relative ``RECORD_TOLERANCE`` (1e-9) of it, anything else equal.

    The recorded number is a double the codec wrote with the shortest text that reads back exactly, so the same
    computation on the same machine matches bit for bit. A tolerance is still sound, and needed: the loaded
    certificate holds the recomputed calibration, never the recorded number, so the comparison only decides
    whether a file is refused as edited; and another machine (another libm, eigensolver or thread count) may move
    a recomputed double by a few ulps (lambda_max of TDDL's K_Z), and an earlier dpcvx computed some Gaussian
    scales a little differently (:data:`dpcvx.rounding.RECORD_TOLERANCE`).
    """
    if isinstance(recorded, bool) or isinstance(recomputed, bool):
        return recorded is recomputed
    if isinstance(recorded, numbers.Integral) and isinstance(recomputed, numbers.Integral):
        return bool(recorded == recomputed)  # a count or a lattice's steps: exact (an edit by one is an edit)
    if isinstance(recorded, numbers.Real) and isinstance(recomputed, numbers.Real):
        return same_recorded(float(recorded), float(recomputed))
    return bool(recorded == recomputed)


def compare_recorded(record: Record, recomputed: dict[str, Any], used: str) -> None:
    """Refuse a record whose fields are not those the library recomputes from ``used``, naming the field."""
    for key in [*recomputed, *(key for key in record if key not in recomputed)]:
        if key not in recomputed:
            # a null the calibration reads as "does not apply" (release_grid: no grid) takes the fields beside it out
            # of the recomputed record: name the null, which is the likelier edit, with the key it left over
            nulls = [name for name, value in recomputed.items() if value is None and name in record]
            raise InputError(f"certificate.calibration.{key} is not part of a dpcvx calibration"
                             + (f" whose {' and '.join(nulls)} {'is' if len(nulls) == 1 else 'are'} null: "
                                f"{', '.join(nulls)} must be a number where the release records {key}"
                                if nulls else "") + "; the file has been edited")
        if key not in record:
            raise InputError(f"certificate.calibration.{key} is missing (recomputed "
                             f"{recomputed[key]!r}); the file is incomplete")
        if not same_number(record[key], recomputed[key]):
            raise InputError(f"certificate.calibration.{key}: recorded {record[key]!r}, recomputed "
                             f"{recomputed[key]!r} from {used}; the file has been edited")
        if not same_json_type(record[key], recomputed[key]):
            raise InputError(f"certificate.calibration.{key}: recorded {record[key]!r}, which is not "
                             f"{_json_type(recomputed[key])} as dpcvx records it; the file has been edited")


def _json_type(value: Any) -> str:
    """The JSON type a recomputed field is written as, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, numbers.Integral):
        return "an integer"
    if isinstance(value, numbers.Real):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "a string" if isinstance(value, str) else type(value).__name__


def same_json_type(recorded: Any, recomputed: Any) -> bool:
    """Whether a recorded field has the JSON type the library writes the recomputed one as: null only for null, a
    flag only for a flag, an integer only as a JSON integer (80.0 is not the count 80, and a reader would write it
    back as read), any number for a real number (the rule of :func:`~.fields._number`), a text for a text, and a list
    of as many entries, each of its entry's type."""
    if recomputed is None or isinstance(recomputed, bool):
        return recorded is recomputed if recomputed is None else isinstance(recorded, bool)
    if isinstance(recomputed, numbers.Integral):
        return isinstance(recorded, int) and not isinstance(recorded, bool)
    if isinstance(recomputed, numbers.Real):
        return isinstance(recorded, (int, float)) and not isinstance(recorded, bool)
    if isinstance(recomputed, (list, tuple)):
        return isinstance(recorded, list) and len(recorded) == len(recomputed) and all(
            map(same_json_type, recorded, recomputed))
    return isinstance(recorded, type(recomputed))


def rebuild(kind: type[C], record: Record, facts: PublicFacts, used: str | None,
            garbled: tuple[type[Exception], ...] = ()) -> C:
    """``kind``'s calibration rebuilt from ``record`` and ``facts`` (``from_record``) and, unless ``used`` is None,
    its record compared with ``record`` (:func:`compare_recorded`, ``used`` naming the inputs).

    A refusal of the inputs (an InputError, or one of ``garbled``: a kernel calibration's reader takes a field of
    the wrong type for a Python error) is an InputError naming the record. So is an ArithmeticError anywhere in the
    rebuilding (an overflow, a division by zero): the readers check every number they pass (its type, and the range
    the fit's entry checks enforce), and this guard keeps a number they missed from ending a load with an untyped
    error."""
    refused: tuple[type[Exception], ...] = (InputError, *garbled)
    try:
        calibration = kind.from_record(record, facts)
    except refused as error:
        raise InputError(f"certificate.calibration cannot be recomputed: {error}") from None
    except ArithmeticError as error:
        raise _arithmetic(error) from None
    if used is not None:
        try:
            compare_recorded(record, calibration.to_dict(), used)
        except ArithmeticError as error:
            raise _arithmetic(error) from None
    return calibration


def _arithmetic(error: ArithmeticError) -> InputError:
    return InputError(f"certificate.calibration cannot be recomputed from its recorded numbers "
                      f"({type(error).__name__}: {error}); the file has been edited")


def read_linear(record: Record) -> LinearCalibration:
    """The typed calibration of a linear release's record, recomputed from its public inputs and compared."""
    kind = linear_class(record)
    return rebuild(kind, record, PublicFacts(), ", ".join(key for key in kind.inputs if key in record))


def read_kernel(record: Any, algorithm: str, kernel: Any, centers: np.ndarray) -> KernelCalibration:
    """The typed calibration of a kernel release (``algorithm``) whose public sample or released centres are
    ``centers``, recomputed from the record's public inputs and compared."""
    if not isinstance(record, dict):
        raise InputError("certificate.calibration must be an object")
    kind = _KERNEL_BY_NAMES.get((algorithm, record.get("sampler") == "exact"))
    if kind is None:
        raise InputError(f"certificate.calibration of {algorithm} names sampler {record.get('sampler')!r}; "
                         "the file has been edited")
    return rebuild(kind, record, PublicFacts(algorithm=algorithm, kernel=kernel, centers=centers), "the public inputs",
                   (TypeError, ValueError))
