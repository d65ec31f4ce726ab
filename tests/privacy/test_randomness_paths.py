"""With no seed, every exact draw of a composite procedure comes from the OS CSPRNG; a seed makes it reproducible.

The audit counted the integers the exact samplers took from numpy's PCG64 with ``random_state=None``: 145 in
``tune`` (each fit got tune's generator) and all 76 in multiclass (each class got an int seed). Here each
source's ``below`` is counted: unseeded, :class:`~dpcvx.privacy.exact_sampling.GeneratorSource` is never asked for a
release. The rehearsal of a composite procedure (synthetic public rows, nothing of it released:
:func:`dpcvx.models.failure.rehearse`) is counted apart."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.models.failure import rehearsing
from dpcvx.privacy import exact_sampling
from dpcvx.privacy.rng import child_seeds


@pytest.fixture
def draws(monkeypatch):
    counts = {"system": 0, "generator": 0, "rehearsal": 0}
    system, generator = exact_sampling.SystemSource.below, exact_sampling.GeneratorSource.below
    system_array = exact_sampling.SystemSource.below_array

    def count(name, original):
        def below(self, *args):
            counts["rehearsal" if rehearsing() else name] += 1
            return original(self, *args)
        return below

    monkeypatch.setattr(exact_sampling.SystemSource, "below", count("system", system))
    monkeypatch.setattr(exact_sampling.SystemSource, "below_array", count("system", system_array))
    monkeypatch.setattr(exact_sampling.GeneratorSource, "below", count("generator", generator))
    return counts


def _data(n: int = 240, d: int = 3, classes: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    labels = np.argmax(X[:, :classes], axis=1) if classes > 2 else np.where(X[:, 0] > 0, 1, -1)
    return X, labels


def _lattice_learner() -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(data_norm=1.0, float_safe=True)


def _tune(procedure: str, random_state):
    X, y = _data()
    return dpcvx.tune(_lattice_learner(), X, y, {"lam": [0.05, 0.1]}, 1.0, procedure=procedure,
                      mechanism="output", random_state=random_state, mean_runs=2 if procedure == "full-data"
                      else None)


def _multiclass(random_state):
    X, y = _data(classes=3)
    return dpcvx.PrivateMulticlassERM(_lattice_learner(), classes=(0, 1, 2)).fit(X, y, 1.0, "output",
                                                                                random_state=random_state)


def _private_norm(random_state):
    X, y = _data()
    learner = dpcvx.PrivateERM(data_norm="private", norm_range=(0.25, 4), float_safe=True)
    return learner.fit(X, y, 1.0, "output", random_state=random_state)


@pytest.mark.parametrize("release", [lambda seed: _tune("full-data", seed), lambda seed: _tune("split", seed),
                                     _multiclass, _private_norm],
                         ids=["tune full-data", "tune split", "multiclass", "private norm bound"])
def test_without_a_seed_no_exact_draw_comes_from_pcg64(release, draws):
    release(None)
    assert draws["generator"] == 0 and draws["system"] > 0
    draws.update(system=0, generator=0, rehearsal=0)
    first, second = release(7), release(7)  # seeded: reproducible, from the seeded generator only
    assert draws["system"] == 0 and draws["generator"] > 0
    model_a, model_b = (getattr(result, "model", result) for result in (first, second))
    np.testing.assert_array_equal(model_a.coef_, model_b.coef_)


def test_child_seeds_hand_out_no_seed_without_one():
    assert child_seeds(None, 3) == [None, None, None]
    assert child_seeds(5, 3) == child_seeds(5, 3) and len(set(child_seeds(5, 3))) == 3


def test_the_rehearsal_draws_from_the_source_the_fits_after_the_charge_draw_from(monkeypatch):
    # unseeded, the rehearsal's exact draws come from the OS (the array path, as the fits after the charge); seeded,
    # from a generator of the rehearsal's own fixed seed (the procedure's stream left as it is)
    sources = set()

    def spy(name, original):
        def below(self, *args):
            if rehearsing():
                sources.add(name)
            return original(self, *args)
        return below

    monkeypatch.setattr(exact_sampling.SystemSource, "below", spy("system", exact_sampling.SystemSource.below))
    monkeypatch.setattr(exact_sampling.SystemSource, "below_array",
                        spy("system", exact_sampling.SystemSource.below_array))
    monkeypatch.setattr(exact_sampling.GeneratorSource, "below", spy("generator", exact_sampling.GeneratorSource.below))
    for procedure in ("full-data", "split"):
        sources.clear()
        _tune(procedure, None)
        assert sources == {"system"}
        sources.clear()
        _tune(procedure, 7)
        assert sources == {"generator"}
