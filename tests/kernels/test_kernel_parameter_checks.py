"""TDDL, PINP and TDIL check every parameter that alone decides a refusal before the accountant is charged,
with the library's checks (the same rules and messages as PrivateERM's)."""

import numpy as np
import pytest
import scipy.sparse as sparse

from dpcvx.data.kernels import RandomFourierFeatures
from dpcvx.exceptions import InputError
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.accountant import PrivacyAccountant


def task(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def learner(name, kernel="rbf", **params):
    """One of the three learners with workable defaults, and the keywords its fit needs."""
    X, _ = task()
    params = {"lam": 0.1, **params}
    if kernel in ("rbf", "laplacian"):
        params.setdefault("gamma", 1.0)
    if kernel in ("linear", "poly") or name == "TDIL":
        params.setdefault("input_bound", 1.0)
    if name == "PINP":
        params.setdefault("max_queries", 10)
    model = {"TDDL": TDDL, "PINP": PINP, "TDIL": TDIL}[name](kernel, **params)
    return model, ({"Z": X[:10]} if name == "TDDL" else {})


def refused_without_charge(model, fit_keywords, match, X=None, y=None):
    """The fit raises an InputError matching ``match`` and the accountant's ledger stays empty."""
    X_task, y_task = task()
    accountant = PrivacyAccountant(10.0, 1e-3)
    with pytest.raises(InputError, match=match):
        model.fit(X_task if X is None else X, y_task if y is None else y, 1.0,
                  accountant=accountant, random_state=0, **fit_keywords)
    assert accountant.ledger == []


NAMES = ["TDDL", "PINP", "TDIL"]


@pytest.mark.parametrize("name", NAMES)
def test_lam_is_checked_as_privateerm_checks_it(name):
    with pytest.raises(InputError, match=r"lam=1e\+300 is outside the range \[1e-150, 1e\+150\]"):
        learner(name, lam=1e300)
    model, keywords = learner(name)
    with pytest.raises(InputError, match="outside the range"):
        model.set_params(lam=1e300)
    model.lam = 1e300  # replaced after the constructor: refused by fit, before the charge
    refused_without_charge(model, keywords, r"lam=1e\+300 is outside")


@pytest.mark.parametrize("name", ["TDDL", "PINP"])
def test_a_callable_kernels_huge_feature_bound_is_refused_before_the_charge(name):
    model, keywords = learner(name, kernel=lambda A, B: A @ B.T, feature_bound=1e300)
    refused_without_charge(model, keywords, r"feature_bound=1e\+300 is outside the range")


@pytest.mark.parametrize("name", NAMES)
def test_a_poly_kernels_feature_bound_must_stay_finite(name):
    model, keywords = learner(name, kernel="poly", degree=10**12, input_bound=2.0)
    refused_without_charge(model, keywords, "the poly kernel's feature bound R_phi")


@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_path_checks_X_as_privateerm_does(name):
    X, y = task()
    with_nan = X.copy()
    with_nan[3, 1] = np.nan
    for bad, match in [(X.astype(complex), "X has dtype complex128: Complex data not supported: complex values"),
                       (with_nan, "first at row 3, column 1"),
                       (sparse.csr_matrix(X), r"X is a sparse matrix; .* pass X.toarray\(\)")]:
        model, keywords = learner(name)
        refused_without_charge(model, keywords, match, X=bad)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [None, 3.0, [0.1, 0.2]], ids=["None", "a number", "one row as a list"])
def test_an_X_without_rows_is_refused_as_privateerm_refuses_it(name, bad):
    """Before the charge, with the library's message: TDDL's automatic span read n off X's shape before X was checked,
    an IndexError for X=None or a number."""
    model, keywords = learner(name)
    _, y = task()
    accountant = PrivacyAccountant(10.0, 1e-3)
    with pytest.raises(InputError, match=r"X must be 2-D \(n samples x d features\), got shape"):
        model.fit(bad, y, 1.0, accountant=accountant, random_state=0, **keywords)
    assert accountant.ledger == []


def test_tddls_span_setting_is_refused_before_X_is_read():
    model, keywords = learner("TDDL")
    model.span = "everything"  # replaced after the constructor: the settings' check comes first, as for lam
    refused_without_charge(model, keywords, "span", X=3.0)


def test_a_release_refuses_complex_rows():
    X, y = task()
    model, keywords = learner("TDDL")
    release = model.fit(X, y, 1.0, random_state=0, **keywords)
    with pytest.raises(InputError, match="complex values are not real features"):
        release.predict(X[:5] + 5j)
    with pytest.raises(InputError, match="complex values are not real features"):
        RandomFourierFeatures("rbf", gamma=1.0, n_components=5, random_state=0).transform(X + 1j)


def test_tddls_public_sample_is_2_d_as_X_is():
    X, _ = task()
    model, _ = learner("TDDL")
    refused_without_charge(model, {"Z": X[0]}, r"Z must be 2-D .* Z.reshape\(1, -1\)")


