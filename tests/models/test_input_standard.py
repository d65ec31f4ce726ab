"""One input standard on every path (issue 43): the API (PrivateERM, PrivateMulticlassERM,
PrivateLinearRegression), the scikit-learn estimators and the command line give the same message
quality for NaN and infinite entries, table columns, bounds out of range, a delta not below 1/n, and
each warning once per fit."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import DPHuberRegressor, DPLinearRegression, DPLogisticRegression, PrivateERM, losses
from dpcvx.cli import main
from dpcvx.data.csv_table import ROWS_NOTE
from dpcvx.exceptions import ClippingWarning, InputError, InputTypeError
from dpcvx.models.linear_regression import PrivateLinearRegression
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.validation import MISSING_ADVICE

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(43)
X = RNG.uniform(0.0, 0.5, size=(200, 3))
Y01 = (X[:, 0] > 0.25).astype(int)
YPM = 2 * Y01 - 1
TARGET = X[:, 0] - 0.25
NAN_AT = r"first at row 5, column 'b'"


def _nan_frame() -> pd.DataFrame:
    frame = pd.DataFrame(X.copy(), columns=["a", "b", "c"])  # pandas < 3 (no copy-on-write) would share X
    frame.iloc[5, 1] = np.nan
    frame.iloc[9, 2] = np.inf  # later in row order: the first is named
    return frame


def _libraries(frame: pd.DataFrame) -> list:
    """The frame as pandas, polars and pyarrow tables (the libraries installed)."""
    tables = [frame]
    try:
        import polars
        tables.append(polars.from_pandas(frame))
    except ImportError:
        pass
    try:
        import pyarrow
        tables.append(pyarrow.Table.from_pandas(frame, preserve_index=False))
    except ImportError:
        pass
    return tables


FITS = {
    "PrivateERM": lambda table: PrivateERM(data_norm=1.0).fit(table, YPM, 1.0, random_state=0),
    "DPLogisticRegression": lambda table: DPLogisticRegression(random_state=0).fit(table, Y01),
    "DPLinearRegression": lambda table: DPLinearRegression(random_state=0).fit(table, TARGET),
    "DPHuberRegressor": lambda table: DPHuberRegressor(random_state=0).fit(table, TARGET),
    "PrivateLinearRegression": lambda table: PrivateLinearRegression(1.0, 1.0).fit(table, TARGET, 1.0, 1e-6),
}


@pytest.mark.parametrize("entry", FITS)
def test_a_nan_is_named_by_its_row_and_column_name_through_every_entry_point(entry):
    for table in _libraries(_nan_frame()):
        with pytest.raises(InputError, match=NAN_AT) as caught:
            FITS[entry](table)
        assert "Input X contains NaN" not in str(caught.value)


def test_a_nan_in_an_array_is_named_by_row_and_column_by_the_estimators_too():
    bad = X.copy()
    bad[7, 2] = np.inf
    for fit in (lambda: DPLogisticRegression().fit(bad, Y01), lambda: DPLinearRegression().fit(bad, TARGET),
                lambda: PrivateERM(data_norm=1.0).fit(bad, YPM, 1.0)):
        with pytest.raises(InputError, match=r"first at row 7, column 2; impute them by a public rule"):
            fit()


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
def test_predict_names_the_column_of_a_nan_as_fit_does():
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    classifier = DPLogisticRegression(random_state=0).fit(frame, Y01)
    regressor = DPLinearRegression(random_state=0).fit(frame, TARGET)
    for model in (classifier, regressor):
        with pytest.raises(InputError, match=NAN_AT):
            model.predict(_nan_frame())


@pytest.mark.parametrize("missing", ["NaN", "None among objects", "None in a list", "pandas' NA"])
def test_a_nan_target_is_named_by_its_row_in_the_estimators_and_the_api(missing):
    """A missing target is one refusal whatever holds it: None among objects was called 'a missing value' of a
    numeric matrix, 'every feature a real number', where NaN and pandas' NA named the target's row and count."""
    target: object = TARGET.copy()
    if missing == "NaN":
        target[11] = np.nan
    elif missing == "pandas' NA":
        target = pd.array([*TARGET[:11], None, *TARGET[12:]], dtype="Float64")
    else:
        target = [*TARGET[:11], None, *TARGET[12:]]
        if missing == "None among objects":
            target = np.array(target, dtype=object)
    regression = losses.from_spec("huber_regression:m=1")
    for fit in (lambda: DPLinearRegression().fit(X, target), lambda: DPHuberRegressor().fit(X, target),
                lambda: PrivateLinearRegression(1.0, 1.0).fit(X, target, 1.0, 1e-6),
                lambda: PrivateERM(regression, task="regression", data_norm=1.0, label_bound=1.0).fit(X, target, 1.0)):
        with pytest.raises(InputError, match=r"y holds NaN, missing or infinite values, first at row 11 \(1 such"):
            fit()


def test_a_missing_label_or_target_is_refused_in_one_wording_at_every_entry():
    """One fault, one wording: a NaN label of a classifier, a kernel learner or a regression is 'y holds NaN or
    missing values (..., missing or infinite for a target), first at row 3 (1 such row); ...'. The regression said
    '(1 such rows)'; the classifiers and kernel learners named row 3 twice and called the NaN a label outside the
    declared classes."""
    labels = Y01.astype(float)
    labels[3] = np.nan
    target = TARGET.astype(float)
    target[3] = np.nan
    signs = np.where(np.isnan(labels), np.nan, 2 * labels - 1)
    tail = r", first at row 3 \(1 such row\); " + re.escape(MISSING_ADVICE) + "$"
    for fit, kinds in ((lambda: DPLogisticRegression(epsilon=1.0).fit(X, labels), "NaN or missing values"),
                       (lambda: PrivateERM(data_norm=1.0).fit(X, labels, 1.0), "NaN or missing values"),
                       (lambda: dpcvx.TDDL("rbf", lam=0.1, gamma=1.0).fit(X, signs, 1.0, Z=X[:5]),
                        "NaN or missing values"),
                       (lambda: DPLinearRegression(epsilon=1.0).fit(X, target), "NaN, missing or infinite values"),
                       (lambda: DPHuberRegressor(epsilon=1.0).fit(X, target), "NaN, missing or infinite values")):
        with pytest.raises(InputError, match=r"(^|: )y holds " + re.escape(kinds) + tail) as refused:
            fit()
        assert str(refused.value).count("row 3") == 1 and "outside" not in str(refused.value)
    target[3] = np.inf  # a regression's infinite target: the same refusal, its kinds saying so
    with pytest.raises(InputError, match=r"^y holds NaN, missing or infinite values" + tail):
        DPLinearRegression(epsilon=1.0).fit(X, target)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
def test_rows_of_another_width_are_refused_in_one_wording_at_every_entry():
    """'X has 1 features, but <owner> is expecting 2 features as input.' (scikit-learn's words, the estimators'
    predict) at every entry: the kernel releases said 'X has 1 features, expected 2', PrivateERM's releases 'X has 1
    features after the feature map; the model expects 2'."""
    rng = np.random.default_rng(0)
    rows = rng.uniform(-1, 1, (300, 2))
    signs = np.where(rows[:, 0] > 0, 1, -1)
    narrow = rows[:2, :1]
    cases = {
        "the model": [dpcvx.TDDL("rbf", lam=0.1, gamma=1.0).fit(rows, signs, 1.0, Z=rows[:20], random_state=0).predict,
                      dpcvx.TDIL("linear", lam=0.1, input_bound=1.5).fit(rows, signs, 1.0, random_state=0).predict],
        "PINP": [dpcvx.PINP("rbf", lam=0.1, gamma=1.0, max_queries=5).fit(rows, signs, 1.0, random_state=0).predict],
        "DPLogisticRegression": [DPLogisticRegression(random_state=0).fit(rows, signs > 0).predict],
        "RandomFourierFeatures": [dpcvx.RandomFourierFeatures(gamma=1.0, n_components=5, random_state=0).fit(
            rows).transform],
    }
    for owner, calls in cases.items():
        for call in calls:
            with pytest.raises(InputError, match=rf"^X has 1 features, but {owner} is expecting 2 features as input"):
                call(narrow)
    release = PrivateERM(data_norm=1.0).fit(rows, signs, 1.0, random_state=0)
    with pytest.raises(InputError, match=r"^X has 1 features, but the model is expecting 2 features as input\.$"):
        release.predict(narrow)  # no feature map: not "after the feature map" (as a loaded plain model said)


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
def test_a_regression_release_scores_targets_as_a_fit_checks_them():
    """A regression release's score (R^2) refuses what a fit refuses: a NaN target made its sums NaN and the score
    0.0, None did too, and text was read as numbers."""
    release = DPLinearRegression(random_state=0).fit(X, TARGET).model_
    assert release.score(X, TARGET) == pytest.approx(release.score(X, list(TARGET)))
    nan, none = TARGET.copy(), TARGET.astype(object)
    nan[5], none[5] = np.nan, None
    for target in (nan, none):
        with pytest.raises(InputError, match=r"y holds NaN, missing or infinite values, first at row 5 \(1 such"):
            release.score(X, target)
    with pytest.raises(InputError, match="y holds text"):
        release.score(X, TARGET.astype(str))


