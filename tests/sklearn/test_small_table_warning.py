"""SmallTableWarning (dpcvx.sklearn.noise_warning.warn_if_small_table): n epsilon / d below 50, public quantities."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import SmallTableWarning
from dpcvx.sklearn.noise_warning import SMALL_TABLE_LIMIT, warn_if_small_table


def test_the_boundary_is_exact():
    with pytest.warns(SmallTableWarning, match=r"with n = 99: 99 x 1 / 2 = 49.5 is below 50"):
        warn_if_small_table("owner", 99, 2, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallTableWarning)
        warn_if_small_table("owner", 100, 2, 1.0)   # exactly 50: quiet
    with pytest.warns(SmallTableWarning,
                      match=r"n 2 min\(prior, 1 - prior\) = 500 x 0.1 = 50 in n's place .*\): 50 x 1 / 2 = 25"):
        warn_if_small_table("owner", 500, 2, 1.0, prior=0.95)   # twice the rare class's expected count
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallTableWarning)
        warn_if_small_table("owner", 1000, 2, 1.0, prior=0.95)   # 2 x 1000 x 0.05 = 100: exactly 50, quiet
    assert SMALL_TABLE_LIMIT == 50.0


def test_a_ratio_just_below_the_limit_is_shown_below_it():
    """A multiclass fit of 3 classes spends epsilon / 3 a class, a double just below 1/3: 300 epsilon / 2 read
    "50 is below 50" at three digits to nearest."""
    with pytest.warns(SmallTableWarning, match=r"300 x 0.333333 / 2 = 49.9 is below 50"):
        warn_if_small_table("owner", 300, 2, 1 / 3 - 1e-16)


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_estimators_warn_from_public_numbers_only():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 4)) / 2
    for labels in ((X[:, 0] > 0).astype(int), np.zeros(200, dtype=int)):   # the same for any labels
        with pytest.warns(SmallTableWarning, match=r"200 x 0.5 / 4 = 25"):
            dpcvx.DPLogisticRegression(epsilon=0.5, random_state=0).fit(X, labels)
    with pytest.warns(SmallTableWarning, match=r"200 x 0.2 = 40 in n's place .*\): 40 x 2 / 4 = 20"):   # prior 10%
        dpcvx.DPLogisticRegression(epsilon=2.0, threshold=0.1, random_state=0).fit(X, (X[:, 0] > 0.4).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallTableWarning)
        dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, (X[:, 0] > 0).astype(int))   # 50
    # one-vs-rest: each class's release has epsilon / k (the multiclass budget split)
    with pytest.warns(SmallTableWarning, match=r"200 x 0.333333 / 4"):
        dpcvx.DPLogisticRegression(epsilon=1.0, classes=(0, 1, 2), random_state=0).fit(X, rng.integers(0, 3, 200))
    # AdaSSP's Gaussian noise (delta 1e-6): its width d' = 0.5 z(0.5, 1e-6) sqrt(4) = 8.06 in d's place
    with pytest.warns(SmallTableWarning, match=r"200 x 0.5 / 8.06"):
        dpcvx.DPLinearRegression(epsilon=0.5, random_state=0).fit(X, X[:, 0])


def _public_warnings(estimator, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [str(w.message) for w in caught if "NOT PRIVATE" not in str(w.message)]


@pytest.mark.parametrize("make", [
    lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=(0, 50), neighbours="add-remove",
                                     n_public=150, random_state=3),
    lambda: dpcvx.DPHuberRegressor(epsilon=1.0, delta=1e-6, label_bound=(0, 50), neighbours="add-remove",
                                   n_public=150, random_state=3),
])
def test_under_add_remove_a_regressor_warns_from_no_private_count(make):
    """Audit: under add/remove n is private, yet the regressors' warning read the rows' count, so D (150 rows) was
    silent and D minus a row warned "n = 149: 49.7 is below 50". Now the public n_public (every learner that offers
    add-remove takes one): the public warnings of the two neighbours are the same texts."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-0.5, 0.5, size=(150, 3))
    y = np.clip(20 + 20 * X[:, 0] + rng.normal(size=150), 0, 50)
    first, second = _public_warnings(make(), X, y), _public_warnings(make(), X[1:], y[1:])
    assert first == second and not any("149" in text for text in second)


