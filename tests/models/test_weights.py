"""Record weights (docs/theory.md, section 21): sample_weight under a public bound, class weights, and the
private class count of class_weight="balanced"."""

import json
import math
import warnings
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import dpcvx
from dpcvx.exceptions import ClippingWarning, InputError, UnsupportedWeightsError
from dpcvx.models import class_count
from dpcvx.models.class_count import CountPlan, draw_class_count
from dpcvx.privacy import calibrate
from dpcvx.privacy.exact_sampling import discrete_laplace_pmf, integer_source


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    n, d = 1500, 4
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = (rng.random(n) < 1 / (1 + np.exp(-(3 * X @ np.array([1.0, -1.0, 0.5, 0.0]) - 2)))).astype(int)
    return X, y, rng.uniform(0.0, 2.0, n)


def erm(**settings):
    return dpcvx.PrivateERM(lam=0.01, data_norm=1.0, classes=(0, 1), **settings)


# -- calibration: L and c times w_max -----------------------------------------------------------------------


def test_output_perturbation_beta_uses_w_max_L(data):
    X, y, s = data
    model = erm(sample_weight_bound=2.0).fit(X, y, 1.0, "output", sample_weight=s, random_state=0)
    n = len(y)
    expected = calibrate.output_perturbation(n, 0.01, 1.0, L=2.0, R=1.0, m=1.0, tol=calibrate.DEFAULT_TOL)
    assert model.certificate.calibration.to_dict()["beta"] == expected.beta
    assert model.certificate.constants["L"] == Fraction(2)
    unweighted = erm().fit(X, y, 1.0, "output", random_state=0)
    assert model.certificate.calibration.to_dict()["beta"] < unweighted.certificate.calibration.to_dict()["beta"]


def test_objective_perturbation_uses_w_max_L_and_c(data):
    X, y, s = data
    model = erm(sample_weight_bound=3.0).fit(X, y, 1.0, sample_weight=s, random_state=0)
    expected = calibrate.objective_perturbation(len(y), 0.01, 1.0, 0.75, L=3.0, R=1.0, m=1.0, split="max",
                                                tol=calibrate.DEFAULT_TOL)
    calibration = model.certificate.calibration.to_dict()
    assert calibration["beta"] == expected.beta and calibration["epsilon_prime"] == expected.epsilon_prime
    assert (model.certificate.constants["L"], model.certificate.constants["c"]) == (Fraction(3), Fraction(3, 4))
    assert model.certificate.weights.bound == 3.0


def test_a_float_bound_is_rounded_up():
    problem = dpcvx.PrivateERM(loss="huber:h=0.5", data_norm=1.0)._verified(3).weighted(0.1)
    assert problem.lipschitz >= 0.1 and problem.curvature >= 0.1 * 1.0   # Fraction(0.1) is above 1/10 by 5e-18
    assert Fraction(problem.certificate.lipschitz) == Fraction(0.1)


# -- the solve is the weighted problem on every path --------------------------------------------------------


def sklearn_weighted(X, y, s, lam):
    """The non-private minimiser of (1/n) sum s_i l + lam/2 ||w||^2: scikit-learn's C = 1 / (lam n)."""
    reference = LogisticRegression(C=1 / (lam * len(y)), fit_intercept=False, tol=1e-12, max_iter=10_000)
    return reference.fit(X, y, sample_weight=s).coef_.ravel()


PATHS = {
    "newton objective": ({}, {}),
    "newton output": ({}, {"mechanism": "output"}),
    "gaussian objective": ({}, {"delta": 1e-8, "epsilon": 300.0}),   # (its calibration overflows above 700)
    "cvxpy": ({"solver": "cvxpy"}, {}),
    "proximal (ball)": ({"constraints": lambda w: [cp.norm(w, 2) <= 50]}, {}),
}


@pytest.mark.parametrize("settings, fit", PATHS.values(), ids=PATHS.keys())
def test_every_solver_path_solves_the_weighted_problem(data, settings, fit):
    # at epsilon 1e6 the noise moves w by about 1e-5: the release is the weighted minimiser, not the unweighted
    X, y, s = data
    model = erm(sample_weight_bound=2.0, **settings).fit(X, y, **{"epsilon": 1e6, **fit}, sample_weight=s,
                                                         random_state=1)
    weighted, plain = sklearn_weighted(X, y, s, 0.01), sklearn_weighted(X, y, np.ones(len(y)), 0.01)
    assert np.linalg.norm(weighted - plain) > 0.05   # the weights matter on these data
    assert np.allclose(model.coef_, weighted, atol=5e-3), (model.coef_, weighted)


