"""One-vs-rest's NOT PRIVATE note advises class_prior='private' with threshold='prior' only at a public
n x epsilon / k where it was measured to help (training_rows.PRIOR_ADVICE_FLOOR).

An analyst probe (session 67, P3 finding 1) followed the advice of a default 12-class DPLogisticRegression (shares
30 % down to 0.5 %, n 15,000, epsilon 0.3: n x epsilon / k = 375): accuracy 0.18 against a constant prediction's
0.32, balanced accuracy 0.13 against the default's 0.20. benchmarks/multiclass_prior.py's many-class families
(their rule committed before their runs) chose the floor 2,000; below it the note says the prior is not advised,
with the counts measured there.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from training_notes import told

import dpcvx
from dpcvx.advice import on_command_line
from dpcvx.cli import main
from dpcvx.models import training_rows as rows
from dpcvx.models.training_rows import NO_BETTER, WEIGHED_ONE_VS_REST, warning_text
from dpcvx.release.usefulness import called

# the rule's names are read from the module inside each test, so that this file runs on a commit without them

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
#: what the note says where it advises the prior, and where it does not
ADVICE = "draws, in each class's fit against the rest, a private count"
GAIN = "raised balanced accuracy"
NOT_ADVISED = "is not advised"


def _floors() -> tuple[float, float]:
    """A scale just below the floor and the floor itself."""
    return rows.PRIOR_ADVICE_FLOOR - 1.0, float(rows.PRIOR_ADVICE_FLOOR)


def _cells(name: str) -> list[tuple[float, float, float, float, float, float, float]]:
    """(s, default bal. acc., default acc., prior bal. acc., prior acc., constant acc., prior minus default in
    bal. acc. as printed, from the unrounded means) of a results file's table."""
    cells = []
    for line in (RESULTS / name).read_text().splitlines():
        parts = [part.strip() for part in line.strip("|").split("|")]
        if len(parts) == 9 and parts[0].startswith("k="):
            default, prior = (tuple(float(v) for v in part.split(" / ")) for part in (parts[5], parts[6]))
            cells.append((float(parts[2].replace(",", "")), default[0], default[1], prior[0], prior[1],
                          float(parts[3]), float(parts[7])))
    return cells


