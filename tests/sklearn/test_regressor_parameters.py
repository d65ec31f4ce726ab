"""The regressors check every parameter once, at fit's entry, before anything reads it, with the checks
DPLogisticRegression's entry takes; a checked value means the same whatever its spelling (a numpy bool, a numpy
float); and a memmap's fit says when its default drew no label range that the same rows in memory would have drawn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import DPHuberRegressor, DPLinearRegression, DPLogisticRegression, InputError, PrivacyAccountant
from dpcvx.exceptions import NoiseDominatesWarning, TrainingRowsWarning
from dpcvx.models.column_statistics import label_range_rows
from dpcvx.models.training_rows import MAP_LOST

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning",
                                        "ignore::dpcvx.exceptions.TrainingRowsWarning",
                                        "ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")

REGRESSORS = (DPLinearRegression, DPHuberRegressor)


def _rows(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.clip(X[:, 0], -1, 1)


def _refused(estimator: object, X: np.ndarray, y: np.ndarray, name: str) -> InputError:
    """The refusal of a fit, which names ``name`` and charges nothing."""
    accountant = PrivacyAccountant(epsilon=100.0, delta=0.5)
    with pytest.raises(InputError, match=name) as refusal:
        estimator.fit(X, y, accountant=accountant)  # type: ignore[attr-defined]
    assert accountant.ledger == []
    return refusal.value


@pytest.mark.parametrize("cls", REGRESSORS)
@pytest.mark.parametrize("epsilon", [0, float("nan"), float("inf"), 10**400, "1", None, [1.0]])
def test_a_bad_epsilon_is_refused_naming_it(cls, epsilon):
    X, y = _rows()
    _refused(cls(epsilon=epsilon, random_state=0), X, y, "epsilon")


@pytest.mark.parametrize("cls", REGRESSORS)
@pytest.mark.parametrize("delta", [float("nan"), -0.1, 1.0, "1e-6", None, True])
def test_a_bad_delta_is_refused_under_every_mechanism(cls, delta):
    """DPHuberRegressor's "auto" releases at delta = 0, and still refuses a delta that is not one."""
    X, y = _rows()
    _refused(cls(delta=delta, random_state=0), X, y, "delta")


@pytest.mark.parametrize("cls", REGRESSORS)
def test_a_numpy_epsilon_is_the_number_it_holds(cls):
    X, y = _rows(3000)  # DPHuberRegressor draws its ranges (label_range_offered) at epsilon 1
    models = [cls(epsilon=epsilon, random_state=0).fit(X, y) for epsilon in (1.0, np.float32(1.0))]
    assert models[0].certificate_.mechanism == models[1].certificate_.mechanism
    np.testing.assert_array_equal(models[0].coef_, models[1].coef_)
    assert models[0].intercept_ == models[1].intercept_


@pytest.mark.parametrize("cls, parameter, values", [
    (DPHuberRegressor, "clip", (True, np.True_)),
    (DPHuberRegressor, "column_statistics", (False, np.False_)),
    (DPHuberRegressor, "fit_intercept", (True, np.True_)),
    (DPLinearRegression, "column_statistics", (True, np.True_)),
    (DPLinearRegression, "column_statistics", (False, np.False_)),
    (DPLinearRegression, "clip", (True, np.True_)),
])
def test_a_numpy_bool_is_the_bool_it_holds(cls, parameter, values):
    X, y = _rows(3000)
    models = [cls(**{parameter: value}, random_state=0).fit(X, y) for value in values]
    assert models[0].certificate_.mechanism == models[1].certificate_.mechanism
    assert (models[0].certificate_.column_statistics is None) == (models[1].certificate_.column_statistics is None)
    np.testing.assert_array_equal(models[0].coef_, models[1].coef_)


@pytest.mark.parametrize("value", [True, np.True_])
def test_private_linear_regressions_auto_ranges_take_a_numpy_clip(value):
    X, y = _rows(20_000)
    learner = dpcvx.PrivateLinearRegression(1.0, 1.0, clip=value, column_ranges="auto")
    assert learner.fit(X, y, 1.0, 1e-6, random_state=0).certificate.mechanism == "adassp-ranged"


