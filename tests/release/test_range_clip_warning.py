"""A regression release whose rows map through private column ranges says, at prediction, the share of the caller's
new rows those ranges clip (RangeClipWarning, analyst probe P8 F2, session 69): the ranges are located on the
training rows, so the predictions of rows beyond them (a later period of a trend) cannot extrapolate. Public (the
caller's rows and the release's map only), said once per call, never inside a fit, and by ``dpcvx predict`` once per
file. And the NoiseDominatesWarning of a fit whose columns were not located says that column_statistics=False
changes the mechanism (P8 F6)."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data.preprocessing import NumericColumn, PublicSchema
from dpcvx.exceptions import float_errors_ignored
from dpcvx.release.range_clip import CLIPPED_SHARE, SAMPLED_ROWS, RangeTally, located_ranges

N = 6000
TRAIN = 4200  # the first 70 % of the days


def _trend(seed=0):
    """Rows of a trend: the day's index scaled into [0, 0.5) and a noise column; the label rises with the day."""
    rng = np.random.default_rng(seed)
    day = np.arange(N) / N
    noise = rng.normal(size=N)
    X = np.column_stack([0.5 * day, 0.1 * noise])
    y = 3 * day + noise + 0.2 * rng.normal(size=N)
    return X, y


@pytest.fixture(scope="module")
def fitted():
    """DPLinearRegression's default, epsilon 3, fitted on the first 70 % of the days: every column's range located
    (mechanism gradient-ranged); the fit's own warnings recorded."""
    X, y = _trend()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        estimator = dpcvx.DPLinearRegression(epsilon=3.0, label_bound=(-4, 6), random_state=0).fit(X[:TRAIN],
                                                                                                     y[:TRAIN])
    assert estimator.certificate_.mechanism == "gradient-ranged"
    assert estimator.certificate_.calibration.range_columns == 3  # both columns' ranges and the label's
    return estimator, [w.category for w in seen]


def _said(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in seen if issubclass(w.category, dpcvx.RangeClipWarning)]


def test_later_days_are_told_once_with_the_share_and_the_options(fitted):
    estimator, _ = fitted
    X, _ = _trend()
    said = _said(lambda: estimator.predict(X[TRAIN:]))
    assert len(said) == 1  # one call, one warning (the rows are scored a block at a time)
    text = said[0]
    assert f"of these {N - TRAIN:,} rows" in text and "column 0 " in text and "column 1 " not in text
    assert "beyond its upper edge" in text
    assert "cannot extrapolate" in text and "column_statistics=False" in text
    assert "switches DPLinearRegression to plain AdaSSP" in text  # the option measured worse, said so (s71 P2 F1)
    # not drift alone: a window narrower than a lumpy column's values clips rows like the training rows too (P2 F3,
    # session 70: a count 0..5 on a random split, told as drift)
    assert "narrower than its values" in text and "no drift is needed" in text
    share = int(text.split("column 0 ")[1].split("%")[0])
    assert share > 100 * CLIPPED_SHARE
    # the share is the map's own: the rows the release's map clips onto its window on that column
    ranges = located_ranges(estimator.model_.certificate, estimator.model_.rows)
    mapped = ranges.standardiser.transform(X[TRAIN:])
    assert share == round(100 * np.mean(mapped[:, 0] >= ranges.standardiser.clip))


def test_rows_like_the_training_rows_are_not_told_nor_is_the_fit(fitted):
    estimator, fit_warnings = fitted
    X, _ = _trend()
    assert dpcvx.RangeClipWarning not in fit_warnings  # a fit's checks score training rows: never told
    rows = np.random.default_rng(5).choice(TRAIN, 1000, replace=False)
    assert _said(lambda: estimator.predict(X[rows])) == []


def test_every_entry_of_a_release_tells_it(fitted, tmp_path):
    """The release itself, its decision_function, a saved and loaded file, a pandas table, a CSR, a Dask X (once
    for all its blocks); and not inside a dpcvx entry that reads private rows."""
    estimator, _ = fitted
    X, _ = _trend()
    later = X[TRAIN:]
    release = estimator.model_
    path = tmp_path / "trend.json"
    dpcvx.save(release, path)
    loaded = dpcvx.load(path)
    pd = pytest.importorskip("pandas")
    sparse = pytest.importorskip("scipy.sparse")
    for call in (lambda: release.predict(later), lambda: release.decision_function(later),
                 lambda: loaded.predict(later), lambda: estimator.predict(pd.DataFrame(later)),
                 lambda: estimator.predict(sparse.csr_matrix(later)),
                 lambda: estimator.score(later, np.zeros(len(later)))):
        assert len(_said(call)) == 1
    da = pytest.importorskip("dask.array")
    assert len(_said(lambda: release.predict(da.from_array(later, chunks=(300, 2))))) == 1
    inside = float_errors_ignored(lambda: release.predict(later))  # as a fit's checks call it: not told
    assert _said(inside) == []


def test_the_warning_is_a_public_clipping_warning():
    assert issubclass(dpcvx.RangeClipWarning, dpcvx.ClippingWarning)
    assert dpcvx.RangeClipWarning.reads_private_data is False
    assert dpcvx.ClippingWarning.reads_private_data is True


def test_a_release_without_located_column_ranges_is_not_told():
    """The label's range alone (epsilon 0.2 at this n: the rows keep their public map) and plain AdaSSP."""
    X, y = _trend()
    for settings in ({"epsilon": 0.2}, {"epsilon": 3.0, "column_statistics": False}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dpcvx.NoiseDominatesWarning)  # the label's range alone; plain AdaSSP
            warnings.simplefilter("ignore", dpcvx.TrainingRowsWarning)
            estimator = dpcvx.DPLinearRegression(label_bound=(-4, 6), random_state=0, **settings).fit(X[:TRAIN],
                                                                                                     y[:TRAIN])
        assert located_ranges(estimator.model_.certificate, estimator.model_.rows) is None
        assert _said(lambda: estimator.predict(X[TRAIN:])) == []  # noqa: B023  # called at once


