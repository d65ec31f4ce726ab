"""A labelled circle in the unit disc for the kernel learners' usefulness tests (imported by name: pytest puts this
directory on the path)."""

import numpy as np


def circle(n, seed=3):
    """``n`` points of N(0, I / 4) in the plane scaled into the unit disc, labelled +1 outside the median radius."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) / 2
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    radius = (X**2).sum(axis=1)
    return X, np.where(radius > np.median(radius), 1.0, -1.0)
