"""as_opendp_measurement: dpcvx fits as OpenDP measurements, composed and refused by OpenDP's compositor."""

import math
import sys

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.opendp_bridge import DATA_DOMAIN, WEIGHTED_DATA_DOMAIN, as_opendp_measurement
from dpcvx.release.kernel_model import PrivateKernelModel

dp = pytest.importorskip("opendp.prelude")


@pytest.fixture(scope="module")
def data():
    return synthetic_classification(n=500, d=3, random_state=11)


@pytest.fixture(scope="module")
def learner():
    return dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)


def _compositor(measurement, d_mids):
    return dp.c.make_adaptive_composition(measurement.input_domain, measurement.input_metric,
                                          measurement.output_measure, d_in=1, d_mids=d_mids)


class Recording:
    """A learner that records its fits (none may run when the measurement or its input is refused)."""

    def __init__(self, learner):
        self.learner, self.calls = learner, []

    def fit(self, X, y, epsilon, **kwargs):
        self.calls.append(epsilon)
        return self.learner.fit(X, y, epsilon, **kwargs)

    def __deepcopy__(self, memo):  # the measurement fits copies of its learner: they record into this one's list
        return self


def test_the_recording_learner_records_a_fit_the_measurement_runs(data, learner):
    recording = Recording(learner)
    as_opendp_measurement(recording, 0.5)(data)
    assert recording.calls == [0.5]  # so the refusals' "recording.calls == []" below can fail


def test_two_fits_compose_in_the_adaptive_compositor_and_a_third_is_refused(data, learner):
    measurement = as_opendp_measurement(learner, 0.5)  # noise from OS entropy: each fit draws anew
    assert str(measurement.input_metric) == "ChangeOneDistance()"  # replace-one
    assert str(measurement.output_measure) == "MaxDivergence"
    assert measurement.map(1) == 0.5 and measurement.map(0) == 0.0
    queryable = _compositor(measurement, [0.5, 0.5])(data)
    first, second = queryable(measurement), queryable(measurement)
    X, y = data
    for model in (first, second):
        assert isinstance(model, dpcvx.PrivateModel) and model.epsilon == 0.5
        assert model.score(X, y) > 0.6  # a useful model (n = 500, epsilon = 0.5; about 0.9 here)
    assert not np.array_equal(first.coef_, second.coef_)  # two fits, two draws of the noise
    with pytest.raises(dp.OpenDPException, match="out of queries"):
        queryable(measurement)


def test_a_fit_over_its_share_is_refused_before_it_runs(data, learner):
    calls = []

    class Counting:
        def fit(self, *args, **kwargs):
            calls.append(args)
            return learner.fit(*args, **kwargs)

    seeded = {"random_state": 0, "allow_fixed_seed": True}
    queryable = _compositor(as_opendp_measurement(Counting(), 0.5, **seeded), [0.3, 0.7])(data)
    with pytest.raises(dp.OpenDPException):
        queryable(as_opendp_measurement(Counting(), 0.5, **seeded))  # 0.5 > the first share 0.3
    assert calls == []  # refused by the map: nothing was fitted, nothing spent


def test_the_metric_is_the_relation_and_another_relation_is_refused(data, learner):
    add_remove = as_opendp_measurement(learner, 0.5, delta=1e-6, neighbours="add-remove", n_public=500,
                                       random_state=0, allow_fixed_seed=True)
    assert str(add_remove.input_metric) == "SymmetricDistance()"
    assert str(add_remove.output_measure) == "Approximate(MaxDivergence)"
    assert add_remove.map(1) == (0.5, 1e-6)
    replace_one = as_opendp_measurement(learner, 0.5, delta=1e-6, random_state=0, allow_fixed_seed=True)
    queryable = _compositor(replace_one, [(0.5, 1e-6), (0.5, 1e-6)])(data)
    with pytest.raises(dp.OpenDPException):
        queryable(add_remove)  # a symmetric-distance measurement in a change-one composition
    model = queryable(replace_one)
    assert model.delta == 1e-6 and model.certificate.privacy_curve.neighbours.value == "replace-one"
    assert add_remove((data[0], data[1])).certificate.privacy_curve.neighbours.value == "add-remove"


