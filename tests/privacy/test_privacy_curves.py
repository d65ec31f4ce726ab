"""Privacy curves in certificates and their tight composition in the accountant (issue 18, item 5)."""

import json
import math
from decimal import Decimal

import numpy as np
import pytest
from former_texts import without_noise_source

import dpcvx
from dpcvx.exceptions import BudgetExceededError, InputError, UnprotectedFileWarning
from dpcvx.privacy import privacy_curve
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.gaussian import analytic_gaussian_sigma, gaussian_delta
from dpcvx.privacy.privacy_curve import CurvePart, PrivacyCurve, compose_epsilon

dp_accounting = pytest.importorskip("dp_accounting")


def gaussian_curve(multiplier: float, relation: str = "replace-one") -> PrivacyCurve:
    return PrivacyCurve((CurvePart("gaussian", "test", noise_multiplier=multiplier),), relation)


def exact_gaussian_epsilon(multiplier: float, delta: float) -> float:
    """The analytic Gaussian's epsilon at delta, by bisection on its exact profile."""
    low, high = 0.0, 100.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (low, middle) if gaussian_delta(multiplier, 1.0, middle) <= delta else (middle, high)
    return high


@pytest.fixture()
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=400) > 0, 1, -1)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["pld", "rdp"])
def test_one_gaussian_is_never_below_its_exact_epsilon(method):
    # soundness: an upper bound of the analytic Gaussian's epsilon, and not a loose one
    for multiplier in (0.8, 3.0, 20.0):
        exact = exact_gaussian_epsilon(multiplier, 1e-6)
        value = compose_epsilon([gaussian_curve(multiplier)], 1e-6, method=method)
        assert exact * (1 - 1e-9) <= value <= exact * (1.02 if method == "pld" else 1.6)


@pytest.mark.slow
def test_k_gaussians_match_dp_accounting_and_beat_basic_composition():
    k, multiplier, delta = 10, 4.0, 1e-6
    ours = compose_epsilon([gaussian_curve(multiplier)] * k, delta, method="pld")
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(multiplier), k)
    theirs = accountant.get_epsilon(delta)
    assert ours == pytest.approx(theirs, rel=1e-3)
    # k Gaussians are one Gaussian with multiplier / sqrt(k) (Dong, Roth and Su 2022)
    assert ours == pytest.approx(exact_gaussian_epsilon(multiplier / math.sqrt(k), delta), rel=1e-2)
    per_release = exact_gaussian_epsilon(multiplier, delta / k)
    assert ours < 0.5 * k * per_release


def test_renyi_fallback_without_dp_accounting(monkeypatch):
    # with a part that is not Gaussian; Gaussian parts alone have their closed form either way
    pure = PrivacyCurve((CurvePart("epsilon-delta", "test", epsilon=0.05),))
    curves = [gaussian_curve(4.0)] * 10 + [pure]
    pld = compose_epsilon(curves, 1e-6, method="pld")
    exact = compose_epsilon(curves[:10], 1e-6)
    monkeypatch.setattr(privacy_curve, "have_dp_accounting", lambda: False)
    fallback = compose_epsilon(curves, 1e-6)
    assert fallback == compose_epsilon(curves, 1e-6, method="rdp")
    assert compose_epsilon(curves[:10], 1e-6) == exact  # the closed form needs no dp-accounting
    # Renyi DP is sound but looser than privacy loss distributions; far below basic composition
    assert pld <= fallback < 10 * exact_gaussian_epsilon(4.0, 1e-7)


@pytest.mark.slow
def test_gaussian_parts_compose_in_closed_form():
    # k Gaussians of multipliers z_i are one of multiplier (sum z_i^-2)^-1/2 (Dong, Roth and Su 2022):
    # its exact epsilon, computed here by another route (root of the mu-GDP profile), to 1e-9 relative
    from scipy.optimize import brentq
    from scipy.stats import norm

    multipliers = [3.0 + 0.05 * i for i in range(100)]
    delta = 1e-5
    mu = math.sqrt(sum(z**-2 for z in multipliers))
    exact = brentq(lambda e: norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta,
                   0.0, 100.0, xtol=1e-14, rtol=1e-15)
    ours = compose_epsilon([gaussian_curve(z) for z in multipliers], delta)
    assert exact <= ours <= exact * (1 + 1e-9)
    # the privacy loss distribution of the same composition agrees to its discretisation, from above
    assert ours <= compose_epsilon([gaussian_curve(z) for z in multipliers], delta, method="pld") <= ours * 1.01


