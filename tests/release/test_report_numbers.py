"""The numbers a reader takes off a release (its statement, its report) are the ones its calibration used."""

import re
import warnings

import numpy as np
import pytest
from former_texts import as_version

import dpcvx


def _data(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X @ np.ones(d) + 0.3 * rng.normal(size=n) > 0, 1, -1)


def test_an_add_remove_output_release_states_the_sensitivity_it_uses(tmp_path):
    """Under add/remove the statement named the replace-one bound 2 L R / (n m Lam) + ..., twice the sensitivity its
    calibration used (0.4 against 0.2 at n 500, lam 0.01): an auditor recomputing sigma from it disagreed with the
    release. A file written with the old statement (format version 11 or older) loads, read as the corrected one."""
    import json

    from dpcvx.release.records.header import DIGEST, file_digest

    X, y = _data(500)
    model = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, y, 1.0, "output", delta=1e-6, neighbours="add-remove",
                                                          n_public=500, random_state=0)
    assert model.certificate.guarantee.endswith("covered by the sensitivity bound L R / (n m Lam) + 2 gamma / (n m "
                                                "Lam)")
    assert model.certificate.calibration.sensitivity == pytest.approx(2 / (500 * 0.01) / 2, rel=1e-6)
    replace = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, y, 1.0, "output", delta=1e-6, random_state=0)
    assert "bound 2 L R / (n m Lam)" in replace.certificate.guarantee
    path = dpcvx.save(model, tmp_path / "ar.json")
    data = json.loads(path.read_text())
    old = data["certificate"]["guarantee"].replace("bound L R / (n m Lam)", "bound 2 L R / (n m Lam)")
    data["certificate"]["guarantee"] = old
    data[DIGEST] = file_digest(data)
    path.write_text(json.dumps(as_version(data, 11)))
    assert dpcvx.load(path).certificate.guarantee == model.certificate.guarantee



def test_the_report_states_a_gaussian_part_has_a_curve_and_states_delta_under_group_privacy():
    """The auditor's table printed delta = 0 for a Gaussian curve part (it has a curve, no one delta), then blank
    cells a reader could not tell from missing values; and the group-privacy sentence said "about k times epsilon"
    only, where delta grows too (to 1 within a few records)."""
    X, y = _data(500)
    model = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, y, 1.0, "output", delta=1e-6, random_state=0)
    text = model.report().to_markdown()
    gaussian = [line for line in text.splitlines() if line.startswith("| gaussian")]
    assert gaussian and all(line.rstrip().endswith("| a curve (see its multiplier) | a curve (see its multiplier) |")
                            for line in gaussian)
    assert "delta grows" in text and "k = 2: epsilon = 2, delta = 3.72e-06" in text
    pure = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, y, 1.0, random_state=0).report().to_markdown()
    assert "delta grows" not in pure and "protected at k epsilon" in pure


def test_a_report_without_n_says_why_and_repeated_releases_add_delta_too():
    """Plain AdaSSP's calibration does not use n (the gradient-ranged default does: its search, its curvature cap and
    its level read it, and its report states it) and the report's comparison of delta with 1/n stopped at 'would have
    delta = 1/n.'; the repeated-releases line said k releases cost k epsilon, leaving out k delta."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.clip(X @ [1.0, -0.5, 0.2] + 0.1 * rng.normal(size=800), -1, 1)
    with pytest.warns(dpcvx.exceptions.DPCVXWarning):
        model = dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, data_norm=1.0, label_bound=1.0,
                                         column_statistics=False, random_state=0).fit(X, y).model_
    text = model.report().to_markdown()
    assert model.report().n is None
    assert "does not use the number of records, so it does not state it: compare delta with 1/n" in text
    assert "k releases at (epsilon, delta) cost up to (k epsilon, k delta)" in text


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
def test_a_release_s_repr_states_what_it_cost_in_total():
    """A composite fit's repr showed the fit's share only: class_prior='private' printed epsilon=0.95 where the
    accountant spent 1; DPHuberRegressor with its column statistics printed 0.5 of 1."""
    X, y = _data(800)
    binary = dpcvx.DPLogisticRegression(epsilon=1.0, class_prior="private", classes=(-1, 1),
                                        random_state=0).fit(X, y).model_
    assert binary.certificate.epsilon < 1.0 and "epsilon=1, " in repr(binary)
    target = X @ np.array([1.0, -0.5, 0.2])
    regression = dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(-2, 2), random_state=0).fit(X, target).model_
    assert regression.certificate.epsilon < 1.0 and "(epsilon=1, " in repr(regression)


def test_the_report_reads_as_words_for_its_reader():
    """A data protection officer's report printed Python: the classes as a list (['no', 'yes']), a flag as True, a
    Huber width to sixteen digits; a Huber release's declared label bound was left out of its public inputs (only the
    privately drawn B' was listed), and one-vs-rest named its mechanism "multiclass"."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (3000, 3))
    y = X @ [1.0, 2.0, 3.0] + rng.normal(size=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClassOrderWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        huber = dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=15, random_state=0).fit(X, y).model_
        labels = np.array(["no", "maybe", "yes"])[np.digitize(y, [-1, 1])]
        multi = dpcvx.DPLogisticRegression(classes=("no", "maybe", "yes"), epsilon=1.0, random_state=0).fit(X, labels)
    text = huber.report().to_markdown()
    assert "the declared bound B = 15 on the size of a label" in text
    loss = next(line for line in text.splitlines() if line.startswith("- the loss l(z) = huber("))
    assert re.fullmatch(r"- the loss l\(z\) = huber\(z, \d\.\d{1,5}\) / 2\.0", loss), loss
    text = multi.model_.report().to_markdown()
    # each class as classes_ names it, quoted (session 62: "the classes not 1, 1" read as a negation), not as a list
    assert "- the classes 'no', 'maybe', 'yes', declared" in text and "['no'" not in text.split("```text")[0]
    assert "(mechanism: objective perturbation, one fit per class against the rest)" in text
    assert "| True |" not in text and "| False |" not in text


