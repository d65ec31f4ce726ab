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

Arrays in lockstep. On a :class:`BatchSource` (:class:`SystemSource`, the default: ``below_array``
is :func:`uniform_below` on ``os.urandom`` bytes), :func:`discrete_laplace_array` runs Algorithm 2
over the whole array at once (:func:`_discrete_laplace_batch`): each loop round draws one array for
the samples still in that loop, so a call costs a few hundred array draws whatever its size (5,120
draws at a default histogram's scale: 3.3 ms of CPU, against 112 ms one by one;
``benchmarks/results/array_samplers.md``). It
draws the same law exactly, by the same integer steps, with two changes that keep every bound below
2^63 (int64): Bernoulli(x / k) of Algorithm 1 is drawn as Bernoulli(1 / k) AND Bernoulli(x)
(independent, so the product has probability x / k exactly), and Y = floor((U + num V) / den) is
split as in :func:`_floor_ratio` (Python ints when even the split could overflow). The lockstep
path needs numerator(t) < 2^63 (else one scalar sample per draw). Its expected uniform values per
attempt are at most 3 e (U: 1; Algorithm 1 at x <= 1: 1 + (e - 1) + (e - 2); the geometric run:
e - 1 per Bernoulli(exp(-1)) trial, 1 / (1 - e^-1) trials; the sign: 1), and a round runs
``ATTEMPTS`` = 2 attempts per missing draw, keeping the first accepted: at most 3 e 2 ATTEMPTS /
(1 - e^-1) < 52 per draw, measured 7.5 to 10.8 (the scalar sampler's 9.6 to 14.5). The discrete
Gaussian's array draws its Laplace candidates so and accepts each by the scalar
Bernoulli(exp(-x)) (its rationals have no small common denominator). A :class:`GeneratorSource`
has no ``below_array``: a seeded source takes the scalar sampler and gives exactly the draws it gave
before the lockstep path existed.

A timing caveat: the count of draws is correlated with |Z| (the geometric run is about
|Z| / t long). An observer who times the curator AND sees the released value learns about
|Z|, which the guarantee does not cover; the proofs cover the released values only. In lockstep, an
array's time follows its longest runs, so its largest |Z|.

Randomness (:class:`IntegerSource`): uniform integers in [0, k). The default,
:class:`SystemSource`, asks the operating system's CSPRNG (``secrets.randbelow``, and ``os.urandom``
bytes by rejection for arrays, :func:`uniform_below`).
:class:`GeneratorSource` wraps a ``numpy.random.Generator``: reproducible when the
generator is seeded, which is for experiments and tests only (a release whose seed
could be known is not private); :func:`integer_source` picks one from a ``random_state``.
"""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Protocol, runtime_checkable

import numpy as np

from ..exceptions import InputError
from ..validation import integer, is_integer
from .rng import RandomState, resolve_rng

__all__ = ["IntegerSource", "BatchSource", "SystemSource", "GeneratorSource", "integer_source", "uniform_below",
           "rational",
           "bernoulli", "bernoulli_exp", "discrete_laplace", "discrete_gaussian",
           "discrete_laplace_array", "discrete_gaussian_array",
           "discrete_laplace_pmf", "discrete_gaussian_pmf"]

Rational = Fraction | int | float


@runtime_checkable
class IntegerSource(Protocol):
    """A source of uniform integers: ``below(k)`` is uniform on {0, ..., k - 1} for every k >= 1."""

    reproducible: bool

    def below(self, k: int) -> int: ...


@runtime_checkable
class BatchSource(IntegerSource, Protocol):
    """An :class:`IntegerSource` that also draws arrays: ``below_array(k, size)`` is ``size`` i.i.d. uniform
    integers on {0, ..., k - 1} as int64, for 1 <= k <= 2^63. The array samplers run the lockstep algorithm on it."""

    def below_array(self, k: int, size: int) -> np.ndarray: ...


#: The largest bound of :func:`uniform_below` (every value below it is an int64).
INT64_BOUND = 2**63


def uniform_below(k: int, size: int, random_bytes: Callable[[int], bytes]) -> np.ndarray:
    """``size`` i.i.d. uniform integers on {0, ..., k - 1} (int64), 1 <= k <= 2^63, from uniform bytes.

    Exact by rejection, no modulus: each word (the narrowest of 8, 16, 32, 64 bits holding b = bit length of
    k - 1) is masked to its low b bits, uniform on [0, 2^b), and kept iff < k; the kept words are i.i.d. uniform
    on [0, k), and the first ``size`` are returned. A word is kept with probability k / 2^b > 1/2, so fewer than
    2 words per value on average. ``random_bytes(m)`` returns m uniform bytes (``os.urandom`` for the OS CSPRNG).
    """
    if not 1 <= k <= INT64_BOUND:
        raise InputError(f"uniform_below draws below 1 <= k <= 2^63, got {k}")
    bits = (k - 1).bit_length()
    if bits == 0 or size == 0:
        return np.zeros(size, dtype=np.int64)  # k = 1: the only value is 0, no draw
    word = np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32 if bits <= 32 else np.uint64
    mask, width = word((1 << bits) - 1), np.dtype(word).itemsize
    parts, need = [], size
    while need:
        count = (need << bits) // k + need // 8 + 8  # the expected words for `need` values, and a margin
        words = np.bitwise_and(np.frombuffer(random_bytes(count * width), dtype=word), mask)
        parts.append(words[words < k][:need])
        need -= parts[-1].size
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)).astype(np.int64)


class SystemSource:
    """Uniform integers from the operating system's CSPRNG: ``secrets.randbelow`` one at a time, and
    :func:`uniform_below` on ``os.urandom`` bytes for arrays (a :class:`BatchSource`): the default."""

    reproducible = False

    def below(self, k: int) -> int:
        return secrets.randbelow(k)

    def below_array(self, k: int, size: int) -> np.ndarray:
        return uniform_below(k, size, os.urandom)


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
            return self._integers(k)
        bits = k.bit_length()
        while True:
            value, have = 0, 0
            while have < bits:
                take = min(self._WORD, bits - have)
                value = (value << take) | self._integers(2**take)
                have += take
            if value < k:
                return value

    def _integers(self, k: int) -> int:
        """``Generator.integers(0, k)``, 1 <= k <= 2^63."""
        return int(self.rng.integers(0, k))


_UINT32 = 2**32 - 1
_UINT64 = 2**64 - 1


class _RawPCG64Source(GeneratorSource):
    """A :class:`GeneratorSource` on a PCG64 generator whose integers are numpy's ``Generator.integers(0, k)`` bit for
    bit, computed from the generator's raw 64-bit words (``random_raw``) by the steps numpy takes: Lemire's
    multiply-and-reject on a 32-bit word for k - 1 < 2^32 - 1 (PCG64's 32-bit words are the low, then the high half
    of one raw word, the unused half kept between calls), the word itself for k = 2^32, and on a 64-bit word above
    (numpy's ``random_bounded_uint64_fill``; Lemire, ACM TOMACS 29 (2019)). :meth:`close` writes the kept half back
    into the generator's state, so its stream then goes on as if numpy had drawn every integer.

    For the scalar samplers' loops over an array (:func:`_array`): a call of ``Generator.integers`` costs about 1 us,
    a raw word 0.2 us, and 5,120 seeded discrete Laplace draws (an estimator's column histograms at 20 columns) took
    73 ms against 25 ms so (one process, numpy 2.4). The draws, and the generator's state after them, are the same
    (``tests/privacy/test_exact_samplers.py`` compares them with numpy's over bounds from 1 to 2^100)."""

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self._raw = rng.bit_generator.random_raw
        state = rng.bit_generator.state
        self._has_half, self._half = state["has_uint32"], state["uinteger"]

    def _word32(self) -> int:
        """PCG64's next 32-bit word: the kept high half, else the low half of a new raw word."""
        if self._has_half:
            self._has_half = 0
            return self._half
        word = self._raw()
        self._has_half, self._half = 1, word >> 32
        return word & _UINT32

    def _integers(self, k: int) -> int:
        top = k - 1
        if top == 0:
            return 0
        if top == _UINT32:
            return self._word32()
        word, bound, width = (self._word32, _UINT32, 32) if top < _UINT32 else (self._raw, _UINT64, 64)
        product = word() * k
        if product & bound < k:
            threshold = (bound - top) % k
            while product & bound < threshold:
                product = word() * k
        return product >> width

    def close(self) -> None:
        """Write the kept half-word back into the generator's state."""
        state = dict(self.rng.bit_generator.state)
        state["has_uint32"], state["uinteger"] = self._has_half, self._half
        self.rng.bit_generator.state = state


@contextmanager
def _scalar_source(source: IntegerSource) -> Iterator[IntegerSource]:
    """The source a loop of scalar draws takes: for a :class:`GeneratorSource` on PCG64 (``default_rng``'s), a
    :class:`_RawPCG64Source` on its generator (the same integers, faster), closed after the loop; else the source."""
    if type(source) is not GeneratorSource or type(source.rng.bit_generator) is not np.random.PCG64:
        yield source
        return
    raw = _RawPCG64Source(source.rng)
    try:
        yield raw
    finally:
        raw.close()


def integer_source(random_state: RandomState) -> IntegerSource:
    """:class:`SystemSource` for None (the OS CSPRNG); for an int seed or a generator, a
    :class:`GeneratorSource` on :func:`dpcvx.privacy.rng.resolve_rng` (reproducible: for experiments only)."""
    if random_state is None:
        return SystemSource()
    return GeneratorSource(resolve_rng(random_state))


def rational(name: str, value: Rational, *, positive: bool = False) -> Fraction:
    """``value`` as an exact Fraction (a double converts to its exact value); finite, >= 0 (> 0 if positive). A numpy
    integer is taken as every int is (:func:`~dpcvx.validation.is_integer`), a numpy float as its double when it is
    one exactly (``tune(mean_runs=np.int64(10))`` passed ``positive`` and was refused here)."""
    if is_integer(value):
        value = int(value)
    elif isinstance(value, np.floating) and float(value) == value:
        value = float(value)
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
    return _discrete_laplace(t.numerator, t.denominator, source)


def _discrete_laplace(num: int, den: int, source: IntegerSource) -> int:
    """:func:`discrete_laplace` of the checked scale t = num / den (num, den > 0 in lowest terms): the same draws
    from the same integers, for the callers that check t once and draw many times (:func:`discrete_laplace_array`
    and :func:`discrete_gaussian` on a seeded source checked it again through :func:`rational` on every draw,
    about 30 % of a seeded fit's column histograms)."""
    below, unit = source.below, _bernoulli_exp_unit
    while True:
        u = below(num)
        if not unit(u, num, source):
            continue
        y = (u + num * _geometric_exp_minus_one(source)) // den
        negative = below(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _gaussian_laplace_scale(s2: Fraction) -> int:
    """CKS20 Algorithm 3's Laplace scale t = floor(sigma) + 1, exactly isqrt(floor(sigma^2)) + 1."""
    return math.isqrt(math.floor(s2)) + 1


def _gaussian_accepts(y: int, s2: Fraction, t: int, source: IntegerSource) -> bool:
    """CKS20 Algorithm 3: a Laplace(t) candidate y is kept with probability exp(-(|y| - s2 / t)^2 / (2 s2))."""
    return bernoulli_exp((abs(y) - s2 / t) ** 2 / (2 * s2), source)


def discrete_gaussian(sigma2: Rational, source: IntegerSource) -> int:
    """Z with P[Z = z] proportional to exp(-z^2 / (2 sigma^2)), sigma^2 = ``sigma2`` > 0 rational.

    CKS20 Algorithm 3: t = floor(sigma) + 1 (integer, computed exactly as isqrt(floor(sigma^2)) + 1);
    Y ~ discrete Laplace(t); accept with Bernoulli(exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2))).
    """
    s2 = rational("sigma2", sigma2, positive=True)
    return _discrete_gaussian(s2, _gaussian_laplace_scale(s2), source)


def _discrete_gaussian(s2: Fraction, t: int, source: IntegerSource) -> int:
    """:func:`discrete_gaussian` of the checked sigma^2 = ``s2`` and its Laplace scale ``t``: the same draws, for
    :func:`discrete_gaussian_array`'s scalar loop, which checks them once."""
    while True:
        y = _discrete_laplace(t, 1, source)
        if _gaussian_accepts(y, s2, t, source):
            return y


def _bernoulli_exp_unit_batch(u: np.ndarray, num: int, source: BatchSource) -> np.ndarray:
    """Bernoulli(exp(-u_i / num)) for each 0 <= u_i <= num, 1 <= num < 2^63, in lockstep (CKS20 Algorithm 1).

    Round k draws A_k ~ Bernoulli(u_i / (num k)) for the samples still in the loop, as the product of two
    independent draws, Bernoulli(1 / k) (``below(k) == 0``, none at k = 1) and Bernoulli(u_i / num)
    (``below(num) < u_i``), so no bound exceeds max(k, num) < 2^63; a sample leaves at its first A_k = 0 and is 1
    iff that k is odd. Round k holds a sample with probability x^(k-1) / (k-1)!, x = u_i / num.
    """
    accept = np.zeros(u.size, dtype=bool)
    active = np.arange(u.size)
    k = 1
    while active.size:
        going = np.ones(active.size, dtype=bool) if k == 1 else source.below_array(k, active.size) == 0
        if num > 1:  # below(1) is 0: no draw
            drawn = np.flatnonzero(going)
            going[drawn] = source.below_array(num, drawn.size) < u[active[drawn]]
        else:
            going &= u[active] > 0
        accept[active[~going]] = k % 2 == 1
        active = active[going]
        k += 1
    return accept


def _geometric_exp_minus_one_batch(size: int, source: BatchSource) -> np.ndarray:
    """``size`` i.i.d. V, P[V = v] = (1 - e^-1) e^-v, in lockstep: each round one Bernoulli(exp(-1)) per sample
    whose run has not failed yet."""
    v = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        active = active[_bernoulli_exp_unit_batch(np.ones(active.size, dtype=np.int64), 1, source)]
        v[active] += 1
    return v


def _floor_ratio(u: np.ndarray, v: np.ndarray, num: int, den: int) -> np.ndarray:
    """floor((u_i + num v_i) / den) exactly, for int64 0 <= u_i < num and v_i >= 0.

    With num = q den + r and u_i = a_i den + b_i (0 <= r, b_i < den), u_i + num v_i = (q v_i + a_i) den
    + (b_i + r v_i), so the floor is q v_i + a_i + floor((b_i + r v_i) / den). With V = max v_i, this runs in int64
    when den (V + 1) < 2^63 and (q + 1)(V + 1) < 2^63, and nothing overflows: b_i + r v_i <= (den - 1)(v_i + 1)
    < 2^63; a_i <= q (as u_i < num) and floor((b_i + r v_i) / den) <= v_i, so every partial sum is at most
    (q + 1)(V + 1) - 1. Otherwise in Python ints (an object array).
    """
    top = int(v.max()) + 1 if v.size else 1
    q, r = divmod(num, den)
    if den * top < INT64_BOUND and (q + 1) * top < INT64_BOUND:
        a, b = np.divmod(u, den)
        return q * v + a + (b + r * v) // den
    return (u.astype(object) + num * v.astype(object)) // den


def _as_int64(values: list[int]) -> np.ndarray:
    if any(abs(v) >= INT64_BOUND for v in values):
        raise InputError("an exact noise draw exceeds the int64 range; use the scalar sampler (Python ints)")
    return np.array(values, dtype=np.int64)


#: Attempts per missing draw in one round of :func:`_discrete_laplace_batch` (an attempt is accepted with probability
#: at least (1 - e^-1) / 2, near 1 - e^-1 for a large t): fewer rounds, each at a fixed cost in calls, for more draws.
ATTEMPTS = 2


def _discrete_laplace_batch(t: Fraction, size: int, source: BatchSource) -> np.ndarray:
    """``size`` i.i.d. discrete Laplace(t) draws, t = num / den with num < 2^63: CKS20 Algorithm 2 in lockstep.

    Each attempt runs the algorithm once for every draw still missing (U = ``below_array(num)``, the Bernoulli
    and the geometric run in lockstep, Y exactly by :func:`_floor_ratio`, a fair sign) and keeps the accepted
    ones: accepted attempts are i.i.d. of the discrete Laplace law, whatever the number accepted.
    """
    num, den = t.numerator, t.denominator

    def accepted(missing: int) -> np.ndarray:
        u = source.below_array(num, ATTEMPTS * missing)
        u = u[_bernoulli_exp_unit_batch(u, num, source)]
        y = _floor_ratio(u, _geometric_exp_minus_one_batch(u.size, source), num, den)
        negative = source.below_array(2, y.size) == 1
        signed = np.where(negative, -y, y)[~(negative & (y == 0))][:missing]
        return _as_int64(list(signed)) if signed.dtype == object else signed

    return _filled(size, accepted)


def _filled(size: int, accepted: Callable[[int], np.ndarray]) -> np.ndarray:
    """``size`` int64 draws from rounds of ``accepted(missing)``, each the accepted draws (at most ``missing``, in
    their order) of i.i.d. attempts: the accepted draws are i.i.d. of the target law whatever their number."""
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        kept = accepted(size - filled)
        out[filled:filled + kept.size] = kept
        filled += kept.size
    return out


def _array(draw: Callable[[IntegerSource], int], size: int, source: IntegerSource) -> np.ndarray:
    """``size`` scalar draws ``draw(source)`` as an int64 array (a seeded PCG64's integers from its raw words,
    :func:`_scalar_source`)."""
    with _scalar_source(source) as scalar:
        return _as_int64([draw(scalar) for _ in range(size)])


def discrete_laplace_array(scale: Rational, size: int, source: IntegerSource) -> np.ndarray:
    """``size`` i.i.d. :func:`discrete_laplace` draws as an int64 array.

    On a :class:`BatchSource` (:class:`SystemSource`, the default) with numerator(t) < 2^63, CKS20 Algorithm 2 runs
    in lockstep over the array (:func:`_discrete_laplace_batch`); else, and on every :class:`GeneratorSource`
    (seeded draws stay those of the scalar sampler), one :func:`discrete_laplace` per draw.
    """
    t = rational("scale", scale, positive=True)
    size = integer("size", size, minimum=0)
    if isinstance(source, BatchSource) and t.numerator < INT64_BOUND:
        return _discrete_laplace_batch(t, size, source)
    num, den = t.numerator, t.denominator
    return _array(lambda scalar: _discrete_laplace(num, den, scalar), size, source)


def discrete_gaussian_array(sigma2: Rational, size: int, source: IntegerSource) -> np.ndarray:
    """``size`` i.i.d. :func:`discrete_gaussian` draws as an int64 array.

    On a :class:`BatchSource` with t = floor(sigma) + 1 < 2^63, the Laplace(t) candidates of CKS20 Algorithm 3 are
    drawn in lockstep (:func:`_discrete_laplace_batch`, ``size`` at a time) and each is accepted by
    :func:`_gaussian_accepts` (one exact Bernoulli(exp(-x)) per candidate; accepted candidates are i.i.d. of the
    discrete Gaussian law); else, and on every :class:`GeneratorSource`, one :func:`discrete_gaussian` per draw.
    """
    s2 = rational("sigma2", sigma2, positive=True)
    size = integer("size", size, minimum=0)
    t = _gaussian_laplace_scale(s2)
    if not (isinstance(source, BatchSource) and t < INT64_BOUND):
        return _array(lambda scalar: _discrete_gaussian(s2, t, scalar), size, source)

    def accepted(missing: int) -> np.ndarray:
        candidates = _discrete_laplace_batch(Fraction(t), missing, source)
        return candidates[np.fromiter((_gaussian_accepts(int(y), s2, t, source) for y in candidates), dtype=bool,
                                      count=candidates.size)]

    return _filled(size, accepted)


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
