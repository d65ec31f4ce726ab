"""The registry of calibration kinds (dpcvx.privacy.registry): each kind reads its own record back.

Every linear calibration's record, recomputed from its public inputs by its registered kind,
is the record itself (``from_record`` inverts ``to_dict``); an edited input shows in the
recomputed numbers; a record of no registered kind is refused; and the questions the rest of
the library asks (inputs, delta or not, the certificate line, the expected noise) are answered
by the kind the record names.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcvx.exceptions import InputError
from dpcvx.privacy import registry
from dpcvx.privacy.calibrate import objective_perturbation, output_perturbation
from dpcvx.privacy.calibrate_gaussian import gaussian_objective_perturbation, gaussian_output_perturbation
from dpcvx.privacy.lattice_objective import LatticeObjective
from dpcvx.privacy.lattice_output import LatticeGaussianOutput, LatticeLaplaceOutput

N, LAM, EPS, DELTA, D = 2_000, 1e-2, 1.0, 1e-6, 5
COMMON = {"L": 1.0, "R": 1.0, "m": 1.0, "tol": 1e-10}


def released(calibration):
    return calibration.perturb_release(np.zeros(D), np.random.default_rng(0))[1]


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
def test_each_kind_recomputes_its_own_record(name):
    record = CALIBRATIONS[name].to_dict()
    recomputed = registry.recompute(record)
    assert recomputed.keys() == record.keys()
    assert recomputed == record


@pytest.mark.parametrize("name", CALIBRATIONS)
def test_an_edited_epsilon_shows_in_the_recomputed_record(name):
    record = CALIBRATIONS[name].to_dict()
    edited = dict(record, epsilon=record["epsilon"] * 2)
    assert registry.recompute(edited) != edited | {"epsilon": record["epsilon"]}
    assert registry.recompute(edited) != record


def test_a_record_of_no_registered_kind_is_refused():
    record = CALIBRATIONS["output"].to_dict()
    with pytest.raises(InputError, match="not a dpcvx calibration"):
        registry.recompute(dict(record, noise="cauchy"))
    with pytest.raises(InputError, match="not a dpcvx calibration"):
        registry.recorded_inputs(dict(record, mechanism="input"))


def test_the_kind_answers_delta_inputs_and_description():
    approximate = {name: registry.approximate(c.to_dict()) for name, c in CALIBRATIONS.items()}
    assert approximate == {"output": False, "objective": False, "gaussian-output": True,
                           "gaussian-objective": True, "discrete-laplace-output": False,
                           "discrete-gaussian-output": True, "discrete-laplace-objective": False}
    assert "delta" in registry.recorded_inputs(CALIBRATIONS["gaussian-output"].to_dict())
    assert "split" in registry.recorded_inputs(CALIBRATIONS["objective"].to_dict())
    assert registry.describe(CALIBRATIONS["discrete-laplace-output"].to_dict()).startswith(
        "calibration (exact sampler)")
    assert "analytic Gaussian sigma" in registry.describe(CALIBRATIONS["gaussian-output"].to_dict())


def test_expected_noise_is_the_documented_formula():
    """Output: E||b|| = d / beta (l2-Laplace), sigma sqrt(d) (Gaussian); objective: through n (m Lam + Delta)."""
    output = CALIBRATIONS["output"]
    assert registry.expected_noise(output.to_dict(), D, 1.0) == pytest.approx(D / output.beta, rel=1e-12)
    gaussian = CALIBRATIONS["gaussian-output"]
    assert registry.expected_noise(gaussian.to_dict(), D, 1.0) == pytest.approx(gaussian.sigma * math.sqrt(D))
    objective = CALIBRATIONS["objective"]
    strong = N * (LAM + objective.extra_reg)
    assert registry.expected_noise(objective.to_dict(), D, strong) == pytest.approx(
        D / (objective.beta * strong) + D / objective.amp_beta)


def test_a_kind_is_registered_once():
    kind = next(iter(registry.KINDS.values()))
    with pytest.raises(ValueError, match="twice"):
        registry.register(kind)


def test_a_kind_that_reads_its_record_wrongly_is_caught(monkeypatch):
    """The broken variant: objective perturbation recomputed with the paper's split, whatever the record says."""
    record = CALIBRATIONS["objective"].to_dict()
    key = registry.CalibrationKey("objective", registry.PURE_NOISE)
    kind = registry.KINDS[key]

    def paper_split(recorded, facts):
        return kind.from_record({**recorded, "split": "paper"}, facts)

    monkeypatch.setitem(registry.KINDS, key, registry.CalibrationKind(key, kind.inputs, False, paper_split))
    assert registry.recompute(record) != record