def test_distances_beyond_one_cost_group_privacy(learner):
    pure = as_opendp_measurement(learner, 0.4)
    assert pure.map(3) == pytest.approx(1.2)
    approximate = as_opendp_measurement(learner, 0.4, delta=1e-7)
    epsilon, delta = approximate.map(3)
    assert epsilon == pytest.approx(1.2) and delta == pytest.approx(1e-7 * (1 + math.exp(0.4) + math.exp(0.8)))
    assert approximate.map(2) == dpcvx.privacy.neighbours.group_epsilon_delta(0.4, 1e-7)


@pytest.mark.parametrize(("epsilon", "distance"), [(1.0, 800), (10.0, 72), (1.0, 2000)])
def test_a_pure_map_is_k_epsilon_at_any_distance(learner, epsilon, distance):
    # before: every distance summed e^(i eps), so (k - 1) eps > 709 raised OverflowError inside OpenDP
    assert as_opendp_measurement(learner, epsilon).map(distance) == pytest.approx(distance * epsilon, rel=1e-11)


def test_an_approximate_map_caps_delta_at_one_where_group_privacy_is_vacuous(learner):
    measurement = as_opendp_measurement(learner, 1.0, delta=1e-6)
    epsilon, delta = measurement.map(14)  # 1e-6 (e^14 - 1) / (e - 1) = 0.70
    assert epsilon == pytest.approx(14.0) and delta == pytest.approx(1e-6 * math.expm1(14.0) / math.expm1(1.0))
    for distance in (15, 40, 50, 800):  # before: 1.9, 1.4e11, 3.0e15, OverflowError
        assert measurement.map(distance) == (pytest.approx(float(distance)), 1.0)


def test_a_compositor_refuses_a_vacuous_group_cost_before_the_fit(data, learner):
    recording = Recording(learner)
    measurement = as_opendp_measurement(recording, 1.0, delta=1e-6, random_state=0, allow_fixed_seed=True)
    queryable = dp.c.make_adaptive_composition(measurement.input_domain, measurement.input_metric,
                                               measurement.output_measure, d_in=15, d_mids=[(15.0, 0.5)])(data)
    with pytest.raises(dp.OpenDPException):
        queryable(measurement)  # its cost at distance 15 is (15, 1): above the budget's delta 0.5
    assert recording.calls == []


def test_a_release_that_does_not_match_the_map_is_not_returned(data, learner):
    class Overspending:
        def fit(self, X, y, epsilon, **kwargs):
            return learner.fit(X, y, 2 * epsilon, **kwargs)

    with pytest.raises(dp.OpenDPException, match="not released"):
        as_opendp_measurement(Overspending(), 0.5, random_state=0, allow_fixed_seed=True)(data)


def test_bad_arguments_are_refused_at_construction(learner):
    with pytest.raises(InputError, match="with a fit method"):
        as_opendp_measurement(object(), 0.5)
    with pytest.raises(InputError, match="no accountant"):
        as_opendp_measurement(learner, 0.5, accountant=dpcvx.PrivacyAccountant(1.0))
    with pytest.raises(InputError):
        as_opendp_measurement(learner, -1.0)
    with pytest.raises(InputError, match="neighbours"):
        as_opendp_measurement(learner, 0.5, neighbours="replace-two")
    assert DATA_DOMAIN in str(as_opendp_measurement(learner, 0.5).input_domain)


@pytest.mark.parametrize("options, match", [
    (dict(mechanism="OUTPUT"), "mechanism must be one of 'output', 'objective'; got 'OUTPUT'"),
    (dict(random_state="0"), "random_state"),
    (dict(split="bogus"), "split must be one of"),
    (dict(n_public=5), "n_public is for neighbours='add-remove'"),
    (dict(weighted=True), "sample_weight only with a PUBLIC bound"),  # (an audit)
    (dict(sample_weight=np.ones(10)), "takes no sample_weight: the weights are a column of the private data"),
], ids=["mechanism", "random_state", "split", "n_public", "weighted", "sample_weight"])
def test_options_the_fit_would_refuse_are_refused_when_the_measurement_is_made(learner, options, match):
    # before, the measurement was made and its call raised OpenDP's exception inside the compositor
    with pytest.raises(InputError, match=match):
        as_opendp_measurement(learner, 0.5, **options)


def test_the_learners_settings_are_checked_when_the_measurement_is_made():
    with pytest.raises(InputError, match="max_iter"):
        as_opendp_measurement(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, max_iter=0), 0.5)


def test_without_opendp_the_error_names_the_extra(learner, monkeypatch):
    monkeypatch.setitem(sys.modules, "opendp.prelude", None)
    with pytest.raises(ImportError, match=r"dpcvx\[opendp\]"):
        as_opendp_measurement(learner, 0.5)


