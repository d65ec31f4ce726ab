"""A release holds no record of the data it was fitted on.

OpenDP's ``Measurement.__call__`` (``opendp.core.measurement_invoke``, version 0.16) stores its call, the measurement
and its input, in an attribute ``__opendp_dict__`` of the output it returns, whenever the output takes one (for its
own serialisation of a call). For a measurement of a dpcvx fit (:func:`dpcvx.as_opendp_measurement`) the input is
the private data set: the fitted estimator or the released model would carry every record, into ``vars()``, a
pickle or anything that copies it. A dpcvx release, and an estimator that holds one, refuses that attribute with
the AttributeError that OpenDP catches and skips.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["OPENDP_RECORD", "HoldsNoInput"]

#: the attribute OpenDP sets on a measurement's output, holding the measurement's input
OPENDP_RECORD = "__opendp_dict__"


class HoldsNoInput:
    """Refuses the attribute :data:`OPENDP_RECORD` (module docstring); every other attribute is set as usual."""

    if not TYPE_CHECKING:  # hidden from mypy, which would otherwise take any attribute of a release as declared
        def __setattr__(self, name: str, value: Any) -> None:
            if name == OPENDP_RECORD:
                raise AttributeError(f"a dpcvx release holds no record of its input ({OPENDP_RECORD} would hold "
                                     "the private data set it was fitted on)")
            super().__setattr__(name, value)
