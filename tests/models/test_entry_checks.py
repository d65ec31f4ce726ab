"""Every parameter of PrivateERM and the classifiers is checked at the entry, whatever the other settings, by one
check each, before anything is charged; a release's noise warning never raises; fitted attributes come last."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError, NoiseDominatesWarning
from dpcvx.privacy.noise import l2_laplace_moments
from dpcvx.validation import LAM_MAX, LAM_MIN, check_lam


def _data(n: int = 300, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, (X[:, 0] > 0).astype(int)


def _entries(**settings):
    """(name, fit(accountant)) of the library's entries with ``settings``: the classifiers, DPHuberRegressor and
    PrivateERM (through the estimators' PrivateERM), PrivateERM's fit and plan, and tune's grid."""
    X, y = _data()
    signs, targets = 2 * y - 1, np.clip(X[:, 0], -1, 1)
    learner = {key: value for key, value in settings.items() if key != "lam"}
    return [
        ("DPLogisticRegression", lambda a: dpcvx.DPLogisticRegression(random_state=0, **settings).fit(
            X, y, accountant=a)),
        ("DPHuberSVM", lambda a: dpcvx.DPHuberSVM(random_state=0, **settings).fit(X, y, accountant=a)),
        ("DPHuberRegressor", lambda a: dpcvx.DPHuberRegressor(random_state=0, **settings).fit(
            X, targets, accountant=a)),
        ("PrivateERM.fit", lambda a: dpcvx.PrivateERM(data_norm=1.0, **settings).fit(
            X, signs, epsilon=1.0, random_state=0, accountant=a)),
        ("PrivateERM.plan", lambda a: dpcvx.PrivateERM(data_norm=1.0, **settings).plan(X, signs, epsilon=1.0)),
        ("tune", lambda a: dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0, **learner), X, signs,
                                      {"lam": [1e-2, settings.get("lam", 1e-2)]}, epsilon=1.0, random_state=0,
                                      accountant=a)),
    ]


@pytest.mark.parametrize("lam", [1e300, 1e151, 1e-151, 1e-300])
def test_a_lam_outside_its_one_range_is_refused_by_every_entry_before_any_charge(lam):
    """1e300 was charged, then raised OverflowError from the noise warning; 1e151 and 1e-151 were released though
    the command line refuses them. Every entry now takes [LAM_MIN, LAM_MAX], the command line's range."""
    for name, fit in _entries(lam=lam):
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match=r"lam=.* is outside the range \[1e-150, 1e\+150\]"):
            fit(accountant)
        assert accountant.ledger == [], name


@pytest.mark.parametrize("regression", [False, True])
def test_the_command_line_takes_the_library_range_of_lam(tmp_path, capsys, regression):
    """--lam is the API's lam: its range is check_lam's at every path (a classifier, AdaSSP's extra ridge), refused
    with the API's message as a usage error (exit 2: wrong whatever the data, before the data is read), and the
    edges of the range are fitted."""
    from dpcvx.cli import main

    rng = np.random.default_rng(0)
    rows = rng.uniform(0, 1, (200, 2))
    data = tmp_path / "d.csv"
    data.write_text("a,b,t\n" + "".join(f"{a:.4f},{b:.4f},{int(a > b) if not regression else a - b:.4f}\n"
                                        for a, b in rows))
    task = (["--task", "regression", "--label-bound=-1,1", "--delta", "1e-6"] if regression
            else ["--positive", "1.0000", "--negative", "0.0000"])
    options = ["fit", str(data), "--target", "t", *task, "--numeric", "a:0:1", "--numeric", "b:0:1", "--data-norm",
               "1", "--epsilon", "1", "--random-state", "0"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)  # the estimators' warnings of 200 rows
        for lam in (LAM_MAX, LAM_MIN):
            assert main([*options, "--lam", repr(lam), "--out", str(tmp_path / "m.json"), "--overwrite"]) == 0
        capsys.readouterr()
        for text in (repr(math.nextafter(LAM_MAX, math.inf)), repr(math.nextafter(LAM_MIN, 0.0))):
            assert main([*options, "--lam", text, "--out", str(tmp_path / "m.json"), "--overwrite"]) == 2
            assert "is outside the range [1e-150, 1e+150]" in capsys.readouterr().err
    assert check_lam("lam", 0, allow_zero=True) == 0.0
    with pytest.raises(InputError, match="lam must be finite and positive"):
        check_lam("lam", 0)


def test_lam_in_capitals_is_refused_by_a_message_that_names_the_spelling():
    X, y = _data()
    with pytest.raises(InputError, match=r"lam must be 'auto' \(exactly, in lower case"):
        dpcvx.DPLogisticRegression(lam="AUTO").fit(X, y)
    with pytest.raises(InputError, match=r"lam must be 'auto' \(exactly, in lower case"):
        dpcvx.PrivateERM(lam="Auto", data_norm=1.0).fit(X, 2 * y - 1, epsilon=1.0)