def test_a_weighted_private_fit_refuses_a_user_solver(data):
    """A user's solver has no proved budget: a private fit refuses it before the charge, weighted or not (it was one
    of the paths above until the seventy-first session; docs/theory.md, section 7.1)."""
    X, y, s = data
    with pytest.raises(dpcvx.InputError, match="user's solver"):
        erm(sample_weight_bound=2.0, solver=lambda program, w: program.solve(solver="CLARABEL")).fit(
            X, y, epsilon=1.0, sample_weight=s, random_state=1)


def test_unit_weights_release_what_no_weights_release(data):
    X, y, _ = data
    plain = erm().fit(X, y, 1.0, random_state=3)
    unit = erm(sample_weight_bound=1.0).fit(X, y, 1.0, sample_weight=np.ones(len(y)), random_state=3)
    assert plain.certificate.weights is None and unit.certificate.weights.source == "sample_weight"
    assert unit.certificate.calibration == plain.certificate.calibration
    assert np.allclose(unit.coef_, plain.coef_, rtol=0, atol=1e-8)


def test_weights_are_clipped_onto_the_bound_with_a_warning_to_the_owner_only(data):
    X, y, s = data
    with pytest.warns(ClippingWarning, match=r"\d+ of 1500 sample weights.*NOT PRIVATE"):
        clipped = erm(sample_weight_bound=1.0).fit(X, y, 1e6, sample_weight=s, random_state=1)
    assert np.allclose(clipped.coef_, sklearn_weighted(X, y, np.minimum(s, 1.0), 0.01), atol=2e-3)
    assert "sample weights" not in json.dumps(clipped.certificate.to_dict())


# -- refusals: before anything is charged -------------------------------------------------------------------


REFUSED = {
    "no bound": (lambda: erm(), {"sample_weight": "s"}, UnsupportedWeightsError, "sample_weight_bound"),
    "float_safe": (lambda: erm(sample_weight_bound=1.0, float_safe=True), {"sample_weight": "s"},
                   UnsupportedWeightsError, "float_safe"),
    "bad shape": (lambda: erm(sample_weight_bound=1.0), {"sample_weight": "short"}, InputError, "shape"),
    "nan": (lambda: erm(sample_weight_bound=1.0), {"sample_weight": "nan"}, InputError, "NaN"),
    "unknown class": (lambda: erm(class_weight={0: 1.0, 7: 2.0}), {}, InputError, "not among"),
    "negative class weight": (lambda: erm(class_weight={0: -1.0}), {}, InputError, ">= 0"),
    "bad prior": (lambda: erm(class_weight="balanced", class_prior=(0.5, 0.6)), {}, InputError, "sum to 1"),
    "prior without balanced": (lambda: erm(class_prior=(0.5, 0.5)), {}, InputError, "balanced"),
    "count under add-remove": (lambda: erm(class_weight="balanced"), {"delta": 1e-6, "neighbours": "add-remove",
                                                                      "n_public": 1500}, InputError, "replace-one"),
    "count with a private norm": (lambda: erm(class_weight="balanced").set_params(data_norm="private",
                                                                                  norm_range=(0.5, 4)),
                                  {}, InputError, "class_prior"),
    "count share": (lambda: erm(class_weight="balanced", class_count_share=1.5), {}, InputError, r"\(0, 1\)"),
}


