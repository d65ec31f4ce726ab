"""dpcvx.plots: the privacy-utility and audit pictures draw what they are given, and refuse bad input."""

import numpy as np
import pytest

import dpcvx
from dpcvx import plots

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def test_privacy_utility_draws_one_line_per_method_and_the_baseline(tmp_path):
    epsilons = [1.0, 0.1, 0.5]
    draws = np.array([[0.8, 0.82], [0.6, 0.64], [0.75, 0.7]])
    ax = plots.privacy_utility(epsilons, {"objective": draws, "output": [0.7, 0.5, 0.6]}, baseline=0.85)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"objective", "output", "non-private"}
    np.testing.assert_allclose(lines["objective"].get_xdata(), [0.1, 0.5, 1.0])  # sorted by epsilon
    np.testing.assert_allclose(lines["objective"].get_ydata(), [0.62, 0.725, 0.81])  # mean of the draws
    assert ax.get_xscale() == "log"
    ax.figure.savefig(tmp_path / "trade-off.png")
    assert (tmp_path / "trade-off.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("epsilons, scores", [([], {"a": []}), ([1.0, -1.0], {"a": [1, 2]}),
                                              ([1.0, 2.0], {"a": [0.5]}), ([1.0], {}),
                                              ([1.0], {"a": [float("nan")]})])
def test_privacy_utility_refuses_malformed_input(epsilons, scores):
    with pytest.raises(dpcvx.InputError):
        plots.privacy_utility(epsilons, scores)


@pytest.mark.parametrize("epsilons, scores, baseline, match", [
    ("ab", {"a": [0.5, 0.6]}, None, r"^epsilons must be a non-empty list of positive numbers, got 'ab'$"),
    ([0.1, 1], {"a": ["x", "y"]}, None, r"^scores\['a'\] must hold real numbers"),
    ([0.1, 1], {"a": [[1, 2], [1]]}, None, r"^scores\['a'\] must hold real numbers in rows of one length"),
    ([0.1, 1], {"a": [0.5, 0.6]}, "x", r"^baseline must be a finite number"),
    ([0.1, 1], {"a": [0.5, 0.6]}, float("nan"), r"^baseline must be finite, got nan$"),
], ids=["text epsilons", "text scores", "ragged scores", "text baseline", "NaN baseline"])
def test_privacy_utility_refuses_text_ragged_rows_and_a_nan_baseline_with_a_typed_error(epsilons, scores, baseline,
                                                                                        match):
    """numpy's untyped ValueError came through for text and ragged rows, and a NaN baseline was drawn silently."""
    with pytest.raises(dpcvx.InputError, match=match):
        plots.privacy_utility(epsilons, scores, baseline=baseline)


def test_audit_bounds_marks_violations_above_the_diagonal():
    class Report:
        def __init__(self, claimed, found):
            self.claimed_epsilon, self.epsilon_lower_bound = claimed, found

    ax = plots.audit_bounds([Report(1.0, 0.4), Report(0.5, 1.2)])
    labels = [collection.get_label() for collection in ax.collections]
    assert labels == ["no violation found", "violation"]
    np.testing.assert_allclose(ax.collections[1].get_offsets(), [[0.5, 1.2]])
    with pytest.raises(dpcvx.InputError):
        plots.audit_bounds([])
    with pytest.raises(dpcvx.InputError, match="at least one AuditReport"):  # numpy's ValueError before
        plots.audit_bounds(iter([]))
    with pytest.raises(dpcvx.InputError, match="takes a list of dpcvx.AuditReport objects, got int"):
        plots.audit_bounds(5)
    assert plots.audit_bounds(iter([Report(1.0, 0.4)])).collections[0].get_label() == "no violation found"
