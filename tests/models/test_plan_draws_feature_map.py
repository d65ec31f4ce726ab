"""A plan draws the caller's feature map as a fit does (session 68, P8 F2): ``PrivateERM.plan`` copied an undrawn
``RandomFourierFeatures`` map, so after ``e.plan(X, y, ...).fit(...)`` the caller's map stayed undrawn while the
release held a draw of its own, where ``e.fit(...)`` drew the caller's map and released that draw. Now both paths
draw the caller's map (from X's public width and its own random_state) and release that draw; the plan holds a
copy of the drawn map, so a later change to the caller's map changes nothing the plan fits. One-vs-rest's plan
too."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.data.kernels import RandomFourierFeatures
from dpcvx.exceptions import InputError

RNG = np.random.default_rng(0)
X = RNG.normal(size=(300, 3))
BINARY = np.where(X[:, 0] > 0, 1, -1)
THREE = np.digitize(X[:, 0], [-0.5, 0.5])


def _map(random_state=None) -> RandomFourierFeatures:
    return RandomFourierFeatures("rbf", gamma=0.5, n_components=40, random_state=random_state)


def _binary(feature_map) -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=1e-2, feature_map=feature_map)


def _one_vs_rest(feature_map) -> dpcvx.PrivateMulticlassERM:
    return dpcvx.PrivateMulticlassERM(_binary(feature_map), classes=(0, 1, 2))


def _release(learner, y, path: str):
    if path == "plan":
        return learner.plan(X, y, epsilon=1.0).fit(X, y, random_state=1)
    return learner.fit(X, y, 1.0, random_state=1)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("path", ["plan", "fit"])
@pytest.mark.parametrize("make, y", [(_binary, BINARY), (_one_vs_rest, THREE)], ids=["binary", "one-vs-rest"])
def test_both_paths_draw_the_callers_map_and_release_that_draw(make, y, path):
    caller = _map()  # random_state=None: a fresh draw, so a copy drawn on its own would differ
    release = _release(make(caller), y, path)
    assert caller.frequencies is not None, "the caller's map was left undrawn"
    held = release.rows.feature_map
    assert np.array_equal(held.frequencies, caller.frequencies) and np.array_equal(held.phases, caller.phases)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("make, y", [(_binary, BINARY), (_one_vs_rest, THREE)], ids=["binary", "one-vs-rest"])
def test_the_plan_holds_a_copy_of_the_drawn_map(make, y):
    caller = _map()
    plan = make(caller).plan(X, y, epsilon=1.0)
    drawn = caller.frequencies.copy()
    caller.set_params(gamma=4.0)  # forgets the caller's draw; the plan's copy keeps it
    caller.fit(X[:, :2])  # drawn again at another width
    held = plan.fit(X, y, random_state=1).rows.feature_map
    assert held is not caller and held.gamma == 0.5 and np.array_equal(held.frequencies, drawn)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
def test_a_seeded_map_gives_the_same_release_on_both_paths():
    planned = _release(_binary(_map(3)), BINARY, "plan")
    fitted = _release(_binary(_map(3)), BINARY, "fit")
    assert np.array_equal(planned.coef_, fitted.coef_) and planned.intercept_ == fitted.intercept_


def test_a_drawn_map_is_left_as_it_is_and_a_bad_map_is_refused_as_fit_refuses_it():
    caller = _map(5).fit(X)
    before = caller.frequencies.copy()
    _binary(caller).plan(X, BINARY, epsilon=1.0)
    assert np.array_equal(caller.frequencies, before)
    for call in (lambda learner: learner.plan(X, BINARY, epsilon=1.0), lambda learner: learner.fit(X, BINARY, 1.0)):
        with pytest.raises(InputError, match="feature_map must be a feature map"):
            call(_binary(object()))
