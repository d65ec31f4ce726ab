"""The less-travelled entries validate by the one standard (an audit of every public entry with bad values): a typed
refusal before anything is charged, by the shared checks, never a bare TypeError or numpy's ValueError, and no value
one entry refuses taken by another for the same meaning."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.tdil import ball_net


def _data(n: int = 300, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, d))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("delta", ["1", None, 1j, [0.0]])
def test_a_budget_in_constructor_checks_delta_before_comparing_it(delta):
    X, y = _data()
    with pytest.raises(InputError, match="delta must be a number in"):
        dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression).fit(X, y, 1.0, delta=delta)


@pytest.mark.parametrize("learner_class, message", [
    (5, r"BudgetInConstructor takes a learner's class \(such as dpcvx.DPLogisticRegression\), got int 5"),
    ("DPLogisticRegression", r"takes a learner's class .*got str 'DPLogisticRegression'"),
    (dpcvx.PrivateERM, r"PrivateERM's constructor takes no epsilon: a learner that takes its budget in fit"),
])
def test_a_budget_in_constructor_takes_a_class_whose_constructor_takes_the_budget(learner_class, message):
    """An int or a name raised AttributeError inside tune; PrivateERM failed only when the first candidate was built."""
    with pytest.raises(InputError, match=message):
        dpcvx.BudgetInConstructor(learner_class)


@pytest.mark.parametrize("set_late", [False, True])
def test_a_budget_in_constructor_refuses_a_parameter_its_class_does_not_take_by_name(set_late):
    """A misspelt name was kept and refused only when tune built the first candidate, in Python's words."""
    with pytest.raises(InputError, match=r"DPLogisticRegression has no parameter\(s\) \['lamb'\]; its parameters "
                                         r"are \['mechanism', 'lam', .*\(tune passes epsilon, delta and "
                                         r"random_state\)"):
        if set_late:
            dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression).set_params(lamb=1.0)
        else:
            dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression, lamb=1.0)
    adapter = dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression, data_norm=1.0).set_params(lam=0.1)
    assert adapter.get_params() == {"data_norm": 1.0, "lam": 0.1}


@pytest.mark.parametrize("radius, spacing", [(1e200, 0.5), (1.0, 1e-200), (1e6, 0.5)])
def test_a_net_beyond_the_limit_is_refused_before_any_grid_is_built(radius, spacing):
    """A radius or spacing whose grid has more points per axis than numpy can hold raised numpy's 'Maximum allowed
    size exceeded'; the estimate is taken in logarithms first."""
    with pytest.raises(InputError, match=r"TDIL's cost is exponential in the dimension"):
        ball_net(4, radius, spacing)
    assert ball_net(2, 1.0, 0.5).shape[1] == 2


def test_fit_arguments_a_learner_cannot_take_are_refused_before_the_charge():
    X, y = _data()
    erm = dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.1, data_norm=1.0)
    accountant = dpcvx.PrivacyAccountant(10.0)
    with pytest.raises(InputError, match=r"PrivateMulticlassERM passes its other arguments on to PrivateERM.fit, "
                                         r"which cannot be called with them \(got an unexpected keyword argument "
                                         r"'bogus'\). Nothing was charged"):
        dpcvx.PrivateMulticlassERM(erm, (0, 1, 2)).fit(X, np.arange(300) % 3, 1.0, accountant=accountant, bogus=1)
    with pytest.raises(InputError, match=r"fit_private_norm passes its other arguments on to PrivateERM.fit"):
        dpcvx.fit_private_norm(dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.1, classes=(0, 1)), X, y, 1.0,
                               r_min=0.1, r_max=10.0, accountant=accountant, bogus=1)
    assert accountant.spent.epsilon == 0 and not accountant.ledger


