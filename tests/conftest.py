"""Shared test configuration.

Hypothesis runs derandomised (the same examples on every run, so CI is
reproducible, like every other seeded statistical test here), without a
database directory and without per-example deadlines (a first call pays for
sympy; later ones hit the verifier's cache).

Tests that read the original UCI files carry ``@pytest.mark.data("adult")``,
``@pytest.mark.data("kdd")`` or both; :func:`pytest_runtest_setup` skips them,
with the reason, when the files are not found where
:func:`dpcvx.data.datasets.find_data_directory` looks (``$DPCVX_DATA``, then
``../shared/data``). A bare clone with nothing beside it therefore passes
``python -m pytest -q``; ``.ci/run`` runs that command in such a bare clone, so
a test that reads the files without the marker fails CI.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import settings

from dpcvx.data.datasets import find_data_directory
from dpcvx.exceptions import InputError

settings.register_profile("dpcvx", derandomize=True, database=None, deadline=None)
settings.load_profile("dpcvx")

UCI_FILES = {"adult": ("adult.data", "adult.test"), "kdd": ("kddcup.data_10_percent",)}


def uci_directory(*sets: str) -> Path | None:
    """The directory holding the named UCI file sets (all of them when none is named), or None."""
    names = tuple(name for key in (sets or tuple(UCI_FILES)) for name in UCI_FILES[key])
    try:
        return find_data_directory(names)
    except InputError:
        return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    marker = item.get_closest_marker("data")
    if marker is None:
        return
    unknown = set(marker.args) - set(UCI_FILES)
    if unknown:
        raise pytest.UsageError(f"{item.nodeid}: unknown data sets {sorted(unknown)}; known: {sorted(UCI_FILES)}")
    if uci_directory(*marker.args) is None:
        wanted = ", ".join(marker.args or UCI_FILES)
        pytest.skip(f"the UCI {wanted} files are not in $DPCVX_DATA or ../shared/data")


@pytest.fixture(scope="session")
def uci_data() -> Path:
    """The directory of the UCI files (Adult and KDD); the test is skipped when they are absent."""
    directory = uci_directory()
    if directory is None:
        pytest.skip("the UCI Adult and KDD files are not in $DPCVX_DATA or ../shared/data")
    return directory


@pytest.fixture(autouse=True, scope="session")
def _proof_cache_in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The verifier's on-disk proof cache (dpcvx.verification.proof_cache) never writes the user's home in tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DPCVX_CACHE_DIR", str(tmp_path_factory.mktemp("dpcvx-proof-cache")))
        yield


@pytest.fixture
def traced_peak() -> Callable[..., tuple[Any, int]]:
    """``peak(work, *args)``: (work(*args), the peak of the allocations tracemalloc traces, Python's and numpy's,
    while it ran), for the tests that bound what a read of a file allocates."""
    def peak(work: Callable[..., Any], *args: Any) -> tuple[Any, int]:
        tracemalloc.start()
        try:
            return work(*args), tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return peak


@pytest.fixture
def uniform_memmap(tmp_path: Path) -> Callable[..., np.ndarray]:
    """``make(n, d, seed=0)``: an n x d float64 .npy file of entries uniform on [-1, 1] / sqrt(d) (rows of norm
    <= 1), written in place (no n x d array in memory) and opened read-only (``mmap_mode="r"``), for the tests that
    bound what a fit on a memmap allocates."""
    def make(n: int, d: int, seed: int = 0) -> np.ndarray:
        path = tmp_path / f"uniform-{n}x{d}-{seed}.npy"
        rng = np.random.default_rng(seed)
        X = np.lib.format.open_memmap(str(path), mode="w+", dtype=np.float64, shape=(n, d))
        X[:] = rng.uniform(-1.0, 1.0, size=(n, d)) / np.sqrt(d)
        X.flush()
        del X
        return np.load(str(path), mmap_mode="r")
    return make


@pytest.fixture
def gaussian_objective(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Gaussian objective calibrations alone at delta > 0: the pure calibration does not compete
    (:func:`dpcvx.privacy.linear_calibration.pure_competitor` returns None). For the tests of the Gaussian
    machinery on small fixtures (d of 3 to 10), where the pure calibration's public bound is the smaller and a fit
    would otherwise release it (docs/theory.md, section 12.5); what the competition chooses is tested in
    tests/privacy/test_pure_competitor.py."""
    monkeypatch.setattr("dpcvx.privacy.linear_calibration.pure_competitor", lambda *args, **kwargs: None)
