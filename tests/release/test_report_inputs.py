"""The release report states what the release cost in total and where each input came from: a tuned model's
selection total and how dpcvx.tune chose it, privately drawn statistics under their own heading, user strings
escaped in Markdown, and truthful numbers at the extremes (dpcvx.release.report)."""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.models.multiclass import PrivateMulticlassERM

PRIVATE_HEADING = "Chosen privately by dpcvx, inside this budget"


def _lists(markdown: str, section: str) -> tuple[list[str], list[str]]:
    """The public and the privately chosen items of the report's Public inputs section."""
    text = markdown.split(f"## {section}")[1].split("\n## ")[0]
    public, _, private = text.partition(PRIVATE_HEADING)
    items = [re.findall(r"^- (.*)$", part, re.M) for part in (public, private.split("The private mechanisms")[0])]
    return items[0], items[1]


@pytest.fixture(scope="module")
def data():
    return synthetic_classification(n=800, d=3, random_state=0)


@pytest.mark.slow
@pytest.mark.parametrize("procedure", ["split", "full-data"])
def test_a_tuned_model_reports_and_charges_the_whole_selection(data, tmp_path, procedure):
    X, y = data
    result = dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=1.0,
                        procedure=procedure, random_state=0)
    loaded = dpcvx.load(dpcvx.save(result.model, tmp_path / "tuned.json"))
    for model in (result.model, loaded):
        assert model.certificate.epsilon < 1.0 or procedure == "split"  # split: each part's fit at the total
        assert (model.epsilon, model.delta) == (1.0, 0.0) and model.privacy_curve == model.tuning.privacy_curve
        report = model.report()
        markdown = report.to_markdown()
        assert "epsilon = 1, delta = 0, under" in markdown and "e^epsilon = 2.718" in markdown
        assert report.curve == model.tuning.privacy_curve and report.curve.profile([1.0])[0] == 0.0
        assert "## How the settings were chosen: privately, by dpcvx.tune" in markdown
        assert "The candidates' grid is public" in markdown and "Selected privately: lam = " in markdown
        assert ("disjoint part" if procedure == "split" else "E\\[K\\] = ") in markdown
        public, private = _lists(markdown, "Public inputs")
        assert not any("lam" in item for item in public)
        assert any(item.startswith("the regularisation strength lam") for item in private)
        assert f"n = {len(y)}" in " ".join(public)
    accountant = dpcvx.PrivacyAccountant(epsilon=10)
    accountant.spend_release(loaded)  # docs/accounting.md: how to charge an outside release
    assert accountant.spent.epsilon == pytest.approx(1.0)


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.uniform(0, 1, 3000), "b": rng.uniform(0, 1, 3000)})
    return frame, frame.to_numpy() @ np.array([1.0, -0.5]) + 0.1 * rng.standard_normal(3000)


@pytest.mark.slow
def test_privately_drawn_bounds_and_encodings_are_not_called_public(table):
    X, labels = table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        huber = dpcvx.DPHuberRegressor(epsilon=1.0, random_state=0).fit(X, labels).model_
        logistic = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, labels > 0.2).model_
    markdown = huber.report().to_markdown()
    public, private = _lists(markdown, "Public inputs")
    bound = f"the bound B = {huber.certificate.label_bound:g} on the size of a label"
    assert bound in private and bound not in public and "the bound R = 1 on the norm of a row" in " ".join(public)
    assert any(item.startswith("the loss l(z) = huber") for item in private)  # its m is B' / 4
    assert any(item.startswith("the encoding of the columns") for item in private)
    assert "private label range" in markdown and "The total includes the budget dpcvx spent" in markdown
    assert "The inputs dpcvx chose privately (listed above) are covered." in markdown
    public, private = _lists(logistic.report().to_markdown(), "Public inputs")
    assert any(item.startswith("the encoding of the columns") for item in private)
    assert not any(item.startswith("the encoding") for item in public)


def test_a_declared_label_bound_is_public_and_nothing_is_called_private(data):
    X, _ = data
    model = dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=1.0).fit(
        X, X @ np.ones(3) / 3, 0.8, 1e-6, random_state=0)
    markdown = model.report().to_markdown()
    public, private = _lists(markdown, "Public inputs")
    assert "the bound B = 1 on the size of a label" in public and private == []
    assert PRIVATE_HEADING not in markdown and "The total includes the budget" not in markdown


EVIL = ("<script>alert(1)</script>", "c</td>|", "1. x\n# y")


