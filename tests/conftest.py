"""Shared test configuration.

Hypothesis runs derandomised (the same examples on every run, so CI is
reproducible, like every other seeded statistical test here), without a
database directory and without per-example deadlines (a first call pays for
sympy; later ones hit the verifier's cache).
"""

import pytest
from hypothesis import settings

settings.register_profile("dpcvx", derandomize=True, database=None, deadline=None)
settings.load_profile("dpcvx")


@pytest.fixture(autouse=True, scope="session")
def _proof_cache_in_a_temporary_directory(tmp_path_factory):
    """The verifier's on-disk proof cache (dpcvx.verification.proof_cache) never writes the user's home in tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DPCVX_CACHE_DIR", str(tmp_path_factory.mktemp("dpcvx-proof-cache")))
        yield
