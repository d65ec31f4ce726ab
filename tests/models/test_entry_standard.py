"""One standard at every entry point: the same bad option gets the same typed refusal (dpcvx.exceptions.InputError,
naming the parameter) from every entry that takes it, before any data is read and with nothing charged.

The data here is an object that raises :class:`DataRead` when anything touches it: an entry that reads its data before
refusing an option fails with that error instead of the InputError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


class DataRead(Exception):
    """Raised when an entry touches the data."""


class Untouchable:
    """Data that must not be read: every access raises DataRead."""

    def __getattr__(self, name: str) -> Any:
        raise DataRead(name)

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise DataRead("__array__")

    def __len__(self) -> int:
        raise DataRead("__len__")


DATA = Untouchable()


def _erm() -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0)


def _refused(entry: Callable[[dpcvx.PrivacyAccountant], Any], parameter: str) -> str:
    """The message of entry's InputError, which names ``parameter``; the accountant it was given stays empty."""
    accountant = dpcvx.PrivacyAccountant(100.0, 0.5)
    with pytest.raises(InputError) as refusal:
        entry(accountant)
    assert parameter in str(refusal.value)
    assert accountant.ledger == []
    return str(refusal.value)


# ---------------------------------------------------------------- random_state: refused before the data is read

BAD_SEEDS = [-1, 1.5, "0", True, np.random.RandomState(0)]
SEED_ENTRIES: dict[str, Callable[[Any], Callable[[dpcvx.PrivacyAccountant], Any]]] = {
    "PrivateERM.fit": lambda seed: lambda a: _erm().fit(DATA, DATA, 1.0, random_state=seed, accountant=a),
    "PrivateMulticlassERM.fit": lambda seed: lambda a: dpcvx.PrivateMulticlassERM(_erm(), (0, 1, 2)).fit(
        DATA, DATA, 1.0, random_state=seed, accountant=a),
    "PrivateLinearRegression.fit": lambda seed: lambda a: dpcvx.PrivateLinearRegression(1.0, 1.0).fit(
        DATA, DATA, 1.0, 1e-6, random_state=seed, accountant=a),
    "tune": lambda seed: lambda a: dpcvx.tune(_erm(), DATA, DATA, {"lam": [0.1, 1.0]}, 1.0, random_state=seed,
                                              accountant=a),
    "TDDL.fit": lambda seed: lambda a: dpcvx.TDDL("rbf", lam=1e-2, gamma=1.0).fit(
        DATA, DATA, 1.0, Z=DATA, random_state=seed, accountant=a),
    "PINP.fit": lambda seed: lambda a: dpcvx.PINP("rbf", lam=1e-2, gamma=1.0, max_queries=5).fit(
        DATA, DATA, 1.0, random_state=seed, accountant=a),
    "DPLogisticRegression.fit": lambda seed: lambda a: dpcvx.DPLogisticRegression(random_state=seed).fit(
        DATA, DATA, accountant=a),
}


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=lambda seed: type(seed).__name__ + "-" + str(seed)[:8])
@pytest.mark.parametrize("entry", sorted(SEED_ENTRIES))
def test_a_bad_seed_is_refused_before_the_data_is_read(entry: str, seed: Any) -> None:
    _refused(SEED_ENTRIES[entry](seed), "random_state")


# ---------------------------------------------------------------- one-vs-rest: the binary fit's options before y

@pytest.mark.parametrize(("options", "parameter"), [
    ({"neighbours": "add_remove"}, "neighbours"),
    ({"neighbours": 1}, "neighbours"),
    ({"neighbours": "add-remove", "n_public": 0}, "n_public"),
    ({"neighbours": "add-remove", "n_public": 1.5}, "n_public"),
    ({"neighbours": "add-remove", "n_public": True}, "n_public"),
    ({"split": "none"}, "split"),
])
def test_multiclass_refuses_the_binary_options_before_the_data_is_read(options: dict[str, Any],
                                                                        parameter: str) -> None:
    learner = dpcvx.PrivateMulticlassERM(_erm(), (0, 1, 2))
    _refused(lambda a: learner.fit(DATA, DATA, 1.0, delta=1e-6, accountant=a, **options), parameter)
    with pytest.raises(InputError, match=parameter):
        learner.plan(DATA, DATA, 1.0, delta=1e-6, **options)