@pytest.mark.parametrize("delta, mechanism", [(0.0, "objective"), (1e-6, "output")])
def test_one_vs_rest_s_curve_parts_name_their_classes_in_the_ledger_and_the_certificate(delta, mechanism):
    """The report's auditor table listed one-vs-rest's k parts alike ("the release's guarantee" three times); each
    now names its class, in the accountant's charge and in the certificate alike."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    labels = np.array(["no", "maybe", "yes"])[np.digitize(X[:, 0], [-0.15, 0.15])]
    accountant = dpcvx.PrivacyAccountant(10.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClassOrderWarning)
        model = dpcvx.DPLogisticRegression(classes=("no", "maybe", "yes"), epsilon=1.0, delta=delta,
                                           mechanism=mechanism, accountant=accountant, random_state=0).fit(X, labels)
    curve = model.model_.certificate.privacy_curve
    named = [part.what for part in curve.parts if "against the rest" in part.what]
    assert [what.split(":")[0] for what in named] == [f"class {label!r} against the rest"
                                                      for label in ("no", "maybe", "yes")]
    if accountant.ledger[0].curve is not None:
        assert accountant.ledger[0].curve == curve
    assert "class 'maybe' against the rest" in model.model_.report().to_markdown()


def test_the_report_states_the_labels_private_centre_it_names():
    """The report named "the labels' centre c" of DPLinearRegression's private label range without its value (only
    B' was shown), and without the public midpoint s of a declared range it is measured from."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (4000, 3))
    y = 300 + 40 * (X @ [1.0, 2.0, 3.0]) + 10 * rng.normal(size=4000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        model = dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=(0, 1000), random_state=0).fit(X, y)
    line = next(line for line in model.model_.report().to_markdown().splitlines() if "the labels' centre c = " in line)
    found = re.search(r"from the public centre s = 500, so ([\d.]+) in the labels' units", line)
    assert found and 250 < float(found.group(1)) < 350, line


def test_the_report_states_the_row_map_it_names():
    """The report said "the encoding of the columns (a ColumnStandardiser: each column centred and scaled)" without the
    released centres and multipliers, and said the same words of random Fourier features, which centre nothing."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 0.5, (4000, 3))
    y = (X[:, 0] > 0.25).astype(int)
    release = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y).model_
    mapped = dpcvx.PrivateERM(lam=0.01, feature_map=dpcvx.RandomFourierFeatures(
        "rbf", gamma=1.0, n_components=20, random_state=0)).fit(X, 2 * y - 1, 1.0, random_state=0)
    text = release.report().to_markdown()
    standardiser = release.rows.feature_map
    table = text[text.index("| encoded column | centre | multiplier |"):].splitlines()
    assert table[2 + 1] == f"| column 1 | {standardiser.centre[1]:.6g} | {standardiser.multiplier[1]:.6g} |"
    words = mapped.report().to_markdown()
    assert "20 random Fourier features of the rbf kernel at gamma = 1" in words and "centred and scaled" not in words
