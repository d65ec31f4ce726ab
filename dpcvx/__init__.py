"""dpcvx: differentially private empirical risk minimisation declared in CVXPY.

Declare a margin loss l(z) and a regularizer N(w) as CVXPY expressions;
dpcvx verifies the conditions of the privacy theorems of Chaudhuri,
Monteleoni and Sarwate (JMLR 2011), calibrates the noise, solves the
perturbed problem exactly and releases the model with its certificate.
"""

from . import calibrate, datasets, kernels, losses, noise, preprocessing, tuning
from .accountant import PrivacyAccountant, PrivacyCost
from .audit import AuditReport, NeighbouringPair, audit, canary_pair
from .datasets import Dataset, load_adult, load_kdd
from .certificate import Certificate, Condition
from .erm import PrivateERM
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
from .kernel_model import KernelPredictor
from .kernels import RandomFourierFeatures
from .model import LinearModel, PrivateModel, ReleaseCertificate
from .pinp import PINP
from .preprocessing import CategoricalColumn, NumericColumn, PublicSchema
from .serialization import load, save
from .tddl import TDDL, ConstrainedLeastSquares
from .tdil import TDIL
from .tuning import BudgetInConstructor, TuningCertificate, TuningResult, tune
from .problem import VerifiedProblem
from .verify import verify, verify_problem
from .version import __version__

# The scikit-learn estimators are imported on first use: scikit-learn is optional.
_ESTIMATORS = ("DPERMClassifier", "DPLogisticRegression", "DPHuberSVM")


def __getattr__(name: str):
    if name in _ESTIMATORS:
        from . import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module 'dpcvx' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ESTIMATORS))


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
