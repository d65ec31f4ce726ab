"""A memmap whose row map maps every block on every pass (the defaults' standardiser, the intercept column) holds one
mapped block at a time: a pass lets each block go before the next is mapped (:meth:`RowBlocks._each`), and a
Hessian's subsample is gathered and mapped a part at a time into the rows returned (:meth:`RowBlocks.take`). Before,
a pass held the block it last gave while the next was mapped, the map wrote into a scratch block first, and a
subsample's raw rows were held beside their mapped copy: 7.5 MB at the peak of either against 3.5 MB now, for
blocks of 2.2 MB.

A memmap's blocks are at most a 32nd of the file (:data:`~dpcvx.data.blocks.MEMMAP_BLOCK_SHARE`), so that the peak of
a fit on a file of a few tens of MB stays a small part of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpcvx.data.blocks import CACHE_BLOCK_BYTES, MEMMAP_BLOCK_SHARE, RowBlocks, cache_block_rows
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
                                  (40_000, 500)])
def test_a_memmaps_blocks_are_a_small_part_of_it(tmp_path: Path, n: int, d: int) -> None:
    """Cache-sized (2 MB) blocks from a 64 MB file up, and for a file of one such block (read in one, as in memory);
    between, a 32nd of the file, and CACHE_BLOCK_BYTES / 8 at least: a fit holds a mapped block and its float32 copy
    at its peak, 0.11 of a 32 MB file with 2 MB blocks."""
    X = np.memmap(tmp_path / "X", dtype=np.float64, mode="w+", shape=(n, d))
    rows = RowBlocks(X, RowMap(1.0)).block_rows
    if X.nbytes <= CACHE_BLOCK_BYTES or X.nbytes >= 64 * 2**20:
        assert rows == cache_block_rows(d) and (rows >= n or X.nbytes > CACHE_BLOCK_BYTES)
    else:
        share = max(X.nbytes * MEMMAP_BLOCK_SHARE, CACHE_BLOCK_BYTES // 8)
        assert share - 8 * d < rows * d * 8 <= share
