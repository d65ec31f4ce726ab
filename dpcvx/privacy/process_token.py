"""Which process an object that holds a budget belongs to: a random token of this process, renewed in a forked child.

A :class:`~dpcvx.PrivacyAccountant` and a fitted :class:`~dpcvx.PINP` curator count what has been released of one
data set. A copy of either in another process (a worker of ``n_jobs`` or of multiprocessing unpickles it, a fork
inherits it) would count apart from the original, whose owner reads nothing of it, and hold the whole budget again.
Each records the token of the process that made it, and refuses to spend where the token differs. A process ID is
not enough: another process, in another container or after the ID is reused, can have the same one.
"""

from __future__ import annotations

import os
import secrets

__all__ = ["current"]

_TOKEN = secrets.token_hex(16)


def _renew() -> None:
    global _TOKEN
    _TOKEN = secrets.token_hex(16)


os.register_at_fork(after_in_child=_renew)


def current() -> str:
    """This process's token (128 random bits, made when dpcvx is imported and again in every forked child)."""
    return _TOKEN
