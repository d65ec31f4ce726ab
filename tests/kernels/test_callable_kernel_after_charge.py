"""A user's kernel callable evaluated on the private rows after a kernel learner's charge never raises, so whether it
fails cannot tell neighbouring data sets apart (an attacker probe, sixty-fourth session):

* PINP's queries evaluate k(z, x_i) on the private rows: a query whose call failed on one neighbour's rows raised,
  answered nothing and spent nothing, a free repeatable membership test. An entry that is not finite or raises is 0
  (``CallableKernel.total_gram``), each entry a function of its own pair;
* the NOT PRIVATE training-rows note of TDDL and PINP evaluated the callable on the rows as given and raised after the
  charge on a huge finite row (PINP left fitted with a live budget); it reads the rows as fitted and never raises;
* PINP's check before the charge probed raw row 0, so a huge row first was refused and fifth fitted.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpcvx import PINP, TDDL, PrivacyAccountant
from dpcvx.data.kernels import CallableKernel
from dpcvx.exceptions import ClippingWarning, InputError, NoiseDominatesWarning, SolverError

MARK = 0.123  # the analyst's public marker coordinate


def _marked_rbf(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """rbf, except NaN everywhere when the marker query meets a set holding a row with x0 == 0.5."""
    gram = np.exp(-np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2))
    if np.any(A[:, 0] == MARK) and np.any(B[:, 0] == 0.5):
        gram[:] = np.nan
    return gram


def _raising_rbf(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """rbf, except it raises when the marker query meets a row with x0 == 0.5."""
    if np.any(A[:, 0] == MARK) and np.any(B[:, 0] == 0.5):
        raise ValueError("a row with x0 == 0.5")
    return np.exp(-np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2))


def _linear(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return A @ B.T


def _neighbours(seed: int, replacement: tuple[float, float], n: int = 40) -> tuple:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.4, 0.4, (n, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    other = X.copy()
    other[int(rng.integers(n))] = replacement
    return X, other, y


def _outcome(action) -> str:
    try:
        result = action()
    except Exception as error:  # the outcome compared between neighbours: its type
        return type(error).__name__
    return f"answered {np.shape(result)}"


def _transcript(curator: PINP) -> list[str]:
    """The marker query three times, then a batch holding it: each call's outcome."""
    outcomes = [_outcome(lambda: curator.query(np.array([MARK, 0.0]))) for _ in range(3)]
    outcomes.append(_outcome(lambda: curator.decision_function(np.array([[0.1, 0.1], [MARK, 0.0]]))))
    return outcomes


@pytest.mark.parametrize("kernel", [_marked_rbf, _raising_rbf])
@pytest.mark.parametrize("seed", range(4))
def test_pinp_queries_on_neighbours_have_the_same_outcome_and_spend_alike(kernel, seed):
    X, other, y = _neighbours(seed, (0.5, 0.0))
    seen = []
    for data in (X, other):
        accountant = PrivacyAccountant(2.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoiseDominatesWarning)
            curator = PINP(kernel, lam=0.1, max_queries=6, feature_bound=1.0).fit(
                data, y, 1.0, accountant=accountant, random_state=seed)
        seen.append((_transcript(curator), curator.queries_answered_, accountant.spent.epsilon))
    assert seen[0] == seen[1]
    assert seen[0][0] == ["answered ()"] * 3 + ["answered (2,)"] and seen[0][1] == 5


def test_total_gram_is_the_gram_where_finite_and_one_row_changes_only_its_column():
    kernel = CallableKernel(_marked_rbf, 1.0)
    rng = np.random.default_rng(0)
    rows = rng.uniform(-0.4, 0.4, (6, 2))
    queries = np.array([[MARK, 0.0], [0.1, -0.2]])
    plain = kernel.total_gram(queries, rows)
    np.testing.assert_array_equal(plain, kernel.gram(queries, rows))
    other = rows.copy()
    other[3] = (0.5, 0.0)
    changed = kernel.total_gram(queries, other)
    assert changed[0, 3] == 0.0  # the failing entry is the zero feature's
    np.testing.assert_array_equal(np.delete(changed, 3, axis=1), np.delete(plain, 3, axis=1))
    assert changed[1, 3] == kernel.gram(queries[1:], other[3:4])[0, 0]  # the row's other entries as computed
    raising = CallableKernel(_raising_rbf, 1.0).total_gram(queries, other)
    np.testing.assert_array_equal(raising, changed)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("learner", ["TDDL", "PINP"])
