"""The stable functions the loss code is compiled with: accurate, quiet, and the same in every evaluation path."""

import warnings

import numpy as np
import pytest
from scipy.special import expit

from dpcvx.verification.numpy_code import compile_code, sigmoid, softplus

GRID = np.concatenate([np.linspace(-800.0, 800.0, 400_001), np.random.default_rng(0).normal(size=100_000) * 8,
                       [0.0, -0.0, 5e-324, -5e-324, 709.78, -709.78, 745.1, -745.1]])


def _ulps(value: np.ndarray, reference: np.ndarray) -> np.ndarray:
    return np.abs(value - reference) / np.spacing(np.abs(reference))


def test_sigmoid_is_within_two_ulp_of_expit_and_quiet():
    """Within 2 ulp of scipy's expit wherever expit > 1e-300, within 1e-300 of it below (e^-x overflows there
    and gives 0), exact at the infinities, nan for nan; no overflow warning; the input is left alone. A sigmoid
    written 0.5 (1 + tanh(x / 2)), as fast, loses every digit of small values and is caught."""
    values = GRID.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = sigmoid(values)
    np.testing.assert_array_equal(values, GRID)
    reference = expit(GRID)
    normal = reference > 1e-300
    assert np.max(_ulps(ours[normal], reference[normal])) <= 2.0
    assert np.max(np.abs(ours - reference)) <= np.spacing(1.0)
    assert np.all(np.abs(ours[~normal] - reference[~normal]) <= 1e-300)
    np.testing.assert_array_equal(sigmoid(np.array([np.inf, -np.inf])), [1.0, 0.0])
    assert np.isnan(sigmoid(np.array([np.nan])))[0]
    for scalar in (0.3, -800.0, np.float64(2.5), np.array(-1.5)):  # scalars and 0-d arrays, as expit takes them
        assert sigmoid(scalar) == pytest.approx(float(expit(scalar)), rel=4 * np.finfo(float).eps, abs=1e-300)
        assert compile_code("-sigmoid(-z)")(scalar) == pytest.approx(-float(expit(-scalar)), rel=1e-15, abs=1e-300)
    broken = 0.5 * (1.0 + np.tanh(0.5 * GRID))
    assert np.max(_ulps(broken[normal], reference[normal])) > 1e6


def test_softplus_is_within_a_few_ulp_of_logaddexp():
    reference = np.logaddexp(0.0, GRID)
    positive = reference > 1e-300
    assert np.max(_ulps(softplus(GRID)[positive], reference[positive])) <= 4.0


@pytest.mark.parametrize("text", ["-(sigmoid(-z) - 1)*sigmoid(-z)", "-sigmoid(-z)", "softplus(-z)",
                                  "numpy.exp(-z)*sigmoid(z)/(sigmoid(z) + 1)"])
def test_compiled_code_is_the_same_by_chunks_and_at_once(text):
    """A long vector is evaluated by chunks (its temporaries stay in cache): bitwise the values of one call."""
    function = compile_code(text)
    z = np.random.default_rng(1).normal(size=100_003) * 6
    namespace = {"numpy": np, "sigmoid": sigmoid, "softplus": softplus}
    whole = eval(text, namespace, {"z": z})  # noqa: S307 - the test's own literal text
    np.testing.assert_array_equal(function(z), whole)


def test_a_repeated_call_is_evaluated_once(monkeypatch):
    """sympy prints l'' of the logistic loss as -(sigmoid(-z) - 1)*sigmoid(-z): the one sigmoid is evaluated
    once per call (nested repeats too), with the values of the expression as written."""
    from dpcvx.verification import numpy_code

    calls = []

    def counted(x):
        calls.append(x.size)
        return sigmoid(x)

    def counted_of_minus(t):  # sigmoid(-u) is evaluated as sigmoid of minus u (test_sigmoid_of_a_negation_...)
        calls.append(t.size)
        return sigmoid(-t)

    monkeypatch.setitem(numpy_code.STABLE_FUNCTIONS, "sigmoid", counted)
    monkeypatch.setitem(numpy_code._COMPILED_ONLY, "_sigmoid_of_minus", counted_of_minus)
    z = np.linspace(-30.0, 30.0, 1001)
    second = compile_code("-(sigmoid(-z) - 1)*sigmoid(-z)")
    np.testing.assert_array_equal(second(z), -(sigmoid(-z) - 1) * sigmoid(-z))
    assert len(calls) == 1
    calls.clear()
    nested = compile_code("sigmoid(sigmoid(z) + 1)*sigmoid(z) - sigmoid(sigmoid(z) + 1)")
    np.testing.assert_array_equal(nested(z), sigmoid(sigmoid(z) + 1) * sigmoid(z) - sigmoid(sigmoid(z) + 1))
    assert len(calls) == 2


