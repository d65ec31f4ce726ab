"""Labels -1/+1 held as one bit a row, given as int8 -1/+1 a part at a time.

A fit of rows read by blocks (a memmap or Dask X, :class:`~dpcvx.data.blocks.RowBlocks`) holds its labels while it
reads the file, and each pass reads them a block's part at a time. One byte a row was an eighth of a one-column file
of float64 (issue 44: a 10,000,000 x 1 memmap's fit grew by 0.159 of it, 0.125 of which the labels); as bits they
are a 64th. :func:`dpcvx.validation.check_labels` packs them (``packed=True``); a part is the int8 -1/+1 the unpacked
array would give there, so a label times a float64 is the same float64 as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SignBits"]


#: The eight labels -1/+1 of each byte of bits, first bit first (a block's part is a lookup per byte: 6 us
#: against 11 us for unpacking and mapping the 43,690 labels of a 5,000,000 x 2 memmap's block, where a slice of
#: one-byte labels took none; a pass multiplies them by the block's products, 38 us)
_BYTE_SIGNS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).view(np.int8) * np.int8(2) - np.int8(1)


class SignBits:
    """n labels -1/+1: ``bits`` holds 1 for +1, packed big-endian eight to a byte (:func:`numpy.packbits`).

    Indexing by a slice or by integer row indices gives those labels as a new int8 array of -1/+1; passes over
    row blocks take their part by a slice (:meth:`dpcvx.data.blocks.RowBlocks.map`), a recomputed margin by the
    rows it reads (:class:`dpcvx.solvers.blockwise.RowMargins`). ``numpy.asarray`` gives all n of them (one byte
    a row, for a caller that needs them at once: a fit's record weights, its training-rows counts on margins it
    keeps)."""

    __slots__ = ("bits", "n")

    ndim = 1
    dtype = np.dtype(np.int8)

    def __init__(self, bits: np.ndarray, n: int) -> None:
        if bits.dtype != np.uint8 or bits.shape != ((n + 7) // 8,):
            raise ValueError(f"{n} labels take {(n + 7) // 8} bytes of bits, got {bits.dtype} {bits.shape}")
        self.bits, self.n = bits, n

    @classmethod
    def empty(cls, n: int) -> SignBits:
        """n labels to be set by :meth:`put`."""
        return cls(np.empty((n + 7) // 8, dtype=np.uint8), n)

    def put(self, start: int, positive: np.ndarray) -> None:
        """Labels ``start`` .. ``start + len(positive)``: +1 where ``positive`` (booleans), else -1. ``start`` is a
        multiple of 8, and so is ``len(positive)`` unless those labels are the last."""
        self.bits[start // 8:(start + positive.shape[0] + 7) // 8] = np.packbits(positive)

    def positives(self) -> int:
        """How many labels are +1 (the bits set; those past the n-th are 0)."""
        return int(np.bitwise_count(self.bits).sum())

    @property
    def shape(self) -> tuple[int]:
        return (self.n,)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, rows: slice | np.ndarray) -> np.ndarray:
        """The labels of ``rows`` (a slice, or integer indices), int8 -1/+1."""
        if isinstance(rows, slice):
            start, stop, step = rows.indices(self.n)
            if step != 1:
                return self[np.arange(start, stop, step)]
            stop = max(start, stop)
            first = start - start % 8  # each byte's eight signs looked up at once: half the time of unpacking
            return np.take(_BYTE_SIGNS, self.bits[first // 8:(stop + 7) // 8], axis=0).reshape(-1)[
                start - first:stop - first]
        index = np.asarray(rows)
        if index.dtype.kind not in "iu":
            raise IndexError(f"labels are indexed by a slice or integer rows, got {index.dtype}")
        if index.size and (index.min() < -self.n or index.max() >= self.n):
            raise IndexError(f"row indices must lie in [-{self.n}, {self.n})")
        index = np.where(index < 0, index + self.n, index)
        ones = (self.bits[index >> 3] >> (7 - (index & 7)).astype(np.uint8)) & np.uint8(1)
        signs = ones.view(np.int8)
        signs *= 2
        signs -= 1
        return signs

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        signs = self[:]
        return signs if dtype is None else signs.astype(dtype)

    def __repr__(self) -> str:
        return f"SignBits(n={self.n})"
