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

:func:`check_seed` is the one rule of a seed at every entry (the learners, the estimators, :func:`dpcvx.tune`,
:func:`dpcvx.audit`, the demo, the command line's ``--random-state`` and ``demo --seed``): None, an integer from 0
to 2^128 - 1 (:data:`dpcvx.limits.SEED_MAX`), or, where a generator may be shared, a ``numpy.random.Generator``;
bool, floats, negative integers, SeedSequence and legacy RandomState objects are refused in its one wording.

:class:`NoiseSource` is what a release records of where its noise came from: operating-system entropy
(``random_state=None``) or a caller's seed (an int or a generator), never the seed itself (publishing the seed would
publish the noise). :meth:`NoiseSource.of` is the one rule from a ``random_state``, read where each learner's fit
resolves it; every certificate carries the value, its file records it (format version 19) and the report states it
(a seeded release is a reproducible experiment, not private against anyone who knows or can guess the seed).

:func:`check_estimator_seed` is the stricter rule of the scikit-learn
estimators: only None or a non-negative int. ``sklearn.base.clone`` (used by
``GridSearchCV``, ``cross_val_score`` and ``Pipeline``) deep-copies parameter
values, so clones of an estimator holding a generator would each hold a copy
in the same state and draw the identical noise vector.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from enum import Enum

import numpy as np

from ..exceptions import InputError, a_value_of
from ..limits import SEED_MAX, SEED_MAX_TEXT
from ..validation import _short, is_integer

__all__ = ["resolve_rng", "shared_rng", "check_seed", "seed_rule", "check_estimator_seed", "child_seeds",
           "RandomState", "NoiseSource"]

RandomState = int | np.random.Generator | None


class NoiseSource(str, Enum):
    """Where a release's noise came from: a public fact of the caller's choice, recorded in every certificate (the
    value is the name written in files, :meth:`parse` the reader's check).

    A seeded release's noise is a function of the seed: anyone who knows or can guess it subtracts the noise, and
    two releases with the same seed on neighbouring data cancel it. Its certificate's theorem holds for noise drawn
    afresh, so a seeded release is a reproducible experiment, not a private release; the certificate and the report
    say so. A release composed of parts (one-vs-rest, column statistics then the fit, a model :func:`dpcvx.tune`
    selected) is seeded if any part is (:meth:`combined`)."""

    #: ``random_state=None``: fresh operating-system entropy at every call (the choice for a release)
    OS_ENTROPY = "os-entropy"
    #: an int or a numpy Generator: reproducible noise, for experiments only
    SEED = "seed"
    #: a file of format version 18 or older, written before dpcvx recorded it (or a release saved again from one)
    NOT_RECORDED = "not-recorded"

    @classmethod
    def of(cls, random_state: RandomState) -> NoiseSource:
        """The source of noise drawn with ``random_state`` (:func:`resolve_rng`'s argument): None is operating-system
        entropy, an int or a generator a caller's seed."""
        return cls.OS_ENTROPY if random_state is None else cls.SEED

    @classmethod
    def combined(cls, sources: Iterable[NoiseSource]) -> NoiseSource:
        """The source of a release composed of parts drawn from ``sources``: seeded if any part is, else not recorded
        if any part's is not, else operating-system entropy."""
        held = set(sources)
        return next((member for member in (cls.SEED, cls.NOT_RECORDED) if member in held), cls.OS_ENTROPY)

    @classmethod
    def parse(cls, value: object, where: str = "noise_source") -> NoiseSource:
        """The member named ``value``, or InputError naming the valid names."""
        for member in cls:
            if value == member.value:
                return member
        raise InputError(f"{where} must be one of {[member.value for member in cls]}, got {_short(value)}; the file "
                         "has been edited")

    @property
    def statement(self) -> str:
        """One line for the certificate's text."""
        return "noise source: " + _NOISE_STATEMENTS[self]


_NOISE_STATEMENTS = {
    NoiseSource.OS_ENTROPY: "operating-system entropy (random_state=None: fresh noise at every call)",
    NoiseSource.SEED: "a caller's seed (random_state an int or a generator): a reproducible experiment, NOT private "
                      "against anyone who knows or can guess the seed, who can subtract the noise; refit with "
                      "random_state=None for a release",
    NoiseSource.NOT_RECORDED: "not recorded (a file written before dpcvx recorded it, format version 18 or older)",
}


def seed_rule(name: str, *, none: bool = True, generator: bool = True) -> str:
    """The one wording of what a seed ``name`` may be: None (where the entry takes it), an integer from 0 to
    2^128 - 1, and a numpy Generator where the entry takes one."""
    kinds = (["None (fresh operating-system entropy, the choice for a release)"] if none else []) + [
        f"an integer from 0 to {SEED_MAX_TEXT} (a reproducible seed, for experiments only)"] + (
        ["a numpy.random.Generator"] if generator else [])
    return f"{name} must be " + (", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else kinds[0])


def check_seed(name: str, value: object, *, generator: bool = True) -> int | np.random.Generator | None:
    """``value`` as a seed (:func:`seed_rule`): None, an int in [0, SEED_MAX] (a numpy integer as its int), or with
    ``generator`` a ``numpy.random.Generator`` (as is); InputError in the rule's words otherwise (bool, float, a
    negative or larger integer, SeedSequence, a legacy RandomState)."""
    if value is None:
        return None
    if generator and isinstance(value, np.random.Generator):
        return value
    if is_integer(value) and 0 <= int(value) <= SEED_MAX:  # type: ignore[call-overload]
        return int(value)  # type: ignore[call-overload]
    raise InputError(f"{seed_rule(name, generator=generator)}; got {_short(value)} ({a_value_of(value)})")


def resolve_rng(random_state: RandomState) -> np.random.Generator:
    """A ``numpy.random.Generator`` for ``random_state``.

    None: a fresh generator seeded from operating-system entropy (new noise at
    every call). A non-negative int: ``numpy.random.default_rng(seed)``
    (reproducible; the same seed twice on the same or neighbouring data is a
    privacy loss). A ``numpy.random.Generator``: used as is (the call advances it).
    """
    seed = check_seed("random_state", random_state)
    if seed is None:
        return np.random.Generator(np.random.PCG64(secrets.randbits(128)))
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


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
    if isinstance(random_state, (np.random.Generator, np.random.RandomState,
                                 np.random.BitGenerator, np.random.SeedSequence)):
        raise InputError(
            f"{owner} refuses random_state={type(random_state).__name__}: sklearn.base.clone "
            "(GridSearchCV, cross_val_score, Pipeline) deep-copies a generator, so every clone "
            "would draw the identical noise vector and the noise of their releases would cancel. "
            "Pass random_state=None (fresh operating-system entropy at every fit, the choice for "
            "a release) or an int seed (reproducible experiments only)."
        )
    seed = check_seed("random_state", random_state, generator=False)
    assert not isinstance(seed, np.random.Generator)  # refused above
    return seed


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
