"""A memmap whose row map maps every block on every pass (the defaults' standardiser, the intercept column) holds one
mapped block at a time: a pass lets each block go before the next is mapped (:meth:`RowBlocks._each`), and a
Hessian's subsample is gathered and mapped a part at a time into the rows returned (:meth:`RowBlocks.take`). Before,
a pass held the block it last gave while the next was mapped, the map wrote into a scratch block first, and a
subsample's raw rows were held beside their mapped copy: 7.5 MB at the peak of either against 3.5 MB now, for
blocks of 2.2 MB.

A memmap's blocks, with the n_b-vectors a pass holds beside each, are at most a 32nd of the file
(:data:`~dpcvx.data.blocks.MEMMAP_BLOCK_SHARE`, :data:`~dpcvx.data.blocks.BLOCK_ROW_VECTORS`), so that the peak of a
fit on a file of a few tens of MB, or of a few columns, stays a small part of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpcvx.data.blocks import BLOCK_ROW_VECTORS, CACHE_BLOCK_BYTES, MEMMAP_BLOCK_SHARE, RowBlocks, cache_block_rows
from dpcvx.data.rows import RowMap
from dpcvx.data.standardiser import ColumnStandardiser

N, D = 60_000, 20


@pytest.fixture
def blocks(tmp_path: Path) -> RowBlocks:
    rng = np.random.default_rng(0)
    np.save(tmp_path / "X.npy", rng.normal(0, 0.3, (N, D)))  # a third of the rows beyond R once mapped
    standardiser = ColumnStandardiser(rng.normal(0, 0.1, D), rng.uniform(0.7, 3.3, D), 1.0, 0.45)
    return RowBlocks(np.load(tmp_path / "X.npy", mmap_mode="r"),  # cache-sized blocks, as a file of 64 MB has
                     RowMap(1.0, feature_map=standardiser, fit_intercept=True), cache_block_rows(D))


def _block_bytes(blocks: RowBlocks) -> int:
    return blocks.block_rows * (D + 1) * 8


def test_a_pass_over_mapped_blocks_holds_one_block_at_a_time(blocks, traced_peak):
    def corner(block: np.ndarray) -> np.ndarray:
        return block[:1].T @ block[:1]

    blocks.sum(corner)  # numpy's first-call allocations
    total, peak = traced_peak(blocks.sum, corner)
    # one block, its sums of squares and clipping vectors, and the map's repeated parameters (1 MB): two blocks over
    assert peak < 2 * _block_bytes(blocks), f"{peak / 1e6:.1f} MB for blocks of {_block_bytes(blocks) / 1e6:.1f} MB"
    assert len(blocks.map(corner)) == N // blocks.block_rows + 1
    np.testing.assert_array_equal(total, sum(corner(block) for _, block, _ in blocks.blocks()))


def test_a_subsample_is_mapped_by_parts_into_the_rows_returned(blocks, traced_peak):
    indices = np.arange(0, N, N // blocks.block_rows)[:blocks.block_rows]
    taken, peak = traced_peak(blocks.take, indices)
    assert peak < 2 * _block_bytes(blocks), f"{peak / 1e6:.1f} MB for blocks of {_block_bytes(blocks) / 1e6:.1f} MB"
    whole = blocks.rows.apply(np.take(np.asarray(blocks.source), indices, axis=0))[0]
    assert taken.flags.c_contiguous and np.array_equal(taken, whole)  # the rows mapped whole, bit for bit


@pytest.mark.parametrize("n, d", [(4_000_000, 20), (200_000, 20), (60_000, 20), (20_000, 10), (1_000, 20),
                                  (40_000, 500), (1_600_000, 5), (3_200_000, 2), (300_000, 1)])
def test_a_memmaps_blocks_are_a_small_part_of_it(tmp_path: Path, n: int, d: int) -> None:
    """A file of one cache-sized block is read in one, as in memory. Beyond, a block and the BLOCK_ROW_VECTORS
    float64 n_b-vectors a pass holds beside it are at most a 32nd of the file, 2 MB at most (from a 64 MB file up)
    and CACHE_BLOCK_BYTES / 8 at least: a fit holds a mapped block, its float32 copy and those vectors at its peak,
    0.11 of a 32 MB file with 2 MB blocks, and, counting the block alone, 0.103 of a 64 MB file of 5 columns."""
    X = np.memmap(tmp_path / "X", dtype=np.float64, mode="w+", shape=(n, d))
    rows = RowBlocks(X, RowMap(1.0)).block_rows
    if X.nbytes <= CACHE_BLOCK_BYTES:
        assert rows == cache_block_rows(d) >= n
        return
    row_bytes = 8 * (d + BLOCK_ROW_VECTORS)
    share = min(CACHE_BLOCK_BYTES, max(X.nbytes * MEMMAP_BLOCK_SHARE, CACHE_BLOCK_BYTES // 8))
    assert rows == 256 or share - row_bytes < rows * row_bytes <= share