def test_a_learner_the_measurement_cannot_call_is_refused_when_it_is_made(data):
    X, y = data
    Z = X[:10]
    # before: each was made, and its call raised TypeError (the first) or InputError inside OpenDP (an estimator:
    # tests/models/test_opendp_bridge_estimators.py)
    with pytest.raises(InputError, match="TDDL.fit.*'neighbours'.*TDDL with Z"):
        as_opendp_measurement(dpcvx.TDDL("rbf", gamma=2.0, lam=0.1), 1.0, delta=1e-6, neighbours="add-remove", Z=Z)
    with pytest.raises(InputError, match=r"TDDL.fit.* with no fit_params, .*'Z'; give it as a keyword"):
        as_opendp_measurement(dpcvx.TDDL("rbf", gamma=2.0, lam=0.1), 1.0)
    with pytest.raises(InputError, match="PrivateERM.fit.*'mechansim'"):
        as_opendp_measurement(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), 1.0, mechansim="output")
    recording = Recording(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0))
    with pytest.raises(InputError, match="neighbours='add-remove' is offered for delta > 0"):
        as_opendp_measurement(recording, 1.0, neighbours="add-remove", n_public=500)
    assert recording.calls == []
    tddl = as_opendp_measurement(dpcvx.TDDL("rbf", gamma=2.0, lam=0.1), 1.0, Z=Z, random_state=0,
                                 allow_fixed_seed=True)
    assert isinstance(tddl(data), PrivateKernelModel)


@pytest.mark.parametrize("shape", ["X", "triple", "list"])
def test_data_that_is_not_a_pair_is_refused_before_the_fit(data, shape):
    X, y = data
    recording = Recording(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0))
    measurement = as_opendp_measurement(recording, 1.0, random_state=0, allow_fixed_seed=True)
    given = {"X": X, "triple": (X, y, None), "list": [X, y]}[shape]
    # before: X alone raised ValueError (too many values to unpack), the domain's member check never applied
    with pytest.raises(dp.OpenDPException, match=r"InputError: the measurement's input is a pair \(X, y\)"):
        measurement(given)
    assert recording.calls == []


def _learner(name, **settings):
    """A fresh learner of each kind the bridge takes, its settings replaced after construction as set_params or a
    user's assignment would (the constructor's own checks are not the point)."""
    made = {
        "multiclass": lambda: dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), (0, 1, 2)),
        "regression": lambda: dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=1.0),
        "TDDL": lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
        "PINP": lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1, max_queries=5),
        "TDIL": lambda: dpcvx.TDIL("linear", lam=0.1, input_bound=2.0),
    }[name]()
    target = made.binary if name == "multiclass" else made
    for key, value in settings.items():
        setattr(target, key, value)
    return made


def _data_of(name, data):
    """The (X, y) each kind fits: three classes, bounded real labels, or the binary labels."""
    X, y = data
    if name == "multiclass":
        return X, np.arange(X.shape[0]) % 3
    if name == "regression":
        return X, np.clip(X @ np.array([0.5, -0.3, 0.2]), -1.0, 1.0)
    return X, y


OPTION_CASES = [  # (learner, its settings, epsilon, delta, fit options): each refused by fit before it reads data
    ("multiclass", {}, 0.5, 0.0, dict(mechanism="OUTPUT")),
    ("multiclass", {}, 0.5, 0.0, dict(split="bogus")),
    ("multiclass", {}, 0.5, 0.0, dict(random_state="0")),
    ("multiclass", {}, 0.5, 0.0, dict(n_public=5)),
    ("multiclass", {}, 0.5, 1e-5, dict(neighbours="add-remove")),
    ("multiclass", {}, 0.5, 1e-2, dict(neighbours="add-remove", n_public=300)),
    ("multiclass", {"lam": -1.0}, 0.5, 0.0, {}),
    ("regression", {}, 0.5, 0.0, {}),
    ("regression", {}, 0.5, 1e-5, dict(random_state=-1)),
    ("regression", {"lam": -1.0}, 0.5, 1e-5, {}),
    ("regression", {"lam": 0.1}, 0.5, 1e-5, dict(neighbours="add-remove")),
    ("regression", {"mechanism": "gradient", "column_ranges": True}, 0.5, 1e-5, dict(neighbours="add-remove")),
    ("regression", {"mechanism": "sgd"}, 0.5, 1e-5, {}),
    ("TDDL", {"span": "bogus"}, 0.5, 0.0, {}),
    ("TDDL", {"lam": -1.0}, 0.5, 0.0, {}),
    ("TDDL", {}, 0.5, 0.0, dict(random_state="x")),
    ("PINP", {"max_queries": 0}, 0.5, 0.0, {}),
    ("PINP", {"max_updates": -1}, 0.5, 0.0, {}),
    ("PINP", {"loss": "no-such-loss"}, 0.5, 0.0, {}),
    ("PINP", {}, 0.5, 0.0, dict(random_state=-2)),
    ("TDIL", {"net_spacing": 0.1}, 0.5, 0.0, {}),
    ("TDIL", {"rounds": 1}, 0.5, 0.0, {}),
    ("TDIL", {"failure_probability": 2.0}, 0.5, 0.0, {}),
    ("TDIL", {"input_bound": -1.0}, 0.5, 0.0, {}),
]


