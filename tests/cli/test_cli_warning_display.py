"""How ``dpcvx fit`` shows a warning: one ``dpcvx: warning: CATEGORY: message`` line on stderr, like its errors'
``dpcvx: ...`` lines, not Python's ``FILE:LINE: CATEGORY: message`` with the source line that raised it (the
``dpcvx`` script's ``sys.exit(main())``). Python's filters still decide which warnings show, and a program that runs
``main`` gets its own warning format back."""

import sys
import warnings

import numpy as np
import pytest

from dpcvx.cli import main

ROWS = 600


@pytest.fixture(scope="module")
def rare_class(tmp_path_factory):
    """2 % positives on noise features: a binary fit at epsilon 0.05 predicts the majority class on every row."""
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0, 10, ROWS), rng.uniform(0, 10, ROWS)
    label = np.where(rng.random(ROWS) < 0.02, "yes", "no")
    path = tmp_path_factory.mktemp("display") / "d.csv"
    path.write_text("a,b,k\n" + "\n".join(f"{a[i]:.3f},{b[i]:.3f},{label[i]}" for i in range(ROWS)) + "\n")
    return path


def _displayed(message, category, filename, lineno, file=None, line=None):
    """Python's own display of a warning (its format, written to stderr), standing in for the default that
    pytest's recording of warnings replaces while a test runs."""
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _fit(table, out, epsilon="0.05"):
    return main(["fit", str(table), "--numeric", "a:0:10", "--numeric", "b:0:10", "--data-norm", "1",
                 "--target", "k", "--positive", "yes", "--epsilon", epsilon, "--random-state", "0", "--out", str(out)])


def test_a_fit_shows_each_warning_as_one_dpcvx_line(rare_class, tmp_path, capsys):
    before = warnings.formatwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _displayed
        assert _fit(rare_class, tmp_path / "m.json") == 0
    err = capsys.readouterr().err
    shown = [line for line in err.splitlines() if "Warning" in line]
    assert shown and all(line.startswith("dpcvx: warning: ") for line in shown), err
    assert any(line.startswith("dpcvx: warning: TrainingRowsWarning: DPLogisticRegression:") for line in shown), err
    assert "main(" not in err and ".py:" not in err  # neither a source line nor a FILE:LINE
    assert warnings.formatwarning is before  # the caller's format once main returns


def test_the_filters_still_decide(rare_class, tmp_path, capsys):
    with warnings.catch_warnings():
        # ignore: an ignore-all filter is this test's subject: the CLI's display must not show what it ignores
        warnings.simplefilter("ignore")
        warnings.showwarning = _displayed
        assert _fit(rare_class, tmp_path / "m.json") == 0
    assert "warning" not in capsys.readouterr().err