@pytest.mark.parametrize("value", ["1", np.array([1.0]), True])
def test_a_time_limit_is_a_number_at_every_entry(value):
    for make in (lambda: dpcvx.verify(dpcvx.losses.logistic(), time_limit=value),
                 lambda: dpcvx.PrivateERM(time_limit=value).fit(*_data(), epsilon=1.0),
                 lambda: dpcvx.TDDL(lam=0.1, gamma=1.0, time_limit=value)):
        with pytest.raises(InputError, match="time_limit must be a positive number"):
            make()


def test_a_loss_that_is_no_callable_is_a_malformed_setting():
    X, y = _data()
    for make in (lambda: dpcvx.DPERMClassifier(loss=1.0).fit(X, y),
                 lambda: dpcvx.PrivateERM(math.nan, data_norm=1.0, classes=(0, 1)).fit(X, y, epsilon=1.0)):
        with pytest.raises(InputError, match=r"loss must be a catalogue loss \(a name: .*'logistic'.*\) or a callable "
                                             r"z -> CVXPY expression, got a float. Nothing was charged"):
            make()


def test_verify_takes_a_catalogue_name_as_privateerm_does():
    by_name = dpcvx.verify("logistic")
    assert str(by_name) == str(dpcvx.verify(dpcvx.losses.logistic()))
    with pytest.raises(InputError, match="unknown loss 'logistc'.*Did you mean 'logistic'"):
        dpcvx.verify("logistc")


def test_audit_and_canary_pair_check_by_the_shared_rules():
    learner = dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.1, data_norm=1.0)
    with pytest.raises(InputError, match="delta=5e-324 is subnormal"):
        dpcvx.audit(learner, 1.0, delta=5e-324, trials=10)
    with pytest.raises(InputError, match=r"confidence must lie in \(0, 1\)"):
        dpcvx.audit(learner, 1.0, confidence=1.0, trials=10)
    for norm in (1e200, 1e-300):
        with pytest.raises(InputError, match=r"data_norm=1e[+-][23]00 is outside the range \[1e-75, 1e\+75\]"):
            dpcvx.canary_pair(data_norm=norm)


def test_the_opendp_bridge_takes_a_flag_for_allow_fixed_seed():
    pytest.importorskip("opendp")
    with pytest.raises(InputError, match="allow_fixed_seed must be True or False"):
        dpcvx.as_opendp_measurement(dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.1, data_norm=1.0), 1.0,
                                    allow_fixed_seed="yes", random_state=0)


@pytest.mark.parametrize("learner, options, fit_options", [
    (dpcvx.TDDL, {}, {"Z": np.zeros((5, 3))}), (dpcvx.PINP, {"max_queries": 5}, {}),
    (dpcvx.TDIL, {"input_bound": 1.0}, {})])
def test_the_kernel_learners_word_a_bad_epsilon_as_every_entry(learner, options, fit_options):
    X, y = _data(30)
    with pytest.raises(InputError, match=r"epsilon must be a positive number, got '1' \(a str\); pass an int "
                                         r"or a float. The budget is fit's third argument"):
        learner(lam=0.1, gamma=1.0, **options).fit(X, 2 * y - 1, "1", **fit_options)


@pytest.mark.parametrize("loader, options", [
    (dpcvx.load_adult, {"encoding": "bogus"}), (dpcvx.load_adult, {"norm": math.nan}),
    (dpcvx.load_adult, {"constant_feature": "y"}), (dpcvx.load_kdd, {"random_state": -1}),
    (dpcvx.load_kdd, {"numeric_scale": "lg"}),
])
def test_a_loader_checks_its_options_before_looking_for_its_files(tmp_path, loader, options):
    with pytest.raises(InputError) as refused:
        loader(tmp_path, **options)
    assert "not found" not in str(refused.value)


