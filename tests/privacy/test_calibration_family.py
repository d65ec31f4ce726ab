"""The calibration family (dpcvx.privacy.calibration): each class reads its own record back and answers for itself.

Every linear calibration's record, recomputed from its public inputs by the class the record names
(``from_record`` inverts ``to_dict``), is the record itself and gives an equal object; an edited
input shows in the recomputed numbers; a record of no known class is refused by the file codec
(dpcvx.release.records.calibration_record); and the questions the rest of the library asks (inputs, delta
or not, the certificate line, the expected noise, the privacy curve) are answered by the object.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcvx.exceptions import InputError
from dpcvx.privacy.calibrate import ObjectivePerturbation, objective_perturbation, output_perturbation
from dpcvx.privacy.calibrate_gaussian import gaussian_objective_perturbation, gaussian_output_perturbation
from dpcvx.privacy.calibration import Noise, PublicFacts
from dpcvx.privacy.lattice_objective import LatticeObjective
from dpcvx.privacy.lattice_output import LatticeGaussianOutput, LatticeLaplaceOutput
from dpcvx.privacy.neighbours import Neighbours
from dpcvx.release.records.calibration_record import LINEAR_CALIBRATIONS, linear_class, read_linear
from dpcvx.verification.verdict import Mechanism

N, LAM, EPS, DELTA, D = 2_000, 1e-2, 1.0, 1e-6, 5
COMMON = {"L": 1.0, "R": 1.0, "m": 1.0, "tol": 1e-10}


def released(calibration):
    return calibration.release(np.zeros(D), calibration.draw_release_noise(D, np.random.default_rng(0)))[1]


def _calibrations() -> dict[str, object]:
    output = output_perturbation(N, LAM, EPS, **COMMON)
    objective = objective_perturbation(N, LAM, EPS, 0.25, split="max", **COMMON)
    gaussian_output = gaussian_output_perturbation(N, LAM, EPS, DELTA, dim=D, **COMMON)
    gaussian_objective = gaussian_objective_perturbation(N, LAM, EPS, DELTA, 0.25, dim=D, **COMMON)
    return {  # the float ones as released: their record names the grid the release was rounded to
        "output": released(output),
        "objective": released(objective),
        "gaussian-output": released(gaussian_output),
        "gaussian-objective": released(gaussian_objective),
        "discrete-laplace-output": LatticeLaplaceOutput(output, D),
        "discrete-gaussian-output": LatticeGaussianOutput(gaussian_output),
        "discrete-laplace-objective": LatticeObjective(objective, D),
    }


CALIBRATIONS = _calibrations()


@pytest.mark.parametrize("name", CALIBRATIONS)
def test_each_class_recomputes_its_own_record_and_object(name):
    calibration = CALIBRATIONS[name]
    record = calibration.to_dict()
    again = type(calibration).from_record(record, PublicFacts())
    assert again.to_dict() == record
    assert again == calibration and type(again) is type(calibration)
    assert read_linear(record) == calibration


@pytest.mark.parametrize("name", CALIBRATIONS)
def test_an_edited_epsilon_shows_in_the_recomputed_record(name):
    record = CALIBRATIONS[name].to_dict()
    edited = dict(record, epsilon=record["epsilon"] * 2)
    recomputed = linear_class(edited).from_record(edited, PublicFacts()).to_dict()
    assert recomputed != edited | {"epsilon": record["epsilon"]} and recomputed != record
    with pytest.raises(InputError, match="the file has been edited"):
        read_linear(edited | {"epsilon": record["epsilon"]} | {"beta": 1.0, "sigma": 1.0})


def test_a_record_of_no_known_class_is_refused():
    record = CALIBRATIONS["output"].to_dict()
    with pytest.raises(InputError, match="not a dpcvx calibration"):
        read_linear(dict(record, noise="cauchy"))
    with pytest.raises(InputError, match="not a dpcvx calibration"):
        linear_class(dict(record, mechanism="input"))


def test_the_codec_table_holds_each_class_once_under_its_typed_names():
    keys = [(kind.mechanism, kind.noise) for kind in LINEAR_CALIBRATIONS]
    assert len(set(keys)) == len(keys) == 7
    assert all(isinstance(mechanism, Mechanism) and isinstance(noise, Noise) for mechanism, noise in keys)
    for calibration in CALIBRATIONS.values():
        assert linear_class(calibration.to_dict()) is type(calibration)


def test_the_class_answers_delta_inputs_relation_and_description():
    approximate = {name: c.approximate for name, c in CALIBRATIONS.items()}
    assert approximate == {"output": False, "objective": False, "gaussian-output": True,
                           "gaussian-objective": True, "discrete-laplace-output": False,
                           "discrete-gaussian-output": True, "discrete-laplace-objective": False}
    assert "delta" in CALIBRATIONS["gaussian-output"].inputs
    assert "split" in CALIBRATIONS["objective"].inputs
    assert CALIBRATIONS["discrete-laplace-output"].describe().startswith("calibration (exact sampler)")
    assert "analytic Gaussian sigma" in CALIBRATIONS["gaussian-output"].describe()
    assert all(c.relation is Neighbours.REPLACE_ONE for c in CALIBRATIONS.values())
    add_remove = gaussian_output_perturbation(N, LAM, EPS, DELTA, dim=D, neighbours="add-remove", **COMMON)
    assert LatticeGaussianOutput(add_remove).relation is Neighbours.ADD_REMOVE
    assert add_remove.privacy_curve(EPS, DELTA).neighbours is Neighbours.ADD_REMOVE


def test_expected_noise_is_the_documented_formula():
    """Output: E||b|| = d / beta (l2-Laplace), sigma sqrt(d) (Gaussian); objective: through n (m Lam + Delta)."""
    output = CALIBRATIONS["output"]
    assert output.expected_noise(D, 1.0) == pytest.approx(D / output.beta, rel=1e-12)
    gaussian = CALIBRATIONS["gaussian-output"]
    assert gaussian.expected_noise(D, 1.0) == pytest.approx(gaussian.sigma * math.sqrt(D))
    objective = CALIBRATIONS["objective"]
    strong = N * (LAM + objective.extra_reg)
    assert objective.expected_noise(D, strong) == pytest.approx(D / (objective.beta * strong) + D / objective.amp_beta)


def test_a_class_that_reads_its_record_wrongly_is_caught():
    """The broken variant: objective perturbation recomputed with the paper's split, whatever the record says."""
    record = CALIBRATIONS["objective"].to_dict()

    class PaperSplit(ObjectivePerturbation):
        @classmethod
        def from_record(cls, recorded, facts):
            return ObjectivePerturbation.from_record({**recorded, "split": "paper"}, facts)

    assert PaperSplit.from_record(record, PublicFacts()).to_dict() != record
