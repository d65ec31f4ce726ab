"""tune's pure-epsilon guarantee names each run's number: "each run fits a uniformly drawn candidate with 0.333333"
gave the number without its name, where the (epsilon, delta) form says "(epsilon=..., delta=...)" (session 62,
probeC F9)."""

import numpy as np

import dpcvx


def test_the_pure_guarantee_names_the_run_s_epsilon():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (400, 3))
    y = (X[:, 0] > 0).astype(int)
    result = dpcvx.tune(dpcvx.DPLogisticRegression(), X, y, {"lam": [0.01, 0.1]}, 1.0, random_state=0)
    text = result.certificate.guarantee
    assert "drawn candidate with epsilon = 0.333333 on a coin-chosen training part" in text, text
    assert "epsilon = 0.333333" in str(result)