def _categorical_frames() -> list:
    frame = pd.DataFrame({"a": X[:, 0], "colour": pd.Categorical(["red", "blue"] * 100)})
    tables = _libraries(frame)
    tables.append(pd.DataFrame({"a": X[:, 0], "colour": ["red", "blue"] * 100}))  # plain text
    return tables


@pytest.mark.parametrize("entry", FITS)
def test_a_categorical_or_text_column_is_named_by_its_name(entry):
    for table in _categorical_frames():
        with pytest.raises(InputError, match=r"X column 'colour' ") as caught:
            FITS[entry](table)
        assert "column 0" not in str(caught.value) and "column 1" not in str(caught.value)
        assert "red" not in str(caught.value) and "blue" not in str(caught.value)  # data: never shown


@pytest.mark.parametrize("fit, parameter", [
    (lambda: DPLogisticRegression(data_norm=1e200).fit(X, Y01), "data_norm"),
    (lambda: PrivateERM(data_norm=1e200).fit(X, YPM, 1.0), "data_norm"),
    (lambda: DPLinearRegression(data_norm=1e200).fit(X, TARGET), "data_norm"),
    (lambda: DPHuberRegressor(data_norm=1e-100).fit(X, TARGET), "data_norm"),
    (lambda: DPLinearRegression(label_bound=1e200).fit(X, TARGET), "label_bound"),
    (lambda: DPHuberRegressor(label_bound=1e200).fit(X, TARGET), "label_bound"),
    (lambda: DPLinearRegression(label_bound=(0.0, 1e200)).fit(X, TARGET), "label_bound"),
    (lambda: PrivateERM(task="regression", loss="huber_regression", label_bound=1e200, data_norm=1.0).fit(
        X, TARGET, 1.0), "label_bound"),
    (lambda: PrivateLinearRegression(1e200, 1.0).fit(X, TARGET, 1.0, 1e-6), "data_norm"),
    (lambda: DPLinearRegression(mechanism="objective", weight_bound=1e200).fit(X, TARGET), "weight_bound"),
])
def test_every_bound_is_range_checked_naming_its_parameter(fit, parameter):
    with pytest.raises(InputError, match=rf"^{parameter}.* is outside the range \[1e-75, 1e\+75\]"):
        fit()


@pytest.mark.parametrize("settings, message", [
    ({"intercept_scaling": 1e160}, r"^intercept_scaling=1e\+160 is outside the range \[1e-75, 1e\+75\]"),
    ({"intercept_scaling": 1e-200, "fit_intercept": True}, r"^intercept_scaling=1e-200 is outside the range"),
    ({"intercept_scaling": 1e200, "fit_intercept": True}, r"^intercept_scaling=1e\+200 is outside the range"),
    ({"intercept_scaling": "AUTO"}, r"^intercept_scaling must be 'auto' or a number, got 'AUTO'"),
    ({"lam": 1e308}, r"^lam=1e\+308 is outside the range \[1e-150, 1e\+150\]"),
    ({"lam": 1e200}, r"^lam=1e\+200 is outside the range \[1e-150, 1e\+150\]"),
    ({"lam": 1e-320}, r"^lam=1e-320 is outside the range \[1e-150, 1e\+150\]"),
], ids=["scaling=1e160", "scaling=1e-200, intercept", "scaling=1e200, intercept", "scaling='AUTO'", "lam=1e308",
        "lam=1e200", "lam=1e-320"])
def test_private_linear_regression_checks_lam_and_intercept_scaling_before_any_charge(settings, message):
    """PrivateERM's intercept_scaling check and DPLinearRegression's lam check (check_lam), not a looser one."""
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    learner = PrivateLinearRegression(1.0, 1.0, **settings)
    with pytest.raises(InputError, match=message):
        learner.fit(X, TARGET, 1.0, 1e-6, accountant=accountant)
    assert accountant.ledger == []
    with pytest.raises(InputError, match=message):
        learner.fit_nonprivate(X, TARGET)


