"""Custom losses: declare l(z) in CVXPY, read the verifier's certificate, fit when it allows.

Run: python examples/custom_loss.py   (the output is pasted in docs/custom-losses.md)
"""

import cvxpy as cp

import dpcvx
from dpcvx.demo import synthetic_classification


def smooth_hinge(z):
    """sqrt(1 + (1 - z)^2) + (1 - z): near 0 for z >> 1, about 2(1 - z) for z << 1."""
    return cp.norm(cp.hstack([1, 1 - z])) + (1 - z)


# 1. A loss the theorems accept: the verifier proves its constants exactly.
certificate = dpcvx.verify(smooth_hinge)
print(certificate)
print(f"L = {certificate.lipschitz}, c = {certificate.curvature} (method: {certificate.method('L')})\n")

# 2. Losses the theorems refuse, with the reason and a fix.
for name, loss in [("hinge", lambda z: cp.pos(1 - z)), ("squared", lambda z: cp.square(1 - z))]:
    refused = dpcvx.verify(loss)
    print(f"{name}: output allowed = {refused.allows('output')}, "
          f"objective allowed = {refused.allows('objective')}")
    for condition in refused.failures("output"):
        print(f"  {condition.name}: {condition.detail}\n    fix: {condition.fix}")
print()

# 3. A regularizer is declared the same way; m = 2 for sum_squares(w).
print(dpcvx.verify(smooth_hinge, lambda w: cp.sum_squares(w), dim=10))
print()

# 4. Fit with the custom loss: the release certificate records L = 2 in the noise calibration.
X, y = synthetic_classification(n=6000, d=10, random_state=0)
erm = dpcvx.PrivateERM(loss=smooth_hinge, lam=1e-3, data_norm=1.0)
model = erm.fit(X[:5000], y[:5000], epsilon=0.5, mechanism="objective", random_state=0)
print(f"release: L = {model.certificate.constants['L']}, beta = {model.certificate.beta:.6g}")
print(f"test accuracy at epsilon = 0.5: {model.score(X[5000:], y[5000:]):.3f}")