def test_approximate_parts_compose_by_their_pairs():
    part = CurvePart("epsilon-delta", "test", epsilon=0.3, delta=1e-7)
    curves = [PrivacyCurve((part,))] * 3
    assert compose_epsilon(curves, 3e-7, method="rdp") == pytest.approx(0.9)
    assert compose_epsilon(curves, 1e-7, method="rdp") == math.inf  # the deltas alone exceed the target
    assert compose_epsilon(curves, 1e-6, method="basic") == pytest.approx(0.9)


def test_curves_of_different_relations_do_not_compose():
    with pytest.raises(InputError, match="neighbour relations"):
        compose_epsilon([gaussian_curve(2.0), gaussian_curve(2.0, "add-remove")], 1e-6)


@pytest.mark.usefixtures("gaussian_objective")  # the Gaussian machinery on a small fixture
def test_release_certificates_carry_their_curve(data):
    X, y = data
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)
    output = learner.fit(X, y, 0.5, "output", delta=1e-6, random_state=0)
    calibration = output.certificate.calibration.to_dict()
    (part,) = output.certificate.privacy_curve.parts
    assert part.noise_multiplier == pytest.approx(calibration["sigma"] / calibration["sensitivity"])
    # the curve is the release's guarantee: the analytic Gaussian meets (0.5, 1e-6) exactly
    assert gaussian_delta(part.noise_multiplier, 1.0, 0.5) <= 1e-6
    objective = learner.fit(X, y, 0.5, "objective", delta=1e-6, random_state=0)
    kinds = [p.kind for p in objective.certificate.privacy_curve.parts]
    assert kinds == ["epsilon-delta", "gaussian"]
    pure = learner.fit(X, y, 0.5, "objective", random_state=0)
    assert pure.certificate.privacy_curve.parts == (
        CurvePart("epsilon-delta", "the release's guarantee", epsilon=0.5, delta=0.0),)
    assert objective.certificate.to_dict()["privacy_curve"]["format"] == privacy_curve.CURVE_FORMAT


def test_curve_survives_the_model_file_and_a_tampered_one_is_refused(data, tmp_path):
    X, y = data
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, 0.5, "output", delta=1e-6, random_state=0)
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    assert dpcvx.load(path).certificate.privacy_curve == model.certificate.privacy_curve
    saved = json.loads(path.read_text())
    saved["certificate"]["privacy_curve"]["parts"][0]["noise_multiplier"] *= 2  # claims twice the noise
    path.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="privacy_curve"):
        dpcvx.load(path)
    del saved["certificate"]["privacy_curve"]
    path.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="privacy_curve is missing"):  # refused by its field check, before the digest
        dpcvx.load(path)
    # every format version dpcvx reads (4 on) wrote the curve (it came before format version 4): a file relabelled as
    # an older version without its digest is refused too
    saved["format_version"] = 9
    del saved["sha256"]
    without_noise_source(saved)  # (format version 19 added it)
    path.write_text(json.dumps(saved))
    with pytest.warns(UnprotectedFileWarning), pytest.raises(InputError, match="privacy_curve is missing"):
        dpcvx.load(path)


def test_accountant_composes_gaussian_releases_tightly(data):
    X, y = data
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)
    accountant = PrivacyAccountant(1.0, 1e-5)
    for seed in range(8):  # basic composition would refuse the sixth: 6 x 0.2 > 1
        learner.fit(X, y, 0.2, "output", delta=1e-7, random_state=seed, accountant=accountant)
    spent = accountant.spent
    assert spent.epsilon < 0.6 and spent.delta == pytest.approx(8e-7)  # basic: (1.6, 8e-7)
    curves = [entry.curve for entry in accountant.ledger]
    assert spent.epsilon == pytest.approx(compose_epsilon(curves, 8e-7))
    before = list(accountant.ledger)
    with pytest.raises(BudgetExceededError):
        learner.fit(X, y, 2.0, "output", delta=1e-7, random_state=9, accountant=accountant)
    assert accountant.ledger == before  # a refused charge spends nothing


