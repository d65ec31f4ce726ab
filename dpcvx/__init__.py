"""dpcvx: differentially private empirical risk minimisation declared in CVXPY.

Declare a margin loss l(z) and a regularizer N(w) as CVXPY expressions;
dpcvx verifies the conditions of the privacy theorems of Chaudhuri,
Monteleoni and Sarwate (JMLR 2011), calibrates the noise, solves the
perturbed problem exactly and releases the model with its certificate.
"""

from . import losses
from .certificate import Certificate, Condition
from .exceptions import (
    AssumptionError,
    BudgetExceededError,
    ClippingWarning,
    DPCVXError,
    DPCVXWarning,
    InputError,
    SolverError,
)
from .verify import verify

__version__ = "0.1.0"

__all__ = [
    "verify",
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
