"""Kernels with public feature bounds, feature-space scaling, random Fourier features."""

import json
import math
import warnings

import numpy as np
import pytest

from dpcvx.data.kernels import (
    CallableKernel,
    LaplacianKernel,
    LinearKernel,
    PolynomialKernel,
    RandomFourierFeatures,
    RBFKernel,
    feature_scaling,
    kernel_from_dict,
    make_kernel,
)
from dpcvx.exceptions import ClippingWarning, InputError, KernelScaleWarning


def ball_points(rng, count, dim, radius):
    directions = rng.standard_normal((count, dim))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return directions * radius * rng.random((count, 1)) ** (1 / dim)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_random_fourier_features_error_shrinks_with_dimension(kernel):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (60, 3))
    exact = (RBFKernel(0.7) if kernel == "rbf" else LaplacianKernel(0.7)).gram(X, X)
    errors = []
    for components in (50, 500, 5000):
        features = RandomFourierFeatures(kernel, gamma=0.7, n_components=components, random_state=1)
        V = features.transform(X)
        errors.append(float(np.sqrt(np.mean((V @ V.T - exact) ** 2))))
    # Monte Carlo error ~ 1/sqrt(D): a factor of 100 in D should cut it by about 10.
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < errors[0] / 5
    assert errors[2] < 0.03


def test_random_fourier_features_norm_bound_and_protocol():
    rng = np.random.default_rng(2)
    features = RandomFourierFeatures("rbf", gamma=2.0, n_components=40, random_state=3)
    V = features.transform(rng.normal(0, 5, (500, 4)))
    assert features.norm_bound == pytest.approx(math.sqrt(2))
    assert np.all(np.linalg.norm(V, axis=1) <= features.norm_bound + 1e-12)
    assert V.shape == (500, 40)
    assert features.exact_kernel == RBFKernel(2.0)


def test_random_fourier_features_do_not_read_the_data():
    rng = np.random.default_rng(4)
    first = RandomFourierFeatures("rbf", gamma=1.0, n_components=10, random_state=7)
    second = RandomFourierFeatures("rbf", gamma=1.0, n_components=10, random_state=7)
    first.fit(rng.normal(size=(5, 3)))
    with pytest.warns(KernelScaleWarning):  # the NOT PRIVATE note reads them; the map does not
        second.fit(1e6 * rng.normal(size=(50, 3)))
    np.testing.assert_array_equal(first.frequencies, second.frequencies)
    np.testing.assert_array_equal(first.phases, second.phases)
    other = RandomFourierFeatures("rbf", gamma=1.0, n_components=10, random_state=8, n_features=3)
    assert not np.array_equal(first.frequencies, other.frequencies)


def test_random_fourier_features_round_trip_through_json():
    features = RandomFourierFeatures("laplacian", gamma=0.5, n_components=16, n_features=3,
                                     random_state=5)
    loaded = RandomFourierFeatures.from_dict(json.loads(json.dumps(features.to_dict())))
    X = np.random.default_rng(6).normal(size=(8, 3))
    np.testing.assert_array_equal(loaded.transform(X), features.transform(X))
    assert loaded.norm_bound == features.norm_bound


@pytest.mark.parametrize("change", [
    {"type": "something"},
    {"phases": [0.0]},
    {"frequencies": [[float("nan")] * 3] * 16},
    {"kernel": "poly"},
])
def test_random_fourier_features_refuse_malformed_data(change):
    data = RandomFourierFeatures("rbf", gamma=1.0, n_components=16, n_features=3,
                                 random_state=0).to_dict()
    data.update(change)
    with pytest.raises(InputError):
        RandomFourierFeatures.from_dict(data)


def test_random_fourier_features_input_errors():  # the parameters are checked at fit, as scikit-learn's
    with pytest.raises(InputError, match="translation-invariant"):
        RandomFourierFeatures("poly", gamma=1.0).fit(np.ones((2, 3)))
    with pytest.raises(InputError, match="n_components"):
        RandomFourierFeatures("rbf", gamma=1.0, n_components=0).fit(np.ones((2, 3)))
    with pytest.raises(InputError, match="gamma"):
        RandomFourierFeatures("rbf", gamma=-1.0).fit_transform(np.ones((2, 3)))
    with pytest.raises(InputError, match="fit"):
        RandomFourierFeatures("rbf", gamma=1.0).to_dict()
    features = RandomFourierFeatures("rbf", gamma=1.0, n_features=2, random_state=0)
    with pytest.raises(InputError, match="features"):
        features.transform(np.zeros((3, 5)))