def _outside_code(markdown: str) -> str:
    return re.sub(r"^(`{3,})text\n.*?^\1$", "", markdown, flags=re.S | re.M)


@pytest.mark.slow
def test_user_strings_are_escaped_in_markdown(data):
    X, y = data
    labels = np.array(EVIL)[np.random.default_rng(0).integers(0, 3, len(y))]
    multiclass = PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), tuple(sorted(EVIL))).fit(
        X, labels, 1.0, random_state=0)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn(EVIL[0], 0, 1), dpcvx.CategoricalColumn(EVIL[1], EVIL[1:])),
                                norm=1.0)
    rows = schema.transform({EVIL[0]: np.linspace(0, 1, 200), EVIL[1]: np.resize(EVIL[1:], 200)})
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(rows, np.resize([-1, 1], 200), 1.0, random_state=0)
    model.schema = schema
    for release in (multiclass, model):
        markdown = _outside_code(release.report().to_markdown())
        assert "<script>" not in markdown and "</td>" not in markdown and "\n# y" not in markdown
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markdown
        cells = None
        for line in markdown.splitlines():  # no cell added by a user's "|": each row has its header's cells
            count = len(re.findall(r"(?<!\\)\|", line)) if line.startswith("|") else None
            cells = count if cells is None else cells
            assert count in (None, cells)
            cells = None if count is None else cells


@pytest.mark.slow
def test_extreme_budgets_are_stated_truthfully(data):
    X, y = data
    erm = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, allow_large_delta=True)
    huge = erm.fit(X, y, 1000.0, random_state=0).report().to_markdown()
    assert "e^epsilon = 10^434.3," in huge
    loose = erm.fit(X, y, 1.0, delta=0.01, mechanism="output", random_state=0).report().to_markdown()
    assert "this delta is 8 times larger. WARNING" in loose
    add_remove = erm.fit(X, y, 1.0, "output", delta=1e-6, neighbours="add-remove", n_public=500,
                         random_state=0).report().to_markdown()
    assert "Here the calibration used the public size n\\_public = 500 (the number of records itself is " \
           "protected), so 1/n\\_public = 0.002: this delta is 2,000 times smaller" in add_remove


@pytest.mark.slow
def test_the_summary_names_the_version_and_a_binary_model_its_classes(data):
    X, y = data
    multiclass = PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), (-1, 1, 2)).fit(
        X, y, 1.0, random_state=0)
    assert f"released by dpcvx {dpcvx.__version__} with" in multiclass.report().to_markdown()
    public, _ = _lists(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, 1.0, random_state=0).report()
                       .to_markdown(), "Public inputs")
    assert ("the classes -1 and 1 (the positive class: decision\\_function &gt; 0, predict\\_proba's second column), "
            "declared (never read off the data)") in public  # as Markdown escapes it


@pytest.mark.slow
def test_a_ranged_regression_lists_its_labels_private_centre_and_bound():
    """DPLinearRegression's default draws the label's range: its centre c and bound B' are listed as chosen privately
    (the report listed only the columns' encoding, and with the label's range alone nothing)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (4000, 4)) / 3
    y = 50 + X @ np.array([30.0, -20.0, 10.0, 5.0]) + rng.normal(0, 3, 4000)
    for n in (4000, 800):  # every column's ranges, and the label's alone
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
            model = dpcvx.DPLinearRegression(label_bound=(0, 200), random_state=0).fit(X[:n], y[:n]).model_
        text = model.report().to_markdown()
        private = text[text.index("Chosen privately"):text.index("The private mechanisms that chose them")]
        assert f"B' = {model.certificate.calibration.label_bound:g}" in private


def test_a_balanced_release_names_its_class_weights_as_private_and_the_declared_loss_as_public():
    """class_weight="balanced": the report listed the user's own loss and regularizer as "chosen privately by
    dpcvx" and did not name the class weights, which the private count did set."""
    X, y = synthetic_classification(n=3000, d=3, random_state=3)
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, class_weight="balanced").fit(X, y, 1.0, random_state=0)
    text = model.report().to_markdown()
    public = text[text.index("## Public inputs"):text.index("Chosen privately")]
    private = text[text.index("Chosen privately"):text.index("The private mechanisms that chose them")]
    assert "the loss l(z) = logistic(-z)" in public and "the regularizer N(w)" in public
    assert "the class weights {-1: 1, 1: 0.9" in private and "regularizer" not in private


