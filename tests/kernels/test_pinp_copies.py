"""A fitted PINP curator counts its B updates in one object, one query at a time: a copy (pickle, deepcopy, a
joblib worker) held the whole budget again and its owner counted nothing (581 updates against B = 364 through
joblib), and threads racing past the check made 4 and 5 updates against B = 3."""

import contextlib
import copy
import dataclasses
import multiprocessing
import pickle
import threading

import numpy as np
import pytest

from dpcvx import PINP, InputError
from dpcvx.exceptions import BudgetExceededError

LOSS = "huber_hinge:h=0.5"


def circle_task(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    return X, np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)


def _curator(updates=3):
    X, y = circle_task(300, 22)
    pinp = PINP("rbf", gamma=4.0, lam=0.1, max_queries=40, max_updates=updates, loss=LOSS).fit(X, y, 1.0,
                                                                                             random_state=2)
    # a (public) threshold far below every gap makes each query an update, as in test_pinp_stops_at_b_updates
    pinp.parameters_ = dataclasses.replace(pinp.parameters_, threshold=-1e9, threshold_steps=-10**18)
    return pinp


def test_a_fitted_curator_cannot_be_copied_and_an_unfitted_one_can():
    pinp = _curator()
    for make_copy in (pickle.dumps, copy.deepcopy, copy.copy):
        with pytest.raises(InputError, match="cannot be copied or pickled"):
            make_copy(pinp)
    unfitted = PINP("rbf", gamma=4.0, lam=0.1, max_queries=40)
    assert pickle.loads(pickle.dumps(unfitted)).get_params() == unfitted.get_params()
    pickle.dumps(pinp.release())  # the transcript is free to copy


def test_threads_racing_a_curator_make_at_most_b_updates():
    for trial in range(5):
        pinp = _curator()
        queries, _ = circle_task(8, 30 + trial)
        barrier = threading.Barrier(8)

        def ask(point, pinp=pinp, barrier=barrier):
            barrier.wait()
            with contextlib.suppress(BudgetExceededError):
                pinp.query(point)

        threads = [threading.Thread(target=ask, args=(point,)) for point in queries]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert pinp.updates_used_ == 3 and len(pinp.public_predictor().coef) == 3


_INHERITED: list = []  # what a forked worker inherits without pickling


def _query_inherited(point):
    try:
        _INHERITED[0].query(point)
    except InputError as refusal:
        return "refused" if "made in another process" in str(refusal) else str(refusal)
    return "answered"


def test_a_curator_inherited_by_a_forked_process_answers_nothing():
    pinp = _curator()
    point = circle_task(1, 40)[0]
    _INHERITED[:] = [pinp]
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:  # forked now: the worker holds a copy
            assert pool.apply(_query_inherited, (point,)) == "refused"
    finally:
        _INHERITED.clear()
    assert pinp.updates_used_ == 0
    assert np.isfinite(pinp.query(point)) and pinp.updates_used_ == 1


def test_an_update_counts_against_b_before_its_answer_is_drawn(monkeypatch, tmp_path):
    """A second neighbour-pair probe (sixty-first session): an interrupt during the answer's draw of an "above" query
    left updates_used_ at 0 and the round's threshold shift in place, so an interrupt timed to the longer branch read
    the test's outcome without spending an update. The update now counts and the round closes before that draw."""
    import dpcvx
    import dpcvx.models.pinp as pinp_module

    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 2))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    curator = PINP("rbf", gamma=0.5, input_bound=1.0, lam=0.05, max_queries=40, max_updates=2).fit(
        X, np.where(X[:, 0] > 0, 1, -1), 5.0, random_state=0)
    _, query_scale, answer_scale = curator.parameters_.lattice_scales()
    drawn = pinp_module.discrete_laplace

    def interrupted(scale, source):
        if scale == query_scale:
            return 10 ** 9  # the test says "above"
        if scale == answer_scale:
            raise KeyboardInterrupt  # Ctrl-C during the answer's noise
        return drawn(scale, source)

    monkeypatch.setattr(pinp_module, "discrete_laplace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        curator.query(X[0])
    assert curator.updates_used_ == 1 and curator._round_shift is None
    # its transcript counts the answered updates, one per released centre, so its file loads (a third probe: load
    # refused it as "the file has been edited")
    monkeypatch.setattr(pinp_module, "discrete_laplace", drawn)
    curator.query(X[1])
    path = tmp_path / "pinp.json"
    dpcvx.save(curator.release(), path)
    loaded = dpcvx.load(path)
    assert loaded.outputs["updates_used"] == len(loaded.outputs["answers"]) - 1 == 0  # one answer, below: no update