@pytest.mark.parametrize("lam", [1e308, 1e-320])
def test_private_linear_regression_and_the_estimator_refuse_a_lam_in_the_same_words(lam):
    with pytest.raises(InputError) as library:
        PrivateLinearRegression(1.0, 1.0, lam=lam).plan(X, TARGET, 1.0, 1e-6)
    with pytest.raises(InputError) as estimator:
        DPLinearRegression(lam=lam, mechanism="adassp", column_statistics=False).fit(X, TARGET)
    assert str(library.value) == str(estimator.value)


def test_private_linear_regression_fits_at_the_ends_of_the_ranges():
    for settings in ({"lam": 0.0}, {"lam": 1e-150, "intercept_scaling": 1e-75, "fit_intercept": True},
                     {"lam": 1e150, "intercept_scaling": 1e75}):
        model = PrivateLinearRegression(1.0, 1.0, **settings).fit(X, TARGET, 1.0, 1e-6, random_state=0)
        assert np.all(np.isfinite(model.coef_)) and np.isfinite(model.intercept_)


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
def test_a_bound_in_range_still_fits():
    model = DPLinearRegression(label_bound=1e6, random_state=0).fit(X, TARGET)
    assert np.all(np.isfinite(model.predict(X)))


@pytest.mark.parametrize("fit", [
    lambda accountant, **opt: PrivateERM(data_norm=1.0, **opt).fit(X, YPM, 1.0, delta=0.5, accountant=accountant),
    lambda accountant, **opt: DPLogisticRegression(delta=0.01, **opt).fit(X, Y01, accountant=accountant),
    lambda accountant, **opt: DPLogisticRegression(delta=0.01, classes=(0, 1, 2), mechanism="output", **opt).fit(
        X, np.arange(200) % 3, accountant=accountant),
    lambda accountant, **opt: PrivateMulticlassERM(PrivateERM(data_norm=1.0, **opt), (0, 1, 2)).fit(
        X, np.arange(200) % 3, 1.0, delta=0.5, accountant=accountant),
    lambda accountant, **opt: DPLinearRegression(delta=0.005, **opt).fit(X, TARGET, accountant=accountant),
    lambda accountant, **opt: DPHuberRegressor(delta=0.5, mechanism="output", **opt).fit(
        X, TARGET, accountant=accountant),
    lambda accountant, **opt: PrivateLinearRegression(1.0, 1.0, **opt).fit(X, TARGET, 1.0, 0.5,
                                                                           accountant=accountant),
])
@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_a_delta_not_below_one_over_n_is_refused_before_any_charge_unless_allowed(fit):
    accountant = dpcvx.PrivacyAccountant(epsilon=100.0, delta=0.99)
    with pytest.raises(InputError, match=r"is not below 1/n = 0.005 \(n = 200\).*allow_large_delta=True"):
        fit(accountant)
    assert accountant.spent.epsilon == 0.0
    fit(accountant, allow_large_delta=True)
    assert accountant.spent.epsilon > 0.0


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_a_delta_below_one_over_n_is_accepted_without_opting_in():
    PrivateERM(data_norm=1.0).fit(X, YPM, 1.0, delta=1 / 200 ** 2, random_state=0)
    DPLinearRegression(delta=0.0049, random_state=0).fit(X, TARGET)


def test_allow_large_delta_must_be_a_flag():
    with pytest.raises(InputError, match="allow_large_delta must be True or False"):
        PrivateERM(data_norm=1.0, allow_large_delta="yes").fit(X, YPM, 1.0, delta=0.5)


def _clipping_warnings(fit) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [w for w in caught if issubclass(w.category, ClippingWarning)]


def test_one_multiclass_fit_warns_of_its_clipping_once():
    wide = RNG.uniform(0.0, 1.0, size=(300, 3))  # about half the rows are above R = 1
    labels = np.arange(300) % 3
    fits = [lambda: DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(wide, labels),
            lambda: PrivateMulticlassERM(PrivateERM(data_norm=1.0), (0, 1, 2)).fit(wide, labels, 1.0,
                                                                                   random_state=0)]
    for fit in fits:
        assert len(_clipping_warnings(fit)) == 1


WIDE = RNG.uniform(0.0, 1.0, size=(300, 3))  # about half the rows are above R = 1


