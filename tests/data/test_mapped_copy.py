"""A memmap whose row map changes its rows (a feature map, the private ranges' standardiser, a row clipped, a float32
file) is mapped once, in the validation pass, into an unnamed temporary file that the solver's passes read
(:meth:`dpcvx.data.blocks.RowBlocks.checked_blocks`). Before, every block was mapped again on every pass: 2.9 to 6
times the in-memory fit's time (benchmarks/mapped_memmap.py).

The release is the one the blocks mapped on every pass give, bit for bit (the same blocks, the same sums), and the
in-memory fit's to the solver's rounding; the map reads each row once; the temporary file is gone after the fit, a
refused one too, and the user's file is unchanged.
"""

from __future__ import annotations

import gc
import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dpcvx
from dpcvx.data import blocks as blocks_module
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.kernels import RandomFourierFeatures
from dpcvx.data.rows import RowMap
from dpcvx.exceptions import InputError

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")

N, D = 40_000, 12  # 3.8 MB: blocks of an eighth of 2 MB, 15 of them


def _rows(tmp_path: Path, n: int = N, d: int = D, scale: float = 1.2, dtype: Any = np.float64) -> tuple[Any, Any]:
    rng = np.random.default_rng(d)
    X = rng.normal(0, 1, (n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * scale  # norms 1 / scale: above R = 1 for scale < 1
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, 0)
    np.save(tmp_path / "X.npy", X.astype(dtype))
    return np.load(tmp_path / "X.npy", mmap_mode="r"), y


class CountingFourier(RandomFourierFeatures):
    """Random Fourier features that count the rows they map."""

    mapped = 0

    def transform(self, X: Any) -> np.ndarray:
        CountingFourier.mapped += np.shape(X)[0]
        return super().transform(X)


def _fourier() -> CountingFourier:
    return CountingFourier(gamma=1.0, n_components=40, n_features=D, random_state=1)


FITS = {
    "defaults": lambda X, y: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y),
    "fourier": lambda X, y: dpcvx.PrivateERM(classes=(0, 1), feature_map=_fourier(),
                                             fit_intercept=True).fit(X, y, 1.0, random_state=3),
    "clipped": lambda X, y: dpcvx.PrivateERM(classes=(0, 1), data_norm=1.0).fit(X, y, 1.0, random_state=3),
    # the default mechanism, "gradient-ranged": T noisy gradient steps, each a pass over the rows the ranges map
    "linear": lambda X, y: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-9, random_state=0,
                                                    label_bound=(-1, 2)).fit(X, y),
}


def _release(fitted: Any) -> tuple[bytes, Any, dict]:
    model = getattr(fitted, "model_", fitted)
    return np.asarray(model.coef_).tobytes(), model.intercept_, model.certificate.to_dict()


class _FullDisk:
    """A temporary file on a full disk: every write fails (ENOSPC)."""

    def write(self, data: Any) -> int:
        raise OSError(28, "No space left on device")

    def close(self) -> None:
        pass


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
@pytest.mark.parametrize("name, scale, dtype", [("defaults", 1.2, np.float64), ("fourier", 1.2, np.float64),
                                                ("clipped", 0.6, np.float64), ("clipped", 1.2, np.float32),
                                                ("linear", 1.2, np.float64)])
def test_the_release_is_that_of_blocks_mapped_on_every_pass(tmp_path, monkeypatch, name, scale, dtype):
    """The copy's blocks are those its rows were mapped by: the release is bit for bit the one a fit gives whose
    copy cannot be written (a full disk), which maps every block on every pass as before."""
    X, y = _rows(tmp_path, scale=scale, dtype=dtype)
    copied = _release(FITS[name](X, y))
    monkeypatch.setattr(blocks_module, "_scratch_file", _FullDisk)
    assert _release(FITS[name](X, y)) == copied


@pytest.mark.parametrize("name, scale", [("defaults", 1.2), ("fourier", 1.2), ("clipped", 0.6)])
def test_the_release_is_the_in_memory_fits_to_the_solvers_rounding(tmp_path, name, scale):
    """The same certificate, and weights within the rounding by which Newton over a memmap's blocks and over rows in
    memory differ (their sums group the rows differently: never bit for bit, before the copy too)."""
    X, y = _rows(tmp_path, scale=scale)
    coef, intercept, certificate = _release(FITS[name](X, y))
    in_memory = _release(FITS[name](np.array(X), y))
    assert certificate == in_memory[2]
    np.testing.assert_allclose(np.frombuffer(coef), np.frombuffer(in_memory[0]), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(intercept, in_memory[1], rtol=1e-6, atol=1e-9)


def test_the_feature_map_reads_each_row_once(tmp_path):
    """Before, 412,257 rows mapped for 40,000 (every pass, every Hessian's sample)."""
    X, y = _rows(tmp_path)
    CountingFourier.mapped = 0
    FITS["fourier"](X, y)
    assert N <= CountingFourier.mapped <= N + 10  # each row once, and the map's width read off a zero row


def test_the_regressors_descent_maps_each_row_once_more(tmp_path, monkeypatch):
    """DPLinearRegression's descent reads its rows from the copy; before, 2,520,000 rows mapped by the ranges' map for
    40,000 (the validation's and a pass per step)."""
    X, y = _rows(tmp_path)
    mapped, apply = [0], RowMap.apply

    def counted(self: RowMap, rows: Any, refuse: bool = False) -> Any:
        mapped[0] += np.shape(rows)[0] if self.feature_map is not None else 0
        return apply(self, rows, refuse)

    monkeypatch.setattr(RowMap, "apply", counted)
    assert FITS["linear"](X, y).certificate_.mechanism == "gradient-ranged"
    assert mapped[0] <= 2 * N


def test_the_copy_is_read_as_views_of_one_block_size(tmp_path):
    X, _ = _rows(tmp_path, scale=0.6)
    mapped = RowMap(1.0, fit_intercept=True)
    blocks, clipped = RowBlocks(X, mapped).checked_blocks(refuse=False)
    assert blocks.copied and clipped > 0 and blocks.coarser(4) is blocks
    again = RowBlocks(X, mapped, blocks.block_rows)
    for (a, block, _), (b, remapped, _) in zip(blocks.blocks(), again.blocks(), strict=True):
        assert a == b and np.array_equal(block, remapped) and block.flags.c_contiguous
    rows = np.arange(0, N, 7)
    assert np.array_equal(blocks.take(rows), again.take(rows))


def _scratch_mappings(directory: Path) -> list[str]:
    with open("/proc/self/maps") as maps:
        return [line for line in maps if str(directory) in line]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads the process's mappings (Linux)")
def test_the_temporary_file_is_gone_after_the_fit_and_after_a_refusal(tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(scratch))
    X, y = _rows(tmp_path)
    before = _digest(tmp_path / "X.npy")
    seen: list[int] = []
    summed = RowBlocks.sum

    def spied(self: RowBlocks, *args: Any) -> Any:
        seen.append(len(_scratch_mappings(scratch)))
        return summed(self, *args)

    monkeypatch.setattr(RowBlocks, "sum", spied)
    FITS["fourier"](X, y)
    assert seen and max(seen) == 1  # the solver read the copy, mapped from the scratch directory
    gc.collect()
    assert _scratch_mappings(scratch) == [] and list(scratch.iterdir()) == []
    with pytest.raises(InputError, match="outside the declared classes"):  # refused after the copy, before any charge
        FITS["fourier"](X, np.where(y == 1, 2, 0))
    gc.collect()
    assert _scratch_mappings(scratch) == [] and list(scratch.iterdir()) == []
    assert _digest(tmp_path / "X.npy") == before