@pytest.mark.parametrize("degree, offset, bound", [(3, 1.0, 1.0), (2, 0.5, 2.0), (1, 0.0, 3.0)])
def test_polynomial_feature_bound_is_the_supremum_over_the_ball(degree, offset, bound):
    kernel = PolynomialKernel(degree, bound, offset)
    rng = np.random.default_rng(1)
    X = ball_points(rng, 2000, 4, bound)
    norms = np.sqrt(kernel.diagonal(X))
    assert np.all(norms <= kernel.feature_bound * (1 + 1e-12))
    on_sphere = np.full((1, 4), bound / 2)  # ||x|| = bound
    assert math.sqrt(kernel.diagonal(on_sphere)[0]) == pytest.approx(kernel.feature_bound)
    assert kernel.feature_bound == pytest.approx((bound**2 + offset) ** (degree / 2))


@pytest.mark.parametrize("kernel", [RBFKernel(3.0), PolynomialKernel(3, 1.0), LinearKernel(1.0)])
def test_feature_distance_bounds_hold(kernel):
    rng = np.random.default_rng(2)
    X = ball_points(rng, 300, 3, 1.0)
    step = rng.normal(size=X.shape)
    step *= 0.05 * rng.random((X.shape[0], 1)) / np.linalg.norm(step, axis=1, keepdims=True)
    Y = X + step
    Y /= np.maximum(1.0, np.linalg.norm(Y, axis=1, keepdims=True))  # back into the ball
    cross = np.array([kernel.gram(x[None], y[None])[0, 0] for x, y in zip(X, Y, strict=True)])
    feature_gaps = np.sqrt(np.maximum(kernel.diagonal(X) + kernel.diagonal(Y) - 2 * cross, 0.0))
    bounds = np.array([kernel.feature_distance(1.0, d) for d in np.linalg.norm(X - Y, axis=1)])
    assert np.all(feature_gaps <= bounds * (1 + 1e-9) + 1e-12)
    assert np.max(feature_gaps / bounds) > 0.3  # the bound is not vacuous


def test_feature_scaling_enforces_the_public_bound_and_warns():
    kernel = PolynomialKernel(2, 1.0)
    X = np.array([[0.5, 0.0], [3.0, 4.0], [0.0, 1.0]])
    with pytest.warns(ClippingWarning, match="1 of 3"):
        rows, scaling = feature_scaling(kernel, X)
    assert rows is X  # every row's k(x, x) is finite: the rows as given
    scaled_norms = scaling * np.sqrt(kernel.diagonal(X))
    assert np.all(scaled_norms <= kernel.feature_bound * (1 + 1e-12))
    assert scaling[0] == 1.0 and scaling[2] == 1.0
    assert scaled_norms[1] == pytest.approx(kernel.feature_bound)


@pytest.mark.parametrize(("kernel", "far"), [(LinearKernel(1.0), 1e154), (LinearKernel(1.0), 1e160),
                                             (LinearKernel(1.0), 1e300),
                                             (PolynomialKernel(3, 1.0), 1e52)])
def test_a_row_beyond_floating_point_maps_to_the_zero_feature(kernel, far):
    """k(x, x) of the far row overflows (or is within a factor 4 of the largest float): its factor is 0 and the row
    is replaced by zeros, so the scaled Gram matrix s_i s_j k(x_i, x_j) is finite, the far row's entries 0 and the
    others as without it (a per-row map: the sensitivity analysis holds; 0 * inf gave NaN and a failed solve)."""
    X = np.array([[0.5, 0.0], [far, 0.0], [0.0, 1.0]])
    with pytest.warns(ClippingWarning, match="1 of 3"):
        rows, scaling = feature_scaling(kernel, X)
    assert scaling[1] == 0.0 and np.all(rows[1] == 0.0) and np.all(rows[[0, 2]] == X[[0, 2]])
    gram = scaling[:, None] * kernel.gram(rows, rows) * scaling[None, :]
    assert np.all(np.isfinite(gram))
    assert np.all(gram[1] == 0.0) and np.all(gram[:, 1] == 0.0)
    kept = [0, 2]
    _, alone = feature_scaling(kernel, X[kept])
    expected = alone[:, None] * kernel.gram(X[kept], X[kept]) * alone[None, :]
    np.testing.assert_array_equal(gram[np.ix_(kept, kept)], expected)


