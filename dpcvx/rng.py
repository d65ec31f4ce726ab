"""Random number generators: secure by default, reproducible on request.

``random_state=None`` (the default) seeds a fresh generator from 128 bits of
operating-system entropy (``secrets``) for every call, so noise never depends
on numpy's global state or on a guessable seed. An int or a
``numpy.random.Generator`` makes a run reproducible; reproducible noise is for
experiments and tests, never for a release whose seed could be known.
"""

from __future__ import annotations

import numbers
import secrets

import numpy as np

from .exceptions import InputError

__all__ = ["resolve_rng", "RandomState"]

RandomState = int | np.random.Generator | None


def resolve_rng(random_state: RandomState) -> np.random.Generator:
    """A ``numpy.random.Generator`` for ``random_state`` (None: OS entropy)."""
    if random_state is None:
        return np.random.Generator(np.random.PCG64(secrets.randbits(128)))
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise InputError(f"random_state must be a non-negative int, got {random_state}")
        return np.random.default_rng(int(random_state))
    raise InputError(
        "random_state must be None (OS entropy), a non-negative int or a "
        f"numpy.random.Generator, got {type(random_state).__name__}"
    )