def test_one_release_costs_exactly_its_guarantee(data):
    X, y = data
    accountant = PrivacyAccountant(1.0, 1e-3)
    dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, 1.0, delta=1e-6, accountant=accountant, random_state=0)
    assert accountant.spent == (1.0, 1e-6)  # the tight composition is never worse than the pair itself


def test_accountant_without_curves_is_basic_composition():
    accountant = PrivacyAccountant(1.0, 1e-5)
    for _ in range(5):
        accountant.spend(0.2, 1e-7)
    assert accountant.spent == pytest.approx((1.0, 5e-7))
    with pytest.raises(BudgetExceededError):
        accountant.spend(0.01)


def test_spend_release_charges_a_saved_model(data, tmp_path):
    X, y = data
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, 0.3, "output", delta=1e-7, random_state=0)
    dpcvx.save(model, tmp_path / "m.json")
    accountant = PrivacyAccountant(1.0, 1e-5)
    accountant.spend_release(dpcvx.load(tmp_path / "m.json"))
    assert accountant.ledger[0].curve == model.certificate.privacy_curve
    with pytest.raises(InputError, match="release"):
        accountant.spend_release(object())


def test_sigma_from_curve_matches_calibration():
    # a curve built from a Gaussian calibration is that calibration's noise over its sensitivity
    sigma = analytic_gaussian_sigma(2.0, 0.5, 1e-6)
    assert CurvePart.gaussian(sigma, 2.0, "x").noise_multiplier == pytest.approx(sigma / 2.0)


def test_a_part_at_a_huge_epsilon_composes_by_renyi_dp_not_a_bare_error():
    """A pure charge at epsilon 1000 beside a Gaussian release went through dp-accounting's privacy loss
    distributions, whose e^epsilon overflowed (a bare OverflowError; MemoryError for larger sums): above
    PLD_EPSILON_MAX "auto" composes by Renyi DP, and "pld" is refused, typed, naming the cause."""
    accountant = PrivacyAccountant(epsilon=1e6, delta=0.5)
    accountant.spend(1.0, 1e-6, "Gaussian release", curve=gaussian_curve(5.0))
    accountant.spend(1000.0, 1e-6, "pure charge")
    spent = accountant.spent
    assert spent.delta == pytest.approx(2e-6)
    assert 1000.0 < spent.epsilon <= 1001.0
    curves = [gaussian_curve(5.0), privacy_curve.epsilon_delta_curve(5000.0, 0.0, "replace-one")]
    assert compose_epsilon(curves, 2e-6) == compose_epsilon(curves, 2e-6, method="rdp") < 5001.0
    with pytest.raises(InputError, match="these span 5001"):
        compose_epsilon(curves, 2e-6, method="pld")


@pytest.mark.parametrize("z", [0.1, 0.03, 0.01, 1e-3, 1e-140])
def test_a_gaussian_of_small_multiplier_beside_another_part_composes_by_renyi_dp(z):
    """A Gaussian of small multiplier beside any other part went to privacy loss distributions whose grid grows as
    1 / z^2: at z = 0.1 5.7 s and 688 MB, at 0.03 45 s and then inf, at 0.01 a bare MemoryError, at 1e-140 a bare
    ValueError. The span of its loss (1 / (2 z^2) + 8 / z) now sends it to Renyi DP; "pld" is refused, typed."""
    import time

    curves = [gaussian_curve(z), privacy_curve.epsilon_delta_curve(1.0, 0.0, "replace-one")]
    started = time.perf_counter()
    composed = compose_epsilon(curves, 1e-6)
    assert composed == compose_epsilon(curves, 1e-6, method="rdp") < math.inf
    assert composed >= gaussian_curve(z).epsilon(1e-6)  # never below the Gaussian part alone
    with pytest.raises(InputError, match="privacy losses span at most"):
        compose_epsilon(curves, 1e-6, method="pld")
    if composed < 1e6:  # an accountant's budget is at most 1e6
        accountant = PrivacyAccountant(epsilon=1e6, delta=0.5)
        accountant.spend(gaussian_curve(z).epsilon(1e-6), 1e-6, "Gaussian release", curve=gaussian_curve(z))
        accountant.spend(1.0, 0.0, "pure charge")
        alone = gaussian_curve(z).epsilon(1e-6)
        assert alone <= accountant.spent.epsilon <= min(composed, alone + 1.0) * (1 + 1e-12)  # basic or the curve
    assert time.perf_counter() - started < 5.0