def test_make_kernel_needs_public_parameters():
    with pytest.raises(InputError, match="gamma"):
        make_kernel("rbf")
    with pytest.raises(InputError, match="input_bound"):
        make_kernel("poly")
    with pytest.raises(InputError, match="feature_bound"):
        make_kernel(lambda X, Y: X @ Y.T)
    with pytest.raises(InputError, match="unknown kernel"):
        make_kernel("sigmoid")
    with pytest.raises(InputError, match="degree"):
        PolynomialKernel(2.5, 1.0)
    with pytest.raises(InputError, match="offset"):
        PolynomialKernel(3, 1.0, offset=-1.0)
    assert make_kernel("poly", degree=3, input_bound=1.0) == PolynomialKernel(3, 1.0, 1.0)


def test_kernels_round_trip_and_callables_cannot_be_saved():
    for kernel in (LinearKernel(2.0), PolynomialKernel(3, 1.0, 0.5), RBFKernel(0.3),
                   LaplacianKernel(1.5)):
        assert kernel_from_dict(json.loads(json.dumps(kernel.to_dict()))) == kernel
    with pytest.raises(InputError, match="not a saved"):
        kernel_from_dict({"kernel": "__import__('os')"})
    custom = CallableKernel(lambda X, Y: (X @ Y.T + 1) ** 2, 4.0)
    X = np.ones((2, 3))
    np.testing.assert_allclose(custom(X), np.full((2, 2), 16.0))
    with pytest.raises(InputError, match="cannot be saved"):
        custom.to_dict()
    broken = CallableKernel(lambda X, Y: np.ones(3), 1.0)
    with pytest.raises(InputError, match="shape"):
        broken(X)


def test_random_fourier_features_on_raw_columns_warn_the_data_owner_and_not_inside_a_dpcvx_fit():
    """A Pipeline of RandomFourierFeatures(gamma=2) and DPLogisticRegression on raw columns in their own units (0..1,
    0..100,000, 0..100) released chance-level models (balanced accuracy 0.48-0.51 against 0.84-0.87 non-private),
    with no warning at epsilon 3 on 3 of 5 seeds: the features of rows that far apart at gamma are unrelated. The
    map's fit says so (NOT PRIVATE); the same rows scaled into the unit ball say nothing."""
    from sklearn.pipeline import make_pipeline

    import dpcvx

    rng = np.random.default_rng(0)
    raw = rng.uniform(0, 1, (2000, 3)) * [1.0, 1e5, 100.0]
    y = (raw[:, 1] > 5e4).astype(int)
    pipeline = make_pipeline(RandomFourierFeatures("rbf", gamma=2.0, n_components=50, random_state=0),
                             dpcvx.DPLogisticRegression(epsilon=3.0, data_norm=math.sqrt(2), random_state=0))
    with pytest.warns(KernelScaleWarning, match="so far apart that the kernel"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=dpcvx.exceptions.TrainingRowsWarning)
        pipeline.fit(raw, y)
    scaled = raw / [1.0, 1e5, 100.0] / math.sqrt(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelScaleWarning)
        RandomFourierFeatures("rbf", gamma=4.0, n_components=50, random_state=0).fit_transform(scaled)
        RandomFourierFeatures("laplacian", gamma=2.0, n_components=50, random_state=0).fit(scaled)