@pytest.mark.parametrize("fit, expected", [
    (lambda: DPLogisticRegression(classes=(0, 1, 2), epsilon=0.01, random_state=0).fit(WIDE, np.arange(300) % 3),
     {"ClippingWarning": 1, "NoiseDominatesWarning": 1, "SmallTableWarning": 1,
      "TrainingRowsWarning": 1}),
    (lambda: dpcvx.DPHuberSVM(classes=(0, 1, 2), epsilon=0.01, random_state=0).fit(WIDE, np.arange(300) % 3),
     {"ClippingWarning": 1, "NoiseDominatesWarning": 1, "SmallTableWarning": 1,
      "TrainingRowsWarning": 1}),
    (lambda: DPLogisticRegression(epsilon=0.01, random_state=0).fit(WIDE, np.arange(300) % 2),
     {"ClippingWarning": 1, "NoiseDominatesWarning": 1, "SmallTableWarning": 1,
      "TrainingRowsWarning": 1}),
    (lambda: DPLinearRegression(epsilon=0.01, random_state=0).fit(WIDE, 3 * WIDE[:, 0]),  # rows and labels
     {"ClippingWarning": 2, "NoiseDominatesWarning": 1, "SmallTableWarning": 1, "TrainingRowsWarning": 1}),
    (lambda: DPHuberRegressor(epsilon=0.01, random_state=0).fit(WIDE, 3 * WIDE[:, 0]),
     {"ClippingWarning": 2, "NoiseDominatesWarning": 1, "SmallTableWarning": 1, "TrainingRowsWarning": 1}),
    (lambda: PrivateMulticlassERM(PrivateERM(data_norm=1.0), (0, 1, 2)).fit(WIDE, np.arange(300) % 3, 0.01,
                                                                            random_state=0),
     {"ClippingWarning": 1, "TrainingRowsWarning": 1}),   # the argmax checked once, not each class's release
    (lambda: PrivateERM(losses.huber_regression(), data_norm=1.0, task="regression", label_bound=1.0).fit(
        WIDE, 3 * WIDE[:, 0], 0.01, random_state=0),
     {"ClippingWarning": 2, "TrainingRowsWarning": 1}),  # a regression's training rows checked, as a classifier's
])
def test_each_warning_of_a_fit_is_shown_once(fit, expected):
    """Every warning an API or estimator fit emits, counted with the filter "always" (which repeats what the
    default filter would fold): each text once; the two clipping warnings of a regression are two facts
    (rows beyond R, labels beyond B)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    texts = [str(warning.message) for warning in caught]
    assert len(set(texts)) == len(texts), texts
    counts: dict[str, int] = {}
    for warning in caught:
        counts[warning.category.__name__] = counts.get(warning.category.__name__, 0) + 1
    assert counts == expected


def test_a_clipping_warning_under_an_error_filter_is_shown_once_and_the_multiclass_fit_charged_once():
    """An "error" filter stopped the fit before its charge: a refusal decided by the rows' norms (docs/theory.md,
    section 30, "Warnings under a filter"). The note is shown once, the k fits charged once."""
    wide = RNG.uniform(0.0, 1.0, size=(300, 3))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    shown: list[type] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        warnings.showwarning = lambda message, category, *rest: shown.append(category)
        PrivateMulticlassERM(PrivateERM(data_norm=1.0), (0, 1, 2)).fit(wide, np.arange(300) % 3, 1.0,
                                                                       accountant=accountant)
    assert accountant.spent.epsilon == 1.0 and shown.count(ClippingWarning) == 1


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "data.csv"
    rows = ["a,b,y"] + [f"{a:.3f},{b:.3f},{int(a > 0.25)}" for a, b in X[:, :2]]
    path.write_text("\n".join(rows) + "\n")
    return path


def _cli(capsys, *args) -> tuple[int, str]:
    try:
        code = main([str(arg) for arg in args])
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.err


def test_the_cli_refuses_a_delta_not_below_one_over_n_unless_allowed(csv_file, tmp_path, capsys):
    fit = ["fit", csv_file, "--numeric", "a:0:1", "--numeric", "b:0:1", "--target", "y", "--positive", "1",
           "--data-norm", "1", "--epsilon", "1", "--lam", "0.01", "--out", tmp_path / "model.json", "--overwrite"]
    code, err = _cli(capsys, *fit, "--delta", "0.5")
    assert code != 0 and "is not below 1/n = 0.005 (n = 200)" in err and "--allow-large-delta" in err
    assert not (tmp_path / "model.json").exists()
    code, err = _cli(capsys, *fit, "--delta", "0.5", "--allow-large-delta")
    assert code == 0 and (tmp_path / "model.json").exists()
    regression = [arg if arg != "--positive" else "--task" for arg in fit]
    regression[regression.index("1", regression.index("--task"))] = "regression"
    code, err = _cli(capsys, *regression, "--label-bound", "1", "--delta", "0.5")
    assert code != 0 and "is not below 1/n" in err


@pytest.mark.parametrize("flag", ["--data-norm", "--label-bound"])
def test_the_cli_checks_a_bound_in_the_same_range_naming_it(csv_file, tmp_path, capsys, flag):
    args = ["fit", csv_file, "--numeric", "a:0:1", "--numeric", "b:0:1", "--target", "y", "--task", "regression",
            "--epsilon", "1", "--lam", "0.01", "--data-norm", "1", "--label-bound", "1", "--out",
            tmp_path / "model.json", flag, "1e100"]
    code, err = _cli(capsys, *args)
    assert code != 0 and f"{flag} 1e+100 is outside the range [1e-75, 1e+75]" in err  # the flag, as the command's


def test_the_cli_names_the_row_and_column_of_a_missing_number(tmp_path, capsys):
    path = tmp_path / "gap.csv"
    path.write_text("a,b,y\n0.1,0.2,1\n0.3,,0\n")
    code, err = _cli(capsys, "fit", path, "--numeric", "a:0:1", "--numeric", "b:0:1", "--target", "y",
                     "--positive", "1", "--data-norm", "1", "--epsilon", "1", "--lam", "0.01",
                     "--out", tmp_path / "m.json")
    assert code != 0 and "numeric column 'b' holds a missing or non-finite value in row 1" in err


def test_a_missing_label_is_refused_by_the_command_line_in_the_python_api_s_words(tmp_path, capsys):
    """An empty label cell read by `dpcvx fit` and a NaN label given to an estimator are one fault, refused in one
    wording (:func:`dpcvx.validation.missing_refusal`: the CLI naming the file, the column and how its rows count):
    the CLI said "k row(s) have no label in column 'y', the first in row 3 ...; drop those records first (a label has
    no public imputed value)", the API to remove them or impute them with a public rule; now both say both, with
    the cost of each. The exit status stays an input error's (3)."""
    rows = ["a,b,y"] + [f"{a:.3f},{b:.3f},{'' if i == 3 else int(a > 0.25)}" for i, (a, b) in enumerate(X[:, :2])]
    (tmp_path / "gap.csv").write_text("\n".join(rows) + "\n")
    common = ["fit", tmp_path / "gap.csv", "--numeric", "a:0:1", "--numeric", "b:0:1", "--target", "y",
              "--data-norm", "1", "--epsilon", "1", "--lam", "0.01", "--out", tmp_path / "m.json"]
    labels = Y01.astype(float)
    labels[3] = np.nan
    target = TARGET.astype(float)
    target[3] = np.nan
    tail = " (1 such row); " + MISSING_ADVICE
    for options, fit in ((["--positive", "1"], lambda: DPLogisticRegression(epsilon=1.0).fit(X, labels)),
                         (["--task", "regression", "--label-bound", "1", "--delta", "1e-3"],
                          lambda: DPLinearRegression(epsilon=1.0).fit(X, target))):
        code, err = _cli(capsys, *common, *options)
        with pytest.raises(InputError) as refused:
            fit()
        api = str(refused.value)
        assert code == 3 and not (tmp_path / "m.json").exists()
        assert err.startswith("dpcvx: input error: ") and len(err.splitlines()) == 1
        said = err.removeprefix("dpcvx: input error: ").rstrip("\n")
        assert said.startswith(f"{tmp_path / 'gap.csv'}: column 'y' holds missing values (an empty cell or '?'")
        assert api.startswith("y holds NaN") and refused.value.row == 3, api  # not scikit-learn's "Input y contains"
        for message in (said, api):
            assert ", first at row 3" in message and message.endswith(tail), message
        assert ROWS_NOTE in said and "line 2 of a CSV file" in ROWS_NOTE


def test_tune_names_a_nan_by_its_row_and_column_as_a_fit_does():
    bad = X.copy()
    bad[7, 2] = np.nan
    tables = [(bad, r"first at row 7, column 2; impute them by a public rule"), *((table, NAN_AT) for table in
                                                                        _libraries(_nan_frame()))]
    for table, message in tables:
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match=message):
            dpcvx.tune(PrivateERM(data_norm=1.0), table, YPM, {"lam": [0.1, 1.0]}, epsilon=1.0,
                       accountant=accountant)
        assert accountant.ledger == []