@pytest.mark.parametrize("where", ["memory", "memmap"])
@pytest.mark.parametrize("make, extra, error, text", REFUSED.values(), ids=REFUSED.keys())
def test_refused_before_any_charge(data, tmp_path, make, extra, error, text, where):
    """The same refusals, with the same messages, for rows in memory and a memmap (which takes record weights)."""
    X, y, s = data
    if where == "memmap":
        np.save(tmp_path / "X.npy", X)
        X = np.load(tmp_path / "X.npy", mmap_mode="r")
    values = {"s": s, "short": s[:10], "nan": np.where(np.arange(len(s)) == 3, np.nan, s)}
    extra = {key: values.get(value, value) if isinstance(value, str) else value for key, value in extra.items()}
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(error, match=text):
        make().fit(X, y, 1.0, accountant=accountant, random_state=0, **extra)
    assert accountant.ledger == []


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("draw", [dict(class_weight="balanced"), dict(class_prior="private", fit_intercept=True)])
def test_one_vs_rest_over_a_binary_learner_that_draws_first_refuses_gaussian_composition_before_the_charge(data, draw):
    """Output perturbation with delta > 0 composes the k releases as Gaussian mechanisms (theory section 15); a binary
    learner that first draws a class count releases more than a Gaussian: a typed refusal with
    or without an accountant, nothing charged (objective perturbation fits, by basic composition)."""
    X, y, _ = data
    labels = np.arange(len(y)) % 3
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    binary = dpcvx.PrivateERM(lam=0.01, data_norm=1.0, **draw)
    for charged in (accountant, None):
        with pytest.raises(InputError, match="class count"):
            dpcvx.PrivateMulticlassERM(binary, (0, 1, 2)).fit(X, labels, 3.0, "output", delta=1e-6,
                                                             accountant=charged)
    assert accountant.ledger == []
    dpcvx.PrivateMulticlassERM(binary, (0, 1, 2)).fit(X, labels, 3.0, delta=1e-6, accountant=accountant,
                                                     random_state=0)
    assert len(accountant.ledger) == 1


def test_multiclass_estimators_refuse_weights_before_the_charge(data):
    X, y, _ = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    labels = np.arange(len(y)) % 3
    with pytest.raises(UnsupportedWeightsError, match="class_weight"):
        dpcvx.DPLogisticRegression(classes=(0, 1, 2), class_weight="balanced").fit(X, labels, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("weights, fit", [
    ({"class_weight": "balanced", "sample_weight_bound": 20.0}, {}),
    ({"class_weight": {0: 1.0, 1: 1.0, 2: 5.0}, "sample_weight_bound": 5.0}, {}),
    ({"sample_weight_bound": 5.0}, {"sample_weight": "ones"}),
])
def test_a_multiclass_refusal_of_weights_says_why_and_a_fix_that_works(data, weights, fit):
    """Audit: the refusal offered sample_weight_bound, which was refused as well, and never said the fit was
    multiclass. Its two-class fix named class_weight='balanced'; it names the private class count and its cut, which
    benchmarks/multiclass_tuning.py measured (the rarest class told from the rest at 0.893, one-vs-rest 0.785)."""
    X, y, _ = data
    labels = np.arange(len(y)) % 3
    options = {name: np.ones(len(y)) for name in fit}
    with pytest.raises(UnsupportedWeightsError, match=r"with more than two classes \(classes=\(0, 1, 2\)\) it fits "
                                                      r"one-vs-rest.*DPLogisticRegression\(classes=\(0, 1, 2\), "
                                                      r"class_prior='private', threshold='prior'\) fits each class "
                                                      r"against the rest from its own private count at epsilon / k"
                       ) as refused:
        dpcvx.DPLogisticRegression(classes=(0, 1, 2), **weights).fit(X, labels, **options)
    assert "binary linear learners" not in str(refused.value)
    fixed = dpcvx.DPLogisticRegression(classes=(False, True), class_prior="private", threshold="prior",
                                       random_state=0).fit(X, labels == 2)
    assert fixed.certificate_.weights.private_count is not None  # the fix it names fits, with its private count


def test_the_estimators_multiclass_refusal_of_weights_is_true_and_names_the_library_path(data):
    """Audit: the refusal said one-vs-rest's noise is calibrated for unit weights, while the library's one-vs-rest
    calibrates every class for its binary learner's w_max; the estimator passes no weights to its k problems."""
    X, y, _ = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(UnsupportedWeightsError, match=r"passes no weights to its k problems.*"
                                                      r"PrivateMulticlassERM\(dpcvx\.PrivateERM") as refused:
        dpcvx.DPLogisticRegression(classes=(0, 1, 2), sample_weight_bound=4.0).fit(
            X, np.arange(len(y)) % 3, sample_weight=np.ones(len(y)), accountant=accountant)
    assert "calibrated for unit weights" not in str(refused.value) and accountant.ledger == []


@pytest.mark.parametrize("weights, fit", [({"sample_weight_bound": 4.0}, {"sample_weight": "ones"}),
                                          ({"class_weight": {-1: 1.0, 1: 4.0}}, {})])
def test_one_vs_rest_in_the_library_calibrates_every_class_for_its_binary_learners_weights(data, weights, fit):
    """docs/theory.md section 21: PrivateMulticlassERM takes its binary learner's weights, each class's problem a
    weighted problem with the same w_max (L and c times w_max), charged once; the release is the binary learner's
    weighted release of each class at its share."""
    X, y, _ = data
    labels = np.arange(len(y)) % 3
    options = {name: np.ones(len(y)) for name in fit}
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    binary = dpcvx.PrivateERM(lam=0.01, data_norm=1.0, **weights)
    model = dpcvx.PrivateMulticlassERM(binary, (0, 1, 2)).fit(X, labels, 3.0, accountant=accountant, random_state=0,
                                                              **options)
    assert [entry.cost.epsilon for entry in accountant.ledger] == [3.0]
    unweighted = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, np.where(labels == 0, 1, -1), 1.0, random_state=0)
    for index, certificate in enumerate(model.certificate.per_class):
        assert certificate.weights is not None and certificate.weights.bound == 4.0
        assert certificate.constants.L == 4 * unweighted.certificate.constants.L
        assert certificate.constants.c == 4 * unweighted.certificate.constants.c
        alone = binary.fit(X, np.where(labels == index, 1, -1), model.certificate.class_epsilon, **options,
                           random_state=np.random.default_rng(0))  # the binary learner's own weighted calibration
        assert str(certificate.calibration) == str(alone.certificate.calibration)


