"""The randomness of private tuning (Chaudhuri, Monteleoni and Sarwate, JMLR 2011, Algorithm 4).

* :func:`disjoint_parts`: a random partition of the row indices into equal
  disjoint parts; it reads n only, never the data, so every record lies in
  exactly one part and parallel composition applies;
* :func:`coin_parts`: each row goes to the held-out part by its own coin of public
  bias, independently of the data and of the other rows, the coins drawn again until
  enough rows are left to train on (full-data selection);
* :func:`child_seed`: a fresh integer seed drawn from tune's generator for a
  learner that takes only an int seed, so the candidates' noises stay
  independent (one stream, never a shared seed).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binom

from ..exceptions import InputError

__all__ = ["disjoint_parts", "coin_parts", "training_chance", "child_seed"]


def disjoint_parts(n: int, parts: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``parts`` disjoint random sets of floor(n / parts) row indices each, sorted.

    The split is a uniform random permutation of 0..n-1, cut into consecutive
    blocks; the last n mod parts positions of the permutation are left out.
    It depends on n only, never on the data.
    """
    size = n // parts
    if size < 1:
        raise InputError(f"{n} rows cannot be split into {parts} non-empty parts; "
                         "use more data or fewer grid points")
    order = rng.permutation(n)
    return [np.sort(order[index * size:(index + 1) * size]) for index in range(parts)]


def coin_parts(n: int, held_out: float, rng: np.random.Generator, least: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, held-out rows): row i is held out iff its own coin U_i < ``held_out``, U_i uniform,
    independent of the data and of the other coins; all n coins are drawn again while fewer than ``least`` rows
    are left to train on (a fit on no rows, or on fewer than a learner takes, would fail after the charge: with
    n = 2 rows and ``held_out=0.9``, 81 % of runs had none). The coins' law is then i.i.d. Bernoulli(``held_out``)
    conditioned on at least ``least`` training rows: still a public law that never looks at the data
    (:func:`training_chance` is the chance of one draw). The parts' sizes are random and depend on the coins only."""
    while True:  # ends after 1 / training_chance(n, held_out, least) draws on average
        out = rng.random(n) < held_out
        if n - np.count_nonzero(out) >= least:
            return np.flatnonzero(~out), np.flatnonzero(out)


def training_chance(n: int, held_out: float, least: int) -> float:
    """The chance that n coins of bias ``held_out`` leave at least ``least`` rows to train on:
    P[Binomial(n, 1 - held_out) >= least]. Under numpy's error state ignored: a tail that underflows is 0 (scipy
    1.13, the oldest dpcvx takes, computes it with numpy's error state, and a caller's ``np.seterr(all="raise")``
    raised FloatingPointError from it)."""
    with np.errstate(all="ignore"):
        return float(binom.sf(least - 1, n, 1.0 - held_out))


def child_seed(rng: np.random.Generator) -> int:
    """An integer seed in [0, 2^63 - 1) drawn from ``rng`` (a new one at every call)."""
    return int(rng.integers(2**63 - 1))