def test_the_schema_s_missing_value_rules_are_listed_as_public_inputs():
    """The report listed each schema column's bounds or categories only: an imputed value (which, chosen by looking
    at the records, say their median, is a release of its own), the missing codes and texts, the indicator and the
    log scale were public inputs the guarantee takes as given, and the report did not name them."""
    schema = dpcvx.PublicSchema((
        dpcvx.NumericColumn("stay", 0, 365, missing=7.0, missing_codes=(999, -9), missing_texts=("NA",),
                            missing_indicator=True, scale="log"),
        dpcvx.NumericColumn("age", 0, 120),
        dpcvx.CategoricalColumn("ward", ("a", "b", "?"), missing="?")), norm=1.0)
    rng = np.random.default_rng(0)
    rows = schema.transform({"stay": rng.uniform(0, 365, 300), "age": rng.uniform(0, 120, 300),
                             "ward": rng.choice(["a", "b"], 300)})
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(rows, np.resize([-1, 1], 300), 1.0, random_state=0)
    model.schema = schema
    public, _ = _lists(model.report().to_markdown(), "Public inputs")
    assert (r"stay: numeric in \[0, 365\], on the log scale; a missing value imputed as 7, with a missing indicator; "
            r"the codes 999, -9 read as missing; the texts 'NA' read as missing") in public
    assert r"age: numeric in \[0, 120\]" in public
    assert "ward: one of a, b, ?; a missing value is the category ?" in public


def _mechanisms(markdown: str) -> list[str]:
    """The items under "The private mechanisms that chose them"."""
    text = markdown.split("The private mechanisms that chose them:")[1].split("\n## ")[0]
    return re.findall(r"^- (.*)$", text, re.M)


@pytest.mark.parametrize("option, said", [({"class_prior": "private"}, r"class\_prior='private'"),
                                          ({"class_weight": "balanced"}, r"class\_weight='balanced'")])
def test_the_private_count_is_said_in_words_with_its_option_and_its_share_of_epsilon(option, said):
    """The count's line read "the private class count of class_weight='balanced' or class_prior='private'
    (dpcvx.models.class_count: discrete Laplace, eps_c, clamped onto [floor, n - floor])": a module path and symbols,
    and not which option asked for it nor what share of epsilon it took; the intercept offset's centre showed 16
    digits, unexplained."""
    X, y = synthetic_classification(n=900, d=3, random_state=3)
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, **option).fit(X, (y > 0).astype(int)).model_
    text = model.report().to_markdown()
    count = model.certificate.weights.private_count
    [line] = _mechanisms(text)
    assert line.startswith(f"a noisy count of the records of class 1 (released as {count['count']} of 900), "
                           f"asked for by {said}")
    assert line.endswith("using 0.05 of the epsilon of 1")
    assert "dpcvx." not in line and "eps\\_c" not in line and "floor" not in line
    public, private = _lists(text, "Public inputs")
    if "class_prior" in option:
        [regularizer] = [item for item in private if item.startswith("the regularizer")]
        assert not re.search(r"\d\.\d{7,}", regularizer)  # rounded
        odds = math.log(count["count"] / (900 - count["count"]))
        assert f"towards log({count['count']} / (900 - {count['count']})) = {odds:.3g}" in regularizer
    assert not [item for item in public + private if "threshold" in item]  # the default threshold: not listed


def test_a_threshold_other_than_one_half_is_a_public_input_of_the_report(tmp_path):
    """threshold=0.3 moves predict's cut (the file's decision_cut), and the report did not say so."""
    X, y = synthetic_classification(n=900, d=3, random_state=3)
    estimator = dpcvx.DPLogisticRegression(threshold=0.3, random_state=0).fit(X, (y > 0).astype(int))
    said = ("the decision threshold 0.3: a row is predicted as 1 when its score is above log(0.3 / 0.7) = -0.847 "
            "instead of 0 (the default threshold 0.5); it changes which class is predicted, not the privacy")
    loaded = dpcvx.load(dpcvx.save(estimator, tmp_path / "model.json"))
    for model in (estimator.model_, loaded):
        public, private = _lists(model.report().to_markdown(), "Public inputs")
        assert said in public and not [item for item in private if "threshold" in item]
    prior = dpcvx.DPLogisticRegression(threshold="prior", class_prior="private", random_state=0)
    prior.fit(X, (y > 0).astype(int))
    public, private = _lists(prior.model_.report().to_markdown(), "Public inputs")
    assert [item for item in private if item.startswith("the decision threshold")]  # the count's log-odds
    assert not [item for item in public if "threshold" in item]
