"""A released class count at its public floor (dpcvx.models.class_count.count_at_floor): a ClassFloorWarning says
the rate the fit used is the floor's, not an estimate of the data's, and points to a public class_prior; the
SmallTableWarning names the prior as the floor's. Analyst
probe P3 (session 66, finding 4): for fraud at 0.64 % both class_weight="balanced" and class_prior="private"
released the count ceil(0.01 n), and the warning read "at the fit's prior 0.01, given or released", as if the
data's rate. The note is a function of the released count and the public n only (post-processing)."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import ClassFloorWarning, SmallTableWarning
from dpcvx.models.class_count import count_at_floor, floor_class
from dpcvx.release.weight_rules import MIN_CLASS_RATE, count_floor
from dpcvx.sklearn.noise_warning import warn_if_small_table

N, D = 5000, 5


def _rows(seed: int, positives: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(N, D)) / np.sqrt(D)
    y = np.zeros(N, dtype=int)
    y[rng.choice(N, positives, replace=False)] = 1
    return X, y


def _texts(estimator, X, y, category) -> list[str]:
    # recorded, every warning: the fit also brings a NoiseDominatesWarning and the NOT PRIVATE TrainingRowsWarning
    # (a useless release on these noise labels), which this test does not read; only ``category`` is
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [str(w.message) for w in caught if w.category is category]


def _small_table_text(estimator, X, y) -> str:
    texts = _texts(estimator, X, y, SmallTableWarning)
    assert len(texts) == 1, texts
    return texts[0]


SETTINGS = [{"class_weight": "balanced"}, {"class_prior": "private", "threshold": "prior"}]


@pytest.mark.parametrize("settings", SETTINGS)
def test_a_count_at_the_floor_is_named_the_floors(settings):
    """Rare classes (0.1 % and 0.4 %, below the 1 % floor) released at the floor f = 50: a ClassFloorWarning names
    the class and the floor, says the rate is not the data's, and gives the public way out; the SmallTableWarning
    calls the prior the floor's. The same texts for both tables (they read the release and public n, not the rows).
    Seeds fixed: each count is checked to be the floor before the texts are."""
    texts = []
    for seed, positives in ((0, 5), (1, 20)):
        X, y = _rows(seed, positives)
        model = dpcvx.DPLogisticRegression(epsilon=2.0, random_state=0, **settings)
        with warnings.catch_warnings(record=True) as caught:  # every warning: as _texts
            warnings.simplefilter("always")
            model.fit(X, y)
        record = model.certificate_.weights.private_count
        assert record["count"] == record["floor"] == count_floor(N) == 50, record
        small = [str(w.message) for w in caught if w.category is SmallTableWarning]
        floor = [str(w.message) for w in caught if w.category is ClassFloorWarning]
        assert len(small) == 1 and len(floor) == 1, (small, floor)
        assert "given or released" not in small[0], small[0]
        assert ("count at the prior 0.01 the fit used, its private count's public floor, not the data's rate: see "
                "the ClassFloorWarning") in small[0], small[0]
        assert (f"the released count of class 1 is its public floor ceil({MIN_CLASS_RATE:g} n), the least count a "
                "class is released with, so the rate the fit used for it is the floor's (0.01 of the rows), not an "
                "estimate of the data's") in floor[0], floor[0]
        assert ("If its rate is known from public facts (never from this data), give it as class_prior=(RATE_0, "
                "RATE_1): no count is drawn") in floor[0], floor[0]
        texts.append((small[0], floor[0]))
    assert texts[0] == texts[1]


def test_one_vs_rest_names_each_class_at_its_floor():
    """class_prior="private" with three classes: each class's fit draws its own count inside epsilon / 3; a class
    of 0.1 % is released at its floor and named; the others (near half each) are not."""
    X, _ = _rows(3, 0)
    y = np.where(np.arange(N) % 2 == 0, "a", "b").astype(object)
    y[:5] = "rare"
    model = dpcvx.DPLogisticRegression(epsilon=3.0, classes=("a", "b", "rare"), class_prior="private",
                                       threshold="prior", random_state=0)
    texts = _texts(model, X, y, ClassFloorWarning)
    counts = [part.weights.private_count["count"] for part in model.certificate_.per_class]
    assert counts[2] == 50 and min(counts[:2]) > 50, counts
    assert len(texts) == 1 and "the released count of class 'rare' is its public floor" in texts[0], texts
    assert ("To give a rare class a rate of its own, fit it against the rest as two classes with a public "
            "class_prior=(RATE_0, RATE_1)") in texts[0]


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_a_count_above_the_floor_has_no_floor_note():
    """A class near 30 %: the released count is far above the floor (Laplace scale 20 against a margin of about
    1,450), and the warning speaks of the released prior as before."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(N, 60)) / np.sqrt(60)
    y = (rng.random(N) < 0.3).astype(int)
    model = dpcvx.DPLogisticRegression(epsilon=0.3, class_weight="balanced", random_state=0)
    assert _texts(model, X, y, ClassFloorWarning) == []
    text = _small_table_text(model, X, y)
    assert not count_at_floor(model.certificate_.weights)
    assert "given or released" in text and "public floor" not in text, text