@pytest.mark.parametrize("name, settings, epsilon, delta, options", OPTION_CASES,
                         ids=[f"{case[0]}-{'-'.join([*case[1], *case[4]]) or 'delta0'}" for case in OPTION_CASES])
def test_every_learner_refuses_a_bad_option_when_the_measurement_is_made_with_fits_error(data, name, settings, epsilon,
                                                                                         delta, options):
    X, y = _data_of(name, data)
    public = {"Z": X[:10]} if name == "TDDL" else {}
    with pytest.raises(InputError) as by_fit:
        _learner(name, **settings).fit(X, y, epsilon, delta=delta, **options, **public)
    # before: each measurement was made, and its call raised the error inside OpenDP's compositor
    with pytest.raises(InputError) as by_bridge:
        as_opendp_measurement(_learner(name, **settings), epsilon, delta, **options, **public)
    assert str(by_bridge.value) == str(by_fit.value)


@pytest.mark.parametrize("name, delta, options", [
    ("multiclass", 0.0, {}),
    ("multiclass", 1e-6, dict(mechanism="output")),
    ("regression", 1e-5, {}),
    ("TDDL", 0.0, {}),
    ("TDIL", 0.0, {}),
])
def test_a_good_measurement_of_every_learner_still_fits(data, name, delta, options):
    X, y = _data_of(name, data)
    public = {"Z": X[:10]} if name == "TDDL" else {}
    measurement = as_opendp_measurement(_learner(name), 1.0, delta, random_state=0, allow_fixed_seed=True, **options,
                                        **public)
    model = measurement((X, y))
    assert model.certificate.delta == delta
    assert np.all(np.isfinite(model.predict(X)))


def test_pinp_an_interactive_curator_is_refused_when_the_measurement_is_made(data):
    """PINP's fit charges and returns the curator (no certificate): before, its measurement was made, and each call
    fitted (the compositor had counted the budget) and then failed with "returned no certificate"."""
    with pytest.raises(InputError, match="PINP is an interactive curator"):
        as_opendp_measurement(_learner("PINP"), 1.0, 0.0, random_state=0, allow_fixed_seed=True)


def _releases(data):
    """(the measurement, its release on ``data``) of a learner, an estimator, a regressor and a kernel learner."""
    X, y = data
    yield "PrivateERM", as_opendp_measurement(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), 0.5)
    yield "DPLogisticRegression", as_opendp_measurement(dpcvx.DPLogisticRegression(epsilon=0.5, classes=(-1, 1)))
    yield "DPLinearRegression", as_opendp_measurement(dpcvx.DPLinearRegression(epsilon=0.5, label_bound=1.0))
    yield "TDDL", as_opendp_measurement(dpcvx.TDDL("rbf", gamma=1.0, lam=1e-2), 1.0, 1e-6, Z=X[:20])


def test_a_release_holds_no_record_of_the_data_it_was_fitted_on(data):
    """OpenDP's Measurement.__call__ stores its input (the private data set) in the output's __opendp_dict__ when
    the output takes the attribute: the fitted estimator, the model and the kernel release each carried every record
    (into vars() and a pickle). A dpcvx release refuses it; through a compositor too."""
    import pickle
    import warnings

    X, y = data
    for name, measurement in _releases(data):
        with warnings.catch_warnings():
            # a regressor at n = 500, epsilon 0.5 warns that its noise dominates
            warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
            releases = measurement(data), _compositor(measurement, [measurement.map(1)])(data)(measurement)
        for release in releases:
            assert not hasattr(release, "__opendp_dict__"), name
            assert not any(value is X or value is y or value is data for value in vars(release).values()), name
            assert pickle.loads(pickle.dumps(release)).certificate_ if hasattr(release, "certificate_") else \
                pickle.loads(pickle.dumps(release)).certificate


