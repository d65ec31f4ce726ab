"""Shared test configuration.

Hypothesis runs derandomised (the same examples on every run, so CI is
reproducible, like every other seeded statistical test here), without a
database directory and without per-example deadlines (a first call pays for
sympy; later ones hit the verifier's cache).
"""

from hypothesis import settings

settings.register_profile("dpcvx", derandomize=True, database=None, deadline=None)
settings.load_profile("dpcvx")
