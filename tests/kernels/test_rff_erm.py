"""Random Fourier features inside PrivateERM (JMLR 2011, Algorithm 3)."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.data.kernels import RandomFourierFeatures


def circle(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = np.where(np.linalg.norm(X, axis=1) < 0.7, 1, -1)
    return X, y


def test_rff_features_carry_sqrt2_into_the_certificate():
    X, y = circle(3000, 0)
    rff = RandomFourierFeatures("rbf", gamma=4.0, n_components=200, random_state=1)
    erm = dpcvx.PrivateERM(lam=1e-3, feature_map=rff, fit_intercept=True)
    model = erm.fit(X, y, epsilon=1.0, random_state=0)
    cert = model.certificate
    assert cert.data_norm == pytest.approx(np.sqrt(2))
    assert cert.effective_norm_bound == pytest.approx(np.sqrt(3))  # with the intercept feature
    assert cert.constants["d"] == 201
    np.testing.assert_allclose(rff.frequencies, RandomFourierFeatures(
        "rbf", gamma=4.0, n_components=200, random_state=1).fit(X).frequencies)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")  # the linear model may be constant
def test_rff_learns_what_a_linear_model_cannot():
    X, y = circle(6000, 2)
    X_test, y_test = circle(2000, 3)
    rff = RandomFourierFeatures("rbf", gamma=4.0, n_components=300, random_state=4)
    kernel = dpcvx.PrivateERM(lam=1e-4, feature_map=rff, fit_intercept=True)
    linear = dpcvx.PrivateERM(lam=1e-4, data_norm=np.sqrt(2), fit_intercept=True)
    baseline = np.mean(y_test == np.sign(y_test.sum()))  # majority class
    kernel_private = np.mean([kernel.fit(X, y, epsilon=5.0, random_state=s).score(X_test, y_test)
                              for s in range(3)])
    linear_private = np.mean([linear.fit(X, y, epsilon=5.0, random_state=s).score(X_test, y_test)
                              for s in range(3)])
    assert linear_private <= baseline + 0.03
    assert kernel_private >= 0.85
    assert kernel.fit_nonprivate(X, y).score(X_test, y_test) >= kernel_private - 0.05


def test_data_norm_with_a_feature_map_is_refused():
    X, y = circle(100, 5)
    rff = RandomFourierFeatures("rbf", gamma=1.0, n_components=10, random_state=0)
    with pytest.raises(dpcvx.InputError, match="drop data_norm"):
        dpcvx.PrivateERM(feature_map=rff, data_norm=1.0).fit(X, y, epsilon=1.0)


def test_fourier_maps_with_the_same_parameters_are_equal():
    # RandomFourierFeatures compared by identity: two loads of one saved map were never equal
    drawn = RandomFourierFeatures("rbf", gamma=2.0, n_components=4, n_features=3, random_state=0)
    loaded = RandomFourierFeatures.from_dict(drawn.to_dict())
    assert loaded == drawn and RandomFourierFeatures.from_dict(drawn.to_dict()) == loaded
    assert hash(loaded) == hash(drawn)
    assert drawn != RandomFourierFeatures("rbf", gamma=2.0, n_components=4, n_features=3, random_state=1)
    assert drawn != RandomFourierFeatures("laplacian", gamma=2.0, n_components=4, n_features=3, random_state=0)
    undrawn = RandomFourierFeatures("rbf", gamma=2.0, n_components=4, random_state=0)
    before = hash(undrawn)
    assert undrawn == undrawn and undrawn != RandomFourierFeatures("rbf", gamma=2.0, n_components=4, random_state=0)
    assert undrawn.fit(np.zeros((1, 3))) == drawn and hash(undrawn) == before  # its draw decides its parameters


def test_a_one_vs_rest_model_with_a_fourier_map_loads(tmp_path):
    # each class's row map was loaded with its own copy of the map, compared by identity: the FileError said the
    # file had been edited
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True).max()
    y = np.array(list("xyz"))[rng.integers(0, 3, 200)]
    binary = dpcvx.PrivateERM(loss="logistic", lam=0.1, classes=(-1, 1),
                              feature_map=RandomFourierFeatures("rbf", gamma=1.0, n_components=20, random_state=1))
    model = dpcvx.PrivateMulticlassERM(binary, ("x", "y", "z")).fit(X, y, 1.0, random_state=0)
    path = tmp_path / "one_vs_rest.json"
    dpcvx.save(model, path)
    loaded = dpcvx.load(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_the_fourier_map_holds_one_array_of_its_features(traced_peak):
    """The same floats as sqrt(2 / D) cos(X Omega^T + phase), computed in place: each step of that formula made a new
    (rows, D) array with the last one alive, a peak of twice the features (a fit mapped 200,000 rows at D = 400 in
    1,280 MB for 640 MB of features)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20_000, 5)) * 0.3
    fourier = RandomFourierFeatures(gamma=0.7, n_components=200, n_features=5, random_state=1)
    omega, phase = fourier.frequencies, fourier.phases
    features, peak = traced_peak(fourier.transform, X)
    np.testing.assert_array_equal(features, np.sqrt(2.0 / 200) * np.cos(X @ omega.T + phase))
    assert peak < 1.1 * features.nbytes, f"{peak / 1e6:.1f} MB for features of {features.nbytes / 1e6:.1f} MB"