#: shared parameters with values DPLogisticRegression refuses: each regressor refuses them with its message, whether
#: or not the fit's mechanism reads them (AdaSSP reads no norm_range or label_range)
SHARED_REFUSALS = [
    ("norm_range", ("a", "b")),
    ("norm_range", (0.1, 10.0)),
    ("allow_large_delta", None),
    ("allow_large_delta", 0),
    ("allow_large_delta", "True"),
    ("column_statistics", 0),
    ("column_statistics", "always"),
    ("fit_intercept", 1),
    ("clip", None),
    ("neighbours", "bogus"),
]


@pytest.mark.parametrize("cls", REGRESSORS)
@pytest.mark.parametrize("parameter, value", SHARED_REFUSALS)
def test_a_shared_parameter_is_refused_as_the_logistic_regression_refuses_it(cls, parameter, value):
    X, y = _rows()
    expected = _refused(DPLogisticRegression(**{parameter: value}, random_state=0), X, (y > 0).astype(int), parameter)
    refusal = _refused(cls(**{parameter: value}, random_state=0), X, y, parameter)
    assert str(refusal) == str(expected)


@pytest.mark.parametrize("cls", REGRESSORS)
@pytest.mark.parametrize("parameter, value", [("label_range", (5.0, 1.0)), ("norm_share", 1.5),
                                              ("norm_share", float("nan")), ("float_safe", 1), ("float_safe", None)])
def test_a_parameter_the_fit_does_not_read_is_checked_all_the_same(cls, parameter, value):
    X, y = _rows()
    _refused(cls(**{parameter: value}, random_state=0), X, y, parameter)


def test_the_huber_regressor_takes_the_shared_column_statistics_values():
    """np.False_ is False (accepted as by DPLogisticRegression); True, the column sums, is not its draw."""
    X, y = _rows()
    DPHuberRegressor(column_statistics=np.False_, random_state=0).fit(X, y)
    _refused(DPHuberRegressor(column_statistics=True, random_state=0), X, y, "column_statistics")


