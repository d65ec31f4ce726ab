"""Public limits of the entry points' integer parameters, in a module that imports nothing.

The command line's parser states them in its help and checks them, and must not import CVXPY to do so
(``dpcvx --help`` in well under half a second); :mod:`dpcvx.demo` and :mod:`dpcvx.verification.verifier`
read them from here.
"""

from __future__ import annotations

__all__ = ["PROBE_DIM", "DEMO_MIN_N", "DEMO_MAX_N", "DEMO_MAX_DRAWS", "DEMO_MAX_SEED", "SEED_MAX", "SEED_MAX_TEXT",
           "CANARY_MAX_ENTRIES", "SPLITS", "DEFAULT_SPLIT"]

#: The budget splits of objective perturbation (:mod:`dpcvx.privacy.calibrate`) and the default, one table for every
#: entry: PrivateERM's ``split``, the estimators' and the command line's ``--split`` choices. Output perturbation
#: takes the default only (:meth:`dpcvx.PrivateERM.check_options`: no split changes its noise).
SPLITS = ("paper", "max", "rank-one")
DEFAULT_SPLIT = "max"

#: the number of features at which ``verify`` analyses a regularizer when none is given
PROBE_DIM = 3

#: The largest integer seed (``random_state``, ``--random-state``, ``demo --seed``): one rule at every entry
#: (:func:`dpcvx.privacy.rng.check_seed`). Seeds are non-negative, as numpy's SeedSequence takes them, and at most
#: 128 bits, the entropy of the operating-system seed dpcvx draws when none is given (a larger one adds nothing); the
#: seeds dpcvx draws for sub-releases and audits (below 2^63) lie inside.
SEED_MAX = 2**128 - 1
SEED_MAX_TEXT = "2^128 - 1"

# The demo's arguments: enough rows for a held-out quarter with both classes, and no more than a laptop
# handles in minutes; its seed follows the rule of every seed (SEED_MAX).
DEMO_MIN_N, DEMO_MAX_N, DEMO_MAX_DRAWS, DEMO_MAX_SEED = 30, 1_000_000, 100, SEED_MAX

#: The most entries n x d of each data set of :func:`dpcvx.models.audit.canary_pair` (800 MB of float64; the pair
#: holds two): an audit fits on them hundreds of times, and a larger pair was a numpy MemoryError when allocated
CANARY_MAX_ENTRIES = 10**8