@pytest.mark.parametrize("make", [
    lambda value: dpcvx.load_adult(mode=value), lambda value: dpcvx.load_kdd(numeric_scale=value),
    lambda value: dpcvx.canary_pair(replacement=value), lambda value: dpcvx.NumericColumn("a", 0, 1, scale=value),
    lambda value: dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 1),), encoding=value),
], ids=["mode", "numeric_scale", "replacement", "scale", "encoding"])
@pytest.mark.parametrize("value", ["Private", np.array(["paper", "private"]), None])
def test_a_named_choice_is_checked_by_the_one_rule(make, value):
    """A choice outside its names (another case, an array, None) is refused in one wording: an array of names made
    the membership test raise numpy's 'truth value of an array is ambiguous'."""
    with pytest.raises(InputError, match=r"must be one of '[a-z]+', '[a-z-]+'.*; got "):
        make(value)


@pytest.mark.parametrize("ends", [{"r_min": 1e-300, "r_max": 10.0}, {"r_min": 0.1, "r_max": 1e300}])
def test_a_private_norm_range_is_checked_as_a_bound_naming_its_own_end(ends):
    """The range's ends are a bound's candidates: refused by the bound's range, naming r_min or r_max (the grid's
    first or last power of two was refused as 'data_norm=1.49322e-300', a value the user never gave)."""
    X, y = _data()
    name = "r_min" if ends["r_min"] < 1e-75 else "r_max"
    with pytest.raises(InputError, match=rf"{name}=1e[+-]300 is outside the range \[1e-75, 1e\+75\]"):
        dpcvx.fit_private_norm(dpcvx.PrivateERM(lam=0.1, classes=(0, 1)), X, y, 1.0, **ends)


def _releases(tmp_path) -> dict[str, object]:
    """A fitted binary, multiclass and regression release, and each loaded from its file."""
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        fitted = {
            "binary": dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, random_state=0).fit(X, y).model_,
            "multiclass": dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, classes=(0, 1, 2),
                                                     random_state=0).fit(X, np.arange(len(y)) % 3).model_,
            "regression": dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-5, data_norm=1.0, label_bound=3.0,
                                                   random_state=0).fit(X, X.sum(axis=1)).model_,
        }
    releases = dict(fitted)
    for name, model in fitted.items():
        dpcvx.save(model, tmp_path / f"{name}.json")
        releases[f"loaded {name}"] = dpcvx.load(tmp_path / f"{name}.json")
    return releases


@pytest.mark.parametrize("bad", ["x", None, {}, object()])
def test_a_release_refuses_values_that_are_no_numbers_at_its_every_method(tmp_path, bad):
    """A release's less-travelled methods (what ``dpcvx predict`` calls: predictions from scores, the rows scored at
    a time; a regression's score and its shifts) raised Python's TypeError or numpy's ValueError."""
    X, _ = _data()
    for name, release in _releases(tmp_path).items():
        with pytest.raises(InputError, match="scores must hold real numbers|scores must be"):
            release.predictions(bad)
        with pytest.raises(InputError, match="width must be a positive integer"):
            release.score_rows(bad)
        if "regression" in name:
            with pytest.raises(InputError, match="y must hold real numbers|y holds"):
                release.score(X, bad)
        if name == "regression":
            for shift in (release.shifted, release.label_shifted):
                with pytest.raises(InputError, match="shift must be a finite number"):
                    shift(bad)


def test_a_multiclass_release_refuses_scores_of_another_shape_and_leaves_the_callers_scores(tmp_path):
    release = _releases(tmp_path)["loaded multiclass"]
    with pytest.raises(InputError, match=r"scores must be an \(n, 3\) array"):
        release.predictions(np.zeros((4, 2)))  # argmax over 2 columns gave labels of 2 classes of 3
    X, _ = _data()
    scores = release.decision_function(X)
    kept = scores.copy()
    release.predict_proba(X)
    release.predictions(scores)
    np.testing.assert_array_equal(scores, kept)
    assert not hasattr(release, "probabilities")  # the softmax that overwrote its argument is no method of a release


