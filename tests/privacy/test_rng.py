"""dpcvx.privacy.rng: fresh OS-entropy generators by default, int seeds reproducible, estimator rule."""

import numpy as np
import pytest

import dpcvx
from dpcvx.privacy.rng import check_estimator_seed, resolve_rng


def test_none_gives_a_fresh_stream_every_call():
    draws = [resolve_rng(None).standard_normal(4) for _ in range(5)]
    assert all(not np.array_equal(draws[i], draws[j]) for i in range(5) for j in range(i))


def test_int_seed_is_reproducible_and_a_generator_is_used_as_is():
    np.testing.assert_array_equal(resolve_rng(11).standard_normal(3),
                                  np.random.default_rng(11).standard_normal(3))
    generator = np.random.default_rng(0)
    assert resolve_rng(generator) is generator          # one fit call may consume it


@pytest.mark.parametrize("state", [-3, True, 2.0, "1", np.random.RandomState(0)])
def test_resolve_rng_refuses_other_values(state):
    with pytest.raises(dpcvx.InputError, match="random_state"):
        resolve_rng(state)


def test_estimator_seed_rule():
    assert check_estimator_seed(None) is None
    assert check_estimator_seed(np.uint8(4)) == 4 and type(check_estimator_seed(np.uint8(4))) is int
    for state in (np.random.default_rng(0), np.random.RandomState(0), np.random.PCG64(1),
                  np.random.SeedSequence(2)):
        with pytest.raises(dpcvx.InputError, match="clone.*identical noise"):
            check_estimator_seed(state, "DPLogisticRegression")
    for state in (-1, False, 0.5):
        with pytest.raises(dpcvx.InputError):
            check_estimator_seed(state)