def test_nothing_is_hoisted_out_of_a_conditional(monkeypatch):
    """A call repeated inside ``x if c else y`` or ``and``/``or`` stays where it is (evaluated only when reached)."""
    from dpcvx.verification import numpy_code

    calls = []

    def counted(x):
        calls.append(1)
        return sigmoid(x)

    monkeypatch.setitem(numpy_code.STABLE_FUNCTIONS, "sigmoid", counted)
    function = compile_code("sigmoid(z) + sigmoid(z) if 1 < 0 else 0.5 * z")
    np.testing.assert_array_equal(function(np.array([2.0, -4.0])), [1.0, -2.0])
    assert calls == []


@pytest.mark.parametrize("text", ["-sigmoid(-z)", "-(sigmoid(-z) - 1)*sigmoid(-z)",
                                  "sigmoid(-(-z)) * sigmoid(-(z * 2))"])
def test_sigmoid_of_a_negation_is_computed_without_it(text, monkeypatch):
    """sigmoid(-u) is compiled as 1 / (1 + e^u) (numpy_code._sigmoid_of_minus): sigmoid itself, which would negate
    -u back before its exponential, is not called, and the values are bitwise those of the text as written, at
    the overflow edges, signed zeros, infinities and NaN too."""
    from dpcvx.verification import numpy_code

    z = np.concatenate([np.random.default_rng(2).normal(size=5_000) * 40, [
        np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 709.78, -709.78, 745.2, -745.2, 1e-310, -1e-310, 5e-324]])
    literal = eval(text, {"numpy": np, "sigmoid": sigmoid}, {"z": z})  # noqa: S307 - the test's own literal text
    function = compile_code(text)

    def refused(x):
        raise AssertionError("sigmoid called on a negation")

    monkeypatch.setitem(numpy_code.STABLE_FUNCTIONS, "sigmoid", refused)
    values = compile_code(text)(z)
    assert np.array_equal(values.view(np.int64), literal.view(np.int64))  # bitwise, NaN's bits included
    assert np.array_equal(function(z).view(np.int64), literal.view(np.int64))
    assert compile_code(text)(np.float64(-3.0)) == eval(text, {"numpy": np, "sigmoid": sigmoid},  # noqa: S307
                                                        {"z": np.float64(-3.0)})


def _shipped_piecewise_texts() -> list[str]:
    """The derivative texts of the shipped catalogue that hold a numpy.select (the Huber losses' pieces)."""
    import json
    from pathlib import Path

    import dpcvx.verification

    path = Path(dpcvx.verification.__file__).with_name("catalogue_proofs.json")
    records = json.loads(path.read_text())["losses"]
    texts = [text for entry in records if isinstance(entry, dict) and "record" in entry
             for text in (entry["record"].get("derivatives") or [])]
    return [text for text in texts if "numpy.select" in text]


@pytest.mark.parametrize("text", [*_shipped_piecewise_texts(),
                                  "numpy.select([numpy.less(z, 0), numpy.greater(z, 2)], [z, 2*z], default=numpy.nan)",
                                  "numpy.select([numpy.less(z, 0), True], [2, 3], default=numpy.nan)**(-1)"])
def test_a_select_is_compiled_as_a_where_chain_with_its_values(text, monkeypatch):
    """numpy.select of a piecewise loss is compiled as nested numpy.where (numpy_code._SelectAsWhere): select is not
    called, and the values are bitwise those of the text as written, at the kinks, signed zeros, infinities, NaN and
    where no condition holds (the default)."""
    z = np.concatenate([np.random.default_rng(3).normal(size=5_000) * 3, np.linspace(-3, 3, 25), [
        np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, 1.5, -1.0, 1.0, 2.0, 1e-310]])
    literal = eval(text, {"numpy": np}, {"z": z})  # noqa: S307 - shipped or the test's own literal text
    literal = np.broadcast_to(np.asarray(literal, dtype=float), z.shape)

    def refused(*args, **kwargs):
        raise AssertionError("numpy.select called")

    function = compile_code(text)
    monkeypatch.setattr(np, "select", refused)
    assert np.array_equal(function(z).view(np.int64), literal.view(np.int64))


def test_the_catalogue_has_piecewise_texts():
    assert len(_shipped_piecewise_texts()) >= 6  # the Huber hinge's and the Huber regression loss's three each