def test_clipped_fourier_features_are_told_clipping_by_design_and_raw_columns_their_scaling():
    """After RandomFourierFeatures the estimators' default data_norm=1 clips about half the feature rows slightly, as
    docs/kernels.md advises (benchmarks/rff_norm.py). The ClippingWarning had told the owner to scale the columns by
    public bounds, which does not apply to features; it now says the clipping is by design. Rows of raw columns
    beyond R still get the scaling advice, and a narrow table whose entries are small is not read as features."""
    from sklearn.pipeline import make_pipeline

    import dpcvx

    rng = np.random.default_rng(1)
    X = ball_points(rng, 3000, 3, 1.0)
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    for estimator in (dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0),
                      dpcvx.DPHuberSVM(epsilon=1.0, random_state=0)):
        pipeline = make_pipeline(RandomFourierFeatures("rbf", gamma=4.0, n_components=100, random_state=0), estimator)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pipeline.fit(X, y)
        notes = [str(w.message) for w in caught if w.category is ClippingWarning]
        assert len(notes) == 1 and "by design" in notes[0] and "PublicSchema" not in notes[0], notes
    wide = rng.uniform(0.0, 3.0, (3000, 12))
    small = np.full((3000, 9), 0.45)  # entries within sqrt(2/9) = 0.47 but of one sign: norm 1.35 on every row
    for raw in (wide, small):
        with pytest.warns(ClippingWarning, match="PublicSchema") as caught, warnings.catch_warnings():
            warnings.simplefilter("ignore", dpcvx.exceptions.TrainingRowsWarning)
            dpcvx.DPLogisticRegression(epsilon=1.0, column_statistics=False, random_state=0).fit(raw, y)
        assert not any("by design" in str(w.message) for w in caught)


def test_a_1_d_X_at_predict_is_refused_by_kernel_models_as_by_linear_models():
    """A kernel release read a 1-D X of the right width as one point, where every linear model refuses it (and
    scikit-learn's "Expected 2D array, got 1D array"): the same refusal now, for the release and the learner."""
    import dpcvx

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (60, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    linear = dpcvx.PrivateERM(data_norm=1.0).fit(X, y, 1.0, random_state=0)
    with pytest.raises(InputError) as expected:
        linear.predict(X[0])
    for learner in (dpcvx.TDDL(lam=0.1, gamma=1.0), dpcvx.PINP(lam=0.1, gamma=1.0, max_queries=5)):
        model = learner.fit(X, y, 1.0, random_state=0, **({"Z": X[:4]} if isinstance(learner, dpcvx.TDDL) else {}))
        model = model.public_predictor() if isinstance(learner, dpcvx.PINP) else model
        for predict in (model.predict, model.decision_function):
            with pytest.raises(InputError, match=r"^X must be 2-D \(n samples x d features\), got shape \(2,\)") as got:
                predict(X[0])
            assert str(got.value) == str(expected.value)


def test_a_fourier_map_checks_its_parameters_at_fit_so_a_grid_search_fails_only_the_bad_candidate():
    """RandomFourierFeatures checked gamma and the kernel in its constructor and set_params, so GridSearchCV stopped
    at set_params for one bad candidate; it stores them as given now, and fit checks them."""
    import dpcvx

    sklearn = pytest.importorskip("sklearn")
    from sklearn.exceptions import FitFailedWarning
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    bad = RandomFourierFeatures("poly", gamma=-1)  # stored as given, as scikit-learn's estimators store theirs
    assert bad.get_params()["kernel"] == "poly" and bad.gamma == -1 and "frequencies_" not in vars(bad)
    with pytest.raises(InputError, match="translation-invariant kernel"):
        bad.fit(np.ones((3, 2)))
    fourier = RandomFourierFeatures(gamma=1.0, n_components=5, random_state=0).fit(np.ones((3, 2)))
    assert fourier.set_params(gamma=0.0) is fourier and fourier.frequencies is None  # the old draw is forgotten
    with pytest.raises(InputError, match="gamma must be finite and positive, got 0.0"):
        fourier.fit(np.ones((3, 2)))
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, (80, 2))
    y = (X[:, 0] > 0).astype(int)
    pipeline = make_pipeline(RandomFourierFeatures(gamma=1.0, n_components=10, random_state=0),
                             dpcvx.DPLogisticRegression(data_norm=math.sqrt(2), epsilon=10.0, random_state=0))
    with warnings.catch_warnings():  # gamma = 0 is refused: scikit-learn's warnings of a failed fit and a nan score
        warnings.simplefilter("ignore", FitFailedWarning)
        warnings.filterwarnings("ignore", message="One or more of the test scores are non-finite", category=UserWarning)
        search = GridSearchCV(pipeline, {"randomfourierfeatures__gamma": [1.0, 0.0]}, cv=2, error_score=np.nan)
        search.fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores[0]) and np.isnan(scores[1]) and sklearn.__version__
