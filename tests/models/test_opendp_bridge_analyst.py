"""Under OpenDP whoever calls a measurement is the analyst, not the data's owner: a fit's NOT PRIVATE warnings (the
count of clipped rows, the check of the training rows) reached the caller on one neighbour of a pair and not on the
other, and a refusal's text named a count and a row of the private data. The measurement now shows only dpcvx's
public warnings and withholds a refusal's text (dpcvx.opendp_bridge._as_the_analyst_sees_it)."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import (
    ClippingWarning,
    ConstantPredictionWarning,
    DPCVXWarning,
    SmallTableWarning,
    TrainingRowsWarning,
)
from dpcvx.opendp_bridge import FAILED, WITHHELD

dp = pytest.importorskip("opendp.prelude")


def _rows(seed, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X /= 1.2 * np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    return X, rng


def _shown(measurement, data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        measurement(data)
    return [w.category for w in caught]


@pytest.mark.parametrize("learner", ["estimator", "learner"])
def test_a_neighbour_with_a_far_row_or_a_rare_class_shows_the_caller_nothing_more(learner):
    X, _ = _rows(1)
    y = np.argmax(X[:, :3], axis=1)
    far, rare = X.copy(), y.copy()
    far[0], rare[0] = 50.0, 3  # a row far beyond the bound; a row of a class the others never carry
    if learner == "estimator":
        measurement = dpcvx.as_opendp_measurement(dpcvx.DPLogisticRegression(classes=(0, 1, 2, 3)))
    else:
        measurement = dpcvx.as_opendp_measurement(
            dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), classes=(0, 1, 2, 3)), 1.0)
    shown = [_shown(measurement, data) for data in ((X, y), (far, y), (X, rare))]
    assert not any(issubclass(c, (ClippingWarning, TrainingRowsWarning)) for c in sum(shown, []))
    assert all(issubclass(c, DPCVXWarning) and not c.reads_private_data for c in sum(shown, []))
    # the same fits made directly tell the owner both
    with pytest.warns(ClippingWarning):
        dpcvx.DPLogisticRegression(classes=(0, 1, 2, 3)).fit(far, y)


def test_public_warnings_still_reach_the_caller():
    X, rng = _rows(2, n=60)
    y = rng.integers(0, 2, 60)
    measurement = dpcvx.as_opendp_measurement(dpcvx.DPLogisticRegression(epsilon=0.05, classes=(0, 1)))
    shown = _shown(measurement, (X, y))
    assert SmallTableWarning in shown or ConstantPredictionWarning in shown, shown


def test_an_error_filter_shows_the_public_warnings_and_keeps_the_release():
    """A public warning replayed after the measurement's fit was raised by an "error" filter: the release, paid for,
    was lost (docs/theory.md, section 7.1). It is shown, and the model returned."""
    X, rng = _rows(2, n=60)
    y = rng.integers(0, 2, 60)
    measurement = dpcvx.as_opendp_measurement(dpcvx.DPLogisticRegression(epsilon=0.05, classes=(0, 1)))
    shown: list[type] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.showwarning = lambda message, category, *rest: shown.append(category)
        released = measurement((X, y))
    assert released.coef_.shape == (1, 4)
    assert SmallTableWarning in shown or ConstantPredictionWarning in shown, shown


def test_a_refusal_keeps_its_class_and_withholds_its_reason():
    X, rng = _rows(3)
    y = (X[:, 0] > 0).astype(int)
    y[[17, 42]] = 7  # labels outside the public classes
    measurement = dpcvx.as_opendp_measurement(dpcvx.DPLogisticRegression(classes=(0, 1)))
    with pytest.raises(dp.OpenDPException) as refused:
        measurement((X, y))
    text = str(refused.value)
    assert "InputError" in text and WITHHELD in text
    assert "row 17" not in text and "2 label" not in text
    with pytest.raises(dpcvx.InputError, match="row 17"):  # the owner, fitting directly, sees the reason
        dpcvx.DPLogisticRegression(classes=(0, 1)).fit(X, y)


def test_a_foreign_error_in_the_fit_is_withheld_as_a_refusal(monkeypatch):
    """An error of numpy's (or a bug) raised by the fit reached the caller with its type and whole traceback, which
    named the code that met the rows; it reads as a refusal of the base class, its text withheld."""
    X, rng = _rows(5)
    y = (X[:, 0] > 0).astype(int)

    def underflowed(self, *args, **kwargs):
        raise FloatingPointError("underflow encountered in multiply")

    monkeypatch.setattr(dpcvx.DPLogisticRegression, "fit", underflowed)
    measurement = dpcvx.as_opendp_measurement(dpcvx.DPLogisticRegression(classes=(0, 1)))
    with pytest.raises(dp.OpenDPException) as refused:
        measurement((X, y))
    text = str(refused.value)
    assert "DPCVXError" in text and FAILED in text and WITHHELD not in text  # it may come after the draw
    assert "FloatingPointError" not in text and "underflowed" not in text


def test_refusals_for_different_private_reasons_read_the_same_to_the_caller():
    """OpenDP hands the caller the refusal's whole traceback: its frames named the check that refused (a NaN in X, a
    label outside the classes, delta not below 1/n), each a fact of the private data, and so did the class of two
    (NonFiniteError against InputError). The three refusals now read the same, InputError, and none names a frame
    inside the fit."""
    X, _ = _rows(4)
    y = (X[:, 0] > 0).astype(int)
    bad_label, missing = y.copy(), X.copy()
    bad_label[17] = 7
    missing[9, 2] = np.nan
    measurement = dpcvx.as_opendp_measurement(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), 1.0, 1e-3,
                                              mechanism="output")
    signed = np.where(y == 1, 1, -1)
    seen = []
    for data in ((missing, signed), (X, np.where(bad_label == 7, 5, signed)), tuple(np.repeat(a, 3, axis=0)
                                                                                 for a in (X, signed))):
        with pytest.raises(dp.OpenDPException) as refused:
            measurement(data)
        text = refused.value.message
        assert WITHHELD in text and "refuse_non_finite" not in text and "check_labels" not in text
        assert "dpcvx.exceptions.InputError: " in text and "NonFiniteError" not in text
        seen.append(text)
    assert seen[0] == seen[1] == seen[2]


def test_only_the_notes_for_the_owner_read_private_data():
    private = {c.__name__ for c in vars(dpcvx.exceptions).values()
               if isinstance(c, type) and issubclass(c, DPCVXWarning) and c.reads_private_data}
    assert private == {"ClippingWarning", "PaperModeWarning", "TrainingRowsWarning", "UndeclaredCategoryWarning",
                       "OutOfBoundsWarning", "LevelErasedWarning", "UnresolvedColumnWarning", "KernelScaleWarning",
                       "PublicSampleWarning", "SlowDescentWarning"}
    for name in private:  # each says so in its own words
        assert "NOT PRIVATE" in vars(dpcvx.exceptions)[name].__doc__ or name in ("ClippingWarning",
                                                                                  "PaperModeWarning")


def test_a_solve_path_without_a_proved_budget_is_refused_before_the_draw_on_every_data_set():
    """A second neighbour-pair probe (sixty-first session): a user's solver (SCS at max_iters 20 or 50) failed after
    the noise was drawn, OpenDP's odometer counted 0 for the call, and the caller read "Nothing was charged or drawn".
    A measurement's fit now runs under the failure rule: the path is refused before anything is drawn, on D and on
    its neighbour alike, and at a cap that converges too (the verdict reads the settings, not the rows)."""
    import cvxpy as cp  # noqa: F401 - the user's solver solves the CVXPY program dpcvx hands it

    X, rng = _rows(0, 200)
    y = np.where(X[:, 0] > 0, 1, -1)
    neighbour = (np.vstack([[-0.8, 0.0, 0.0, 0.0], X[1:]]), np.append(1, y[1:]))
    drawn = []

    for cap in (20, 400):
        def solver(program, w, cap=cap):
            drawn.append(cap)
            program.solve(solver="SCS", max_iters=cap)

        measurement = dpcvx.as_opendp_measurement(
            dpcvx.PrivateERM(loss="logistic", lam=1e-2, data_norm=1.0, solver=solver), 1.0)
        for data in ((X, y), neighbour):
            odometer = dp.c.make_fully_adaptive_composition(measurement.input_domain, measurement.input_metric,
                                                            measurement.output_measure)(data)
            with pytest.raises(dp.OpenDPException, match="InputError"):
                odometer(measurement)
    assert drawn == []  # refused before the solve, so before its noise


def test_an_interrupt_inside_the_measurement_reaches_the_caller_as_a_failure_without_its_traceback(monkeypatch):
    """Ctrl-C inside OpenDP's callback aborted Python (free(): invalid pointer, exit 134) after printing the fit's
    traceback; it now leaves as a failure of the base class, its text FAILED."""
    X, rng = _rows(5)
    y = (X[:, 0] > 0).astype(int)

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(dpcvx.DPLogisticRegression, "fit", interrupted)
    with pytest.raises(dp.OpenDPException) as failed:
        dpcvx.as_opendp_measurement(dpcvx.DPLogisticRegression(classes=(0, 1)))((X, y))
    assert "DPCVXError" in str(failed.value) and FAILED in str(failed.value) and "interrupted" not in str(failed.value)
