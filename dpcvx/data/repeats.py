"""Whether a CSR stores a (row, column) twice, without writing to it.

A CSR product sums a repeated entry, so the vector a row stands for is the sum; its norm, which the
privacy theorems bound, is that sum's, not the stored entries'. A canonical CSR (indices increasing
within each row) has no repeat by definition, nor has one whose indices strictly decrease within each
row (the order scipy's own sparse products leave, e.g. ``sparse.diags(s) @ X`` scaling rows); any other
is checked here by counting its distinct positions in one pass, in any index order. The CSR itself may
be read-only views of the caller's arrays (:func:`~dpcvx.validation.check_matrix`) and is never sorted
where it is.

Measured by ``python -m benchmarks.csr_check`` on the speed sweep's 200,000 x 100,000 CSR (20 entries
a row, one BLAS thread; ``benchmarks/results/csr_check.md``): 7.4 to 7.6 ms whether each row's indices
decrease or come in random order, where sorting a copy of the indices row by row took 13 ms and 54 ms,
and the pattern product (the fallback below) 21 to 22 ms. Rows whose indices all decrease are
recognised by comparing neighbouring indices, a group of entries at a time (:func:`strictly_decreasing`:
1.6 ms where the count took 7.1 ms, the thirty-fourth session); any other order leaves that comparison at
its first group.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.sparse as sparse
from scipy.sparse import _sparsetools

__all__ = ["distinct_positions", "has_repeats", "pattern_positions", "strictly_decreasing"]

# Entries a group of rows holds on average in the fallback's pattern products (about 10 bytes an entry
# of temporaries)
_GROUP_ENTRIES = 1 << 18


def has_repeats(matrix: sparse.csr_matrix) -> bool:
    """Whether some (row, column) is stored more than once in ``matrix`` (read, never written).

    Canonical: no. Indices sorted but not canonical: yes (scipy's canonical form is sorted indices without
    a repeat). Indices strictly decreasing within every row: no (:func:`strictly_decreasing`). Otherwise:
    whether it has fewer distinct positions than stored entries (:func:`distinct_positions`)."""
    if matrix.has_canonical_format:
        return False
    if matrix.has_sorted_indices:
        return True
    if strictly_decreasing(matrix):
        return False
    return distinct_positions(matrix) < matrix.nnz


def strictly_decreasing(matrix: sparse.csr_matrix) -> bool:
    """Whether each row's stored indices strictly decrease (then no position repeats): every pair of
    neighbouring entries of a row has a falling index. Pairs are compared ``_GROUP_ENTRIES`` at a time,
    those that straddle the start of a row left out; the first group with a rising pair inside a row
    answers no (read, never written; an empty row has no pair)."""
    indptr, indices = matrix.indptr, matrix.indices
    entries = int(indptr[-1])
    starts = indptr[1:-1]  # a pair (s - 1, s) straddles a row boundary where s starts a row
    for lo in range(0, entries - 1, _GROUP_ENTRIES):
        hi = min(lo + _GROUP_ENTRIES, entries - 1)  # the pairs (p, p + 1) with lo <= p < hi
        rising = indices[lo + 1:hi + 1] >= indices[lo:hi]
        first, last = np.searchsorted(starts, (lo + 1, hi + 1))
        rising[starts[first:last] - 1 - lo] = False
        if rising.any():
            return False
    return True


def distinct_positions(matrix: sparse.csr_matrix) -> int:
    """How many distinct (row, column) positions ``matrix`` stores.

    scipy's ``csr_count_blocks`` with 1 x 1 blocks, the count its ``tobsr`` sizes blocks with: one pass
    over the indices, keeping for each column the last row that stored it, so an entry counts when its
    column was not yet stored in its row (O(nnz + d), no sort). It is private to scipy
    (``scipy.sparse._sparsetools``); where a scipy lacks it, :func:`pattern_positions` counts."""
    count = getattr(_sparsetools, "csr_count_blocks", None)
    if count is not None:
        n, d = matrix.shape
        return int(count(n, d, 1, 1, matrix.indptr, matrix.indices))
    return pattern_positions(matrix)


def pattern_positions(matrix: sparse.csr_matrix) -> int:
    """How many distinct (row, column) positions ``matrix`` stores, as the stored entries of the pattern's
    elementwise square P * P (P True at every stored entry: the product is a matrix, one stored entry a
    position, True + True being True), a group of rows at a time, which scipy computes row by row in a
    dense accumulator, without a sort."""
    return sum(group.multiply(group).nnz for group in _pattern_groups(matrix))


def _pattern_groups(matrix: sparse.csr_matrix) -> Iterator[sparse.csr_matrix]:
    """The pattern of consecutive groups of rows holding about ``_GROUP_ENTRIES`` entries (a longer row makes
    its own group): CSRs of one-byte True over the matrix's own indices, views of one buffer."""
    n, d = matrix.shape
    indptr, indices = matrix.indptr, matrix.indices
    ones = np.ones(_GROUP_ENTRIES, dtype=np.bool_)
    step = max(1, _GROUP_ENTRIES * n // max(matrix.nnz, 1) // 2)  # rows per group: half a buffer on average
    for a in range(0, n, step):
        b = min(a + step, n)
        lo, hi = int(indptr[a]), int(indptr[b])
        data = ones[:hi - lo] if hi - lo <= _GROUP_ENTRIES else np.ones(hi - lo, dtype=np.bool_)
        yield sparse.csr_matrix((data, indices[lo:hi], indptr[a:b + 1] - lo), shape=(b - a, d))
