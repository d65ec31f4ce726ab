"""Public limits of the entry points' integer parameters, in a module that imports nothing.

The command line's parser states them in its help and checks them, and must not import CVXPY to do so
(``dpcvx --help`` in well under half a second); :mod:`dpcvx.demo` and :mod:`dpcvx.verification.verifier`
read them from here.
"""

from __future__ import annotations

__all__ = ["PROBE_DIM", "DEMO_MIN_N", "DEMO_MAX_N", "DEMO_MAX_DRAWS", "DEMO_MAX_SEED", "CANARY_MAX_ENTRIES"]

#: the number of features at which ``verify`` analyses a regularizer when none is given
PROBE_DIM = 3

# The demo's arguments: enough rows for a held-out quarter with both classes, and no more than a laptop
# handles in minutes. Seeds are non-negative (numpy's SeedSequence).
DEMO_MIN_N, DEMO_MAX_N, DEMO_MAX_DRAWS, DEMO_MAX_SEED = 30, 1_000_000, 100, 2**32 - 1

#: The most entries n x d of each data set of :func:`dpcvx.models.audit.canary_pair` (800 MB of float64; the pair
#: holds two): an audit fits on them hundreds of times, and a larger pair was a numpy MemoryError when allocated
CANARY_MAX_ENTRIES = 10**8
