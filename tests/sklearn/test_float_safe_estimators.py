"""``float_safe`` through every front end: the scikit-learn estimators, the regressors and ``dpcvx fit``.

Each front end passes ``float_safe=True`` to :class:`~dpcvx.models.erm.PrivateERM`, so the release's
certificate names the floating-point guarantee of its kind (exact, dithered-lattice); the regression
releases (the KST12 residual losses, DPHuberRegressor) get it the same way. AdaSSP has no
float-safe form: asking for one is refused before anything is spent.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.exceptions import InputError
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.sklearn.classifiers import DPERMClassifier, DPHuberSVM, DPLogisticRegression
from dpcvx.sklearn.regressors import DPHuberRegressor, DPLinearRegression


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(9)
    X = rng.uniform(-1, 1, (300, 2)) / np.sqrt(2)
    return X, (X[:, 0] > 0).astype(int), np.clip(X @ np.array([0.5, -0.4]), -1, 1)


@pytest.mark.parametrize("make", [lambda: DPLogisticRegression(mechanism="output"),
                                  lambda: DPHuberSVM(mechanism="objective"),
                                  lambda: DPERMClassifier("logistic", mechanism="output", delta=1e-6),
                                  lambda: DPLogisticRegression(mechanism="output", classes=(0, 1, 2))])
def test_classifiers_pass_float_safe_to_the_release(data, make):
    X, labels, _ = data
    for float_safe in (False, True):
        estimator = make().set_params(float_safe=float_safe, random_state=0, lam=0.05)
        estimator.fit(X, labels)
        certificate = estimator.certificate_
        one = certificate.per_class[0] if hasattr(certificate, "per_class") else certificate
        expected = {"output": "exact", "objective": "dithered-lattice"}[estimator.mechanism]
        assert (one.calibration.to_dict().get("float_guarantee") == expected) == float_safe
    assert "float_safe" in make().get_params()


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label's range
@pytest.mark.parametrize("make", [lambda: DPHuberRegressor(),
                                  lambda: DPLinearRegression(mechanism="objective", weight_bound=2.0, lam=0.1,
                                                             delta=0.0)])
def test_regressors_pass_float_safe_to_the_objective_release(data, make):
    X, _, target = data
    estimator = make().set_params(float_safe=True, random_state=0).fit(X, target)
    assert estimator.certificate_.calibration.to_dict()["float_guarantee"] == "dithered-lattice"
    assert estimator.certificate_.mechanism == "objective"


def test_adassp_refuses_float_safe_before_spending(data):
    X, _, target = data
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="AdaSSP"):
        DPLinearRegression(float_safe=True).fit(X, target, accountant=accountant)
    assert accountant.spent.epsilon == 0


def test_the_command_line_float_safe_flag(tmp_path):
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 10, 400), rng.uniform(0, 10, 400)
    lines = ["a,b,y,t"] + [f"{a[i]:.3f},{b[i]:.3f},{int(a[i] > b[i])},{0.3 * a[i] - 0.2 * b[i]:.3f}"
                           for i in range(400)]
    table = tmp_path / "d.csv"
    table.write_text("\n".join(lines) + "\n")
    columns = ["--numeric", "a:0:10", "--numeric", "b:0:10", "--data-norm", "1.5", "--lam", "1e-2", "--epsilon",
               "1", "--random-state", "0"]
    out = tmp_path / "m.json"
    assert main(["fit", str(table), "--target", "y", "--positive", "1", *columns, "--mechanism", "output",
                 "--float-safe", "--out", str(out)]) == 0
    assert dpcvx.load(out).certificate.calibration.to_dict()["float_guarantee"] == "exact"
    assert main(["fit", str(table), "--target", "t", "--task", "regression", "--label-bound", "5", *columns,
                 "--delta", "1e-6", "--float-safe", "--out", str(tmp_path / "r.json")]) != 0
