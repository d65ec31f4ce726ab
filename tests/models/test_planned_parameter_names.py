"""A plan looks its owner's parameter names up once per class (session 68, P8 F1): ``as_planned`` called
``get_params`` (scikit-learn's reads the constructor's signature, ``inspect.signature``, at each call) twice per plan
and fit, about half a millisecond. The names are now cached per class where ``get_params(deep=False)`` is the plain
``{name: getattr(owner, name)}`` (dpcvx's learners, scikit-learn's estimators), and each value is still copied as
planned (the deep-copy semantics, an accountant kept as the one object)."""

from __future__ import annotations

import inspect

import pytest

import dpcvx
from dpcvx.models import contract
from dpcvx.models.contract import as_planned, plain_parameter_names


class _WithOwnSetting(dpcvx.DPLogisticRegression):
    """A user's subclass with a parameter of its own (scikit-learn reads it off this class's signature)."""

    def __init__(self, *, extra: dict | None = None, **params):
        super().__init__(**params)
        self.extra = extra


@pytest.fixture
def signature_reads(monkeypatch):
    calls = []
    real = inspect.signature

    def counted(*args, **kwargs):
        calls.append(args[0] if args else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counted)
    return calls


def test_names_are_read_once_per_class(signature_reads):
    pytest.importorskip("sklearn")
    owners = [dpcvx.DPLogisticRegression(epsilon=0.5, classes=(0, 1)), dpcvx.PrivateERM(lam=0.1)]
    for owner in owners:
        as_planned(owner)  # the first look-up of its class may read the signature
    signature_reads.clear()
    for _ in range(3):
        for owner in owners:
            as_planned(owner)
    assert signature_reads == []  # read every call before (two per plan and fit)


def test_the_names_are_what_get_params_returns_and_the_values_are_copies():
    pytest.importorskip("sklearn")
    accountant = dpcvx.PrivacyAccountant(5.0)
    weights = {0: 1.0, 1: 2.0}
    owners = [dpcvx.DPLogisticRegression(epsilon=0.5, classes=(0, 1), class_weight=weights, accountant=accountant),
              _WithOwnSetting(extra={"a": [1]}, epsilon=0.5), dpcvx.PrivateERM(lam=0.1, cvxpy_options={"x": 1})]
    for owner in owners:
        names = plain_parameter_names(type(owner))
        assert names is not None and set(names) == set(owner.get_params(deep=False))
        planned = as_planned(owner)
        for name, value in owner.get_params(deep=False).items():
            held = getattr(planned, name)
            if isinstance(value, (dict, list)):
                assert held == value and held is not value  # a copy of its own, as planned
            elif isinstance(value, dpcvx.PrivacyAccountant):
                assert held is value  # one budget for one data set
    assert "extra" in plain_parameter_names(_WithOwnSetting)


def test_another_get_params_is_called_each_time(monkeypatch):
    ovr = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(lam=0.1), classes=(0, 1, 2))
    assert plain_parameter_names(type(ovr)) is None
    called = []
    real = type(ovr).get_params
    monkeypatch.setattr(type(ovr), "get_params", lambda self, deep=True: called.append(deep) or real(self, deep))
    contract._PLAIN_NAMES.pop(type(ovr), None)  # the replaced get_params is another one: looked up again
    planned = as_planned(ovr)
    assert called == [False] and planned.binary is not ovr.binary and planned.classes == ovr.classes
