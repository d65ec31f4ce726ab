"""Random number generators: secure by default, reproducible on request.

``random_state=None`` (the default) seeds a fresh generator from 128 bits of
operating-system entropy (``secrets``) for every call, so noise never depends
on numpy's global state or on a guessable seed, and two calls never share
noise. An int makes a run reproducible; reproducible noise is for experiments
and tests, never for a release whose seed could be known. Two releases made
with the same int seed on the same or neighbouring data share their noise
vector, so their difference cancels it: that pair is not private.

:func:`resolve_rng` (used by :meth:`dpcvx.PrivateERM.fit` and the other
learners' ``fit``) also takes a ``numpy.random.Generator``: a generator passed
directly to one call is consumed by it, and the next call continues its stream.

:func:`check_estimator_seed` is the stricter rule of the scikit-learn
estimators: only None or a non-negative int. ``sklearn.base.clone`` (used by
``GridSearchCV``, ``cross_val_score`` and ``Pipeline``) deep-copies parameter
values, so clones of an estimator holding a generator would each hold a copy
in the same state and draw the identical noise vector.
"""

from __future__ import annotations

import secrets

import numpy as np

from ..exceptions import InputError
from ..validation import integer, is_integer

__all__ = ["resolve_rng", "shared_rng", "check_estimator_seed", "child_seeds", "RandomState"]

RandomState = int | np.random.Generator | None


def resolve_rng(random_state: RandomState) -> np.random.Generator:
    """A ``numpy.random.Generator`` for ``random_state``.

    None: a fresh generator seeded from operating-system entropy (new noise at
    every call). A non-negative int: ``numpy.random.default_rng(seed)``
    (reproducible; the same seed twice on the same or neighbouring data is a
    privacy loss). A ``numpy.random.Generator``: used as is (the call advances it).
    """
    if random_state is None:
        return np.random.Generator(np.random.PCG64(secrets.randbits(128)))
    if isinstance(random_state, np.random.Generator):
        return random_state
    if is_integer(random_state):
        return np.random.default_rng(integer("random_state", random_state, minimum=0))
    raise InputError(
        "random_state must be None (OS entropy), a non-negative int or a "
        f"numpy.random.Generator, got {type(random_state).__name__}"
    )


def shared_rng(random_state: RandomState) -> np.random.Generator | None:
    """The one stream of a release drawn in parts (a private statistic, then the fit at it).

    None without a seed: each part then draws its own OS entropy (its exact sampler the OS CSPRNG). A seed or a
    generator: :func:`resolve_rng`'s generator, shared by the parts. A composed fit calls it BEFORE its charge,
    as a plain fit resolves its seed before its own, so that a bad ``random_state`` is refused with nothing spent.
    """
    return None if random_state is None else resolve_rng(random_state)


def check_estimator_seed(random_state: object, owner: str = "the estimator") -> int | None:
    """``random_state`` of a scikit-learn estimator: None or a non-negative int, else InputError.

    A generator (``numpy.random.Generator``, ``RandomState``, a bit generator
    or ``SeedSequence``) is refused: ``sklearn.base.clone`` deep-copies it, so
    every clone (cross-validation folds, grid-search candidates, pipelines)
    would draw the same noise vector, and the difference of two such releases
    cancels the noise.
    """
    if random_state is None:
        return None
    if is_integer(random_state):
        return integer("random_state", random_state, minimum=0)
    if isinstance(random_state, (np.random.Generator, np.random.RandomState,
                                 np.random.BitGenerator, np.random.SeedSequence)):
        raise InputError(
            f"{owner} refuses random_state={type(random_state).__name__}: sklearn.base.clone "
            "(GridSearchCV, cross_val_score, Pipeline) deep-copies a generator, so every clone "
            "would draw the identical noise vector and the noise of their releases would cancel. "
            "Pass random_state=None (fresh operating-system entropy at every fit, the choice for "
            "a release) or an int seed (reproducible experiments only)."
        )
    raise InputError(
        f"{owner} takes random_state None (fresh noise at every fit) or a non-negative int "
        f"(reproducible), got {type(random_state).__name__}"
    )


def child_seeds(random_state: RandomState, count: int) -> list[int | None]:
    """The ``random_state`` of each of ``count`` sub-releases.

    None (no seed): ``count`` Nones, so each sub-release draws its own OS entropy and its exact samplers
    the OS CSPRNG (:func:`dpcvx.privacy.exact_sampling.integer_source`), never a PCG64 stream seeded by a parent.
    An int or a generator: ``count`` independent int seeds drawn from it, so the run is reproducible
    (for experiments only) and distinct children never share noise.
    """
    if random_state is None:
        return [None] * count
    rng = resolve_rng(random_state)
    return [int(seed) for seed in rng.integers(0, 2**63 - 1, size=count)]
