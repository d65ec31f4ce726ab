"""The installed dpcvx version (recorded in every release certificate; the one source of it: pyproject.toml
reads it from here), and the error an optional dependency that is missing or too old raises.

The lower bound of the ``sklearn`` extra is :data:`SCIKIT_LEARN_MINIMUM` (pyproject.toml states the same,
tests/project/test_packaging.py checks it): the estimators use ``sklearn.utils.validation.validate_data``,
new in scikit-learn 1.6, and pass scikit-learn's ``check_estimator`` from 1.7 on
(tests/sklearn/test_sklearn_conformance.py passes at 1.7.0 with numpy 2.0, scipy 1.13 and cvxpy 1.5.2). 1.6's
checks make a binary y around its first label (1/2 from make_blobs), which the classifiers refuse: their
classes are the public ``classes``, never read off y.
"""

from __future__ import annotations

__all__ = ["__version__", "SCIKIT_LEARN_MINIMUM", "dependency_error"]

__version__ = "0.1.0"

SCIKIT_LEARN_MINIMUM = "1.7"


def dependency_error(error: ImportError, distribution: str, minimum: str, extra: str, needed_by: str) -> ImportError:
    """The ImportError for a failed import of an optional dependency: what needs it, the version found
    (none, or the installed one, too old), the fix, and the real error of the import."""
    from importlib import metadata

    try:
        found = f"{distribution} {metadata.version(distribution)} is installed"
    except metadata.PackageNotFoundError:
        found = f"{distribution} is not installed"
    return ImportError(f"{needed_by} need {distribution} >= {minimum} ({found}): pip install \"dpcvx[{extra}]\" "
                       f"(or pip install -U \"{distribution}>={minimum}\"); the import failed with "
                       f"{type(error).__name__}: {error}")
