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


# The one rule of a seed (dpcvx.privacy.rng.check_seed, dpcvx.limits.SEED_MAX): `dpcvx fit --random-state` took
# 2**70 where `dpcvx demo --seed` capped at 2**32 - 1, the learners took any non-negative int and the demo's data any
# value numpy reads; each entry said it in words of its own.
RULE = r"an integer from 0 to 2\^128 - 1 \(a reproducible seed, for experiments only\)"


def _entries():
    from dpcvx.demo import synthetic_classification

    X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(120, 2))
    y = np.where(X[:, 0] > 0, 1, 0)
    return {
        "PrivateERM.fit": lambda seed: dpcvx.PrivateERM(data_norm=1.0).fit(X, 2 * y - 1, epsilon=1.0,
                                                                          random_state=seed),
        "DPLogisticRegression": lambda seed: dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0,
                                                                        random_state=seed).fit(X, y),
        "tune": lambda seed: dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, 2 * y - 1, {"lam": [0.1]}, epsilon=1.0,
                                        random_state=seed),
        "RandomFourierFeatures": lambda seed: dpcvx.RandomFourierFeatures(gamma=1.0, random_state=seed).fit(X),
        "synthetic_classification": lambda seed: synthetic_classification(40, 2, random_state=seed),
        "run_demo": lambda seed: dpcvx.demo.run_demo(n=30, draws=1, epsilons=(1.0,), random_state=seed),
    }


@pytest.mark.parametrize("entry", ["PrivateERM.fit", "DPLogisticRegression", "tune", "RandomFourierFeatures",
                                   "synthetic_classification", "run_demo"])
def test_one_seed_rule_at_every_entry(entry):
    import dpcvx.demo  # noqa: F401  (run_demo)

    fit = _entries()[entry]
    for seed in (2**70, 2**128 - 1, np.int64(7)):
        fit(seed)
    for seed in (2**128, -1, True, 1.0, "3", np.random.SeedSequence(1)):
        with pytest.raises(dpcvx.InputError, match=RULE if not isinstance(seed, np.random.SeedSequence) or
                           entry != "DPLogisticRegression" else "clone"):
            fit(seed)


@pytest.mark.parametrize("argv", [["fit", "data.csv", "--target", "y", "--epsilon", "1", "--out", "m.json",
                                   "--random-state"], ["demo", "--seed"]])
def test_one_seed_rule_on_the_command_line(argv):
    from dpcvx.cli.parser import build_parser
    from dpcvx.exceptions import UsageError

    parser = build_parser()
    assert parser.parse_args([*argv, str(2**70)]) is not None
    assert parser.parse_args([*argv, str(2**128 - 1)]) is not None
    for text in (str(2**128), "-1", "1.0", "1e3"):
        with pytest.raises(UsageError, match=f"{argv[-1]} must be {RULE}; got '{text}'"):
            parser.parse_args([*argv, text])