def test_a_nan_label_is_named_by_its_row_on_every_path():
    """A classifier's NaN label is a label outside its public classes, refused by row before any charge, by
    PrivateERM, the estimators (not scikit-learn's bare "Input y contains NaN") and tune alike."""
    labels = np.where(Y01 > 0, 1.0, -1.0)
    labels[11] = np.nan
    estimator_labels = Y01.astype(float)
    estimator_labels[11] = np.nan
    paths = {
        "PrivateERM": lambda accountant: PrivateERM(data_norm=1.0).fit(X, labels, 1.0, accountant=accountant),
        "DPLogisticRegression": lambda accountant: DPLogisticRegression(accountant=accountant).fit(
            X, estimator_labels),
        "tune": lambda accountant: dpcvx.tune(PrivateERM(data_norm=1.0), X, labels, {"lam": [0.1]}, epsilon=1.0,
                                              accountant=accountant),
    }
    for path, fit in paths.items():
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match=r"y holds NaN or missing values, first at row 11 \(1 such row\); "
                           + re.escape(MISSING_ADVICE) + "$"):
            fit(accountant)
        assert accountant.ledger == [], path


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClassOrderWarning")  # declared order on purpose
@pytest.mark.parametrize("container", ["string", "object NA", "list None", "categorical NaN"])
def test_a_missing_text_label_is_refused_by_its_row_on_every_path(container):
    """A missing label among text labels (pandas' NA in a "string" column or among objects, None, a categorical's
    NaN) is refused as a label outside the classes, by its row and as missing, before any charge: on every path
    that takes labels, and by a multiclass release's score. pandas' NA has no truth value, and numpy's comparison
    of the labels raised its bare TypeError ("boolean value of NA is ambiguous") on PrivateERM and tune, and the
    estimator called it a feature that is not numeric."""
    pandas = pytest.importorskip("pandas")
    words = np.where(Y01 > 0, "yes", "no").astype(object)
    three = words.copy()
    three[::7] = "maybe"
    missing = {"string": lambda v: pandas.array([*v[:11], None, *v[12:]], dtype="string"),
               "object NA": lambda v: pandas.Series([*v[:11], pandas.NA, *v[12:]], dtype=object),
               "list None": lambda v: [*v[:11], None, *v[12:]],
               "categorical NaN": lambda v: pandas.Categorical([*v[:11], None, *v[12:]])}[container]
    binary, pair, triple = missing(words), ("no", "yes"), ("no", "yes", "maybe")
    paths = {
        "PrivateERM": lambda accountant: PrivateERM(data_norm=1.0, classes=pair).fit(X, binary, 1.0,
                                                                                     accountant=accountant),
        "DPLogisticRegression": lambda accountant: DPLogisticRegression(classes=pair, accountant=accountant).fit(
            X, binary),
        "one-vs-rest": lambda accountant: DPLogisticRegression(classes=triple, accountant=accountant).fit(
            X, missing(three)),
        "tune": lambda accountant: dpcvx.tune(PrivateERM(data_norm=1.0, classes=pair), X, binary, {"lam": [0.1]},
                                              epsilon=1.0, accountant=accountant),
        "tune, an estimator": lambda accountant: dpcvx.tune(DPLogisticRegression(classes=triple), X, missing(three),
                                                            {"lam": [0.1]}, epsilon=1.0, accountant=accountant),
    }
    for path, fit in paths.items():
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match=r"y holds NaN or missing values, first at row 11 \(1 such row\)"
                           ) as refused:
            fit(accountant)
        assert accountant.ledger == [], path
        assert "Unknown label type" not in str(refused.value), path  # a missing label, not a kind of target
    model = DPLogisticRegression(classes=triple, random_state=0).fit(X, three).model_
    with pytest.raises(InputError, match=r"^y holds NaN or missing values, first at row 11 \(1 such row\)"):
        model.score(X, missing(three))


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClassOrderWarning")  # declared order on purpose
def test_a_multiclass_release_refuses_labels_outside_its_classes_as_the_binary_one():
    """A release's score takes labels of its classes only (a misspelt label is no mistake of the model): the binary
    release refused others, the multiclass one counted them as mistakes."""
    words = np.where(Y01 > 0, "yes", "no").astype(object)
    words[::7] = "maybe"
    model = DPLogisticRegression(classes=("no", "yes", "maybe"), random_state=0).fit(X, words).model_
    accuracy = model.score(X, words)
    assert 0.0 <= accuracy <= 1.0
    unknown = words.copy()
    unknown[[3, 5]] = "Maybe "
    with pytest.raises(InputError, match=r"2 label\(s\), the first at row 3 .*outside the model's classes"):
        model.score(X, unknown)


@pytest.mark.parametrize("labels, missing", [
    (np.array(["no", None, "yes", float("nan"), "maybe"], dtype=object), "first at row 1 (2 such rows)"),
    (np.array([0.0, 1.0, np.nan, 2.0, np.nan]), "first at row 2 (2 such rows)"),
    (np.array([0, 1, 2, 1, 0]), None),
])
def test_labels_outside_the_classes_count_the_missing_ones_apart(labels, missing):
    """A missing label (NaN, None, pandas' NA) is told apart from a label the classes lack: the fix differs (remove
    the record, not declare another class), and it is refused in the one wording of a missing label or target
    (a regression's: 'y holds NaN, missing or infinite values'), not as a label outside the classes. Counts and rows
    only, never a value."""
    from dpcvx.validation import outside_classes, outside_labels

    classes = ("no", "yes") if labels.dtype == object else (0.0, 1.0)
    if missing:
        with pytest.raises(InputError, match=r"^y holds NaN or missing values, ") as refused:
            outside_labels(outside_classes(labels, classes), labels, classes)
        text = str(refused.value)
        assert missing in text and "outside" not in text and "label(s)" not in text
    else:
        text = outside_labels(outside_classes(labels, classes), labels, classes)
        assert "missing" not in text
    assert "maybe" not in text


def _sparse_forms(rows: np.ndarray) -> list:
    """rows as scipy.sparse CSR and CSC matrices and a pandas DataFrame of sparse columns."""
    scipy_sparse = pytest.importorskip("scipy.sparse")
    table = pd.DataFrame(rows).astype(pd.SparseDtype("float64", 0.0))
    return [scipy_sparse.csr_matrix(rows), scipy_sparse.csc_matrix(rows), table]


