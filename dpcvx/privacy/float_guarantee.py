"""Which privacy guarantee a release keeps once its arithmetic is in doubles.

dpcvx's proofs are written over the reals; a release computed in floating point
is covered only if its sampler and the evaluation of its secret are part of the
proof (Mironov 2012; Casacuberta, Shoemate, Vadhan and Wagaman 2022). Every
certificate names one of these, and the loader checks the name against the
mechanism's own (:meth:`FloatGuarantee.parse`).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from ..exceptions import InputError

__all__ = ["FloatGuarantee", "named_guarantee"]


class FloatGuarantee(str, Enum):
    """The floating-point status of a release (the value is the name written in files)."""

    #: the released values follow the proved law exactly: integer noise drawn exactly over the
    #: rationals (:mod:`dpcvx.privacy.exact_sampling`) on a data-independent lattice, with the rounding to the
    #: lattice and a proved bound on the floating-point error of the secret charged to the sensitivity
    EXACT = "exact"
    #: Mironov's snapping mechanism (clamp, Laplace from a uniform over all doubles, power-of-two grid)
    SNAPPED = "snapped"
    #: exact lattice noise proved through a uniform dither of the lattice cell (objective perturbation)
    DITHERED_LATTICE = "dithered-lattice"
    #: the proof holds in exact arithmetic only; any released secret-plus-noise double is rounded to a grid
    #: about 2^-30 of the noise scale, which defeats the known low-bit attack but is not a proof for
    #: floating point (TDIL's default releases no such double, only its double test's decisions)
    MITIGATION_ONLY = "mitigation-only"

    @property
    def statement(self) -> str:
        """One sentence for the certificate."""
        return _STATEMENTS[self]

    @classmethod
    def parse(cls, value: object, where: str = "float_guarantee") -> FloatGuarantee:
        """The member named ``value``, or InputError naming the valid names."""
        for member in cls:
            if value == member.value:
                return member
        raise InputError(f"{where} must be one of {[member.value for member in cls]}, got {value!r}")


def named_guarantee(certificate: Any) -> FloatGuarantee | None:
    """The guarantee a release's certificate names (its ``float_guarantee``); None for a certificate that names
    none (a learner from outside dpcvx)."""
    named = getattr(certificate, "float_guarantee", None)
    return None if named is None else FloatGuarantee.parse(named)


_STATEMENTS = {
    FloatGuarantee.EXACT: "floating point: exact (integer noise sampled exactly on a public lattice; "
                          "rounding and the evaluation error of the secret charged to the sensitivity)",
    FloatGuarantee.SNAPPED: "floating point: Mironov's snapping mechanism",
    FloatGuarantee.DITHERED_LATTICE: "floating point: exact lattice noise, proved through a uniform dither",
    FloatGuarantee.MITIGATION_ONLY: "floating point: mitigation only (proof in exact arithmetic only; any "
                                    "released secret-plus-noise double is rounded to a grid 2^-30 of the "
                                    "noise scale)",
}
