"""Each private draw before a fit is named in the release's curve by what it drew (privacy_curve.DrawnPart).

A private class count, column ranges, a label range and column sums were all named "private bound
(exponential-mechanism quantile)" in the curve's parts (``certificate.privacy_curve``, the accountant's charge, the
report's auditor table), because every procedure built its curve with the quantile's builder; their epsilons and
their records' theorems were right. Each now carries its own name, in the charge, the certificate, the file and the
report.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.release.records.header import file_digest

# the names dpcvx.privacy.privacy_curve.DrawnPart states, written out: what the curve promises an auditor
FIT = "the fit at the drawn bounds"
COUNT, RANGES = "private class count (discrete Laplace)", "private column ranges (discrete Laplace histograms)"
SUMS = "private column sums and sums of squares (discrete Laplace)"
LABEL = "private label range (discrete Laplace histogram)"
QUANTILE = "private bound (exponential-mechanism quantile)"

KINDS = {
    "class_weight balanced": (lambda: dpcvx.DPLogisticRegression(class_weight="balanced", random_state=0), False,
                              [COUNT, FIT]),
    "class_prior private": (lambda: dpcvx.DPLogisticRegression(class_prior="private", random_state=0), False,
                            [COUNT, FIT]),
    "column ranges": (lambda: dpcvx.DPHuberSVM(column_statistics="ranges", random_state=0), False, [RANGES, FIT]),
    "column sums": (lambda: dpcvx.DPLogisticRegression(column_statistics=True, random_state=0), False, [SUMS, FIT]),
    "count inside ranges": (lambda: dpcvx.DPLogisticRegression(column_statistics="ranges", class_weight="balanced",
                                                                random_state=0), False, [COUNT, RANGES, FIT]),
    "label range": (lambda: dpcvx.DPHuberRegressor(label_bound=(-6.0, 6.0), random_state=0), True,
                    [RANGES, LABEL, FIT]),
    "norm bound": (lambda: dpcvx.DPLogisticRegression(data_norm="private", norm_range=(0.25, 4.0), random_state=0),
                   False, [QUANTILE, FIT]),
}


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (800, 2)) / 2
    return X, (X[:, 0] + 0.3 > 0).astype(int), 4 * X[:, 0] + 1 + rng.normal(0, 0.2, 800)


@pytest.mark.parametrize("kind", KINDS)
def test_each_draw_is_named_by_what_it_drew(kind, tmp_path):
    """The charge, the certificate's curve, the file, the loaded model's curve and the report's auditor table."""
    make, regression, expected = KINDS[kind]
    X, y, labels = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with warnings.catch_warnings():
        # the small table's usefulness warnings are not this test's
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        estimator = make().fit(X, labels if regression else y, accountant=accountant)
    model = estimator.model_
    assert [part.what for part in accountant.ledger[-1].curve.parts] == expected[-len(
        accountant.ledger[-1].curve.parts):]  # a count inside the ranges is drawn inside the fit's charged share
    assert [part.what for part in model.certificate.privacy_curve.parts] == expected
    path = dpcvx.save(model, tmp_path / "model.json")
    assert [part["what"] for part in json.loads(path.read_text())["certificate"]["privacy_curve"]["parts"]] == expected
    assert [part.what for part in dpcvx.load(path).certificate.privacy_curve.parts] == expected
    auditor = model.report().to_markdown()
    assert all(what in auditor for what in expected)
    assert QUANTILE not in auditor or QUANTILE in expected


def test_a_current_file_whose_draw_is_named_otherwise_is_refused(tmp_path):
    """The name is compared on load: a version 13 file whose count is named the quantile (its digest made again) is
    refused, and so is one whose name was edited to anything else."""
    X, y, _ = _data()
    model = dpcvx.DPLogisticRegression(class_weight="balanced", random_state=0).fit(X, y).model_
    data = json.loads(dpcvx.save(model, tmp_path / "model.json").read_text())
    for name in (QUANTILE, "a free lunch"):
        data["certificate"]["privacy_curve"]["parts"][0]["what"] = name
        data["sha256"] = file_digest(data)
        (tmp_path / "edited.json").write_text(json.dumps(data))
        with pytest.raises(FileError, match="certificate.privacy_curve is not the curve of the recorded calibration"):
            dpcvx.load(tmp_path / "edited.json")