def test_count_at_floor_reads_the_record_only():
    class Weights:  # the two fields count_at_floor reads, as a certificate's weights hold them
        def __init__(self, count):
            self.private_count = {"count": count, "n": 1000, "floor": 10}
    assert count_at_floor(Weights(10)) and count_at_floor(Weights(990))
    assert not count_at_floor(Weights(11)) and not count_at_floor(Weights(989))
    assert not count_at_floor(None)
    assert floor_class(Weights(10), ("no", "yes")) == "yes" and floor_class(Weights(990), ("no", "yes")) == "no"
    assert floor_class(Weights(500), ("no", "yes")) is None


def test_the_rule_without_the_floor_keeps_its_words():
    with pytest.warns(SmallTableWarning, match=r"expected count at the fit's prior 0.01, given or released"):
        warn_if_small_table("owner", 5000, 50, 1.0, prior=0.01)
    with pytest.warns(SmallTableWarning, match=r"count at the prior 0.01 the fit used, its private count's public "
                                               r"floor, not the data's rate"):
        warn_if_small_table("owner", 5000, 50, 1.0, prior=0.01, floored=True)


@pytest.mark.parametrize("eps_count", [0.01, 0.2, 1.0, 3.0])
def test_count_drop_is_the_discrete_laplace_tail(eps_count):
    """count_drop(eps_c) = (k, p): k the least whole number >= ln(10) / eps_c and p = P(Z <= -k) for Z discrete
    Laplace of scale 1 / eps_c (pmf (1 - a) / (1 + a) a^|z|, a = e^-eps_c), summed here term by term; p is at
    most COUNT_DROP_SHARE (0.1) and, for a small eps_c, about half of it."""
    from dpcvx.sklearn.noise_warning import COUNT_DROP_SHARE, count_drop

    k, p = count_drop(eps_count)
    a = np.exp(-eps_count)
    z = np.arange(k, k + 200_000)
    assert p == pytest.approx(float(np.sum((1 - a) / (1 + a) * a ** z)), rel=1e-9)
    assert k == max(1, int(np.ceil(np.log(1 / COUNT_DROP_SHARE) / eps_count)))
    assert p <= COUNT_DROP_SHARE
    if eps_count <= 0.01:
        assert p == pytest.approx(COUNT_DROP_SHARE / 2, rel=0.02)


def test_the_floor_note_gives_the_counts_noise():
    """Analyst probe P2 (session 68, finding 8): a class of 5 % released at the floor by its count's noise was
    called "rarer still" only. The note also gives the noise's scale 1 / eps_c (public, from the certificate's
    count record) and the class size up to which the floor may come from the noise: floor + k (count_drop)."""
    from dpcvx.sklearn.noise_warning import count_drop

    X, y = _rows(0, 5)
    model = dpcvx.DPLogisticRegression(epsilon=2.0, random_state=0, class_weight="balanced")
    with warnings.catch_warnings(record=True) as caught:  # every warning: as _texts
        warnings.simplefilter("always")
        model.fit(X, y)
    record = model.certificate_.weights.private_count
    assert record["count"] == record["floor"] == 50, record
    eps_count = float(record["epsilon"])
    drop, chance = count_drop(eps_count)
    floor = [str(w.message) for w in caught if w.category is ClassFloorWarning]
    assert len(floor) == 1, floor
    assert (f"the class may be rarer still, or its count's noise carried it there: the count is drawn with discrete "
            f"Laplace noise of scale 1 / eps_c = {1 / eps_count:.3g} rows (eps_c = {eps_count:.3g}), which lowers a "
            f"count by {drop:,} rows or more with probability {chance:.2g}, so at this epsilon a class of up to "
            f"{50 + drop:,} rows (the floor, 50, plus {drop:,}) may be released at the floor. Public: a function of "
            "the released count, n and eps_c.") in floor[0], floor[0]
