"""Repeated records solved once: the distinct (row, label) pairs of an in-memory X, with their multiplicities.

Tables of coded columns repeat records: a handful of categorical columns give few distinct rows at any n
(KDD Cup 99's 10 % file holds 494,021 records of 145,585 distinct ones, 29 %: more than is grouped here,
``MAX_SHARE``). The loss part of
F = sum_i s_i l(z_i) + n Lam N(w) + b^T w depends on a record only through its row and label, so records
that agree in both are one term with weight the sum of their s_i (their count, without record weights):

    sum_i s_i l(y_i x_i^T w) = sum_g (sum_{i in g} s_i) l(y_g x_g^T w)

:func:`distinct_records` finds the groups g when they are few, and :class:`Distinct` holds them; the
solver (:mod:`dpcvx.solvers.choice`) minimises the k-row weighted F first and takes its point as the
warm start of Newton on all n rows, whose own stopping test on fresh margins (and the proved budget from
that start) certifies the release as on any other path: the grouping shapes only where Newton starts.

Finding the groups costs a read or two of X, so it is attempted only where an evenly spaced sample of
``SAMPLE_ROWS`` rows (or a wider one, where those repeat) already predicts few distinct records
(:func:`_repeats_expected`). Rows are
grouped by a key, X r for a fixed vector r with the label, and every row is then compared entry by entry
with its group's first row: a key shared by two different rows (a collision) leaves the data ungrouped,
and two equal rows whose keys differ are only two groups. Nothing here enters a release: the grouping, its
count and the sample are read off the private data and used only for the solve's path.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sparse

from ..data.blocks import take_rows
from .objective import evenly_spaced

__all__ = ["Distinct", "distinct_records", "MAX_SHARE", "MIN_ENTRIES", "MIN_ROWS", "REPEATS", "SAMPLE_COLUMNS",
           "SAMPLE_ROWS", "WIDE_SAMPLE_ROWS"]

SAMPLE_ROWS = 1024  # evenly spaced rows whose records decide whether the full grouping is attempted, read ...
SAMPLE_COLUMNS = 64  # ... in their first this many columns only (rows equal in all are equal in these); and ...
WIDE_SAMPLE_ROWS = 16 * SAMPLE_ROWS  # ... this many where those show repeats but predict too many records
REPEATS = 0.1  # a sample shows repeats when at least this share of its rows repeat one of its others
MAX_SHARE = 0.25  # grouped only where the distinct records are at most this share of all (expected, then found)
MIN_ROWS = 4 * SAMPLE_ROWS  # below this many rows, or ...
MIN_ENTRIES = 1_000_000  # ... this many entries n d (8 MB), a solve is too short for the sample to pay
_KEY_ANGLE = np.pi * (3 - np.sqrt(5))  # r_j = cos(j times the golden angle): a fixed vector of varied entries
_COMPARE_ENTRIES = 1 << 18  # entries compared at a time (a block of rows and its groups' first rows)


@dataclass(frozen=True)
class Distinct:
    """The distinct records of (X, y): ``first`` the index of each group's first row (ascending), ``weights``
    each group's sum of record weights (its count without them), ``groups`` the group of every row."""

    first: np.ndarray
    weights: np.ndarray
    groups: np.ndarray

    @property
    def count(self) -> int:
        return int(self.first.size)


@functools.lru_cache(maxsize=8)
def _key_vector(dim: int) -> np.ndarray:
    """The fixed vector r of the keys, r_j = cos((j + 1) g) with g the golden angle (no random draw: it is public and
    shapes no release), read-only."""
    r = np.cos(np.arange(1, dim + 1) * _KEY_ANGLE)
    r.flags.writeable = False
    return r


def _keys(X: Any, y: np.ndarray) -> np.ndarray:
    """The keys x_i . r + i y_i of the rows (complex: numpy sorts them by x_i . r, then by y_i), r fixed."""
    return np.asarray(X @ _key_vector(X.shape[1])).ravel() + 1j * np.asarray(y, dtype=float)


def _repeats_expected(keys: np.ndarray, n: int) -> bool:
    """Whether a sample's sorted keys predict few distinct records among all n rows, and few rows outside the
    sample's records: Chao's estimate of the records in all, d + f1 (f1 - 1) / (2 (f2 + 1)) (d the sample's distinct
    keys, f1 and f2 those seen once and twice: Chao 1984, in its bias-corrected form), at most ``MAX_SHARE`` n; and
    Good's (1953) estimate of the share of rows whose record the sample did not hold, f1 / m, at most ``MAX_SHARE``.

    Measured on samples of 1,024 rows: 500 and 100 distinct rows repeated to 50,000 and 20,000 rows with labels of a
    logistic model (720 and 115 records) are expected (f1 / m 0.16 and 0.003; Chao's estimate 563 and 108 records);
    1,000 distinct rows in 50,000 (1,326 records) are not (f1 / m 0.39), nor KDD Cup 99's 10 % file (0.45: 145,585
    records of 494,021, a long tail), nor continuous rows (1.0)."""
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1], [True]]))
    runs = np.diff(starts)  # how often each distinct key occurs
    once, twice = int(np.count_nonzero(runs == 1)), int(np.count_nonzero(runs == 2))
    records = runs.size + once * (once - 1) / (2 * (twice + 1))
    return once <= MAX_SHARE * keys.size and records <= MAX_SHARE * n


