"""PINP (interactive) and TDIL (non-interactive): parameters, accuracy, the update budget."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpcvx.exceptions import BudgetExceededError, InputError
from dpcvx.models.pinp import PINP
from dpcvx.models.tdil import TDIL, ExponentialCostWarning, ball_net
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.ball_sampler import sample_ball_exponential
from dpcvx.privacy.composition import round_epsilon
from dpcvx.privacy.kernel_calibrate import pinp_parameters, tdil_parameters
from dpcvx.release.kernel_model import KernelPredictor

LOSS = "huber_hinge:h=0.5"


def circle_task(n, seed, noise=0.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    y = np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)
    return X, np.where(rng.random(n) < noise, -y, y)


def hand_round_epsilon(epsilon, delta, rounds):
    if delta == 0:
        return epsilon / rounds
    log_term = math.log(1 / delta)
    rho = (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2
    return max(epsilon / rounds, math.sqrt(2 * rho / rounds))


@pytest.mark.parametrize("epsilon, delta, rounds", [(1.0, 0.0, 10), (1.0, 1e-6, 1), (2.0, 1e-6, 400)])
def test_round_budget_composes_to_the_total(epsilon, delta, rounds):
    per_round = round_epsilon(epsilon, delta, rounds)
    assert per_round == pytest.approx(hand_round_epsilon(epsilon, delta, rounds), rel=1e-9)
    assert rounds * per_round <= epsilon or delta > 0
    if delta > 0:  # zCDP: rho = k eps_r^2 / 2 gives (rho + 2 sqrt(rho ln(1/delta)), delta)-DP
        rho = rounds * per_round**2 / 2
        zcdp_epsilon = rho + 2 * math.sqrt(rho * math.log(1 / delta))
        assert min(zcdp_epsilon, rounds * per_round) <= epsilon * (1 + 1e-12)
    if rounds == 400:
        assert per_round > 3 * epsilon / rounds  # zCDP composition pays off (3.7x here)


def test_pinp_parameters_match_hand_computation():
    n, lam, L, R, C, eps, delta, T, beta, B = 1500, 0.1, 1.0, 1.0, 3.0, 50.0, 1e-6, 200, 0.1, 40
    parameters = pinp_parameters(n, lam, L, R, C, eps, delta, T, beta, max_updates=B,
                                 kernel_name="rbf", n_features=2)
    sensitivity = (1 + 2e-3) * 2 * L * R / (lam * n) * R
    half = hand_round_epsilon(eps, delta, B) / 2
    # the lattice: a power of two 2^-20 below Delta; E from the rbf evaluation (d = 2, n terms)
    spacing = 2.0 ** (math.floor(math.log2(sensitivity)) - 20)
    u = 2.0**-53
    kernel_error = 5 * u / (1 - 5 * u) + 2 * 2.0**-44
    error = 1.01 * (2 * L / lam) * (kernel_error + n * u / (1 - n * u) * (1 + kernel_error))
    K = math.floor((sensitivity + 2 * error) / spacing) + 1
    slack = 2 * spacing + error
    a_rho = 2 * K * spacing / half * math.log(3 * B / beta) + spacing
    a_nu = 4 * K * spacing / half * math.log(3 * T / beta) + spacing
    a_zeta = K * spacing / half * math.log(3 * B / beta) + spacing
    gap = max(C * R / math.sqrt(B), a_zeta + slack)
    assert parameters.lattice == spacing and parameters.lattice_sensitivity == K
    assert parameters.evaluation_error == pytest.approx(error, rel=1e-9)
    assert parameters.float_guarantee == "exact"
    assert parameters.query_sensitivity == pytest.approx(sensitivity, rel=1e-9)
    assert parameters.threshold_noise == pytest.approx(2 * K * spacing / half, rel=1e-9)
    assert parameters.query_noise == pytest.approx(4 * K * spacing / half, rel=1e-9)
    assert parameters.answer_noise == pytest.approx(K * spacing / half, rel=1e-9)
    assert parameters.answer_noise == pytest.approx(sensitivity / half, rel=1e-5)  # the lattice costs < 1e-5
    assert parameters.gap == pytest.approx(gap, rel=1e-9)
    assert parameters.threshold == pytest.approx(gap + a_rho + a_nu + slack, rel=1e-9)
    assert parameters.threshold_steps == math.ceil(parameters.threshold / spacing)
    assert parameters.accuracy == pytest.approx(gap + 2 * (a_rho + a_nu + slack), rel=1e-9)
    assert parameters.step == pytest.approx(gap / R**2, rel=1e-9)
    other_kernel = pinp_parameters(n, lam, L, R, C, eps, delta, T, beta, max_updates=B)
    assert other_kernel.float_guarantee == "mitigation-only" and other_kernel.evaluation_error == 0
    best = pinp_parameters(n, lam, L, R, C, eps, delta, T, beta)
    for rounds in (max(1, best.max_updates // 2), best.max_updates * 2, 1, 10**5):
        other = pinp_parameters(n, lam, L, R, C, eps, delta, T, beta, max_updates=rounds)
        assert best.accuracy <= other.accuracy


def test_pinp_answers_within_sigma_of_the_exact_minimiser():
    X, y = circle_task(1500, 20)
    queries, labels = circle_task(200, 21)
    # A large epsilon makes sigma small enough at n = 1500 for the guarantee to be non-trivial.
    pinp = PINP("rbf", gamma=4.0, lam=0.1, max_queries=200,
                failure_probability=0.1, loss=LOSS).fit(X, y, 1e4, 1e-6, random_state=1)
    exact = pinp._model.predict(queries)
    sigma = pinp.parameters_.accuracy
    assert np.mean(np.abs(exact) > sigma) > 0.5  # answering 0 would fail most queries
    answers = pinp.decision_function(queries)
    assert np.mean(np.abs(answers - exact) <= sigma) >= 0.95  # theory: all, w.p. >= 0.9
    assert 1 <= pinp.updates_used_ <= pinp.parameters_.max_updates
    assert pinp.queries_answered_ == 200
    public = pinp.public_predictor()
    assert public.centers.shape == (pinp.updates_used_, 2)
    assert np.mean(np.abs(public.decision_function(queries) - exact) <= sigma) >= 0.95
    assert np.mean(np.where(answers >= 0, 1, -1) == labels) >= 0.85


def test_pinp_stops_at_b_updates():
    X, y = circle_task(300, 22)
    pinp = PINP("rbf", gamma=4.0, lam=0.1, max_queries=20, max_updates=3, loss=LOSS).fit(X, y, 1.0, random_state=2)
    assert pinp.parameters_.max_updates == 3
    # A (public) threshold far below every gap makes each query an update.
    pinp.parameters_ = dataclasses.replace(pinp.parameters_, threshold=-1e9, threshold_steps=-10**18)
    private_calls = []
    private_answer = pinp._model.answer
    pinp._model.answer = lambda Z: private_calls.append(1) or private_answer(Z)
    queries, _ = circle_task(10, 23)
    for query in queries[:3]:
        pinp.query(query)
    assert pinp.updates_used_ == 3 and len(private_calls) == 3
    with pytest.raises(BudgetExceededError, match="B = 3"):
        pinp.query(queries[3])
    assert len(private_calls) == 3  # the private model is not touched after the budget is spent
    public = pinp.public_predictor()
    np.testing.assert_array_equal(public.centers, queries[:3])
    assert set(np.abs(public.coef)) == {pinp.parameters_.step}


def test_below_threshold_answers_are_the_public_iterate():
    X, y = circle_task(300, 24)
    pinp = PINP("rbf", gamma=4.0, lam=0.1, max_queries=20, loss=LOSS).fit(X, y, 1.0, random_state=3)
    pinp.parameters_ = dataclasses.replace(pinp.parameters_, threshold=1e9, threshold_steps=10**18)
    queries, _ = circle_task(20, 25)
    answers = pinp.decision_function(queries)
    assert pinp.updates_used_ == 0
    np.testing.assert_array_equal(answers, np.zeros(20))  # w_0 = 0, no noise released


def test_pinp_labels_an_answer_of_zero_as_every_kernel_release_does():
    """A tie at 0 is -1 for PINP as for TDDL/TDIL's releases and the linear models (one rule, kernel_labels): PINP
    predicted +1 at an answer of 0 (answer >= 0), so a curator that made no update predicted +1 on every row."""
    X, y = circle_task(300, 24)
    pinp = PINP("rbf", gamma=4.0, lam=0.1, max_queries=20, loss=LOSS).fit(X, y, 1.0, random_state=3)
    pinp.parameters_ = dataclasses.replace(pinp.parameters_, threshold=1e9, threshold_steps=10**18)
    queries, _ = circle_task(6, 25)
    np.testing.assert_array_equal(pinp.decision_function(queries[:3]), np.zeros(3))  # no update: every answer 0
    np.testing.assert_array_equal(pinp.predict(queries[3:]), -np.ones(3))
    assert pinp.score(queries[3:5], np.array([-1.0, -1.0])) == 1.0
    np.testing.assert_array_equal(KernelPredictor.predictions(np.array([-0.5, 0.0, 0.5])), [-1.0, -1.0, 1.0])
    assert pinp.updates_used_ == 0


def test_pinp_input_errors():
    X, y = circle_task(100, 26)
    with pytest.raises(InputError, match="not fitted"):
        PINP("rbf", gamma=1.0, lam=0.1, max_queries=5).query(X[0])
    pinp = PINP("poly", degree=2, input_bound=1.0, lam=0.1, max_queries=5, loss=LOSS).fit(X, y, 1.0, random_state=0)
    with pytest.raises(InputError, match="above the public bound"):
        pinp.query(np.array([3.0, 0.0]))
    with pytest.raises(InputError, match="one point"):
        pinp.query(X[:2])
    # a 1-D point of the wrong width was told to be 2-D, though a 1-D point of the right width is taken
    for point in (np.zeros(3), np.zeros(1)):
        with pytest.raises(InputError, match=rf"z is a 1-D array, read as one point, of {point.size} features, "
                                             r"expected 2; pass a point of 2 values"):
            pinp.query(point)
        with pytest.raises(InputError, match=r"^X must be 2-D \(n samples x d features\)"):  # as every predict
            pinp.public_predictor().predict(point)
    assert pinp.queries_answered_ == 0
    batch = np.vstack([X[:3], [[3.0, 0.0]]])  # the last row is outside the public domain
    with pytest.raises(InputError, match="query row 3 .* no query of this call was answered"):
        pinp.decision_function(batch)
    assert pinp.queries_answered_ == 0 and pinp.release().outputs["answers"] == []
    with pytest.raises(InputError, match="max_queries"):
        PINP("rbf", gamma=1.0, lam=0.1, max_queries=0, loss=LOSS).fit(X, y, 1.0)


def test_tdil_parameters_match_hand_computation():
    n, lam, L, R, C, eps, delta, beta, size, psi, B = 2000, 0.1, 1.0, 1.0, 3.0, 100.0, 1e-6, 0.1, 300, 0.2, 30
    parameters = tdil_parameters(n, lam, L, R, C, eps, delta, net_size=size, feature_distance=psi,
                                 failure_probability=beta, rounds=B)
    sensitivity = (1 + 2e-3) * 2 * L * R / (lam * n) * R
    half = hand_round_epsilon(eps, delta, B) / 2
    a_em = 2 * sensitivity / half * (math.log(size) + math.log(2 * B / beta))
    a_zeta = sensitivity / half * math.log(2 * B / beta)
    gap = max(C * R / math.sqrt(B - 1), a_zeta)
    assert parameters.selection_epsilon == pytest.approx(half, rel=1e-9)
    assert parameters.threshold == pytest.approx(gap + a_zeta, rel=1e-9)
    assert parameters.net_accuracy == pytest.approx(gap + 2 * a_zeta + a_em, rel=1e-9)
    assert parameters.accuracy == pytest.approx(gap + 2 * a_zeta + a_em + C * psi, rel=1e-9)
    assert parameters.selection == "net"
    with pytest.raises(InputError, match="rounds >= 2"):
        tdil_parameters(n, lam, L, R, C, eps, delta, net_size=size, rounds=1)
    with pytest.raises(InputError, match="exactly one"):
        tdil_parameters(n, lam, L, R, C, eps, delta, net_size=size, ball_dimension=3)


def test_ball_selection_tail_solves_its_equation():
    n, lam, L, R, C, eps, delta, beta, dim, B = 2000, 0.1, 1.0, 1.0, 3.0, 100.0, 1e-6, 0.1, 4, 30
    parameters = tdil_parameters(n, lam, L, R, C, eps, delta, ball_dimension=dim,
                                 failure_probability=beta, rounds=B)
    a_zeta = parameters.answer_noise * math.log(2 * B / beta)
    t = (parameters.net_accuracy - parameters.threshold - a_zeta) / 2  # a_em = 2 t
    kappa = parameters.selection_epsilon / (2 * parameters.score_sensitivity)
    # e^(-kappa t) (2 R C / t)^d = beta / (2B): the failure probability of one round's selection
    assert math.exp(-kappa * t) * (2 * R * C / t) ** dim == pytest.approx(beta / (2 * B), rel=1e-9)
    assert parameters.selection == "ball" and parameters.accuracy == parameters.net_accuracy


def test_ball_net_covers_the_ball():
    net = ball_net(2, 1.5, 0.2)
    assert np.all(np.linalg.norm(net, axis=1) <= 1.5 + 1e-12)
    rng = np.random.default_rng(27)
    points = rng.normal(size=(4000, 2))
    points *= 1.5 * np.sqrt(rng.random((4000, 1))) / np.linalg.norm(points, axis=1, keepdims=True)
    nearest = np.min(np.linalg.norm(points[:, None, :] - net[None, :, :], axis=2), axis=1)
    assert nearest.max() <= 0.2
    assert nearest.max() > 0.1  # the spacing is not grossly wasted


@pytest.mark.slow
def test_tdil_is_accurate_on_the_whole_ball():
    X, y = circle_task(2000, 28)
    X_test, y_test = circle_task(1000, 29)
    with pytest.warns(ExponentialCostWarning, match="exponential in d"):
        tdil = TDIL("rbf", gamma=4.0, lam=0.1, input_bound=1.0, failure_probability=0.1, loss=LOSS)
        release = tdil.fit(X, y, 1000.0, 1e-6, random_state=4)
    assert release is tdil.model_ and release.outputs == {"rounds_used": tdil.rounds_used_,
                                                          "certified": tdil.certified_}
    parameters = tdil.parameters_
    assert tdil.certified_ and tdil.rounds_used_ <= parameters.rounds
    net = ball_net(2, 1.0, 0.1)
    model = TDIL("rbf", gamma=4.0, lam=0.1, input_bound=1.0, loss=LOSS)._check_training(X, y).solve()
    exact_on_net = model.predict(net)
    assert np.abs(exact_on_net).max() > parameters.net_accuracy  # releasing 0 would fail
    assert np.abs(tdil.decision_function(net) - exact_on_net).max() <= parameters.net_accuracy
    rng = np.random.default_rng(30)
    ball = rng.normal(size=(2000, 2))
    ball *= np.sqrt(rng.random((2000, 1))) / np.linalg.norm(ball, axis=1, keepdims=True)
    assert np.abs(tdil.decision_function(ball) - model.predict(ball)).max() <= parameters.accuracy
    exact_accuracy = np.mean(np.where(model.predict(X_test) >= 0, 1, -1) == y_test)
    assert tdil.score(X_test, y_test) >= exact_accuracy - 0.05
    assert np.all(np.linalg.norm(tdil.predictor_.centers, axis=1) <= 1.0 + 1e-12)  # net points only


def test_tdil_refuses_what_it_cannot_do():
    X = np.random.default_rng(31).uniform(-0.3, 0.3, (50, 8))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    with pytest.raises(InputError, match="exponential in the dimension"):
        TDIL("rbf", gamma=1.0, lam=0.1, input_bound=1.0, loss=LOSS).fit(X, y, 1.0)
    X2, y2 = circle_task(50, 32)
    with pytest.raises(InputError, match="not Lipschitz"):  # refused before the net's warning
        TDIL("laplacian", gamma=1.0, lam=0.1, input_bound=1.0, loss=LOSS).fit(X2, y2, 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("dim, kappa, radius", [(3, 2.0, 1.0), (5, 40.0, 1.0), (1, 3.0, 2.0)])
def test_ball_sampler_draws_the_exponential_mechanism_exactly(dim, kappa, radius):
    """The coordinate along v has density ~ exp(kappa |t|) (r^2 - t^2)^((d-1)/2) on [-r, r];
    given it, the rest is uniform in the (d-1)-ball of radius sqrt(r^2 - t^2)."""
    rng = np.random.default_rng(33)
    v = np.zeros(dim)
    v[0] = 1.0
    samples = np.array([sample_ball_exponential(v, kappa, radius, rng) for _ in range(3000)])
    assert np.all(np.linalg.norm(samples, axis=1) <= radius)
    power = (dim - 1) / 2
    def density(s):
        return math.exp(kappa * (abs(s) - radius)) * (radius**2 - s * s) ** power
    total = integrate.quad(density, -radius, radius, points=[0])[0]
    cdf = np.vectorize(lambda x: integrate.quad(density, -radius, x, points=[0] if x > 0 else None)[0]
                       / total)
    along = samples[:, 0]
    assert stats.kstest(along, cdf).pvalue > 1e-3
    if dim > 1:
        across = np.linalg.norm(samples[:, 1:], axis=1) / np.sqrt(radius**2 - along**2)
        assert stats.kstest(across ** (dim - 1), "uniform").pvalue > 1e-3


@pytest.mark.slow
def test_tdil_linear_kernel_searches_the_whole_ball():
    rng = np.random.default_rng(34)
    X = rng.normal(size=(2000, 5))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(X @ np.array([1.0, -1.0, 0.5, 0.0, 0.0]) >= 0, 1.0, -1.0)
    tdil = TDIL("linear", lam=0.1, input_bound=1.0, failure_probability=0.1, loss=LOSS)
    tdil.fit(X, y, 500.0, 1e-6, random_state=5)  # no warning: no net
    parameters = tdil.parameters_
    assert parameters.selection == "ball" and tdil.certified_
    exact = tdil._check_training(X, y).solve().predict(np.eye(5))  # w*
    released = tdil.predictor_.decision_function(np.eye(5))  # w
    assert np.linalg.norm(exact) > parameters.accuracy  # releasing 0 would fail
    assert np.linalg.norm(released - exact) <= parameters.accuracy  # sup over the unit ball
    with pytest.raises(InputError, match="drop net_spacing"):
        TDIL("linear", lam=0.1, input_bound=1.0, net_spacing=0.1, loss=LOSS).fit(X, y, 1.0)


def test_kernel_learners_check_epsilon_like_every_learner():
    """epsilon outside the library's range [1e-12, 1e6] (validation.check_epsilon) is refused before fitting."""
    X, y = circle_task(30, 27)
    accountant = PrivacyAccountant(10.0)
    for epsilon in (2e6, 1e-13):
        with pytest.raises(InputError, match="epsilon"):
            PINP("poly", degree=2, input_bound=1.0, lam=0.1, max_queries=5, loss=LOSS).fit(
                X, y, epsilon, random_state=0, accountant=accountant)
    assert accountant.spent[0] == 0
