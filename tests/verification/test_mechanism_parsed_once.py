"""A mechanism's name is parsed once, at the public entry; the typed Mechanism passes every layer unchecked.

Issue 41 ("validate once at the public entry"): after ``Mechanism.of`` began checking its argument with
``check_choice`` (dcd52d11) it re-checked the already-typed value too, and one ``DPLogisticRegression.fit`` parsed
its mechanism 12 times (P4, session 70, finding F2). The count is of ``Mechanism.of``'s check, made only for a
name, during one warm fit. The refusals are unchanged (tests/sklearn, tests/models: every one still before the
charge, with its message).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.verification import verdict
from dpcvx.verification.verdict import Mechanism

#: 400 rows at epsilon 1: the noise advice, not what these tests read
pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.NoiseDominatesWarning")


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The values ``Mechanism.of`` checked (parsed) while the test runs."""
    seen: list[object] = []
    check = verdict.check_choice

    def counted(name: str, value: object, choices: tuple) -> str:
        seen.append(value)
        return check(name, value, choices)

    monkeypatch.setattr(verdict, "check_choice", counted)
    return seen


def _rows() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (400, 4)) / 2
    return X, X @ np.array([1.0, -1.0, 0.5, 0.0]) > 0


def test_a_typed_mechanism_is_returned_unchecked(parses: list[object]) -> None:
    for member in Mechanism:
        assert Mechanism.of(member) is member
    assert parses == []
    assert Mechanism.of("output") is Mechanism.OUTPUT
    assert parses == ["output"]
    with pytest.raises(InputError, match="mechanism must be one of 'output', 'objective'; got 'outptu'"):
        Mechanism.of("outptu")


@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("lam", [1e-3, "auto"])
def test_one_classifier_fit_parses_its_mechanism_once(parses: list[object], mechanism: str, lam: object) -> None:
    X, y = _rows()
    model = dpcvx.DPLogisticRegression(epsilon=1.0, lam=lam, mechanism=mechanism, random_state=0)
    model.fit(X, y)  # warm: the verified loss
    parses.clear()
    model.fit(X, y)
    assert parses == [mechanism]  # the declared table's check, at the entry (was 12 at 87b7cedf)


def test_one_learner_fit_parses_its_mechanism_once(parses: list[object]) -> None:
    X, y = _rows()
    learner = dpcvx.PrivateERM(data_norm=1.0)
    learner.fit(X, np.where(y, 1, -1), epsilon=1.0, mechanism="output", random_state=0)
    parses.clear()
    learner.fit(X, np.where(y, 1, -1), epsilon=1.0, mechanism="output", random_state=0)
    assert parses == ["output"]


@pytest.mark.parametrize("mechanism", ["auto", "output", "objective"])
def test_one_huber_fit_parses_its_mechanism_at_most_once(parses: list[object], mechanism: str) -> None:
    X, y = _rows()
    model = dpcvx.DPHuberRegressor(epsilon=1.0, delta=1e-6 if mechanism == "output" else 0.0, mechanism=mechanism,
                                   random_state=0)
    labels = np.clip(X @ np.array([1.0, -1.0, 0.5, 0.0]), -1, 1)
    model.fit(X, labels)
    parses.clear()
    model.fit(X, labels)
    assert parses == ([] if mechanism == "auto" else [mechanism])
