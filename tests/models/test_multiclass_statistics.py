"""One-vs-rest draws private column statistics ONCE before its k fits (models.multiclass, docs/theory.md section 15).

Before, a multiclass learner or estimator asked for column_statistics=True or "ranges" was refused ("offered for two
classes"), and one-vs-rest on a column that fills a small part of its declared range released no better than a
constant. Now the statistics are drawn once at eps_s, the k fits share the map they give and split eps_fit, the
accountant is charged the one total before anything is drawn, and the release (its certificate, its file, its report)
records the draw once."""

import json

import numpy as np
import pytest
from scipy import sparse

import dpcvx
from dpcvx.data.standardiser import is_statistics_map
from dpcvx.exceptions import FileError, InputError
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.release_audit import audit_release_file
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.composition import one_vs_rest_budget
from dpcvx.release.records.header import file_digest
from dpcvx.release.records.linear_release import statistics_map

CLASSES = (0, 1, 2, 3)
RANGES = "private column ranges (discrete Laplace histograms)"
SUMS = "private column sums and sums of squares (discrete Laplace)"


@pytest.fixture(scope="module")
def tiers():
    """A prober's table: four balanced tiers told by orders 0..60 of a column declared 0..5,000, and a noise
    column filling its declared range."""
    rng = np.random.default_rng(11)
    labels = rng.integers(0, 4, 6000)
    orders = np.clip(labels * 12 + rng.normal(6, 4, labels.size), 0, None)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("orders", 0, 5000), dpcvx.NumericColumn("visits", 0, 366)))
    return schema.transform({"orders": orders, "visits": rng.uniform(0, 365, labels.size)}), labels


def _learner(statistics, **settings):
    return PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, fit_intercept=True,
                                                 column_statistics=statistics, **settings), CLASSES)


def _fit(learner, X, y, epsilon=1.0, **options):
    return learner.fit(X, y, epsilon, **options)


@pytest.mark.parametrize(("statistics", "drawn"), [("ranges", RANGES), (True, SUMS)])
def test_the_statistics_are_drawn_once_charged_with_the_fits_once_and_shared_by_every_class(tiers, statistics, drawn):
    X, y = tiers
    accountant = PrivacyAccountant(epsilon=10.0)
    model = _fit(_learner(statistics), X, y, random_state=0, accountant=accountant)
    certificate = model.certificate
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == model.epsilon == 1.0
    record = certificate.column_statistics
    assert record["epsilon"] == pytest.approx(0.1) and certificate.fit_epsilon == pytest.approx(0.9)
    assert record["total_epsilon"] == model.epsilon == record["epsilon"] + certificate.fit_epsilon
    assert certificate.class_epsilon == one_vs_rest_budget(4, certificate.fit_epsilon, 0.0, "objective", False)[0]
    # each class's release is its fit alone, at its share of eps_fit: the draw is recorded once, at the top
    assert all(one.column_statistics is None and one.total_epsilon == certificate.class_epsilon
               for one in certificate.per_class)
    assert is_statistics_map(model.rows.feature_map, statistics_map(record, model.rows.norm_bound))
    assert [part.what for part in model.privacy_curve.parts][0] == drawn and len(model.privacy_curve.parts) == 5
    assert "drawn once for every class" in str(certificate) and "eps_s = 0.1" in certificate.guarantee


def test_the_ranges_locate_the_column_that_one_vs_rest_could_not(tiers):
    """The prober's table: one-vs-rest without the ranges released no better than a constant (4 balanced tiers:
    0.25); with them it tells the tiers apart. Seeded; the margins are wide (measured 0.24 and 0.78 at seed 0)."""
    X, y = tiers
    plain = _fit(_learner(False), X, y, random_state=0).score(X, y)
    located = _fit(_learner("ranges"), X, y, random_state=0).score(X, y)
    assert plain < 0.4 < 0.6 < located


def test_gaussian_output_perturbation_composes_the_draw_with_the_k_gaussians(tiers):
    X, y = tiers
    accountant = PrivacyAccountant(epsilon=3.0, delta=1e-5)
    model = _fit(_learner("ranges"), X, y, mechanism="output", delta=1e-6, random_state=0, accountant=accountant)
    (entry,) = accountant.ledger
    assert (entry.cost.epsilon, entry.cost.delta) == (1.0, 1e-6)
    assert [part.kind for part in entry.curve.parts] == ["epsilon-delta"] + ["gaussian"] * 4
    assert entry.curve.parts[0].epsilon == pytest.approx(0.1)
    assert model.privacy_curve.to_dict() == entry.curve.to_dict()
    assert model.privacy_curve.epsilon(1e-6) <= 1.0 + 1e-9