def test_huber_ranges_are_told_too():
    X, y = _trend()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.TrainingRowsWarning)  # the fit's note on its training rows
        estimator = dpcvx.DPHuberRegressor(epsilon=3.0, label_bound=(-4, 6), random_state=0).fit(X[:TRAIN], y[:TRAIN])
    assert estimator.certificate_.column_statistics is not None
    assert len(_said(lambda: estimator.predict(X[TRAIN:]))) == 1


def test_dpcvx_predict_says_it_once_per_file(tmp_path):
    """A release fitted on the schema's encoding of the first days, saved with it; the later days' file read by
    chunks of 1,000 rows: one warning for the whole file, naming the command line's flag."""
    X, y = _trend()
    schema = PublicSchema((NumericColumn("day", 0, 0.5), NumericColumn("noise", -1, 1)), norm=1.0)
    Z = schema.transform({"day": X[:, 0], "noise": X[:, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.TrainingRowsWarning)
        estimator = dpcvx.DPLinearRegression(epsilon=3.0, label_bound=(-4, 6), random_state=0).fit(Z[:TRAIN],
                                                                                                  y[:TRAIN])
    assert estimator.certificate_.mechanism == "gradient-ranged"
    path = tmp_path / "trend.json"
    dpcvx.save(estimator.model_, path, schema=schema)
    data = tmp_path / "later.csv"
    data.write_text("day,noise\n" + "\n".join(f"{a:.17g},{b:.17g}" for a, b in X[TRAIN:]) + "\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert main(["predict", str(path), str(data), "--chunk-rows", "1000", "--out", str(tmp_path / "p.csv")]) == 0
    said = [str(w.message) for w in seen if issubclass(w.category, dpcvx.RangeClipWarning)]
    assert len(said) == 1 and said[0].startswith("dpcvx predict: ") and f"of these {N - TRAIN:,} rows" in said[0]
    assert "--no-column-statistics" in said[0]  # the command line's flag, not the Python parameter


def test_the_noise_warning_says_column_statistics_false_changes_the_mechanism():
    """P8 F6: "the rows keep their public map" read as "column_statistics=False is the same fit": it is not."""
    X, y = _trend()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        estimator = dpcvx.DPLinearRegression(epsilon=0.2, label_bound=(-4, 6), random_state=0).fit(X[:TRAIN],
                                                                                                  y[:TRAIN])
    assert estimator.certificate_.calibration.range_columns == 1  # the label's range alone
    (text,) = [str(w.message) for w in seen if issubclass(w.category, dpcvx.NoiseDominatesWarning)]
    assert "the columns' ranges were not located" in text
    assert "still ran noisy gradient descent on clipped residuals on the label's private range" in text
    assert "column_statistics=False is not this fit without that share, it changes the mechanism" in text


def test_chunks_sampled_at_different_strides_weigh_as_their_rows(fitted):
    """A file read in chunks (dpcvx predict): a large chunk whose share is estimated on a sample, then a small last
    chunk compared whole. Each chunk's counts weigh as its rows (P1 F1, session 70: added unweighted, the small
    chunk counted double, and 16 % of the rows beyond an edge were told as 27.6 %)."""
    estimator, _ = fitted
    X, _ = _trend()
    ranges = located_ranges(estimator.model_.certificate, estimator.model_.rows)
    like = X[np.random.default_rng(1).integers(0, TRAIN, 2 * SAMPLED_ROWS)]  # training-like rows, sampled 1 in 2
    beyond = np.column_stack([np.full(25_000, 0.5), np.resize(X[:, 1], 25_000)])  # the last day: beyond the edge
    tally = RangeTally(ranges)
    for chunk in (like, beyond):
        tally.add(chunk)
    assert tally.compared < tally.rows == len(like) + len(beyond)
    exact = np.mean(ranges.standardiser.transform(np.vstack([like, beyond]))[:, 0] >= ranges.standardiser.clip)
    assert exact < CLIPPED_SHARE < 25_000 / (SAMPLED_ROWS + 25_000)  # told only when the chunks are not weighed
    assert tally.columns[1, 0] / tally.rows == pytest.approx(exact, abs=0.01)  # 2 binomial sd of the 1-in-2 sample
    with warnings.catch_warnings():
        warnings.simplefilter("error", dpcvx.RangeClipWarning)
        tally.say("dpcvx predict")


def test_an_estimator_names_itself_and_its_columns(fitted):
    """The estimator scores with its release stripped of the table's names: its warning names the estimator and the
    columns it was fitted on, as its fit's warnings do (P1 F2, session 70: "PrivateRegressionModel", "column 0")."""
    estimator, _ = fitted
    X, y = _trend()
    (said,) = _said(lambda: estimator.predict(X[TRAIN:]))
    assert said.startswith("DPLinearRegression: ")
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame(X, columns=["day", "noise"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.TrainingRowsWarning)
        named_fit = dpcvx.DPLinearRegression(epsilon=3.0, label_bound=(-4, 6), random_state=0).fit(
            table[:TRAIN], y[:TRAIN])
    (said,) = _said(lambda: named_fit.predict(table[TRAIN:]))
    assert said.startswith("DPLinearRegression: ") and "'day' " in said and "column 0" not in said
    (said,) = _said(lambda: named_fit.model_.predict(table[TRAIN:]))  # the release itself keeps its own name
    assert said.startswith("PrivateRegressionModel: ") and "'day' " in said
