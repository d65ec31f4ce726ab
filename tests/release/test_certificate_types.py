"""A loaded certificate holds what a fitted one holds: the same types and equal values for the constants,
the calibration, the mechanism and the neighbour relation (dpcvx.release.constants, docs/model-files.md)."""

from fractions import Fraction

import pytest

import dpcvx
from dpcvx import losses
from dpcvx.demo import synthetic_classification
from dpcvx.privacy.neighbours import Neighbours
from dpcvx.release.constants import Constants, Irrational
from dpcvx.verification.verdict import Mechanism


def _types(value):
    """The type of a value and, for a container, of everything in it (lists and tuples alike: JSON has one)."""
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_types(item) for item in value]
    return type(value)


@pytest.mark.parametrize("mechanism, delta, neighbours", [
    ("objective", 0.0, "replace-one"),
    ("output", 0.0, "replace-one"),
    ("objective", 1e-5, "add-remove"),
])
def test_a_loaded_certificate_has_the_types_and_values_of_the_fitted_one(tmp_path, mechanism, delta, neighbours):
    X, y = synthetic_classification(n=400, d=4, random_state=0)
    model = dpcvx.PrivateERM(losses.logistic(), data_norm=1.0, lam=0.05).fit(
        X, y, epsilon=1.0, mechanism=mechanism, delta=delta, neighbours=neighbours,
        n_public=400 if neighbours == "add-remove" else None, random_state=1)
    fitted = model.certificate
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "model.json")).certificate
    assert isinstance(fitted.constants, Constants) and isinstance(loaded.constants, Constants)
    assert loaded.constants == fitted.constants
    assert {key: type(value) for key, value in loaded.constants.items()} == \
        {key: type(value) for key, value in fitted.constants.items()}
    assert fitted.constants["L"] == Fraction(1) and float(loaded.constants["L"]) == 1.0
    if mechanism == "objective":
        assert loaded.constants["c"] == Fraction(1, 4) and float(loaded.constants["c"]) == 0.25
    assert type(loaded.calibration) is type(fitted.calibration) and loaded.calibration == fitted.calibration
    assert _types(loaded.calibration) == _types(fitted.calibration)
    assert loaded.mechanism is fitted.mechanism is Mechanism(mechanism)
    assert loaded.relation is fitted.relation is Neighbours(neighbours)
    assert str(loaded) == str(fitted)


def test_constants_keep_an_irrational_exactly_through_the_file_form():
    constants = Constants(L=Irrational("sqrt(2)", 2 ** 0.5), m=Fraction(1, 10), R=1.0, lam=0.1, n=50, d=3,
                          c=float("inf"))
    saved = constants.to_dict()
    assert saved["L"] == {"exact": "sqrt(2)", "float": 2 ** 0.5} and saved["m"]["exact"] == "1/10"
    again = Constants.from_saved({key: (item["exact"], item["float"]) for key, item in saved.items()})
    assert again == constants and list(again) == ["L", "c", "m", "R", "lam", "n", "d"]
    assert str(again["L"]) == "sqrt(2)" and float(again["L"]) == 2 ** 0.5

