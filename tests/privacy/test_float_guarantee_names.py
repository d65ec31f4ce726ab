"""Every release kind dpcvx produces names its floating-point guarantee, and the loader re-checks the name.

One release of each kind is built (PrivateERM output/objective x pure/(eps, delta) x float_safe, one-vs-rest
multiclass, DPLinearRegression's AdaSSP and objective forms, TDDL, PINP, TDIL default and float_safe, and
both tuning procedures). Each certificate names one of FloatGuarantee's values and prints its statement;
tuning names two, the selection's (exact) and the selected model's. In every saved file, an edited name is
refused by :func:`dpcvx.load`.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import ExponentialCostWarning, InputError, NoiseDominatesWarning
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.float_guarantee import FloatGuarantee, named_guarantee

LOSS = "huber_hinge:h=0.5"
N = 200


def _circle(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(seed).uniform(-1, 1, (n, 2)) / np.sqrt(2)
    return X, np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)


def _linear(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    out = {}
    for mechanism in ("output", "objective"):
        for delta in (0.0, 1e-6):
            for safe in (False, True):
                if safe and mechanism == "objective" and delta > 0:
                    continue  # refused: the Gaussian objective has no floating-point-safe form
                learner = dpcvx.PrivateERM(lam=0.1, data_norm=1.0, float_safe=safe)
                out[f"PrivateERM {mechanism} delta={delta} float_safe={safe}"] = learner.fit(
                    X, y, 1.0, mechanism, delta=delta, random_state=0)
    return out


def _kernel(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    Z, _ = _circle(6, 2)
    pinp = PINP("rbf", gamma=4.0, lam=0.1, max_queries=6, loss=LOSS).fit(X, y, 1e4, 1e-6, random_state=4)
    pinp.decision_function(Z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExponentialCostWarning)
        tdil = {f"TDIL float_safe={safe}": TDIL("rbf", gamma=4.0, net_spacing=0.3, lam=0.1, input_bound=1.0,
                                                 loss=LOSS, float_safe=safe).fit(X, y, 200.0, 1e-6, random_state=3)
                for safe in (False, True)}
    return {"TDDL": TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS).fit(X, y, 1.0, Z=Z, random_state=0),
            "TDDL float_safe": TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS, float_safe=True,
                                    span="training").fit(X, y, 1.0, Z=Z, random_state=0),
            "PINP": pinp.release(), **tdil}


@pytest.fixture(scope="module")
def releases() -> dict[str, Any]:
    """One release of each kind that dpcvx saves to a file."""
    X, y = _circle(N, 1)
    labels = np.digitize(X[:, 0], [-0.2, 0.2])
    target = np.clip(X @ np.array([0.5, -0.4]), -1, 1)
    multiclass = PrivateMulticlassERM(dpcvx.PrivateERM(lam=0.1, data_norm=1.0), (0, 1, 2)).fit(
        X, labels, 1.0, "output", random_state=2)
    with warnings.catch_warnings():  # 200 rows: too few for the columns' range search (AdaSSP's public warning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        regression = {name: dpcvx.DPLinearRegression(epsilon=5.0, random_state=0, **params).fit(X, target).model_
                      for name, params in (("AdaSSP", {"label_bound": 1.0}),
                                           ("objective", {"mechanism": "objective", "weight_bound": 1.5, "lam": 1e-3,
                                                          "fit_intercept": False}))}
    return {**_linear(X, y), "multiclass": multiclass, **{f"DPLinearRegression {k}": v for k, v in regression.items()},
            **_kernel(X, y)}


@pytest.mark.slow
def test_every_saved_release_kind_names_a_guarantee_and_prints_it(releases):
    for name, release in releases.items():
        named = named_guarantee(release.certificate)
        assert isinstance(named, FloatGuarantee), name
        assert named.statement in str(release.certificate), name
    # the names are the true ones, not one default for all
    assert named_guarantee(releases["TDIL float_safe=False"].certificate) is FloatGuarantee.MITIGATION_ONLY
    assert named_guarantee(releases["TDIL float_safe=True"].certificate) is FloatGuarantee.EXACT
    assert named_guarantee(releases["PrivateERM objective delta=0.0 float_safe=True"].certificate) \
        is FloatGuarantee.DITHERED_LATTICE


def _edit_first_name(data: Any, replacement: str) -> bool:
    """Replace the first "float_guarantee" found in ``data`` (depth first); True if one was found."""
    if isinstance(data, dict):
        if "float_guarantee" in data:
            data["float_guarantee"] = replacement
            return True
        return any(_edit_first_name(value, replacement) for value in data.values())
    if isinstance(data, list):
        return any(_edit_first_name(value, replacement) for value in data)
    return False


@pytest.mark.slow
def test_an_edited_guarantee_name_is_refused_on_load(releases, tmp_path):
    for name, release in releases.items():
        path = dpcvx.save(release, tmp_path / "release.json", overwrite=True)  # each release in turn
        named = named_guarantee(dpcvx.load(path).certificate)
        assert named is named_guarantee(release.certificate), name
        other = next(member for member in FloatGuarantee if member is not named)
        edited = json.loads(path.read_text())
        assert _edit_first_name(edited, other.value), name
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(InputError, match="calibration|float_guarantee"):
            dpcvx.load(tmp_path / "edited.json")


@pytest.mark.slow
@pytest.mark.parametrize("procedure", ["split", "full-data"])
def test_tuning_names_the_exact_selection_and_the_selected_models_guarantee(procedure):
    X, y = _circle(N, 1)
    for safe, guarantee in ((False, FloatGuarantee.MITIGATION_ONLY), (True, FloatGuarantee.EXACT)):
        result = dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0, float_safe=safe), X, y, {"lam": [0.1, 0.01]}, 1.0,
                            mechanism="output", procedure=procedure, random_state=0)
        certificate = result.certificate
        assert certificate.selection_float_guarantee is FloatGuarantee.EXACT
        assert certificate.release_float_guarantee is guarantee
        assert named_guarantee(result.model.certificate) is guarantee
        record = json.loads(result.to_json())["certificate"]
        assert (record["selection_float_guarantee"], record["release_float_guarantee"]) == ("exact", guarantee.value)
        text = str(certificate)
        assert "selection's floating point: exact" in text and "selected model's " + guarantee.statement in text