def test_a_multiclass_private_prior_fits_one_count_per_class(data):
    """Refused before (one-vs-rest took no class prior); each class's fit now draws its own count within epsilon / k
    (tests/models/test_multiclass_prior.py)."""
    X, y, _ = data
    fitted = dpcvx.DPLogisticRegression(classes=(0, 1, 2), class_prior="private", random_state=0).fit(
        X, np.arange(len(y)) % 3)
    assert all(one.weights.private_count is not None for one in fitted.certificate_.per_class)


# -- class weights --------------------------------------------------------------------------------------------


def test_a_class_weight_dict_weighs_each_record_by_its_class(data):
    X, y, _ = data
    model = erm(class_weight={0: 0.25, 1: 2.0}).fit(X, y, 1e6, random_state=1)
    assert np.allclose(model.coef_, sklearn_weighted(X, y, np.where(y == 1, 2.0, 0.25), 0.01), atol=2e-3)
    assert model.certificate.weights.bound == 2.0 and model.certificate.constants["L"] == Fraction(2)
    assert model.certificate.weights.class_weights == ((0, 0.25), (1, 2.0))


def test_balanced_from_a_public_prior_draws_nothing(data, monkeypatch):
    X, y, _ = data
    monkeypatch.setattr(class_count, "discrete_laplace", lambda *a: pytest.fail("a count was drawn"))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    model = erm(class_weight="balanced", class_prior={0: 0.8, 1: 0.2}).fit(X, y, 1.0, accountant=accountant)
    assert model.certificate.weights.source == "prior"
    assert model.certificate.weights.class_weights == ((0, 0.25), (1, 1.0))
    assert [entry.cost.epsilon for entry in accountant.ledger] == [1.0]


# -- the private count ------------------------------------------------------------------------------------------


def test_the_count_is_drawn_with_scale_one_over_eps_c_exactly(data, monkeypatch):
    X, y, _ = data
    scales = []

    def recording(scale, source):
        scales.append(scale)
        return 0

    monkeypatch.setattr(class_count, "discrete_laplace", recording)
    model = erm(class_weight="balanced", class_count_share=0.1).fit(X, y, 2.0, random_state=0)
    eps_c = 2.0 * 0.1
    assert scales == [1 / Fraction(eps_c)]
    record = model.certificate.weights.private_count
    assert record["epsilon"] == eps_c and record["count"] == int(y.sum())   # Z = 0 here: the true count
    pi = y.mean()
    (_, negative), positive = model.certificate.weights.class_weights
    assert negative == pytest.approx(pi / (1 - pi), rel=1e-14) and positive == (1, 1.0)


