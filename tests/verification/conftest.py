"""Fixtures of the verifier's tests."""

import pytest

from dpcvx.verification import proof_cache, verifier


@pytest.fixture
def uncached_verifier(monkeypatch):
    """No proof cache on disk and none in memory, before and after the test: each loss is proved (or served from the
    shipped catalogue) afresh."""
    monkeypatch.setenv(proof_cache.ENVIRONMENT, "off")
    verifier.forget_losses()
    yield
    verifier.forget_losses()
