"""Shared by the kernel-learning tests."""

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True, scope="session")
def single_blas_thread():
    """One BLAS thread: on shared cores, spinning BLAS threads slow dense solves several-fold."""
    with threadpool_limits(1):
        yield