def test_the_count_noise_law_is_the_discrete_laplace_of_scale_one_over_eps_c():
    # seeded audit: 4,000 draws of the released count of 300 positives among n = 10,000 at eps_c = 0.5
    plan = CountPlan(eps_count=0.5, eps_fit=0.5, delta=0.0, n=10_000, classes=(0, 1))
    labels = np.where(np.arange(plan.n) < 300, 1.0, -1.0)
    source = integer_source(np.random.default_rng(11))
    noise = np.array([draw_class_count(labels, plan, source) - 300 for _ in range(4000)])
    values = np.arange(-15, 16)
    observed = np.array([np.mean(noise == v) for v in values])
    for scale, passes in ((2.0, True), (4.0, False)):   # the right law, then a law twice as wide
        expected = discrete_laplace_pmf(values, scale)
        statistic = 4000 * float(np.sum((observed - expected) ** 2 / expected))
        assert (statistic < 70) == passes, (scale, statistic)   # chi-square, 31 cells: P[> 70] < 1e-4


def test_the_count_is_floored_at_the_public_minimum():
    plan = CountPlan(eps_count=1.0, eps_fit=1.0, delta=0.0, n=1000, classes=(0, 1))
    source = integer_source(np.random.default_rng(0))
    assert draw_class_count(-np.ones(1000), plan, source) >= plan.floor == 10
    assert draw_class_count(np.ones(1000), plan, source) <= 990


def test_one_charge_one_certificate_and_a_file_that_round_trips(data, tmp_path):
    X, y, _ = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    estimator = dpcvx.DPLogisticRegression(class_weight="balanced", random_state=4)
    estimator.fit(X, y, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    certificate = estimator.certificate_
    assert certificate.total_epsilon == 1.0 and certificate.epsilon == 0.95
    assert "private count" in str(certificate) and "eps_c = 0.05" in str(certificate)
    assert [part.epsilon for part in certificate.privacy_curve.parts] == [0.05, 0.95]
    path = tmp_path / "model.json"
    dpcvx.save(estimator, path)
    loaded = dpcvx.load(path)
    assert loaded.certificate.weights == certificate.weights
    assert np.array_equal(loaded.decision_function(X), estimator.decision_function(X))
    saved = json.loads(path.read_text())
    saved["certificate"]["weights"]["private_count"]["count"] = 0   # below the floor: edited
    path.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="floor"):
        dpcvx.load(path)


def test_balanced_weights_recover_the_rare_class():
    # 3% positives: the defaults release (nearly) the majority class; balanced weights find the positives
    rng = np.random.default_rng(2)
    n, d = 20_000, 4
    X = rng.normal(size=(n, d)) / 2
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = (rng.random(n) < 1 / (1 + np.exp(-(6 * X[:, 0] - 5)))).astype(int)
    assert 0.02 < y.mean() < 0.06
    scores = {}
    for weight in (None, "balanced"):
        model = dpcvx.DPLogisticRegression(class_weight=weight, random_state=0).fit(X, y)
        predicted = model.predict(X)
        scores[weight] = np.mean([np.mean(predicted[y == k] == k) for k in (0, 1)])
    assert scores["balanced"] > 0.7 and scores["balanced"] > scores[None] + 0.1, scores
    assert math.isfinite(scores[None])


# -- the effective sample size n s_bar ---------------------------------------------------------------------------


def test_lam_auto_is_the_rule_of_n_s_bar_records_mapped_back(data):
    X, y, _ = data
    X, y = X[:1000], y[:1000]
    learner = dpcvx.PrivateERM(lam="auto", data_norm=1.0, classes=(0, 1), class_weight="balanced",
                               class_prior=(0.9, 0.1))
    model = learner.fit(X, y, 1.0, random_state=0)
    mean = model.certificate.weights.mean_weight
    assert mean == pytest.approx(0.2, rel=1e-12)   # s_bar = 2 pi_min
    unweighted = dpcvx.PrivateERM(lam="auto", data_norm=1.0).choose_lam(200, X.shape[1], 1.0)
    assert model.certificate.constants["lam"] == pytest.approx(mean * unweighted.lam, rel=1e-12)