def _loose_label_table(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Four columns in a small part of [-1, 1] and a label near 10,000 +- 70 in the public (0, 20000): the label's
    range must be located for the fit to beat the labels' mean (the audit's table of memmapped rows)."""
    rng = np.random.default_rng(seed)
    X = np.array([0.2, -0.1, 0.1, 0.0]) + 0.05 * rng.standard_normal((n, 4))
    return X, 10_000 + 1_000 * (X[:, 0] - 0.2) + 1_000 * X[:, 3] + 10 * rng.standard_normal(n)


def _memmap(tmp_path, X: np.ndarray) -> np.ndarray:
    stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
    stored[:] = X
    stored.flush()
    return np.load(tmp_path / "X.npy", mmap_mode="r")


def _fit(cls, X, y, **settings):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = cls(epsilon=1.0, label_bound=(0, 20_000), random_state=0, **settings).fit(X, y)
    return model, [w for w in caught if issubclass(w.category, (NoiseDominatesWarning, TrainingRowsWarning))]


@pytest.mark.parametrize("cls", REGRESSORS)
def test_a_memmap_draws_the_default_ranges_as_its_rows_in_memory(cls, tmp_path):
    """The same seed and rows: the default draws the ranges of a memmap's rows by blocks, the same ranges as in
    memory, and the release is the in-memory one to the bit (one block of rows here), with no warning of its label or
    noise: the audit's memmapped table fitted at R^2 -1.28 where its rows in memory fitted at 0.67. Both are told,
    alike, that the ranges' map of these Gaussian columns cuts what least squares explains on them (training R^2
    about 0.91, least squares 0.98 on the rows as given and about 0.91 on the mapped ones: MAP_LOST) where that
    text names a setting to try (DPHuberRegressor's, DPLinearRegression(); DPLinearRegression's, at n x epsilon
    6,000 below MAP_SMALL, names none, so it says nothing: P3, session 67, finding 3)."""
    X, y = _loose_label_table(6000)
    memory, memory_warnings = _fit(cls, X, y)
    mapped, mapped_warnings = _fit(cls, _memmap(tmp_path, X), y)
    texts = [str(w.message) for w in memory_warnings]
    told = 0 if cls is dpcvx.DPLinearRegression else 1
    assert memory.certificate_.column_statistics is not None and len(texts) == told
    assert all(MAP_LOST in text for text in texts)
    assert [str(w.message) for w in mapped_warnings] == texts
    assert mapped.certificate_.column_statistics == memory.certificate_.column_statistics
    assert str(mapped.certificate_) == str(memory.certificate_)
    assert np.array_equal(mapped.coef_, memory.coef_) and mapped.intercept_ == memory.intercept_
    assert mapped.score(X, y) == memory.score(X, y) > 0.5


@pytest.mark.parametrize("cls", REGRESSORS)
def test_a_dask_x_whose_default_draws_no_label_range_says_so(cls):
    """A Dask X draws no ranges (the draws read a memmap's rows by blocks here, not a Dask X's chunks where they
    live): the fit warns that the label was not located and why, by a public rule (the input's kind), naming the
    forms that draw them."""
    da = pytest.importorskip("dask.array")
    X, y = _loose_label_table(6000)
    chunked, chunked_warnings = _fit(cls, da.from_array(X, chunks=(1500, 4)), y)
    assert chunked.certificate_.column_statistics is None
    texts = {w.category: str(w.message) for w in chunked_warnings}
    assert "the label was not located" in texts[NoiseDominatesWarning]
    assert "draws no private ranges for a Dask X (dense rows in memory and a numpy.memmap draw them)" in texts[
        NoiseDominatesWarning]
    assert "NOT PRIVATE" not in texts[NoiseDominatesWarning]


@pytest.mark.parametrize("cls, settings", [(DPLinearRegression, {"column_statistics": False}),
                                           (DPHuberRegressor, {"column_statistics": False})])
def test_a_memmap_is_released_as_its_rows_in_memory_where_no_range_is_drawn(cls, settings, tmp_path):
    """Without a range draw, the memmap's release is the in-memory rows' (the same seed), and no label warning is
    given where the user asked for no ranges."""
    X, y = _loose_label_table(6000)
    memory, _ = _fit(cls, X, y, **settings)
    mapped, mapped_warnings = _fit(cls, _memmap(tmp_path, X), y, **settings)
    assert memory.certificate_.mechanism == mapped.certificate_.mechanism
    np.testing.assert_allclose(mapped.coef_, memory.coef_, rtol=1e-9, atol=1e-9)
    assert not any("not located" in str(w.message) for w in mapped_warnings)


@pytest.mark.parametrize("cls", REGRESSORS)
def test_a_memmap_too_small_for_the_label_range_keeps_the_rule_of_too_few_rows(cls, tmp_path):
    """Below the least n of the label's range no option draws it: the warning names the rows, not the input kind."""
    n = label_range_rows(1.0) // 2
    X, y = _loose_label_table(n)
    _, mapped_warnings = _fit(cls, _memmap(tmp_path, X), y)
    texts = [str(w.message) for w in mapped_warnings if w.category is NoiseDominatesWarning]
    assert any("rows are too few" in text for text in texts)
    assert not any("Dask X" in text for text in texts)


@pytest.mark.parametrize("estimator", REGRESSORS)
def test_a_public_label_range_is_checked_as_the_half_width_privateerm_sees(estimator):
    """label_bound=(lo, hi) is the regressors' public range: shifted by (lo + hi) / 2, the learner sees the half-width
    (hi - lo) / 2, and the settings shared with PrivateERM are checked at that bound (a pair is not PrivateERM's
    label_bound: checked as given, every range was refused). The range's fit is the centred fit shifted back."""
    X, y = _rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)  # the small table's warnings
        ranged = estimator(label_bound=(9.0, 11.0), random_state=0).fit(X, y + 10.0)
        centred = estimator(label_bound=1.0, random_state=0).fit(X, y)
    np.testing.assert_allclose(ranged.predict(X), centred.predict(X) + 10.0, rtol=0, atol=1e-9)
    _refused(estimator(label_bound=(11.0, 9.0)), X, y, "label_bound")
