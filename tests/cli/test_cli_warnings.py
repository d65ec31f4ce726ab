"""Each warning once per ``dpcvx fit`` (issue 43): the warnings a command-line fit emits, counted with the filter
"always" (which repeats what the default filter would fold), in a multiclass, a binary and a regression fit,
read whole or by --chunk-rows."""

import warnings
from collections import Counter

import numpy as np
import pytest

from dpcvx.cli import main

ROWS = 2_000
FEATURES = ["--numeric", "a:0:10", "--numeric", "b:0:10", "--data-norm", "1", "--random-state", "0"]
REGRESSION = ["--target", "t", "--task", "regression", "--label-bound", "2", "--epsilon", "1"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Noise features; a class 'lo' of 90 % (a fit at a small lam predicts it everywhere), a target t = a / 2
    that exceeds the label bound 2 on a fifth of the rows."""
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0, 10, ROWS), rng.uniform(0, 10, ROWS)
    kind = rng.choice(["lo", "mid", "hi"], size=ROWS, p=[0.9, 0.05, 0.05])
    path = tmp_path_factory.mktemp("warnings") / "d.csv"
    path.write_text("a,b,t,k\n" + "\n".join(f"{a[i]:.3f},{b[i]:.3f},{a[i] / 2:.3f},{kind[i]}"
                                             for i in range(ROWS)) + "\n")
    return path


@pytest.mark.parametrize("options, expected", [
    # a constant release: the public check of its weights and the NOT PRIVATE check of its training rows, once each
    (["--target", "k", "--classes", "lo,mid,hi", "--epsilon", "50", "--lam", "1e-3"],
     {"ConstantPredictionWarning": 1, "TrainingRowsWarning": 1}),
    (["--target", "k", "--positive", "hi", "--negative", "lo", "--negative", "mid", "--epsilon", "0.05"],
     {"ConstantPredictionWarning": 1, "TrainingRowsWarning": 1}),
    ([*REGRESSION, "--delta", "1e-7"], {"ClippingWarning": 1}),
    ([*REGRESSION, "--loss", "huber_regression:m=1"], {"ClippingWarning": 1}),
    # rows read by blocks (the chunks' memmap) draw the private ranges as the rows in memory do: no label warning
    ([*REGRESSION, "--delta", "1e-7", "--chunk-rows", "1000"], {"ClippingWarning": 1}),
])
def test_each_warning_of_a_command_line_fit_is_shown_once(table, tmp_path, capsys, options, expected):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["fit", str(table), *FEATURES, *options, "--out", str(tmp_path / "m.json")]) == 0
    capsys.readouterr()
    assert Counter(warning.category.__name__ for warning in caught) == expected
