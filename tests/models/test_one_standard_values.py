"""A value taken at one entry is taken at every entry that gives it the same meaning, and read the same way after the
charge: each case here was refused at one entry and not another, raised untyped, or failed after the charge."""

from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


def test_a_fraction_threshold_is_read_as_its_float_after_the_charge():
    """threshold=Fraction(1, 3) passed the checks, was charged, then reached the small-table warning's %g as the raw
    Fraction: a bare TypeError (Python 3.11), the budget spent and no model."""
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(5.0)
    fitted = dpcvx.DPLogisticRegression(threshold=Fraction(1, 3), epsilon=1.0, random_state=0).fit(
        X, y, accountant=accountant)
    assert accountant.spent.epsilon == 1.0 and fitted.coef_.shape == (1, 3)
    assert fitted.decision_cut_ == pytest.approx(np.log(0.5))


@pytest.mark.parametrize("value", [np.longdouble(0.5), Fraction(1, 2), np.float32(0.5)])
def test_a_tuned_model_of_any_real_grid_value_saves(value, tmp_path):
    """A grid value np.longdouble(0.5) released, and dpcvx.save refused the model (a long double is no JSON); a
    Fraction was written as its repr beside the certificate's float."""
    X, y = _data(400)
    result = dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0, classes=(0, 1)), X, y, {"lam": [value, 0.1]},
                        epsilon=2.0, random_state=0)
    loaded = dpcvx.load(dpcvx.save(result.model, tmp_path / "tuned.json"))
    assert loaded.tuning.candidates[0] == {"lam": 0.5}


@pytest.mark.parametrize("prior", [(0.5, 10**400), (5e-324, 1.0), ("0.5", 0.5)])
def test_class_prior_rates_are_checked_as_every_probability(prior):
    with pytest.raises(InputError, match="class_prior's rates must lie in"):
        dpcvx.DPLogisticRegression(class_prior=prior).check_params()


@pytest.mark.parametrize("threshold", [np.float32(0.5), np.int64(1), Fraction(1, 2), np.longdouble(0.5)])
def test_sparsify_takes_any_real_threshold(threshold):
    """sparsify's own check refused numpy's scalars and a Fraction, which every other number of dpcvx takes."""
    X, y = _data(400)
    model = dpcvx.PrivateERM(data_norm=1.0, classes=(0, 1)).fit(X, y, 5.0, random_state=0)
    sparse = model.sparsify(threshold=threshold)
    assert np.all((sparse.coef_ == 0) | (np.abs(model.coef_) > float(threshold)))
    with pytest.raises(InputError, match="threshold"):
        model.sparsify(threshold=10**400)


def test_a_class_weight_out_of_range_is_named_without_a_bound_never_set():
    X, y = _data()
    with pytest.raises(InputError) as caught:
        dpcvx.DPLogisticRegression(class_weight={0: 1.0, 1: 1e308}).fit(X, y)
    assert "sample_weight_bound" not in str(caught.value) and "the largest class weight=1e+308" in str(caught.value)


def test_a_schema_takes_numpy_bools_as_every_flag():
    column = dpcvx.NumericColumn("a", 0, 1, missing=0.5, missing_indicator=np.bool_(True))
    schema = dpcvx.PublicSchema([column], strict=np.bool_(False), constant_feature=np.bool_(True))
    assert column.missing_indicator is True and schema.strict is False and schema.constant_feature is True
    with pytest.raises(InputError, match="strict must be True or False"):
        dpcvx.PublicSchema([column], strict=1)


@pytest.mark.parametrize("grid", [{"lam": {0.1, 0.01}}, {"lam": frozenset({0.1})}])
def test_a_tuning_grid_of_sets_is_refused(grid):
    """A set was taken as a list of values: the candidates' order, which the certificate states and a seed reproduces,
    changed with the hash seed."""
    from dpcvx.models.tuning.checks import expand_grid

    with pytest.raises(InputError, match="is a set"):
        expand_grid(grid)


@pytest.mark.parametrize(("estimator", "span"), [
    (lambda span: dpcvx.DPLogisticRegression(data_norm="private", norm_range=span, epsilon=1.0), "norm_range"),
    (lambda span: dpcvx.DPLinearRegression(label_bound="private", label_range=span, epsilon=1.0), "label_range"),
])
def test_a_fraction_range_end_is_checked_as_its_float(estimator, span):
    """A Fraction end of norm_range / label_range reached power_of_two_grid's refusal as the raw Fraction, whose :g
    raised a bare TypeError (Python 3.11); the refusal now shows the checked floats, and nothing is charged."""
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(5.0)
    with pytest.raises(InputError, match=rf"{span} = \[2.5, 3.5\] holds no power of two"):
        estimator((Fraction(5, 2), Fraction(7, 2))).fit(X, y if span == "norm_range" else X[:, 0],
                                                         accountant=accountant)
    assert accountant.spent.epsilon == 0


@pytest.mark.parametrize("call", [
    lambda: dpcvx.NumericColumn("a", 1, 0),
    lambda: dpcvx.DPLinearRegression(label_bound=(1, 0)).fit(np.zeros((20, 2)), np.zeros(20)),
    lambda: dpcvx.DPLogisticRegression(data_norm="private", norm_range=(1, 0.5)).fit(np.zeros((20, 2)),
                                                                                      np.tile([-1, 1], 10)),
    lambda: dpcvx.fit_private_norm(dpcvx.PrivateERM(), np.zeros((20, 2)), np.tile([-1, 1], 10), 1.0,
                                   r_min=2.0, r_max=1.0),
], ids=["column", "label_bound", "norm_range", "fit_private_norm"])
def test_a_reversed_public_range_is_refused_in_one_wording(call):
    """Every public (lo, hi) pair is checked by validation.check_interval: the one wording, never "holds no power
    of two" for a reversed range."""
    with pytest.raises(InputError, match=r"is reversed or empty: a public range \(lo, hi\) needs lo <=? hi"):
        call()