def test_a_huge_finite_row_never_makes_the_fit_raise_after_the_charge(learner, seed):
    """The callable linear kernel's entry of a (1e308, 1e308) row against (0.95, 0.95) overflows: the row is fitted
    as the zero feature, and the training-rows note must not evaluate it as given and raise after the charge."""
    n = 400 if learner == "PINP" else 40  # PINP at epsilon 20: no vacuous finding, so the note runs
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, (n, 2))
    X[-1] = (0.95, 0.95)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    other = X.copy()
    other[int(rng.integers(n - 1))] = (1e308, 1e308)
    Z = np.random.default_rng(100 + seed).uniform(-0.5, 0.5, (10, 2))  # public
    Z[0] = (0.95, 0.95)  # TDDL's note evaluates the rows against Z
    seen = []
    for data in (X, other):
        accountant = PrivacyAccountant(50.0)

        def fit(data: np.ndarray = data, accountant: PrivacyAccountant = accountant) -> object:
            if learner == "TDDL":
                return TDDL(_linear, lam=0.1, feature_bound=1.0, span="training").fit(
                    data, y, 1.0, Z=Z, accountant=accountant, random_state=seed)
            return PINP(_linear, lam=0.1, max_queries=5, feature_bound=1.0).fit(
                data, y, 20.0, accountant=accountant, random_state=seed)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ClippingWarning)
            seen.append((_outcome(fit), accountant.spent.epsilon))
    assert seen[0] == seen[1]
    assert seen[0][0] == "answered ()"


