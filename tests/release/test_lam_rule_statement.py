"""The certificate's lam line says what the rule read: "no privacy spent" only when every input of the public rule is
public. A private class count (class_weight="balanced") sets the mean weight the rule reads, so lam is post-processing
of that draw, and the certificate says so (an audit: it said "no privacy spent" while lam moved with the count of a
neighbouring data set). The release report lists lam among the values chosen privately in both cases it applies."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx

PUBLIC = "(no privacy spent)"
DRAWN = "(post-processing of the private draws above: no further privacy spent)"


def _rows(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(600, 4)) / 8  # rows inside R = 1
    return X, (X[:, 0] + 0.04 * rng.normal(size=600) > 0.05).astype(int)


def _lam_line(model: object) -> str:
    return next(line for line in str(model.certificate_).splitlines() if line.startswith("lam = "))


@pytest.mark.parametrize(("options", "said"), [
    ({}, PUBLIC),  # column ranges are drawn, but the rule reads none of them
    ({"column_statistics": False}, PUBLIC),
    ({"class_weight": {0: 1.0, 1: 2.0}}, PUBLIC),  # public weights
    ({"class_weight": "balanced"}, DRAWN),  # the private class count's mean weight
    ({"data_norm": "private", "norm_range": (0.25, 4.0)}, DRAWN),  # a private R
])
def test_the_lam_line_names_the_draws_it_reads(options: dict, said: str) -> None:
    X, y = _rows()
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, **options).fit(X, y)
    assert _lam_line(model).endswith(said)


def test_lam_moves_with_the_count_and_the_report_lists_it_as_chosen_privately() -> None:
    X, y = _rows()
    y2 = y.copy()
    y2[np.flatnonzero(y == 0)[0]] = 1  # a neighbour: one record's label replaced
    fits = [dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, class_weight="balanced").fit(X, labels)
            for labels in (y, y2)]
    assert fits[0].certificate_.lam_rule.lam != fits[1].certificate_.lam_rule.lam  # a function of the draw
    report = fits[0].model_.report().to_markdown()
    drawn = report[report.index("Chosen privately by dpcvx"):]
    assert "the regularisation strength lam" in drawn



def test_a_report_of_a_fitted_estimator_names_its_model() -> None:
    from dpcvx.exceptions import InputError
    from dpcvx.release.report import ReleaseReport

    X, y = _rows()
    fitted = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    with pytest.raises(InputError, match=r"its model_: DPLogisticRegression\.model_\.report\(\)"):
        ReleaseReport(fitted)
    assert ReleaseReport(fitted.model_).to_markdown().startswith("# Privacy report")