def test_a_fit_that_returns_an_object_that_would_hold_the_data_is_not_released(data, learner):
    class Exposed:
        def fit(self, X, y, epsilon, **kwargs):
            model = learner.fit(X, y, epsilon, **kwargs)
            return type("Plain", (), {"certificate": model.certificate})()

    with pytest.raises(dp.OpenDPException, match="would hold OpenDP's record of the measurement's input"):
        as_opendp_measurement(Exposed(), 0.5)(data)


def test_the_callers_learner_is_never_fitted(data):
    """The measurement fits copies: the learner's diagnostics_ (solver iterations, time, residual: NOT PRIVATE,
    measured on the data) never reach the analyst who holds it, and a later change to it changes nothing."""
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)
    measurement = as_opendp_measurement(learner, 0.5)
    first = measurement(data)
    second = _compositor(measurement, [0.5])(data)(measurement)
    assert not hasattr(learner, "diagnostics_")
    assert not np.array_equal(first.coef_, second.coef_)  # fresh noise at each call
    learner.set_params(lam=10.0)
    assert measurement(data).certificate.effective_lam == first.certificate.effective_lam


@pytest.mark.parametrize("relation", [dict(), dict(delta=1e-6, neighbours="add-remove", n_public=500)],
                         ids=["replace-one", "add-remove"])
def test_weights_are_part_of_each_record_so_a_neighbour_is_released_as_its_data_set(data, relation):
    """A neighbour-pair probe (sixty-first session): as_opendp_measurement(..., sample_weight=w) held one data set's
    weights inside the measurement, so under add-remove it released on D (10 of 10) and refused D - 1 and D + 1 (10 of
    10 each), a free membership test the map (1, 1e-6) did not count. The weights now come with each record, in
    triples (X, y, sample_weight): the record with its weight is what a neighbour adds, removes or replaces."""
    X, y = data
    weights = np.linspace(0.5, 2.0, len(y))
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, sample_weight_bound=2.0)
    measurement = as_opendp_measurement(learner, 0.5, weighted=True, **relation)
    assert WEIGHTED_DATA_DOMAIN in str(measurement.input_domain)
    replaced = np.where(np.arange(len(y)) == 0, 0.0, weights)  # the first record's weight changed
    neighbours = [(X, y, weights), (X[:-1], y[:-1], weights[:-1]), (X, y, replaced)]
    if relation:
        neighbours.append((np.vstack([X, X[:1]]), np.append(y, y[0]), np.append(weights, 1.0)))
    for data_set in neighbours:
        assert np.all(np.isfinite(measurement(data_set).coef_))
    with pytest.raises(dp.OpenDPException, match=r"is a triple \(X, y, sample_weight\)"):
        measurement((X, y))


def test_a_weighted_measurement_fits_with_the_weights_of_its_data(data):
    """The triple's weights reach the fit: at a fixed seed, the measurement's release is the fit's with them."""
    X, y = data
    weights = np.linspace(0.0, 2.0, len(y))
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, sample_weight_bound=2.0)
    measurement = as_opendp_measurement(learner, 0.5, weighted=True, random_state=3, allow_fixed_seed=True)
    released = measurement((X, y, weights))
    direct = learner.fit(X, y, 0.5, random_state=3, sample_weight=weights)
    unweighted = learner.fit(X, y, 0.5, random_state=3)
    np.testing.assert_array_equal(released.coef_, direct.coef_)
    assert not np.array_equal(released.coef_, unweighted.coef_)


@pytest.mark.parametrize("learner, delta", [
    (dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=1.0), 1e-6),
    (dpcvx.TDIL("rbf", gamma=1.0, input_bound=1.0, lam=0.1), 0.0),
], ids=["linear-regression", "tdil"])
def test_a_learner_that_takes_no_weights_is_refused_a_weighted_measurement_when_it_is_made(learner, delta):
    """Their fits refuse sample_weight; a weighted measurement of them was made and refused every call (their
    check_options took no weights: the kernel learners' found by a third probe)."""
    with pytest.raises(dpcvx.UnsupportedWeightsError, match=f"{type(learner).__name__} does not take sample_weight"):
        as_opendp_measurement(learner, 1.0, delta=delta, weighted=True)
