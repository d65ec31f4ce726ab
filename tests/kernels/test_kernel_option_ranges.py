"""PINP's and TDIL's counts, probabilities and net spacing, and TDDL's span: each has one check, run by the
constructor, set_params, check_options and fit before any data is read, and each refuses what no release can use
(docs/theory.md, section 11, K5 and K6)."""

import warnings

import numpy as np
import pytest

from dpcvx.exceptions import ExponentialCostWarning, InputError, NoiseDominatesWarning
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.kernel_calibrate import MAX_QUERIES, MAX_ROUNDS


def task(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def make(name, **settings):
    base = {"PINP": dict(gamma=1.0, lam=0.1, max_queries=5), "TDIL": dict(gamma=1.0, lam=0.1, input_bound=1.0),
            "TDDL": dict(gamma=1.0, lam=0.1)}[name]
    return {"PINP": PINP, "TDIL": TDIL, "TDDL": TDDL}[name]("rbf", **{**base, **settings})


BAD = [  # (learner, option, value, the refusal)
    ("PINP", "max_queries", 0, "max_queries must be a positive integer, got 0"),
    ("PINP", "max_queries", 2.0, "max_queries must be a positive integer, got 2.0"),
    ("PINP", "max_queries", True, "max_queries must be a positive integer, got True"),
    ("PINP", "max_queries", float("nan"), "max_queries must be a positive integer, got nan"),
    ("PINP", "max_queries", 2**53 + 1, r"max_queries must be at most 9,007,199,254,740,992 \(2\^53"),
    ("PINP", "max_queries", 10**400, "at most 9,007,199,254,740,992 .*got an integer of 401 digits"),
    ("PINP", "max_updates", 0, "max_updates must be a positive integer, got 0"),
    ("PINP", "max_updates", -3, "max_updates must be a positive integer, got -3"),
    ("PINP", "max_updates", 10**30, r"max_updates must be at most 10,000,000 \(the range over which None"),
    ("PINP", "failure_probability", 1.0, r"failure_probability must lie in \(0, 1\)"),
    ("PINP", "failure_probability", float("inf"), r"failure_probability must be a finite number in \(0, 1\)"),
    ("TDIL", "rounds", 1, "TDIL needs rounds >= 2"),
    ("TDIL", "rounds", 2.5, "rounds must be a positive integer, got 2.5"),
    ("TDIL", "rounds", 10**400, "rounds must be at most 10,000,000"),
    ("TDIL", "failure_probability", 0.0, r"failure_probability must lie in \(0, 1\), got 0.0"),
    ("TDIL", "net_spacing", 0.0, "net_spacing must be finite and positive"),
    ("TDIL", "net_spacing", float("nan"), "net_spacing must be finite and positive"),
    ("TDIL", "net_spacing", True, "net_spacing must be a positive number, got True"),
    ("TDIL", "input_bound", -1.0, "input_bound must be finite and positive"),
    ("TDDL", "span", 0, r"span must be 'auto' or one of \('training', 'public'\), got 0"),
]
IDS = [f"{name}-{option}-{value if not isinstance(value, int) or value < 10**20 else 'huge'}"
       for name, option, value, _ in BAD]


@pytest.mark.parametrize(("name", "option", "value", "match"), BAD, ids=IDS)
def test_the_constructor_and_set_params_refuse_a_bad_option(name, option, value, match):
    with pytest.raises(InputError, match=match):
        make(name, **{option: value})
    with pytest.raises(InputError, match=match):
        make(name).set_params(**{option: value})


@pytest.mark.parametrize(("name", "option", "value", "match"), BAD, ids=IDS)
def test_check_options_and_fit_refuse_a_bad_option_before_reading_the_data(name, option, value, match):
    """The option was assigned past the constructor; fit refuses it before it checks the data (a NaN row here, which
    would be refused otherwise), and nothing is charged."""
    learner = make(name)
    setattr(learner, option, value)
    with pytest.raises(InputError, match=match):
        learner.check_options(1.0)
    X, y = task()
    X[3, 1] = np.nan
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match=match):
        learner.fit(X, y, 1.0, accountant=accountant, **({"Z": X[:5]} if name == "TDDL" else {}))
    assert accountant.ledger == []


def test_the_largest_counts_are_accepted():
    assert make("PINP", max_queries=MAX_QUERIES, max_updates=MAX_ROUNDS).max_queries == MAX_QUERIES
    assert make("TDIL", rounds=MAX_ROUNDS).rounds == MAX_ROUNDS


def test_pinp_max_queries_past_a_double_is_refused_not_an_overflow_after_the_checks():
    """10**400 queries were taken by the constructor and check_options, then fit raised OverflowError computing
    ln(3 T / beta)."""
    X, y = task()
    learner = make("PINP")
    learner.max_queries = 10**400
    with pytest.raises(InputError, match="max_queries must be at most"):
        learner.fit(X, y, 1.0, random_state=0)


@pytest.mark.parametrize("spacing", [1.0 + 1e-9, 2.5, 1e30])
def test_a_net_spacing_above_the_radius_is_refused_before_the_data(spacing):
    """A spacing above r (the origin alone is within r of the whole ball) was accepted: a one-point net in the plane,
    and for the poly kernel an accuracy bound of 1e31 at spacing 1e30."""
    learner = make("TDIL", input_bound=1.0, net_spacing=spacing)
    with pytest.raises(InputError, match=r"net_spacing=.* is above input_bound=1, the radius of the ball"):
        learner.check_options(1.0)
    X, y = task()
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="is above input_bound"):
        learner.fit(X, np.where(y > 0, 1.0, 0.0), 1.0, accountant=accountant)  # labels 0/1 refused otherwise
    assert accountant.ledger == []


def test_a_net_spacing_equal_to_the_radius_is_a_net():
    X, y = task()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExponentialCostWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        model = make("TDIL", input_bound=1.0, net_spacing=1.0).fit(X, y, 1.0, random_state=0)
    assert model.certificate.calibration.net_size >= 1


def test_a_huge_net_is_refused_before_the_training_rows_are_checked():
    """The net's size depends on the public width d only: refused before the labels (0/1 here) are read."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 8)) / 4
    learner = TDIL("rbf", gamma=1.0, lam=0.1, input_bound=1.0, net_spacing=0.05)
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="TDIL's cost is exponential in the dimension"):
        learner.fit(X, np.arange(30) % 2, 1.0, accountant=accountant)
    assert accountant.ledger == []


def test_tddl_post_processing_brackets_the_multiplier_past_rounding():
    """The poly kernel at offset 1e30 (a public setting every check accepts): the closed form's upper bracket
    ||sqrt(lam) u|| / C left its excess a few eps above 0, and brentq raised ValueError after the charge."""
    X, y = task(60)
    accountant = PrivacyAccountant(10.0)
    model = TDDL("poly", offset=1e30, lam=0.1, input_bound=1.0).fit(X, y, 1.0, Z=X[:10], random_state=0,
                                                                     accountant=accountant)
    assert np.all(np.isfinite(model.predictor.coef)) and len(accountant.ledger) == 1
