"""A loaded certificate holds what a fitted one holds: the same types and equal values for the constants,
the calibration (every linear class, float and float-safe; multiclass and AdaSSP releases; TDDL, PINP and TDIL,
float and float-safe), the mechanism, the neighbour relation, the lam rule and the record weights
(dpcvx.release.constants, dpcvx.privacy.kernel_calibrate, docs/model-files.md)."""

from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.demo import synthetic_classification
from dpcvx.models.linear_regression import PrivateLinearRegression
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.adassp import AdaSSPCalibration
from dpcvx.privacy.calibration import LinearCalibration
from dpcvx.privacy.float_guarantee import FloatGuarantee
from dpcvx.privacy.kernel_calibrate import (
    KernelCalibration,
    KernelConstants,
    PINPParameters,
    TDDLCalibration,
    TDILParameters,
)
from dpcvx.privacy.lam_rule import LamChoice
from dpcvx.privacy.lattice_predictions import LatticeTDDL
from dpcvx.privacy.lattice_tdil import LatticeTDIL
from dpcvx.privacy.neighbours import Neighbours
from dpcvx.release.constants import Constants
from dpcvx.release.model import CertifiedWeights
from dpcvx.verification.exact import Irrational
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


def _same_typed(fitted, loaded):
    """A loaded certificate's typed parts have the fitted one's types and values."""
    assert type(loaded.calibration) is type(fitted.calibration) and loaded.calibration == fitted.calibration
    assert loaded.relation is fitted.relation and isinstance(loaded.relation, Neighbours)
    assert loaded.privacy_curve == fitted.privacy_curve
    assert loaded.float_guarantee is fitted.float_guarantee
    if hasattr(fitted, "verification"):  # the verifier's conditions, indexed by name
        assert set(loaded.verification.by_name) == set(fitted.verification.by_name) >= {"lipschitz", "convexity"}
        assert loaded.verification.by_name["lipschitz"].name == fitted.verification.condition("lipschitz").name
    assert str(loaded) == str(fitted)


@pytest.mark.parametrize("mechanism, delta, float_safe", [  # (eps, delta) objective has no float-safe form: refused
    (mechanism, delta, safe) for mechanism, delta in (("output", 0.0), ("output", 1e-6), ("objective", 0.0),
                                                      ("objective", 1e-6))
    for safe in (False, True) if not (safe and mechanism == "objective" and delta > 0)])
def test_every_linear_calibration_loads_typed(tmp_path, mechanism, delta, float_safe):
    X, y = synthetic_classification(n=300, d=3, random_state=0)
    model = dpcvx.PrivateERM(losses.logistic(), data_norm=1.0, lam=0.05, float_safe=float_safe).fit(
        X, y, epsilon=1.0, mechanism=mechanism, delta=delta, random_state=1)
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "model.json")).certificate
    assert isinstance(model.certificate.calibration, LinearCalibration)
    assert model.certificate.calibration.noise is loaded.calibration.noise
    _same_typed(model.certificate, loaded)


def test_lam_rule_weights_and_relation_load_typed(tmp_path):
    X, y = synthetic_classification(n=400, d=3, random_state=0)
    model = dpcvx.PrivateERM(losses.logistic(), data_norm=1.0, lam="auto", class_weight={-1: 2.0, 1: 1.0}).fit(
        X, y, epsilon=1.0, random_state=1)
    fitted = model.certificate
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "model.json")).certificate
    assert isinstance(fitted.lam_rule, LamChoice) and loaded.lam_rule == fitted.lam_rule
    assert isinstance(fitted.weights, CertifiedWeights) and loaded.weights == fitted.weights
    assert loaded.weights.class_weights == ((-1, 2.0), (1, 1.0))
    _same_typed(fitted, loaded)


def test_multiclass_and_adassp_certificates_load_typed(tmp_path):
    X, y = synthetic_classification(n=300, d=3, random_state=0)
    labels = np.where(X[:, 0] > 0.2, 2.0, np.where(X[:, 1] > 0, 1.0, 0.0))
    multiclass = PrivateMulticlassERM(dpcvx.PrivateERM(losses.logistic(), data_norm=1.0, lam=0.1, float_safe=True),
                                      (0.0, 1.0, 2.0)).fit(X, labels, 1.0, "output", random_state=0)
    loaded = dpcvx.load(dpcvx.save(multiclass, tmp_path / "multiclass.json")).certificate
    for fitted_one, loaded_one in zip(multiclass.certificate.per_class, loaded.per_class, strict=True):
        _same_typed(fitted_one, loaded_one)
    assert loaded.float_guarantee is multiclass.certificate.float_guarantee is FloatGuarantee.EXACT
    adassp = PrivateLinearRegression(1.0, 1.0).fit(X, np.clip(X @ [0.5, -0.2, 0.1], -1, 1), 1.0, 1e-6, random_state=0)
    loaded = dpcvx.load(dpcvx.save(adassp, tmp_path / "adassp.json")).certificate
    assert isinstance(loaded.calibration, AdaSSPCalibration)
    _same_typed(adassp.certificate, loaded)