#: Regressors of every mechanism option whose path takes sparse rows, on ``X`` (200 rows: too few for a label search).
SPARSE_REGRESSORS = {
    "linear auto": lambda: DPLinearRegression(random_state=5),
    "linear adassp": lambda: DPLinearRegression(mechanism="adassp", random_state=5),
    "linear adassp, no statistics": lambda: DPLinearRegression(mechanism="adassp", column_statistics=False,
                                                               random_state=5),
    "linear objective": lambda: DPLinearRegression(mechanism="objective", weight_bound=2.0, column_statistics=False,
                                                   random_state=5),
    "linear pure epsilon": lambda: DPLinearRegression(delta=0.0, weight_bound=2.0, column_statistics=False,
                                                      random_state=5),
    "huber auto": lambda: DPHuberRegressor(random_state=5),
    "huber objective": lambda: DPHuberRegressor(mechanism="objective", random_state=5),
    "huber output": lambda: DPHuberRegressor(mechanism="output", delta=1e-6, random_state=5),
    "huber add-remove": lambda: DPHuberRegressor(neighbours="add-remove", n_public=200, delta=1e-6, random_state=5),
    "huber weighted": lambda: DPHuberRegressor(sample_weight_bound=2.0, random_state=5),
}


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
@pytest.mark.filterwarnings("ignore::dpcvx.models.training_rows.TrainingRowsWarning")
@pytest.mark.parametrize("name", sorted(SPARSE_REGRESSORS))
def test_the_regressors_fit_sparse_rows_as_the_dense_ones(name):
    """One standard for sparse X across the estimators: the regressors fit it as a CSR, as the classifiers do (they
    refused it), on every mechanism that takes it: the same certificate (mechanism, calibration, noise scale) and the
    same noise drawn with the same seed, so AdaSSP's release (sums of products of the rows) is the dense fit's bit for
    bit; a solver's iterates on CSR products may differ from the dense ones in the last bits (1e-12 seen on Huber).
    predict and score take it too (a score may differ from the dense rows' in its last bit: BLAS's order)."""
    weights = np.linspace(0.5, 1.5, X.shape[0]) if name == "huber weighted" else None
    dense = SPARSE_REGRESSORS[name]().fit(X, TARGET, sample_weight=weights)
    for rows in _sparse_forms(X):
        fitted = SPARSE_REGRESSORS[name]().fit(rows, TARGET, sample_weight=weights)
        assert fitted.certificate_.to_dict() == dense.certificate_.to_dict()
        if name.startswith("linear a"):  # AdaSSP: no solver
            np.testing.assert_array_equal(fitted.coef_, dense.coef_)
            assert fitted.intercept_ == dense.intercept_
        np.testing.assert_allclose(fitted.coef_, dense.coef_, rtol=1e-9, atol=1e-12)
        assert fitted.intercept_ == pytest.approx(dense.intercept_, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(dense.predict(rows), dense.predict(X), rtol=1e-12, atol=1e-15)
        assert dense.score(rows, TARGET) == pytest.approx(dense.score(X, TARGET), rel=1e-12)


#: The regressors' settings whose private ranges centre the columns (a sparse matrix filled): refused by name.
SPARSE_REFUSED = {
    "mechanism='gradient'": lambda spent: DPLinearRegression(mechanism="gradient", accountant=spent, random_state=5),
    "column_statistics='ranges'": lambda spent: DPLinearRegression(column_statistics="ranges", accountant=spent,
                                                                   random_state=5),
    "column_statistics=True": lambda spent: DPLinearRegression(mechanism="adassp", column_statistics=True,
                                                               accountant=spent, random_state=5),
    "private column statistics": lambda spent: DPHuberRegressor(column_statistics="ranges", accountant=spent,
                                                                random_state=5),
}


@pytest.mark.parametrize("setting", sorted(SPARSE_REFUSED))
def test_the_regressors_refuse_sparse_rows_by_the_setting_that_needs_dense_ones(setting):
    """Where a path truly cannot take sparse rows (the private ranges), the refusal is typed (InputTypeError, a
    TypeError as scikit-learn's), names the setting, and charges nothing; the rows are enough for the search."""
    rows = RNG.uniform(0.0, 0.5, size=(3000, 3))
    labels = rows[:, 0] - 0.25
    for form in _sparse_forms(rows)[:2]:
        spent = dpcvx.PrivacyAccountant(10.0)
        with pytest.raises(InputTypeError, match=rf"{re.escape(setting)}.* needs? dense rows"):
            SPARSE_REFUSED[setting](spent).fit(form, labels)
        assert not spent.ledger


@pytest.mark.parametrize("regressor", [DPLinearRegression, DPHuberRegressor])
def test_sparse_rows_under_auto_draw_no_ranges_and_say_so(regressor):
    """column_statistics="auto" draws no private ranges for a sparse X (its kind is public, as a Dask X's): at an n
    where the dense rows search the label's range, the sparse fit takes the mechanism without it and warns that the
    label was not located, naming the kind (DPHuberRegressor's fit was refused, DPLinearRegression's silent)."""
    rows = RNG.uniform(0.0, 0.5, size=(3000, 3))
    labels = rows[:, 0] - 0.25
    with warnings.catch_warnings():
        warnings.simplefilter("error", dpcvx.sklearn.noise_warning.NoiseDominatesWarning)
        dense = regressor(random_state=5).fit(rows, labels)
    assert dense.certificate_.column_statistics is not None or "ranged" in dense.certificate_.mechanism
    with pytest.warns(dpcvx.sklearn.noise_warning.NoiseDominatesWarning,
                      match="the label was not located: column_statistics='auto' draws no private ranges for a "
                            "scipy.sparse X"):
        fitted = regressor(random_state=5).fit(_sparse_forms(rows)[0], labels)
    assert "ranged" not in fitted.certificate_.mechanism


ARRAY_FITS = {
    **FITS,
    "PrivateMulticlassERM": lambda table: PrivateMulticlassERM(PrivateERM(data_norm=1.0), classes=(0, 1, 2)).fit(
        table, Y01, 1.0, random_state=0),
    "TDDL": lambda table: dpcvx.TDDL(lam=0.1, gamma=1.0).fit(table, YPM, 1.0, Z=X[:3], random_state=0),
    "RandomFourierFeatures": lambda table: dpcvx.RandomFourierFeatures(gamma=1.0, random_state=0).fit(table),
}
FITTED = {
    "PrivateERM": PrivateERM(data_norm=1.0).fit(X, YPM, 1.0, random_state=0),
    "DPLogisticRegression": DPLogisticRegression(random_state=0).fit(X, Y01),
    "DPLinearRegression": DPLinearRegression(random_state=0).fit(X, TARGET),
    "TDDL": dpcvx.TDDL(lam=0.1, gamma=1.0).fit(X, YPM, 1.0, Z=X[:3], random_state=0),
}
ENTRIES = {**{f"{name}.fit": fit for name, fit in ARRAY_FITS.items()},
           **{f"{name}.predict": model.predict for name, model in FITTED.items()}}


def _with_entry(value) -> np.ndarray:
    objects = X.astype(object)
    objects[3, 1] = value
    return objects


@pytest.mark.parametrize("entry", ENTRIES)
def test_an_entry_that_is_not_a_number_is_one_type_error_in_one_message_at_every_entry(entry):
    """A dict in X was an InputTypeError (a TypeError) at the estimators, with scikit-learn's text, and a plain
    InputError at PrivateERM, PrivateLinearRegression, the kernel learners, the Fourier map and predict."""
    with pytest.raises(InputTypeError, match=r"^X column 1 holds a dict that is not a number in row 3 \(the value is "
                                             r"not shown: it is data; float\(\) argument must be a string or a real "
                                             r"number, not 'dict'\); X must be numeric"):
        ENTRIES[entry](_with_entry({"a": 1}))


@pytest.mark.parametrize("missing", [None, pd.NA], ids=["None", "NA"])
@pytest.mark.parametrize("entry", ENTRIES)
def test_a_missing_entry_is_named_by_its_row_and_column_at_every_entry(entry, missing):
    """None in X: the classifiers named the cell as a NaN's, the regressors passed on scikit-learn's bare "Input X
    contains NaN.", PrivateERM and the kernel learners said "holds a missing value": one message now, a ValueError."""
    with pytest.raises(dpcvx.tables.NonFiniteError, match=r"^X contains NaN or infinite values \(or numbers beyond "
                                                          r"the float64 range\), first at row 3, column 1; impute"):
        ENTRIES[entry](_with_entry(missing))


@pytest.mark.parametrize("case", ["no rows", "no columns", "one-dimensional", "fewer labels"])
def test_a_shape_is_refused_in_the_same_words_by_every_entry(case):
    """The estimators kept scikit-learn's words for an X of no row or no column, a 1-D X and an X/y count mismatch
    ("Found array with 0 sample(s) ... required by DPLinearRegression.", "Found input variables with inconsistent
    numbers of samples: [100, 50]"), where PrivateERM, the kernel learners and RandomFourierFeatures had dpcvx's. One
    refusal of a shape now, whose words hold what scikit-learn's conformance checks match."""
    rng = np.random.default_rng(3)
    rows, signs = rng.uniform(-0.4, 0.4, (100, 3)), np.where(rng.random(100) < 0.5, 1, -1)
    data = {"no rows": (rows[:0], signs[:0]), "no columns": (rows[:, :0], signs),
            "one-dimensional": (rows[:, 0], signs), "fewer labels": (rows, signs[:50])}[case]
    entries = {
        "PrivateERM": lambda X, y: dpcvx.PrivateERM(data_norm=1.0).fit(X, y, 1.0),
        "DPLogisticRegression": lambda X, y: DPLogisticRegression(classes=(-1, 1)).fit(X, y),
        "DPLinearRegression": lambda X, y: dpcvx.DPLinearRegression(delta=1e-6, label_bound=1.0).fit(X, y * 0.5),
        "DPHuberRegressor": lambda X, y: dpcvx.DPHuberRegressor(label_bound=1.0).fit(X, y * 0.5),
        "TDDL": lambda X, y: dpcvx.TDDL("rbf", gamma=1.0, lam=0.1).fit(X, y, 1.0, Z=rows[:5]),
    }
    if case != "fewer labels":
        entries["RandomFourierFeatures"] = lambda X, y: dpcvx.RandomFourierFeatures(gamma=1.0).fit(X)
    said = {}
    for name, fit in entries.items():
        with pytest.raises(InputError) as refused:
            fit(*data)
        said[name] = str(refused.value)
    assert len(set(said.values())) == 1, said
    text = said["PrivateERM"]
    assert {"no rows": "0 sample(s) (shape=(0, 3)) while a minimum of 1 is required",
            "no columns": "0 feature(s) (shape=(100, 0)) while a minimum of 1 is required",
            "one-dimensional": "Reshape your data: X.reshape(-1, 1)",
            "fewer labels": "X has 100 rows but y has 50 labels"}[case] in text


def _spelt(labels: np.ndarray, value: object) -> np.ndarray:
    spelt = labels.astype(float if isinstance(value, float) and not isinstance(labels[0], str) else object)
    spelt[11] = value
    return spelt


@pytest.mark.parametrize("value", [np.nan, None, "", "?"])
def test_a_missing_label_is_one_row_error_in_one_wording_at_every_classifier_entry(value):
    """A missing label (NaN, None, or the text '' or '?' that the command line reads as an empty or '?' label cell)
    is the one RowError of a missing label (validation.missing_refusal), naming its row, at the estimators (binary and
    one-vs-rest: scikit-learn's "Input y contains NaN" / "Input contains NaN" and the 'more than two labels' wording
    are gone), PrivateERM, PrivateMulticlassERM, the kernel learners and tune; nothing is charged."""
    texts = np.where(Y01 > 0, "yes", "no")
    three = np.array(["a", "b", "c"])[np.arange(200) % 3]
    fits = {
        "DPLogisticRegression": lambda y, a: DPLogisticRegression(accountant=a).fit(X, _spelt(Y01, y)),
        "DPLogisticRegression texts": lambda y, a: DPLogisticRegression(classes=("no", "yes"), accountant=a).fit(
            X, _spelt(texts, y)),
        "DPLogisticRegression three": lambda y, a: DPLogisticRegression(classes=("a", "b", "c"), accountant=a).fit(
            X, _spelt(three, y)),
        "PrivateERM": lambda y, a: PrivateERM(data_norm=1.0).fit(X, _spelt(YPM, y), 1.0, accountant=a),
        "PrivateMulticlassERM": lambda y, a: PrivateMulticlassERM(PrivateERM(data_norm=1.0), ("a", "b", "c")).fit(
            X, _spelt(three, y), 1.0, accountant=a),
        "TDIL": lambda y, a: dpcvx.TDIL("linear", lam=0.1, input_bound=1.0).fit(X, _spelt(YPM, y), 1.0, 1e-6,
                                                                                accountant=a),
        "tune": lambda y, a: dpcvx.tune(PrivateERM(data_norm=1.0), X, _spelt(YPM, y), {"lam": [0.1]}, epsilon=1.0,
                                        accountant=a),
    }
    for path, fit in fits.items():
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
        with pytest.raises(dpcvx.tables.RowError) as refused:
            fit(value, accountant)
        said = str(refused.value)
        assert said.startswith("y holds NaN or missing values") and refused.value.row == 11, (path, said)
        assert ", first at row 11 (1 such row); " + MISSING_ADVICE in said, (path, said)
        assert accountant.ledger == [], path


def test_a_declared_empty_label_is_refused_and_one_outside_the_classes_is_named_in_one_head():
    """'' declared in classes= is refused before the labels are read (pyarrow reads an empty cell as a null among
    codes and as '' once one label is text, so one record decided whether the fit was refused: session 65; it was a
    class); a label outside the classes is 'outside the declared classes' at every entry that takes classes (the
    multiclass learner and tune said 'public classes'), and classes=(1, 1) is refused in one wording (PrivateERM said
    'two different values')."""
    texts = np.where(Y01 > 0, "yes", "")
    with pytest.raises(InputError, match="class '' spells a missing value"):
        DPLogisticRegression(classes=("", "yes"), random_state=0).fit(X, texts)
    three = np.array(["a", "b", "c"])[np.arange(200) % 3].astype(object)
    three[11] = "d"
    fits = {
        "DPLogisticRegression": lambda: DPLogisticRegression(classes=("a", "b", "c")).fit(X, three),
        "PrivateMulticlassERM": lambda: PrivateMulticlassERM(PrivateERM(data_norm=1.0), ("a", "b", "c")).fit(
            X, three, 1.0),
        "tune": lambda: dpcvx.tune(PrivateMulticlassERM(PrivateERM(data_norm=1.0), ("a", "b", "c")), X, three,
                                   {"binary__lam": [0.1]}, epsilon=1.0),
    }
    for fit in fits.values():
        with pytest.raises(InputError, match=r"^y has 1 label\(s\), the first at row 11 .* outside the declared "
                                             r"classes \('a', 'b', 'c'\)\. "):
            fit()
    for make in (lambda: PrivateERM(classes=(1, 1)).fit(X, YPM, 1.0),
                 lambda: DPLogisticRegression(classes=(1, 1)).fit(X, Y01),
                 lambda: PrivateMulticlassERM(PrivateERM(), (1, 1))):
        with pytest.raises(InputError, match=r"classes must be distinct values, got \(1, 1\)"):
            make()


def test_a_split_under_output_perturbation_is_refused_by_one_check_at_every_entry(tmp_path, capsys):
    """Output perturbation's noise takes no budget split: the command line refused --split with --mechanism output,
    while PrivateERM, the estimators and tune accepted split="paper" and ignored it. One check now
    (PrivateERM.check_options, which every fit, plan and estimator check runs), nothing charged; the default "max"
    passes. The command line's --split choices are the same table (rank-one was missing)."""
    message = (r"split='paper' sets the budget split of objective perturbation; output perturbation takes none \(it "
               r"would change nothing\): leave it out")
    fits = {
        "PrivateERM": lambda a: PrivateERM(data_norm=1.0).fit(X, YPM, 1.0, "output", split="paper", accountant=a),
        "check_options": lambda a: PrivateERM(data_norm=1.0).check_options(1.0, "output", split="paper"),
        "DPLogisticRegression": lambda a: DPLogisticRegression(split="paper", mechanism="output", accountant=a).fit(
            X, Y01),
        "one-vs-rest": lambda a: DPLogisticRegression(classes=(0, 1, 2), split="paper", mechanism="output",
                                                      accountant=a).fit(X, np.arange(200) % 3),
        "tune": lambda a: dpcvx.tune(PrivateERM(data_norm=1.0), X, YPM, {"lam": [0.1]}, epsilon=1.0, accountant=a,
                                     fit_params={"mechanism": "output", "split": "paper"}),
    }
    for path, fit in fits.items():
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match=message):
            fit(accountant)
        assert accountant.ledger == [], path
    PrivateERM(data_norm=1.0).fit(X, YPM, 1.0, "output", random_state=0)  # no split: the default
    rows = ["a,b,y"] + [f"{a:.3f},{b:.3f},{int(a > 0.25)}" for a, b in X[:, :2]]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    common = ["fit", tmp_path / "d.csv", "--numeric", "a:0:1", "--numeric", "b:0:1", "--target", "y", "--positive",
              "1", "--data-norm", "1", "--epsilon", "1", "--random-state", "0"]
    code, err = _cli(capsys, *common, "--mechanism", "output", "--split", "paper", "--out", tmp_path / "o.json")
    assert code == 2 and re.search(message, err), err
    code, err = _cli(capsys, *common, "--split", "rank-one", "--out", tmp_path / "r.json")
    assert code == 0 and (tmp_path / "r.json").exists(), err
    assert dpcvx.load(tmp_path / "r.json").certificate.split == "rank-one"