def test_the_advice_says_where_encoded_columns_come_from():
    """A prober's fraud table had 503 encoded columns, 500 of them one 500-level category; the warning's "fewer
    encoded columns" did not say that each category is one, nor how to group them without reading the data."""
    X = np.zeros((99, 2))
    X[::2, 0] = 0.5
    with pytest.warns(SmallTableWarning, match=r"one per declared category: group its categories by a public rule"):
        dpcvx.DPLogisticRegression(random_state=0).fit(X, np.arange(99) % 2)


def test_the_widest_column_is_named_only_where_it_makes_much_of_the_width():
    """dpcvx.advice.widest_column: the public schema's column that makes the most encoded columns, named when it makes
    more than one and at least a quarter of them; outside encoded_columns (a Python fit on rows) nothing."""
    from dpcvx.advice import encoded_columns, widest_column

    assert widest_column(4) is None
    with encoded_columns((("a", 1), ("shop", 3))):
        assert widest_column(4) == "'shop' makes 3 of the 4"
        assert widest_column(13) is None  # 3 of 13: under a quarter
        with pytest.warns(SmallTableWarning, match=r"category; here 'shop' makes 3 of the 4: group"):
            warn_if_small_table("owner", 99, 4, 1.0)
    with encoded_columns((("a", 1), ("b", 1))):
        assert widest_column(2) is None  # a numeric column is one encoded column
    assert widest_column(4) is None


def test_a_pipeline_of_a_schema_with_named_output_names_the_widest_column():
    """make_pipeline(schema.set_output(transform="pandas"), estimator): the estimator's X holds the schema's feature
    names ("diag=1", ..., "age:scaled"), and its small-table advice names the 400-level column as dpcvx fit names it
    (an analyst probe, sixty-fourth session: the Python text said "group its categories" without naming it)."""
    pytest.importorskip("pandas")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from dpcvx.advice import named_widths

    assert named_widths(["age:scaled", "age:missing", "diag=1", "diag=2", "x"]) == (("age", 2), ("diag", 2), ("x", 1))
    assert named_widths(["a", "b"]) == () and named_widths(None) == ()
    rng = np.random.default_rng(0)
    table = {"age": rng.uniform(0, 100, 300), "diag": rng.integers(1, 401, 300).astype(str)}
    schema = dpcvx.PublicSchema([dpcvx.NumericColumn("age", 0, 100), dpcvx.CategoricalColumn("diag", range(1, 401))])
    y = rng.integers(0, 2, 300)
    # the default array is named too when the schema is the step before the estimator (analyst probe P2, session
    # 68, finding 5: tests/data/test_pipeline_output_names.py); a copy of it is not
    for output, named in (("pandas", True), ("default", True), ("copied", False)):
        steps = ((schema.set_output(transform=output),) if output != "copied" else
                 (schema.set_output(transform="default"), FunctionTransformer(np.array)))
        pipeline = make_pipeline(*steps, dpcvx.DPLogisticRegression(random_state=0))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pipeline.fit(table, y)
        small = [str(w.message) for w in caught if issubclass(w.category, SmallTableWarning)]
        assert small and ("here 'diag' makes 400 of the 401" in small[0]) == named


@pytest.mark.parametrize("settings", [
    {"class_weight": "balanced", "class_prior": (0.5, 0.5)},  # balanced weights of equal rates: 1 and 1
    {"class_weight": {0: 1.0, 1: 1.0}},
    {"class_prior": (0.5, 0.5)},  # an offset at log-odds 0
    {"threshold": 0.5},
])
@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_a_prior_of_equal_classes_warns_as_the_default_fit(settings):
    """Balanced weights at equal rates are the default fit's: the rule must hold them to the same n. It held them to
    n min(pi, 1 - pi) = n / 2 (warned at n epsilon / d = 75, where the default, at 75 too, was quiet); the size is
    now n 2 min(pi, 1 - pi) for every fit with a prior (warn_if_small_table's docstring). Public numbers only, no
    tolerance: 300 x 1 / 4 = 75 >= 50."""
    rng = np.random.default_rng(54)
    X = rng.uniform(-1, 1, size=(300, 4)) / 2
    y = (X[:, 0] + rng.normal(0, 0.3, 300) > 0).astype(int)
    shown = []
    for extra in ({}, settings):  # recorded: a warning after the charge is shown under an "error" filter too
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, **extra).fit(X, y)
        shown.append([str(w.message) for w in caught if issubclass(w.category, SmallTableWarning)])
    assert shown == [[], []], shown


