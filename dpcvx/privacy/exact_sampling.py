"""Exact samplers over the rationals (Canonne, Kamath and Steinke, NeurIPS 2020, Algorithms 1-3).

Every sampler here draws from its stated law EXACTLY: the only operations on
the sampling path are uniform integer draws and integer / ``fractions.Fraction``
arithmetic; no floating-point number is formed, so the attacks on doubles
(Mironov 2012; Jin, McMurtry, Rubinstein and Ohrimenko 2022) have nothing to
read. Parameters given as doubles are converted with ``Fraction(x)``, which is
the exact value of the double.

* :func:`bernoulli`: Bernoulli(p), p rational in [0, 1]: one uniform draw in [0, denominator(p)).
* :func:`bernoulli_exp`: Bernoulli(exp(-x)), x rational >= 0 (CKS20 Algorithm 1 and its
  extension to x > 1): for x in [0, 1], draw A_k ~ Bernoulli(x / k) for k = 1, 2, ... until the
  first A_k = 0, and return 1 iff that k is odd. For x > 1, floor(x) draws of Bernoulli(exp(-1))
  (stop at the first 0), then Bernoulli(exp(-(x - floor x))).
* :func:`discrete_laplace`: P[Z = z] proportional to exp(-|z| / t), t > 0 rational (CKS20 Algorithm 2).
* :func:`discrete_gaussian`: P[Z = z] proportional to exp(-z^2 / (2 sigma^2)), sigma^2 > 0 rational
  (CKS20 Algorithm 3: rejection from the discrete Laplace of scale floor(sigma) + 1).

Running time. Each sampler's number of uniform draws is a random variable whose law
depends only on its PUBLIC parameter (the scale), never on a secret the noise is later
added to; its expectation is bounded by a constant for every scale:

* Bernoulli(exp(-x)), x in [0, 1]: the loop reaches step k with probability x^(k-1)/(k-1)!,
  so the expected number of draws is e^x <= e; for x > 1 at most e / (1 - e^-1) + e < 7.1.
* discrete Laplace: an attempt is accepted with probability at least (1 - e^-1) / 2 (the
  Bernoulli(exp(-U/s')) step accepts with probability (1 - e^-1) / (s' (1 - e^(-1/s'))) >= 1 - e^-1,
  the sign step rejects at most half), and costs at most 1 + e + e / (1 - e^-1) + 1 < 9.1
  expected draws, so E[draws] < 2 * 9.1 / (1 - e^-1) < 29 whatever the scale.
* discrete Gaussian: CKS20 (Section 5) bound the expected number of discrete Laplace trials
  by a constant; measured 14.6 to 25.5 draws on average (the bound above gives each trial < 29).

Measured (``benchmarks/exact_samplers.py``, ``benchmarks/results/exact_samplers.md``, scales
1/4 to 2^40/7): 9.6 to 14.5 mean draws per discrete Laplace sample, 40-50 microseconds.

A timing caveat: the count of draws is correlated with |Z| (the geometric run is about
|Z| / t long). An observer who times the curator AND sees the released value learns about
|Z|, which the guarantee does not cover; the proofs cover the released values only.

Randomness (:class:`IntegerSource`): uniform integers in [0, k). The default,
:class:`SystemSource`, asks the operating system's CSPRNG (``secrets.randbelow``).
:class:`GeneratorSource` wraps a ``numpy.random.Generator``: reproducible when the
generator is seeded, which is for experiments and tests only (a release whose seed
could be known is not private); :func:`integer_source` picks one from a ``random_state``.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from fractions import Fraction
from typing import Protocol, runtime_checkable

import numpy as np

from ..exceptions import InputError
from ..validation import integer
from .rng import RandomState, resolve_rng

__all__ = ["IntegerSource", "SystemSource", "GeneratorSource", "integer_source", "rational",
           "bernoulli", "bernoulli_exp", "discrete_laplace", "discrete_gaussian",
           "discrete_laplace_array", "discrete_gaussian_array",
           "discrete_laplace_pmf", "discrete_gaussian_pmf"]

Rational = Fraction | int | float


@runtime_checkable
class IntegerSource(Protocol):
    """A source of uniform integers: ``below(k)`` is uniform on {0, ..., k - 1} for every k >= 1."""

    reproducible: bool

    def below(self, k: int) -> int: ...


class SystemSource:
    """Uniform integers from the operating system's CSPRNG (``secrets.randbelow``): the default."""

    reproducible = False

    def below(self, k: int) -> int:
        return secrets.randbelow(k)


class GeneratorSource:
    """Uniform integers from a ``numpy.random.Generator`` (reproducible when the generator is seeded).

    k <= 2^63: ``Generator.integers(0, k)`` (uniform: numpy rejects, never takes a modulus).
    Larger k: 62-bit words concatenated to the bit length of k, rejected when >= k
    (fewer than 2 attempts on average).
    """

    reproducible = True
    _WORD = 62

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def below(self, k: int) -> int:
        if k <= 2**63:
            return int(self.rng.integers(0, k))
        bits = k.bit_length()
        while True:
            value, have = 0, 0
            while have < bits:
                take = min(self._WORD, bits - have)
                value = (value << take) | int(self.rng.integers(0, 2**take))
                have += take
            if value < k:
                return value


def integer_source(random_state: RandomState) -> IntegerSource:
    """:class:`SystemSource` for None (the OS CSPRNG); for an int seed or a generator, a
    :class:`GeneratorSource` on :func:`dpcvx.privacy.rng.resolve_rng` (reproducible: for experiments only)."""
    if random_state is None:
        return SystemSource()
    return GeneratorSource(resolve_rng(random_state))


