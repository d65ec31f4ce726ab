"""The release report (dpcvx.release.report): its content for every release kind, with and without
matplotlib, the privacy curve it draws, the Markdown and HTML forms and the `dpcvx report` command."""

import math
import re
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy

import dpcvx
from dpcvx.cli import main
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.privacy.gaussian import gaussian_delta
from dpcvx.privacy.privacy_curve import CurvePart, PrivacyCurve
from dpcvx.release import report as report_module
from dpcvx.release.constants import EXACT_SHOWN
from dpcvx.release.records.release_certificate import _condition_value as saved_condition_value
from dpcvx.release.report import ReleaseReport
from dpcvx.verification.certificate import Certificate
from dpcvx.verification.condition import Condition

SECTIONS = ("summary", "protected", "strength", "public-inputs", "not-covered", "privacy-curve", "auditor")


@pytest.fixture(scope="module")
def data():
    return synthetic_classification(n=600, d=3, random_state=3)


@pytest.fixture(scope="module")
def releases(data):
    X, y = data
    erm = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)
    labels = np.where(X[:, 0] > 0.2, 2.0, y)
    return {
        "pure": erm.fit(X, y, epsilon=0.8, random_state=0),
        "gaussian-output": erm.fit(X, y, epsilon=0.8, delta=1e-6, mechanism="output", random_state=0),
        "gaussian-objective": erm.fit(X, y, epsilon=0.8, delta=1e-6, random_state=0),
        "add-remove": erm.fit(X, y, epsilon=0.8, delta=1e-6, neighbours="add-remove", n_public=600,
                              random_state=0),
        "regression": dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=1.0).fit(
            X, X @ np.ones(3) / 3, 0.8, 1e-6, random_state=0),
        "multiclass": PrivateMulticlassERM(erm, (-1.0, 1.0, 2.0)).fit(X, labels, 0.8, random_state=0),
        "kernel": dpcvx.TDDL("rbf", gamma=2.0, lam=0.1).fit(X[:200], y[:200], 0.8, Z=X[200:230], random_state=0),
    }


@pytest.fixture(scope="module")
def reports(releases):
    """Each release's report, rendered once (a report draws its curve with matplotlib: about 0.5 s)."""
    return {name: model.report() for name, model in releases.items() if name != "gaussian-objective"}


@pytest.mark.parametrize("name", ["pure", "gaussian-output", "add-remove", "regression", "multiclass", "kernel"])
def test_every_kind_reports_its_budget_relation_curve_and_what_is_not_covered(releases, reports, name):
    model = releases[name]
    report = reports[name]
    page = report.to_html()
    for anchor in SECTIONS:
        assert f'<section id="{anchor}">' in page
    assert f"epsilon = {model.epsilon:.6g}" in page and f"delta = {model.delta:.3g}" in page
    relation = "add-remove" if name == "add-remove" else "replace-one"
    assert report.neighbours.value == relation and f"Neighbour relation: {relation}." in page
    assert '<figure id="privacy-curve-plot"><svg' in page  # matplotlib is installed with the test extra
    assert "Repeated releases" in page and "Computer arithmetic" in page
    markdown = report.to_markdown()
    assert "## What is NOT covered" in markdown and "data:image/svg+xml;base64," not in markdown
    assert "data:image/svg+xml;base64," in report.to_markdown(embed_plot=True)
    with pytest.raises(InputError, match="embed_plot"):  # "no" embedded it (a third probe)
        report.to_markdown(embed_plot="no")
    assert report._repr_html_().count("<section") == len(SECTIONS)


def test_the_odds_table_is_the_prior_odds_times_e_to_the_epsilon(reports):
    page = reports["pure"].to_html()
    for prior in (0.01, 0.1, 0.5):  # posterior odds = prior odds * e^0.8
        odds = prior / (1 - prior) * math.exp(0.8)
        assert f"<td>{prior:.0%}</td><td>{odds / (1 + odds):.1%}</td>" in page
    assert "e^epsilon = 2.226" in page
    assert "delta = 0: the bound above holds with no exception" in page


def test_delta_is_compared_with_one_over_n(reports, data):
    assert "this delta is 1,667 times smaller (small against 1/n" in reports["gaussian-output"].to_html()
    X, y = data
    loose = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, allow_large_delta=True).fit(  # accepted knowingly
        X, y, epsilon=0.8, delta=0.01, mechanism="output", random_state=0)
    assert "WARNING: delta is not small against 1/n" in loose.report().to_html()