def _expecting_repeats(X: Any, y: np.ndarray, csr: bool) -> np.ndarray | None:
    """The evenly spaced rows (the first and last among them) of the first sample, of ``SAMPLE_ROWS`` rows then of
    ``WIDE_SAMPLE_ROWS`` (at most n), whose records predict few distinct records in all (:func:`_repeats_expected`),
    else None. The wider sample is read only where the first shows repeats (``REPEATS``) but too many records for
    its size: a table of some thousands of records (six to eight categorical columns) over many rows. A dense X's
    rows are read in their first ``SAMPLE_COLUMNS`` columns, a CSR's whole (its first columns may hold nothing)."""
    n = X.shape[0]
    for size in (SAMPLE_ROWS, min(WIDE_SAMPLE_ROWS, n)):
        sample = evenly_spaced(n, size)
        keys = np.sort(_keys(X[sample] if csr else X[sample, :SAMPLE_COLUMNS], y[sample]))
        if _repeats_expected(keys, n):
            return sample
        if np.count_nonzero(keys[1:] == keys[:-1]) < REPEATS * size or size == n:
            return None
    return None


def distinct_records(X: Any, y: np.ndarray, weights: np.ndarray | None = None) -> Distinct | None:
    """The groups of equal (row, label) records of an in-memory X (a dense array or a CSR matrix) when at most
    ``MAX_SHARE`` of its records are distinct, else None (also for fewer than ``MIN_ROWS`` rows or ``MIN_ENTRIES``
    entries n d, for any other X, or when two different rows share a key).

    Reads a sample first (:func:`_expecting_repeats`: ``SAMPLE_ROWS`` rows, then ``WIDE_SAMPLE_ROWS`` where those
    repeat but predict too many records). Only where it predicts few distinct records (:func:`_repeats_expected`):
    X once for the keys, each looked up among the sample's by
    binary search (where few records are distinct most rows are one of the sample's; the rows of records it did not
    hold are sorted apart, and more than ``MAX_SHARE`` of them end the grouping), and once more to compare every row
    with its group's first row (by blocks of rows). At 1,000,000 x 20 with 100 distinct rows, 0.13 s in all (one
    thread, a one-off timing); where the sample predicts no repeats, under 0.1 ms. X and y are never written."""
    csr = sparse.issparse(X) and X.format == "csr"
    if not (csr or (isinstance(X, np.ndarray) and X.ndim == 2)):
        return None
    n = X.shape[0]
    if n < MIN_ROWS or n * X.shape[1] < MIN_ENTRIES:
        return None
    sample = _expecting_repeats(X, y, csr)
    if sample is None:
        return None
    keys = _keys(X, y)
    known = np.unique(keys[sample])  # the sample's records, sorted: most rows are one of them where few are distinct
    groups = np.minimum(np.searchsorted(known, keys), known.size - 1)
    missed = np.flatnonzero(known[groups] != keys)
    count = known.size
    if missed.size > MAX_SHARE * n:  # the sample was no guide: too many rows of records it did not hold
        return None
    if missed.size:  # records the sample did not hold: grouped by a sort of their keys alone
        others, inverse = np.unique(keys[missed], return_inverse=True)
        groups[missed] = known.size + inverse
        count += others.size
    if count > MAX_SHARE * n:
        return None
    first = np.full(count, n, dtype=np.intp)
    np.minimum.at(first, groups, np.arange(n))  # each group's first row
    rank = np.argsort(first)  # the groups renumbered by their first row
    renumber = np.empty(count, dtype=np.intp)
    renumber[rank] = np.arange(count)
    groups = renumber[groups]
    first = first[rank]
    if not _equal_to_first(X, y, first, groups):
        return None
    return Distinct(first, np.bincount(groups, weights=weights, minlength=first.size).astype(float), groups)


def _equal_to_first(X: Any, y: np.ndarray, first: np.ndarray, groups: np.ndarray) -> bool:
    """Whether every row and label equal those of its group's first row, entry by entry (a key collision
    otherwise; NaN never reaches here: the input checks refused it), by blocks of rows: a CSR's of about
    ``_COMPARE_ENTRIES`` stored entries, compared as matrices (their entries in any order; the input checks
    summed any repeated entry)."""
    if not np.array_equal(y, y[first[groups]]):
        return False
    if sparse.issparse(X):
        step = max(1, int(_COMPARE_ENTRIES * X.shape[0] / max(X.nnz, 1)))
        return all((X[a:a + step] != take_rows(X, first[groups[a:a + step]])).nnz == 0
                   for a in range(0, X.shape[0], step))
    step = max(1, _COMPARE_ENTRIES // X.shape[1])
    return all(np.array_equal(X[a:a + step], take_rows(X, first[groups[a:a + step]]))
               for a in range(0, X.shape[0], step))
