"""Typed errors and warnings of dpcvx.

Every error dpcvx raises derives from :class:`DPCVXError`, so callers can catch
the whole family at once. Each message names the problem and a fix.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - for type checkers: exceptions imports nothing of dpcvx at run time
    from .verification.certificate import Condition

__all__ = [
    "DPCVXError",
    "InputError",
    "UsageError",
    "FileError",
    "NumericRangeError",
    "AssumptionError",
    "SolverError",
    "BudgetExceededError",
    "DPCVXWarning",
    "ClippingWarning",
    "ExponentialCostWarning",
]


class DPCVXError(Exception):
    """Base class of every error raised by dpcvx."""


class InputError(DPCVXError, ValueError):
    """The data or a parameter is malformed (shape, NaN, label, range)."""


class UsageError(InputError):
    """A command line is malformed: unknown command or option, a missing or malformed option value."""


class FileError(InputError):
    """A file cannot be read or written, or does not hold what it must (encoding, JSON, format)."""


class NumericRangeError(InputError):
    """Public parameters so extreme that the calibration overflows or underflows in floating point."""


class AssumptionError(DPCVXError):
    """A condition of the privacy theorem does not hold (or was not established).

    Raised at fit time when the certificate does not allow the requested
    mechanism. ``failures`` lists the failing conditions of the certificate.
    """

    def __init__(self, message: str, failures: Iterable[Condition] = ()) -> None:
        super().__init__(message)
        self.failures = tuple(failures)


class SolverError(DPCVXError):
    """The perturbed problem was not solved to the required accuracy.

    Nothing is released: the privacy proofs assume the exact minimiser.
    """


class BudgetExceededError(DPCVXError):
    """A privacy accountant refused a computation that would exceed its budget."""


class DPCVXWarning(UserWarning):
    """Base class of dpcvx warnings."""


class ClippingWarning(DPCVXWarning):
    """Rows with norm above the public bound were clipped (shown only to the curator)."""


class ExponentialCostWarning(DPCVXWarning):
    """TDIL searches a net of the input ball whose size is exponential in the input dimension."""