def test_without_matplotlib_the_report_says_so_and_keeps_the_curve_as_a_table(releases, monkeypatch):
    for name in [name for name in sys.modules if name == "matplotlib" or name.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    report = releases["gaussian-output"].report()
    page = report.to_html()
    assert report.figure is None and "<svg" not in page
    assert 'id="no-plot"' in page and "pip install &quot;dpcvx[plot]&quot;" in page
    assert "<th>epsilon</th><th>delta</th>" in page
    assert "No plot: drawing the privacy curve needs matplotlib" in report.to_markdown()


@pytest.mark.parametrize("name", ["gaussian-output", "gaussian-objective", "add-remove", "pure"])
def test_the_drawn_curve_holds_the_certified_point(releases, name):
    model = releases[name]
    curve = model.certificate.privacy_curve
    at_epsilon = curve.profile(np.array([model.epsilon]))[0]
    assert at_epsilon <= model.delta * (1 + 1e-9)
    if name == "gaussian-output":  # one Gaussian part: the analytic curve, tight at the certified point
        assert at_epsilon == pytest.approx(model.delta, rel=1e-6)


def test_profile_composes_gaussians_exactly_and_other_parts_at_every_split():
    two = PrivacyCurve((CurvePart.gaussian(3.0, 1.0, "a"), CurvePart.gaussian(4.0, 1.0, "b")))
    epsilons = np.array([0.5, 1.0, 2.0])
    merged = 1 / math.sqrt(3.0**-2 + 4.0**-2)  # 2.4: two Gaussians compose into one
    assert two.profile(epsilons) == pytest.approx([gaussian_delta(merged, 1.0, e) for e in epsilons], rel=1e-12)
    mixed = PrivacyCurve((CurvePart("epsilon-delta", "a", epsilon=0.3, delta=1e-7),
                          CurvePart("epsilon-delta", "b", epsilon=0.2), CurvePart.gaussian(5.0, 1.0, "c")))
    # below the parts' epsilon 0.5 the profile was 1 (no guarantee); every split of epsilon = a + b is a bound
    at = mixed.profile(np.array([0.0, 0.49, 1.5]))
    for epsilon, delta in zip([0.0, 0.49, 1.5], at, strict=True):
        splits = np.linspace(0.0, min(epsilon, 0.5), 2001)
        best = min(_four_point(0.5, 1e-7, a) + gaussian_delta(5.0, 1.0, epsilon - a) for a in splits)
        assert best <= delta <= best * (1 + 1e-2) + 1e-15
    assert at[0] < 1 and at[2] <= (1e-7 + gaussian_delta(5.0, 1.0, 1.0)) * (1 + 1e-9)  # never above a = 0.5


def _four_point(epsilon, delta, at):
    """The hockey-stick divergence at ``at`` of Kairouz, Oh and Viswanath's four-point pair for (epsilon, delta),
    computed from its atoms: P = (delta, (1 - delta) e^e / (1 + e^e), (1 - delta) / (1 + e^e), 0), Q reversed."""
    p = np.array([delta, (1 - delta) * math.exp(epsilon) / (1 + math.exp(epsilon)),
                  (1 - delta) / (1 + math.exp(epsilon)), 0.0])
    return float(np.maximum(p - math.exp(at) * p[::-1], 0.0).sum())


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_a_pure_curve_below_its_epsilon_is_randomized_response_s(epsilon):
    """A pure release's report showed delta = 1 (no guarantee) at every epsilon below its own (a helper's report at
    epsilon 1: '1 (no guarantee)' at 0.25 and 0.5). An epsilon-DP mechanism is (e, (e^epsilon - e^e) / (1 +
    e^epsilon))-DP for e < epsilon: randomized response's profile, which dominates every epsilon-DP pair."""
    curve = PrivacyCurve((CurvePart("epsilon-delta", "pure", epsilon=epsilon),))
    epsilons = np.array([0.0, 0.25, 0.5, 0.9, 1.0, 2.0]) * epsilon
    expected = [(math.exp(epsilon) - math.exp(e)) / (1 + math.exp(epsilon)) if e < epsilon else 0.0 for e in epsilons]
    assert curve.profile(epsilons) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert curve.profile(epsilons) == pytest.approx([_four_point(epsilon, 0.0, e) for e in epsilons], rel=1e-9)


def test_a_loaded_model_shows_the_same_report_in_jupyter(releases, reports, tmp_path):
    path = dpcvx.save(releases["gaussian-output"], tmp_path / "model.json")
    assert dpcvx.load(path)._repr_html_() == reports["gaussian-output"]._repr_html_()  # the model's own repr


@pytest.mark.slow
def test_the_report_command_writes_markdown_or_html(releases, tmp_path, capsys):
    path = dpcvx.save(releases["pure"], tmp_path / "model.json")
    assert main(["report", str(path)]) == 0
    assert capsys.readouterr().out.startswith("# Privacy report")
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--out", str(out)]) == 0
    assert "report written to" in capsys.readouterr().out
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and '<section id="not-covered">' in text
    assert main(["report", str(path), "--out", str(tmp_path / "r.txt"), "--format", "html"]) == 0
    assert (tmp_path / "r.txt").read_text().startswith("<!DOCTYPE html>")
    assert main(["report", str(tmp_path / "missing.json")]) == 3
    assert "does not exist" in capsys.readouterr().err


def test_the_text_report_leaves_the_plot_out_says_where_it_is_and_keeps_the_table(releases, reports, tmp_path,
                                                                                   capsys):
    """print(report), a .md or .txt file: no line of base64 (the plot's data URI is some 24,000 characters), a note
    naming the HTML report and the option that embeds it, the curve's (epsilon, delta) table; the HTML page and a
    Markdown file asked for it hold the plot."""
    report = reports["pure"]
    for text in (str(report), report.render("markdown"),
                 report.write(tmp_path / "r.md").read_text(), report.write(tmp_path / "r.txt").read_text()):
        assert max(len(line) for line in text.splitlines()) < 1000 and "base64" not in text
        assert "The plot of this curve is in the HTML report" in text and "`embed_plot=True`" in text
        assert "| epsilon | delta |" in text
    embedded = report.write(tmp_path / "plot.md", embed_plot=True).read_text()
    assert "![the privacy curve](data:image/svg+xml;base64," in embedded and "| epsilon | delta |" in embedded
    assert "The plot of this curve is in the HTML report" not in embedded
    assert '<figure id="privacy-curve-plot"><svg' in report.write(tmp_path / "r.html").read_text()
    path = dpcvx.save(releases["pure"], tmp_path / "model.json")
    assert main(["report", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "base64" not in printed and "| epsilon | delta |" in printed
    assert main(["report", str(path), "--out", str(tmp_path / "cli.md")]) == 0
    assert "base64" not in (tmp_path / "cli.md").read_text()
    assert main(["report", str(path), "--out", str(tmp_path / "cli_plot.md"), "--embed-plot"]) == 0
    assert "data:image/svg+xml;base64," in (tmp_path / "cli_plot.md").read_text()


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_the_summary_and_public_inputs_name_the_mechanism_in_the_certificate_s_plain_words(releases, reports, data):
    """A DPO read "(mechanism: gradient-ranged)", "(mechanism: TDDL)" and "the loss maximum(1.0 + -z, 0.0)": the
    code name now comes with the certificate's own description (one text: the certificate's first line says it
    too), and the kernel learners' default hinge loss by its name."""
    X, _ = data
    ranged = dpcvx.DPLinearRegression(mechanism="gradient", random_state=0).fit(X, X @ np.ones(3) / 3).model_
    kernel = releases["kernel"]
    for model, name in ((ranged, "gradient-ranged"), (kernel, "TDDL")):
        words = model.certificate.description
        assert name not in words and len(words) > 40
        text = (reports["kernel"] if model is kernel else model.report()).to_markdown()
        summary = text[text.index("## Summary"):text.index("## What was protected")]
        inputs = text[text.index("## Public inputs"):text.index("## What is NOT covered")]
        assert f"(mechanism: {name}, {words})" in summary
        assert f"- the mechanism ({name}, {words})" in inputs
    assert "least squares by noisy gradient descent" in ranged.certificate.description
    assert str(ranged.certificate).startswith(f"dpcvx release: {ranged.certificate.description} (mechanism "
                                              "gradient-ranged)")
    assert "test-data-dependent learning" in kernel.certificate.description
    assert "- the hinge loss l(z) = maximum(1.0 + -z, 0.0) and the rbf kernel" in reports["kernel"].to_markdown()
    assert "(mechanism: objective perturbation)" in reports["pure"].to_markdown()  # the words hold the name


def test_the_report_refuses_what_is_not_a_release_and_an_unknown_format(reports):
    with pytest.raises(dpcvx.InputError, match="needs a dpcvx release"):
        ReleaseReport(object())
    with pytest.raises(dpcvx.InputError, match="format must be one of"):
        reports["pure"].render("pdf")


def test_the_html_escapes_what_it_quotes(reports):
    page = reports["pure"].to_html()
    body = re.sub(r"<svg.*?</svg>", "", page, flags=re.S)
    assert "||grad F|| &lt;= gamma" in body or "&lt;=" in body
    assert "<=" not in re.sub(r"<[^>]*>", "", body)


@pytest.mark.parametrize("value", [sympy.oo, math.inf, sympy.sqrt(2), Fraction(1, 4), Fraction(3, 2**60), 0.3, 7,
                                   "yes", None, True])
def test_a_condition_value_shows_as_the_file_writes_it_fitted_and_loaded(value):
    """The auditor's table reads the typed conditions: a fitted value (exact or a double) and the value a loaded
    certificate holds (the same typed value) both show as the model file writes the value."""
    record = Certificate("z", "0", 2, (Condition("c", "a condition", True, value, "symbolic"),)).to_dict()
    written = record["conditions"][0]["value"]
    shown = written["exact"] if isinstance(written, dict) else report_module._number(written)
    if isinstance(written, dict) and len(shown) > EXACT_SHOWN:  # a double's exact fraction, readable
        shown = f"{float(value):.6g} (exactly {shown})"
    loaded = saved_condition_value("the condition", written, "c")
    assert report_module._written(value) == report_module._written(loaded) == shown


def test_the_auditor_s_conditions_have_the_certificate_s_status_words():
    """A condition the granting theorem does not need (a Huber loss's slope sign, which changes sign) read FAIL in
    the report's table where the certificate says "not required"; a privately drawn Huber width's L read as a
    53-bit fraction only."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (2000, 3))
    y = X @ np.array([20.0, -10.0, 5.0]) + 50 + rng.normal(0, 2, 2000)
    model = dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(0, 100), random_state=0).fit(X, y).model_
    text = model.report().to_markdown()
    certificate = model.certificate.verification
    assert "slope_sign" in str(certificate) and "FAIL" not in str(certificate)
    row = re.search(r"\| slope\\?_sign \|[^\n]*", text)
    assert row is not None and "not required" in row.group(0) and "FAIL" not in text, row
    assert re.search(r"\| L \| \d+\.\d+ \(exactly \d+/\d+\) \|", text) or re.search(r"\| L \| [\d.]+ \|", text), \
        re.search(r"\| L \|[^\n]*", text)


@pytest.mark.parametrize("path", [3, None, b"report.html", "report\x00.html"], ids=["int", "None", "bytes", "NUL"])
def test_a_report_path_that_is_no_path_is_a_typed_error(reports, path, tmp_path, monkeypatch):
    """pathlib's bare TypeError before (or ValueError for a NUL): the one path check of the package's files."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(dpcvx.InputError, match="report path"):
        reports["pure"].write(path)
    assert list(tmp_path.iterdir()) == []


def test_the_summary_states_a_constant_classifier():
    """The certificate's public finding (the release predicts one class on every row it can score) was stated under
    "For an auditor" only: the summary, where a reader decides whether to use the model, did not say it."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 4)) / 2
    model = dpcvx.DPLogisticRegression(epsilon=5.0, random_state=0).fit(X, np.zeros(3000, dtype=int)).model_
    (finding,) = model.certificate.findings
    summary = ReleaseReport(model).sections[0]
    assert summary.anchor == "summary"
    assert any(block.content == f"Not useful: {finding}." for block in summary.blocks)
    assert "Not useful: constant classifier" in ReleaseReport(model).to_markdown().split("## ")[1]


@pytest.mark.parametrize("mechanism", ["auto", "adassp"])
def test_a_regression_whose_search_read_n_states_it_against_delta(mechanism):
    """DPLinearRegression's default (the descent after a private range search) and its ranged AdaSSP read n (the
    search's level, the curvature cap, the level's shift), and the certificate states it; the report said the
    calibration "does not use the number of records" and so skipped its warning at delta = 3 / n."""

    from dpcvx.release.report import ReleaseReport

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (3000, 3)) / np.sqrt(3)
    y = X @ np.array([1.0, 2.0, -1.0]) + rng.normal(0, 0.3, 3000)
    model = dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-3, allow_large_delta=True, label_bound=5.0,
                                     mechanism=mechanism, random_state=0).fit(X, y).model_
    text = ReleaseReport(model).to_markdown()
    assert "Here n = 3000 records" in text and "WARNING: delta is not small against 1/n" in text
    assert "does not use the number of records" not in text


def test_a_field_the_release_does_not_use_reads_not_used():
    """TDIL under a net search has no ball dimension: its report's tables printed Python's "None" for it; a value
    the report shows as None now reads "not used" (the certificate's own calibration line is quoted as recorded)."""

    from dpcvx.release.report import ReleaseReport

    X = np.random.default_rng(2).uniform(-1, 1, (200, 2)) / np.sqrt(2)
    y = np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ExponentialCostWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        model = dpcvx.TDIL("rbf", gamma=4.0, net_spacing=0.3, lam=0.1, input_bound=1.0,
                           loss="huber_hinge:h=0.5").fit(X, y, 200.0, 1e-6, random_state=3)
    text = ReleaseReport(model).to_markdown()
    rows = [line for line in text.splitlines() if line.startswith("|")]  # the report's tables
    assert rows and not any("| None" in row for row in rows)


def test_delta_is_told_as_a_slack_not_as_the_chance_the_bound_fails(reports):
    """The report said the odds bound "may fail, with probability at most about delta". For a Gaussian release the
    privacy loss exceeds epsilon with probability Phi((mu - epsilon) / sqrt(2 mu)), mu = 1 / (2 z^2), well above
    delta: delta is the slack of P[after] <= e^epsilon P[before] + delta."""
    from scipy.stats import norm

    release = reports["gaussian-output"]
    (part,) = [part for part in release.curve.parts if part.kind == "gaussian"]
    mu = 1 / (2 * part.noise_multiplier ** 2)
    assert norm.sf((release.epsilon - mu) / math.sqrt(2 * mu)) > 5 * release.delta  # the old sentence was wrong
    page = release.to_markdown()
    assert "may fail, with probability" not in page
    assert f"plus {release.delta:.3g}. delta is not the chance that the bound fails" in page


def test_the_curve_names_a_part_known_by_one_pair_only_where_the_release_has_one(reports):
    """The curve section said of every release that a part known only by its (epsilon, delta) pair (the objective
    share of Gaussian objective perturbation) holds the curve at its delta: pure and output releases have none."""
    for name, report in reports.items():
        paired = [part for part in report.curve.parts if part.kind != "gaussian" and part.delta > 0]
        said = "known only by its one (epsilon, delta) pair, delta above 0" in report.to_markdown()
        assert said == bool(paired), name


def test_the_regularizer_s_dimension_counts_the_intercept_s_feature_in_words(data):
    """A 3-column fit with an intercept said "at d = 4 features": d counts the intercept's feature."""
    X, y = data
    model = dpcvx.DPLogisticRegression(epsilon=1.0, classes=(-1, 1), column_statistics=False,
                                       random_state=0).fit(X, y)
    assert "at d = 4 (3 features and the intercept's)" in model.model_.report().to_markdown()
    plain = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, 1.0, random_state=0)
    assert "at d = 3 features" in plain.report().to_markdown()


def test_the_auditor_s_calibration_table_says_what_each_common_field_means(reports):
    """The auditor's table listed tol, gradient_tolerance, release_grid, sensitivity, sigma with no meaning."""
    from dpcvx.release.report import CALIBRATION_WORDS

    for name in ("pure", "gaussian-output", "add-remove"):
        page = reports[name].to_markdown()
        fields = reports[name].first.calibration.to_dict()
        assert "| calibration | value | meaning |" in page
        for key in ("tol", "gradient_tolerance", "release_grid", "lam", "R"):
            assert key in fields and CALIBRATION_WORDS[key] in page.replace("\\\\", "")
    assert "the standard deviation of each Gaussian noise coordinate" in reports["gaussian-output"].to_markdown()


def test_the_certificate_text_shows_each_constant_in_one_format():
    """The certificate printed R = 1.1696387785961122 among its constants and effective R = 1.16964 on the next line
    (and lam at 16 digits beside the lam rule's 0.00562341): a reader comparing them saw two values. Every constant is
    shown once, as the report shows it (dpcvx.release.constants.written); the model file keeps every digit."""
    X, y = synthetic_classification(n=800, d=3, random_state=0)
    estimator = dpcvx.DPLogisticRegression(random_state=0).fit(X, (y > 0).astype(int))
    text = str(estimator.certificate_)
    constants = dict(item.split(" = ") for item in re.search(r"^constants: (.*)$", text, re.M).group(1).split(", "))
    effective = re.search(r"effective R = ([^ ]+) ", text).group(1)
    rule = re.search(r"^lam = ([^ ]+) chosen by the public rule", text, re.M).group(1)
    assert constants["R"] == effective == f"{estimator.certificate_.effective_norm_bound:.6g}"
    assert constants["lam"] == rule
    assert (constants["L"], constants["c"]) == ("1", "1/4")  # exact texts stay exact