def test_the_terms_say_where_epsilon_prime_and_the_prior_come_from():
    """An analyst probe (session 63, probeB finding 4) read "n 2 min(prior, 1 - prior) = 5000 x 0.1404: 702 x 0.95 /
    156" after passing epsilon=1 (0.95: the part left after the private class count), and "5000 x 0.11875 / 30" for
    eight classes (0.95 / 8), neither number named. Public numbers only."""
    with pytest.warns(SmallTableWarning) as caught:
        warn_if_small_table("owner", 5000, 156, 0.95, prior=0.0702, total_epsilon=1.0)
    text = str(caught[0].message)
    assert ("n 2 min(prior, 1 - prior) = 5000 x 0.1404 = 702 in n's place (twice the rarer class's expected count at "
            "the fit's prior 0.0702") in text, text
    assert "epsilon' = 0.95 in epsilon's place (the part of your epsilon = 1 that fits the weights; the rest" in text
    assert "): 702 x 0.95 / 156 = 4.27 is below 50" in text, text
    with pytest.warns(SmallTableWarning) as caught:
        warn_if_small_table("owner", 5000, 30, 0.95 / 8, total_epsilon=1.0, classes=8)
    text = str(caught[0].message)
    assert ("epsilon' = 0.11875 in epsilon's place (one class's part of your epsilon = 1: one-vs-rest's 8 fits share "
            "what is left of it after what is drawn first") in text, text
    with pytest.warns(SmallTableWarning) as caught:  # nothing drawn first: no "less"
        warn_if_small_table("owner", 5000, 30, 1 / 8, total_epsilon=1.0, classes=8)
    assert "fits spend 0.125 each):" in str(caught[0].message)
    with pytest.warns(SmallTableWarning, match=r"with n = 99: 99 x 1 / 2 = 49.5 is below 50"):  # epsilon as given
        warn_if_small_table("owner", 99, 2, 1.0, total_epsilon=1.0)


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.TrainingRowsWarning")
# the eight classes' counts are drawn at scale 160 (epsilon 1 / 8 x 0.05): one may be released at its floor, which a
# ClassFloorWarning names (tests/sklearn/test_class_count_floor_note.py); this test reads the SmallTableWarning only
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClassFloorWarning")
def test_estimators_name_the_users_epsilon():
    """The estimators pass the release's total epsilon and one-vs-rest's number of classes."""
    rng = np.random.default_rng(63)
    X = rng.uniform(-1, 1, size=(2000, 30)) / np.sqrt(30)
    binary = (X[:, 0] + rng.normal(0, 0.1, 2000) > 0.05).astype(int)
    with pytest.warns(SmallTableWarning) as caught:
        dpcvx.DPLogisticRegression(epsilon=1.0, class_prior="private", threshold="prior",
                                   random_state=0).fit(X, binary)
    text = [str(w.message) for w in caught if w.category is SmallTableWarning][0]
    assert "epsilon' = 0.95 in epsilon's place (the part of your epsilon = 1 that fits the weights" in text, text
    with pytest.warns(SmallTableWarning) as caught:
        dpcvx.DPLogisticRegression(epsilon=1.0, classes=tuple(range(8)), class_prior="private", threshold="prior",
                                   random_state=0).fit(X, rng.integers(0, 8, 2000))
    text = [str(w.message) for w in caught if w.category is SmallTableWarning][0]
    assert "epsilon' = 0.11875 in epsilon's place (one class's part of your epsilon = 1: one-vs-rest's 8" in text, text
