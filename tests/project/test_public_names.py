"""The names a user reaches: dir(dpcvx) lists the public names, its dunders and loaded submodules, not the helpers
of dpcvx/__init__.py (Any, TYPE_CHECKING, importlib, annotations cluttered tab completion); the estimators import
from dpcvx.sklearn, the package the docs name (a bare ImportError before), as the same classes as dpcvx's."""

import subprocess
import sys
from pathlib import Path

import pytest
from defined_classes import defined_subclasses

import dpcvx

ROOT = Path(__file__).resolve().parents[2]


def test_dir_of_dpcvx_lists_its_public_names_not_its_helpers():
    listed = dir(dpcvx)
    assert set(dpcvx.__all__) <= set(listed)
    for helper in ("Any", "TYPE_CHECKING", "importlib", "annotations", "_LAZY", "_locations"):
        assert helper not in listed
    assert "__version__" in listed and "exceptions" in listed  # a loaded submodule stays reachable


ESTIMATORS = ("DPLogisticRegression", "DPHuberSVM", "DPERMClassifier", "DPLinearRegression", "DPHuberRegressor",
              "RandomFourierFeatures")


def test_the_estimators_import_from_dpcvx_sklearn_as_dpcvx_s_classes():
    """In a new process, each name taken from dpcvx.sklearn before dpcvx's own is that very class (one process
    for all six: a process each took several seconds of the default run)."""
    pytest.importorskip("sklearn")
    names = ", ".join(ESTIMATORS)
    code = (f"from dpcvx.sklearn import {names}\nimport dpcvx\n"
            + "".join(f"assert {name} is dpcvx.{name}, {name!r}\n" for name in ESTIMATORS))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert result.returncode == 0, result.stderr[-2000:]


def test_an_unknown_name_of_dpcvx_sklearn_is_an_import_error():
    import dpcvx.sklearn

    with pytest.raises(ImportError, match="cannot import name 'LogisticRegression'"):
        exec("from dpcvx.sklearn import LogisticRegression", {})
    assert "DPLogisticRegression" in dir(dpcvx.sklearn) and "Any" not in dir(dpcvx.sklearn)


def test_every_public_error_and_warning_class_is_a_name_of_dpcvx_in_the_reference():
    """Half of dpcvx.exceptions' classes were not names of dpcvx (session 62, probeC F7): a warning printed
    "TrainingRowsWarning: ..." and ``warnings.filterwarnings("ignore", category=dpcvx.TrainingRowsWarning)`` raised
    AttributeError, while dpcvx.ClippingWarning existed. Each is now exported and listed in docs/reference/errors.md."""
    import dpcvx.exceptions as exceptions

    classes = [name for name in exceptions.__all__
               if isinstance(getattr(exceptions, name), type) and issubclass(getattr(exceptions, name), Exception)]
    reference = (ROOT / "docs" / "reference" / "errors.md").read_text()
    assert len(classes) >= 30
    for name in classes:
        assert name in dpcvx.__all__ and getattr(dpcvx, name) is getattr(exceptions, name), name
        assert f"::: dpcvx.{name}\n" in reference, name


def test_every_error_and_warning_class_dpcvx_defines_is_in_the_reference():
    """docs/reference/errors.md says every error and warning dpcvx raises is listed there; the test above read the
    names of dpcvx.exceptions only, so RowError, NonFiniteError (dpcvx.tables), NormBoundError (dpcvx.data.rows) and
    the estimators' EstimatorNotFittedError were on no reference page (session 67, P5 F3). Every subclass of
    DPCVXError and of DPCVXWarning the package defines, found by walking its modules, is now listed: by its name of
    dpcvx where it has one, else by its full name."""
    reference = (ROOT / "docs" / "reference" / "errors.md").read_text()
    classes = defined_subclasses(dpcvx.DPCVXError) | defined_subclasses(dpcvx.DPCVXWarning)
    assert len(classes) >= 38
    for cls in classes:
        exported = getattr(dpcvx, cls.__name__, None) is cls
        path = f"dpcvx.{cls.__name__}" if exported else f"{cls.__module__}.{cls.__qualname__}"
        assert f"::: {path}\n" in reference, path