def rational(name: str, value: Rational, *, positive: bool = False) -> Fraction:
    """``value`` as an exact Fraction (a double converts to its exact value); finite, >= 0 (> 0 if positive)."""
    if isinstance(value, bool) or not isinstance(value, (Fraction, int, float)):
        raise InputError(f"{name} must be a rational number (int, float or Fraction), got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{name} must be finite, got {value}")
    exact = Fraction(value)
    if exact < 0 or (positive and exact == 0):
        raise InputError(f"{name} must be {'> 0' if positive else '>= 0'}, got {value}")
    return exact


def bernoulli(p: Rational, source: IntegerSource) -> bool:
    """True with probability p exactly (p rational in [0, 1]): one uniform draw in [0, denominator)."""
    p = rational("p", p)
    if p > 1:
        raise InputError(f"p must lie in [0, 1], got {p}")
    return source.below(p.denominator) < p.numerator


def _bernoulli_exp_unit(num: int, den: int, source: IntegerSource) -> bool:
    """Bernoulli(exp(-num / den)) for 0 <= num <= den (CKS20 Algorithm 1): draw A_k ~ Bernoulli(x / k),
    k = 1, 2, ..., until the first 0, and return 1 iff that k is odd (integers only)."""
    k = 1
    while source.below(den * k) < num:
        k += 1
    return k % 2 == 1


def bernoulli_exp(x: Rational, source: IntegerSource) -> bool:
    """True with probability exp(-x) exactly, x rational >= 0 (CKS20 Algorithm 1, extended to x > 1)."""
    x = rational("x", x)
    num, den = x.numerator, x.denominator
    whole = num // den
    for _ in range(whole):
        if not _bernoulli_exp_unit(1, 1, source):
            return False
    return _bernoulli_exp_unit(num - whole * den, den, source)


def _geometric_exp_minus_one(source: IntegerSource) -> int:
    """V with P[V = v] = (1 - e^-1) e^-v: the number of Bernoulli(exp(-1)) successes before a failure."""
    v = 0
    while _bernoulli_exp_unit(1, 1, source):
        v += 1
    return v


def discrete_laplace(scale: Rational, source: IntegerSource) -> int:
    """Z with P[Z = z] = (1 - e^(-1/t)) / (1 + e^(-1/t)) exp(-|z| / t), t = ``scale`` > 0 rational.

    CKS20 Algorithm 2 with t = num / den: U uniform in [0, num), accept with
    Bernoulli(exp(-U / num)); X = U + num V with V geometric (Bernoulli(exp(-1)) run);
    Y = floor(X / den); a fair sign; Y = 0 with a negative sign is rejected (so 0 is not counted twice).
    """
    t = rational("scale", scale, positive=True)
    num, den = t.numerator, t.denominator
    while True:
        u = source.below(num)
        if not _bernoulli_exp_unit(u, num, source):
            continue
        y = (u + num * _geometric_exp_minus_one(source)) // den
        negative = source.below(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_gaussian(sigma2: Rational, source: IntegerSource) -> int:
    """Z with P[Z = z] proportional to exp(-z^2 / (2 sigma^2)), sigma^2 = ``sigma2`` > 0 rational.

    CKS20 Algorithm 3: t = floor(sigma) + 1 (integer, computed exactly as isqrt(floor(sigma^2)) + 1);
    Y ~ discrete Laplace(t); accept with Bernoulli(exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2))).
    """
    s2 = rational("sigma2", sigma2, positive=True)
    t = math.isqrt(math.floor(s2)) + 1
    while True:
        y = discrete_laplace(t, source)
        if bernoulli_exp((abs(y) - s2 / t) ** 2 / (2 * s2), source):
            return y


def _array(draw: Callable[[], int], size: int) -> np.ndarray:
    size = integer("size", size, minimum=0)
    values = [draw() for _ in range(size)]
    if any(abs(v) >= 2**63 for v in values):
        raise InputError("an exact noise draw exceeds the int64 range; use the scalar sampler (Python ints)")
    return np.array(values, dtype=np.int64)


def discrete_laplace_array(scale: Rational, size: int, source: IntegerSource) -> np.ndarray:
    """``size`` i.i.d. :func:`discrete_laplace` draws as an int64 array."""
    t = rational("scale", scale, positive=True)
    return _array(lambda: discrete_laplace(t, source), size)


def discrete_gaussian_array(sigma2: Rational, size: int, source: IntegerSource) -> np.ndarray:
    """``size`` i.i.d. :func:`discrete_gaussian` draws as an int64 array."""
    s2 = rational("sigma2", sigma2, positive=True)
    return _array(lambda: discrete_gaussian(s2, source), size)


def discrete_laplace_pmf(z: np.ndarray, scale: float) -> np.ndarray:
    """P[Z = z] of the discrete Laplace of scale t (for tests and proofs; in doubles)."""
    q = math.exp(-1.0 / scale)
    return (1 - q) / (1 + q) * np.exp(-np.abs(np.asarray(z, dtype=float)) / scale)


def discrete_gaussian_pmf(z: np.ndarray, sigma2: float) -> np.ndarray:
    """P[Z = z] of the discrete Gaussian (normalised over |z| <= 40 sigma + 40; in doubles)."""
    half = int(40 * math.sqrt(sigma2)) + 40
    support = np.arange(-half, half + 1, dtype=float)
    total = float(np.exp(-support**2 / (2 * sigma2)).sum())
    return np.exp(-np.asarray(z, dtype=float) ** 2 / (2 * sigma2)) / total