@pytest.mark.parametrize("make", [
    lambda neighbours: dpcvx.DPLogisticRegression(epsilon=1.0, delta=1e-6, data_norm=1.0, neighbours=neighbours),
    lambda neighbours: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, data_norm=1.0, label_bound=1.0,
                                                neighbours=neighbours),
    lambda neighbours: dpcvx.DPHuberRegressor(epsilon=1.0, delta=1e-6, data_norm=1.0, label_bound=1.0,
                                              neighbours=neighbours),
], ids=["DPLogisticRegression", "DPLinearRegression", "DPHuberRegressor"])
def test_a_neighbour_relation_is_a_named_choice_at_every_estimator(make):
    """An array for the relation raised numpy's 'truth value of an array is ambiguous' (Neighbours.parse compared
    it with each name); the relation is one of the named choices (validation.check_choice)."""
    X, y = _data()
    with pytest.raises(InputError, match="neighbours must be one of 'replace-one', 'add-remove'; got array"):
        make(np.ones((2, 2))).fit(X, y)


@pytest.mark.parametrize("fit", [
    lambda X, y: dpcvx.PrivateERM(lam=0.1, data_norm=1.0, classes=(0, 1)).fit(
        X, y, 1.0, delta=0.01, neighbours="add-remove", n_public=250),
    lambda X, y: dpcvx.DPLogisticRegression(epsilon=1.0, delta=0.01, data_norm=1.0, neighbours="add-remove",
                                            n_public=250).fit(X, y),
], ids=["PrivateERM", "DPLogisticRegression"])
def test_the_delta_rule_under_add_remove_names_the_public_size_it_reads(fit):
    """It said "1/n = 0.004 (n = 250)" of n_public = 250 where the table has 300 rows: n is private there, and the
    rule reads n_public."""
    X, y = _data()
    with pytest.raises(InputError, match=r"is not below 1/n_public = 0.004 \(n_public = 250\)"):
        fit(X, y)


@pytest.mark.parametrize("learner", [
    dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression, data_norm=1.0, neighbours="add-remove", n_public=300),
    dpcvx.DPLogisticRegression(data_norm=1.0, neighbours="add-remove", n_public=300),
], ids=["BudgetInConstructor", "estimator"])
def test_tune_names_the_learner_it_refuses_under_add_remove(learner):
    """A BudgetInConstructor was named 'type' (the type of its wrapped class)."""
    X, y = _data()
    with pytest.raises(InputError, match=r"proved for replace-one neighbours with n public, and DPLogisticRegression "
                                         r"is set to fit under add-remove"):
        dpcvx.tune(learner, X, y, {"lam": [0.1, 0.01]}, 1.0, delta=1e-6, random_state=0)


_ADD_REMOVE = [
    lambda **kw: dpcvx.DPLinearRegression(epsilon=1.0, label_bound=5.0, neighbours="add-remove", **kw),
    lambda **kw: dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=5.0, neighbours="add-remove", **kw),
    lambda **kw: dpcvx.DPLogisticRegression(epsilon=1.0, neighbours="add-remove", **kw),
]


@pytest.mark.parametrize("make", _ADD_REMOVE, ids=["DPLinearRegression", "DPHuberRegressor", "DPLogisticRegression"])
def test_every_learner_under_add_remove_takes_n_public_and_its_delta_rule(make):
    """One standard: under add-remove a learner needs a public size and delta below its inverse. DPLinearRegression
    (AdaSSP) took neither, and accepted delta=0.5 without a word."""
    X, y = _data(500)
    targets = X @ np.array([1.0, 2.0, 3.0])
    labels = y if "Logistic" in repr(make()) else targets
    accountant = dpcvx.PrivacyAccountant(10.0, 0.9, neighbours="add-remove")
    with pytest.raises(InputError, match=r"neighbours='add-remove' needs n_public"):
        make(delta=1e-6).fit(X, labels, accountant=accountant)
    with pytest.raises(InputError, match=r"delta=0.5 is not below 1/n_public = 0.002 \(n_public = 500\)"):
        make(delta=0.5, n_public=500).fit(X, labels, accountant=accountant)
    assert not accountant.ledger
    make(delta=0.5, n_public=500, allow_large_delta=True).fit(X, labels, accountant=accountant)
    assert len(accountant.ledger) == 1