@pytest.mark.parametrize("split", ["max", "paper", "rank-one"])
def test_any_split_under_output_perturbation_is_refused_the_default_max_too(tmp_path, capsys, split):
    """split="max" with output perturbation was accepted (it was the default, which the check let through) while
    "paper" was refused, though neither changes anything: the default is now None ("max" under objective
    perturbation), and every split given with output perturbation is refused, in Python and on the command line."""
    message = rf"split='{split}' sets the budget split of objective perturbation; output perturbation takes none"
    fits = {
        "PrivateERM": lambda a: PrivateERM(data_norm=1.0).fit(X, YPM, 1.0, "output", split=split, accountant=a),
        "DPLogisticRegression": lambda a: DPLogisticRegression(split=split, mechanism="output", accountant=a).fit(
            X, Y01),
    }
    for path, fit in fits.items():
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match=message):
            fit(accountant)
        assert accountant.ledger == [], path
    assert DPLogisticRegression().get_params()["split"] is None
    assert DPLogisticRegression(random_state=0).fit(X, Y01).certificate_.split == "max"  # objective: "max"
    rows = ["a,b,y"] + [f"{a:.3f},{b:.3f},{int(a > 0.25)}" for a, b in X[:, :2]]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    common = ["fit", tmp_path / "d.csv", "--numeric", "a:0:1", "--numeric", "b:0:1", "--target", "y", "--positive",
              "1", "--data-norm", "1", "--epsilon", "1", "--random-state", "0", "--mechanism", "output"]
    code, err = _cli(capsys, *common, "--split", split, "--out", tmp_path / "o.json")
    assert code == 2 and re.search(message, err) and not (tmp_path / "o.json").exists(), err
    code, err = _cli(capsys, *common, "--out", tmp_path / "plain.json")
    assert code == 0, err
