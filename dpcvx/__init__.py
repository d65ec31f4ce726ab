"""dpcvx: differentially private empirical risk minimisation declared in CVXPY.

Declare a margin loss l(z) and a regularizer N(w) as CVXPY expressions;
dpcvx verifies the conditions of the privacy theorems of Chaudhuri,
Monteleoni and Sarwate (JMLR 2011), calibrates the noise, solves the
perturbed problem exactly and releases the model with its certificate.
"""

from . import calibrate, losses, noise
from .accountant import PrivacyAccountant, PrivacyCost
from .certificate import Certificate, Condition
from .erm import PrivateERM
from .exceptions import (
    AssumptionError,
    BudgetExceededError,
    ClippingWarning,
    DPCVXError,
    DPCVXWarning,
    InputError,
    SolverError,
)
from .model import LinearModel, PrivateModel, ReleaseCertificate
from .verify import verify
from .version import __version__

__all__ = [
    "verify",
    "PrivateERM",
    "PrivateModel",
    "LinearModel",
    "ReleaseCertificate",
    "PrivacyAccountant",
    "PrivacyCost",
    "calibrate",
    "noise",
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
    "__version__",
]