def test_the_noise_moments_never_overflow_and_keep_their_value_in_range():
    assert l2_laplace_moments(3, 1e300) == (3 / 1e300, 0.0)   # beta**2 raised OverflowError
    assert l2_laplace_moments(3, 1e-300) == (3 / 1e-300, math.inf)   # d (d + 1) / 0.0 raised ZeroDivisionError
    for beta in (1e-150, 0.37, 2.0, 1e150):
        assert l2_laplace_moments(5, beta) == (5 / beta, 30 / beta**2)


@pytest.mark.parametrize("mechanism", ["output", "objective"])
def test_the_lattice_noise_moments_never_raise(monkeypatch, mechanism):
    """The float-safe releases' noise moments, read by the noise warning after the release, overflow to infinity at
    a lattice whose square is no double (``**`` raised OverflowError there) and at a discrete Laplace so wide that
    e^(-1/t) rounds to 1 (a division by zero)."""
    from dpcvx.privacy.lattice_output import discrete_laplace_variance

    X, y = _data()
    model = dpcvx.DPLogisticRegression(float_safe=True, lam=0.1, mechanism=mechanism, random_state=0).fit(X, y)
    calibration = model.certificate_.calibration
    monkeypatch.setattr(type(calibration), "release_lattice", property(lambda self: 1e200))
    first, second = calibration.lattice_moments(3)
    assert second == math.inf and first == math.inf
    assert discrete_laplace_variance(1e17) == math.inf and math.isfinite(discrete_laplace_variance(1e8))


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_a_release_at_the_edge_of_the_lam_range_is_released_and_its_warning_computed(mechanism):
    """lam=1e150 at epsilon=1e6: beta = n m lam eps / (2 L R) ~ 1e158, whose square overflowed in the noise warning
    after the charge (an OverflowError, the model kept on the estimator)."""
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=1e6)
    estimator = dpcvx.DPLogisticRegression(lam=LAM_MAX, epsilon=1e6, mechanism=mechanism, column_statistics=False,
                                           random_state=0).fit(X, y, accountant=accountant)
    assert np.all(np.isfinite(estimator.coef_)) and accountant.spent.epsilon == 1e6


@pytest.mark.parametrize("filtered", [NoiseDominatesWarning, dpcvx.exceptions.DPCVXWarning, Warning])
def test_a_warning_after_the_charge_is_shown_not_raised_under_an_error_filter(filtered):
    """A warning about the release made an error by the caller's filter raised after the charge: the estimator lost
    the release its accountant had paid for (spent 0.001, no coef_). It is shown instead, under that filter, and the
    fit completes; "ignore" still hides it."""
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    estimator = dpcvx.DPLogisticRegression(epsilon=1e-3, column_statistics=False, random_state=0)
    shown: list[type] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", filtered)
        warnings.showwarning = lambda message, category, *rest, **named: shown.append(category)
        estimator.fit(X, y, accountant=accountant)
    assert NoiseDominatesWarning in shown and accountant.spent.epsilon == pytest.approx(1e-3)
    assert estimator.certificate_.epsilon == 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        warnings.showwarning = lambda message, category, *rest, **named: shown.append(category)
        shown.clear()
        estimator.fit(X, y)
    assert NoiseDominatesWarning not in shown


@pytest.mark.parametrize("value", ["False", "True", None, 0, 1])
def test_float_safe_is_a_flag_at_every_entry(value):
    """float_safe="False" released exact lattice noise (a truthy str); None, 0 and 1 were accepted too."""
    for name, fit in _entries(float_safe=value)[:-1]:  # tune's grid takes the learner's settings alike
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match="float_safe must be True or False"):
            fit(accountant)
        assert accountant.ledger == [], name


def test_a_numpy_flag_means_what_the_bool_means():
    X, y = _data()
    released = [dpcvx.DPLogisticRegression(float_safe=flag, column_statistics=statistics, random_state=0).fit(
        X, y).certificate_ for flag, statistics in ((True, True), (np.True_, np.True_))]
    assert released[0].to_dict() == released[1].to_dict()
    assert released[1].column_statistics is not None   # np.True_ drew no statistics


@pytest.mark.parametrize("threshold", [np.float32(0.3), np.float16(0.3), np.float32(1 / 3)])
def test_a_threshold_is_any_real_number_in_the_open_unit_interval(threshold):
    X, y = _data()
    estimator = dpcvx.DPLogisticRegression(threshold=threshold, random_state=0).fit(X, y)
    scores = estimator.decision_function(X)
    cut = math.log(float(threshold) / (1 - float(threshold)))
    np.testing.assert_array_equal(estimator.predict(X), np.where(scores > cut, 1, 0))


