"""dpcvx: differentially private empirical risk minimisation declared in CVXPY.

Declare a margin loss l(z) and a regularizer N(w) as CVXPY expressions;
dpcvx verifies the conditions of the privacy theorems of Chaudhuri,
Monteleoni and Sarwate (JMLR 2011), calibrates the noise, solves the
perturbed problem exactly and releases the model with its certificate.

The package follows that flow (``docs/architecture.md``)::

    verification/  declare -> verify: the VerifiedProblem and its proved constants
    privacy/       calibrate, draw noise, account, audit
    solvers/       solve the perturbed problem exactly
    models/        the learners: PrivateERM, TDDL, PINP, TDIL, tuning
    release/       what leaves dpcvx: models, certificates, the file format
    data/          public schemas, loaders, the per-record row map, files

``estimators`` (scikit-learn) and ``cli`` are thin layers on top.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .exceptions import (
    AssumptionError,
    BudgetExceededError,
    BudgetLimitError,
    ClassFloorWarning,
    ClassOrderWarning,
    ClippingWarning,
    ConstantPredictionWarning,
    CostWarning,
    DPCVXError,
    DPCVXWarning,
    ExponentialCostWarning,
    FileError,
    InputError,
    InputTypeError,
    KernelScaleWarning,
    LevelErasedWarning,
    LossDeclarationError,
    NoiseDominatesWarning,
    NonPublicSchemaError,
    NotFittedError,
    NumericRangeError,
    OutOfBoundsWarning,
    OverwriteError,
    PaperModeWarning,
    PublicSampleWarning,
    RangeClipWarning,
    SlowDescentWarning,
    SmallTableWarning,
    SolverError,
    SourceChangedError,
    TrainingRowsWarning,
    UndeclaredCategoryWarning,
    UnprotectedFileWarning,
    UnresolvedColumnWarning,
    UnsupportedWeightsError,
    UsageError,
)
from .version import __version__

# The imports below are the one table of where each public name lives. They run only for type checkers:
# at run time each name is imported on first use (PEP 562), from the module its import names, so that
# `import dpcvx` loads neither CVXPY nor sympy nor SciPy's heavy parts and scripts and the CLI start fast.
if TYPE_CHECKING:  # pragma: no cover - read by type checkers, and by __getattr__ below
    from . import losses
    from .data.datasets import Dataset, load_adult, load_kdd
    from .data.kernels import RandomFourierFeatures
    from .data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema
    from .models.audit import AuditReport, NeighbouringPair, audit, canary_pair
    from .models.erm import PrivateERM
    from .models.fit_plan import FitPlan
    from .models.linear_regression import PrivateLinearRegression
    from .models.multiclass import PrivateMulticlassERM
    from .models.pinp import PINP
    from .models.private_norm import fit_private_norm
    from .models.tddl import TDDL, ConstrainedLeastSquares
    from .models.tdil import TDIL
    from .models.tuning import BudgetInConstructor, TuningCertificate, TuningResult, tune
    from .opendp_bridge import as_opendp_measurement
    from .privacy.accountant import PrivacyAccountant, PrivacyCost
    from .privacy.neighbours import Neighbours
    from .release.kernel_model import KernelPredictor
    from .release.model import LinearModel, PrivateModel, ReleaseCertificate
    from .release.serialization import load, save
    from .sklearn.classifiers import DPERMClassifier, DPHuberSVM, DPLogisticRegression
    from .sklearn.regressors import DPHuberRegressor, DPLinearRegression
    from .verification.certificate import Certificate, Condition
    from .verification.problem import VerifiedProblem
    from .verification.verifier import verify, verify_problem


def _locations() -> dict[str, str]:
    """name -> module (relative to dpcvx) of each import under ``if TYPE_CHECKING:`` above."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    return {alias.asname or alias.name: node.module or alias.name
            for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}


_LAZY: dict[str, str] = {}  # filled from the imports above on the first look-up


def __getattr__(name: str) -> Any:
    if not _LAZY:
        _LAZY.update(_locations())
    if name not in _LAZY:
        raise AttributeError(f"module 'dpcvx' has no attribute {name!r}")
    module = importlib.import_module(f".{_LAZY[name]}", __name__)
    value = module if _LAZY[name] == name else getattr(module, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The public names, the module's dunders and its loaded submodules (dpcvx.exceptions): not the helpers of this
    file (Any, TYPE_CHECKING, importlib, annotations), which cluttered tab completion."""
    dunders = {name for name in globals() if name.startswith("__") and name.endswith("__")}
    submodules = {name for name, value in globals().items()
                  if isinstance(value, ModuleType) and value.__name__ == f"{__name__}.{name}"}
    return sorted(dunders | submodules | set(__all__))


# The public names: those imported above, grouped as docs/api.md presents them.
__all__ = [
    "__version__",
    # estimators (scikit-learn) and the mathematical layer
    "DPLogisticRegression",
    "DPHuberSVM",
    "DPERMClassifier",
    "DPLinearRegression",
    "DPHuberRegressor",
    "PrivateERM",
    "FitPlan",
    "PrivateLinearRegression",
    "PrivateMulticlassERM",
    "losses",
    # verification
    "verify",
    "verify_problem",
    "VerifiedProblem",
    "Certificate",
    "Condition",
    # kernels
    "TDDL",
    "ConstrainedLeastSquares",
    "PINP",
    "TDIL",
    "RandomFourierFeatures",
    # tuning, accounting, auditing
    "tune",
    "TuningResult",
    "TuningCertificate",
    "BudgetInConstructor",
    "fit_private_norm",
    "PrivacyAccountant",
    "PrivacyCost",
    "Neighbours",
    "audit",
    "AuditReport",
    "NeighbouringPair",
    "canary_pair",
    "as_opendp_measurement",
    # release
    "PrivateModel",
    "LinearModel",
    "KernelPredictor",
    "ReleaseCertificate",
    "save",
    "load",
    # data
    "Dataset",
    "load_adult",
    "load_kdd",
    "PublicSchema",
    "NumericColumn",
    "CategoricalColumn",
    # errors and warnings
    "DPCVXError",
    "InputError",
    "NonPublicSchemaError",
    "AssumptionError",
    "SolverError",
    "SourceChangedError",
    "BudgetExceededError",
    "DPCVXWarning",
    "ClippingWarning",
    "RangeClipWarning",
    "CostWarning",
    "ExponentialCostWarning",
    "PaperModeWarning",
    "NoiseDominatesWarning",
    "UnsupportedWeightsError",
    # every other public error and warning class of dpcvx.exceptions, so that a filter or an except clause can name
    # the class a message prints (warnings.filterwarnings("ignore", category=dpcvx.TrainingRowsWarning))
    "FileError",
    "OverwriteError",
    "UsageError",
    "LossDeclarationError",
    "NumericRangeError",
    "BudgetLimitError",
    "InputTypeError",
    "NotFittedError",
    "ClassOrderWarning",
    "ConstantPredictionWarning",
    "KernelScaleWarning",
    "LevelErasedWarning",
    "OutOfBoundsWarning",
    "PublicSampleWarning",
    "SlowDescentWarning",
    "SmallTableWarning",
    "ClassFloorWarning",
    "TrainingRowsWarning",
    "UndeclaredCategoryWarning",
    "UnprotectedFileWarning",
    "UnresolvedColumnWarning",
]