# ---------------------------------------------------------------- tune: its arguments before the data

@pytest.mark.parametrize(("arguments", "parameter"), [
    ({"fit_params": {"epsilon": 1.0}}, "fit_params"),
    ({"fit_params": ["Z"]}, "fit_params"),
    ({"accountant": "ledger"}, "accountant"),
])
def test_tune_refuses_its_arguments_before_the_data_is_read(arguments: dict[str, Any], parameter: str) -> None:
    with pytest.raises(InputError, match=parameter):
        dpcvx.tune(_erm(), DATA, DATA, {"lam": [0.1, 1.0]}, 1.0, **arguments)


# ---------------------------------------------------------------- epsilon above the Gaussian objective calibration

GAUSSIAN_OBJECTIVE_ENTRIES: dict[str, Callable[[dpcvx.PrivacyAccountant], Any]] = {
    "PrivateERM.fit": lambda a: _erm().fit(DATA, DATA, 1e6, delta=1e-6, accountant=a),
    "PrivateERM.check_options": lambda a: _erm().check_options(1e6, delta=1e-6),
    "PrivateMulticlassERM.fit": lambda a: dpcvx.PrivateMulticlassERM(_erm(), (0, 1, 2)).fit(
        DATA, DATA, 1e4, delta=1e-6, accountant=a),
    "DPLogisticRegression.fit": lambda a: dpcvx.DPLogisticRegression(epsilon=1e6, delta=1e-6).fit(
        DATA, DATA, accountant=a),
    "DPLogisticRegression.check_params": lambda a: dpcvx.DPLogisticRegression(epsilon=1e6, delta=1e-6).check_params(),
    "DPERMClassifier.fit": lambda a: dpcvx.DPERMClassifier(epsilon=800.0, delta=1e-6).fit(DATA, DATA, accountant=a),
    "as_opendp_measurement": lambda a: dpcvx.as_opendp_measurement(_erm(), 1e6, 1e-6),
}


@pytest.mark.parametrize("entry", sorted(GAUSSIAN_OBJECTIVE_ENTRIES))
def test_a_budget_beyond_the_gaussian_objective_calibration_is_refused_first(entry: str) -> None:
    """exp(epsilon) overflows above 709.78: a math OverflowError (or a ZeroDivisionError) from deep in the
    calibration, after the data was read, where the standard is a typed refusal naming epsilon and its range."""
    message = _refused(GAUSSIAN_OBJECTIVE_ENTRIES[entry], "epsilon")
    assert "700" in message and "mechanism='output'" in message


def test_the_largest_gaussian_objective_budget_is_calibrated() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) / 3
    y = np.where(X[:, 0] > 0, 1, -1)
    model = _erm().fit(X, y, 700.0, delta=1e-6, random_state=0)
    assert np.all(np.isfinite(model.coef_))


def test_the_command_line_refuses_that_budget_as_a_usage_error(tmp_path: Any, capsys: Any) -> None:
    from dpcvx.cli import main
    from dpcvx.cli.exit_codes import EXIT_USAGE

    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n0.1,0.2,1\n-0.1,0.3,0\n0.2,-0.1,1\n0.3,0.1,0\n")
    code = main(["fit", str(data), "--target", "y", "--positive", "1", "--negative", "0", "--numeric", "a:-1:1",
                 "--numeric", "b:-1:1", "--data-norm", "1", "--epsilon", "1e6", "--delta", "1e-6",
                 "--allow-large-delta", "--out", str(tmp_path / "m.json")])
    assert code == EXIT_USAGE
    error = capsys.readouterr().err
    assert "--epsilon 1e+06 is above 700" in error and "--mechanism output or --delta left out" in error, error