def test_lam_auto_with_sample_weights_reads_no_mean_weight_and_its_file_loads(data, tmp_path):
    """With sample_weight the record weights have no public mean (the certificate records none), so the rule is
    the unweighted one, as the loader re-derives it: the rule used the class weights' s_bar, and dpcvx.load refused
    the file it saved as edited ("certificate.lam_rule.noise is 0.741 but the rule's bound ... gives 0.445")."""
    X, y, _ = data
    X, y = X[:1000], y[:1000]
    weights = np.random.default_rng(4).uniform(0.5, 2.0, len(y))
    model = dpcvx.PrivateERM(lam="auto", data_norm=1.0, classes=(0, 1), class_weight="balanced",
                             class_prior=(0.3, 0.7), sample_weight_bound=2.0).fit(
        X, y, 1.0, delta=1e-6, random_state=1, sample_weight=weights)
    assert model.certificate.weights.mean_weight is None
    dpcvx.save(model, tmp_path / "weighted.json")
    loaded = dpcvx.load(tmp_path / "weighted.json")
    assert loaded.certificate.lam_rule == model.certificate.lam_rule


def test_the_noise_warning_sees_n_s_bar_records(data):
    from dpcvx.models.record_weights import effective_view

    X, y, _ = data
    model = erm(class_weight="balanced", class_prior=(0.75, 0.25)).fit(X, y, 1.0, random_state=0)
    view = effective_view(model.certificate)
    assert view.constants["n"] == round(len(y) * 0.5) and view.constants["lam"] == pytest.approx(0.02)
    assert effective_view(erm().fit(X, y, 1.0, random_state=0).certificate).constants["n"] == len(y)


# -- the intercept offset (models.intercept_offset) -------------------------------------------------------------


def rare(n=6000, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) / 2
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, (rng.random(n) < 0.03).astype(int)


def quiet_fit(estimator, X, y):
    return estimator.fit(X, y)


def test_the_offset_is_a_centred_ridge_with_the_same_constants_and_noise():
    X, y = rare()
    plain = quiet_fit(dpcvx.DPLogisticRegression(random_state=0), X, y)
    offset = quiet_fit(dpcvx.DPLogisticRegression(class_prior=(0.97, 0.03), random_state=0), X, y)
    # the public centre, stated as a regularizer's text (it was numpy's print of an array, "w + -[ 0. ... ]", rounded)
    text = offset.certificate_.verification.regularizer
    shift = float(text.rpartition(", ")[2].removesuffix("))"))
    assert text.startswith("0.5 * sum_squares(w + (0, ") and "[" not in text, text
    assert repr(shift) in text and shift > 0  # b0 = log(0.03 / 0.97) < 0: the centre -shift, in full precision
    assert offset.certificate_.constants == plain.certificate_.constants
    assert offset.certificate_.calibration == plain.certificate_.calibration
    # no signal in X: the offset model's intercept is near log(0.03 / 0.97), the ridge at 0 pulls it towards 0
    b0 = math.log(0.03 / 0.97)
    assert abs(offset.intercept_[0] - b0) < abs(plain.intercept_[0] - b0)
    assert abs(offset.intercept_[0] - b0) < 0.5


def test_predict_proba_is_the_released_link_before_and_after_a_file(tmp_path):
    X, y = rare()
    estimator = quiet_fit(dpcvx.DPLogisticRegression(class_prior={0: 0.97, 1: 0.03}, random_state=1), X, y)
    proba = estimator.predict_proba(X)[:, 1]
    assert np.allclose(proba, 1 / (1 + np.exp(-estimator.decision_function(X))), rtol=1e-12)
    dpcvx.save(estimator, tmp_path / "m.json")
    assert np.array_equal(dpcvx.load(tmp_path / "m.json").predict_proba(X)[:, 1], proba)


@pytest.mark.parametrize("settings", [{"class_weight": "balanced"}, {"penalty": "l1"}, {"fit_intercept": False}],
                         ids=["balanced", "l1", "no intercept"])
def test_no_offset_where_it_does_not_apply(settings):
    estimator = dpcvx.DPLogisticRegression(class_prior=(0.97, 0.03), **settings)
    assert estimator._offset_rates() is None
    assert dpcvx.DPHuberSVM(class_prior=(0.97, 0.03))._offset_rates() is None   # the logistic link only


# -- the intercept offset and the threshold from the private count (class_prior="private") ------------------------


