"""The release report states each fact once, in one way (session 62, probeC F2 and F3).

F3: the classes line joined the classes with the number formatter, so (False, True) read "the classes no, yes" (not
the model's labels) and the command line's one-vs-rest pair ('not 1', '1') read "the classes not 1, 1", and it did not
say which class is the positive one. F2: a DPLinearRegression whose search drew the label's range alone said so in its
summary ("publicly mapped rows and a label mapped by its private range") while its list of private mechanisms said
"noisy ranges of each column and of the labels"."""

import html
import warnings

import numpy as np
import pytest

import dpcvx

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClassOrderWarning")


def _public_inputs(text: str) -> str:
    """The report's Public inputs section, its Markdown escapes undone."""
    return html.unescape(text.split("Public inputs", 1)[1].replace("\\", ""))


@pytest.mark.parametrize(("classes", "said"), [((False, True), "False and True"), (("no", "yes"), "'no' and 'yes'"),
                                               (("not 1", "1"), "'not 1' and '1'")])
def test_the_classes_are_named_as_classes_names_them_and_the_positive_one_is_said(classes, said):
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (400, 3))
    y = np.where(X[:, 0] > 0, classes[1], classes[0])
    model = dpcvx.DPLogisticRegression(classes=classes, random_state=0).fit(X, y).model_
    public = _public_inputs(model.report().to_markdown())
    assert (f"the classes {said} (the positive class: decision_function > 0, predict_proba's second column), "
            "declared (never read off the data)") in public
    assert "the classes no, yes" not in public and "the classes not 1, 1" not in public


@pytest.mark.parametrize("n", [600, 2000])
def test_the_private_mechanisms_say_which_ranges_were_drawn_as_the_summary_does(n):
    X = np.random.default_rng(0).uniform(0, 1, (n, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        model = dpcvx.DPLinearRegression(random_state=0, label_bound=(0, 10)).fit(X, 5 + X[:, 0]).model_
    text = model.report().to_markdown()
    alone = model.certificate.calibration.range_columns == 1
    assert alone is (n == 600)  # the label's range alone just above its threshold; every column's at n = 2000
    assert ("publicly mapped rows and a label mapped by its private range" in text) is alone
    assert ("a noisy range of the labels alone, which centres and bounds them" in text) is alone
    assert ("noisy ranges of each column and of the labels" in text) is not alone