def test_a_fourier_map_clones_and_sets_its_parameters_as_scikit_learn_does():
    clone = pytest.importorskip("sklearn.base").clone
    drawn = RandomFourierFeatures("rbf", gamma=0.5, n_components=8, n_features=3, random_state=4)
    assert clone(drawn) == drawn  # the same parameters and seed draw the same map (a raw TypeError before)
    fitted = RandomFourierFeatures("laplacian", gamma=0.5, n_components=8, random_state=4).fit(np.ones((2, 5)))
    unfitted = clone(fitted)
    assert fitted.n_features_in_ == 5 and unfitted.frequencies is None  # a clone is not drawn yet, as scikit-learn's
    unfitted.fit(np.ones((2, 3)))  # so it takes another width
    assert unfitted.n_features_in_ == 3 and unfitted.n_features is None  # the parameter as given
    with pytest.raises(dpcvx.InputError, match=r"^RandomFourierFeatures has no parameter\(s\) \['degree'\]"):
        drawn.set_params(degree=2)
    assert drawn.n_components == 8 and drawn.gamma == 0.5 and drawn.frequencies.shape == (8, 3)  # left whole
    drawn.set_params(n_components=4, gamma=-1.0)  # stored as given, checked when the map is next drawn
    with pytest.raises(dpcvx.InputError, match="gamma must be finite and positive"):
        drawn.fit(np.ones((2, 3)))
    assert drawn.set_params(n_components=8, gamma=2.0) is drawn and drawn.gamma == 2.0
    assert drawn == RandomFourierFeatures("rbf", gamma=2.0, n_components=8, n_features=3, random_state=4)
    loaded = RandomFourierFeatures.from_dict(drawn.to_dict())
    assert loaded.get_params()["random_state"] is None  # its draw is not the seed 0 it was built with


def test_a_fourier_map_names_its_features_and_sets_its_output_in_a_pipeline():
    pd = pytest.importorskip("pandas")
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.pipeline import make_pipeline
    from sklearn.utils import get_tags

    X, y = circle(600, 3)
    frame = pd.DataFrame(X, columns=["u", "v"], index=np.arange(600) + 100)
    fourier = RandomFourierFeatures("rbf", gamma=2.0, n_components=5, random_state=1)
    names = [f"randomfourierfeatures{i}" for i in range(5)]
    assert fourier.get_feature_names_out().tolist() == names
    pipeline = make_pipeline(fourier, dpcvx.DPLogisticRegression(data_norm=np.sqrt(2), classes=(-1, 1), random_state=0))
    pipeline.set_output(transform="pandas")  # a ValueError of scikit-learn's before: no set_output
    features = pipeline.fit(frame, y)[:-1].transform(frame)
    assert isinstance(features, pd.DataFrame) and list(features.columns) == names
    assert features.index.tolist() == frame.index.tolist()
    np.testing.assert_array_equal(features.to_numpy(), fourier.set_output(transform="default").transform(frame))
    assert pipeline[:-1].get_feature_names_out().tolist() == names
    assert isinstance(clone(fourier.set_output(transform="pandas")).transform(X), pd.DataFrame)
    with pytest.raises(dpcvx.InputError, match="drawn for 2 features"):
        fourier.get_feature_names_out(["u", "v", "w"])
    with pytest.raises(dpcvx.InputError, match="set_output"):
        fourier.set_output(transform="arrow")
    assert not get_tags(fourier).requires_fit and sklearn.__version__  # transform draws the map when first used


