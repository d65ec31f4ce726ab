"""A random partition of the row indices into equal disjoint parts (the randomness of a split).

Used by private tuning (Chaudhuri, Monteleoni and Sarwate, JMLR 2011,
Algorithm 4): the split reads n only, never the data, so every record lies in
exactly one part and parallel composition applies.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError

__all__ = ["disjoint_parts"]


def disjoint_parts(n: int, parts: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``parts`` disjoint random sets of floor(n / parts) row indices each, sorted.

    The split is a uniform random permutation of 0..n-1, cut into consecutive
    blocks; the last n mod parts positions of the permutation are left out.
    It depends on n only, never on the data.
    """
    size = n // parts
    if size < 1:
        raise InputError(f"{n} rows cannot be split into {parts} non-empty parts; "
                         "use more data or fewer grid points")
    order = rng.permutation(n)
    return [np.sort(order[index * size:(index + 1) * size]) for index in range(parts)]