@pytest.mark.parametrize("place", [0, 5])
def test_pinp_refuses_or_fits_a_huge_row_wherever_it_sits(place):
    """The check before the charge reads no row: a row beyond floating point is the zero feature first or fifth."""
    X, _, y = _neighbours(1, (0.0, 0.0))
    X[-1] = (0.95, 0.95)  # its entry against the huge row overflows
    X[place] = (1e308, 1e308)
    accountant = PrivacyAccountant(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        curator = PINP(_linear, lam=0.1, max_queries=5, feature_bound=1.0).fit(X, y, 1.0, accountant=accountant,
                                                                              random_state=0)
    assert accountant.spent.epsilon == 1.0
    assert np.isfinite(curator.query(np.array([0.1, 0.2])))


def test_a_query_whose_own_feature_norm_is_not_finite_is_refused_before_any_answer():
    """An error that depends on the query alone stays a refusal before anything is answered."""
    def kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        gram = np.exp(-np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2))
        gram[A[:, 0] == MARK] = np.nan
        return gram

    X, _, y = _neighbours(2, (0.0, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        curator = PINP(kernel, lam=0.1, max_queries=5, feature_bound=1.0).fit(X, y, 1.0, random_state=0)
    with pytest.raises(InputError, match=r"sqrt\(k\(z, z\)\) not finite"):
        curator.query(np.array([MARK, 0.0]))
    assert curator.queries_answered_ == 0


@pytest.mark.parametrize("seed", range(3))
def test_tddl_predictions_at_z_after_the_charge_never_raise(seed):
    """A callable whose second call on (Z, rows holding x0 == 0.5) raises passed TDDL's check before the charge and
    raised after it on one neighbour only."""
    calls = {"marked": 0}

    def kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        if A.shape[0] == 10 and np.any(B[:, 0] == 0.5):
            calls["marked"] += 1
            if calls["marked"] > 1:
                raise ValueError("a row with x0 == 0.5, called again")
        return np.exp(-np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2))

    X, other, y = _neighbours(seed, (0.5, 0.0))
    Z = np.random.default_rng(200 + seed).uniform(-0.4, 0.4, (10, 2))
    seen = []
    for data in (X, other):
        calls["marked"] = 0
        accountant = PrivacyAccountant(2.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoiseDominatesWarning)
            seen.append((_outcome(lambda data=data, accountant=accountant: TDDL(
                kernel, lam=0.1, feature_bound=1.0, span="training").fit(
                    data, y, 1.0, Z=Z, accountant=accountant, random_state=seed).predictor.coef),
                accountant.spent.epsilon))
    assert seen[0] == seen[1] == ("answered (10,)", 1.0)


def test_a_pinp_fit_refused_after_the_charge_leaves_the_last_fit_whole():
    """A refit whose coefficients fail their public bound after the charge (SolverError) kept the new minimiser as
    the curator's, under the last fit's parameters and budget: the state is set only once nothing can raise."""

    class Inflated(PINP):
        inflate = False

        def solve_curator_model(self, checked):
            model = super().solve_curator_model(checked)
            if self.inflate:
                model._weights = model._weights * 1e6
            return model

    X, _, y = _neighbours(3, (0.0, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        curator = Inflated("rbf", gamma=1.0, lam=0.1, max_queries=5).fit(X, y, 1.0, random_state=0)
        before = (curator._model, curator.parameters_, curator._budget)
        curator.inflate = True
        with pytest.raises(SolverError, match="no query was answered"):
            curator.fit(X[::-1], y[::-1], 2.0, random_state=1)
    assert (curator._model, curator.parameters_, curator._budget) == before


@pytest.mark.parametrize("learner", ["TDDL", "PINP"])
def test_no_warning_of_the_users_callable_on_the_rows_surfaces_after_the_charge(learner):
    """The NOT PRIVATE training-rows note evaluates the callable on the rows again after the charge: a warning the
    callable gives on one row surfaced there (TDDL and PINP, probeA3 F5), where the query path silenced it."""
    accountant = PrivacyAccountant(50.0)

    def warns(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        if accountant.spent.epsilon > 0 and (np.any(A[:, 0] == 0.5) or np.any(B[:, 0] == 0.5)):
            warnings.warn("the user's kernel saw a marked row after the charge", stacklevel=2)
        return np.exp(-np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2))

    n = 400 if learner == "PINP" else 40  # PINP at epsilon 20: no vacuous finding, so the note runs
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.4, 0.4, (n, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X[5] = (0.5, 0.0)
    Z = np.random.default_rng(100).uniform(-0.4, 0.4, (8, 2))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if learner == "PINP":
            PINP(warns, lam=0.1, max_queries=4, feature_bound=1.0).fit(X, y, 20.0, accountant=accountant,
                                                                       random_state=0)
        else:
            TDDL(warns, lam=0.1, feature_bound=1.0, span="training").fit(X, y, 20.0, Z=Z, accountant=accountant,
                                                                         random_state=0)
    assert accountant.spent.epsilon == 20.0
    assert not [w for w in seen if "marked row" in str(w.message)]


def _failing_product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The linear kernel by a matrix product, raising when B holds a row with x0 == 0.5."""
    if np.any(B[:, 0] == 0.5):
        raise ValueError("a row with x0 == 0.5")
    return A @ B.T


@pytest.mark.parametrize("d", [2, 64])
def test_total_gram_of_a_matrix_product_is_each_pairs_value_up_to_its_rounding(d):
    """One failing row zeroes only its own column; the other entries are the function's value on their pair up to
    the function's rounding (block and column products sum in other orders: probeA3 F3), not bit for bit."""
    kernel = CallableKernel(_failing_product, 10.0)
    rng = np.random.default_rng(d)
    rows = rng.uniform(-0.4, 0.4, (200, d))
    queries = rng.uniform(-0.4, 0.4, (30, d))
    plain = kernel.total_gram(queries, rows)
    np.testing.assert_array_equal(plain, queries @ rows.T)  # no failure: the block, bit for bit
    other = rows.copy()
    other[7, 0] = 0.5
    changed = kernel.total_gram(queries, other)
    assert not np.any(changed[:, 7])
    exact = np.array([[float(np.dot(q, r)) for r in rows] for q in queries])
    bound = 2 * d * np.finfo(float).eps * (np.abs(queries) @ np.abs(rows).T)
    assert np.all(np.abs(np.delete(changed - exact, 7, axis=1)) <= np.delete(bound, 7, axis=1))