def test_the_private_offset_is_the_public_offset_at_the_released_rates(monkeypatch):
    # the count drawn (here fixed at 170) sets the centre b0 = log(170 / (n - 170)) / s, and nothing else: the fit
    # equals the public-prior offset fit at those rates with eps_fit and the same seed, exactly
    X, y = rare()
    monkeypatch.setattr(class_count, "draw_class_count", lambda labels, plan, source: 170)
    private = quiet_fit(dpcvx.DPLogisticRegression(class_prior="private", threshold="prior", random_state=7), X, y)
    rates = ((len(y) - 170) / len(y), 170 / len(y))
    public = quiet_fit(dpcvx.DPLogisticRegression(class_prior=rates, epsilon=0.95, random_state=7), X, y)
    assert np.array_equal(private.coef_, public.coef_) and np.array_equal(private.intercept_, public.intercept_)
    assert private.certificate_.verification.regularizer == public.certificate_.verification.regularizer
    b0 = math.log(170 / (len(y) - 170))
    assert private._cut(private.model_) == pytest.approx(b0, rel=1e-15)   # threshold="prior": the same log-odds
    assert np.array_equal(private.predict(X), np.where(private.decision_function(X) > b0, 1, 0))
    assert f"= {b0:.6g}" in str(private.certificate_) and "intercept offset" in str(private.certificate_)


def test_the_private_offset_charges_once_and_its_file_round_trips(tmp_path):
    X, y = rare()
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    estimator = dpcvx.DPLogisticRegression(class_prior="private", threshold="prior", random_state=4)
    estimator.fit(X, y, accountant=accountant)
    assert [entry.cost.epsilon for entry in accountant.ledger] == [1.0]
    certificate = estimator.certificate_
    # the default column_statistics="auto" draws the histogram ranges on these rows (docs/theory.md, section 34):
    # eps_s = 0.1, then the count (0.045) and the fit (0.855), one charge
    assert certificate.total_epsilon == 1.0 and certificate.epsilon == pytest.approx(0.855)
    assert certificate.column_statistics["epsilon"] == pytest.approx(0.1)
    assert certificate.weights.private_count["epsilon"] == pytest.approx(0.045)
    assert certificate.weights.source == "private count, intercept offset" and certificate.weights.bound == 1.0
    assert certificate.weights.class_weights is None and certificate.weights.mean_weight is None
    path = tmp_path / "model.json"
    dpcvx.save(estimator, path)
    loaded = dpcvx.load(path)
    assert loaded.certificate.weights == certificate.weights and str(loaded.certificate) == str(certificate)
    assert np.array_equal(loaded.decision_function(X), estimator.decision_function(X))
    saved = json.loads(path.read_text())
    saved["certificate"]["weights"]["class_weights"] = [[0, 0.5], [1, 1.0]]   # weights beside the offset: edited
    path.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="unit weights"):
        dpcvx.load(path)