def test_a_seed_reproduces_the_draw_and_no_seed_draws_afresh(tiers):
    X, y = tiers
    one, two = (_fit(_learner("ranges"), X, y, random_state=3) for _ in range(2))
    assert one.certificate.column_statistics == two.certificate.column_statistics
    assert np.array_equal(one.coef_, two.coef_)
    fresh = [_fit(_learner(True), X, y).certificate.column_statistics["sums"] for _ in range(2)]
    assert fresh[0] != fresh[1]


@pytest.mark.parametrize(("change", "match"), [
    ({"neighbours": "add-remove", "n_public": 6000}, "replace-one"),
    ({"sparse": True}, "dense rows"),
])
def test_a_refused_fit_spends_nothing(tiers, change, match):
    X, y = tiers
    options = dict(change)
    if options.pop("sparse", False):
        X = sparse.csr_matrix(X)
    accountant = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=match):
        _learner("ranges").fit(X, y, 1.0, accountant=accountant, **options)
    assert accountant.ledger == []


def test_a_private_bound_is_still_refused_one_row_map(tiers):
    with pytest.raises(InputError, match="data_norm='private'.*one R per release"):
        PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm="private", column_statistics=False), CLASSES)


def test_the_estimator_draws_them_with_one_charge(tiers):
    X, y = tiers
    accountant = PrivacyAccountant(epsilon=10.0)
    estimator = dpcvx.DPLogisticRegression(classes=CLASSES, column_statistics="ranges", random_state=0).fit(
        X, y, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    assert estimator.model_.certificate.column_statistics["epsilon"] == pytest.approx(0.1)
    assert estimator.score(X, y) > 0.6


def test_the_file_records_the_draw_once_and_refuses_an_edit(tiers, tmp_path):
    X, y = tiers
    model = _fit(_learner("ranges"), X, y, random_state=0)
    path = dpcvx.save(model, tmp_path / "model.json")
    data = json.loads(path.read_text())
    assert data["column_statistics"] == model.certificate.column_statistics
    assert data["fit_epsilon"] == model.certificate.fit_epsilon
    loaded = dpcvx.load(path)
    assert np.array_equal(loaded.predict(X), model.predict(X)) and str(loaded.certificate) == str(model.certificate)
    assert loaded.privacy_curve.to_dict() == model.privacy_curve.to_dict()

    def edited(edit, match):
        changed = json.loads(path.read_text())
        edit(changed)
        changed["sha256"] = file_digest(changed)  # as an editor would make it again
        (tmp_path / "edited.json").write_text(json.dumps(changed))
        with pytest.raises(FileError, match=match):
            dpcvx.load(tmp_path / "edited.json")

    def shift_cells(changed):
        cells = changed["column_statistics"]["cells"]
        cells[1][0] = min(cells[1][0] + 40, 256)

    edited(shift_cells, "feature_map is not the map column_statistics gives")
    edited(lambda changed: changed.update(fit_epsilon=0.5), "eps_s \\+ fit_epsilon")
    edited(lambda changed: changed.update(column_statistics=None), "fit_epsilon is recorded but column_statistics")
    # the draw removed whole: the classes' shares are then not the split of the file's epsilon
    edited(lambda changed: changed.update(column_statistics=None, fit_epsilon=None), "does not match the budget split")


@pytest.mark.parametrize("statistics", [True, "ranges"])
def test_neighbouring_files_differ_only_in_declared_values(tiers, statistics):
    """The attacker's diff: fit on the table and on it with one record replaced, same seed; every field of the two
    files that differs is a released value or declared derived from one. The sums move with any record, and with
    them the shared map and its digest in every class's certificate (certificate.feature_map)."""
    X, y = tiers
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = -X[0], (y[0] + 1) % 4
    result = audit_release_file(_learner(statistics), X, y, epsilon=1.0, seed=2, neighbour=(X2, y2))
    assert result.clean, result
    assert any(path.startswith("per_class[3].privatised") for path in result.privatised)
    if statistics is True:
        assert any(path.startswith("column_statistics.sums") for path in result.privatised)
        assert {f"per_class[{i}].certificate.feature_map.sha256" for i in range(4)} <= set(result.derived)


def test_the_report_names_the_map_as_chosen_privately(tiers):
    X, y = tiers
    text = _fit(_learner("ranges"), X, y, random_state=0).report().to_markdown()
    chosen = text.split("Chosen privately by dpcvx")[1].split("## ")[0]
    assert "the encoding of the columns before the norm bound" in chosen
    assert "noisy histograms of each column" in chosen
