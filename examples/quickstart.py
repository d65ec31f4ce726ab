"""Quickstart: the README example end to end on generated data.

Run: python examples/quickstart.py
"""

import cvxpy as cp
import numpy as np

import dpcvx
from dpcvx.demo import synthetic_classification

X, y = synthetic_classification(n=12000, d=10, random_state=0)
X, X_test, y, y_test = X[:10000], X[10000:], y[:10000], y[10000:]

erm = dpcvx.PrivateERM(
    loss=lambda z: cp.logistic(-z),
    regularizer=lambda w: 0.5 * cp.sum_squares(w),  # default when omitted
    lam=1e-3,
    data_norm=1.0,  # public bound R on ||x||; never taken from the data
)
print(erm.verify())  # the certificate: conditions, constants, how each was established

model = erm.fit(X, y, epsilon=0.1, mechanism="objective", random_state=0)
print(model.coef_, model.intercept_)
print("first decision values:", model.decision_function(X_test)[:3])
print("first predictions:", model.predict(X_test)[:10])
print(f"test accuracy at epsilon = 0.1: {model.score(X_test, y_test):.3f}")
print(f"non-private test accuracy:      {erm.fit_nonprivate(X, y).score(X_test, y_test):.3f}")
print(model.certificate)  # conditions, constants, mechanism, epsilon, eps', Delta, beta
print(erm.diagnostics_)  # NOT PRIVATE: solver, iterations, time, gradient norm - for you only
assert np.isfinite(model.coef_).all()
