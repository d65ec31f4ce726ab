"""dpcvx: differentially private empirical risk minimisation declared in CVXPY.

Declare a margin loss l(z) and a regularizer N(w) as CVXPY expressions;
dpcvx verifies the conditions of the privacy theorems of Chaudhuri,
Monteleoni and Sarwate (JMLR 2011), calibrates the noise, solves the
perturbed problem exactly and releases the model with its certificate.
"""

import sys
import types
from typing import TYPE_CHECKING

from .exceptions import (
    AssumptionError,
    BudgetExceededError,
    ClippingWarning,
    DPCVXError,
    DPCVXWarning,
    ExponentialCostWarning,
    InputError,
    SolverError,
)
from .version import __version__

# Every other public name is imported on first use (PEP 562): `import dpcvx` loads neither
# CVXPY nor sympy nor SciPy's heavy parts, so scripts and the CLI start fast. The estimators
# also need the optional scikit-learn.
_SUBMODULES = ("calibrate", "datasets", "kernels", "losses", "noise", "plots", "preprocessing", "tuning")
_LOCATIONS = {
    "PrivacyAccountant": "accountant", "PrivacyCost": "accountant",
    "AuditReport": "audit", "NeighbouringPair": "audit", "audit": "audit", "canary_pair": "audit",
    "Dataset": "datasets", "load_adult": "datasets", "load_kdd": "datasets",
    "Certificate": "certificate", "Condition": "certificate",
    "PrivateERM": "erm",
    "KernelPredictor": "kernel_model",
    "RandomFourierFeatures": "kernels",
    "LinearModel": "model", "PrivateModel": "model", "ReleaseCertificate": "model",
    "PINP": "pinp", "TDDL": "tddl", "ConstrainedLeastSquares": "tddl", "TDIL": "tdil",
    "CategoricalColumn": "preprocessing", "NumericColumn": "preprocessing", "PublicSchema": "preprocessing",
    "load": "serialization", "save": "serialization",
    "BudgetInConstructor": "tuning", "TuningCertificate": "tuning", "TuningResult": "tuning", "tune": "tuning",
    "VerifiedProblem": "problem", "verify": "verify", "verify_problem": "verify",
    "DPERMClassifier": "estimators", "DPLogisticRegression": "estimators", "DPHuberSVM": "estimators",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from . import calibrate, datasets, kernels, losses, noise, plots, preprocessing, tuning  # noqa: F401
    from .accountant import PrivacyAccountant, PrivacyCost  # noqa: F401
    from .audit import AuditReport, NeighbouringPair, audit, canary_pair  # noqa: F401
    from .certificate import Certificate, Condition  # noqa: F401
    from .datasets import Dataset, load_adult, load_kdd  # noqa: F401
    from .erm import PrivateERM  # noqa: F401
    from .estimators import DPERMClassifier, DPHuberSVM, DPLogisticRegression  # noqa: F401
    from .kernel_model import KernelPredictor  # noqa: F401
    from .kernels import RandomFourierFeatures  # noqa: F401
    from .model import LinearModel, PrivateModel, ReleaseCertificate  # noqa: F401
    from .pinp import PINP  # noqa: F401
    from .preprocessing import CategoricalColumn, NumericColumn, PublicSchema  # noqa: F401
    from .problem import VerifiedProblem  # noqa: F401
    from .serialization import load, save  # noqa: F401
    from .tddl import TDDL, ConstrainedLeastSquares  # noqa: F401
    from .tdil import TDIL  # noqa: F401
    from .tuning import BudgetInConstructor, TuningCertificate, TuningResult, tune  # noqa: F401
    from .verify import verify, verify_problem  # noqa: F401


def __getattr__(name: str):
    import importlib
    import importlib.util

    if name in _LOCATIONS:
        value = getattr(importlib.import_module(f".{_LOCATIONS[name]}", __name__), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    if name in _SUBMODULES or (not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}")):
        return importlib.import_module(f".{name}", __name__)  # any submodule, e.g. dpcvx.erm
    raise AttributeError(f"module 'dpcvx' has no attribute {name!r}")


class _Package(types.ModuleType):
    """dpcvx itself: a public function named like its module (``verify``, ``audit``) stays the function.

    Importing a submodule sets it as an attribute of the package; for the two
    names shared by a function and a module that would replace the function
    once the module is first imported, so those assignments are dropped (the
    module stays reachable in ``sys.modules`` and through ``import``).
    """

    def __setattr__(self, name: str, value) -> None:
        if name in _LOCATIONS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LOCATIONS) | set(_SUBMODULES))


__all__ = [
    "verify",
    "verify_problem",
    "VerifiedProblem",
    "tune",
    "TuningResult",
    "TuningCertificate",
    "BudgetInConstructor",
    "tuning",
    "audit",
    "AuditReport",
    "plots",
    "NeighbouringPair",
    "canary_pair",
    "PrivateERM",
    "PrivateModel",
    "LinearModel",
    "ReleaseCertificate",
    "PrivacyAccountant",
    "PrivacyCost",
    "calibrate",
    "noise",
    "datasets",
    "preprocessing",
    "load_adult",
    "load_kdd",
    "Dataset",
    "PublicSchema",
    "NumericColumn",
    "CategoricalColumn",
    "kernels",
    "RandomFourierFeatures",
    "TDDL",
    "ConstrainedLeastSquares",
    "PINP",
    "TDIL",
    "KernelPredictor",
    "Certificate",
    "Condition",
    "losses",
    "DPCVXError",
    "InputError",
    "AssumptionError",
    "SolverError",
    "BudgetExceededError",
    "DPCVXWarning",
    "ClippingWarning",
    "ExponentialCostWarning",
    "save",
    "load",
    "DPERMClassifier",
    "DPLogisticRegression",
    "DPHuberSVM",
    "__version__",
]