def _table(k: int, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The development family's geometric shares (30 % down to 0.5 %) about Gaussian centres, rows in the unit
    ball (benchmarks/multiclass_prior.py)."""
    rng = np.random.default_rng(seed)
    shares = np.geomspace(0.30, 0.005, k)
    y = rng.choice(k, size=n, p=shares / shares.sum())
    X = np.clip(rng.normal(size=(k, 8))[y] + rng.normal(size=(n, 8)), -5, 5) / (5 * np.sqrt(8))
    return X, y


def test_the_floor_is_the_one_the_written_rule_chose_and_the_held_out_run_passed():
    from benchmarks.multiclass_prior import floor
    development, held = _cells("multiclass_prior_many.md"), _cells("multiclass_prior_many_held.md")
    assert len(development) == 36 and len(held) == 16
    # the rule's own implementation, on the recorded cells
    assert floor([c[:6] for c in development]) == rows.PRIOR_ADVICE_FLOOR
    chosen = (RESULTS / "multiclass_prior_many.md").read_text()
    checked = (RESULTS / "multiclass_prior_many_held.md").read_text()
    assert f"Floor chosen by the rule: F = {rows.PRIOR_ADVICE_FLOOR:,}" in chosen
    assert f"Frozen floor F = {rows.PRIOR_ADVICE_FLOOR:,}: " in checked and "check PASSED" in checked


def test_the_counts_the_note_quotes_are_those_of_the_results_files():
    cells = _cells("multiclass_prior_many.md") + _cells("multiclass_prior_many_held.md")
    above = [c for c in cells if c[0] >= rows.PRIOR_ADVICE_FLOOR]
    below = [c for c in cells if c[0] < rows.PRIOR_ADVICE_FLOOR]
    gains = [c[6] for c in above]
    cells_above, better, low, high = rows.PRIOR_ABOVE
    assert (cells_above, better) == (len(above), sum(g >= 0 for g in gains))
    assert (low, high) == (pytest.approx(min(gains), abs=1e-9), pytest.approx(max(gains), abs=1e-9))
    assert all(c[4] >= c[5] for c in above)  # "its accuracy above a constant prediction's in each"
    cells_below, worse, under, worst = rows.PRIOR_BELOW
    assert (cells_below, worse) == (len(below), sum(c[6] < -0.02 for c in below))
    # below a constant's accuracy: the files' own counts, from the unrounded means (one cell ties when rounded)
    development = re.search(rf"F = {rows.PRIOR_ADVICE_FLOOR:,}: .* in (\d+) of (\d+), accuracy below the constant's in "
                            r"(\d+)", (RESULTS / "multiclass_prior_many.md").read_text())
    held = re.search(r"below F \((\d+) cells\): .* in (\d+), accuracy below the constant's in (\d+)",
                     (RESULTS / "multiclass_prior_many_held.md").read_text())
    assert development is not None and held is not None
    assert under == int(development[3]) + int(held[3])
    assert worse == int(development[1]) + int(held[2]) and cells_below == int(development[2]) + int(held[1])
    assert worst == pytest.approx(min(c[6] for c in below), abs=1e-9)


@pytest.mark.parametrize("reader", ["estimator", "command line", "learner"])
def test_the_note_advises_the_prior_at_no_scale(reader):
    """At or above the floor the synthetic families' gain stood alone until the real family (UCI Adult, session 71,
    P8 finding 3) measured no gain: the note says both and advises the prior nowhere."""
    BELOW, AT = _floors()
    def text(scale: float | None) -> str:
        if reader == "estimator":
            with called("DPLogisticRegression"):
                return warning_text(NO_BETTER, rows.ONE_VS_REST, scale=scale)
        if reader == "command line":
            with on_command_line():
                return warning_text(NO_BETTER, rows.ONE_VS_REST, scale=scale)
        return warning_text(NO_BETTER, rows.ONE_VS_REST, scale=scale)

    for scale in (None, 0.0, 375.0, BELOW):
        below = text(scale)
        assert NOT_ADVISED in below and ADVICE not in below and GAIN not in below and "did better" not in below
        assert f"in {rows.PRIOR_BELOW[1]} of the {rows.PRIOR_BELOW[0]} cells" in below
        assert f"fell below a constant prediction's in {rows.PRIOR_BELOW[2]}" in below
        assert (scale is None) == ("At this fit's" not in below)
    for scale in (AT, 10 * AT):
        above = text(scale)
        assert ADVICE not in above and "was measured both ways" in above and "it is not advised" in above
        assert f"in {rows.PRIOR_ABOVE[1]} of {rows.PRIOR_ABOVE[0]} cells" in above  # the synthetic gain
        assert f"helped in {rows.PRIOR_REAL[True][1]} of {rows.PRIOR_REAL[True][0]} cells" in above  # and the real
        assert "as here" not in above
    spelt = {"estimator": "class_prior='private' with threshold='prior'",
             "command line": "--class-prior private with --threshold prior",
             "learner": "a binary learner's class_prior='private'"}[reader]
    assert spelt in text(BELOW) and "class_prior='private', threshold='prior'" not in text(BELOW).replace(
        "(DPLogisticRegression's threshold='prior')", "")


def test_a_fit_without_a_class_prior_and_a_fit_with_it_are_told_by_the_same_rule():
    BELOW, AT = _floors()
    with called("DPHuberSVM"):
        other_below, other_at = (warning_text(NO_BETTER, rows.ONE_VS_REST_OTHER, scale=s) for s in (BELOW, AT))
    assert NOT_ADVISED in other_below and ADVICE not in other_below
    assert ADVICE not in other_at and "was measured both ways" in other_at
    with called("DPLogisticRegression"):
        weighed_below, weighed_at = (warning_text(NO_BETTER, WEIGHED_ONE_VS_REST, scale=s) for s in (BELOW, AT))
    assert "the class prior with its cuts, in use here, is not advised" in weighed_below
    assert "the class prior with its cuts, in use here, was measured both ways" in weighed_at


def test_the_rule_reads_public_quantities_only():
    BELOW, AT = _floors()
    assert rows.one_vs_rest_scale(15_000, 0.3, 12) == pytest.approx(375.0)
    assert not rows.prior_advised(None) and not rows.prior_advised(BELOW) and not rows.prior_advised(AT)
    assert rows.prior_opposed(None) and rows.prior_opposed(BELOW) and not rows.prior_opposed(AT)


def _fit_texts(k: int, n: int, epsilon: float, **settings) -> list[str]:
    X, y = _table(k, n)
    model = dpcvx.DPLogisticRegression(classes=tuple(range(k)), epsilon=epsilon, random_state=0, **settings)
    return told(model.fit, X, y)


def test_the_scale_says_what_n_is_under_add_remove():
    """Analyst probe P7 (session 68, finding 5): the note said "training rows times epsilon", while under
    add/remove neighbours its n is n_public (the certificate's public n), the number of rows being private."""
    for text in (rows.prior_not_advised(375.0), rows.prior_not_advised(None), rows.prior_measured()):
        assert "n the training rows, or n_public under add/remove neighbours, times epsilon over the k classes" in text
        assert "training rows times epsilon" not in text
    refusal = dpcvx.DPLogisticRegression(classes=(0, 1, 2))._one_vs_rest_weights()
    assert "n_public under add/remove neighbours" in refusal


def test_the_probe_s_default_fit_is_not_advised_the_prior():
    """The probe's scale: 12 classes, n 15,000, epsilon 0.3 (375)."""
    (text,) = _fit_texts(12, 15_000, 0.3)
    assert f"At this fit's {rows.SCALE_WORDS} of 375" in text
    assert NOT_ADVISED in text and ADVICE not in text and GAIN not in text
    (followed,) = _fit_texts(12, 15_000, 0.3, class_prior="private", threshold="prior")
    assert "the class prior with its cuts, in use here, is not advised" in followed


def test_a_default_fit_above_the_floor_is_told_both_ways():
    (text,) = _fit_texts(12, 20_000, 3.0)  # 5,000
    assert ADVICE not in text and "was measured both ways" in text
    assert f"in {rows.PRIOR_ABOVE[1]} of {rows.PRIOR_ABOVE[0]}" in text and "results/multiclass_prior_real.md" in text


def test_the_learner_called_directly_is_told_by_the_rule():
    X, y = _table(12, 6_000)
    learner = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1e-3, data_norm=1.0),
                                         classes=tuple(range(12)))
    (text,) = told(lambda: learner.fit(X, y, 1.0, random_state=0))  # n x epsilon / k = 500
    assert "of 500, below" in text and NOT_ADVISED in text and ADVICE not in text


def test_the_command_line_is_told_by_the_rule(tmp_path):
    X, y = _table(12, 6_000)
    table = tmp_path / "many.csv"
    rows = "".join(f"{r[0]:.4f},{r[1]:.4f},{r[2]:.4f},{c}\n" for r, c in zip(X, y, strict=True))
    table.write_text("a,b,c,y\n" + rows)
    texts = told(lambda: main(["fit", str(table), "--target", "y", "--classes", ",".join(map(str, range(12))),
                               "--numeric", "a:-0.2:0.2", "--numeric", "b:-0.2:0.2", "--numeric", "c:-0.2:0.2",
                               "--data-norm", "1", "--epsilon", "0.5", "--random-state", "0",
                               "--out", str(tmp_path / "m.json")]))
    (text,) = [text for text in texts if "NOT PRIVATE" in text]
    assert re.search(r"of 250, below 2,000, --class-prior private with --threshold prior is not advised", text), text
    assert ADVICE not in text