@pytest.mark.parametrize("offset, match", [("2", r"offset must be a non-negative number, got '2' \(a str\)"),
                                           (True, r"offset must be a non-negative number, got True \(a bool\)"),
                                           ([2], r"offset must be a non-negative number, got \[2\]"),
                                           (None, r"offset must be a non-negative number, got None")])
def test_the_poly_offset_is_checked_as_gamma_and_input_bound_are(offset, match):
    model, keywords = learner("TDDL", kernel="poly", offset=offset)
    refused_without_charge(model, keywords, match)


@pytest.mark.parametrize("name", NAMES)
def test_flags_are_true_or_false_not_truthy(name):
    with pytest.raises(InputError, match="verbose must be True or False, got 'no'"):
        learner(name, verbose="no")
    model, keywords = learner(name)
    with pytest.raises(InputError, match="verbose must be True or False, got 'no'"):
        model.set_params(verbose="no")
    if name != "PINP":
        with pytest.raises(InputError, match="float_safe must be True or False, got 'no'"):
            learner(name, float_safe="no")
        model.float_safe = "no"  # replaced after the constructor: refused by fit, before the charge
        refused_without_charge(model, keywords, "float_safe must be True or False, got 'no'")


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_keyword_is_refused_naming_the_learner_and_its_parameters(name):
    """The constructor's refusal is a TypeError too (an InputTypeError), as every other constructor's of an unknown
    keyword is (Python's: DPLogisticRegression(bogus=1), PrivateERM(bogus=1)); set_params' is a ValueError, as
    scikit-learn's is. It was a plain InputError from the kernel learners' constructors."""
    with pytest.raises(TypeError, match=rf"^{name} has no parameter\(s\) \['classes', 'data_norm'\]; its parameters "
                                        r"are \['kernel', 'lam', .*'allow_large_delta'") as refused:
        learner(name, data_norm=1.0, classes=(0, 1))  # PrivateERM's keywords: no kernel learner takes them
    assert isinstance(refused.value, InputError)
    model, _ = learner(name)
    with pytest.raises(InputError, match=rf"^{name} has no parameter\(s\) \['fit_intercept'\]") as refused:
        model.set_params(fit_intercept=True)  # the same words as the constructor's
    assert not isinstance(refused.value, TypeError)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.filterwarnings("ignore::dpcvx.ExponentialCostWarning")  # TDIL's net, once allowed
def test_a_delta_not_below_one_over_n_is_refused_before_the_charge_unless_allowed(name):
    model, keywords = learner(name)
    large = r"delta=0.1 is not below 1/n = 0.025 \(n = 40\).*allow_large_delta=True.*Nothing was charged"
    refused_without_charge(model, {**keywords, "delta": 0.1}, large)  # PrivateERM's check and message
    with pytest.raises(InputError, match=large):
        model.check_fit_inputs(*task(), 1.0, 0.1, **keywords)
    with pytest.raises(InputError, match="allow_large_delta must be True or False, got 'yes'"):
        learner(name, allow_large_delta="yes")
    model.allow_large_delta = "yes"  # replaced after the constructor: refused by fit, before the charge
    refused_without_charge(model, {**keywords, "delta": 1e-6}, "allow_large_delta must be True or False, got 'yes'")
    accountant = PrivacyAccountant(10.0, 0.5)
    allowed, keywords = learner(name, allow_large_delta=True)  # accepted knowingly, and the report says so
    fitted = allowed.fit(*task(), 1.0, 0.1, accountant=accountant, random_state=0, **keywords)
    release = fitted.release() if name == "PINP" else fitted
    assert accountant.spent.delta == 0.1
    assert "WARNING: delta is not small against 1/n" in release.report().to_html()


def test_a_kernel_name_is_a_str():
    model, keywords = learner("TDDL", kernel=np.array(["rbf"]))
    refused_without_charge(model, keywords, r"kernel must be one of .* got ndarray")


@pytest.mark.parametrize("name", ["PINP", "TDIL"])
def test_only_tddls_budget_error_mentions_its_public_sample(name):
    model, keywords = learner(name)
    with pytest.raises(InputError, match="epsilon must be a positive number") as error:
        model.fit(*task(), "1", **keywords)
    assert "Z=" not in str(error.value)


def saved_map():
    return RandomFourierFeatures("rbf", gamma=1.0, n_components=3, n_features=2, random_state=0).to_dict()