@pytest.mark.parametrize("make", [
    lambda: dpcvx.DPHuberSVM(class_prior="private"),
    lambda: dpcvx.DPLogisticRegression(class_prior="private", penalty="l1"),
    lambda: dpcvx.DPLogisticRegression(class_prior="private", fit_intercept=False),
    lambda: dpcvx.DPLogisticRegression(threshold="prior"),
    lambda: dpcvx.DPLogisticRegression(class_prior="private", threshold="prior", neighbours="add-remove",
                                       n_public=6000, delta=1e-6),
    lambda: erm(class_prior="private", fit_intercept=False),
], ids=["huber", "l1", "no intercept", "prior threshold without prior", "add-remove", "PrivateERM no intercept"])
def test_the_private_offset_is_refused_before_any_charge(make, monkeypatch):
    X, y = rare(n=1000)
    monkeypatch.setattr(class_count, "discrete_laplace", lambda *a: pytest.fail("a count was drawn"))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    learner = make()
    with pytest.raises(InputError):
        if isinstance(learner, dpcvx.PrivateERM):
            learner.fit(X, y, 1.0, accountant=accountant)
        else:
            learner.fit(X, y, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("make", [
    lambda prior: dpcvx.DPHuberSVM(class_prior=prior),
    lambda prior: dpcvx.DPERMClassifier(class_prior=prior),
    lambda prior: dpcvx.DPLogisticRegression(class_prior=prior, fit_intercept=False),
    lambda prior: dpcvx.DPLogisticRegression(class_prior=prior, penalty="l1"),
    lambda prior: dpcvx.DPLogisticRegression(class_prior=prior, data_norm="private", norm_range=(0.5, 4.0)),
    lambda prior: dpcvx.DPLogisticRegression(class_prior=prior, classes=(0, 1, 2)),
], ids=["huber", "DPERMClassifier", "no intercept", "l1", "private norm", "three classes"])
def test_a_public_prior_without_effect_is_refused_before_any_charge(make):
    # without class weights class_prior is read only as the logistic intercept offset: elsewhere it is refused, as
    # PrivateERM refuses it, and never silently dropped from a fit that was charged
    X, y = rare(n=1000)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    refused = "class_prior=\\(0.3, 0.7\\)(: rates of k| without class weights .* no effect)"  # k > 2: "private" only
    with pytest.raises(InputError, match=refused):
        make((0.3, 0.7)).fit(X, y, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("prior", [(5, -3), float("nan"), "garbage", -0.1, Fraction(3, 10), True, (0.5, 0.6)],
                         ids=["(5, -3)", "nan", "text", "-0.1", "Fraction", "True", "sum 1.1"])
@pytest.mark.parametrize("make", [
    lambda prior: dpcvx.DPHuberSVM(class_prior=prior),
    lambda prior: dpcvx.DPLogisticRegression(class_prior=prior, fit_intercept=False),
    lambda prior: dpcvx.DPHuberSVM(class_prior=prior, class_weight="balanced"),
], ids=["huber", "no intercept", "balanced"])
def test_a_malformed_prior_is_refused_by_the_one_check_before_any_charge(make, prior):
    X, y = rare(n=1000)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="class_prior"):
        make(prior).fit(X, y, accountant=accountant)
    assert accountant.ledger == []


def test_balanced_weights_measure_the_small_table_rule_with_the_smallest_class():
    # n eps / d = 3000 / 41 = 73 passes the rule; the smallest class's 5%: 150 / 41 = 3.7 does not
    rng = np.random.default_rng(8)
    X = rng.uniform(-0.1, 0.1, size=(3000, 40))
    y = (rng.random(3000) < 0.05).astype(int)
    for weight, warned in ((None, False), ("balanced", True)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dpcvx.DPLogisticRegression(class_weight=weight, random_state=0).fit(X, y)
        assert any(w.category is dpcvx.exceptions.SmallTableWarning for w in caught) is warned, weight


def test_a_regression_takes_sample_weight_through_private_erm():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=2000)
    s = np.where(np.arange(2000) < 1000, 0.0, 2.0)   # the first half weighs nothing
    y_broken = np.where(np.arange(2000) < 1000, -y, y)   # ... so its labels, flipped, do not matter
    learner = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(), task="regression", label_bound=4.0,
                               data_norm=1.0, lam=1e-3, sample_weight_bound=2.0)
    model = learner.fit(X, y_broken, 1e5, sample_weight=s, random_state=0)
    assert model.certificate.constants["L"] == 2 * learner.fit(X, y, 1e5, random_state=0).certificate.constants["L"]
    assert np.allclose(model.coef_, [1.0, -2.0, 0.5], atol=0.05)


def test_the_huber_regressor_takes_sample_weight_with_its_bound():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1500, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = 0.3 * (X @ np.array([1.0, -1.0, 0.5]))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(UnsupportedWeightsError, match="sample_weight_bound"):
        dpcvx.DPHuberRegressor().fit(X, y, sample_weight=np.ones(1500), accountant=accountant)
    with pytest.raises(UnsupportedWeightsError, match="AdaSSP|unit weights"):   # AdaSSP keeps refusing
        dpcvx.DPLinearRegression().fit(X, y, sample_weight=np.ones(1500), accountant=accountant)
    assert accountant.ledger == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        model = dpcvx.DPHuberRegressor(sample_weight_bound=2.0, random_state=0).fit(
            X, y, sample_weight=np.full(1500, 2.0), accountant=accountant)
    assert model.certificate_.weights.bound == 2.0 and len(accountant.ledger) == 1


def test_a_numpy_pair_of_rates_is_a_class_prior_as_a_tuple_is(data):
    # np.array([0.8, 0.2]) was refused as not "a pair of rates" (an audit)
    X, y, _ = data
    fits = [erm(class_weight="balanced", class_prior=prior).fit(X, y, epsilon=1.0, random_state=0)
            for prior in ((0.8, 0.2), np.array([0.8, 0.2]))]
    assert np.array_equal(fits[0].coef_, fits[1].coef_)
    assert fits[0].certificate.to_dict() == fits[1].certificate.to_dict()
