"""Options checked by the one standard at every entry, before anything is charged or drawn: a value one entry took
and another refused, a refusal made after the charge, a message that advised a value refused in turn."""

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError

RNG = np.random.default_rng(11)
X = RNG.uniform(-0.5, 0.5, size=(400, 3))
Y = np.where(X[:, 0] > 0, 1, -1)
Y_REGRESSION = np.clip(X @ np.array([0.3, -0.6, 0.15]), -1, 1)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        yield


@pytest.mark.parametrize("procedure", ["split", "full-data"])
@pytest.mark.parametrize("options, message", [
    ({"verbose": np.array([1, 2])}, "verbose must be True or False"),
    ({"verbose": "no"}, "verbose must be True or False"),  # taken, and the progress bar shown, before
])
def test_tune_checks_verbose_before_the_charge(procedure, options, message):
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    erm = dpcvx.PrivateERM(lam=0.1, data_norm=1.0)
    with pytest.raises(InputError, match=message):
        dpcvx.tune(erm, X, Y, {"lam": [1e-2, 1e-1]}, 1.0, procedure=procedure, accountant=accountant,
                   random_state=0, **options)
    assert accountant.spent.epsilon == 0 and not accountant.ledger  # charged 1 before the check


@pytest.mark.parametrize("options, message", [
    ({"eta": np.array([1, 2])}, "eta must be"),  # numpy's ValueError, comparing an array with 1
    ({"held_out": cp.Parameter(value=0.2)}, "held_out must be"),  # CVXPY's Exception
    ({"eta": 2}, "belong to procedure='full-data'"),
])
def test_a_split_tune_checks_the_full_data_options_before_it_compares_them(options, message):
    with pytest.raises(InputError, match=message):
        dpcvx.tune(dpcvx.PrivateERM(lam=0.1, data_norm=1.0), X, Y, {"lam": [1e-2, 1e-1]}, 1.0, procedure="split",
                   random_state=0, **options)


def test_a_numpy_true_column_statistics_is_true_in_the_least_squares_calibration():
    learner = dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=1.0, column_statistics=np.True_)
    model = learner.fit(X, Y_REGRESSION, 1.0, 1e-6, random_state=0)  # "must be True or False ... got np.True_"
    assert model.certificate.mechanism == "adassp-standardised"


@pytest.mark.parametrize("norm_range, message", [
    ((1e100, 1e120), r"^norm_range\[0\]=1e\+100 is outside the range \[1e-75, 1e\+75\]"),  # fit said r_min
    ((3.0, 3.5), r"^norm_range = \[3, 3.5\] holds no power of two"),
    ((4.0, 2.0), r"^norm_range = \(4, 2\) is reversed or empty: a public range \(lo, hi\) needs lo <= hi"),
])
def test_a_private_bounds_range_is_refused_before_the_data_by_the_draws_own_check(norm_range, message):
    estimator = dpcvx.DPLogisticRegression(data_norm="private", norm_range=norm_range)
    with pytest.raises(InputError, match=message):
        estimator.check_params()  # passed, and fit refused it after reading the rows
    with pytest.raises(InputError, match=message):
        dpcvx.PrivateERM(lam=0.1, data_norm="private", norm_range=norm_range).check_options(1.0)


def test_advice_never_names_a_value_the_same_check_refuses():
    with pytest.raises(InputError, match="subnormal") as subnormal:
        dpcvx.DPLogisticRegression(threshold=1e-320).check_params()
    assert "use a larger value" in str(subnormal.value) and "0 or" not in str(subnormal.value)
    with pytest.raises(InputError, match="use 0 or a larger value"):  # delta takes 0
        dpcvx.PrivateERM(lam=0.1, data_norm=1.0).check_options(1.0, delta=1e-320)
    with pytest.raises(InputError) as boolean:
        dpcvx.PrivateERM(lam=0.1, data_norm=1.0).check_options(1.0, delta=True)
    assert "1.0" not in str(boolean.value)  # "pass a real number such as 1.0", a delta refused in turn


def test_a_negative_zero_is_zero_in_the_certificate_the_file_and_the_ledger(tmp_path):
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=-0.0)
    assert "delta=-0" not in str(accountant) and math.copysign(1.0, accountant.delta) == 1.0
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, Y, 1.0, "output", delta=-0.0, random_state=0)
    assert math.copysign(1.0, model.certificate.delta) == 1.0
    dpcvx.save(model, tmp_path / "model.json")
    assert "-0.0" not in (tmp_path / "model.json").read_text()


def test_privateerm_names_every_column_statistics_option():
    with pytest.raises(InputError, match="'ranges'"):  # "must be True or False" from the draw's own flag check
        dpcvx.PrivateERM(lam=0.1, data_norm=1.0, column_statistics=0).fit(X, Y, 1.0, random_state=0)


def test_a_huber_regressor_refuses_the_delta_every_fit_refuses_though_auto_uses_none():
    for fit in (lambda estimator: estimator.fit(X, Y_REGRESSION), lambda estimator: estimator.plan(X, Y_REGRESSION)):
        with pytest.raises(InputError, match=r"delta=0.5 is not below 1/n = 0.0025 \(n = 400\)"):
            fit(dpcvx.DPHuberRegressor(delta=0.5, random_state=0))
    kept = dpcvx.DPHuberRegressor(delta=0.5, allow_large_delta=True, random_state=0).fit(X, Y_REGRESSION)
    assert kept.certificate_.delta == 0  # pure epsilon, as the module docstring says


def test_cvxpy_options_the_solver_rejects_are_refused_before_the_charge():
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, solver="cvxpy", cvxpy_options={"bogus_option": 1})
    with pytest.raises(InputError, match=r"cvxpy_options \['bogus_option'\] rejected by CLARABEL .*bogus_option"):
        learner.check_options(0.5)  # accepted, and the fit charged 0.5 a call before refusing
    with pytest.raises(InputError, match="rejected by CLARABEL"):
        learner.fit(X, Y, 0.5, accountant=accountant, random_state=0)
    assert not accountant.ledger
    fine = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, solver="cvxpy", cvxpy_options={"max_iter": 200})
    fine.fit(X, Y, 0.5, accountant=accountant, random_state=0)
    assert accountant.spent.epsilon == 0.5


def test_a_refused_multiclass_or_split_tune_leaves_the_callers_generator_alone():
    y3 = np.digitize(X[:, 0], [-0.2, 0.2])
    learner = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), classes=(0, 1, 2))
    generator = np.random.default_rng(7)
    with pytest.raises(dpcvx.BudgetExceededError):
        learner.fit(X, y3, 0.5, random_state=generator, accountant=dpcvx.PrivacyAccountant(epsilon=0.2))
    assert generator.bit_generator.state == np.random.default_rng(7).bit_generator.state
    with pytest.raises(dpcvx.BudgetExceededError):
        dpcvx.tune(dpcvx.PrivateERM(lam=0.1, data_norm=1.0), X, Y, {"lam": [1e-2, 1e-1]}, 0.5, procedure="split",
                   random_state=generator, accountant=dpcvx.PrivacyAccountant(epsilon=0.2))
    assert generator.bit_generator.state == np.random.default_rng(7).bit_generator.state