@pytest.mark.parametrize("change, match", [
    (lambda d: d["frequencies"][0].__setitem__(0, 10**400), "frequencies holds a number beyond the float range"),
    (lambda d: d["phases"].__setitem__(0, 10**400), "phases holds a number beyond the float range"),
    (lambda d: d["frequencies"][0].__setitem__(0, "1"), "frequencies must be a regular array of numbers"),
    (lambda d: d["frequencies"][1].__setitem__(1, True), "frequencies must be a regular array of numbers"),
    (lambda d: d["phases"].__setitem__(2, None), "phases must be a regular array of numbers"),
    (lambda d: d["frequencies"][0].append(1.0), "frequencies must be a regular array of numbers"),
    (lambda d: d.__setitem__("norm_bound", "1"), "norm_bound is sqrt"),
    (lambda d: d.__setitem__("norm_bound", None), "norm_bound is sqrt"),
    (lambda d: d.__setitem__("extra", 1), r"unknown field\(s\) \['extra'\]"),
    # no input column: a (3, 0) array of frequencies was loaded as a map of 0 features
    (lambda d: d.__setitem__("frequencies", [[], [], []]), "array with n_features >= 1"),
])
def test_a_saved_fourier_map_holds_numbers_and_its_fields_only(change, match):
    data = saved_map()
    RandomFourierFeatures.from_dict(data)  # as saved: loads
    change(data)
    with pytest.raises(InputError, match=match):
        RandomFourierFeatures.from_dict(data)


def test_fourier_map_arguments_give_typed_errors():
    with pytest.raises(InputError, match="above the limit of 1e"):
        RandomFourierFeatures("rbf", gamma=1.0, n_components=10, n_features=10**12).fit(np.ones((2, 3)))
    with pytest.raises(InputError, match="translation-invariant kernel"):  # checked at fit, as scikit-learn's
        RandomFourierFeatures(np.array(["rbf", "laplacian"]), gamma=1.0).fit(np.ones((2, 3)))


def _absolute(z):
    import cvxpy as cp

    return cp.abs(z)


def _right_hinge(z):
    import cvxpy as cp

    return cp.pos(-z)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("loss, named", [("huber_regression", "loss huber_regression:m=1"),
                                         (_absolute, "user loss _absolute"),
                                         (_right_hinge, "user loss _right_hinge")])
def test_a_loss_smallest_at_zero_is_refused_by_name_before_the_charge(name, loss, named):
    # l(0) = inf l gives C = sqrt(2 (l(0) - inf l) / lam) = 0: TDDL charged, then divided by C (ZeroDivisionError);
    # PINP and TDIL refused with "C must be finite and positive, got 0.0", which did not say why
    model, keywords = learner(name, loss=loss)
    refused_without_charge(model, keywords, rf"the {named} \(.*\) is smallest at the margin z = 0 .*only feasible "
                                            r"predictor is w = 0.*'hinge', 'huber', 'huber_hinge', 'logistic'")
    with pytest.raises(InputError, match="smallest at the margin z = 0"):
        model.check_options(1.0, 1e-6)


def test_an_unknown_loss_name_lists_exactly_the_losses_the_kernel_learners_take():
    # the catalogue's list left out the hinge (the default) and named the regression losses, which are refused
    with pytest.raises(InputError, match=r"unknown loss 'hing'; the kernel learners take the losses hinge, huber, "
                                         r"huber_hinge, logistic \("):
        TDDL("rbf", gamma=1.0, lam=0.1, loss="hing").check_options(1.0)
    for accepted in ("hinge", "huber", "huber_hinge:h=0.5", "logistic"):
        TDDL("rbf", gamma=1.0, lam=0.1, loss=accepted).check_options(1.0)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kernel, params, match", [
    # parameters the chosen kernel does not use are checked all the same (scikit-learn checks SVC's so); each
    # was accepted without a word before and kept in the learner's parameters
    ("linear", {"degree": "x"}, "degree must be a positive integer, got 'x'"),
    ("linear", {"gamma": "x"}, "gamma must be a positive number"),
    ("linear", {"offset": -1.0}, "offset must be finite and non-negative"),
    ("rbf", {"offset": float("nan")}, "offset must be finite and non-negative"),
    ("rbf", {"degree": 0}, "degree must be a positive integer"),
    ("rbf", {"feature_bound": -1.0}, "feature_bound must be finite and positive"),
    ("rbf", {"input_bound": float("nan")}, "input_bound must be finite and positive"),
])
def test_a_parameter_the_kernel_does_not_use_is_checked_before_the_charge(name, kernel, params, match):
    if name == "TDIL" and "input_bound" in params:  # TDIL's own net uses input_bound whatever the kernel
        with pytest.raises(InputError, match=match):
            learner(name, kernel, **params)
        return
    model, keywords = learner(name, kernel, **params)
    refused_without_charge(model, keywords, match)


@pytest.mark.parametrize("bound", [1e100, 1e-100])
def test_tdil_takes_input_bound_in_the_range_its_fit_takes(bound):
    """TDIL's constructor checked input_bound by positive() on [2.2e-308, 4.5e307] and its fit by the kernel's
    check_bound on [1e-75, 1e75]: 1e100 was accepted at construction and refused at fit. One range, at once."""
    with pytest.raises(InputError, match=r"input_bound=1e[-+]100 is outside the range \[1e-75, 1e\+75\]"):
        learner("TDIL", input_bound=bound)
    model, _ = learner("TDIL")
    with pytest.raises(InputError, match=r"input_bound=1e[-+]100 is outside the range \[1e-75, 1e\+75\]"):
        model.set_params(input_bound=bound)
    assert learner("TDIL", input_bound=1e75)[0].input_bound == 1e75