def test_a_refit_draws_the_map_afresh_as_scikit_learn_s_fit_does():
    """rff.fit(X3); rff.fit(X2) raised 'X has 2 features, the map was drawn for 3' (also fit_transform, a Pipeline's
    refit on fewer columns, a DataFrame with new names): scikit-learn's fit starts over. A refit draws the map again
    from random_state (the same map for a seed); a map of a declared width keeps it."""
    pd = pytest.importorskip("pandas")
    X, y = circle(300, 3)
    wide = np.column_stack([X, X[:, :1]])
    fourier = RandomFourierFeatures("rbf", gamma=2.0, n_components=7, random_state=4).fit(wide)
    assert fourier.fit(X) is fourier and fourier.n_features_in_ == 2
    fresh = RandomFourierFeatures("rbf", gamma=2.0, n_components=7, random_state=4).fit(X)
    np.testing.assert_array_equal(fourier.frequencies, fresh.frequencies)
    assert fourier.fit_transform(wide).shape == (300, 7) and fourier.n_features_in_ == 3
    fourier.fit(pd.DataFrame(X, columns=["u", "v"]))
    fourier.fit(pd.DataFrame(X, columns=["p", "q"]))
    assert fourier.feature_names_in_.tolist() == ["p", "q"]
    with pytest.raises(dpcvx.InputError, match="The feature names should match"):
        fourier.transform(pd.DataFrame(X, columns=["q", "p"]))
    declared = RandomFourierFeatures("rbf", gamma=2.0, n_components=7, n_features=3, random_state=4)
    with pytest.raises(dpcvx.InputError, match="X has 2 features, but RandomFourierFeatures is expecting 3 features"):
        declared.fit(X)


def test_a_pipeline_with_the_fourier_map_as_a_step_is_refused_with_the_learner_that_holds_it(tmp_path):
    """dpcvx.save and tune take a pipeline of a schema and an estimator only; with random Fourier features as a
    middle step their refusals named no route. They now name PrivateERM(feature_map=...), whose file keeps the map
    and which tune tunes; and that route does both."""
    pd = pytest.importorskip("pandas")
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (600, 2))
    y = ((X ** 2).sum(axis=1) < 0.1).astype(int)
    table = pd.DataFrame(X, columns=["a", "b"])
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", -0.5, 0.5), dpcvx.NumericColumn("b", -0.5, 0.5)))
    features = RandomFourierFeatures("rbf", gamma=2.0, n_components=50, random_state=0)
    pipeline = make_pipeline(schema, features, dpcvx.DPLogisticRegression(data_norm=features.norm_bound,
                                                                          random_state=0)).fit(table, y)
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    route = r"PrivateERM\(feature_map=features, fit_intercept=True, classes=\.\.\.\) holds the map itself"
    with pytest.raises(dpcvx.InputError, match=route):
        dpcvx.save(pipeline, tmp_path / "model.json")
    with pytest.raises(dpcvx.InputError, match=route + r".*Nothing was charged"):
        dpcvx.tune(pipeline, table, y, {"dplogisticregression__lam": [1e-3]}, 1.0, accountant=accountant)
    assert accountant.spent.epsilon == 0.0 and not (tmp_path / "model.json").exists()
    learner = dpcvx.PrivateERM(feature_map=features, fit_intercept=True, classes=(0, 1))
    model = dpcvx.tune(learner, schema.transform(table), y, {"lam": [1e-3, 1e-2]}, 1.0, random_state=0).model
    dpcvx.save(model, tmp_path / "model.json", schema=schema)
    loaded = dpcvx.load(tmp_path / "model.json")
    assert np.array_equal(loaded.predict(loaded.schema.transform(table)), model.predict(schema.transform(table)))


def test_a_row_whose_projection_overflows_maps_to_the_zero_vector_and_its_neighbour_releases_alike():
    """A finite row near 1e308 overflowed Omega x, and cos(inf) is NaN: PrivateERM(feature_map=...) refused it as
    "remove or impute" NaN, with numpy's warnings, where the neighbour without it released. Such a row maps to the zero
    vector (norm 0 <= sqrt(2)), the same map at fit and predict."""
    rng = np.random.default_rng(8)
    X = rng.uniform(-0.5, 0.5, (600, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    far = X.copy()
    far[5] = [1.7e308, -1.7e308]
    features = RandomFourierFeatures(gamma=2.0, n_components=40, random_state=0).fit(X).transform(far)
    assert np.all(features[5] == 0.0) and np.all(np.isfinite(features))
    releases = []
    for rows in (X, far):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # no numpy overflow shown on one neighbour only
            learner = dpcvx.PrivateERM(lam=0.01, feature_map=RandomFourierFeatures(gamma=2.0, n_components=40,
                                                                                   random_state=0))
            releases.append(learner.fit(rows, y, epsilon=1.0, random_state=3))
    assert str(releases[0].certificate) == str(releases[1].certificate)
