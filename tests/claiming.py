"""A deliberately broken learner's calibration: the noise calibrated for another budget, the budget claimed its own.

A release certificate refuses a calibration made for another epsilon than the one it states, so the audit tests'
under-noised learners state the claimed epsilon on the calibration they computed at a larger one: the bug stays a
wrong constant, invisible in the release, which the audit must catch.
"""

import dataclasses
from typing import Any


def claiming(calibration: Any, epsilon: float) -> Any:
    """``calibration`` (its noise scales as computed) stating ``epsilon``: every field but epsilon kept, every
    property that reads a field read off the computed calibration."""
    kept = {}
    for name, value in vars(type(calibration)).items():
        if isinstance(value, property):
            try:
                kept[name] = getattr(calibration, name)
            except Exception:  # a property this calibration does not have (its form's): left as it is
                continue
    relabelled = type("Claiming" + type(calibration).__name__, (type(calibration),),
                      {name: property(lambda _, value=value: value) for name, value in kept.items()
                       if name not in ("epsilon",)} | {"__module__": __name__})
    return relabelled(**{**{f.name: getattr(calibration, f.name) for f in dataclasses.fields(calibration)},
                         "epsilon": epsilon})