def test_a_tiny_noise_multiplier_has_a_sound_epsilon_or_a_typed_refusal():
    """A Gaussian part of multiplier 1e-11 raised a bare OverflowError (e^epsilon of a rounded exponent): its epsilon
    is about 1 / (2 z^2); beyond the float range it is math.inf, and a multiplier whose z^-2 overflows is refused."""
    for z in (1e-10, 1e-11, 1e-100):
        epsilon = gaussian_curve(z).epsilon(1e-5)
        assert 1 / (2 * z * z) < epsilon < 1 / (2 * z * z) * (1 + 1e-9)
    assert privacy_curve.gaussian_epsilon(1e-200, 1e-5) == math.inf
    for z in (1e-300, 1e300):
        with pytest.raises(InputError, match="noise_multiplier"):
            gaussian_curve(z)
    with np.errstate(all="raise"):
        assert gaussian_curve(1.0).profile([1e300, 1e7]).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("value", [True, np.bool_(True), Decimal("1.0"), "1.0"])
def test_profile_takes_epsilons_by_the_rule_of_every_epsilon(value):
    """profile([True]) and profile([Decimal("1.0")]) read as epsilon 1 (an array's float conversion), where every
    other epsilon of dpcvx refuses a bool and a Decimal; now each entry is checked as a number, named by position."""
    curve = gaussian_curve(1.0)
    with pytest.raises(InputError, match=r"epsilons\[1\] must be a non-negative number"):
        curve.profile([0.5, value])
    expected = curve.profile(np.array([1.0, 1.0, 2.0])).tolist()
    assert curve.profile([np.float32(1.0), 1, np.int64(2)]).tolist() == expected


@pytest.mark.parametrize(("eps", "delta", "n"), [(10.0, 1e-12, 1000), (1e-3, 1e-12, 1000), (0.1, 1e-6, 1000),
                                                 (1.0, 1e-10, 10**5)])
def test_a_gaussian_objective_curve_states_no_more_than_its_certificate_at_its_own_delta(eps, delta, n):
    # the curve is the objective's (eps_o, delta_o) plus the cover's Gaussian: basic composition of the two gives back
    # the calibration's split, but it was dropped whenever a Gaussian part was present, and the PLD's grid, left about
    # 3e-16 of delta for the Gaussian, stated 1.1 eps at (1e-3, 1e-12) and inf at (10, 1e-12) (Renyi DP: 10.02)
    from dpcvx.privacy.calibrate_gaussian import gaussian_objective_perturbation

    cal = gaussian_objective_perturbation(n, 0.01, eps, delta, 0.25, L=1, R=1, m=1, tol=1e-10, dim=3)
    curve = cal.privacy_curve(eps, delta)
    assert any(part.kind == "gaussian" for part in curve.parts) and any(part.delta > 0 for part in curve.parts)
    for method in ("auto", "rdp", "basic"):
        assert compose_epsilon([curve], delta, method=method) <= eps
    assert curve.epsilon(delta) <= eps


def test_auto_falls_back_to_renyi_dp_where_the_pld_knows_no_epsilon():
    # a part of delta just below the target leaves the Gaussian about 1e-18 of delta: the PLD answers inf, the
    # Renyi DP bound (which spends delta on the exact parts as a whole) a finite epsilon, and auto takes the smaller
    curve = PrivacyCurve((CurvePart("epsilon-delta", "pair", epsilon=0.5, delta=1e-6 - 1e-18),
                          CurvePart("gaussian", "g", noise_multiplier=3.0)), dpcvx.Neighbours.REPLACE_ONE)
    rdp = compose_epsilon([curve], 1e-6, method="rdp")
    assert math.isfinite(rdp) and compose_epsilon([curve], 1e-6) <= rdp