LAZY = [  # (settings, the parameter named): each was accepted unless another setting read it
    ({"norm_share": 1.5}, "norm_share"), ({"norm_share": float("nan")}, "norm_share"),
    ({"norm_share": 0}, "norm_share"),
    ({"sample_weight_bound": float("nan")}, "sample_weight_bound"), ({"sample_weight_bound": 0}, "sample_weight_bound"),
    ({"class_count_share": 1.0}, "class_count_share"), ({"column_statistics_share": 0.0}, "column_statistics_share"),
    ({"intercept_scaling": 1e200}, "intercept_scaling"),
]


@pytest.mark.parametrize("settings, parameter", LAZY)
def test_a_parameter_is_checked_whatever_the_other_settings(settings, parameter):
    X, y = _data()
    for fit in (lambda a: dpcvx.DPLogisticRegression(random_state=0, **settings).fit(X, y, accountant=a),
                lambda a: dpcvx.DPHuberSVM(random_state=0, **settings).fit(X, y, accountant=a),
                lambda a: dpcvx.PrivateERM(data_norm=1.0, **settings).fit(X, 2 * y - 1, epsilon=1.0, accountant=a)):
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match=parameter):
            fit(accountant)
        assert accountant.ledger == []


@pytest.mark.parametrize("settings, parameter", [({"comparator_norm": 1e100}, "comparator_norm"),
                                                 ({"label_bound": "wide"}, "label_bound")])
def test_a_learner_setting_is_checked_whatever_the_other_settings(settings, parameter):
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=parameter):
        dpcvx.PrivateERM(data_norm=1.0, **settings).fit(X, 2 * y - 1, epsilon=1.0, accountant=accountant)
    assert accountant.ledger == []


def test_a_catalogue_loss_of_the_other_task_is_refused_at_every_entry_before_the_charge():
    """A catalogue loss is made for one task (dpcvx.losses.MarginLoss.task): the Huber hinge given for a regression
    (the command line's "huber") was fitted on the residual, where it is no regression loss (R^2 -0.14 against
    huber_regression's fit), and a residual loss was fitted on a classifier's margin. Each is refused naming the loss
    and the task's catalogue losses, at every entry, nothing charged; a user's own loss is not a catalogue entry."""
    X, y = _data()
    targets = np.clip(X[:, 0], -1, 1)
    hinge = dpcvx.losses.huber_hinge()
    regression = {"task": "regression", "label_bound": 1.0, "data_norm": 1.0}
    entries = [
        (hinge, lambda a: dpcvx.PrivateERM(hinge, **regression).fit(X, targets, 1.0, random_state=0, accountant=a)),
        (hinge, lambda a: dpcvx.PrivateERM(hinge, **regression).plan(X, targets, epsilon=1.0)),
        (hinge, lambda a: dpcvx.PrivateERM(hinge, lam="auto", **regression).choose_lam(300, 3, 1.0)),
        ("logistic", lambda a: dpcvx.PrivateERM(**regression).fit(X, targets, 1.0, random_state=0, accountant=a)),
        ("huber_regression:m=1", lambda a: dpcvx.PrivateERM("huber_regression", data_norm=1.0, classes=(0, 1)).fit(
            X, y, 1.0, random_state=0, accountant=a)),
        ("huber_regression:m=1", lambda a: dpcvx.DPERMClassifier(loss="huber_regression", random_state=0).fit(
            X, y, accountant=a)),
        ("squared_error", lambda a: dpcvx.PrivateMulticlassERM(
            dpcvx.PrivateERM(dpcvx.losses.squared_error(), data_norm=1.0), (0, 1, 2)).fit(
            X, np.arange(300) % 3, 1.0, random_state=0, accountant=a)),
    ]
    for loss, entry in entries:
        accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
        spec = loss if isinstance(loss, str) else loss.spec
        right = "'huber_regression' or 'squared_error'" if spec.startswith(("huber_hinge", "logistic")) else \
            "'huber' or 'huber_hinge' or 'logistic'"
        with pytest.raises(InputError, match=f"loss '{spec}' is a .* loss") as refused:
            entry(accountant)
        assert right in str(refused.value)
        assert accountant.spent == (0.0, 0.0)
    # a user's loss of the residual is the user's to prove: the catalogue check leaves it to the verifier
    dpcvx.losses.check_task(lambda r: dpcvx.losses.huber_regression()(r), "regression")
    dpcvx.losses.check_task(lambda r: dpcvx.losses.huber_regression()(r), "classification")