def test_constants_keep_an_irrational_exactly_through_the_file_form():
    constants = Constants(L=Irrational("sqrt(2)", 2 ** 0.5), m=Fraction(1, 10), R=1.0, lam=0.1, n=50, d=3,
                          c=float("inf"))
    saved = constants.to_dict()
    assert saved["L"] == {"exact": "sqrt(2)", "float": 2 ** 0.5} and saved["m"]["exact"] == "1/10"
    again = Constants.from_saved({key: (item["exact"], item["float"]) for key, item in saved.items()})
    assert again == constants and list(again) == ["L", "c", "m", "R", "lam", "n", "d"]
    assert str(again["L"]) == "sqrt(2)" and float(again["L"]) == 2 ** 0.5



def _pinp(X, y):
    curator = PINP("rbf", gamma=2.0, lam=0.1, max_queries=10, loss="huber_hinge:h=0.5").fit(X, y, 5.0, random_state=0)
    curator.decision_function(X[:5])
    return curator.release()


KERNEL_RELEASES = {
    "TDDL": lambda X, y: TDDL("rbf", gamma=2.0, lam=0.1, loss="huber_hinge:h=0.5").fit(X, y, 1.0, Z=X[:20],
                                                                                     random_state=0),
    "TDDL gaussian float-safe": lambda X, y: TDDL("rbf", gamma=2.0, lam=0.1, float_safe=True).fit(
        X, y, 1.0, 1e-6, Z=X[:20], random_state=0),
    "TDDL float-safe public span": lambda X, y: TDDL("rbf", gamma=2.0, lam=0.1, span="public", float_safe=True).fit(
        X, y, 1.0, Z=X[:20], random_state=0),
    "PINP": _pinp,
    "TDIL": lambda X, y: TDIL("linear", lam=0.1, input_bound=1.0).fit(X, y, 200.0, 1e-6, random_state=3),
    "TDIL float-safe net": lambda X, y: TDIL("rbf", gamma=1.0, lam=0.1, input_bound=1.0, net_spacing=0.5,
                                             float_safe=True).fit(X, y, 50.0, random_state=3),
}
KERNEL_TYPES = {"TDDL": TDDLCalibration, "TDDL gaussian float-safe": LatticeTDDL,
                "TDDL float-safe public span": LatticeTDDL, "PINP": PINPParameters, "TDIL": TDILParameters,
                "TDIL float-safe net": LatticeTDIL}


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ExponentialCostWarning")
@pytest.mark.parametrize("name", list(KERNEL_RELEASES))
def test_a_kernel_certificate_loads_with_the_fitted_types_and_values(tmp_path, name):
    """TDDL, PINP and TDIL (float and float-safe): the loaded certificate holds the fitted one's typed constants and
    calibration, equal, with the same relation, curve and floating-point guarantee."""
    X, y = synthetic_classification(n=200, d=2, random_state=0)
    model = KERNEL_RELEASES[name](X, y)
    fitted = model.certificate
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "kernel.json")).certificate
    assert type(fitted.calibration) is type(loaded.calibration) is KERNEL_TYPES[name]
    assert isinstance(loaded.calibration, KernelCalibration) and loaded.calibration == fitted.calibration
    assert isinstance(loaded.constants, KernelConstants) and loaded.constants == fitted.constants
    assert [type(value) for _, value, _ in loaded.constants.statements()] == \
        [type(value) for _, value, _ in fitted.constants.statements()]
    assert type(loaded.constants.n) is int and type(loaded.constants.L) is type(fitted.constants.L) is Fraction
    assert loaded.constants.L == fitted.constants.L == 1  # the verifier's exact L, not its double
    assert loaded.relation is fitted.relation is Neighbours.REPLACE_ONE
    assert loaded.float_guarantee is fitted.float_guarantee and isinstance(loaded.float_guarantee, FloatGuarantee)
    assert loaded.privacy_curve == fitted.privacy_curve and str(loaded) == str(fitted)
    assert (loaded.float_guarantee is FloatGuarantee.EXACT) == (name in ("TDDL gaussian float-safe", "PINP",
                                                                        "TDIL float-safe net"))
